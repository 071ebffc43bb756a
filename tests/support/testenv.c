/* Scratch directories, running the clmc binary and reading its result files. */
#include "testenv.h"

#include <criterion/criterion.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "engine/checkpoint.h"

char *test_scratch_dir(const char *label)
{
    static int counter;
    const char *base = getenv("CLMC_TEST_TMP");
    if (!base || !*base) base = "/tmp";
    mkdir(base, 0755);
    char *path = malloc(4096);
    snprintf(path, 4096, "%s/%s-%ld-%d", base, label, (long)getpid(), counter++);
    char command[4200];
    snprintf(command, sizeof command, "rm -rf '%s'", path);
    if (system(command) != 0 || mkdir(path, 0755) != 0) {
        free(path);
        return NULL;
    }
    return path;
}

char *test_read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t capacity = 4096, n = 0, got;
    char *text = malloc(capacity);
    while (text && (got = fread(text + n, 1, capacity - n - 1, f)) > 0) {
        n += got;
        if (n + 1 == capacity) text = realloc(text, capacity *= 2);
    }
    fclose(f);
    if (text) text[n] = '\0';
    return text;
}

void test_write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    if (!f) return;
    fputs(text, f);
    fclose(f);
}

char *test_write_preset(const char *dir, const char *json)
{
    char *path = malloc(4200);
    snprintf(path, 4200, "%s/preset.json", dir);
    test_write_file(path, json);
    return path;
}

int test_run_clmc(char **output, const char *args_format, ...)
{
    char args[8192], command[8500];
    va_list ap;
    va_start(ap, args_format);
    vsnprintf(args, sizeof args, args_format, ap);
    va_end(ap);
    const char *bin = getenv("CLMC_BIN");
    snprintf(command, sizeof command, "'%s' %s 2>&1", bin ? bin : "clmc", args);
    FILE *pipe = popen(command, "r");
    if (!pipe) return -1;
    size_t capacity = 4096, n = 0, got;
    char *text = malloc(capacity);
    while (text && (got = fread(text + n, 1, capacity - n - 1, pipe)) > 0) {
        n += got;
        if (n + 1 == capacity) text = realloc(text, capacity *= 2);
    }
    if (text) text[n] = '\0';
    int status = pclose(pipe);
    if (output) *output = text;
    else free(text);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

cJSON *test_load_result(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/result.json", dir);
    char *text = test_read_file(path);
    cJSON *root = text ? cJSON_Parse(text) : NULL;
    free(text);
    return root;
}

double test_observable(const cJSON *result, const char *name, const char *field)
{
    const cJSON *observables = cJSON_GetObjectItemCaseSensitive(result, "observables");
    const cJSON *entry = cJSON_GetObjectItemCaseSensitive(observables, name);
    const cJSON *value = cJSON_GetObjectItemCaseSensitive(entry, field);
    return cJSON_IsNumber(value) ? value->valuedouble : 0.0 / 0.0;
}

int test_path_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

void test_forge_checkpoint(const char *dir, void (*forge)(struct clmc_checkpoint *checkpoint))
{
    clmc_checkpoint c;
    cr_assert_eq(clmc_checkpoint_read(dir, &c), CLMC_OK, "%s", clmc_error_message());
    forge(&c);
    unsigned char *bytes = NULL;
    size_t length = 0;
    cr_assert_eq(clmc_checkpoint_encode(&c, &bytes, &length), CLMC_OK);
    char path[9100];
    snprintf(path, sizeof path, "%s/checkpoint.clmc", dir);
    FILE *f = fopen(path, "wb");
    cr_assert(f && fwrite(bytes, 1, length, f) == length);
    fclose(f);
    free(bytes);
    clmc_checkpoint_free(&c);
}

void test_sleep_ms(unsigned ms)
{
    struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

pid_t test_spawn_clmc(const char *args, const char *log)
{
    char command[17000];
    snprintf(command, sizeof command, "exec '%s' %s 2>'%s'", getenv("CLMC_BIN"), args, log);
    pid_t pid = fork();
    if (pid == 0) {
        execl("/bin/sh", "sh", "-c", command, (char *)NULL);
        _exit(127);
    }
    return pid;
}

void test_wait_for_file(const char *path, pid_t pid)
{
    for (int i = 0; i < 6000 && !test_path_exists(path); i++) {
        int status;
        cr_assert_eq(waitpid(pid, &status, WNOHANG), 0, "clmc ended before writing %s", path);
        test_sleep_ms(10);
    }
    cr_assert(test_path_exists(path), "no %s after 60 s", path);
}

int test_long_enabled(void)
{
    const char *enabled = getenv("CLMC_LONG_TESTS");
    return enabled && strcmp(enabled, "1") == 0;
}

/* The skip-th row of `kernel` in --profile's table, NULL if none. */
static const char *profiled_row(const char *output, const char *kernel, int skip)
{
    for (const char *line = strstr(output, "clmc profile:   "); line; line = strstr(line + 1, "clmc profile:   ")) {
        char name[64];
        if (sscanf(line, "clmc profile: %63s", name) == 1 && strcmp(name, kernel) == 0 && skip-- == 0) return line;
    }
    return NULL;
}

long test_profiled_launches(const char *output, const char *kernel, int skip)
{
    const char *row = profiled_row(output, kernel, skip);
    long launches;
    return row && sscanf(row, "clmc profile: %*s %ld launches", &launches) == 1 ? launches : -1;
}

long test_profiled_timed(const char *output, const char *kernel, int skip)
{
    const char *row = profiled_row(output, kernel, skip);
    if (!row) return -1;
    const char *end = strchr(row, '\n'), *times = strstr(row, "(timed ");
    long timed;
    if (times && (!end || times < end)) return sscanf(times, "(timed %ld)", &timed) == 1 ? timed : -1;
    return test_profiled_launches(output, kernel, skip);
}
