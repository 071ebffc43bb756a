/* Long runs that survive: SIGKILL after a checkpoint then --resume gives the
 * uninterrupted results bit for bit (Ising, Potts, Ising tempering, EA msc
 * tempering, hard disks, population annealing between steps, multicanonical and
 * Wang-Landau walkers: their density of states); SIGINT, SIGTERM and SIGHUP
 * leave a resumable checkpoint; damaged and forged checkpoints are refused
 * without touching anything; one run at a time per output directory, and no
 * fresh run over a checkpoint without --overwrite; FIFOs do not hang; presets
 * too big for the device are refused. */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "engine/checkpoint.h"
#include "clmc/runtime.h"
#include "physics.h"
#include "testenv.h"

/* A few seconds on PoCL, so that a signal lands in the middle: the kill
 * comes up to 400 ms after the first checkpoint, and each run must outlast
 * that by a wide margin (Potts SW at L = 16 runs about 5000 sweeps/s, Ising
 * at L = 32 about 40000 on two PoCL cores). */
static const char ising_preset[] =
    "{\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": 32}, \"ensemble\": {\"beta\": 0.44},"
    " \"run\": {\"thermalization\": 100, \"sweeps\": 80000, \"seed\": 11, \"checkpoint_every\": 1000}}";
static const char potts_preset[] =
    "{\"model\": {\"type\": \"potts\", \"dim\": 2, \"L\": 16, \"q\": 3}, \"algorithm\": {\"type\": \"swendsen_wang\"},"
    " \"ensemble\": {\"beta\": 1.0}, \"run\": {\"thermalization\": 50, \"sweeps\": 15000, \"seed\": 5,"
    " \"checkpoint_every\": 200}}";
static const char tempering_preset[] =
    "{\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": 16}, \"ensemble\": {\"type\": \"parallel_tempering\","
    " \"betas\": [0.3, 0.36, 0.42, 0.48], \"exchange_every\": 5}, \"run\": {\"thermalization\": 100,"
    " \"sweeps\": 12000, \"seed\": 3, \"checkpoint_every\": 500}}";

/* Hard disks: N = 1024 at phi = 0.70 (24 x 24 cells). */
static const char disks_preset[] =
    "{\"model\": {\"type\": \"hard_disks\", \"N\": 1024, \"packing_fraction\": 0.70},"
    " \"algorithm\": {\"pressure_range\": 0.1, \"pressure_degree\": 3, \"pressure_bin\": 0.005},"
    " \"run\": {\"thermalization\": 100, \"sweeps\": 6000, \"measure_every\": 20, \"seed\": 21,"
    " \"checkpoint_every\": 250}}";

static const char ea_tempering_preset[] =
    "{\"model\": {\"type\": \"ea_ising\", \"dim\": 3, \"L\": 8, \"realizations\": 64},"
    " \"algorithm\": {\"layout\": \"msc\"}, \"ensemble\": {\"type\": \"parallel_tempering\","
    " \"betas\": [0.5, 0.7, 1.0, 1.5], \"exchange_every\": 5}, \"run\": {\"thermalization\": 100,"
    " \"sweeps\": 6000, \"measure_every\": 20, \"seed\": 9, \"checkpoint_every\": 300}}";

/* Heisenberg 3D n = 3, heat-bath plus over-relaxation in float (about 3 s);
 * the glass under tempering, two samples (about 4 s); percolation, measured
 * every third sample so that a checkpoint can follow the last measurement
 * (about 4 s). */
static const char heisenberg_preset[] =
    "{\"model\": {\"type\": \"heisenberg\", \"dim\": 3, \"L\": 8, \"n\": 3}, \"algorithm\": {\"type\": \"heatbath\","
    " \"overrelaxation_steps\": 2, \"renormalize_every\": 50}, \"ensemble\": {\"beta\": 0.69},"
    " \"run\": {\"thermalization\": 100, \"sweeps\": 14000, \"seed\": 7, \"checkpoint_every\": 500}}";
static const char glass_tempering_preset[] =
    "{\"model\": {\"type\": \"heisenberg_glass\", \"dim\": 3, \"L\": 4, \"realizations\": 2},"
    " \"algorithm\": {\"layout\": \"naive\", \"overrelaxation_steps\": 1}, \"ensemble\": {\"type\": "
    "\"parallel_tempering\", \"betas\": [0.5, 0.8, 1.2], \"exchange_every\": 2}, \"run\": {\"thermalization\": 100,"
    " \"sweeps\": 3000, \"seed\": 5, \"checkpoint_every\": 200}}";
/* Population annealing (2D Ising L = 16, two runs of 12 steps of 20
 * sweeps, R = 500): a checkpoint every 40 sweeps falls between temperature
 * steps, in either run. */
static const char population_preset[] =
    "{\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": 16}, \"algorithm\": {\"layout\": \"naive\"},"
    " \"ensemble\": {\"type\": \"population_annealing\", \"population\": 500, \"beta_end\": 0.6, \"steps\": 12,"
    " \"sweeps_per_step\": 20, \"runs\": 2}, \"run\": {\"seed\": 5, \"checkpoint_every\": 40}}";
/* The same with the adaptive schedule (target overlap 0.5): the checkpoint
 * holds the betas chosen so far, and run 1 follows run 0's schedule. */
static const char population_adaptive_preset[] =
    "{\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": 16}, \"algorithm\": {\"layout\": \"naive\"},"
    " \"ensemble\": {\"type\": \"population_annealing\", \"population\": 500, \"schedule\": \"adaptive\","
    " \"target_overlap\": 0.5, \"beta_end\": 0.6, \"sweeps_per_step\": 20, \"runs\": 2},"
    " \"run\": {\"seed\": 6, \"checkpoint_every\": 40}}";
static const char percolation_preset[] =
    "{\"model\": {\"type\": \"percolation\", \"dim\": 2, \"L\": 32, \"p\": 0.5, \"kind\": \"bond\"},"
    " \"run\": {\"thermalization\": 0, \"sweeps\": 5000, \"measure_every\": 3, \"seed\": 5, \"checkpoint_every\": 100}}";

static void expect_same_file(const char *dir_a, const char *dir_b, const char *name)
{
    char path[8500];
    snprintf(path, sizeof path, "%s/%s", dir_a, name);
    char *a = test_read_file(path);
    snprintf(path, sizeof path, "%s/%s", dir_b, name);
    char *b = test_read_file(path);
    cr_assert(a && b, "%s missing", name);
    printf("%s: %zu and %zu bytes, %s\n", name, strlen(a), strlen(b), strcmp(a, b) == 0 ? "identical" : "DIFFERENT");
    cr_expect_str_eq(a, b, "%s differs", name);
    free(a);
    free(b);
}

/* series.csv byte for byte; observables and checks of result.json exactly. */
static void expect_same_results(const char *reference, const char *resumed)
{
    expect_same_file(reference, resumed, "series.csv");
    cJSON *a = test_load_result(reference), *b = test_load_result(resumed);
    cr_assert(a && b, "result.json missing");
    const char *parts[] = {"observables", "checks"};
    for (int i = 0; i < 2; i++) {
        bool same = cJSON_Compare(cJSON_GetObjectItem(a, parts[i]), cJSON_GetObjectItem(b, parts[i]), true);
        char *text = cJSON_PrintUnformatted(cJSON_GetObjectItem(b, parts[i]));
        printf("%s %s: %.200s\n", parts[i], same ? "identical" : "DIFFERENT", text);
        free(text);
        cr_expect(same, "%s differ", parts[i]);
    }
    cJSON_Delete(a);
    cJSON_Delete(b);
}

static unsigned random_delay_ms(void)
{
    static unsigned seed;
    if (!seed) seed = (unsigned)time(NULL) ^ (unsigned)getpid();
    return (unsigned)(rand_r(&seed) % 400);
}

/* Reference run, then for each of the `n` signals the same run killed by
 * it at a random point after its first checkpoint (in a directory of its
 * own), resumed, and compared by `compare` (reference and resumed output
 * directories): the signals share the reference run. */
static void interrupt_resume_compare_each(const char *label, const char *preset_json, const int *signals, int n,
                                          void (*compare)(const char *reference, const char *resumed))
{
    char *dir = test_scratch_dir(label), *preset = test_write_preset(dir, preset_json), args[8400], log[8400];
    cr_assert_eq(test_run_clmc(NULL, "run '%s' --quiet --out '%s/reference'", preset, dir), 0, "reference run");
    for (int i = 0; i < n; i++) {
        int signal_number = signals[i];
        snprintf(args, sizeof args, "run '%s' --out '%s/resumed%d'", preset, dir, i);
        snprintf(log, sizeof log, "%s/interrupted%d.log", dir, i);
        pid_t pid = test_spawn_clmc(args, log);
        char checkpoint[4200];
        snprintf(checkpoint, sizeof checkpoint, "%s/resumed%d/checkpoint.clmc", dir, i);
        test_wait_for_file(checkpoint, pid);
        unsigned delay = random_delay_ms();
        test_sleep_ms(delay);
        kill(pid, signal_number);
        int status;
        cr_assert_eq(waitpid(pid, &status, 0), pid);
        char *stderr_text = test_read_file(log);
        printf("%s: signal %d %u ms after the first checkpoint; clmc %s %d\n", label, signal_number, delay,
               WIFSIGNALED(status) ? "killed by signal" : "exited with", WIFSIGNALED(status) ? WTERMSIG(status)
                                                                                          : WEXITSTATUS(status));
        if (signal_number == SIGKILL) {
            cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "run ended before the kill");
        } else {
            printf("stderr: %s\n", stderr_text ? strrchr(stderr_text, '\n') ? stderr_text : stderr_text : "");
            cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 1, "exit status after signal %d", signal_number);
            cr_expect(stderr_text && strstr(stderr_text, "--resume"), "no resume hint on stderr");
        }
        free(stderr_text);
        snprintf(args, sizeof args, "%s/resumed%d/result.json", dir, i);
        cr_assert(!test_path_exists(args), "an interrupted run wrote result.json");
        char *output = NULL;
        int rc = test_run_clmc(&output, "run --resume '%s/resumed%d'", dir, i);
        printf("resume: exit %d: %s\n", rc, output ? output : "");
        free(output);
        cr_assert_eq(rc, 0, "resume failed");
        snprintf(args, sizeof args, "%s/reference", dir);
        snprintf(log, sizeof log, "%s/resumed%d", dir, i);
        compare(args, log);
    }
    free(preset);
    free(dir);
}

static void interrupt_resume_compare(const char *label, const char *preset_json, int signal_number,
                                     void (*compare)(const char *reference, const char *resumed))
{
    interrupt_resume_compare_each(label, preset_json, &signal_number, 1, compare);
}

static void interrupt_and_resume(const char *label, const char *preset_json, int signal_number)
{
    interrupt_resume_compare(label, preset_json, signal_number, expect_same_results);
}

/* SIGKILL and a second signal (SIGTERM, SIGINT) of the same preset against
 * one reference run. */
static void interrupt_and_resume_both(const char *label, const char *preset_json, int second_signal)
{
    const int signals[] = {SIGKILL, second_signal};
    interrupt_resume_compare_each(label, preset_json, signals, 2, expect_same_results);
}

/* Ising: SIGKILL, and SIGTERM leaving a resumable checkpoint (exit 1). */
Test(checkpoint, ising_sigkill_and_sigterm_resume_bit_identical)
{
    interrupt_and_resume_both("ckpt-ising", ising_preset, SIGTERM);
}
Test(checkpoint, potts_sigkill_resume_bit_identical) { interrupt_and_resume("ckpt-potts", potts_preset, SIGKILL); }
Test(checkpoint, tempering_sigkill_resume_bit_identical)
{
    interrupt_and_resume("ckpt-tempering", tempering_preset, SIGKILL);
}
Test(checkpoint, ea_msc_tempering_sigkill_resume_bit_identical)
{
    interrupt_and_resume("ckpt-ea", ea_tempering_preset, SIGKILL);
}
/* Hard disks and Heisenberg: their blobs come back bit for bit in
 * test_independent's resumes and in the guard cases below and in
 * test_hard_disks (lost disk); the kill itself is the engine's, as for Ising
 * (CLMC_LONG_TESTS=1). */
Test(checkpoint, hard_disks_sigkill_resume_bit_identical)
{
    TEST_LONG_ONLY();
    interrupt_and_resume("ckpt-disks", disks_preset, SIGKILL);
}
Test(checkpoint, heisenberg_sigkill_resume_bit_identical)
{
    TEST_LONG_ONLY();
    interrupt_and_resume("ckpt-heisenberg", heisenberg_preset, SIGKILL);
}
Test(checkpoint, heisenberg_glass_tempering_sigkill_resume_bit_identical)
{
    interrupt_and_resume("ckpt-glass", glass_tempering_preset, SIGKILL);
}
Test(checkpoint, percolation_sigkill_resume_bit_identical)
{
    interrupt_and_resume("ckpt-percolation", percolation_preset, SIGKILL);
}
/* SIGKILL, and SIGINT leaving a resumable checkpoint (exit 1). */
Test(checkpoint, population_annealing_sigkill_and_sigint_resume_bit_identical)
{
    interrupt_and_resume_both("ckpt-population", population_preset, SIGINT);
}
Test(checkpoint, population_annealing_adaptive_sigkill_resume_bit_identical)
{
    interrupt_and_resume("ckpt-population-adaptive", population_adaptive_preset, SIGKILL);
}
/* SIGINT and SIGHUP take SIGTERM's handler (src/engine/interrupt.c); the
 * population-annealing case covers SIGINT by default (CLMC_LONG_TESTS=1: both). */
Test(checkpoint, sigint_leaves_resumable_checkpoint)
{
    TEST_LONG_ONLY();
    interrupt_and_resume("ckpt-sigint", ising_preset, SIGINT);
}

/* Numerical guard (issue 8 item 7) by fault injection: CLMC_FAULT_SPIN_AFTER
 * doubles one spin at the end of sweep 300 (a heat-bath sweep would draw it
 * afresh, so the fault comes right before a guard); checkpoints come every
 * 100 sweeps, so the guard before the checkpoint of sweep 300 stops the run
 * with exit 1, and checkpoint.clmc is still that of sweep 200.  Resumed
 * without the fault, the run ends as an uninterrupted one. */
static void guard_stops_faulty_run(const char *label, const char *preset_json)
{
    const char *overrides = "--set run.thermalization=100 --set run.sweeps=900 --set run.checkpoint_every=100";
    char *dir = test_scratch_dir(label), *preset = test_write_preset(dir, preset_json), *output = NULL;
    cr_assert_eq(test_run_clmc(NULL, "run '%s' %s --quiet --out '%s/reference'", preset, overrides, dir), 0);
    setenv("CLMC_FAULT_SPIN_AFTER", "300", 1);
    int rc = test_run_clmc(&output, "run '%s' %s --quiet --out '%s/faulty'", preset, overrides, dir);
    unsetenv("CLMC_FAULT_SPIN_AFTER");
    printf("%s with a spin doubled after sweep 300: exit %d: %s", label, rc, output ? output : "");
    cr_expect_eq(rc, 1, "exit status %d", rc);
    cr_expect(output && strstr(output, "spin length deviates from 1 by 1,"), "the message does not name the spin");
    cr_expect(output && strstr(output, "after sweep 300"), "the message does not name the sweep");
    cr_expect(output && strstr(output, "last good state is the last checkpoint"), "no word on the last checkpoint");
    free(output);
    char path[4200];
    snprintf(path, sizeof path, "%s/faulty", dir);
    clmc_checkpoint checkpoint;
    cr_assert_eq(clmc_checkpoint_read(path, &checkpoint), CLMC_OK, "no readable checkpoint after the fault");
    printf("checkpoint.clmc after the fault: next sweep %llu (expected 200)\n",
           (unsigned long long)checkpoint.next_sweep);
    cr_expect_eq(checkpoint.next_sweep, 200);
    clmc_checkpoint_free(&checkpoint);
    snprintf(path, sizeof path, "%s/faulty/result.json", dir);
    cr_expect(!test_path_exists(path), "a stopped run wrote result.json");
    rc = test_run_clmc(&output, "run --resume '%s/faulty' --quiet", dir);
    printf("resume without the fault: exit %d: %s\n", rc, output ? output : "");
    free(output);
    cr_assert_eq(rc, 0, "resume failed");
    char reference[4200];
    snprintf(reference, sizeof reference, "%s/reference", dir);
    snprintf(path, sizeof path, "%s/faulty", dir);
    expect_same_results(reference, path);
    free(preset);
    free(dir);
}

Test(checkpoint, guard_stops_heisenberg_with_a_long_spin)
{
    guard_stops_faulty_run("ckpt-guard-heisenberg", heisenberg_preset);
}
Test(checkpoint, guard_stops_heisenberg_glass_with_a_long_spin)
{
    guard_stops_faulty_run("ckpt-guard-glass", glass_tempering_preset);
}

/* All files of DIR, concatenated with their names, to see that nothing changed. */
static char *directory_snapshot(const char *dir)
{
    const char *names[] = {"checkpoint.clmc", "checkpoint.prev", "series.csv", "result.json"};
    size_t size = 1;
    char *all = calloc(1, 1);
    for (int i = 0; i < 4; i++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        struct stat st;
        char *text = stat(path, &st) == 0 ? malloc((size_t)st.st_size + 64) : NULL;
        FILE *f = text ? fopen(path, "rb") : NULL;
        size_t n = f ? fread(text, 1, (size_t)st.st_size, f) : 0;
        if (f) fclose(f);
        all = realloc(all, size + n + 300);
        size += (size_t)snprintf(all + size - 1, 300, "[%s %zu]", names[i], n);
        for (size_t k = 0; k < n; k++) all[size - 1 + k] = text[k] ? text[k] : '\x01'; /* keep it a C string */
        size += n;
        all[size - 1] = '\0';
        free(text);
    }
    return all;
}

static void damage_and_expect_refusal(const char *dir, const char *how, long keep_bytes, long flip_bit)
{
    char path[9100], *output = NULL;
    snprintf(path, sizeof path, "%s/checkpoint.clmc", dir);
    struct stat st;
    cr_assert_eq(stat(path, &st), 0);
    if (keep_bytes >= 0) cr_assert_eq(truncate(path, keep_bytes), 0);
    if (flip_bit >= 0) {
        FILE *f = fopen(path, "r+b");
        fseek(f, flip_bit / 8, SEEK_SET);
        int byte = fgetc(f);
        fseek(f, flip_bit / 8, SEEK_SET);
        fputc(byte ^ (1 << (flip_bit % 8)), f);
        fclose(f);
    }
    char *before = directory_snapshot(dir);
    int rc = test_run_clmc(&output, "run --resume '%s' --quiet", dir);
    printf("%s (file of %lld bytes): exit %d: %s", how, (long long)st.st_size, rc, output ? output : "");
    cr_expect_eq(rc, 2, "%s: exit status %d", how, rc);
    cr_expect(output && strstr(output, "refused"), "%s: message lacks 'refused'", how);
    char *after = directory_snapshot(dir);
    cr_expect_str_eq(before, after, "%s: the directory changed", how);
    free(before);
    free(after);
    free(output);
}

Test(checkpoint, damaged_checkpoints_refused_nothing_overwritten)
{
    char *dir = test_scratch_dir("ckpt-damaged"), *preset = test_write_preset(dir, ising_preset);
    cr_assert_eq(test_run_clmc(NULL, "run '%s' --quiet --out '%s/run' --set run.sweeps=3000 --set "
                               "run.checkpoint_every=500", preset, dir), 0);
    char run[4200], copy[9000];
    snprintf(run, sizeof run, "%s/run", dir);
    const char *cases[] = {"truncated to half", "truncated by one byte", "one bit flipped in the middle",
                           "one bit flipped in the header", "empty"};
    for (int i = 0; i < 5; i++) {
        snprintf(copy, sizeof copy, "cp -r '%s' '%s/case%d'", run, dir, i);
        cr_assert_eq(system(copy), 0);
        snprintf(copy, sizeof copy, "%s/case%d/checkpoint.clmc", dir, i);
        struct stat st;
        cr_assert_eq(stat(copy, &st), 0);
        long size = (long)st.st_size;
        long keep[] = {size / 2, size - 1, -1, -1, 0}, flip[] = {-1, -1, 4 * size + 3, 70, -1};
        snprintf(copy, sizeof copy, "%s/case%d", dir, i);
        damage_and_expect_refusal(copy, cases[i], keep[i], flip[i]);
    }
    char *output = NULL;
    int rc = test_run_clmc(&output, "run --resume '%s/nowhere' --quiet", dir);
    printf("missing checkpoint: exit %d: %s", rc, output ? output : "");
    cr_expect_eq(rc, 2);
    free(output);
    free(preset);
    free(dir);
}

/* 64 configurations of 65534^2 one-byte spins: about 275 GB. */
Test(checkpoint, preset_larger_than_device_memory_refused)
{
    char betas[2048] = "", *at = betas;
    for (int i = 0; i < 64; i++)
        at += snprintf(at, (size_t)(betas + sizeof betas - at), "%s%.4f", i ? ", " : "", 0.1 + 0.005 * i);
    char json[4096];
    snprintf(json, sizeof json,
             "{\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": 65534}, \"ensemble\": {\"type\": "
             "\"parallel_tempering\", \"betas\": [%s]}, \"run\": {\"sweeps\": 10, \"thermalization\": 0}}", betas);
    char *dir = test_scratch_dir("ckpt-memory"), *preset = test_write_preset(dir, json), *output = NULL;
    int rc = test_run_clmc(&output, "run '%s' --quiet --out '%s/out'", preset, dir);
    printf("exit %d: %s", rc, output ? output : "");
    cr_expect_eq(rc, 2, "exit status %d", rc);
    clmc_device_info device;
    cr_assert_eq(clmc_device_select(NULL, &device), CLMC_OK);
    unsigned long long needed = 0, has = 0, spins = 65534ULL * 65534ULL * 64ULL;
    const char *numbers = output ? strstr(output, "needs ") : NULL;
    cr_assert(numbers && sscanf(numbers, "needs %llu bytes", &needed) == 1, "no needed bytes in the message");
    const char *available = strstr(numbers, " has ");
    cr_assert(available && sscanf(available, " has %llu bytes", &has) == 1, "no available bytes in the message");
    printf("needed %llu >= spins alone %llu; available %llu ~ device global memory %llu\n", needed, spins, has,
           (unsigned long long)device.global_mem_bytes);
    cr_expect_geq(needed, spins);
    /* PoCL derives its global memory from the host's free memory at query time. */
    double ratio = (double)has / (double)device.global_mem_bytes;
    cr_expect(ratio > 0.75 && ratio < 1.25, "available %llu is not the device's global memory %llu", has,
              (unsigned long long)device.global_mem_bytes);
    cr_expect_gt(needed, has);
    char path[4200];
    snprintf(path, sizeof path, "%s/out", dir);
    cr_expect(!test_path_exists(path), "an output directory was created");
    free(output);
    free(preset);
    free(dir);
}

Test(checkpoint, bad_checkpoint_every_refused)
{
    expect_input_error("{\"model\": {\"type\": \"ising\", \"L\": 8}, \"ensemble\": {\"beta\": 0.4},"
                       " \"run\": {\"checkpoint_every\": \"10x\"}}", "ckpt-every-unit", "run.checkpoint_every");
    expect_input_error("{\"model\": {\"type\": \"ising\", \"L\": 8}, \"ensemble\": {\"beta\": 0.4},"
                       " \"run\": {\"checkpoint_every\": -5}}", "ckpt-every-negative", "run.checkpoint_every");
}

/* ---- Forged checkpoints, the output directory, FIFOs and SIGHUP (issue 26) -- */

static void no_sweeps_done(clmc_checkpoint *c) { c->next_sweep = 0; }
static void sweeps_done_2_63(clmc_checkpoint *c) { c->next_sweep = (uint64_t)1 << 63; }
static void one_row_missing(clmc_checkpoint *c) { c->n_rows--; }
static void empty_series(clmc_checkpoint *c) { c->n_rows = 0; }
static void nan_in_series(clmc_checkpoint *c) { c->rows[c->row_values * 7 + 1] = NAN; }
static void row_at_sweep_2_63(clmc_checkpoint *c) { c->sweeps[3] = (uint64_t)1 << 63; }
static void map_entry_twice(clmc_checkpoint *c) { c->config_at[2] = c->config_at[1]; }

/* Each forged checkpoint (checksum right, contents inconsistent with its own
 * preset) is refused with exit 2 naming the inconsistency, and no file in
 * the directory changes.  "0 sweeps done" with a full series overflowed the
 * series buffer on resume (glibc abort, exit 134). */
Test(checkpoint, forged_checkpoints_refused_nothing_overwritten)
{
    char *dir = test_scratch_dir("ckpt-forged"), *ising = test_write_preset(dir, ising_preset);
    char tempering_path[4200];
    snprintf(tempering_path, sizeof tempering_path, "%s/tempering.json", dir);
    test_write_file(tempering_path, tempering_preset);
    const char *settings = "--set run.sweeps=3000 --set run.checkpoint_every=500";
    cr_assert_eq(test_run_clmc(NULL, "run '%s' --quiet --out '%s/ising' %s", ising, dir, settings), 0);
    cr_assert_eq(test_run_clmc(NULL, "run '%s' --quiet --out '%s/tempering' %s", tempering_path, dir, settings), 0);
    struct {
        const char *label, *run, *needle;
        void (*forge)(clmc_checkpoint *);
    } cases[] = {
        {"0 sweeps done, full series", "ising", "2900 measurements stored, but 0 sweeps done", no_sweeps_done},
        {"2^63 sweeps done", "ising", "9223372036854775808 sweeps done, more than the run's 3100", sweeps_done_2_63},
        {"one measurement fewer than the sweeps imply", "ising", "2899 measurements stored, but 3000 sweeps done",
         one_row_missing},
        {"empty series", "ising", "0 measurements stored, but 3000 sweeps done", empty_series},
        {"NaN in the series", "ising", "measurement 7 holds the value nan", nan_in_series},
        {"measurement at sweep 2^63", "ising", "measurement 3 is labelled sweep 9223372036854775808", row_at_sweep_2_63},
        {"tempering map entry twice", "tempering", "the tempering map holds a configuration twice", map_entry_twice},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char copy[9000], *output = NULL;
        snprintf(copy, sizeof copy, "cp -r '%s/%s' '%s/forged%zu'", dir, cases[i].run, dir, i);
        cr_assert_eq(system(copy), 0);
        snprintf(copy, sizeof copy, "%s/forged%zu", dir, i);
        test_forge_checkpoint(copy, cases[i].forge);
        char *before = directory_snapshot(copy);
        int rc = test_run_clmc(&output, "run --resume '%s' --quiet", copy);
        printf("%s: exit %d: %s", cases[i].label, rc, output ? output : "");
        cr_expect_eq(rc, 2, "%s: exit status %d", cases[i].label, rc);
        cr_expect(output && strstr(output, cases[i].needle), "%s: message lacks \"%s\"", cases[i].label,
                  cases[i].needle);
        cr_expect(output && strstr(output, "refused, nothing was changed"), "%s: message lacks the refusal",
                  cases[i].label);
        char *after = directory_snapshot(copy);
        cr_expect_str_eq(before, after, "%s: the directory changed", cases[i].label);
        free(before);
        free(after);
        free(output);
    }
    free(ising);
    free(dir);
}

/* A fresh run into a directory holding a checkpoint is refused without
 * --overwrite (nothing changes); with it, the run starts afresh and leaves no
 * checkpoint of the older run for a later --resume to replay over the newer
 * result. */
Test(checkpoint, fresh_run_over_a_checkpoint_needs_overwrite)
{
    char *dir = test_scratch_dir("ckpt-overwrite"), *preset = test_write_preset(dir, ising_preset), *output = NULL;
    char run[4200], path[4300];
    snprintf(run, sizeof run, "%s/run", dir);
    const char *older = "--set run.sweeps=3000 --set run.checkpoint_every=500";
    const char *newer = "--set run.sweeps=2000 --set run.checkpoint_every=0 --set run.seed=12";
    cr_assert_eq(test_run_clmc(NULL, "run '%s' --quiet --out '%s' %s", preset, run, older), 0);
    char *before = directory_snapshot(run);
    int rc = test_run_clmc(&output, "run '%s' --quiet --out '%s' %s", preset, run, newer);
    printf("fresh run over a checkpoint: exit %d: %s", rc, output ? output : "");
    cr_expect_eq(rc, 2, "exit status %d", rc);
    cr_expect(output && strstr(output, run) && strstr(output, "checkpoint") && strstr(output, "--overwrite"),
              "the message does not name the directory, the checkpoint and --overwrite");
    char *after = directory_snapshot(run);
    cr_expect_str_eq(before, after, "the refused run changed the directory");
    free(before);
    free(after);
    free(output);
    rc = test_run_clmc(&output, "run '%s' --quiet --out '%s' %s --overwrite", preset, run, newer);
    printf("with --overwrite: exit %d: %s", rc, output ? output : "");
    cr_assert_eq(rc, 0);
    free(output);
    const char *stale[] = {"checkpoint.clmc", "checkpoint.prev", ".checkpoint.new"};
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", run, stale[i]);
        cr_expect(!test_path_exists(path), "%s survived the fresh run", stale[i]);
    }
    snprintf(path, sizeof path, "%s/result.json", run);
    char *newer_result = test_read_file(path);
    rc = test_run_clmc(&output, "run --resume '%s' --quiet", run);
    printf("--resume after the newer run: exit %d: %s", rc, output ? output : "");
    cr_expect_eq(rc, 2, "--resume replayed the older run (exit %d)", rc);
    free(output);
    char *result_after = test_read_file(path);
    cr_expect(newer_result && result_after && strcmp(newer_result, result_after) == 0, "the newer result changed");
    free(newer_result);
    free(result_after);
    rc = test_run_clmc(&output, "run --resume '%s' --overwrite", run);
    cr_expect_eq(rc, 2, "--overwrite with --resume: exit %d", rc);
    free(output);
    free(preset);
    free(dir);
}

/* Waits up to `seconds` for pid; kills it and fails if it is still running
 * (a hang). */
static int wait_at_most(pid_t pid, int seconds, const char *what)
{
    int status = 0;
    for (int i = 0; i < seconds * 100; i++) {
        if (waitpid(pid, &status, WNOHANG) == pid) return status;
        test_sleep_ms(10);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    cr_assert_fail("%s: still running after %d s (killed)", what, seconds);
    return status;
}

/* One run at a time per output directory: while a long run holds DIR, a
 * second fresh run and a --resume of DIR exit 2 naming the directory and the
 * other run; once the first is killed, the OS has dropped its lock. */
Test(checkpoint, second_run_on_one_directory_refused)
{
    char *dir = test_scratch_dir("ckpt-lock"), *preset = test_write_preset(dir, ising_preset), args[8400], log[8400];
    char run[4200], checkpoint[4300];
    snprintf(run, sizeof run, "%s/run", dir);
    snprintf(args, sizeof args, "run '%s' --quiet --out '%s' --set run.sweeps=100000000", preset, run);
    snprintf(log, sizeof log, "%s/first.log", dir);
    pid_t first = test_spawn_clmc(args, log);
    snprintf(checkpoint, sizeof checkpoint, "%s/checkpoint.clmc", run);
    test_wait_for_file(checkpoint, first);
    for (int i = 0; i < 2; i++) {
        char *output = NULL;
        int rc = i == 0 ? test_run_clmc(&output, "run '%s' --quiet --out '%s' --overwrite --set run.sweeps=100",
                                        preset, run)
                        : test_run_clmc(&output, "run --resume '%s'", run);
        printf("second run (%s) while the first holds %s: exit %d: %s", i ? "--resume" : "fresh", run, rc,
               output ? output : "");
        cr_expect_eq(rc, 2, "exit status %d", rc);
        cr_expect(output && strstr(output, run) && strstr(output, "another clmc run holds it"),
                  "the message does not name the directory and the other run");
        free(output);
    }
    int status;
    cr_expect_eq(waitpid(first, &status, WNOHANG), 0, "the first run ended early");
    kill(first, SIGKILL);
    waitpid(first, &status, 0);
    char *output = NULL;
    int rc = test_run_clmc(&output, "run '%s' --quiet --out '%s' --overwrite --set run.sweeps=100", preset, run);
    printf("after the first run was killed: exit %d: %s", rc, output ? output : "");
    cr_expect_eq(rc, 0, "the lock outlived its process");
    free(output);
    free(preset);
    free(dir);
}

/* A FIFO as checkpoint is refused at once (exit 2), and a FIFO as tuning
 * cache (CLMC_TUNING_FILE) is reported and skipped; neither waits for a
 * writer. */
Test(checkpoint, fifo_checkpoint_and_tuning_file_do_not_hang)
{
    char *dir = test_scratch_dir("ckpt-fifo"), *preset = test_write_preset(dir, ising_preset), path[4300], args[8400];
    char log[4300];
    snprintf(path, sizeof path, "%s/fifo-run", dir);
    cr_assert_eq(mkdir(path, 0755), 0);
    snprintf(path, sizeof path, "%s/fifo-run/checkpoint.clmc", dir);
    cr_assert_eq(mkfifo(path, 0644), 0);
    snprintf(args, sizeof args, "run --resume '%s/fifo-run' --quiet", dir);
    snprintf(log, sizeof log, "%s/resume.log", dir);
    int status = wait_at_most(test_spawn_clmc(args, log), 60, "--resume with a FIFO as checkpoint");
    char *text = test_read_file(log);
    printf("FIFO as checkpoint: exit %d: %s", WIFEXITED(status) ? WEXITSTATUS(status) : -1, text ? text : "");
    cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 2, "exit status");
    cr_expect(text && strstr(text, "not a regular file"), "the message does not say what is wrong");
    free(text);
    snprintf(path, sizeof path, "%s/tuning.fifo", dir);
    cr_assert_eq(mkfifo(path, 0644), 0);
    setenv("CLMC_TUNING_FILE", path, 1);
    snprintf(args, sizeof args, "run '%s' --out '%s/tuned' --set run.sweeps=200 --set run.checkpoint_every=0",
             preset, dir);
    snprintf(log, sizeof log, "%s/tuned.log", dir);
    pid_t pid = test_spawn_clmc(args, log);
    unsetenv("CLMC_TUNING_FILE");
    status = wait_at_most(pid, 120, "a run with a FIFO as CLMC_TUNING_FILE");
    text = test_read_file(log);
    printf("FIFO as tuning cache: exit %d: %s", WIFEXITED(status) ? WEXITSTATUS(status) : -1, text ? text : "");
    cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0, "exit status");
    cr_expect(text && strstr(text, "tuning cache skipped") && strstr(text, "not a regular file"),
              "the FIFO is not reported");
    free(text);
    free(preset);
    free(dir);
}

/* A closed terminal or ssh session (SIGHUP) stops the run with a checkpoint,
 * as SIGTERM does. */
Test(checkpoint, sighup_leaves_resumable_checkpoint)
{
    TEST_LONG_ONLY();
    interrupt_and_resume("ckpt-sighup", ising_preset, SIGHUP);
}

/* ---- Multicanonical and Wang-Landau (issue 21) ---------------------------- */

/* 2D Ising L = 8, 64 walkers: 6 weight iterations of 100 sweeps, then
 * 12000 production sweeps (about 4 s on PoCL); a checkpoint every 300
 * sweeps, so that a kill lands in the weights or in the production.  Wang-
 * Landau in 3 windows with replica exchange (about 740 updates of ln g,
 * then 3000 production sweeps): a signal lands in the weights mostly. */
static const char muca_preset[] =
    "{\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": 8}, \"ensemble\": {\"type\": \"multicanonical\","
    " \"betas\": [0.3, 0.4406868, 0.6], \"walkers\": 64, \"flatness\": 0.5, \"iteration_sweeps\": 100},"
    " \"run\": {\"thermalization\": 100, \"sweeps\": 24000, \"seed\": 5, \"checkpoint_every\": 300}}";
static const char wang_landau_windows_preset[] =
    "{\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": 8}, \"ensemble\": {\"type\": \"wang_landau\","
    " \"betas\": [0.3, 0.4406868, 0.6], \"windows\": 3, \"overlap\": 0.5, \"walkers_per_window\": 16,"
    " \"final_ln_f\": 1e-3}, \"run\": {\"thermalization\": 100, \"sweeps\": 30000, \"seed\": 25,"
    " \"checkpoint_every\": 100}}";
/* Potts q = 10 walkers (Metropolis), 2 Wang-Landau windows at L = 4, then production. */
static const char potts_wang_landau_preset[] =
    "{\"model\": {\"type\": \"potts\", \"dim\": 2, \"L\": 4, \"q\": 10}, \"algorithm\": {\"type\": "
    "\"metropolis\"}, \"ensemble\": {\"type\": \"wang_landau\", \"betas\": [1.4], \"windows\": 2, "
    "\"walkers_per_window\": 16, \"final_ln_f\": 1e-3}, \"run\": {\"thermalization\": 100, \"sweeps\": 30000,"
    " \"seed\": 7, \"checkpoint_every\": 100}}";

/* density_of_states (without its wall times) and observables exactly. */
static void expect_same_density(const char *reference, const char *resumed)
{
    cJSON *a = test_load_result(reference), *b = test_load_result(resumed);
    cr_assert(a && b, "result.json missing");
    const char *parts[] = {"density_of_states", "observables"};
    for (int i = 0; i < 2; i++) {
        cJSON *pa = cJSON_GetObjectItem(a, parts[i]), *pb = cJSON_GetObjectItem(b, parts[i]);
        cJSON_DeleteItemFromObject(pa, "timing");
        cJSON_DeleteItemFromObject(pb, "timing");
        bool same = pa && cJSON_Compare(pa, pb, true);
        char *text = cJSON_PrintUnformatted(pb);
        printf("%s %s: %.300s\n", parts[i], same ? "identical" : "DIFFERENT", text);
        free(text);
        cr_expect(same, "%s differ", parts[i]);
    }
    cJSON_Delete(a);
    cJSON_Delete(b);
}

/* Reference run, the same run stopped by `signal_number` at a random point
 * after its first checkpoint, resumed, and compared.  The presets' production
 * lasts about a second on PoCL, longer than the delay (< 400 ms), so that the
 * signal lands before the run ends. */
static void density_interrupt_and_resume(const char *label, const char *preset_json, int signal_number)
{
    interrupt_resume_compare(label, preset_json, signal_number, expect_same_density);
}

Test(checkpoint, multicanonical_sigkill_resume_bit_identical)
{
    density_interrupt_and_resume("ckpt-muca", muca_preset, SIGKILL);
}
Test(checkpoint, wang_landau_windows_sigterm_resume_bit_identical)
{
    density_interrupt_and_resume("ckpt-wl-windows", wang_landau_windows_preset, SIGTERM);
}
Test(checkpoint, wang_landau_potts_sigkill_resume_bit_identical)
{
    density_interrupt_and_resume("ckpt-wl-potts", potts_wang_landau_preset, SIGKILL);
}

/* The checkpoint's preset changed (it is the preset a resume runs): the
 * multicanonical state remembers what it was started with. */
static const char *changed_key, *changed_value;
static void change_preset(clmc_checkpoint *c)
{
    cJSON *preset = cJSON_Parse(c->preset_json);
    cJSON *ensemble = cJSON_GetObjectItem(preset, "ensemble"), *run = cJSON_GetObjectItem(preset, "run");
    const char *name = strchr(changed_key, '.') + 1;
    cJSON *section = strncmp(changed_key, "run.", 4) == 0 ? run : ensemble;
    cJSON_ReplaceItemInObject(section, name, cJSON_Parse(changed_value));
    free(c->preset_json);
    c->preset_json = cJSON_PrintUnformatted(preset);
    cJSON_Delete(preset);
}

Test(checkpoint, multicanonical_resume_with_a_changed_preset_refused)
{
    char *dir = test_scratch_dir("ckpt-muca-changed"), *preset = test_write_preset(dir, muca_preset);
    cr_assert_eq(test_run_clmc(NULL, "run '%s' --quiet --out '%s/run' --set run.sweeps=600", preset, dir), 0);
    const struct {
        const char *key, *value;
    } cases[] = {{"ensemble.walkers", "32"}, {"ensemble.flatness", "0.6"}, {"run.seed", "6"},
                 {"ensemble.iteration_sweeps", "50"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char copy[9000], *output = NULL;
        snprintf(copy, sizeof copy, "rm -rf '%s/changed' && cp -r '%s/run' '%s/changed'", dir, dir, dir);
        cr_assert_eq(system(copy), 0);
        snprintf(copy, sizeof copy, "%s/changed", dir);
        changed_key = cases[i].key;
        changed_value = cases[i].value;
        test_forge_checkpoint(copy, change_preset);
        char *before = directory_snapshot(copy);
        int rc = test_run_clmc(&output, "run --resume '%s' --quiet", copy);
        printf("%s = %s: exit %d: %s", cases[i].key, cases[i].value, rc, output ? output : "");
        cr_expect_eq(rc, 2, "%s: exit status %d", cases[i].key, rc);
        cr_expect(output && strstr(output, cases[i].key), "the message does not name %s", cases[i].key);
        char *after = directory_snapshot(copy);
        cr_expect_str_eq(before, after, "%s: the directory changed", cases[i].key);
        free(before);
        free(after);
        free(output);
    }
    free(preset);
    free(dir);
}
