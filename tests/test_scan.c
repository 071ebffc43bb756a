/* clmc scan: a 12-task grid on one device, several tasks at a time, killed
 * halfway and restarted, equals an uninterrupted scan byte for byte; a
 * failed task does not stop the others; bad jobs exit 2 naming the problem. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testenv.h"

/* 2 sizes x 3 temperatures x 2 seeds; checkpoints every 500 sweeps. */
#define SCAN_JOB                                                                                             \
    "{\"preset\": {\"name\": \"scan\", \"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": 8},"            \
    " \"algorithm\": {\"layout\": \"tiled\", \"tile\": 4}, \"ensemble\": {\"beta\": 0.4},"                 \
    " \"run\": {\"thermalization\": 50, \"sweeps\": 6000, \"measure_every\": 5, \"checkpoint_every\": 500}},"  \
    " \"grid\": {\"model.L\": [8, 16], \"ensemble.beta\": {\"from\": 0.3, \"to\": 0.5, \"count\": 3},"     \
    " \"run.seed\": {\"from\": 1, \"to\": 2}}}"
#define N_TASKS 12

static char *write_job(const char *dir, const char *text)
{
    char *path = malloc(4300);
    snprintf(path, 4300, "%s/job.json", dir);
    test_write_file(path, text);
    return path;
}

static char *read_in(const char *dir, const char *name)
{
    char path[4500];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return test_read_file(path);
}

static int count_results(const char *out)
{
    int n = 0;
    for (int t = 0; t < N_TASKS; t++) {
        char path[4400];
        snprintf(path, sizeof path, "%s/tasks/%04d/result.json", out, t);
        n += test_path_exists(path);
    }
    return n;
}

/* Tasks left with a checkpoint and no result: the ones a restart resumes. */
static int count_checkpointed(const char *out)
{
    int n = 0;
    for (int t = 0; t < N_TASKS; t++) {
        char result[4400], checkpoint[4400];
        snprintf(result, sizeof result, "%s/tasks/%04d/result.json", out, t);
        snprintf(checkpoint, sizeof checkpoint, "%s/tasks/%04d/checkpoint.clmc", out, t);
        n += test_path_exists(checkpoint) && !test_path_exists(result);
    }
    return n;
}

static void scan(const char *job, const char *out)
{
    char *output = NULL;
    int status = test_run_clmc(&output, "scan '%s' --out '%s' --jobs 3", job, out);
    printf("scan into %s: exit %d\n%s", out, status, output ? output : "");
    cr_assert_eq(status, 0, "scan failed: %s", output);
    free(output);
}

/* Every task's series and the summary equal the reference's byte for byte. */
static void expect_same_results(const char *reference, const char *out)
{
    char *a = read_in(reference, "summary.csv"), *b = read_in(out, "summary.csv");
    cr_assert(a && b, "summary.csv missing");
    cr_expect_str_eq(b, a, "summary.csv differs from the uninterrupted scan");
    cr_expect(strstr(a, ",not_run,") == NULL && strstr(a, ",failed,") == NULL);
    free(a);
    free(b);
    for (int t = 0; t < N_TASKS; t++) {
        char name[64];
        snprintf(name, sizeof name, "tasks/%04d/series.csv", t);
        a = read_in(reference, name);
        b = read_in(out, name);
        cr_assert(a && b, "%s missing", name);
        cr_expect_str_eq(b, a, "%s differs from the uninterrupted scan", name);
        free(a);
        free(b);
    }
}

/* Starts the scan, stops it with `signal_number` once `done_before` tasks
 * have results, and restarts it. */
static void interrupt_and_restart(const char *label, int signal_number)
{
    char *dir = test_scratch_dir(label);
    char *job = write_job(dir, SCAN_JOB);
    char reference[4300], out[4300];
    snprintf(reference, sizeof reference, "%s/reference", dir);
    snprintf(out, sizeof out, "%s/interrupted", dir);
    scan(job, reference);
    cr_assert_eq(count_results(reference), N_TASKS);

    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        const char *bin = getenv("CLMC_BIN");
        execl(bin, bin, "scan", job, "--out", out, "--jobs", "3", "--quiet", (char *)NULL);
        _exit(127);
    }
    int done = 0, status = 0;
    for (int i = 0; i < 60000 && (done = count_results(out)) < 4; i++) {
        cr_assert_eq(waitpid(pid, &status, WNOHANG), 0, "the scan ended before it was interrupted");
        nanosleep(&(struct timespec){0, 5000000}, NULL);
    }
    kill(pid, signal_number);
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    int exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
    printf("%s: stopped by signal %d with %d of %d tasks done, exit %d\n", label, signal_number, done, N_TASKS,
           exit_status);
    if (signal_number == SIGTERM) {
        cr_expect_eq(exit_status, 1, "an interrupted scan exits 1");
        char *summary = read_in(out, "summary.csv");
        cr_expect(summary && strstr(summary, ",interrupted,"), "no task marked interrupted: %s", summary);
        free(summary);
    }
    int finished = count_results(out), checkpointed = count_checkpointed(out);
    printf("%s: %d tasks finished, %d left with a checkpoint to resume\n", label, finished, checkpointed);
    cr_expect_lt(finished, N_TASKS, "every task finished before the interruption: nothing was tested");
    if (signal_number == SIGTERM) cr_expect_gt(checkpointed, 0, "no interrupted task left a checkpoint");
    scan(job, out);
    expect_same_results(reference, out);
    free(job);
    free(dir);
}

Test(scan, sigkill_of_the_scan_then_restart_equals_an_uninterrupted_scan)
{
    interrupt_and_restart("scan-kill", SIGKILL);
}

Test(scan, sigterm_interrupts_tasks_with_checkpoints_and_the_restart_resumes_them)
{
    interrupt_and_restart("scan-term", SIGTERM);
}

/* A task whose checkpoint is broken fails (its resume is refused) and is
 * reported with its stderr kept; every other task finishes. */
Test(scan, a_failed_task_is_reported_and_the_others_finish)
{
    char *dir = test_scratch_dir("scan-fail");
    char *job = write_job(dir, "{\"preset\": {\"model\": {\"type\": \"ising\", \"L\": 8}, \"algorithm\": {\"tile\": 4},"
                               " \"run\": {\"thermalization\": 10, \"sweeps\": 200}},"
                               " \"grid\": {\"ensemble.beta\": [0.3, 0.4, 0.5]}}");
    char task_dir[4400], checkpoint[4500];
    snprintf(task_dir, sizeof task_dir, "%s/out/tasks/0001", dir);
    char command[9000];
    snprintf(command, sizeof command, "mkdir -p '%s'", task_dir);
    cr_assert_eq(system(command), 0);
    snprintf(checkpoint, sizeof checkpoint, "%s/checkpoint.clmc", task_dir);
    test_write_file(checkpoint, "not a checkpoint");
    char *output = NULL;
    int status = test_run_clmc(&output, "scan '%s' --out '%s/out'", job, dir);
    printf("exit %d\n%s", status, output);
    cr_expect_eq(status, 1, "a scan with a failed task exits 1");
    cr_expect(output && strstr(output, "task 0001 failed"), "the failure is not reported");
    char out[4300];
    snprintf(out, sizeof out, "%s/out", dir);
    char *summary = read_in(out, "summary.csv");
    printf("%s", summary);
    cr_assert(summary);
    cr_expect(strstr(summary, "0000,done,0.3,") && strstr(summary, "0001,failed,0.4,") &&
              strstr(summary, "0002,done,0.5,"), "summary rows: %s", summary);
    char *log = read_in(task_dir, "stderr.txt");
    cr_expect(log && strstr(log, "checkpoint"), "stderr.txt does not keep the reason: %s", log);
    free(log);
    free(summary);
    free(output);
    free(job);
    free(dir);
}

typedef struct {
    const char *label, *job, *extra_args, *expected_message;
} bad_job;

#define PRESET_PART                                                                                 \
    "\"preset\": {\"model\": {\"type\": \"ising\", \"L\": 8}, \"algorithm\": {\"tile\": 4},"         \
    " \"ensemble\": {\"beta\": 0.4}}"
static const bad_job bad_jobs[] = {
    {"unknown path", "{" PRESET_PART ", \"grid\": {\"model.Lx\": [8, 16]}}", "", "did you mean"},
    {"unknown section", "{" PRESET_PART ", \"grid\": {\"ensembel.beta\": [0.4]}}", "", "ensembel"},
    {"value out of range", "{" PRESET_PART ", \"grid\": {\"ensemble.beta\": [0.4, -1]}}", "", "ensemble.beta"},
    {"empty grid", "{" PRESET_PART ", \"grid\": {}}", "", "\"grid\" is empty"},
    {"empty list", "{" PRESET_PART ", \"grid\": {\"model.L\": []}}", "", "grid.model.L: empty list"},
    {"empty range", "{" PRESET_PART ", \"grid\": {\"run.seed\": {\"from\": 4, \"to\": 1}}}", "", "grid.run.seed"},
    {"bad range key", "{" PRESET_PART ", \"grid\": {\"run.seed\": {\"from\": 1, \"upto\": 3}}}", "", "upto"},
    {"output.dir scanned", "{" PRESET_PART ", \"grid\": {\"output.dir\": [\"a\", \"b\"]}}", "", "grid.output.dir"},
    {"unknown job key", "{" PRESET_PART ", \"grid\": {\"model.L\": [8]}, \"gird\": 1}", "", "gird"},
    {"missing grid", "{" PRESET_PART "}", "", "missing \"grid\""},
    {"missing preset file", "{\"preset\": \"nowhere.json\", \"grid\": {\"model.L\": [8]}}", "", "nowhere.json"},
    {"syntax error", "{" PRESET_PART ",, \"grid\": {}}", "", "job.json:1:"},
    {"unknown device", "{" PRESET_PART ", \"grid\": {\"model.L\": [8]}}", "--devices pocl,no-such-device-xyz",
     "no-such-device-xyz"},
    {"bad --jobs", "{" PRESET_PART ", \"grid\": {\"model.L\": [8]}}", "--jobs 0", "--jobs"},
};

Test(scan, bad_jobs_exit_2_naming_the_problem_and_write_nothing)
{
    char *dir = test_scratch_dir("scan-bad");
    for (size_t i = 0; i < sizeof bad_jobs / sizeof bad_jobs[0]; i++) {
        const bad_job *c = &bad_jobs[i];
        char *job = write_job(dir, c->job);
        char out[4300];
        snprintf(out, sizeof out, "%s/out%zu", dir, i);
        char *output = NULL;
        int status = test_run_clmc(&output, "scan '%s' --out '%s' %s", job, out, c->extra_args);
        printf("[%s] exit %d: %s", c->label, status, output ? output : "(no output)\n");
        cr_expect_eq(status, 2, "%s: exit status %d, expected 2", c->label, status);
        cr_expect(output && strstr(output, c->expected_message), "%s: message lacks '%s'", c->label,
                  c->expected_message);
        cr_expect(!test_path_exists(out), "%s: the output directory was created", c->label);
        free(output);
        free(job);
    }
    free(dir);
}

/* Restarting into a directory of another job is refused. */
Test(scan, another_job_in_the_same_directory_is_refused)
{
    char *dir = test_scratch_dir("scan-other");
    char *job = write_job(dir, "{\"preset\": {\"model\": {\"type\": \"ising\", \"L\": 8}, \"algorithm\": {\"tile\": 4},"
                               " \"run\": {\"thermalization\": 10, \"sweeps\": 100}}, \"grid\": {\"ensemble.beta\": [0.4]}}");
    char *output = NULL;
    cr_assert_eq(test_run_clmc(&output, "scan '%s' --out '%s/out' --quiet", job, dir), 0, "%s", output);
    free(output);
    free(job);
    job = write_job(dir, "{\"preset\": {\"model\": {\"type\": \"ising\", \"L\": 8}, \"algorithm\": {\"tile\": 4},"
                         " \"run\": {\"thermalization\": 10, \"sweeps\": 100}}, \"grid\": {\"ensemble.beta\": [0.5]}}");
    int status = test_run_clmc(&output, "scan '%s' --out '%s/out' --quiet", job, dir);
    printf("exit %d: %s", status, output);
    cr_expect_eq(status, 2);
    cr_expect(output && strstr(output, "another job"), "%s", output);
    free(output);
    free(job);
    /* The same job whose preset file changed since: refused too (a checkpoint of the
     * old preset would otherwise be resumed). */
    char preset_path[4400];
    snprintf(preset_path, sizeof preset_path, "%s/base.json", dir);
    test_write_file(preset_path, "{\"model\": {\"type\": \"ising\", \"L\": 8}, \"algorithm\": {\"tile\": 4},"
                                 " \"run\": {\"thermalization\": 10, \"sweeps\": 100}}");
    job = write_job(dir, "{\"preset\": \"base.json\", \"grid\": {\"ensemble.beta\": [0.5]}}");
    cr_assert_eq(test_run_clmc(&output, "scan '%s' --out '%s/out2' --quiet", job, dir), 0, "%s", output);
    free(output);
    test_write_file(preset_path, "{\"model\": {\"type\": \"ising\", \"L\": 8}, \"algorithm\": {\"tile\": 4},"
                                 " \"run\": {\"thermalization\": 10, \"sweeps\": 200}}");
    status = test_run_clmc(&output, "scan '%s' --out '%s/out2' --quiet", job, dir);
    printf("exit %d: %s", status, output);
    cr_expect_eq(status, 2);
    cr_expect(output && strstr(output, "preset.json holds another preset"), "%s", output);
    free(output);
    free(job);
    free(dir);
}
