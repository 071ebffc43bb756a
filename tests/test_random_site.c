/* Ising random-site dynamics (algorithm.layout "random_site"): every variant
 * (sequential_reference, copies, double_tiling, dead_border) and acceptance
 * samples the exact 2D equilibrium; double_tiling relaxes as the reference
 * at whole sweeps (not within one), dead_border lags it by less with larger
 * tiles; `copies` reproduces
 * `sequential_reference` bit for bit when both follow the shared site
 * sequence; after a quench the energy relaxation of `copies`, of
 * `sequential_reference` and of a host reference agree within errors at
 * times 0.25 .. 10 sweeps, while the checkerboard update measurably differs;
 * bad input exits 2 naming the key.  The same for the q-state Potts model
 * (sequential_reference and copies, Metropolis and heat bath): q = 3, L = 4
 * against exact transfer-matrix values, copies against a host random-site
 * code after a quench, the checkerboard guard, bit-identities, bad input. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ising_exact.h"
#include "physics.h"
#include "potts_exact.h"
#include "rerun.h"
#include "testenv.h"

#define TOLERANCE_SIGMA 4.0

/* The per-temperature energy and specific heat of the run of `json` against
 * exact(beta) within TOLERANCE_SIGMA standard errors, printed as `what`
 * followed by beta. */
typedef void (*exact_values)(double beta, double *energy, double *specific_heat);
static void expect_temperatures_exact(const char *json, const char *label, const double *betas, int n,
                                      exact_values exact, const char *what_prefix)
{
    cJSON *result = physics_run(json, label);
    const cJSON *temperatures = cJSON_GetObjectItem(cJSON_GetObjectItem(result, "observables"), "temperatures");
    cr_assert_eq(cJSON_GetArraySize(temperatures), n);
    for (int t = 0; t < n; t++) {
        const cJSON *entry = cJSON_GetArrayItem(temperatures, t);
        double exact_energy, exact_heat;
        exact(betas[t], &exact_energy, &exact_heat);
        const cJSON *energy = cJSON_GetObjectItem(entry, "energy"), *heat = cJSON_GetObjectItem(entry, "specific_heat");
        char what[160];
        snprintf(what, sizeof what, "%s beta=%.7g energy", what_prefix, betas[t]);
        double z_e = physics_compare(what, cJSON_GetObjectItem(energy, "mean")->valuedouble,
                                     cJSON_GetObjectItem(energy, "error")->valuedouble, exact_energy);
        snprintf(what, sizeof what, "%s beta=%.7g C", what_prefix, betas[t]);
        double z_c = physics_compare(what, cJSON_GetObjectItem(heat, "mean")->valuedouble,
                                     cJSON_GetObjectItem(heat, "error")->valuedouble, exact_heat);
        cr_expect_lt(z_e, TOLERANCE_SIGMA);
        cr_expect_lt(z_c, TOLERANCE_SIGMA);
    }
    cJSON_Delete(result);
}

static void ising2d_exact_L8(double beta, double *energy, double *specific_heat)
{
    ising2d_exact(8, beta, energy, specific_heat);
}

static void potts2d_exact_q3_L4(double beta, double *energy, double *specific_heat)
{
    potts2d_exact(4, 3, beta, energy, specific_heat);
}

/* 3 temperatures x 4 copies at L = 8 from an ordered start, 5000 sweeps
 * (errors about 0.4 % of e and 2.5 % of C at beta_c; was 10000, the CI budget). */
static void expect_exact_equilibrium(const char *variant, const char *type)
{
    static const double betas[] = {0.3, 0.4406868, 0.6};
    char json[1024], label[64];
    snprintf(json, sizeof json,
             "{\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": 8, \"start\": \"ordered\"},"
             " \"algorithm\": {\"type\": \"%s\", \"layout\": \"random_site\", \"random_site\": \"%s\"},"
             " \"ensemble\": {\"type\": \"independent\", \"betas\": [0.3, 0.4406868, 0.6], \"copies\": 4},"
             " \"run\": {\"thermalization\": 500, \"sweeps\": 5000, \"seed\": 17}}",
             type, variant);
    snprintf(label, sizeof label, "rsite-eq-%s-%s", variant, type);
    char what[96];
    snprintf(what, sizeof what, "%s %s L=8", variant, type);
    expect_temperatures_exact(json, label, betas, 3, ising2d_exact_L8, what);
}

Test(random_site, sequential_metropolis_matches_exact, .timeout = 900)
{
    expect_exact_equilibrium("sequential_reference", "metropolis");
}
Test(random_site, sequential_heatbath_matches_exact, .timeout = 900)
{
    expect_exact_equilibrium("sequential_reference", "heatbath");
}
Test(random_site, copies_metropolis_matches_exact, .timeout = 900) { expect_exact_equilibrium("copies", "metropolis"); }
Test(random_site, copies_heatbath_matches_exact, .timeout = 900) { expect_exact_equilibrium("copies", "heatbath"); }
Test(random_site, double_tiling_metropolis_matches_exact, .timeout = 900)
{
    expect_exact_equilibrium("double_tiling", "metropolis");
}
Test(random_site, double_tiling_heatbath_matches_exact, .timeout = 900)
{
    expect_exact_equilibrium("double_tiling", "heatbath");
}
Test(random_site, dead_border_metropolis_matches_exact, .timeout = 900)
{
    expect_exact_equilibrium("dead_border", "metropolis");
}
Test(random_site, dead_border_heatbath_matches_exact, .timeout = 900)
{
    expect_exact_equilibrium("dead_border", "heatbath");
}

/* Runs the preset text with OVERRIDES into a fresh directory; returns it. */
static char *run_preset(const char *label, const char *json, const char *overrides)
{
    char *dir = test_scratch_dir(label), path[4200];
    cr_assert_not_null(dir);
    snprintf(path, sizeof path, "%s/preset.json", dir);
    test_write_file(path, json);
    char *output = NULL;
    int rc = test_run_clmc(&output, "run '%s' --quiet --out '%s/out' %s", path, dir, overrides);
    cr_assert_eq(rc, 0, "%s: %s", label, output ? output : "");
    free(output);
    return dir;
}

static char *read_out(const char *dir, const char *file)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/out/%s", dir, file);
    char *text = test_read_file(path);
    cr_assert_not_null(text, "%s", path);
    return text;
}

static const char *fnv_of(const cJSON *result)
{
    return cJSON_GetObjectItem(cJSON_GetObjectItem(result, "checks"), "configuration_fnv1a")->valuestring;
}

/* Two runs of the preset text with OVERRIDES_A and OVERRIDES_B: the same
 * series and final configurations bit for bit. */
static void expect_runs_equal(const char *label, const char *json, const char *overrides_a, const char *overrides_b)
{
    char *a = run_preset(label, json, overrides_a);
    char *b = run_preset(label, json, overrides_b);
    char *series_a = read_out(a, "series.csv"), *series_b = read_out(b, "series.csv");
    char path[4400];
    snprintf(path, sizeof path, "%s/out", a);
    cJSON *result_a = test_load_result(path);
    snprintf(path, sizeof path, "%s/out", b);
    cJSON *result_b = test_load_result(path);
    cr_assert(result_a && result_b);
    printf("%s (%s | %s): series %zu bytes, %s; configurations %s / %s\n", label, overrides_a, overrides_b,
           strlen(series_a), strcmp(series_a, series_b) == 0 ? "identical" : "DIFFERENT", fnv_of(result_a), fnv_of(result_b));
    cr_expect_str_eq(series_a, series_b, "%s: series differ", label);
    cr_expect_str_eq(fnv_of(result_a), fnv_of(result_b), "%s: final configurations differ", label);
    cJSON_Delete(result_a);
    cJSON_Delete(result_b);
    free(series_a);
    free(series_b);
    free(a);
    free(b);
}

/* `copies` (algorithm.copies_memory `memory`) and `sequential_reference`
 * with site_sequence "shared": the same series and final configurations bit
 * for bit (42 configurations: two packed blocks of 32 copies, the second
 * partial; 15: not a multiple of the global kernel's work-group; substeps;
 * 3D heat bath with a first_system). */
static void expect_copies_equal_sequential(const char *label, const char *json, const char *memory)
{
    char overrides[128];
    snprintf(overrides, sizeof overrides, "--set algorithm.random_site=copies --set algorithm.copies_memory=%s", memory);
    expect_runs_equal(label, json, overrides,
                      "--set algorithm.random_site=sequential_reference --set algorithm.site_sequence=shared");
}

#define BITS_2D(copies)                                                                                   \
    "{\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": 12},"                                                \
    " \"algorithm\": {\"layout\": \"random_site\", \"substeps\": 4},"                                            \
    " \"ensemble\": {\"type\": \"independent\", \"betas\": [0.3, 0.44, 0.6], \"copies\": " #copies "},"           \
    " \"run\": {\"thermalization\": 8, \"sweeps\": 40, \"seed\": 3}}"
#define BITS_3D                                                                                           \
    "{\"model\": {\"type\": \"ising\", \"dim\": 3, \"L\": 4, \"start\": \"ordered\"},"                         \
    " \"algorithm\": {\"type\": \"heatbath\", \"layout\": \"random_site\"},"                                     \
    " \"ensemble\": {\"type\": \"independent\", \"betas\": [0.2, 0.25], \"copies\": 3, \"first_system\": 7},"     \
    " \"run\": {\"thermalization\": 5, \"sweeps\": 30, \"seed\": 9}}"

Test(random_site, copies_equal_sequential_reference_2d_metropolis)
{
    expect_copies_equal_sequential("rsite-bits-2d", BITS_2D(5), "global");
}
Test(random_site, copies_local_equal_sequential_reference_2d_metropolis)
{
    expect_copies_equal_sequential("rsite-bits-2d-local", BITS_2D(14), "local");
}
Test(random_site, copies_equal_sequential_reference_3d_heatbath)
{
    expect_copies_equal_sequential("rsite-bits-3d", BITS_3D, "global");
}
Test(random_site, copies_local_equal_sequential_reference_3d_heatbath)
{
    expect_copies_equal_sequential("rsite-bits-3d-local", BITS_3D, "local");
}

/* The tiled variants' local-memory kernels make the same decisions as the
 * global-memory ones (algorithm.tile_memory): series and final
 * configurations bit for bit, Metropolis and heat bath, two or more tile
 * sizes each, tile counts that leave work-groups partly padded (100 tiles of
 * 4^2 at L = 40, 216 of 4^3 at L = 24), tiles making more attempts than one
 * plan chunk of 64 (dead_border 10^2, double_tiling 20^2; 3D dead_border 6^3
 * and double_tiling 12^3 opt-in) and fewer, substeps, shift_every, several
 * temperatures and copies (one per temperature in 3D beyond L = 12), a
 * first_system; 8 sweeps.  The cases of one variant share lattices (2D
 * L = 40, 3D L = 24) and, where their checks allow, shapes, so that the
 * local, private and waves comparisons of a shape share its global-memory
 * program and every case its measurement program.  `local` names the local-memory run's
 * overrides (the workers per tile, algorithm.tile_workers, beside tile_memory local).  Each case builds
 * programs of its own (most of its time on PoCL): the cases marked opt-in repeat a default case's
 * code path with another tile or chunk count (CLMC_LONG_TESTS=1). */
static void expect_local_run_equals(const char *variant, int dim, int edge, int tile, const char *type, int substeps,
                                    const char *local, const char *reference)
{
    char json[1024], label[96];
    snprintf(json, sizeof json,
             "{\"model\": {\"type\": \"ising\", \"dim\": %d, \"L\": %d},"
             " \"algorithm\": {\"type\": \"%s\", \"layout\": \"random_site\", \"random_site\": \"%s\", \"tile\": %d,"
             " \"substeps\": %d%s},"
             " \"ensemble\": {\"type\": \"independent\", \"betas\": [%s], \"copies\": %d, \"first_system\": 2},"
             " \"run\": {\"thermalization\": 2, \"sweeps\": 6, \"seed\": 11}}",
             dim, edge, type, variant, tile, substeps, strcmp(variant, "dead_border") == 0 ? ", \"shift_every\": 2" : "",
             dim == 3 ? "0.2, 0.25" : "0.35, 0.5", dim == 3 && edge > 12 ? 1 : 3);
    snprintf(label, sizeof label, "rsite-mem-%s-%dd-L%d-t%d-%s", variant, dim, edge, tile, type);
    expect_runs_equal(label, json, local, reference);
}

static void expect_local_equals_global(const char *variant, int dim, int edge, int tile, const char *type,
                                       int substeps)
{
    expect_local_run_equals(variant, dim, edge, tile, type, substeps,
                            "--set algorithm.tile_memory=local --set algorithm.tile_workers=1",
                            "--set algorithm.tile_memory=global");
}

/* Parallel attempts in waves (algorithm.tile_workers `workers` > 1) against
 * the serial global-memory kernel. */
static void expect_waves_equal_global(const char *variant, int dim, int edge, int tile, const char *type, int substeps,
                                      int workers)
{
    char local[128];
    snprintf(local, sizeof local, "--set algorithm.tile_memory=local --set algorithm.tile_workers=%d", workers);
    expect_local_run_equals(variant, dim, edge, tile, type, substeps, local, "--set algorithm.tile_memory=global");
}

Test(random_site, dead_border_local_equals_global_2d)
{
    expect_local_equals_global("dead_border", 2, 40, 4, "metropolis", 2);
    if (test_long_enabled()) expect_local_equals_global("dead_border", 2, 24, 6, "metropolis", 3);
    expect_local_equals_global("dead_border", 2, 40, 10, "heatbath", 1);
}

Test(random_site, dead_border_local_equals_global_3d)
{
    expect_local_equals_global("dead_border", 3, 24, 4, "heatbath", 2);
    /* opt-in: several chunks per tile, as 2D tile 10 (and the 3D waves' tile 8) */
    if (test_long_enabled()) expect_local_equals_global("dead_border", 3, 12, 6, "metropolis", 1);
}

Test(random_site, double_tiling_local_equals_global_2d)
{
    expect_local_equals_global("double_tiling", 2, 40, 4, "heatbath", 2);
    expect_local_equals_global("double_tiling", 2, 40, 20, "metropolis", 4);
}

Test(random_site, double_tiling_local_equals_global_3d)
{
    expect_local_equals_global("double_tiling", 3, 24, 4, "metropolis", 8);
    /* opt-in: several chunks per sub-tile, as 2D tile 20 (3D tile 8 in the waves) */
    if (test_long_enabled()) expect_local_equals_global("double_tiling", 3, 24, 12, "heatbath", 2);
}

/* Tiles as bits in private memory (algorithm.tile_memory "private"), one
 * work-item per tile, equal the global-memory kernels bit for bit (the
 * presets of the local-memory comparisons above and of the waves below, so
 * the global runs share their kernels): boxes of one word (double_tiling
 * tile 4), of several rows per word with unused bits (2D edges 10, 12;
 * 3D edges 4, 6, 8: up to 16 words) and of one row a word (dead_border tile
 * 32: 32 words), Metropolis and heat bath, substeps, shift_every, a
 * first_system. */
static void expect_private_equals_global(const char *variant, int dim, int edge, int tile, const char *type,
                                         int substeps)
{
    expect_local_run_equals(variant, dim, edge, tile, type, substeps, "--set algorithm.tile_memory=private",
                            "--set algorithm.tile_memory=global");
}

Test(random_site, dead_border_private_equals_global_2d)
{
    /* opt-in: tile 6 (two words), the same rows-per-word path as tile 10 */
    if (test_long_enabled()) expect_private_equals_global("dead_border", 2, 24, 6, "metropolis", 3);
    expect_private_equals_global("dead_border", 2, 40, 10, "heatbath", 1);
}

Test(random_site, dead_border_private_equals_global_32_bit_rows)
{
    expect_runs_equal("rsite-mem-dead_border-2d-L64-t32",
                      "{\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": 64},"
                      " \"algorithm\": {\"type\": \"heatbath\", \"layout\": \"random_site\", \"random_site\": \"dead_border\","
                      " \"tile\": 32, \"substeps\": 4},"
                      " \"ensemble\": {\"beta\": 0.45}, \"run\": {\"thermalization\": 4, \"sweeps\": 8, \"seed\": 13}}",
                      "--set algorithm.tile_memory=private", "--set algorithm.tile_memory=global");
}

Test(random_site, dead_border_private_equals_global_3d)
{
    expect_private_equals_global("dead_border", 3, 24, 4, "heatbath", 2);
    expect_private_equals_global("dead_border", 3, 24, 8, "metropolis", 1);
}

Test(random_site, double_tiling_private_equals_global_2d)
{
    expect_private_equals_global("double_tiling", 2, 40, 4, "heatbath", 2);
    expect_private_equals_global("double_tiling", 2, 40, 20, "metropolis", 4);
    /* opt-in: tile 16 (box edge 10, 3 rows a word), the path of tile 20's (edge 12, 2 rows a word) */
    if (test_long_enabled()) expect_private_equals_global("double_tiling", 2, 32, 16, "heatbath", 4);
}

Test(random_site, double_tiling_private_equals_global_3d)
{
    expect_private_equals_global("double_tiling", 3, 24, 4, "metropolis", 8);
    expect_private_equals_global("double_tiling", 3, 24, 8, "heatbath", 2);
    /* opt-in: tile 12 (box edge 8, 16 words: dead_border 3D tile 8's box above) */
    if (test_long_enabled()) expect_private_equals_global("double_tiling", 3, 24, 12, "heatbath", 2);
}

/* Waves of parallel attempts (algorithm.tile_workers 2 .. 32) equal the
 * serial chain bit for bit: tiles 4, 8, 10, 32 (2D; 20 opt-in) and 4, 8 (3D); partly
 * padded work-groups (100 tiles of 4^2 in groups of 32, 25 of 8^2 in groups
 * of 4, 216 of 4^3 in groups of 16); chunks of 4 .. 64 attempts and tiles of
 * several chunks (dead_border 10^2: 100 attempts a step, the last chunk of
 * 36; 3D 8^3: 512); occupancy buckets shared by several sites (dead_border
 * 32^2: 1024 box sites in 512 buckets); more workers than a chunk has
 * attempts (double_tiling tile 8: 16 attempts, 32 workers). */
Test(random_site, dead_border_waves_equal_serial_2d)
{
    /* opt-in: tile 4, partly filled groups as 3D tile 4's (216 tiles in groups of 16) */
    if (test_long_enabled()) expect_waves_equal_global("dead_border", 2, 40, 4, "metropolis", 2, 4);
    /* tile 10: 100 attempts a step, chunks of 64 and 36 */
    expect_waves_equal_global("dead_border", 2, 40, 10, "heatbath", 1, 8);
    /* opt-in: tile 8 on its own lattice */
    if (test_long_enabled()) expect_waves_equal_global("dead_border", 2, 40, 8, "heatbath", 1, 8);
    /* opt-in: a partial last chunk, as tile 16 below */
    if (test_long_enabled()) expect_waves_equal_global("dead_border", 2, 40, 20, "heatbath", 1, 2);
}

Test(random_site, dead_border_waves_equal_serial_large_tiles)
{
    /* opt-in: 16 workers on tile 16, as on tile 32 (shared masks, below) */
    if (test_long_enabled()) expect_waves_equal_global("dead_border", 2, 32, 16, "metropolis", 1, 16);
    /* against the serial local-memory kernel too (opt-in) */
    if (test_long_enabled())
        expect_local_run_equals("dead_border", 2, 32, 16, "heatbath", 1,
                                "--set algorithm.tile_memory=local --set algorithm.tile_workers=32",
                                "--set algorithm.tile_memory=local --set algorithm.tile_workers=1");
}

/* Tiles of 32^2: 1024 box sites share 512 occupancy masks (one system, a
 * few steps of a quarter sweep: the largest lattice of these tests). */
Test(random_site, dead_border_waves_shared_masks_equal_serial)
{
    expect_runs_equal("rsite-mem-dead_border-2d-L64-t32",
                      "{\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": 64},"
                      " \"algorithm\": {\"type\": \"heatbath\", \"layout\": \"random_site\", \"random_site\": \"dead_border\","
                      " \"tile\": 32, \"substeps\": 4},"
                      " \"ensemble\": {\"beta\": 0.45}, \"run\": {\"thermalization\": 4, \"sweeps\": 8, \"seed\": 13}}",
                      "--set algorithm.tile_memory=local --set algorithm.tile_workers=16",
                      "--set algorithm.tile_memory=global");
}

Test(random_site, dead_border_waves_equal_serial_3d)
{
    expect_waves_equal_global("dead_border", 3, 24, 4, "heatbath", 2, 8);
    expect_waves_equal_global("dead_border", 3, 24, 8, "metropolis", 1, 16);
}

Test(random_site, double_tiling_waves_equal_serial_2d)
{
    expect_waves_equal_global("double_tiling", 2, 40, 4, "heatbath", 2, 4);
    expect_waves_equal_global("double_tiling", 2, 40, 8, "metropolis", 1, 32);
}

/* Opt-in: tile 16, between tile 8 and 20, and tile 20 (several chunks a
 * sub-tile, as dead_border tile 10 and 3D tile 8 by default). */
Test(random_site, double_tiling_waves_equal_serial_large_tiles)
{
    TEST_LONG_ONLY();
    expect_waves_equal_global("double_tiling", 2, 32, 16, "heatbath", 4, 8);
    expect_waves_equal_global("double_tiling", 2, 40, 20, "metropolis", 4, 16);
}

Test(random_site, double_tiling_waves_equal_serial_3d)
{
    expect_waves_equal_global("double_tiling", 3, 24, 4, "metropolis", 8, 2);
    expect_waves_equal_global("double_tiling", 3, 24, 8, "heatbath", 2, 16);
}

/* The guard: waves that ignore conflicts (every attempt of a chunk in the
 * first wave, test-only CLMC_FAULT_RSITE_NO_CONFLICTS=1) must differ from
 * the serial chain, or the comparisons above could not fail. */
Test(random_site, waves_ignoring_conflicts_differ)
{
    /* the shape of dead_border_waves_equal_serial_2d's tile 10 (its serial program) */
    const char *json = "{\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": 40},"
                       " \"algorithm\": {\"type\": \"heatbath\", \"layout\": \"random_site\","
                       " \"random_site\": \"dead_border\", \"tile\": 10, \"shift_every\": 2},"
                       " \"ensemble\": {\"type\": \"independent\", \"betas\": [0.35, 0.5], \"copies\": 3},"
                       " \"run\": {\"thermalization\": 0, \"sweeps\": 10, \"seed\": 5}}";
    char *serial = run_preset("rsite-fault-serial", json, "--set algorithm.tile_memory=global");
    setenv("CLMC_FAULT_RSITE_NO_CONFLICTS", "1", 1);
    char *faulty = run_preset("rsite-fault-waves", json, "--set algorithm.tile_memory=local --set algorithm.tile_workers=8");
    unsetenv("CLMC_FAULT_RSITE_NO_CONFLICTS");
    char path[4400];
    snprintf(path, sizeof path, "%s/out", serial);
    cJSON *a = test_load_result(path);
    snprintf(path, sizeof path, "%s/out", faulty);
    cJSON *b = test_load_result(path);
    cr_assert(a && b);
    printf("waves ignoring conflicts: configurations %s (serial) / %s (faulty waves)\n", fnv_of(a), fnv_of(b));
    cr_expect_str_neq(fnv_of(a), fnv_of(b), "waves that ignore conflicts reproduced the serial chain");
    /* the workers used, recorded in the result's preset (global memory: one item a tile) */
    const cJSON *workers_a = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(a, "preset"), "algorithm"),
                                                 "tile_workers");
    const cJSON *workers_b = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(b, "preset"), "algorithm"),
                                                 "tile_workers");
    cr_assert(cJSON_IsNumber(workers_a) && cJSON_IsNumber(workers_b));
    cr_expect_eq(workers_a->valueint, 1);
    cr_expect_eq(workers_b->valueint, 8);
    cJSON_Delete(a);
    cJSON_Delete(b);
    free(serial);
    free(faulty);
}

/* double_tiling in 3D (octants in 8 phases per sweep): the energy at beta
 * 0.2 and 0.3, L = 8 (tile 4), against the checkerboard (naive layout) run,
 * an independent update of the same equilibrium (3D has no exact value). */
static void expect_3d_double_tiling_equilibrium(const char *type)
{
    static const double betas[] = {0.2, 0.3};
    char json[1024], label[64];
    const char *common = "\"ensemble\": {\"type\": \"independent\", \"betas\": [0.2, 0.3], \"copies\": 4},"
                         " \"run\": {\"thermalization\": 200, \"sweeps\": 2000, \"seed\": 31}}";
    snprintf(json, sizeof json,
             "{\"model\": {\"type\": \"ising\", \"dim\": 3, \"L\": 8, \"start\": \"ordered\"},"
             " \"algorithm\": {\"type\": \"%s\", \"layout\": \"random_site\", \"random_site\": \"double_tiling\"}, %s",
             type, common);
    snprintf(label, sizeof label, "rsite-dt3d-%s", type);
    cJSON *tiles = physics_run(json, label);
    snprintf(json, sizeof json,
             "{\"model\": {\"type\": \"ising\", \"dim\": 3, \"L\": 8, \"start\": \"ordered\"},"
             " \"algorithm\": {\"layout\": \"naive\"}, %s", common);
    cJSON *naive = physics_run(json, "rsite-dt3d-naive");
    const cJSON *t_tiles = cJSON_GetObjectItem(cJSON_GetObjectItem(tiles, "observables"), "temperatures");
    const cJSON *t_naive = cJSON_GetObjectItem(cJSON_GetObjectItem(naive, "observables"), "temperatures");
    for (int t = 0; t < 2; t++) {
        const cJSON *a = cJSON_GetObjectItem(cJSON_GetArrayItem(t_tiles, t), "energy");
        const cJSON *b = cJSON_GetObjectItem(cJSON_GetArrayItem(t_naive, t), "energy");
        double mean_a = cJSON_GetObjectItem(a, "mean")->valuedouble, error_a = cJSON_GetObjectItem(a, "error")->valuedouble;
        double mean_b = cJSON_GetObjectItem(b, "mean")->valuedouble, error_b = cJSON_GetObjectItem(b, "error")->valuedouble;
        double z = fabs(mean_a - mean_b) / hypot(error_a, error_b);
        printf("3D double_tiling %s L=8 beta=%g energy %.5f +- %.5f vs naive %.5f +- %.5f (z = %.2f)\n", type,
               betas[t], mean_a, error_a, mean_b, error_b, z);
        cr_expect_lt(z, TOLERANCE_SIGMA);
    }
    cJSON_Delete(tiles);
    cJSON_Delete(naive);
}

Test(random_site, double_tiling_3d_metropolis_matches_checkerboard, .timeout = 900)
{
    expect_3d_double_tiling_equilibrium("metropolis");
}
Test(random_site, double_tiling_3d_heatbath_matches_checkerboard, .timeout = 900)
{
    expect_3d_double_tiling_equilibrium("heatbath");
}

/* Energies of series.csv by step (from `first`) and system (run-wide, from
 * `first_system`): energy[(step - first) * systems + system - first_system]. */
static double *series_energies(const char *text, int first, int steps, int systems, int first_system)
{
    double *energy = calloc((size_t)steps * systems, sizeof *energy);
    const char *line = strchr(text, '\n') + 1;
    int rows = 0;
    while (*line) {
        unsigned long long step;
        int system, t;
        double beta, e, m;
        cr_assert_eq(sscanf(line, "%llu,%d,%d,%lf,%lf,%lf", &step, &system, &t, &beta, &e, &m), 6, "%.60s", line);
        system -= first_system;
        cr_assert(step >= (unsigned long long)first && step < (unsigned long long)(first + steps) && system >= 0 &&
                  system < systems);
        energy[(step - (unsigned long long)first) * systems + system] = e;
        rows++;
        line = strchr(line, '\n') + 1;
    }
    cr_assert_eq(rows, steps * systems);
    return energy;
}

/* Mean energy per time point over copies, and its standard error. */
typedef struct {
    double mean[80], error[80];
} curve;

static curve curve_over_copies(const double *energy, int steps, int copies)
{
    curve c = {{0}, {0}};
    for (int s = 0; s < steps; s++) {
        double sum = 0, sum2 = 0;
        for (int k = 0; k < copies; k++) {
            double e = energy[s * copies + k];
            sum += e;
            sum2 += e * e;
        }
        c.mean[s] = sum / copies;
        c.error[s] = sqrt((sum2 / copies - c.mean[s] * c.mean[s]) / (copies - 1));
    }
    return c;
}

#define QUENCH_L 16
#define QUENCH_SUBSTEPS 4
#define QUENCH_STEPS 40 /* 0.25 .. 10 sweeps */
#define QUENCH_COPIES 256
#define QUENCH_BETA 0.6

/* A quench from a random start at L and beta, `steps` quarter sweeps. */
static char *quench_preset_at(const char *variant, int copies, int L, double beta, int steps)
{
    char *json = malloc(1024);
    snprintf(json, 1024,
             "{\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": %d, \"start\": \"random\"},"
             " \"algorithm\": {\"layout\": \"random_site\", \"random_site\": \"%s\", \"substeps\": %d, \"tile\": %d},"
             " \"ensemble\": {\"type\": \"independent\", \"betas\": [%.9g], \"copies\": %d},"
             " \"run\": {\"thermalization\": 0, \"sweeps\": %d, \"seed\": 1}}",
             L, variant, QUENCH_SUBSTEPS, strcmp(variant, "double_tiling") == 0 ? 8 : 0, beta, copies, steps);
    return json;
}

static char *quench_preset(const char *variant, int copies)
{
    return quench_preset_at(variant, copies, QUENCH_L, QUENCH_BETA, QUENCH_STEPS);
}

static curve device_curve(const char *label, const char *json, const char *overrides, int steps, int copies)
{
    char *dir = run_preset(label, json, overrides), *text = read_out(dir, "series.csv");
    double *energy = series_energies(text, 1, steps, copies, 0);
    curve c = curve_over_copies(energy, steps, copies);
    free(energy);
    free(text);
    free(dir);
    return c;
}

/* Host reference: serial random-site Metropolis from a random start, own
 * generator (splitmix64); energy per site after each quarter sweep. */
static uint64_t splitmix(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static curve host_curve_at(int copies, int L, double beta, int steps)
{
    int N = L * L;
    double *energy = calloc((size_t)steps * copies, sizeof *energy);
    signed char *s = malloc((size_t)N);
    uint64_t state = 0x5eed;
    for (int k = 0; k < copies; k++) {
        for (int i = 0; i < N; i++) s[i] = (splitmix(&state) >> 63) ? 1 : -1;
        for (int step = 0; step < steps; step++) {
            for (int a = 0; a < N / QUENCH_SUBSTEPS; a++) {
                int i = (int)((splitmix(&state) >> 32) * N >> 32), x = i % L, y = i / L;
                int h = s[(x + 1) % L + L * y] + s[(x + L - 1) % L + L * y] + s[x + L * ((y + 1) % L)] +
                        s[x + L * ((y + L - 1) % L)];
                double dE = 2.0 * s[i] * h;
                if (dE <= 0 || (double)(splitmix(&state) >> 11) * 0x1p-53 < exp(-beta * dE)) s[i] = -s[i];
            }
            long bonds = 0;
            for (int i = 0; i < N; i++) bonds += s[i] * (s[(i % L + 1) % L + L * (i / L)] + s[(i + L) % N]);
            energy[step * copies + k] = -(double)bonds / N;
        }
    }
    curve c = curve_over_copies(energy, steps, copies);
    free(s);
    free(energy);
    return c;
}

static curve host_curve(int copies)
{
    return host_curve_at(copies, QUENCH_L, QUENCH_BETA, QUENCH_STEPS);
}

/* Largest |z| between two curves over the first `steps` points (stride `every`
 * in b: a's point s compared with b's point (s + 1) every - 1). */
static double largest_z(const char *what, const curve *a, const curve *b, int steps, int every)
{
    double worst = 0, at = 0;
    for (int s = 0; s < steps; s++) {
        int t = (s + 1) * every - 1;
        double z = fabs(a->mean[s] - b->mean[t]) / sqrt(a->error[s] * a->error[s] + b->error[t] * b->error[t]);
        if (s < 4 || s == steps - 1)
            printf("%s t=%.2f: %.5f +- %.5f vs %.5f +- %.5f (z = %.2f)\n", what, (t + 1.0) / QUENCH_SUBSTEPS,
                   a->mean[s], a->error[s], b->mean[t], b->error[t], z);
        if (z > worst) {
            worst = z;
            at = (t + 1.0) / QUENCH_SUBSTEPS;
        }
    }
    printf("%s: largest |z| %.2f over %d times (at t = %.2f)\n", what, worst, steps, at);
    return worst;
}

/* Copies share one site sequence, so their mean at a fixed time carries the
 * sequence's own fluctuation: its error comes from `runs` runs of
 * QUENCH_COPIES / runs copies with different seeds (as many sequences), the
 * spread of the run means. */
static curve copies_curve_at(int L, double beta, int steps, int runs)
{
    int per_run = QUENCH_COPIES / runs;
    char *json = quench_preset_at("copies", per_run, L, beta, steps);
    double *run_means = calloc((size_t)runs * steps, sizeof *run_means);
    for (int r = 0; r < runs; r++) {
        char overrides[64];
        snprintf(overrides, sizeof overrides, "--set run.seed=%d", 100 + r);
        curve c = device_curve("rsite-quench-copies", json, overrides, steps, per_run);
        for (int s = 0; s < steps; s++) run_means[s * runs + r] = c.mean[s];
    }
    curve c = curve_over_copies(run_means, steps, runs);
    free(run_means);
    free(json);
    return c;
}

static curve copies_curve(void)
{
    return copies_curve_at(QUENCH_L, QUENCH_BETA, QUENCH_STEPS, 8);
}

/* After a quench, against one sequential_reference run (256 copies): `copies`
 * and the host code agree at 0.25 .. 10 sweeps; the guard: the checkerboard
 * (naive layout, one sweep per step) relaxes differently at whole sweeps
 * 1 .. 10; double_tiling (tile 8, sub-tiles 4 x 4) relaxes as the reference
 * at whole sweeps, but not within a sweep: at 0.25 sweeps only one sub-tile
 * per tile has been updated (the documented artefact). */
Test(random_site, quench_relaxation_agrees, .timeout = 900)
{
    char *json = quench_preset("sequential_reference", QUENCH_COPIES);
    curve sequential = device_curve("rsite-quench-seq", json, "", QUENCH_STEPS, QUENCH_COPIES);
    free(json);
    curve copies = copies_curve(), host = host_curve(QUENCH_COPIES);
    cr_expect_lt(largest_z("copies vs sequential_reference", &copies, &sequential, QUENCH_STEPS, 1), 4.5);
    cr_expect_lt(largest_z("host vs sequential_reference", &host, &sequential, QUENCH_STEPS, 1), 4.5);

    char checkerboard_json[1024];
    snprintf(checkerboard_json, sizeof checkerboard_json,
             "{\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": %d, \"start\": \"random\"},"
             " \"algorithm\": {\"layout\": \"naive\"},"
             " \"ensemble\": {\"type\": \"independent\", \"betas\": [%g], \"copies\": %d},"
             " \"run\": {\"thermalization\": 0, \"sweeps\": %d, \"seed\": 1}}",
             QUENCH_L, QUENCH_BETA, QUENCH_COPIES, QUENCH_STEPS / QUENCH_SUBSTEPS);
    curve checkerboard = device_curve("rsite-quench-cb", checkerboard_json, "", QUENCH_STEPS / QUENCH_SUBSTEPS,
                                      QUENCH_COPIES);
    double z = largest_z("checkerboard vs sequential_reference", &checkerboard, &sequential,
                         QUENCH_STEPS / QUENCH_SUBSTEPS, QUENCH_SUBSTEPS);
    cr_expect_gt(z, 6.0, "the comparison must be able to fail: checkerboard dynamics differ");

    json = quench_preset("double_tiling", QUENCH_COPIES);
    curve tiles = device_curve("rsite-quench-dt", json, "--set run.seed=2", QUENCH_STEPS, QUENCH_COPIES);
    free(json);
    curve whole = {{0}, {0}};
    for (int s = 0; s < QUENCH_STEPS / QUENCH_SUBSTEPS; s++) {
        whole.mean[s] = tiles.mean[(s + 1) * QUENCH_SUBSTEPS - 1];
        whole.error[s] = tiles.error[(s + 1) * QUENCH_SUBSTEPS - 1];
    }
    cr_expect_lt(largest_z("double_tiling vs sequential_reference, whole sweeps", &whole, &sequential,
                           QUENCH_STEPS / QUENCH_SUBSTEPS, QUENCH_SUBSTEPS), 4.5);
    cr_expect_gt(largest_z("double_tiling vs sequential_reference, 0.25 sweeps", &tiles, &sequential, 1, 1), 6.0);
}

/* The whole dynamics check (CLMC_LONG_TESTS=1): after a quench at
 * L = 32 and 64, beta 0.3 (above Tc), 0.4406868 (at) and 0.6 (below), at
 * 0.25 .. 20 sweeps, `copies` (16 runs of 16, one site sequence each: the
 * error of their mean from 15 degrees of freedom) and the
 * host's serial code (256 copies) against one sequential_reference run of
 * 256 copies; largest |z| < 4.5 over the 80 times (960 comparisons). */
Test(random_site, quench_relaxation_agrees_long, .timeout = 3600)
{
    if (!test_long_enabled()) cr_skip_test("CLMC_LONG_TESTS=1 runs it");
    static const int edges[] = {32, 64};
    static const double betas[] = {0.3, 0.4406868, 0.6};
    enum { STEPS = 80 }; /* 0.25 .. 20 sweeps */
    for (int e = 0; e < 2; e++)
        for (int b = 0; b < 3; b++) {
            char *json = quench_preset_at("sequential_reference", QUENCH_COPIES, edges[e], betas[b], STEPS);
            curve sequential = device_curve("rsite-quench-seq-long", json, "", STEPS, QUENCH_COPIES);
            free(json);
            curve copies = copies_curve_at(edges[e], betas[b], STEPS, 16);
            curve host = host_curve_at(QUENCH_COPIES, edges[e], betas[b], STEPS);
            char what[96];
            snprintf(what, sizeof what, "L = %d, beta %g: copies vs sequential_reference", edges[e], betas[b]);
            cr_expect_lt(largest_z(what, &copies, &sequential, STEPS, 1), 4.5, "%s", what);
            snprintf(what, sizeof what, "L = %d, beta %g: host vs sequential_reference", edges[e], betas[b]);
            cr_expect_lt(largest_z(what, &host, &sequential, STEPS, 1), 4.5, "%s", what);
        }
}

/* dead_border's documented artefact (frozen tile borders between origin
 * shifts): after a quench at L = 64 the energy lags the reference, by less
 * with larger tiles (tile 32 against 16 at 1 sweep), and with tile 32 by
 * less than 0.06 per site at 1 sweep and 0.015 at 10 (measured 0.038 and
 * 0.007 with 256 copies). */
static curve quench64(const char *variant, int tile, int seed)
{
    char json[1024], overrides[64];
    snprintf(json, sizeof json,
             "{\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": 64, \"start\": \"random\"},"
             " \"algorithm\": {\"layout\": \"random_site\", \"random_site\": \"%s\", \"tile\": %d},"
             " \"ensemble\": {\"type\": \"independent\", \"betas\": [0.6], \"copies\": 128},"
             " \"run\": {\"thermalization\": 0, \"sweeps\": 10}}",
             variant, tile);
    snprintf(overrides, sizeof overrides, "--set run.seed=%d", seed);
    return device_curve("rsite-quench64", json, overrides, 10, 128);
}

Test(random_site, dead_border_artefact_shrinks_with_tile, .timeout = 900)
{
    curve reference = quench64("sequential_reference", 0, 21);
    curve tile16 = quench64("dead_border", 16, 22), tile32 = quench64("dead_border", 32, 23);
    double lag16 = tile16.mean[0] - reference.mean[0], lag32 = tile32.mean[0] - reference.mean[0];
    double lag32_late = tile32.mean[9] - reference.mean[9];
    printf("dead_border lag at 1 sweep: tile 16 %.4f, tile 32 %.4f (+- %.4f); tile 32 at 10 sweeps %.4f (+- %.4f)\n",
           lag16, lag32, hypot(tile32.error[0], reference.error[0]), lag32_late,
           hypot(tile32.error[9], reference.error[9]));
    cr_expect_gt(lag16, lag32 + 4 * hypot(tile16.error[0], tile32.error[0]), "larger tiles, smaller artefact");
    cr_expect_gt(lag32, 4 * hypot(tile32.error[0], reference.error[0]), "the artefact is visible at 1 sweep");
    cr_expect_lt(lag32, 0.06);
    cr_expect_lt(fabs(lag32_late), 0.015);
}

/* System i of a `copies` run equals a one-system run with first_system = i
 * (system 4: copy 2 at beta 0.3; the shape of copies_resume_bit_identical,
 * whose program the six-system run loads). */
Test(random_site, copies_system_reruns_alone)
{
    const char *json = "{\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": 8},"
                       " \"algorithm\": {\"layout\": \"random_site\", \"random_site\": \"copies\", \"substeps\": 2},"
                       " \"ensemble\": {\"type\": \"independent\", \"betas\": [0.3, 0.5], \"copies\": 3},"
                       " \"run\": {\"thermalization\": 5, \"sweeps\": 30, \"seed\": 4}}";
    char *all_dir = run_preset("rsite-alone", json, ""), *all = read_out(all_dir, "series.csv");
    char *one_dir = run_preset("rsite-alone", json,
                               "--set 'ensemble.betas=[0.3]' --set ensemble.copies=1 --set ensemble.first_system=4");
    char *one = read_out(one_dir, "series.csv");
    double *e_all = series_energies(all, 6, 30, 6, 0), *e_one = series_energies(one, 6, 30, 1, 4);
    for (int s = 0; s < 30; s++) cr_expect_eq(e_all[s * 6 + 4], e_one[s], "step %d", s + 6);
    free(e_all);
    free(e_one);
    free(all);
    free(one);
    free(all_dir);
    free(one_dir);
}

#define BASE_MODEL "\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": 8}, \"ensemble\": {\"beta\": 0.4}, "
Test(random_site, bad_input_names_the_key)
{
    expect_input_error("{" BASE_MODEL "\"algorithm\": {\"layout\": \"tiled\", \"random_site\": \"copies\"}}",
                       "rsite-bad-layout", "algorithm.random_site");
    expect_input_error("{" BASE_MODEL "\"algorithm\": {\"layout\": \"naive\", \"type\": \"heatbath\"}}",
                       "rsite-bad-heatbath", "algorithm.type");
    expect_input_error("{" BASE_MODEL "\"algorithm\": {\"layout\": \"random_site\", \"random_site\": \"copies\", \"substeps\": 3}}",
                       "rsite-bad-substeps", "algorithm.substeps");
    expect_input_error("{" BASE_MODEL "\"algorithm\": {\"layout\": \"tiled\", \"substeps\": 4}}",
                       "rsite-substeps-layout", "algorithm.substeps");
    expect_input_error("{" BASE_MODEL "\"algorithm\": {\"layout\": \"random_site\", \"random_site\": \"copies\","
                       " \"site_sequence\": \"per_copy\"}}",
                       "rsite-bad-sequence", "algorithm.site_sequence");
    expect_input_error("{" BASE_MODEL "\"algorithm\": {\"layout\": \"random_site\", \"random_site\": \"dead_edges\"}}",
                       "rsite-unknown-variant", "algorithm.random_site");
    expect_input_error("{" BASE_MODEL "\"algorithm\": {\"layout\": \"random_site\"}}", "rsite-no-variant",
                       "algorithm.random_site");
    expect_input_error("{" BASE_MODEL "\"algorithm\": {\"layout\": \"random_site\", \"random_site\": \"double_tiling\","
                       " \"tile\": 2}}", "rsite-dt-tile", "algorithm.tile: 2 must be a multiple of 4");
    expect_input_error("{\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": 6}, \"ensemble\": {\"beta\": 0.4},"
                       " \"algorithm\": {\"layout\": \"random_site\", \"random_site\": \"double_tiling\"}}",
                       "rsite-dt-no-tile", "algorithm.tile: none of 16, 8, 4 fits");
    expect_input_error("{" BASE_MODEL "\"algorithm\": {\"layout\": \"random_site\", \"random_site\": \"double_tiling\","
                       " \"substeps\": 8}}", "rsite-dt-substeps", "algorithm.substeps");
    expect_input_error("{\"model\": {\"type\": \"ising\", \"dim\": 3, \"L\": 8}, \"ensemble\": {\"beta\": 0.2},"
                       " \"algorithm\": {\"layout\": \"random_site\", \"random_site\": \"double_tiling\", \"substeps\": 16}}",
                       "rsite-dt-3d-substeps", "algorithm.substeps: double_tiling in 3D takes a divisor of its 8");
    expect_input_error("{" BASE_MODEL "\"algorithm\": {\"layout\": \"random_site\", \"random_site\": \"copies\","
                       " \"tile_memory\": \"local\"}}", "rsite-memory-copies", "algorithm.tile_memory");
    expect_input_error("{" BASE_MODEL "\"algorithm\": {\"layout\": \"tiled\", \"tile_memory\": \"global\"}}",
                       "rsite-memory-tiled", "algorithm.tile_memory");
    expect_input_error("{" BASE_MODEL "\"algorithm\": {\"layout\": \"random_site\", \"random_site\": \"dead_border\","
                       " \"tile_memory\": \"shared\"}}", "rsite-memory-value", "algorithm.tile_memory");
    expect_input_error("{" BASE_MODEL "\"algorithm\": {\"layout\": \"random_site\", \"random_site\": \"copies\","
                       " \"tile\": 4}}", "rsite-tile-copies", "algorithm.tile");
    expect_input_error("{" BASE_MODEL "\"algorithm\": {\"layout\": \"random_site\", \"random_site\": \"dead_border\","
                       " \"tile\": 2}}", "rsite-db-tile", "algorithm.tile: 2 is too small for a dead border");
    expect_input_error("{" BASE_MODEL "\"algorithm\": {\"layout\": \"random_site\", \"random_site\": \"dead_border\","
                       " \"shift_every\": 0}}", "rsite-db-shift", "algorithm.shift_every");
    expect_input_error("{" BASE_MODEL "\"algorithm\": {\"layout\": \"random_site\", \"random_site\": \"copies\","
                       " \"shift_every\": 2}}", "rsite-shift-copies", "algorithm.shift_every");
    expect_input_error("{" BASE_MODEL "\"algorithm\": {\"layout\": \"random_site\", \"random_site\":"
                       " \"sequential_reference\", \"copies_memory\": \"local\"}}", "rsite-memory-seq",
                       "algorithm.copies_memory: is for random_site \"copies\" only");
    expect_input_error("{" BASE_MODEL "\"algorithm\": {\"layout\": \"tiled\", \"copies_memory\": \"global\"}}",
                       "rsite-memory-tiled", "algorithm.copies_memory: is for random_site \"copies\" only");
    expect_input_error("{" BASE_MODEL "\"algorithm\": {\"layout\": \"random_site\", \"random_site\": \"dead_border\","
                       " \"tile_workers\": 6}}", "rsite-workers-value", "algorithm.tile_workers: 6 is not");
    expect_input_error("{" BASE_MODEL "\"algorithm\": {\"layout\": \"random_site\", \"random_site\": \"dead_border\","
                       " \"tile_workers\": 64}}", "rsite-workers-range", "algorithm.tile_workers");
    expect_input_error("{" BASE_MODEL "\"algorithm\": {\"layout\": \"random_site\", \"random_site\": \"double_tiling\","
                       " \"tile_memory\": \"global\", \"tile_workers\": 4}}", "rsite-workers-global",
                       "algorithm.tile_workers: 4 workers per tile run in local memory");
    expect_input_error("{" BASE_MODEL "\"algorithm\": {\"layout\": \"random_site\", \"random_site\": \"copies\","
                       " \"tile_workers\": 4}}", "rsite-workers-copies", "algorithm.tile_workers: is for random_site");
    expect_input_error("{" BASE_MODEL "\"algorithm\": {\"layout\": \"tiled\", \"tile_workers\": 1}}",
                       "rsite-workers-tiled", "algorithm.tile_workers: is for random_site");
    expect_input_error("{" BASE_MODEL "\"algorithm\": {\"layout\": \"random_site\", \"random_site\": \"dead_border\","
                       " \"tile_memory\": \"private\", \"tile_workers\": 2}}", "rsite-workers-private",
                       "algorithm.tile_workers: 2 workers per tile run in local memory; algorithm.tile_memory \"private\"");
    expect_input_error("{" BASE_MODEL "\"algorithm\": {\"layout\": \"random_site\", \"random_site\": \"copies\","
                       " \"tile_memory\": \"private\"}}", "rsite-private-copies", "algorithm.tile_memory: is for random_site");
}

/* copies_memory "local" where the packed lattice (4096^2 words, 64 MiB)
 * fits no device's local memory: exit 2 naming the key and the bytes. */
Test(random_site, copies_local_refused_when_too_large)
{
    char *dir = test_scratch_dir("rsite-memory-local"), path[4200];
    cr_assert_not_null(dir);
    snprintf(path, sizeof path, "%s/preset.json", dir);
    test_write_file(path, "{\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": 4096}, \"ensemble\": {\"beta\": 0.4},"
                          " \"algorithm\": {\"layout\": \"random_site\", \"random_site\": \"copies\","
                          " \"copies_memory\": \"local\"}, \"run\": {\"sweeps\": 1}}");
    char *output = NULL;
    int rc = test_run_clmc(&output, "run '%s' --quiet --out '%s/out'", path, dir);
    printf("copies_memory local at L = 4096: exit %d: %s", rc, output ? output : "(no output)\n");
    cr_expect_eq(rc, 2);
    cr_expect(output && strstr(output, "algorithm.copies_memory: \"local\" needs 67109376 bytes"), "%s", output);
    free(output);
    free(dir);
}

/* tile_memory "private" where a tile's box does not fit its words (rows of
 * 64 bits: 2D dead_border tile 64; 72 words: 3D dead_border tile 12): exit 2
 * naming the key (checked on the device, after parsing). */
static void expect_private_refused(const char *label, const char *json, const char *needle)
{
    char *dir = test_scratch_dir(label), path[4200];
    cr_assert_not_null(dir);
    snprintf(path, sizeof path, "%s/preset.json", dir);
    test_write_file(path, json);
    char *output = NULL;
    int rc = test_run_clmc(&output, "run '%s' --quiet --out '%s/out'", path, dir);
    printf("%s: exit %d: %s", label, rc, output ? output : "(no output)\n");
    cr_expect_eq(rc, 2);
    cr_expect(output && strstr(output, needle), "%s", output);
    free(output);
    free(dir);
}

Test(random_site, private_refused_when_too_large)
{
    expect_private_refused("rsite-private-rows",
                           "{\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": 128}, \"ensemble\": {\"beta\": 0.4},"
                           " \"algorithm\": {\"layout\": \"random_site\", \"random_site\": \"dead_border\", \"tile\": 64,"
                           " \"tile_memory\": \"private\"}, \"run\": {\"sweeps\": 1}}",
                           "algorithm.tile_memory: \"private\" holds a tile's box (algorithm.tile 64, 2D dead_border) as "
                           "rows of at most 32 bits in at most 36 uints; it takes rows of more than 32 bits");
    expect_private_refused("rsite-private-words",
                           "{\"model\": {\"type\": \"ising\", \"dim\": 3, \"L\": 24}, \"ensemble\": {\"beta\": 0.2},"
                           " \"algorithm\": {\"layout\": \"random_site\", \"random_site\": \"dead_border\", \"tile\": 12,"
                           " \"tile_memory\": \"private\"}, \"run\": {\"sweeps\": 1}}",
                           "algorithm.tile_memory: \"private\" holds a tile's box (algorithm.tile 12, 3D dead_border) as "
                           "rows of at most 32 bits in at most 36 uints; it takes more");
}

/* Checkpoints: a run resumed from its last checkpoint (step 260 of 300)
 * ends with the same series and configurations, for both variants (copies
 * store the spins copy after copy and take them back site-major or packed). */
static void expect_resume_bit_identical(const char *label, const char *variant, const char *memory)
{
    char json[1024];
    snprintf(json, sizeof json,
             "{\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": 8},"
             " \"algorithm\": {\"layout\": \"random_site\", \"random_site\": \"%s\", \"substeps\": 2,"
             " \"copies_memory\": \"%s\"},"
             " \"ensemble\": {\"type\": \"independent\", \"betas\": [0.3, 0.5], \"copies\": 3},"
             " \"run\": {\"thermalization\": 100, \"sweeps\": 200, \"seed\": 3, \"checkpoint_every\": 130}}",
             variant, memory);
    rerun_expect_resume_identical(label, json);
}

Test(random_site, copies_resume_bit_identical)
{
    expect_resume_bit_identical("rsite-resume-copies", "copies", "global");
}
/* Packed copies in local memory: the shape of
 * copies_local_equal_sequential_reference_2d_metropolis (42 copies: two
 * packed blocks, the second partial), whose program the runs load. */
Test(random_site, copies_local_resume_bit_identical)
{
    rerun_expect_resume_identical("rsite-resume-copies-local",
        "{\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": 12},"
        " \"algorithm\": {\"layout\": \"random_site\", \"random_site\": \"copies\", \"substeps\": 4,"
        " \"copies_memory\": \"local\"},"
        " \"ensemble\": {\"type\": \"independent\", \"betas\": [0.3, 0.44, 0.6], \"copies\": 14},"
        " \"run\": {\"thermalization\": 100, \"sweeps\": 200, \"seed\": 3, \"checkpoint_every\": 130}}");
}
Test(random_site, sequential_resume_bit_identical)
{
    expect_resume_bit_identical("rsite-resume-seq", "sequential_reference", "auto");
}

/* ---- Potts (cl/potts/random_site.cl) --------------------------------------- */

/* The reference itself: q = 2 is the Ising model at beta / 2, e = -1 + e_Ising / 2. */
Test(random_site, potts_exact_reference_is_ising_for_q2)
{
    for (double beta = 0.6; beta < 1.3; beta += 0.3) {
        double potts_e, potts_c, ising_e, ising_c;
        potts2d_exact(4, 2, beta, &potts_e, &potts_c);
        ising2d_exact(4, beta / 2, &ising_e, &ising_c);
        printf("potts q=2 L=4 beta=%.1f: e %.12f vs %.12f, C %.12f vs %.12f\n", beta, potts_e, -1 + ising_e / 2,
               potts_c, ising_c);
        cr_expect_float_eq(potts_e, -1 + ising_e / 2, 1e-12);
        /* H_Potts = -N + H_Ising / 2 and beta_Ising = beta / 2: beta^2 var(H_Potts) = beta_Ising^2 var(H_Ising). */
        cr_expect_float_eq(potts_c, ising_c, 1e-12);
    }
}

/* q = 3, L = 4, 3 temperatures x 4 copies from an ordered start against the
 * exact energy and specific heat (10000 sweeps; was 20000, the CI budget). */
static void expect_potts_exact(const char *variant, const char *type)
{
    static const double betas[] = {0.7, 1.0050525, 1.4};
    char json[1024], label[64];
    snprintf(json, sizeof json,
             "{\"model\": {\"type\": \"potts\", \"dim\": 2, \"L\": 4, \"q\": 3, \"start\": \"ordered\"},"
             " \"algorithm\": {\"type\": \"%s\", \"layout\": \"random_site\", \"random_site\": \"%s\"},"
             " \"ensemble\": {\"type\": \"independent\", \"betas\": [0.7, 1.0050525, 1.4], \"copies\": 4},"
             " \"run\": {\"thermalization\": 500, \"sweeps\": 10000, \"seed\": 19}}",
             type, variant);
    snprintf(label, sizeof label, "rsite-potts-eq-%s-%s", variant, type);
    char what[96];
    snprintf(what, sizeof what, "potts q=3 %s %s L=4", variant, type);
    expect_temperatures_exact(json, label, betas, 3, potts2d_exact_q3_L4, what);
}

Test(random_site, potts_sequential_metropolis_matches_exact, .timeout = 900)
{
    expect_potts_exact("sequential_reference", "metropolis");
}
Test(random_site, potts_sequential_heatbath_matches_exact, .timeout = 900)
{
    expect_potts_exact("sequential_reference", "heatbath");
}
Test(random_site, potts_copies_metropolis_matches_exact, .timeout = 900) { expect_potts_exact("copies", "metropolis"); }
Test(random_site, potts_copies_heatbath_matches_exact, .timeout = 900) { expect_potts_exact("copies", "heatbath"); }

/* Many states (q = 8, L = 6; beta_c = ln(1 + sqrt 8) = 1.343, disordered at
 * 0.9, ordered at 1.7): the heat bath's walk skips runs of states without an
 * equal neighbour, and Metropolis proposes among 7 others; both against
 * Swendsen-Wang on the same preset (4 copies per beta) within 4 combined
 * standard errors. */
static const double q8_betas[] = {0.9, 1.7};

static void potts_q8_energies(const char *algorithm, double *mean, double *error)
{
    char json[1024];
    snprintf(json, sizeof json,
             "{\"model\": {\"type\": \"potts\", \"dim\": 2, \"L\": 6, \"q\": 8, \"start\": \"ordered\"},"
             " \"algorithm\": %s,"
             " \"ensemble\": {\"type\": \"independent\", \"betas\": [%g, %g], \"copies\": 4},"
             " \"run\": {\"thermalization\": 500, \"sweeps\": 8000, \"seed\": 23}}",
             algorithm, q8_betas[0], q8_betas[1]);
    cJSON *result = physics_run(json, "rsite-potts-q8");
    const cJSON *temperatures = cJSON_GetObjectItem(cJSON_GetObjectItem(result, "observables"), "temperatures");
    for (int t = 0; t < 2; t++) {
        const cJSON *energy = cJSON_GetObjectItem(cJSON_GetArrayItem(temperatures, t), "energy");
        mean[t] = cJSON_GetObjectItem(energy, "mean")->valuedouble;
        error[t] = cJSON_GetObjectItem(energy, "error")->valuedouble;
    }
    cJSON_Delete(result);
}

/* Heat bath and Metropolis against one Swendsen-Wang run (the same preset). */
Test(random_site, potts_q8_matches_swendsen_wang, .timeout = 900)
{
    double e_sw[2], err_sw[2];
    potts_q8_energies("{\"type\": \"swendsen_wang\"}", e_sw, err_sw);
    const char *types[] = {"heatbath", "metropolis"};
    for (int k = 0; k < 2; k++) {
        char algorithm[256], what[128];
        snprintf(algorithm, sizeof algorithm,
                 "{\"type\": \"%s\", \"layout\": \"random_site\", \"random_site\": \"sequential_reference\"}",
                 types[k]);
        double e_rs[2], err_rs[2];
        potts_q8_energies(algorithm, e_rs, err_rs);
        for (int t = 0; t < 2; t++) {
            snprintf(what, sizeof what, "potts q=8 L=6 beta=%g random-site %s energy vs Swendsen-Wang", q8_betas[t],
                     types[k]);
            double z = physics_compare(what, e_rs[t], hypot(err_rs[t], err_sw[t]), e_sw[t]);
            cr_expect_lt(z, TOLERANCE_SIGMA);
        }
    }
}

Test(random_site, potts_copies_equal_sequential_reference_2d_metropolis)
{
    expect_copies_equal_sequential("rsite-potts-bits-2d",
        "{\"model\": {\"type\": \"potts\", \"dim\": 2, \"L\": 6, \"q\": 5},"
        " \"algorithm\": {\"type\": \"metropolis\", \"layout\": \"random_site\", \"substeps\": 4},"
        " \"ensemble\": {\"type\": \"independent\", \"betas\": [0.8, 1.2, 1.6], \"copies\": 5},"
        " \"run\": {\"thermalization\": 8, \"sweeps\": 40, \"seed\": 3}}", "global");
}

Test(random_site, potts_copies_equal_sequential_reference_3d_heatbath)
{
    expect_copies_equal_sequential("rsite-potts-bits-3d",
        "{\"model\": {\"type\": \"potts\", \"dim\": 3, \"L\": 4, \"q\": 7},"
        " \"algorithm\": {\"type\": \"heatbath\", \"layout\": \"random_site\"},"
        " \"ensemble\": {\"type\": \"independent\", \"betas\": [0.5, 0.9], \"copies\": 3, \"first_system\": 7},"
        " \"run\": {\"thermalization\": 5, \"sweeps\": 30, \"seed\": 9}}", "global");
}

/* System i of a Potts `copies` run equals a one-system run with first_system
 * = i (system 4: copy 2 at beta 0.8; the shape of
 * potts_copies_resume_bit_identical, whose programs the six-system run loads;
 * the heat bath's first_system: the 3D bit-identity above). */
Test(random_site, potts_copies_system_reruns_alone)
{
    const char *json = "{\"model\": {\"type\": \"potts\", \"dim\": 2, \"L\": 6, \"q\": 3},"
                       " \"algorithm\": {\"type\": \"metropolis\", \"layout\": \"random_site\", \"random_site\": \"copies\","
                       " \"substeps\": 2},"
                       " \"ensemble\": {\"type\": \"independent\", \"betas\": [0.8, 1.2], \"copies\": 3},"
                       " \"run\": {\"thermalization\": 5, \"sweeps\": 30, \"seed\": 4}}";
    char *all_dir = run_preset("rsite-potts-alone", json, ""), *all = read_out(all_dir, "series.csv");
    char *one_dir = run_preset("rsite-potts-alone", json,
                               "--set 'ensemble.betas=[0.8]' --set ensemble.copies=1 --set ensemble.first_system=4");
    char *one = read_out(one_dir, "series.csv");
    double *e_all = series_energies(all, 6, 30, 6, 0), *e_one = series_energies(one, 6, 30, 1, 4);
    int equal = 0;
    for (int s = 0; s < 30; s++) equal += e_all[s * 6 + 4] == e_one[s];
    printf("potts copies: system 4 equal to its one-system run at %d of 30 steps\n", equal);
    cr_expect_eq(equal, 30);
    free(e_all);
    free(e_one);
    free(all);
    free(one);
    free(all_dir);
    free(one_dir);
}

Test(random_site, potts_copies_resume_bit_identical)
{
    rerun_expect_resume_identical("rsite-potts-resume",
        "{\"model\": {\"type\": \"potts\", \"dim\": 2, \"L\": 6, \"q\": 3},"
        " \"algorithm\": {\"type\": \"metropolis\", \"layout\": \"random_site\", \"random_site\": \"copies\", \"substeps\": 2},"
        " \"ensemble\": {\"type\": \"independent\", \"betas\": [0.8, 1.2], \"copies\": 3},"
        " \"run\": {\"thermalization\": 100, \"sweeps\": 200, \"seed\": 3, \"checkpoint_every\": 130}}");
}

/* Quench of the q = 3 model from a random start to beta = 1.4 (beta_c =
 * ln(1 + sqrt 3) = 1.005), L = 16, a quarter-sweep resolution to 10 sweeps. */
#define POTTS_Q 3
#define POTTS_BETA 1.4

static char *potts_quench_preset(const char *type, const char *layout, int copies, int steps)
{
    char *json = malloc(1024);
    snprintf(json, 1024,
             "{\"model\": {\"type\": \"potts\", \"dim\": 2, \"L\": %d, \"q\": %d, \"start\": \"random\"},"
             " \"algorithm\": {\"type\": \"%s\", \"layout\": \"%s\"%s},"
             " \"ensemble\": {\"type\": \"independent\", \"betas\": [%g], \"copies\": %d},"
             " \"run\": {\"thermalization\": 0, \"sweeps\": %d, \"seed\": 1}}",
             QUENCH_L, POTTS_Q, type, layout,
             strcmp(layout, "random_site") == 0 ? ", \"random_site\": \"copies\", \"substeps\": 4" : "", POTTS_BETA,
             copies, steps);
    return json;
}

/* Copies share one site sequence: the error of their mean comes from 8 runs
 * of 32 copies with different seeds (as copies_curve). */
static curve potts_copies_curve(const char *type)
{
    enum { RUNS = 8, PER_RUN = 32 };
    char *json = potts_quench_preset(type, "random_site", PER_RUN, QUENCH_STEPS);
    double *run_means = calloc((size_t)RUNS * QUENCH_STEPS, sizeof *run_means);
    for (int r = 0; r < RUNS; r++) {
        char overrides[64];
        snprintf(overrides, sizeof overrides, "--set run.seed=%d", 200 + r);
        curve c = device_curve("rsite-potts-quench", json, overrides, QUENCH_STEPS, PER_RUN);
        for (int s = 0; s < QUENCH_STEPS; s++) run_means[s * RUNS + r] = c.mean[s];
    }
    curve c = curve_over_copies(run_means, QUENCH_STEPS, RUNS);
    free(run_means);
    free(json);
    return c;
}

/* Host reference: serial random-site Potts dynamics (Metropolis with a
 * uniform proposal among the q - 1 other states, or heat bath from the
 * conditional distribution), own generator (splitmix64), doubles. */
static curve potts_host_curve(bool heatbath, int copies)
{
    enum { L = QUENCH_L, N = L * L };
    double *energy = calloc((size_t)QUENCH_STEPS * copies, sizeof *energy);
    uint64_t state = heatbath ? 0xb0a7 : 0x3e7a;
    for (int k = 0; k < copies; k++) {
        int s[N];
        for (int i = 0; i < N; i++) s[i] = (int)((splitmix(&state) >> 32) * POTTS_Q >> 32);
        for (int step = 0; step < QUENCH_STEPS; step++) {
            for (int a = 0; a < N / QUENCH_SUBSTEPS; a++) {
                int i = (int)((splitmix(&state) >> 32) * N >> 32), x = i % L, y = i / L;
                int nb[4] = {s[(x + 1) % L + L * y], s[(x + L - 1) % L + L * y], s[x + L * ((y + 1) % L)],
                             s[x + L * ((y + L - 1) % L)]};
                int equal[POTTS_Q] = {0};
                for (int n = 0; n < 4; n++) equal[nb[n]]++;
                double u = (double)(splitmix(&state) >> 11) * 0x1p-53;
                if (heatbath) {
                    double weight[POTTS_Q], total = 0;
                    for (int q = 0; q < POTTS_Q; q++) total += weight[q] = exp(POTTS_BETA * equal[q]);
                    int q = 0;
                    for (double below = weight[0]; u * total >= below && q < POTTS_Q - 1;) below += weight[++q];
                    s[i] = q;
                } else {
                    int next = (s[i] + 1 + (int)((splitmix(&state) >> 32) * (POTTS_Q - 1) >> 32)) % POTTS_Q;
                    int dE = equal[s[i]] - equal[next];
                    if (dE <= 0 || u < exp(-POTTS_BETA * dE)) s[i] = next;
                }
            }
            long bonds = 0;
            for (int i = 0; i < N; i++) bonds += (s[i] == s[(i % L + 1) % L + L * (i / L)]) + (s[i] == s[(i + L) % N]);
            energy[step * copies + k] = -(double)bonds / N;
        }
    }
    curve c = curve_over_copies(energy, QUENCH_STEPS, copies);
    free(energy);
    return c;
}

static void expect_potts_quench(const char *type)
{
    bool heatbath = strcmp(type, "heatbath") == 0;
    curve copies = potts_copies_curve(type), host = potts_host_curve(heatbath, QUENCH_COPIES);
    char what[96];
    snprintf(what, sizeof what, "potts %s copies vs host", type);
    cr_expect_lt(largest_z(what, &copies, &host, QUENCH_STEPS, 1), 4.5);
}

Test(random_site, potts_quench_metropolis_agrees, .timeout = 900) { expect_potts_quench("metropolis"); }
Test(random_site, potts_quench_heatbath_agrees, .timeout = 900) { expect_potts_quench("heatbath"); }

/* The guard: the checkerboard Metropolis update relaxes differently at whole
 * sweeps 1 .. 10. */
Test(random_site, potts_checkerboard_relaxation_differs, .timeout = 900)
{
    char *json = potts_quench_preset("metropolis", "checkerboard", QUENCH_COPIES, QUENCH_STEPS / QUENCH_SUBSTEPS);
    curve checkerboard = device_curve("rsite-potts-quench-cb", json, "", QUENCH_STEPS / QUENCH_SUBSTEPS, QUENCH_COPIES);
    curve host = potts_host_curve(false, QUENCH_COPIES);
    double z = largest_z("potts checkerboard vs host random-site", &checkerboard, &host,
                         QUENCH_STEPS / QUENCH_SUBSTEPS, QUENCH_SUBSTEPS);
    cr_expect_gt(z, 6.0, "the comparison must be able to fail: checkerboard dynamics differ");
    free(json);
}

#define POTTS_BASE "\"model\": {\"type\": \"potts\", \"dim\": 2, \"L\": 8, \"q\": 3}, \"ensemble\": {\"beta\": 1.0}, "
Test(random_site, potts_bad_input_names_the_key)
{
    expect_input_error("{" POTTS_BASE "\"algorithm\": {\"layout\": \"random_site\", \"random_site\": \"copies\"}}",
                       "rsite-potts-sw", "algorithm.layout");
    expect_input_error("{" POTTS_BASE "\"algorithm\": {\"type\": \"heatbath\"}}", "rsite-potts-hb-cb", "algorithm.type");
    expect_input_error("{" POTTS_BASE "\"algorithm\": {\"type\": \"metropolis\", \"random_site\": \"copies\"}}",
                       "rsite-potts-no-layout", "algorithm.random_site");
    expect_input_error("{" POTTS_BASE "\"algorithm\": {\"type\": \"metropolis\", \"layout\": \"random_site\"}}",
                       "rsite-potts-no-variant", "algorithm.random_site");
    expect_input_error("{" POTTS_BASE "\"algorithm\": {\"type\": \"metropolis\", \"layout\": \"random_site\","
                       " \"random_site\": \"double_tiling\"}}", "rsite-potts-dt", "algorithm.random_site");
    expect_input_error("{" POTTS_BASE "\"algorithm\": {\"type\": \"metropolis\", \"layout\": \"random_site\","
                       " \"random_site\": \"dead_border\"}}", "rsite-potts-db", "algorithm.random_site");
    expect_input_error("{" POTTS_BASE "\"algorithm\": {\"type\": \"metropolis\", \"layout\": \"random_site\","
                       " \"random_site\": \"copies\", \"substeps\": 3}}", "rsite-potts-substeps", "algorithm.substeps");
    expect_input_error("{" POTTS_BASE "\"algorithm\": {\"type\": \"metropolis\", \"substeps\": 2}}",
                       "rsite-potts-substeps-cb", "algorithm.substeps");
    expect_input_error("{" POTTS_BASE "\"algorithm\": {\"type\": \"metropolis\", \"layout\": \"random_site\","
                       " \"random_site\": \"copies\", \"site_sequence\": \"per_copy\"}}",
                       "rsite-potts-sequence", "algorithm.site_sequence");
    expect_input_error("{" POTTS_BASE "\"algorithm\": {\"type\": \"metropolis\", \"layout\": \"random_site\","
                       " \"random_site\": \"sequential_reference\", \"tile\": 4}}", "rsite-potts-tile", "algorithm.tile");
    /* Packed copies hold one bit per spin: no q states; tiles in local memory: no Potts tiled variants. */
    expect_input_error("{" POTTS_BASE "\"algorithm\": {\"type\": \"metropolis\", \"layout\": \"random_site\","
                       " \"random_site\": \"copies\", \"copies_memory\": \"local\"}}", "rsite-potts-packed",
                       "algorithm.copies_memory");
    expect_input_error("{" POTTS_BASE "\"algorithm\": {\"type\": \"metropolis\", \"layout\": \"random_site\","
                       " \"random_site\": \"sequential_reference\", \"copies_memory\": \"global\"}}",
                       "rsite-potts-memory-seq", "algorithm.copies_memory");
    expect_input_error("{" POTTS_BASE "\"algorithm\": {\"type\": \"metropolis\", \"layout\": \"random_site\","
                       " \"random_site\": \"copies\", \"tile_memory\": \"local\"}}", "rsite-potts-tile-memory",
                       "algorithm.tile_memory");
    expect_input_error("{" POTTS_BASE "\"algorithm\": {\"type\": \"metropolis\", \"copies_memory\": \"global\"}}",
                       "rsite-potts-memory-cb", "algorithm.copies_memory");
    expect_input_error("{\"model\": {\"type\": \"potts\", \"dim\": 2, \"L\": 8, \"q\": 3},"
                       " \"algorithm\": {\"type\": \"metropolis\", \"layout\": \"random_site\", \"random_site\": \"copies\"},"
                       " \"ensemble\": {\"type\": \"population_annealing\", \"population\": 8, \"steps\": 2,"
                       " \"beta_end\": 1.0}}", "rsite-potts-pa", "algorithm.random_site");
}
