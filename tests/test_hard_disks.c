/* Hard disks by MPMC: invariants of long runs checked independently from the
 * written configuration, the pressure against the fluid equation of state,
 * the particle-shuffling pitfall (opt-in, CLMC_LONG_TESTS=1) and bad input. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine/checkpoint.h"
#include "clmc/engine.h"
#include "clmc/preset.h"
#include "disk_reference.h"
#include "models/hard_disks/hard_disks.h"
#include "physics.h"
#include "output/state_blob.h"
#include "testenv.h"

#define TOLERANCE_SIGMA 4.0
/* Spread of Pade approximants of the B2..B10 series at eta = 0.6 (6.450 ..
 * 6.460) and their distance to Liu's form: the reference's own uncertainty. */
#define EOS_RELATIVE_UNCERTAINTY 1e-3

static double check_value(const cJSON *result, const char *name)
{
    const cJSON *item = cJSON_GetObjectItem(cJSON_GetObjectItem(result, "checks"), name);
    cr_assert(cJSON_IsNumber(item), "checks.%s missing", name);
    return item->valuedouble;
}

/* phi = 0.70 (dense, near the transition), 3000 sweeps with 3000 cell
 * shifts: every disk is still there, no pair overlaps, every disk sits in the
 * cell that stores it, by an all-pairs check of configuration.csv that shares
 * no code with the engine. */
Test(hard_disks, invariants_hold_after_many_sweeps, .timeout = 300)
{
    const char *preset = "{\"model\": {\"type\": \"hard_disks\", \"N\": 1024, \"packing_fraction\": 0.70},"
                         " \"algorithm\": {\"type\": \"mpmc\", \"max_displacement\": 0.2},"
                         " \"run\": {\"thermalization\": 1000, \"sweeps\": 2000, \"measure_every\": 100, \"seed\": 3}}";
    char *dir;
    cJSON *result = physics_run_in(preset, "disks-invariants", &dir);
    char path[4200];
    snprintf(path, sizeof path, "%s/configuration.csv", dir);
    disk_configuration_report report;
    cr_assert_eq(disk_configuration_check(path, check_value(result, "box_length"), check_value(result, "cell_width"),
                                          1e-6, 1e-5, &report), 0, "cannot read %s", path);
    printf("N=1024 phi=0.70 after 3000 sweeps: %zu disks, %zu overlaps, closest pair %.7f, %zu outside their cell; "
           "engine: %g lost, %g overlaps\n",
           report.disks, report.overlaps, report.closest, report.outside_cell, check_value(result, "particles_lost"),
           check_value(result, "overlaps"));
    cr_expect_eq(report.disks, 1024, "disks in configuration.csv");
    cr_expect_eq(report.overlaps, 0, "overlapping pairs");
    cr_expect_eq(report.outside_cell, 0, "disks outside their cell");
    cr_expect(report.closest < 1.01, "closest pair %.5f: at phi = 0.7 some disks must nearly touch", report.closest);
    cr_expect_eq(check_value(result, "particles_lost"), 0);
    /* The pair histogram counted by the kernel equals the host's count. */
    cr_expect_eq(check_value(result, "pair_histogram_differences"), 0, "device and host pair histograms differ");
    snprintf(path, sizeof path, "%s/configuration.svg", dir);
    cr_expect(test_path_exists(path), "configuration.svg");
    double acceptance = test_observable(result, "acceptance", "mean");
    cr_expect(acceptance > 0.05 && acceptance < 0.6, "acceptance %.3f", acceptance);
    cJSON_Delete(result);
    free(dir);
}

/* The seed lost disks in cell shifts whose two cells judged membership by
 * different float operations.  N = 256 (12 x 12 cells) at phi = 0.71 with
 * d = 0.3 through 60000 shifts: every disk is still there, none overlaps,
 * each in its cell. */
Test(hard_disks, no_disk_lost_in_many_cell_shifts, .timeout = 300)
{
    const char *preset = "{\"model\": {\"type\": \"hard_disks\", \"N\": 256, \"packing_fraction\": 0.71},"
                         " \"algorithm\": {\"max_displacement\": 0.3, \"pressure_range\": 0.1, \"pressure_degree\": 3,"
                         " \"pressure_bin\": 0.005},"
                         " \"run\": {\"thermalization\": 0, \"sweeps\": 60000, \"measure_every\": 1000, \"seed\": 8}}";
    char *dir, path[4200];
    cJSON *result = physics_run_in(preset, "disks-shifts", &dir);
    snprintf(path, sizeof path, "%s/configuration.csv", dir);
    disk_configuration_report report;
    cr_assert_eq(disk_configuration_check(path, check_value(result, "box_length"), check_value(result, "cell_width"),
                                          1e-6, 1e-5, &report), 0, "cannot read %s", path);
    printf("N=256 phi=0.71 after 60000 cell shifts: %zu disks, %zu overlaps, %zu outside their cell\n", report.disks,
           report.overlaps, report.outside_cell);
    cr_expect_eq(report.disks, 256);
    cr_expect_eq(report.overlaps, 0);
    cr_expect_eq(report.outside_cell, 0);
    cJSON_Delete(result);
    free(dir);
}

/* Pitfall 1 (algorithm.cell_exit): moves may carry disks beyond their cell
 * by the margin, which keeps simultaneously moved disks apart: still no
 * overlap and no disk lost, disks beyond their cell's edges but within the
 * margin. */
Test(hard_disks, cell_exit_strays_but_keeps_disks_apart, .timeout = 300)
{
    const char *preset = "{\"model\": {\"type\": \"hard_disks\", \"N\": 1024, \"packing_fraction\": 0.70},"
                         " \"algorithm\": {\"type\": \"mpmc\", \"cell_exit\": true},"
                         " \"run\": {\"thermalization\": 500, \"sweeps\": 1000, \"measure_every\": 100, \"seed\": 4}}";
    char *dir, path[4200];
    cJSON *result = physics_run_in(preset, "disks-cell-exit", &dir);
    snprintf(path, sizeof path, "%s/configuration.csv", dir);
    double box = check_value(result, "box_length"), width = check_value(result, "cell_width");
    double margin = check_value(result, "cell_margin");
    disk_configuration_report strict, widened;
    cr_assert_eq(disk_configuration_check(path, box, width, 1e-6, 1e-5, &strict), 0, "cannot read %s", path);
    cr_assert_eq(disk_configuration_check(path, box, width, margin + 1e-6, 1e-5, &widened), 0, "cannot read %s", path);
    printf("cell_exit N=1024 phi=0.70 after 1500 sweeps: %zu disks, %zu overlaps, %zu beyond their cell, %zu beyond "
           "the margin %.4f\n", strict.disks, strict.overlaps, strict.outside_cell, widened.outside_cell, margin);
    cr_expect_eq(strict.disks, 1024);
    cr_expect_eq(strict.overlaps, 0);
    cr_expect_gt(strict.outside_cell, 0, "no disk beyond its cell: the switch does nothing");
    cr_expect_eq(widened.outside_cell, 0, "disks beyond the margin");
    cr_expect_eq(check_value(result, "pair_histogram_differences"), 0, "device and host pair histograms differ");
    cJSON_Delete(result);
    free(dir);
}

/* model.start "compress" on the host alone: N = 4096 at phi = 0.75 (denser
 * than any preset), written as configuration.csv and checked by the
 * independent all-pairs test: every disk there, no pair closer than one
 * diameter, every disk in its cell, and the box of the target phi. */
Test(hard_disks, compressed_start_reaches_phi_without_overlaps, .timeout = 120)
{
    disk_cells c = {0};
    cr_assert_eq(disk_geometry_for(4096, 0.75, 0.02, false, &c.g), CLMC_OK);
    size_t cells = (size_t)c.g.cells * c.g.cells;
    c.xy = malloc(cells * c.g.slots * 2 * sizeof *c.xy);
    c.count = malloc(cells * sizeof *c.count);
    cr_assert_eq(disk_compress_start(&c, 77, 0), CLMC_OK, "%s", clmc_error_message());
    char *dir = test_scratch_dir("disks-compress"), path[4200];
    cr_assert_eq(disk_write_configuration(&c, dir), CLMC_OK);
    snprintf(path, sizeof path, "%s/configuration.csv", dir);
    disk_configuration_report report;
    cr_assert_eq(disk_configuration_check(path, c.g.box, c.g.width, 1e-6, 0.0, &report), 0, "cannot read %s", path);
    double phi = report.disks * 3.14159265358979323846 / (4 * c.g.box * c.g.box);
    printf("compressed start N=4096 to phi=0.75: %zu disks, %zu overlaps, closest pair %.7f, %zu outside their "
           "cell, phi %.7f\n", report.disks, report.overlaps, report.closest, report.outside_cell, phi);
    cr_expect_eq(report.disks, 4096);
    cr_expect_eq(report.overlaps, 0);
    cr_expect_eq(report.outside_cell, 0);
    cr_expect(report.closest >= 1.0 && report.closest < 1.01, "closest pair %.7f", report.closest);
    cr_expect(fabs(phi - 0.75) < 1e-6, "phi %.7f", phi);
    free(c.xy);
    free(c.count);
    free(dir);
}

typedef struct {
    double phi;
    int sweeps;
    int compress; /* model.start "compress" (no pointers: Criterion copies parameters into another process) */
    int reproducible; /* algorithm.reproducible: repro_math.h's sqrt and sincos, no contraction */
} pressure_case;

ParameterizedTestParameters(hard_disks, pressure_matches_equation_of_state)
{
    /* phi = 0.4 repeats phi = 0.2's path (test_independent checks 0.4 with
     * 8 copies): CLMC_LONG_TESTS=1. */
    static pressure_case cases[] = {{0.2, 1500, 0, 0}, {0.6, 2500, 0, 0}, {0.6, 2500, 1, 0}, {0.6, 2500, 0, 1},
                                    {0.4, 1500, 0, 0}};
    return cr_make_param_array(pressure_case, cases, test_long_enabled() ? 5 : 4);
}

/* N = 48^2 from a lattice start (and at 0.6 from the compressed start and in
 * reproducible mode too);
 * g(r) fitted on (1, 1.1] with a cubic (the seed's 0.02 and degree 5 need far
 * more pairs than a short run collects). */
ParameterizedTest(pressure_case *c, hard_disks, pressure_matches_equation_of_state, .timeout = 300)
{
    char preset[640];
    snprintf(preset, sizeof preset,
             "{\"model\": {\"type\": \"hard_disks\", \"N\": 2304, \"packing_fraction\": %.3f, \"start\": \"%s\","
             " \"write_configuration\": false},"
             " \"algorithm\": {\"type\": \"mpmc\", \"max_displacement\": %.2f, \"pressure_range\": 0.1,"
             " \"pressure_degree\": 3, \"pressure_bin\": 0.005, \"reproducible\": %s},"
             " \"run\": {\"thermalization\": 300, \"sweeps\": %d, \"measure_every\": 5, \"seed\": %d}}",
             c->phi, c->compress ? "compress" : "lattice", c->phi < 0.5 ? 0.5 : 0.16, c->reproducible ? "true" : "false",
             c->sweeps, 11 + (int)(10 * c->phi));
    char *dir;
    cJSON *result = physics_run_in(preset, "disks-pressure", &dir);
    double pressure = test_observable(result, "pressure", "mean"), error = test_observable(result, "pressure", "error");
    double density = 4 * c->phi / 3.14159265358979323846;
    double reference = density * disk_eos_pade(c->phi);
    char what[128];
    snprintf(what, sizeof what, "P* at phi=%.1f, %s start%s (Liu: %.5f)", c->phi, c->compress ? "compress" : "lattice",
             c->reproducible ? ", reproducible" : "", density * disk_eos_liu(c->phi));
    double combined = hypot(error, EOS_RELATIVE_UNCERTAINTY * reference);
    double z = physics_compare(what, pressure, combined, reference);
    cr_expect_lt(z, TOLERANCE_SIGMA, "pressure off by %.2f sigma", z);
    cr_expect(error > 0 && error < 0.01 * reference, "pressure error %.5f: zero or too large to test", error);
    cJSON_Delete(result);
    free(dir);
}

/* The seed's Table 1: without particle shuffling the pressure at phi =
 * 0.708 comes out higher, 9.1876(2) against 9.18214(6) at N = 256^2, a
 * shift of +0.0055.  Same N here, from the compressed start, g(r) fitted by
 * a cubic on (1, 1.2] (the widest fit has the smallest error per
 * measurement, 0.058 against 0.09 for (1, 1.1]; its bias, common to both
 * settings, cancels in the difference), measured every 100 sweeps.
 *
 * Both settings run at once, each as CLMC_TABLE1_SEEDS independent runs
 * (default 1), spread over the devices listed in CLMC_TABLE1_DEVICES
 * (comma-separated selectors; default $CLMC_DEVICE), one process each.  An
 * H200 makes about 15000 sweeps a second at this N (launch-bound), and
 * coexistence relaxes slowly: a first trial with 3e5 + 1.5e6 sweeps still
 * drifted without shuffling (tau_int 135 measurements) and gave errors of
 * 0.002-0.004 (error x sqrt(sweeps) = 2.6 when stationary).  The default
 * is therefore 1.2e6 + 5.5e6 sweeps a run (about 7.5 minutes on an H200,
 * with the two settings on two GPUs; CLMC_TABLE1_SWEEPS sets the measured
 * sweeps, thermalization = sweeps / 4.5).  Opt-in: CLMC_LONG_TESTS=1.
 * Measured on four H200s with two seeds per setting and 1.1e6 + 5e6 sweeps
 * a run: difference -0.0004 +- 0.0017, no shift resolved
 * (benchmarks/results/2026-11-22-nvidia-h200x4-hard-disks-table1.txt).  The
 * seed equilibrated 3e8 sweeps and averaged 1e9 per run, 5-6 GPU hours a
 * run here; resolving the shift likely needs runs of that order. */
#define TABLE1_MAX_RUNS 16

static void table1_preset(char *preset, size_t n, bool shuffle, int seed, long long sweeps)
{
    snprintf(preset, n,
             "{\"model\": {\"type\": \"hard_disks\", \"N\": 65536, \"packing_fraction\": 0.708,"
             " \"start\": \"compress\", \"write_configuration\": false}, \"algorithm\": {\"type\": \"mpmc\","
             " \"shuffle_particles\": %s, \"pressure_range\": 0.2, \"pressure_degree\": 3, \"pressure_bin\": 0.01},"
             " \"run\": {\"thermalization\": %lld, \"sweeps\": %lld, \"measure_every\": 100, \"seed\": %d}}",
             shuffle ? "true" : "false", (long long)(sweeps / 4.5), sweeps, seed);
}

/* Starts one clmc run in a child process; returns its pid. */
static pid_t table1_start(const char *preset_json, const char *dir, const char *device)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid != 0) return pid;
    char override[4200];
    snprintf(override, sizeof override, "output.dir=\"%s\"", dir);
    const char *overrides[] = {override};
    clmc_preset *preset = NULL;
    clmc_status status = clmc_preset_parse(preset_json, strlen(preset_json), "table1", overrides, 1, &preset);
    clmc_run_options options = {.device = device, .quiet = true};
    if (status == CLMC_OK) status = clmc_run(preset, &options);
    if (status != CLMC_OK) fprintf(stderr, "table1 run in %s: %s\n", dir, clmc_error_message());
    _exit(status == CLMC_OK ? 0 : 1);
}

Test(hard_disks, unshuffled_particles_raise_the_pressure, .timeout = 3600)
{
    TEST_LONG_ONLY();
    const char *override = getenv("CLMC_TABLE1_SWEEPS"), *seeds_text = getenv("CLMC_TABLE1_SEEDS");
    long long sweeps = override ? atoll(override) : 5500000;
    int seeds = seeds_text ? atoi(seeds_text) : 1;
    cr_assert(sweeps >= 1500, "CLMC_TABLE1_SWEEPS=%lld: at least 1500", sweeps);
    cr_assert(seeds >= 1 && 2 * seeds <= TABLE1_MAX_RUNS, "CLMC_TABLE1_SEEDS=%d: 1 .. %d", seeds, TABLE1_MAX_RUNS / 2);
    const char *listed = getenv("CLMC_TABLE1_DEVICES");
    char devices_text[512];
    snprintf(devices_text, sizeof devices_text, "%s", listed ? listed : getenv("CLMC_DEVICE") ? getenv("CLMC_DEVICE") : "");
    char *devices[TABLE1_MAX_RUNS], *saved = NULL;
    int n_devices = 0;
    for (char *d = strtok_r(devices_text, ",", &saved); d && n_devices < TABLE1_MAX_RUNS; d = strtok_r(NULL, ",", &saved))
        devices[n_devices++] = d;

    char *dirs[TABLE1_MAX_RUNS];
    pid_t pids[TABLE1_MAX_RUNS];
    int runs = 2 * seeds;
    for (int i = 0; i < runs; i++) {
        bool shuffle = i % 2;
        char preset[700], label[64];
        table1_preset(preset, sizeof preset, shuffle, 17 + i / 2, sweeps);
        snprintf(label, sizeof label, "disks-%s-%d", shuffle ? "shuffled" : "unshuffled", i / 2);
        dirs[i] = test_scratch_dir(label);
        cr_assert_not_null(dirs[i], "scratch directory");
        pids[i] = table1_start(preset, dirs[i], n_devices ? devices[i % n_devices] : NULL);
        cr_assert(pids[i] > 0, "fork");
    }
    double sum[2] = {0, 0}, variance[2] = {0, 0};
    for (int i = 0; i < runs; i++) {
        int status = 0;
        cr_assert_eq(waitpid(pids[i], &status, 0), pids[i]);
        cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "run %d in %s failed", i, dirs[i]);
        cJSON *result = test_load_result(dirs[i]);
        cr_assert_not_null(result, "result.json in %s", dirs[i]);
        double p = test_observable(result, "pressure", "mean"), e = test_observable(result, "pressure", "error");
        const cJSON *perf = cJSON_GetObjectItem(result, "performance");
        printf("N=256^2 phi=0.708 %s seed %d on %s: P* %.5f +- %.5f, tau_int %.2f measurements, error x sqrt(sweeps) "
               "%.3f, %lld + %lld sweeps in %.1f s (kernels %.1f s)\n", i % 2 ? "shuffled" : "unshuffled", 17 + i / 2,
               n_devices ? devices[i % n_devices] : "the default device", p, e,
               test_observable(result, "pressure", "tau_int"), e * sqrt((double)sweeps), (long long)(sweeps / 4.5),
               sweeps, cJSON_GetObjectItem(perf, "wall_seconds")->valuedouble,
               cJSON_GetObjectItem(perf, "seconds")->valuedouble);
        sum[i % 2] += p;
        variance[i % 2] += e * e;
        cJSON_Delete(result);
        free(dirs[i]);
    }
    double pressure[2], error[2];
    for (int k = 0; k < 2; k++) {
        pressure[k] = sum[k] / seeds;
        error[k] = sqrt(variance[k]) / seeds;
    }
    double z = (pressure[0] - pressure[1]) / hypot(error[0], error[1]);
    printf("phi=0.708 N=256^2: P* unshuffled %.5f +- %.5f (seed 9.1876(2)), shuffled %.5f +- %.5f (seed 9.18214(6)); "
           "difference %+.5f +- %.5f (seed: +0.0055), z = %+.2f\n", pressure[0], error[0], pressure[1], error[1],
           pressure[0] - pressure[1], hypot(error[0], error[1]), z);
    cr_expect_gt(z, 2.0, "unshuffled pressure not above the shuffled one");
}

/* A run is a function of its preset: the same seed gives the same series bit
 * for bit (random numbers indexed by cell, sweep and move, never by thread),
 * and another seed a different one. */
Test(hard_disks, runs_are_reproducible, .timeout = 120)
{
    char *series[3];
    for (int i = 0; i < 3; i++) {
        char preset[512];
        snprintf(preset, sizeof preset,
                 "{\"model\": {\"type\": \"hard_disks\", \"N\": 1024, \"packing_fraction\": 0.5},"
                 " \"algorithm\": {\"pressure_range\": 0.1, \"pressure_degree\": 3, \"pressure_bin\": 0.005},"
                 " \"run\": {\"thermalization\": 50, \"sweeps\": 200, \"measure_every\": 20, \"seed\": %d}}",
                 i < 2 ? 5 : 6);
        char *dir, path[4200];
        cJSON *result = physics_run_in(preset, "disks-reproducible", &dir);
        snprintf(path, sizeof path, "%s/series.csv", dir);
        series[i] = test_read_file(path);
        cr_assert_not_null(series[i], "%s", path);
        cJSON_Delete(result);
        free(dir);
    }
    cr_expect_str_eq(series[0], series[1], "same seed, different series");
    cr_expect_str_neq(series[0], series[2], "another seed, the same series");
    for (int i = 0; i < 3; i++) free(series[i]);
}

/* One run of `json` with algorithm.fuse_shift set to `fuse`, under
 * --profile: its series.csv, configuration.csv and stderr. */
static void fuse_run(const char *label, const char *json, bool fuse, char **series, char **configuration,
                     char **output)
{
    char *dir = test_scratch_dir(label), out[4200], path[4300];
    char *preset = test_write_preset(dir, json);
    snprintf(out, sizeof out, "%s/out", dir);
    int status = test_run_clmc(output, "run '%s' --quiet --profile --set algorithm.fuse_shift=%s --out '%s'", preset,
                               fuse ? "on" : "off", out);
    cr_assert_eq(status, 0, "%s fuse_shift %d: exit %d: %s", label, fuse, status, *output ? *output : "");
    snprintf(path, sizeof path, "%s/series.csv", out);
    *series = test_read_file(path);
    snprintf(path, sizeof path, "%s/configuration.csv", out);
    *configuration = test_read_file(path);
    cr_assert(*series && *configuration, "%s: no series.csv or configuration.csv", label);
    free(preset), free(dir);
}

/* algorithm.fuse_shift: a sweep's cell shift made in one launch with the
 * next sweep's first sub-sweep (disks_shift_subsweep) gives the series and
 * the final configuration of the shift in a launch of its own, bit for bit:
 * one system through a block of plans (1024 sweeps) with measurements
 * every 7 sweeps; three compressed systems; pitfall 1's 8 slots a cell with
 * IEEE-exact arithmetic and a fixed set order; 32 x 32 cells (the kernel's
 * tiles of 8 x 8 blocks of 2 x 2 cells whole; 12 x 12 and 24 x 24 cells in
 * the others leave tiles part-filled).  Each sweep's shift is made
 * once, fused or alone (disks_shift: before a measurement, the end, a new
 * block), and the fused run makes fewer launches. */
Test(hard_disks, fused_shift_equals_separate_launches, .timeout = 600)
{
    static const char *const cases[] = {
        "{\"model\": {\"type\": \"hard_disks\", \"N\": 256, \"packing_fraction\": 0.7}, \"algorithm\":"
        " {\"pressure_range\": 0.1, \"pressure_degree\": 3, \"pressure_bin\": 0.005}, \"run\": {\"thermalization\":"
        " 100, \"sweeps\": 1000, \"measure_every\": 7, \"seed\": 21}}",
        "{\"model\": {\"type\": \"hard_disks\", \"N\": 256, \"packing_fraction\": 0.69, \"start\": \"compress\"},"
        " \"algorithm\": {\"pressure_range\": 0.1, \"pressure_degree\": 3, \"pressure_bin\": 0.005}, \"ensemble\":"
        " {\"type\": \"independent\", \"copies\": 3}, \"run\": {\"thermalization\": 20, \"sweeps\": 100,"
        " \"measure_every\": 25, \"seed\": 22}}",
        "{\"model\": {\"type\": \"hard_disks\", \"N\": 1024, \"packing_fraction\": 0.7}, \"algorithm\":"
        " {\"cell_exit\": true, \"reproducible\": true, \"shuffle_sets\": false, \"pressure_range\": 0.1,"
        " \"pressure_degree\": 3, \"pressure_bin\": 0.005}, \"run\": {\"thermalization\": 0, \"sweeps\": 60,"
        " \"measure_every\": 60, \"seed\": 23}}",
        "{\"model\": {\"type\": \"hard_disks\", \"N\": 1700, \"packing_fraction\": 0.7}, \"algorithm\":"
        " {\"pressure_range\": 0.1, \"pressure_degree\": 3, \"pressure_bin\": 0.005}, \"run\": {\"thermalization\":"
        " 50, \"sweeps\": 250, \"measure_every\": 50, \"seed\": 24}}",
    };
    const long sweeps[] = {1100, 120, 60, 300};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char *series[2], *configuration[2], *output[2], label[32];
        snprintf(label, sizeof label, "disks-fuse-%zu", c);
        for (int fuse = 0; fuse < 2; fuse++)
            fuse_run(label, cases[c], fuse, &series[fuse], &configuration[fuse], &output[fuse]);
        long fused = test_profiled_launches(output[1], "disks_shift_subsweep", 0);
        long alone = test_profiled_launches(output[1], "disks_shift", 0);
        long sub[2] = {test_profiled_launches(output[0], "disks_subsweep", 0),
                       test_profiled_launches(output[1], "disks_subsweep", 0)};
        long separate = test_profiled_launches(output[0], "disks_shift", 0);
        printf("case %zu: %ld sweeps; separate: %ld shifts, %ld sub-sweeps; fused: %ld fused, %ld shifts alone, %ld "
               "sub-sweeps; series %s, configurations %s\n", c, sweeps[c], separate, sub[0], fused, alone, sub[1],
               strcmp(series[0], series[1]) ? "differ" : "equal",
               strcmp(configuration[0], configuration[1]) ? "differ" : "equal");
        cr_expect_str_eq(series[1], series[0], "case %zu: the series differ", c);
        cr_expect_str_eq(configuration[1], configuration[0], "case %zu: the final configurations differ", c);
        cr_expect_eq(separate, sweeps[c], "case %zu: separate launches, a shift a sweep", c);
        cr_expect_eq(sub[0], 4 * sweeps[c], "case %zu: separate launches, four sub-sweeps a sweep", c);
        cr_expect_eq(test_profiled_launches(output[0], "disks_shift_subsweep", 0), -1, "case %zu", c);
        cr_expect_gt(fused, 0, "case %zu: no fused launch", c);
        cr_expect_eq(fused + alone, sweeps[c], "case %zu: each sweep's shift made once", c);
        cr_expect_eq(sub[1] + fused, 4 * sweeps[c], "case %zu: four sets a sweep", c);
        for (int fuse = 0; fuse < 2; fuse++) free(series[fuse]), free(configuration[fuse]), free(output[fuse]);
    }
}

typedef struct {
    const char *model, *algorithm, *needle;
} invalid_case;

static const invalid_case invalid_cases[] = {
    {"\"N\": 1024, \"packing_fraction\": 0.91", "\"type\": \"mpmc\"", "model.packing_fraction"},
    {"\"N\": 1024, \"packing_fraction\": 0.90689968211710892", "\"type\": \"mpmc\"",
     "model.packing_fraction: 0.90689968211710892 is at or above close packing"},
    {"\"N\": 1000, \"packing_fraction\": 0.88", "\"type\": \"mpmc\"", "model.packing_fraction: too dense"},
    {"\"N\": 16, \"packing_fraction\": 0.85", "\"type\": \"mpmc\"", "model.N"},
    {"\"N\": 1024, \"packing_fraction\": 0.5", "\"max_displacement\": 0", "algorithm.max_displacement"},
    {"\"N\": 1024, \"packing_fraction\": 0.5", "\"max_displacement\": -0.1", "algorithm.max_displacement"},
    {"\"N\": 1024, \"packing_fraction\": 0.5", "\"pressure_range\": 0.001, \"pressure_bin\": 0.001",
     "algorithm.pressure_range"},
    {"\"packing_fraction\": 0.5", "\"type\": \"mpmc\"", "model.N"},
    {"\"N\": 1024, \"packing_fraction\": 0.85, \"start\": \"compress\"", "\"type\": \"mpmc\"",
     "model.start: \"compress\" works up to packing fraction 0.8"},
    {"\"N\": 1024, \"packing_fraction\": 0.5, \"start\": \"random\"", "\"type\": \"mpmc\"", "model.start"},
    {"\"N\": 1024, \"packing_fraction\": 0.5", "\"fuse_shift\": \"yes\"", "algorithm.fuse_shift"},
};

/* Each error names its JSON path, and the command line exits with 2. */
Test(hard_disks, invalid_presets_are_input_errors)
{
    for (size_t i = 0; i < sizeof invalid_cases / sizeof invalid_cases[0]; i++) {
        char preset[512];
        snprintf(preset, sizeof preset, "{\"model\": {\"type\": \"hard_disks\", %s}, \"algorithm\": {%s}}",
                 invalid_cases[i].model, invalid_cases[i].algorithm);
        char label[32];
        snprintf(label, sizeof label, "disks-invalid-%zu", i);
        expect_input_error(preset, label, invalid_cases[i].needle);
    }
}

/* The test-only fault variables are parsed strictly (src/runtime/fault.c): a value
 * that is not SWEEP or SWEEP:nan is an input error naming the variable. */
Test(hard_disks, garbled_fault_variable_exits_2)
{
    const char *preset = "{\"model\": {\"type\": \"hard_disks\", \"N\": 64, \"packing_fraction\": 0.5},"
                         " \"run\": {\"thermalization\": 0, \"sweeps\": 10, \"seed\": 9}}";
    static const char *const garbled[] = {"25x", "0", "-3", "250:inf", ":nan"};
    char *dir = test_scratch_dir("disks-fault-garbled"), path[4200];
    snprintf(path, sizeof path, "%s/preset.json", dir);
    test_write_file(path, preset);
    for (size_t i = 0; i < sizeof garbled / sizeof *garbled; i++) {
        char *output = NULL;
        setenv("CLMC_FAULT_DISK_AFTER", garbled[i], 1);
        int rc = test_run_clmc(&output, "run '%s' --quiet --out '%s/out'", path, dir);
        unsetenv("CLMC_FAULT_DISK_AFTER");
        printf("CLMC_FAULT_DISK_AFTER=%s: exit %d: %s", garbled[i], rc, output ? output : "");
        cr_expect_eq(rc, 2, "%s: exit status %d", garbled[i], rc);
        cr_expect(output && strstr(output, "CLMC_FAULT_DISK_AFTER"), "%s: the variable is not named", garbled[i]);
        free(output);
    }
    free(dir);
}

/* The guard (issue 8 item 7): CLMC_FAULT_DISK_AFTER=250 (test-only) removes
 * one disk after sweep 250; the guard after the measurement at sweep 250
 * stops the run with exit 1, names the lost disk and the last good state,
 * and checkpoint.clmc is still the one of sweep 200 (checkpoints every 100
 * sweeps).  Resumed without the fault, the run ends as an uninterrupted one. */
Test(hard_disks, lost_disk_stops_the_run_at_the_last_good_checkpoint, .timeout = 300)
{
    const char *preset = "{\"model\": {\"type\": \"hard_disks\", \"N\": 1024, \"packing_fraction\": 0.6},"
                         " \"algorithm\": {\"pressure_range\": 0.1, \"pressure_degree\": 3, \"pressure_bin\": 0.005},"
                         " \"run\": {\"thermalization\": 0, \"sweeps\": 600, \"measure_every\": 50,"
                         " \"checkpoint_every\": 100, \"seed\": 9}}";
    char *dir = test_scratch_dir("disks-guard"), path[4200], *output = NULL;
    snprintf(path, sizeof path, "%s/preset.json", dir);
    test_write_file(path, preset);
    setenv("CLMC_FAULT_DISK_AFTER", "250", 1);
    int rc = test_run_clmc(&output, "run '%s' --quiet --out '%s/faulty'", path, dir);
    unsetenv("CLMC_FAULT_DISK_AFTER");
    printf("fault after sweep 250: exit %d: %s", rc, output ? output : "");
    cr_expect_eq(rc, 1, "exit status %d", rc);
    cr_expect(output && strstr(output, "1023 of 1024 disks") && strstr(output, "disks lost"), "no lost disk named");
    cr_expect(output && strstr(output, "after sweep 250") && strstr(output, "last good state"),
              "no sweep or last good state in the message");
    free(output);
    snprintf(path, sizeof path, "%s/faulty", dir);
    clmc_checkpoint checkpoint;
    cr_assert_eq(clmc_checkpoint_read(path, &checkpoint), CLMC_OK, "no readable checkpoint left");
    printf("checkpoint left: sweep %llu\n", (unsigned long long)checkpoint.next_sweep);
    cr_expect_eq(checkpoint.next_sweep, 200, "checkpoint of sweep %llu", (unsigned long long)checkpoint.next_sweep);
    clmc_checkpoint_free(&checkpoint);
    rc = test_run_clmc(&output, "run --resume '%s/faulty' --quiet", dir);
    printf("resume without the fault: exit %d: %s\n", rc, output ? output : "");
    cr_expect_eq(rc, 0);
    free(output);
    snprintf(path, sizeof path, "%s/preset.json", dir);
    cr_assert_eq(test_run_clmc(NULL, "run '%s' --quiet --out '%s/reference'", path, dir), 0);
    char a[4300], b[4300];
    snprintf(a, sizeof a, "%s/reference/series.csv", dir);
    snprintf(b, sizeof b, "%s/faulty/series.csv", dir);
    char *reference = test_read_file(a), *resumed = test_read_file(b);
    cr_assert(reference && resumed, "series.csv missing");
    cr_expect_str_eq(reference, resumed, "the resumed run differs from the uninterrupted one");
    free(reference);
    free(resumed);
    free(dir);
}

/* Rewrites DIR/checkpoint.clmc with a valid checksum around a damaged model
 * state: `edit` changes the decoded blob (u64 current buffer, then sized
 * device buffers: positions, counts, tallies, overflow). */
static void (*blob_edit)(unsigned char *blob);

static void edit_model_blob(clmc_checkpoint *c)
{
    blob_edit(c->model_blob);
}

static void rewrite_checkpoint(const char *dir, void (*edit)(unsigned char *blob))
{
    blob_edit = edit;
    test_forge_checkpoint(dir, edit_model_blob);
}

static void overfill_first_cell(unsigned char *blob)
{
    uint32_t seven = 7;
    memcpy(blob + 8 + 8 + clmc_le_u64(blob + 8) + 8, &seven, sizeof seven);
}

static void first_position_nan(unsigned char *blob)
{
    float nan = NAN;
    memcpy(blob + 16, &nan, sizeof nan);
}

/* The guard checks positions too: CLMC_FAULT_DISK_AFTER=250:nan makes one
 * disk's x coordinate NaN after sweep 250 (no observable turns NaN: the
 * disk is never in range of a pair); the run stops there with exit 1. */
Test(hard_disks, nan_position_stops_the_run, .timeout = 120)
{
    const char *preset = "{\"model\": {\"type\": \"hard_disks\", \"N\": 1024, \"packing_fraction\": 0.6},"
                         " \"algorithm\": {\"pressure_range\": 0.1, \"pressure_degree\": 3, \"pressure_bin\": 0.005},"
                         " \"run\": {\"thermalization\": 0, \"sweeps\": 600, \"measure_every\": 50, \"seed\": 9}}";
    char *dir = test_scratch_dir("disks-guard-nan"), path[4200], *output = NULL;
    snprintf(path, sizeof path, "%s/preset.json", dir);
    test_write_file(path, preset);
    setenv("CLMC_FAULT_DISK_AFTER", "250:nan", 1);
    int rc = test_run_clmc(&output, "run '%s' --quiet --out '%s/faulty'", path, dir);
    unsetenv("CLMC_FAULT_DISK_AFTER");
    printf("NaN position after sweep 250: exit %d: %s", rc, output ? output : "");
    cr_expect_eq(rc, 1, "exit status %d", rc);
    cr_expect(output && strstr(output, "1024 of 1024 disks on the device (none lost), 1 cells or slots broken") &&
                  strstr(output, "after sweep 250"), "no broken slot named");
    free(output);
    free(dir);
}

/* A checkpoint whose checksum is right but whose cell list the kernels could
 * not run on (a cell holding 7 disks; a position that is NaN) is refused
 * with exit 2 before anything reaches the device, and the results of the
 * finished run are left as they were. */
Test(hard_disks, checkpoint_with_broken_cells_refused, .timeout = 120)
{
    const char *preset = "{\"model\": {\"type\": \"hard_disks\", \"N\": 1024, \"packing_fraction\": 0.6},"
                         " \"algorithm\": {\"pressure_range\": 0.1, \"pressure_degree\": 3, \"pressure_bin\": 0.005},"
                         " \"run\": {\"thermalization\": 0, \"sweeps\": 300, \"measure_every\": 50,"
                         " \"checkpoint_every\": 100, \"seed\": 9}}";
    char *dir = test_scratch_dir("disks-broken-checkpoint"), path[4200], *output = NULL;
    snprintf(path, sizeof path, "%s/preset.json", dir);
    test_write_file(path, preset);
    void (*edits[])(unsigned char *) = {overfill_first_cell, first_position_nan};
    const char *needles[] = {"holds 7 disks, at most 4 fit", "not a position inside the cell"};
    for (int i = 0; i < 2; i++) {
        char run[4300], result_path[4400];
        snprintf(run, sizeof run, "%s/run%d", dir, i);
        cr_assert_eq(test_run_clmc(NULL, "run '%s' --quiet --out '%s'", path, run), 0);
        snprintf(result_path, sizeof result_path, "%s/result.json", run);
        char *before = test_read_file(result_path);
        rewrite_checkpoint(run, edits[i]);
        int rc = test_run_clmc(&output, "run --resume '%s' --quiet", run);
        printf("damaged cell list %d: exit %d: %s", i, rc, output ? output : "");
        cr_expect_eq(rc, 2);
        cr_expect(output && strstr(output, needles[i]), "message lacks \"%s\"", needles[i]);
        char *after = test_read_file(result_path);
        cr_expect(before && after && strcmp(before, after) == 0, "result.json changed");
        free(before);
        free(after);
        free(output);
    }
    free(dir);
}
