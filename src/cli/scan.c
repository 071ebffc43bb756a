/* clmc scan: runs every task of a job's grid as a child `clmc run`, several
 * per device, skips finished tasks, resumes interrupted ones, and writes
 * summary.csv and summary.json (docs/scan.md). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "cli/bench_report.h"
#include "cli/scan.h"
#include "clmc/preset.h"
#include "clmc/runtime.h"
#include "output/results.h"

typedef enum { TASK_PENDING, TASK_RUNNING, TASK_DONE, TASK_FAILED, TASK_INTERRUPTED } task_state;
static const char *const state_names[] = {"not_run", "running", "done", "failed", "interrupted"};

typedef struct {
    task_state state;
    pid_t pid;
    size_t device;
    int exit_status;
    char dir[4200];
    cJSON *resolved; /* the task's resolved preset without output.dir */
} scan_task;

typedef struct {
    const char *job_path, *out_dir, *devices;
    long jobs; /* 0: per device type */
    bool quiet;
} scan_args;

static volatile sig_atomic_t signals_received, last_signal;

static void on_signal(int signal_number)
{
    last_signal = signal_number;
    signals_received++;
}

static void install_signals(void)
{
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_signal;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, NULL);
    sigaction(SIGTERM, &action, NULL);
    sigaction(SIGHUP, &action, NULL);
}

static int fail_input(const char *fmt, const char *arg)
{
    fprintf(stderr, "clmc scan: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nusage: clmc scan JOB.json [--out DIR] [--devices SEL,...|all] [--jobs N] [--quiet]\n");
    return CLMC_ERR_INPUT;
}

static int parse_scan_args(int argc, char **argv, scan_args *a)
{
    for (int i = 2; i < argc; i++) {
        const char *arg = argv[i];
        bool has_value = i + 1 < argc;
        const char **slot = strcmp(arg, "--out") == 0 ? &a->out_dir : strcmp(arg, "--devices") == 0 ? &a->devices : NULL;
        if (slot && has_value) {
            if (*slot) return fail_input("option '%s' given twice", arg);
            *slot = argv[++i];
        } else if (strcmp(arg, "--jobs") == 0 && has_value) {
            char *end;
            if (a->jobs) return fail_input("option '%s' given twice", arg);
            a->jobs = strtol(argv[++i], &end, 10);
            if (*end || a->jobs < 1 || a->jobs > 256) return fail_input("--jobs expects 1..256, got '%s'", argv[i]);
        } else if (strcmp(arg, "--quiet") == 0) {
            if (a->quiet) return fail_input("option '%s' given twice", arg);
            a->quiet = true;
        } else if (arg[0] == '-' && arg[1] == '-') {
            return fail_input("unknown or incomplete option '%s'", arg);
        } else if (!a->job_path) {
            a->job_path = arg;
        } else {
            return fail_input("unexpected argument '%s'", arg);
        }
    }
    return a->job_path ? 0 : fail_input("missing JOB.json%s", "");
}

/* "model.L=8, run.seed=2": a task's parameters for messages. */
static void describe_task(const scan_job *job, size_t task, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t a = 0; a < job->n_axes && used < size; a++) {
        char *value = cJSON_PrintUnformatted(scan_task_value(job, task, a));
        used += (size_t)snprintf(buf + used, size - used, "%s%s=%s", a ? ", " : "", job->axes[a].path,
                                 value ? value : "?");
        free(value);
    }
}

static cJSON *without_output_dir(const cJSON *preset)
{
    cJSON *copy = cJSON_Duplicate(preset, true);
    cJSON_DeleteItemFromObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(copy, "output"), "dir");
    return copy;
}

/* Every task's preset resolved before anything runs: a bad path or value
 * stops the scan with the preset layer's message (did-you-mean included). */
static int resolve_tasks(const scan_job *job, const char *out_dir, scan_task *tasks)
{
    for (size_t t = 0; t < job->n_tasks; t++) {
        snprintf(tasks[t].dir, sizeof tasks[t].dir, "%s/tasks/%04zu", out_dir, t);
        char **overrides = scan_task_overrides(job, t, tasks[t].dir);
        clmc_preset *preset = NULL;
        clmc_status status = overrides ? clmc_preset_parse(job->preset_text, strlen(job->preset_text), "job preset",
                                                           (const char *const *)overrides, job->n_axes + 1, &preset)
                                       : clmc_fail(CLMC_ERR_OTHER, "out of host memory");
        scan_free_overrides(overrides, job->n_axes + 1);
        if (status != CLMC_OK) {
            char params[1024];
            describe_task(job, t, params, sizeof params);
            fprintf(stderr, "clmc scan: %s: task %zu (%s): %s\n", "job grid", t, params, clmc_error_message());
            return (int)status;
        }
        tasks[t].resolved = without_output_dir(clmc_preset_tree(preset));
        clmc_preset_free(preset);
    }
    return 0;
}

static bool file_exists(const char *dir, const char *name)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    struct stat st;
    return stat(path, &st) == 0;
}

static cJSON *load_json(const char *dir, const char *name)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int error = 0;
    char *text = clmc_read_text_file(path, (size_t)64 << 20, &error);
    cJSON *tree = text ? cJSON_Parse(text) : NULL;
    free(text);
    return tree;
}

/* A task whose result.json holds its own resolved preset is done; a result
 * of other parameters means the directory belongs to another job. */
static int find_finished(const scan_job *job, scan_task *tasks)
{
    for (size_t t = 0; t < job->n_tasks; t++) {
        cJSON *result = load_json(tasks[t].dir, "result.json");
        if (!result) continue;
        cJSON *preset = without_output_dir(cJSON_GetObjectItemCaseSensitive(result, "preset"));
        bool same = cJSON_Compare(preset, tasks[t].resolved, true);
        cJSON_Delete(preset);
        cJSON_Delete(result);
        if (!same) {
            fprintf(stderr, "clmc scan: %s/result.json holds a run of other parameters than task %zu of this job; "
                            "choose another --out\n", tasks[t].dir, t);
            return CLMC_ERR_INPUT;
        }
        tasks[t].state = TASK_DONE;
    }
    return 0;
}

/* OUT/job.json records the job: restarting with another job is refused. */
static int prepare_out_dir(const char *out_dir, const scan_job *job)
{
    char tasks_dir[4300];
    snprintf(tasks_dir, sizeof tasks_dir, "%s/tasks", out_dir);
    if (clmc_make_directory(tasks_dir) != CLMC_OK) {
        fprintf(stderr, "clmc scan: %s\n", clmc_error_message());
        return CLMC_ERR_OTHER;
    }
    cJSON *earlier = load_json(out_dir, "job.json"), *earlier_preset = load_json(out_dir, "preset.json");
    cJSON *preset = cJSON_Parse(job->preset_text);
    bool other_job = earlier && !cJSON_Compare(earlier, job->job, true);
    bool other_preset = earlier_preset && !cJSON_Compare(earlier_preset, preset, true);
    cJSON_Delete(earlier);
    cJSON_Delete(earlier_preset);
    cJSON_Delete(preset);
    if (other_job || other_preset) {
        fprintf(stderr, "clmc scan: %s/%s holds another %s; resume a scan with the same job and preset, or choose "
                        "another --out\n", out_dir, other_job ? "job.json" : "preset.json",
                other_job ? "job" : "preset (its file changed since the scan started)");
        return CLMC_ERR_INPUT;
    }
    char *text = cJSON_Print(job->job);
    clmc_status status = clmc_write_file_atomic(out_dir, "job.json", text, strlen(text));
    free(text);
    if (status == CLMC_OK)
        status = clmc_write_file_atomic(out_dir, "preset.json", job->preset_text, strlen(job->preset_text));
    if (status != CLMC_OK) fprintf(stderr, "clmc scan: %s\n", clmc_error_message());
    return status == CLMC_OK ? 0 : (int)status;
}

/* A run killed with the scan may still be writing its checkpoint: wait for
 * its lock on the directory (docs/checkpoints.md) before starting another. */
static void wait_for_directory(const char *dir, bool quiet)
{
    int fd = open(dir, O_RDONLY);
    if (fd < 0) return;
    if (flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK) {
        if (!quiet) fprintf(stderr, "clmc scan: waiting for an earlier run on %s to stop\n", dir);
        while (flock(fd, LOCK_EX) != 0 && errno == EINTR && !signals_received) continue;
    }
    close(fd);
}

typedef struct {
    char *exe, *base_preset;
    const clmc_device_info *devices;
    const scan_job *job;
} launcher;

/* A child `clmc run` with the task's --set options (or --resume from its
 * checkpoint), stdout and stderr in DIR/stderr.txt, in its own process group
 * (a terminal's Ctrl-C reaches the scan, which forwards it once). */

/* OCL_ICD_FILENAMES as the scan found it, before its own OpenCL calls: the
 * ICD loader splits the variable's list in place, so after the first OpenCL
 * call the environment held only its first entry ("libpocl.so.2" of
 * "libpocl.so.2:libnvidia-opencl.so.1" on the H100 machine, 2026-11-25) and
 * the tasks saw no NVIDIA platform; each task gets the value back. */
static char *icd_filenames;
static bool icd_filenames_set;

static void note_icd_environment(void)
{
    const char *value = getenv("OCL_ICD_FILENAMES");
    icd_filenames_set = value != NULL;
    icd_filenames = value ? strdup(value) : NULL;
}

static void restore_icd_environment(void)
{
    if (icd_filenames_set && icd_filenames) setenv("OCL_ICD_FILENAMES", icd_filenames, 1);
    else if (!icd_filenames_set) unsetenv("OCL_ICD_FILENAMES");
}

static void start_task(const launcher *l, scan_task *task, size_t t, bool quiet)
{
    char device[32], log_path[4400];
    snprintf(device, sizeof device, "%d:%d", l->devices[task->device].platform_index,
             l->devices[task->device].device_index);
    clmc_make_directory(task->dir);
    wait_for_directory(task->dir, quiet);
    bool resume = file_exists(task->dir, "checkpoint.clmc");
    char **overrides = scan_task_overrides(l->job, t, task->dir);
    size_t n_args = 0;
    char *args[16 + 2 * 256 + 2];
    args[n_args++] = l->exe;
    args[n_args++] = "run";
    if (resume) {
        args[n_args++] = "--resume";
        args[n_args++] = task->dir;
    } else {
        args[n_args++] = l->base_preset;
        args[n_args++] = "--out";
        args[n_args++] = task->dir;
        for (size_t a = 0; overrides && a < l->job->n_axes && a < 256; a++) {
            args[n_args++] = "--set";
            args[n_args++] = overrides[a];
        }
    }
    args[n_args++] = "--device";
    args[n_args++] = device;
    args[n_args++] = "--quiet";
    args[n_args] = NULL;
    snprintf(log_path, sizeof log_path, "%s/stderr.txt", task->dir);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
#ifdef __linux__
        prctl(PR_SET_PDEATHSIG, SIGTERM); /* a killed scan stops its runs with a checkpoint */
        if (getppid() != parent) _exit(1);
#endif
        int fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            dup2(fd, STDOUT_FILENO);
            dup2(fd, STDERR_FILENO);
        }
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
        restore_icd_environment();
        execv(l->exe, args);
        _exit(127);
    }
    (void)parent;
    scan_free_overrides(overrides, l->job->n_axes + 1);
    if (pid < 0) {
        task->state = TASK_FAILED;
        task->exit_status = -1;
        return;
    }
    task->pid = pid;
    task->state = TASK_RUNNING;
}

static char *own_executable(const char *argv0)
{
    char path[4096];
    ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
    if (n > 0) {
        path[n] = '\0';
        return strdup(path);
    }
    return realpath(argv0, NULL);
}

/* ---- Progress ------------------------------------------------------------ */

typedef struct {
    size_t total, done, failed, finished_now;
    double started;
} progress;

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void print_progress(const progress *p, size_t running)
{
    double elapsed = now_seconds() - p->started;
    double rate = elapsed > 0 ? (double)p->finished_now / elapsed : 0; /* tasks per second, this session */
    size_t left = p->total - p->done - p->failed;
    char eta[64] = "ETA -";
    if (rate > 0) {
        double s = (double)left / rate;
        if (s < 120) snprintf(eta, sizeof eta, "ETA %.0fs", s);
        else if (s < 7200) snprintf(eta, sizeof eta, "ETA %.0fm", s / 60);
        else snprintf(eta, sizeof eta, "ETA %.1fh", s / 3600);
    }
    fprintf(stderr, "%sclmc scan: %zu/%zu tasks done, %zu failed, %zu running, %.2f tasks/min, %s%s",
            isatty(STDERR_FILENO) ? "\r" : "", p->done, p->total, p->failed, running, rate * 60, eta,
            isatty(STDERR_FILENO) ? "   " : "\n");
}

/* ---- Scheduling ---------------------------------------------------------- */

static void forward_signal(scan_task *tasks, size_t n, int signal_number)
{
    for (size_t t = 0; t < n; t++)
        if (tasks[t].state == TASK_RUNNING) kill(tasks[t].pid, signal_number);
}

static void finish_task(scan_task *task, int wait_status, progress *p, bool interrupted)
{
    task->exit_status = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : 128 + WTERMSIG(wait_status);
    if (task->exit_status == 0 && file_exists(task->dir, "result.json")) {
        task->state = TASK_DONE;
        p->done++;
        p->finished_now++;
    } else if (interrupted) {
        task->state = TASK_INTERRUPTED;
    } else {
        task->state = TASK_FAILED;
        p->failed++;
        p->finished_now++;
    }
}

/* Runs the pending tasks, `per_device[d]` at a time on device d; returns
 * whether a signal stopped the scan. */
static bool run_tasks(const launcher *l, scan_task *tasks, size_t n_tasks, const size_t *per_device,
                      size_t n_devices, progress *p, bool quiet)
{
    size_t *busy = calloc(n_devices, sizeof *busy);
    size_t next = 0, running = 0;
    int forwarded = 0;
    bool changed = false;
    while (busy) {
        if (signals_received > forwarded) {
            forwarded = signals_received;
            forward_signal(tasks, n_tasks, last_signal);
        }
        while (!signals_received && next < n_tasks) {
            if (tasks[next].state != TASK_PENDING) {
                next++;
                continue;
            }
            size_t d = 0;
            while (d < n_devices && busy[d] >= per_device[d]) d++;
            if (d == n_devices) break;
            tasks[next].device = d;
            start_task(l, &tasks[next], next, quiet);
            if (tasks[next].state == TASK_RUNNING) busy[d]++, running++;
            else p->failed++;
            next++;
        }
        if (changed && !quiet) print_progress(p, running);
        changed = false;
        if (running == 0) break;
        int wait_status;
        pid_t pid = waitpid(-1, &wait_status, 0);
        if (pid < 0) continue; /* EINTR: a signal to forward */
        for (size_t t = 0; t < n_tasks; t++)
            if (tasks[t].state == TASK_RUNNING && tasks[t].pid == pid) {
                finish_task(&tasks[t], wait_status, p, signals_received > 0);
                busy[tasks[t].device]--;
                running--;
                changed = true;
            }
    }
    free(busy);
    return signals_received > 0;
}

/* ---- Summary ------------------------------------------------------------- */

/* Flattens observables into NAME, NAME_error (objects with a mean), NAME
 * (plain numbers), with "PARENT.I." or "PARENT." prefixes for lists and groups. */
static void flatten(const cJSON *node, const char *prefix, cJSON *row, cJSON *columns)
{
    const cJSON *item;
    int index = 0;
    cJSON_ArrayForEach(item, node) {
        char name[512];
        if (cJSON_IsArray(node)) snprintf(name, sizeof name, "%s%d", prefix, index++);
        else snprintf(name, sizeof name, "%s%s", prefix, item->string);
        const cJSON *mean = cJSON_GetObjectItemCaseSensitive(item, "mean");
        if (cJSON_IsNumber(mean)) {
            const cJSON *error = cJSON_GetObjectItemCaseSensitive(item, "error");
            char error_name[600];
            snprintf(error_name, sizeof error_name, "%s_error", name);
            for (int k = 0; k < 2; k++) {
                const char *key = k ? error_name : name;
                if (!cJSON_GetObjectItemCaseSensitive(columns, key)) cJSON_AddTrueToObject(columns, key);
                if (k == 0) cJSON_AddNumberToObject(row, key, mean->valuedouble);
                else if (cJSON_IsNumber(error)) cJSON_AddNumberToObject(row, key, error->valuedouble);
            }
        } else if (cJSON_IsNumber(item)) {
            if (!cJSON_GetObjectItemCaseSensitive(columns, name)) cJSON_AddTrueToObject(columns, name);
            cJSON_AddNumberToObject(row, name, item->valuedouble);
        } else if (cJSON_IsObject(item) || cJSON_IsArray(item)) {
            char deeper[520];
            snprintf(deeper, sizeof deeper, "%s.", name);
            flatten(item, deeper, row, columns);
        }
    }
}

/* The last non-empty line of DIR/stderr.txt: why a task failed. */
static char *last_error_line(const char *dir)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/stderr.txt", dir);
    int error = 0;
    char *text = clmc_read_text_file(path, (size_t)16 << 20, &error);
    if (!text) return strdup("no stderr.txt");
    size_t n = strlen(text);
    while (n && (text[n - 1] == '\n' || text[n - 1] == '\r')) text[--n] = '\0';
    char *line = strrchr(text, '\n');
    char *copy = strdup(line ? line + 1 : text);
    free(text);
    return copy;
}

static void csv_text(char **buf, size_t *used, size_t *size, const char *text)
{
    size_t n = strlen(text);
    if (*buf && *used + n + 1 > *size) {
        size_t grown_size = 2 * (*size + n + 1);
        char *grown = realloc(*buf, grown_size);
        if (!grown) free(*buf);
        *buf = grown;
        *size = grown_size;
    }
    if (!*buf) return;
    memcpy(*buf + *used, text, n + 1);
    *used += n;
}

/* Numbers as the shortest text that reads back as the same double; strings
 * and other JSON values (lists) quoted as CSV does, inner quotes doubled. */
static void csv_value(char **buf, size_t *used, size_t *size, const cJSON *value)
{
    char number[64];
    if (!value) return;
    if (cJSON_IsNumber(value)) {
        snprintf(number, sizeof number, "%.15g", value->valuedouble);
        if (strtod(number, NULL) != value->valuedouble) snprintf(number, sizeof number, "%.17g", value->valuedouble);
        csv_text(buf, used, size, number);
        return;
    }
    char *json = cJSON_IsString(value) ? NULL : cJSON_PrintUnformatted(value);
    const char *text = json ? json : cJSON_IsString(value) ? value->valuestring : "";
    csv_text(buf, used, size, "\"");
    for (const char *c = text; *c; c++) {
        char one[3] = {*c, *c == '"' ? '"' : '\0', '\0'};
        csv_text(buf, used, size, one);
    }
    csv_text(buf, used, size, "\"");
    free(json);
}

static char *summary_csv(const scan_job *job, const scan_task *tasks, cJSON *rows, const cJSON *columns)
{
    size_t used = 0, size = 4096;
    char *buf = malloc(size);
    if (!buf) return NULL;
    buf[0] = '\0';
    csv_text(&buf, &used, &size, "task,status");
    for (size_t a = 0; a < job->n_axes; a++) {
        csv_text(&buf, &used, &size, ",");
        csv_text(&buf, &used, &size, job->axes[a].path);
    }
    const cJSON *column;
    cJSON_ArrayForEach(column, columns) {
        csv_text(&buf, &used, &size, ",");
        csv_text(&buf, &used, &size, column->string);
    }
    csv_text(&buf, &used, &size, "\n");
    for (size_t t = 0; t < job->n_tasks && buf; t++) {
        char head[64];
        snprintf(head, sizeof head, "%04zu,%s", t, state_names[tasks[t].state]);
        csv_text(&buf, &used, &size, head);
        for (size_t a = 0; a < job->n_axes; a++) {
            csv_text(&buf, &used, &size, ",");
            csv_value(&buf, &used, &size, scan_task_value(job, t, a));
        }
        const cJSON *row = cJSON_GetArrayItem(rows, (int)t);
        cJSON_ArrayForEach(column, columns) {
            csv_text(&buf, &used, &size, ",");
            csv_value(&buf, &used, &size, cJSON_GetObjectItemCaseSensitive(row, column->string));
        }
        csv_text(&buf, &used, &size, "\n");
    }
    return buf;
}

static cJSON *task_json(const scan_job *job, const scan_task *task, size_t t, cJSON *row, cJSON *columns)
{
    cJSON *entry = cJSON_CreateObject();
    char name[32];
    snprintf(name, sizeof name, "%04zu", t);
    cJSON_AddStringToObject(entry, "task", name);
    cJSON *parameters = cJSON_AddObjectToObject(entry, "parameters");
    for (size_t a = 0; a < job->n_axes; a++)
        cJSON_AddItemToObject(parameters, job->axes[a].path, cJSON_Duplicate(scan_task_value(job, t, a), true));
    cJSON_AddStringToObject(entry, "status", state_names[task->state]);
    if (task->state == TASK_FAILED || task->state == TASK_INTERRUPTED) {
        cJSON_AddNumberToObject(entry, "exit_status", task->exit_status);
        char *line = last_error_line(task->dir);
        cJSON_AddStringToObject(entry, "error", line ? line : "");
        free(line);
    }
    cJSON *result = task->state == TASK_DONE ? load_json(task->dir, "result.json") : NULL;
    if (result) {
        cJSON *device = cJSON_GetObjectItemCaseSensitive(result, "device");
        cJSON *device_name = cJSON_GetObjectItemCaseSensitive(device, "name");
        if (cJSON_IsString(device_name)) cJSON_AddStringToObject(entry, "device", device_name->valuestring);
        cJSON *observables = cJSON_DetachItemFromObjectCaseSensitive(result, "observables");
        if (observables) {
            flatten(observables, "", row, columns);
            cJSON_AddItemToObject(entry, "observables", observables);
        }
    }
    cJSON_Delete(result);
    return entry;
}

static int write_summary(const char *out_dir, const scan_job *job, const scan_task *tasks)
{
    cJSON *summary = cJSON_CreateObject(), *rows = cJSON_CreateArray(), *columns = cJSON_CreateObject();
    cJSON_AddStringToObject(summary, "schema", "clmc-scan-summary");
    cJSON_AddNumberToObject(summary, "format_version", 1);
    cJSON_AddStringToObject(summary, "clmc_version", CLMC_VERSION);
    cJSON_AddItemToObject(summary, "job", cJSON_Duplicate(job->job, true));
    cJSON_AddItemToObject(summary, "preset", cJSON_Parse(job->preset_text));
    cJSON *list = cJSON_AddArrayToObject(summary, "tasks");
    for (size_t t = 0; t < job->n_tasks; t++) {
        cJSON *row = cJSON_CreateObject();
        cJSON_AddItemToArray(list, task_json(job, &tasks[t], t, row, columns));
        cJSON_AddItemToArray(rows, row);
    }
    char *json = cJSON_Print(summary);
    char *csv = summary_csv(job, tasks, rows, columns);
    clmc_status status = json && csv ? clmc_write_file_atomic(out_dir, "summary.json", json, strlen(json))
                                     : clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    if (status == CLMC_OK) status = clmc_write_file_atomic(out_dir, "summary.csv", csv, strlen(csv));
    if (status != CLMC_OK) fprintf(stderr, "clmc scan: %s\n", clmc_error_message());
    free(json);
    free(csv);
    cJSON_Delete(summary);
    cJSON_Delete(rows);
    cJSON_Delete(columns);
    return (int)status;
}

/* ---- The command --------------------------------------------------------- */

/* Concurrent tasks per device: --jobs, else 4 on a GPU (small tasks overlap
 * their start-up and host work) and 1 on a CPU (one run already uses every core). */
static size_t *tasks_per_device(const clmc_device_info *devices, size_t n, long jobs)
{
    size_t *per_device = calloc(n, sizeof *per_device);
    for (size_t d = 0; per_device && d < n; d++)
        per_device[d] = jobs ? (size_t)jobs : strstr(devices[d].type, "GPU") ? 4 : 1;
    return per_device;
}

static char *default_out_dir(const char *job_path)
{
    const char *slash = strrchr(job_path, '/');
    const char *name = slash ? slash + 1 : job_path;
    size_t n = strlen(name);
    if (n > 5 && strcmp(name + n - 5, ".json") == 0) n -= 5;
    char *dir = malloc(n + 5);
    if (dir) snprintf(dir, n + 5, "out/%.*s", (int)n, name);
    return dir;
}

static int scan_prepared(const scan_args *a, const scan_job *job, scan_task *tasks, const char *out_dir, char *argv0)
{
    int rc = resolve_tasks(job, out_dir, tasks);
    if (rc) return rc;
    clmc_device_info *devices = NULL;
    size_t n_devices = 0;
    clmc_status status = clmc_bench_select_devices(a->devices, &devices, &n_devices);
    if (status != CLMC_OK) {
        fprintf(stderr, "clmc scan: --devices: %s\n", clmc_error_message());
        return (int)status;
    }
    if ((rc = prepare_out_dir(out_dir, job)) || (rc = find_finished(job, tasks))) {
        free(devices);
        return rc;
    }
    char base[4400];
    snprintf(base, sizeof base, "%s/preset.json", out_dir);
    launcher l = {.exe = own_executable(argv0), .base_preset = base, .devices = devices, .job = job};
    size_t *per_device = tasks_per_device(devices, n_devices, a->jobs);
    progress p = {.total = job->n_tasks, .started = now_seconds()};
    for (size_t t = 0; t < job->n_tasks; t++) p.done += tasks[t].state == TASK_DONE;
    if (!a->quiet) {
        fprintf(stderr, "clmc scan: %zu tasks (%zu done before) on", p.total, p.done);
        for (size_t d = 0; d < n_devices; d++)
            fprintf(stderr, "%s %s (%zu at a time)", d ? "," : "", devices[d].name, per_device ? per_device[d] : 0);
        fprintf(stderr, "\n");
    }
    install_signals();
    bool interrupted = l.exe && per_device && run_tasks(&l, tasks, job->n_tasks, per_device, n_devices, &p, a->quiet);
    if (!a->quiet && isatty(STDERR_FILENO)) fprintf(stderr, "\n");
    rc = write_summary(out_dir, job, tasks);
    size_t failed = 0;
    for (size_t t = 0; t < job->n_tasks; t++) {
        if (tasks[t].state != TASK_FAILED) continue;
        failed++;
        char *line = last_error_line(tasks[t].dir);
        fprintf(stderr, "clmc scan: task %04zu failed (exit %d): %s (%s/stderr.txt)\n", t, tasks[t].exit_status,
                line ? line : "", tasks[t].dir);
        free(line);
    }
    if (interrupted)
        fprintf(stderr, "clmc scan: interrupted by signal %d; running tasks wrote checkpoints where their presets "
                        "ask for them; continue with: clmc scan %s --out %s\n", (int)last_signal, a->job_path, out_dir);
    else if (!a->quiet && rc == 0)
        fprintf(stderr, "clmc scan: summary in %s/summary.csv and summary.json\n", out_dir);
    free(per_device);
    free(l.exe);
    free(devices);
    return rc ? rc : (interrupted || failed || !l.exe) ? CLMC_ERR_OTHER : 0;
}

int clmc_scan_command(int argc, char **argv)
{
    note_icd_environment();
    scan_args a = {0};
    int rc = parse_scan_args(argc, argv, &a);
    if (rc) return rc;
    scan_job job;
    clmc_status status = scan_job_load(a.job_path, &job);
    if (status != CLMC_OK) {
        fprintf(stderr, "clmc scan: %s\n", clmc_error_message());
        scan_job_free(&job);
        return (int)status;
    }
    char *out_dir = a.out_dir ? strdup(a.out_dir) : default_out_dir(a.job_path);
    scan_task *tasks = calloc(job.n_tasks, sizeof *tasks);
    rc = tasks && out_dir ? scan_prepared(&a, &job, tasks, out_dir, argv[0]) : CLMC_ERR_OTHER;
    for (size_t t = 0; tasks && t < job.n_tasks; t++) cJSON_Delete(tasks[t].resolved);
    free(tasks);
    free(out_dir);
    scan_job_free(&job);
    return rc;
}
