/* Test helpers: scratch directories, running the clmc binary, small files. */
#ifndef CLMC_TESTENV_H
#define CLMC_TESTENV_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <sys/types.h>

/* A fresh directory under $CLMC_TEST_TMP (or /tmp); caller frees the path. */
char *test_scratch_dir(const char *label);
/* Runs "$CLMC_BIN ARGS" through the shell; returns the exit status and, if
 * output is non-NULL, stdout+stderr (caller frees). */
int test_run_clmc(char **output, const char *args_format, ...) __attribute__((format(printf, 2, 3)));
char *test_read_file(const char *path);
void test_write_file(const char *path, const char *text);
/* Writes `json` to DIR/preset.json and returns that path (caller frees). */
char *test_write_preset(const char *dir, const char *json);
/* Parsed DIR/result.json, or NULL. */
cJSON *test_load_result(const char *dir);
/* observables.NAME.mean / .error from a parsed result. */
double test_observable(const cJSON *result, const char *name, const char *field);
int test_path_exists(const char *path);
/* The launch count in the skip-th row of `kernel` in --profile's table in
 * `output`, -1 if none. */
long test_profiled_launches(const char *output, const char *kernel, int skip);
/* How many of those launches have their device time measured (the rest,
 * untimed launches without a profiling event, are counted at their mean):
 * the row's "(timed N)", else all of them; -1 if no row. */
long test_profiled_timed(const char *output, const char *kernel, int skip);

/* CLMC_LONG_TESTS=1: the opt-in long physics checks and the variants that
 * repeat a default case on another layout or generator (tests/README.md). */
int test_long_enabled(void);
/* Skips the calling test unless CLMC_LONG_TESTS=1. */
#define TEST_LONG_ONLY()                                                                                 \
    do {                                                                                                 \
        if (!test_long_enabled()) cr_skip_test("opt-in: CLMC_LONG_TESTS=1");                             \
    } while (0)
void test_sleep_ms(unsigned ms);
/* Starts "$CLMC_BIN ARGS" (stderr into LOG) without waiting; the shell
 * execs clmc, so the pid is clmc's own. */
pid_t test_spawn_clmc(const char *args, const char *log);
/* Waits up to 60 s for `path` to appear; fails the test if clmc `pid` ends first. */
void test_wait_for_file(const char *path, pid_t pid);

struct clmc_checkpoint;
/* Reads DIR/checkpoint.clmc, lets `forge` change it, and writes it back with
 * its checksum recomputed (FNV-1a proves no origin): forged checkpoints for
 * the tests that a resume refuses them.  Fails the test on any I/O error. */
void test_forge_checkpoint(const char *dir, void (*forge)(struct clmc_checkpoint *checkpoint));

#endif
