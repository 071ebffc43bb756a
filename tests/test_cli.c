/* The command line as a user meets it: bad input is refused with exit status 2
 * and a message naming the problem, runs are reproducible, devices agree. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "clmc/runtime.h"
#include "testenv.h"

#define GOOD_PRESET                                                                      \
    "{\"name\": \"cli\", \"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": 16},"       \
    " \"algorithm\": {\"layout\": \"tiled\", \"tile\": 8, \"hits\": 2},"                 \
    " \"ensemble\": {\"beta\": 0.44}, \"run\": {\"thermalization\": 50, \"sweeps\": 300, \"seed\": 5}}"

typedef struct {
    const char *label, *preset, *extra_args, *expected_message;
} bad_case;

static const bad_case bad_cases[] = {
    {"syntax error", "{\"model\": {\"type\": \"ising\",,\n \"L\": 16}}", "", "invalid JSON"},
    {"unknown key", "{\"model\": {\"type\": \"ising\", \"L\": 16, \"Lx\": 3}, \"ensemble\": {\"beta\": 0.4}}", "",
     "did you mean"},
    {"wrong type", "{\"model\": {\"type\": \"ising\", \"L\": \"sixteen\"}, \"ensemble\": {\"beta\": 0.4}}", "",
     "model.L"},
    {"out of range", "{\"model\": {\"type\": \"ising\", \"L\": 16}, \"ensemble\": {\"beta\": -1}}", "",
     "ensemble.beta"},
    {"unknown model", "{\"model\": {\"type\": \"isinq\", \"L\": 16}, \"ensemble\": {\"beta\": 0.4}}", "",
     "model.type"},
    {"L not divisible by tile",
     "{\"model\": {\"type\": \"ising\", \"L\": 30}, \"algorithm\": {\"tile\": 8}, \"ensemble\": {\"beta\": 0.4}}", "",
     "algorithm.tile"},
    {"odd L", "{\"model\": {\"type\": \"ising\", \"L\": 15}, \"ensemble\": {\"beta\": 0.4}}", "", "model.L"},
    {"multi-hit without tiles",
     "{\"model\": {\"type\": \"ising\", \"L\": 16}, \"algorithm\": {\"layout\": \"naive\", \"hits\": 3},"
     " \"ensemble\": {\"beta\": 0.4}}", "", "algorithm.hits"},
    {"msc with L not a multiple of 64",
     "{\"model\": {\"type\": \"ising\", \"L\": 96}, \"algorithm\": {\"layout\": \"msc\"},"
     " \"ensemble\": {\"beta\": 0.4}}", "", "multiple of 64"},
    {"betas not increasing",
     "{\"model\": {\"type\": \"ising\", \"L\": 16}, \"ensemble\": {\"type\": \"parallel_tempering\","
     " \"betas\": [0.3, 0.5, 0.4]}}", "", "strictly increasing"},
    {"missing file", NULL, "", "cannot read preset"},
    {"unknown device", GOOD_PRESET, "--device no-such-device-xyz", "no-such-device-xyz"},
    {"malformed --set", GOOD_PRESET, "--set model.L", "model.L"},
    {"--set out of range", GOOD_PRESET, "--set model.dim=4", "model.dim"},
    {"unknown option", GOOD_PRESET, "--frobnicate", "--frobnicate"},
    {"--out twice", GOOD_PRESET, "--out /tmp/clmc-cli-second-out", "'--out' given twice"},
    {"--device twice", GOOD_PRESET, "--device pocl --device cpu", "'--device' given twice"},
    {"--quiet twice", GOOD_PRESET, "--quiet", "'--quiet' given twice"},
    {"invalid UTF-8 in name", "{\"name\": \"x\xff\", \"model\": {\"type\": \"ising\", \"L\": 16},"
     " \"ensemble\": {\"beta\": 0.4}}", "", "name"},
    {"name leaving out/", "{\"name\": \"../escape\", \"model\": {\"type\": \"ising\", \"L\": 16},"
     " \"ensemble\": {\"beta\": 0.4}}", "", "name"},
    {"measure_every beyond sweeps", GOOD_PRESET, "--set run.measure_every=400", "run.measure_every"},
    {"integer with an exponent", GOOD_PRESET, "--set run.sweeps=1e3", "run.sweeps"},
};

Test(cli, bad_input_exits_2_with_a_message_and_writes_nothing)
{
    char *dir = test_scratch_dir("cli-bad");
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
        const bad_case *c = &bad_cases[i];
        char preset_path[4200], out_dir[4200];
        snprintf(preset_path, sizeof preset_path, "%s/case%zu.json", dir, i);
        snprintf(out_dir, sizeof out_dir, "%s/out%zu", dir, i);
        if (c->preset) test_write_file(preset_path, c->preset);
        char *output = NULL;
        int status = test_run_clmc(&output, "run '%s' --quiet --out '%s' %s", preset_path, out_dir, c->extra_args);
        printf("[%s] exit %d: %s", c->label, status, output ? output : "(no output)\n");
        cr_expect_eq(status, 2, "%s: exit status %d, expected 2", c->label, status);
        cr_expect(output && strstr(output, c->expected_message), "%s: message lacks '%s'", c->label,
                  c->expected_message);
        cr_expect(!test_path_exists(out_dir), "%s: output directory was created", c->label);
        free(output);
    }
    free(dir);
}

Test(cli, check_prints_the_resolved_preset)
{
    char *dir = test_scratch_dir("cli-check");
    char path[4200];
    snprintf(path, sizeof path, "%s/p.json", dir);
    test_write_file(path, "{\"model\": {\"type\": \"ising\", \"L\": 16}, \"ensemble\": {\"beta\": 0.4}}");
    char *output = NULL;
    int status = test_run_clmc(&output, "check '%s' --set run.sweeps=77", path);
    cr_assert_eq(status, 0, "%s", output);
    cJSON *resolved = cJSON_Parse(output);
    cr_assert_not_null(resolved, "check output is not JSON: %s", output);
    const cJSON *run = cJSON_GetObjectItem(resolved, "run");
    cr_expect_eq(cJSON_GetObjectItem(run, "sweeps")->valueint, 77);
    cr_expect_eq(cJSON_GetObjectItem(run, "thermalization")->valueint, 1000, "default filled in");
    cr_expect_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(resolved, "algorithm"), "layout")->valuestring, "tiled");
    cJSON_Delete(resolved);
    free(output);
    free(dir);
}

static char *run_to(const char *dir, const char *name, const char *device_args, const char *extra)
{
    char preset_path[4200], out_dir[4200];
    snprintf(preset_path, sizeof preset_path, "%s/preset.json", dir);
    snprintf(out_dir, sizeof out_dir, "%s/%s", dir, name);
    test_write_file(preset_path, GOOD_PRESET);
    char *output = NULL;
    int status = test_run_clmc(&output, "run '%s' --quiet --out '%s' %s %s", preset_path, out_dir, device_args, extra);
    cr_assert_eq(status, 0, "run failed: %s", output);
    free(output);
    char csv[4300];
    snprintf(csv, sizeof csv, "%s/series.csv", out_dir);
    return test_read_file(csv);
}

static const char *config_hash(const char *dir, const char *name)
{
    static char hash[64];
    char out_dir[4200];
    snprintf(out_dir, sizeof out_dir, "%s/%s", dir, name);
    cJSON *result = test_load_result(out_dir);
    cr_assert_not_null(result);
    const cJSON *h = cJSON_GetObjectItem(cJSON_GetObjectItem(result, "checks"), "configuration_fnv1a");
    snprintf(hash, sizeof hash, "%s", cJSON_IsString(h) ? h->valuestring : "missing");
    cJSON_Delete(result);
    return hash;
}

Test(cli, same_seed_gives_identical_series_and_other_seed_differs)
{
    char *dir = test_scratch_dir("cli-repeat");
    char *first = run_to(dir, "a", "", ""), *second = run_to(dir, "b", "", "");
    char *other = run_to(dir, "c", "", "--set run.seed=6");
    cr_assert(first && second && other);
    cr_expect(strlen(first) > 300 * 10, "series.csv is too short");
    cr_expect_str_eq(first, second, "same preset and seed gave different series.csv");
    cr_expect_str_neq(first, other, "a different seed gave the same series");
    char hash_a[64];
    snprintf(hash_a, sizeof hash_a, "%s", config_hash(dir, "a"));
    cr_expect_str_eq(hash_a, config_hash(dir, "b"));
    printf("configuration hashes: %s (twice), seed 6: %s\n", hash_a, config_hash(dir, "c"));
    free(first);
    free(second);
    free(other);
    free(dir);
}

/* Bit-identity across devices needs two devices; CI has only PoCL. */
Test(cli, devices_agree_bit_for_bit)
{
    char *output = NULL;
    cr_assert_eq(test_run_clmc(&output, "devices --json"), 0, "%s", output);
    cJSON *devices = cJSON_Parse(output);
    free(output);
    cr_assert(cJSON_IsArray(devices));
    int n = cJSON_GetArraySize(devices);
    if (n < 2) {
        cJSON_Delete(devices);
        cr_skip_test("only %d OpenCL device present: cross-device bit-identity needs two", n);
    }
    char *dir = test_scratch_dir("cli-devices");
    char *reference = NULL, reference_hash[64] = "", args[64];
    for (int i = 0; i < n; i++) {
        const char *index = cJSON_GetObjectItem(cJSON_GetArrayItem(devices, i), "index")->valuestring;
        snprintf(args, sizeof args, "--device %s", index);
        char name[32];
        snprintf(name, sizeof name, "device%d", i);
        char *series = run_to(dir, name, args, "");
        printf("device %s: configuration %s\n", index, config_hash(dir, name));
        if (!reference) {
            reference = series;
            snprintf(reference_hash, sizeof reference_hash, "%s", config_hash(dir, name));
            continue;
        }
        cr_expect_str_eq(series, reference, "device %s gave a different series.csv", index);
        cr_expect_str_eq(config_hash(dir, name), reference_hash, "device %s: different configuration", index);
        free(series);
    }
    free(reference);
    cJSON_Delete(devices);
    free(dir);
}

Test(cli, devices_lists_the_ci_device)
{
    char *output = NULL;
    cr_assert_eq(test_run_clmc(&output, "devices"), 0);
    printf("%s", output);
    cr_expect(strstr(output, "0:0"), "device index missing");
    free(output);
}

#define EA_TEMPERING_PRESET                                                                                          \
    "{\"model\": {\"type\": \"ea_ising\", \"dim\": 3, \"L\": 4, \"realizations\": 64},"                             \
    " \"algorithm\": {\"layout\": \"msc\"}, \"ensemble\": {\"type\": \"parallel_tempering\","                       \
    " \"betas\": [0.5, 0.7, 0.9], \"exchange_every\": 2}, \"run\": {\"thermalization\": 0, \"sweeps\": 20, \"measure_every\": 5, \"seed\": 3}}"

/* Runs EA_TEMPERING_PRESET with the extra command-line arguments `args`: the
 * exit status; *output the printed text, *out_dir the output directory (both
 * freed by the caller). */
static int run_ea_with(const char *label, const char *args, char **output, char **out_dir)
{
    char *dir = test_scratch_dir(label);
    char preset_path[4200];
    snprintf(preset_path, sizeof preset_path, "%s/ea.json", dir);
    test_write_file(preset_path, EA_TEMPERING_PRESET);
    *out_dir = malloc(4200);
    cr_assert_not_null(*out_dir);
    snprintf(*out_dir, 4200, "%s/out", dir);
    int status = test_run_clmc(output, "run '%s' --quiet --out '%s' %s", preset_path, *out_dir, args);
    printf("%s: exit %d:\n%s", args, status, *output ? *output : "(no output)\n");
    free(dir);
    return status;
}

/* A bad launch key is an input error (exit 2) naming the key, with nothing
 * written. */
Test(cli, bad_launch_key_exits_2)
{
    char *output = NULL, *out_dir = NULL;
    int status = run_ea_with("cli-bad-key", "--set algorithm.energy_sites=65", &output, &out_dir);
    cr_expect_eq(status, 2, "exit status %d, expected 2", status);
    cr_expect(output && strstr(output, "algorithm.energy_sites"), "the message does not name the key");
    cr_expect(!test_path_exists(out_dir), "output directory was created");
    free(output);
    free(out_dir);
}

/* Environment variables that used to change what ran stop every command that
 * reads a preset with exit 2 and one line naming the variable and what
 * replaced it; nothing is written. */
Test(cli, retired_variables_exit_2)
{
    static const char *const retired[][2] = {
        {"CLMC_PROFILE", "--profile"},
        {"CLMC_NO_TUNING", "--no-tuning"},
        {"CLMC_TEMPERING_HOST", "ensemble.exchanges"},
        {"CLMC_TEMPERING_GENERAL", "ensemble.exchanges"},
        {"CLMC_EA_ENERGIES", "algorithm.tempering_energies"},
        {"CLMC_EA_UPDATE_WG", "algorithm.update_group"},
        {"CLMC_EA_ENERGY_SITES", "algorithm.energy_sites"},
        {"CLMC_EA_REVERSE", "algorithm.reverse_odd"},
        {"CLMC_GLASS_VARIANT", "algorithm.work_group"},
    };
    static const char *const commands[] = {"run", "bench", "tune", "check"};
    char *dir = test_scratch_dir("cli-retired"), preset_path[4200], out_dir[4300];
    snprintf(preset_path, sizeof preset_path, "%s/ea.json", dir);
    snprintf(out_dir, sizeof out_dir, "%s/out", dir);
    test_write_file(preset_path, EA_TEMPERING_PRESET);
    for (size_t i = 0; i < sizeof retired / sizeof *retired; i++) {
        const char *command = commands[i % (sizeof commands / sizeof *commands)];
        char *output = NULL, args[8800];
        bool run = strcmp(command, "run") == 0; /* --out is run's */
        snprintf(args, sizeof args, "%s '%s'%s%s%s", command, preset_path, run ? " --out '" : "", run ? out_dir : "",
                 run ? "'" : "");
        cr_assert_eq(setenv(retired[i][0], "0", 1), 0);
        int status = test_run_clmc(&output, "%s", args);
        unsetenv(retired[i][0]);
        printf("%s with %s=0: exit %d: %s", command, retired[i][0], status, output ? output : "(no output)\n");
        cr_expect_eq(status, 2, "%s with %s set: exit status %d", command, retired[i][0], status);
        cr_expect(output && strstr(output, retired[i][0]) && strstr(output, retired[i][1]),
                  "%s: the message does not name the variable and %s", retired[i][0], retired[i][1]);
        const char *end = output ? strchr(output, '\n') : NULL;
        cr_expect(end && end[1] == '\0', "%s: not exactly one line", retired[i][0]);
        free(output);
    }
    cr_expect(!test_path_exists(out_dir), "output directory was created");
    free(dir);
}

/* A CLMC_KERNEL_DIR that holds no kernel sources is an error naming it, not
 * a silent fallback to the source tree; nothing is written. */
Test(cli, wrong_kernel_dir_exit_2)
{
    char *dir = test_scratch_dir("cli-kernel-dir"), preset_path[4200], out_dir[4300];
    snprintf(preset_path, sizeof preset_path, "%s/ea.json", dir);
    snprintf(out_dir, sizeof out_dir, "%s/out", dir);
    test_write_file(preset_path, EA_TEMPERING_PRESET);
    const char *saved = getenv("CLMC_KERNEL_DIR");
    char *kept = saved ? strdup(saved) : NULL;
    cr_assert_eq(setenv("CLMC_KERNEL_DIR", dir, 1), 0); /* a directory without kernels */
    char *output = NULL;
    int status = test_run_clmc(&output, "run '%s' --out '%s' --quiet", preset_path, out_dir);
    if (kept) setenv("CLMC_KERNEL_DIR", kept, 1);
    else unsetenv("CLMC_KERNEL_DIR");
    printf("run with CLMC_KERNEL_DIR=%s: exit %d: %s", dir, status, output ? output : "(no output)\n");
    cr_expect_eq(status, 2, "exit status %d, expected 2", status);
    cr_expect(output && strstr(output, "CLMC_KERNEL_DIR"), "the message does not name CLMC_KERNEL_DIR");
    cr_expect(!test_path_exists(out_dir), "output directory was created");
    free(output);
    free(kept);
    free(dir);
}

/* --profile and --no-tuning are recorded in result.json ("options"), and
 * --no-tuning leaves the automatic launch keys to the model. */
Test(cli, launch_flags_are_recorded)
{
    char *output = NULL, *out_dir = NULL;
    int status = run_ea_with("cli-flags", "--no-tuning", &output, &out_dir);
    cr_assert_eq(status, 0);
    cJSON *result = test_load_result(out_dir);
    cr_assert_not_null(result);
    const cJSON *options = cJSON_GetObjectItem(result, "options");
    const char *source = cJSON_GetObjectItem(cJSON_GetObjectItem(result, "tuning"), "source")->valuestring;
    const cJSON *reverse = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(result, "preset"), "algorithm"),
                                               "reverse_odd");
    printf("options %s, tuning source %s, reverse_odd %g\n", cJSON_PrintUnformatted(options), source,
           reverse->valuedouble);
    cr_expect(cJSON_IsFalse(cJSON_GetObjectItem(options, "profile")));
    cr_expect_str_eq(cJSON_GetObjectItem(options, "tuning")->valuestring, "off");
    cr_expect(strstr(source, "--no-tuning"), "tuning source '%s'", source);
    cr_expect_eq(reverse->valuedouble, 0, "--no-tuning: reverse_odd is the model's own 0");
    cJSON_Delete(result);
    free(output);
    free(out_dir);
}

/* --profile reports every kernel the run launched (the update, the fused
 * tempering exchange) with launch counts, and each program build, and is
 * recorded in result.json. */
Test(cli, profile_reports_every_kernel)
{
    char *output = NULL, *out_dir = NULL;
    int status = run_ea_with("cli-profile", "--profile", &output, &out_dir);
    cr_assert_eq(status, 0);
    cr_assert_not_null(output);
    cJSON *result = test_load_result(out_dir);
    cr_assert_not_null(result);
    cr_expect(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(result, "options"), "profile")));
    cr_expect_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(result, "options"), "tuning")->valuestring, "on");
    /* The start-up (issue 19): its phases, printed and recorded, add up to
     * the whole; the program load is one of them. */
    const cJSON *startup = cJSON_GetObjectItem(cJSON_GetObjectItem(result, "performance"), "startup"), *phase;
    cr_assert_not_null(startup, "no performance.startup");
    double whole = cJSON_GetObjectItem(startup, "seconds")->valuedouble, sum = 0;
    cJSON_ArrayForEach(phase, startup) if (strcmp(phase->string, "seconds") != 0) {
        cr_expect_geq(phase->valuedouble, 0, "start-up phase %s: %g s", phase->string, phase->valuedouble);
        sum += phase->valuedouble;
    }
    printf("start-up %.4f s, phases sum %.4f s, programs %.4f s\n", whole, sum,
           cJSON_GetObjectItem(startup, "programs")->valuedouble);
    cr_expect(fabs(sum - whole) <= 1e-6 * whole + 1e-9, "phases sum %.6f s, start-up %.6f s", sum, whole);
    cr_expect_gt(cJSON_GetObjectItem(startup, "programs")->valuedouble, 0);
    cr_expect(strstr(output, "clmc profile: start-up "), "no start-up line");
    cJSON_Delete(result);
    cr_expect(strstr(output, "clmc profile: program ea/ea_ising.cl built"), "no build line for ea/ea_ising.cl");
    /* 20 sweeps of 2 colours; every second sweep ends with the energy pass
     * (the second ea_msc_update row) and an exchange. */
    cr_expect_eq(test_profiled_launches(output, "ea_msc_update", 0), 30);
    cr_expect_eq(test_profiled_launches(output, "ea_msc_update", 1), 10);
    cr_expect_eq(test_profiled_launches(output, "ea_msc_exchange", 0), 10);
    free(output);
    free(out_dir);
}

/* Update launches are timed by a sample (src/runtime/runtime.c): a 2D
 * naive Ising run launches one update kernel in one phase, whose first
 * launch and every 32nd after it (launches 2, 34, 66, ...) carry an event,
 * so U launches are timed by 2 + (U - 2) / 32; under --profile every one.
 * Both runs give the same results and a positive device time. */
Test(cli, update_launches_timed_by_sample, .timeout = 300)
{
    char *dir = test_scratch_dir("cli-timed-sample"), out[2][4200];
    char *preset = test_write_preset(dir, "{\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": 32}, \"algorithm\":"
                                          " {\"layout\": \"naive\", \"resident\": \"off\"}, \"ensemble\": {\"beta\":"
                                          " 0.4}, \"run\": {\"thermalization\": 100, \"sweeps\": 900,"
                                          " \"measure_every\": 10, \"seed\": 3}}");
    double launches[2], timed[2], seconds[2];
    char *observables[2];
    for (int profile = 0; profile < 2; profile++) {
        snprintf(out[profile], sizeof out[profile], "%s/out%d", dir, profile);
        char *output = NULL;
        int status = test_run_clmc(&output, "run '%s' --quiet %s --out '%s'", preset, profile ? "--profile" : "",
                                   out[profile]);
        cr_assert_eq(status, 0, "exit %d: %s", status, output ? output : "");
        free(output);
        cJSON *result = test_load_result(out[profile]);
        cr_assert_not_null(result);
        const cJSON *perf = cJSON_GetObjectItem(result, "performance");
        launches[profile] = cJSON_GetObjectItem(perf, "update_launches")->valuedouble;
        timed[profile] = cJSON_GetObjectItem(perf, "timed_launches")->valuedouble;
        seconds[profile] = cJSON_GetObjectItem(perf, "seconds")->valuedouble;
        observables[profile] = cJSON_PrintUnformatted(cJSON_GetObjectItem(result, "observables"));
        cJSON_Delete(result);
        printf("%s: %.0f update launches, %.0f timed, %.6f s of device time\n", profile ? "--profile" : "sampled",
               launches[profile], timed[profile], seconds[profile]);
    }
    cr_expect_geq(launches[0], 1000, "two launches a sweep at least");
    cr_expect_eq(launches[1], launches[0]);
    cr_expect_eq(timed[0], 2 + floor((launches[0] - 2) / 32), "sampled: %.0f of %.0f timed", timed[0], launches[0]);
    cr_expect_eq(timed[1], launches[1], "--profile times every update launch");
    cr_expect(seconds[0] > 0 && seconds[1] > 0);
    cr_expect_str_eq(observables[0], observables[1], "--profile changed the results");
    free(observables[0]), free(observables[1]), free(preset), free(dir);
}

/* A preset too large for the device is refused with exit 2 before anything
 * is allocated (before, these models failed with exit 3 CL_INVALID_BUFFER_SIZE
 * after allocating, hard disks after seconds of host work), quickly, and the
 * message names the bytes needed and the bytes the device has.  Skipped on a
 * device large enough to hold the preset. */
static void expect_memory_refusal(const char *label, const char *json, double total_bytes, double largest_bytes)
{
    clmc_device_info device;
    cr_assert_eq(clmc_device_select(NULL, &device), CLMC_OK);
    if ((double)device.global_mem_bytes > total_bytes && (double)device.max_alloc_bytes > largest_bytes)
        cr_skip("%s: %s has room for the preset", label, device.name);
    char *dir = test_scratch_dir(label), path[4200], out_dir[4200];
    snprintf(path, sizeof path, "%s/p.json", dir);
    snprintf(out_dir, sizeof out_dir, "%s/out", dir);
    test_write_file(path, json);
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    char *output = NULL;
    int status = test_run_clmc(&output, "run '%s' --quiet --out '%s'", path, out_dir);
    clock_gettime(CLOCK_MONOTONIC, &end);
    double seconds = (double)(end.tv_sec - start.tv_sec) + 1e-9 * (double)(end.tv_nsec - start.tv_nsec);
    printf("[%s] exit %d after %.2f s: %s", label, status, seconds, output ? output : "(no output)\n");
    cr_expect_eq(status, 2, "%s: exit status %d, expected 2", label, status);
    cr_expect_lt(seconds, 5.0, "%s: refused only after %.1f s", label, seconds);
    unsigned long long needed = 0, available = 0;
    const char *total = output ? strstr(output, "needs ") : NULL, *one = output ? strstr(output, "buffer of ") : NULL;
    bool read_needed = one ? sscanf(one, "buffer of %llu bytes", &needed) == 1
                           : total && sscanf(total, "needs %llu bytes", &needed) == 1;
    const char *has = output ? strstr(output, one ? " at most " : " has ") : NULL;
    bool read_available = has && sscanf(has, one ? " at most %llu bytes" : " has %llu bytes", &available) == 1;
    cr_expect(read_needed && read_available, "%s: the message does not name both numbers", label);
    printf("[%s] needs %llu bytes, the device %llu\n", label, needed, available);
    cr_expect_gt(needed, available);
    cr_expect(!test_path_exists(out_dir), "%s: an output directory was created", label);
    free(output);
    free(dir);
}

/* 1290^3 sites of 3 doubles: 51.5 GB of spins. */
Test(cli, heisenberg_larger_than_device_memory_refused)
{
    expect_memory_refusal("cli-memory-heisenberg",
                          "{\"model\": {\"type\": \"heisenberg\", \"dim\": 3, \"L\": 1290, \"precision\": \"double\"},"
                          " \"algorithm\": {\"layout\": \"naive\"},"
                          " \"ensemble\": {\"beta\": 0.5}, \"run\": {\"sweeps\": 10, \"thermalization\": 0}}",
                          51.5e9, 51.5e9);
}

/* 2 x 2 x 4096 configurations of 64^3 float spins: 51.5 GB. */
Test(cli, heisenberg_glass_larger_than_device_memory_refused)
{
    expect_memory_refusal("cli-memory-glass",
                          "{\"model\": {\"type\": \"heisenberg_glass\", \"dim\": 3, \"L\": 64, \"realizations\": 4096},"
                          " \"ensemble\": {\"type\": \"parallel_tempering\", \"betas\": [0.5, 1.0]},"
                          " \"run\": {\"sweeps\": 10, \"thermalization\": 0}}",
                          51.5e9, 51.5e9);
}

/* 2^28 disks at phi = 0.5: two slot buffers of 6.7 GB each. */
Test(cli, hard_disks_larger_than_device_memory_refused)
{
    expect_memory_refusal("cli-memory-disks",
                          "{\"model\": {\"type\": \"hard_disks\", \"N\": 268435456, \"packing_fraction\": 0.5},"
                          " \"run\": {\"sweeps\": 10, \"thermalization\": 0}}",
                          13.4e9, 6.7e9);
}

/* Every command's --help (and clmc --help, clmc help) prints the usage and exits 0. */
Test(cli, help_prints_the_usage)
{
    const char *commands[] = {"--help", "help", "run --help", "run x.json -h", "bench --help", "tune --help",
                              "check --help", "devices --help"};
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        char *output = NULL;
        int status = test_run_clmc(&output, "%s", commands[i]);
        printf("[clmc %s] exit %d\n", commands[i], status);
        cr_expect_eq(status, 0, "clmc %s: exit status %d", commands[i], status);
        cr_expect(output && strstr(output, "usage:") && strstr(output, "clmc run PRESET.json"), "clmc %s: no usage",
                  commands[i]);
        free(output);
    }
}

/* bench --json into a directory that is missing or not writable fails before benchmarking. */
Test(cli, bench_json_path_is_checked_before_the_benchmark)
{
    char *dir = test_scratch_dir("cli-bench-json"), preset[4200], locked[4200];
    snprintf(preset, sizeof preset, "%s/p.json", dir);
    test_write_file(preset, GOOD_PRESET);
    snprintf(locked, sizeof locked, "%s/locked", dir);
    cr_assert_eq(mkdir(locked, 0700), 0);
    const char *targets[][2] = {{"/nonexistent-clmc-dir/b.json", "does not exist"}, {locked, "is a directory"}};
    /* (A directory without write permission cannot be tested as root.) */
    for (int i = 0; i < 2; i++) {
        const char *target = targets[i][0];
        char *output = NULL;
        int status = test_run_clmc(&output, "bench '%s' --json '%s'", preset, target);
        printf("[--json %s] exit %d: %s", target, status, output ? output : "");
        cr_expect_eq(status, 2);
        cr_expect(output && strstr(output, "--json"), "the message does not name --json");
        cr_expect(output && !strstr(output, "benchmarking on"), "the benchmark ran first");
        cr_expect(output && strstr(output, targets[i][1]), "message lacks '%s'", targets[i][1]);
        free(output);
    }
    free(dir);
}
