/* ensemble.type "independent": Ising systems at several temperatures in one
 * run agree with the exact 2D values; system i of a run equals a one-system
 * run with ensemble.first_system = i bit for bit (Ising, Potts, the O(n)
 * ferromagnets, percolation, hard disks; EA naive and msc and the Heisenberg
 * glass per realization); hard-disk copies pool to the equation of state;
 * a resumed run equals the
 * uninterrupted one; bad input and unsupported models exit 2 naming the key. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "disk_reference.h"
#include "engine/limits.h"
#include "models/lattice.h"
#include "ising_exact.h"
#include "physics.h"
#include "rerun.h"
#include "testenv.h"

#define TOLERANCE_SIGMA 4.0

/* 3 temperatures x 4 copies at L = 16 from an ordered start (no stripe
 * states at beta = 0.6): 80000 measured sweeps per temperature in all. */
Test(independent, ising_each_temperature_matches_exact, .timeout = 900)
{
    static const double betas[] = {0.3, 0.4406868, 0.6};
    cJSON *result = physics_run("{\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": 16, \"start\": \"ordered\"},"
                                " \"algorithm\": {\"layout\": \"tiled\"},"
                                " \"ensemble\": {\"type\": \"independent\", \"betas\": [0.3, 0.4406868, 0.6],"
                                " \"copies\": 4}, \"run\": {\"thermalization\": 1000, \"sweeps\": 20000, \"seed\": 13}}",
                                "independent");
    const cJSON *observables = cJSON_GetObjectItem(result, "observables");
    const cJSON *temperatures = cJSON_GetObjectItem(observables, "temperatures");
    cr_assert_eq(cJSON_GetArraySize(temperatures), 3, "one estimate per temperature");
    cr_expect_null(cJSON_GetObjectItem(observables, "tempering"), "no exchange report without exchanges");
    for (int t = 0; t < 3; t++) {
        const cJSON *entry = cJSON_GetArrayItem(temperatures, t);
        cr_expect_float_eq(cJSON_GetObjectItem(entry, "beta")->valuedouble, betas[t], 1e-12);
        double exact_energy, exact_heat;
        ising2d_exact(16, betas[t], &exact_energy, &exact_heat);
        const cJSON *energy = cJSON_GetObjectItem(entry, "energy"), *heat = cJSON_GetObjectItem(entry, "specific_heat");
        char what[96];
        snprintf(what, sizeof what, "independent x4 L=16 beta=%.7g energy", betas[t]);
        double z_e = physics_compare(what, cJSON_GetObjectItem(energy, "mean")->valuedouble,
                                     cJSON_GetObjectItem(energy, "error")->valuedouble, exact_energy);
        snprintf(what, sizeof what, "independent x4 L=16 beta=%.7g C", betas[t]);
        double z_c = physics_compare(what, cJSON_GetObjectItem(heat, "mean")->valuedouble,
                                     cJSON_GetObjectItem(heat, "error")->valuedouble, exact_heat);
        cr_expect_lt(z_e, TOLERANCE_SIGMA);
        cr_expect_lt(z_c, TOLERANCE_SIGMA);
    }
    cJSON_Delete(result);
}

/* System (or realization) i of the series `all` of the run DIR/all equals
 * the run DIR/one<i> with the overrides `alone` and ensemble.first_system = i:
 * `rows` rows each, `skip` columns after the sweep dropped (see
 * rerun_rows_of_system); `what` names the unit in the messages. */
static void expect_rerun_alone(const char *label, const char *dir, const char *preset, const char *all, int i,
                               const char *alone, int skip, int rows, const char *what)
{
    int n_many = 0, n_one = 0;
    char name[32], overrides[512];
    snprintf(name, sizeof name, "one%d", i);
    snprintf(overrides, sizeof overrides, "%s --set ensemble.first_system=%d", alone, i);
    char *one = rerun_file(dir, preset, name, overrides, "series.csv");
    char *a = rerun_rows_of_system(all, i, skip, &n_many), *b = rerun_rows_of_system(one, i, skip, &n_one);
    printf("%s: %s %d (%s): %d rows in the full run, %d alone, %s\n", label, what, i, alone, n_many, n_one,
           strcmp(a, b) == 0 ? "identical" : "DIFFERENT");
    cr_expect_eq(n_many, rows);
    cr_expect_eq(n_one, rows);
    cr_expect_str_eq(a, b, "%s: %s %d differs from its run alone", label, what, i);
    free(a);
    free(b);
    free(one);
}

/* 3 betas x 2 copies: systems 0 .. 5, system i = copy * 3 + temperature. */
static void expect_systems_rerun_alone(const char *label, const char *layout, int L)
{
    static const double betas[] = {0.3, 0.44, 0.6};
    char *dir = test_scratch_dir(label), preset[4200];
    snprintf(preset, sizeof preset, "%s/preset.json", dir);
    char json[1024];
    snprintf(json, sizeof json,
             "{\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": %d}, \"algorithm\": {\"layout\": \"%s\"},"
             " \"ensemble\": {\"type\": \"independent\", \"betas\": [0.3, 0.44, 0.6], \"copies\": 2},"
             " \"run\": {\"thermalization\": 20, \"sweeps\": 100, \"seed\": 5}}",
             L, layout);
    test_write_file(preset, json);
    char *all = rerun_file(dir, preset, "all", "", "series.csv");
    cr_expect(strncmp(all, "sweep,system,temperature,beta,energy,magnetization\n", 51) == 0, "header: %.60s", all);
    /* System 4 (CLMC_LONG_TESTS=1) repeats system 5's path at another beta. */
    const int systems[] = {0, 5, 4};
    for (int k = 0; k < (test_long_enabled() ? 3 : 2); k++) {
        char alone[128];
        snprintf(alone, sizeof alone, "--set 'ensemble.betas=[%g]' --set ensemble.copies=1", betas[systems[k] % 3]);
        expect_rerun_alone(layout, dir, preset, all, systems[k], alone, 3, 100, "system");
    }
    free(all);
    free(dir);
}

Test(independent, ising_tiled_system_reruns_alone) { expect_systems_rerun_alone("ind-tiled", "tiled", 8); }
Test(independent, ising_msc_system_reruns_alone) { expect_systems_rerun_alone("ind-msc", "msc", 64); }
Test(independent, ising_naive_system_reruns_alone)
{
    TEST_LONG_ONLY();
    expect_systems_rerun_alone("ind-naive", "naive", 8);
}

/* Potts and the O(n) ferromagnets, 3 betas x 2 copies (systems 0 .. 5,
 * system i = copy * 3 + temperature): systems 1 and 5 each equal a
 * one-system run with first_system = i, for every update and layout (Potts
 * Swendsen-Wang and few-cluster label the systems one after another; the
 * O(n) models' floats on the same device).  `model` is the model block's
 * body. */
static void expect_copies_rerun_alone(const char *label, const char *model, const char *algorithm)
{
    static const double betas[] = {0.5, 1.0, 1.4};
    char *dir = test_scratch_dir(label), preset[4200];
    snprintf(preset, sizeof preset, "%s/preset.json", dir);
    char json[1024];
    snprintf(json, sizeof json,
             "{\"model\": {%s}, \"algorithm\": %s,"
             " \"ensemble\": {\"type\": \"independent\", \"betas\": [0.5, 1.0, 1.4], \"copies\": 2},"
             " \"run\": {\"thermalization\": 10, \"sweeps\": 50, \"seed\": 5}}",
             model, algorithm);
    test_write_file(preset, json);
    char *all = rerun_file(dir, preset, "all", "", "series.csv");
    cr_expect(strncmp(all, "sweep,system,temperature,beta,energy,magnetization\n", 51) == 0, "header: %.60s", all);
    for (int i = 1; i < 6; i += 4) {
        int n_many = 0, n_one = 0;
        char name[32], overrides[256];
        snprintf(name, sizeof name, "one%d", i);
        snprintf(overrides, sizeof overrides, "--set 'ensemble.betas=[%g]' --set ensemble.copies=1 "
                 "--set ensemble.first_system=%d", betas[i % 3], i);
        char *one = rerun_file(dir, preset, name, overrides, "series.csv");
        char *a = rerun_rows_of_system(all, i, 3, &n_many), *b = rerun_rows_of_system(one, i, 3, &n_one);
        printf("%s: system %d (beta %g): %d rows in the 6-system run, %d alone, %s\n", label, i, betas[i % 3], n_many,
               n_one, strcmp(a, b) == 0 ? "identical" : "DIFFERENT");
        cr_expect_eq(n_many, 50);
        cr_expect_eq(n_one, 50);
        cr_expect_str_eq(a, b, "%s: system %d differs from its one-system run", label, i);
        free(a);
        free(b);
        free(one);
    }
    free(all);
    free(dir);
}

#define POTTS_2D "\"type\": \"potts\", \"dim\": 2, \"L\": 8, \"q\": 3"
Test(independent, potts_swendsen_wang_system_reruns_alone)
{
    expect_copies_rerun_alone("ind-potts-sw", POTTS_2D, "{\"type\": \"swendsen_wang\"}");
}
Test(independent, potts_few_cluster_system_reruns_alone)
{
    TEST_LONG_ONLY(); /* its streams are Swendsen-Wang's (STREAM, cl/potts/potts.cl) */
    expect_copies_rerun_alone("ind-potts-few", POTTS_2D, "{\"type\": \"few_cluster\", \"tile\": 4}");
}
Test(independent, potts_metropolis_system_reruns_alone)
{
    expect_copies_rerun_alone("ind-potts-metro", POTTS_2D, "{\"type\": \"metropolis\"}");
}
Test(independent, potts_3d_swendsen_wang_system_reruns_alone)
{
    TEST_LONG_ONLY();
    expect_copies_rerun_alone("ind-potts-3d", "\"type\": \"potts\", \"dim\": 3, \"L\": 4, \"q\": 2", "{\"type\": \"swendsen_wang\"}");
}

#define HEISENBERG_3D "\"type\": \"heisenberg\", \"dim\": 3, \"L\": 4, \"n\": 3"
Test(independent, heisenberg_naive_system_reruns_alone)
{
    expect_copies_rerun_alone("ind-heis-naive", HEISENBERG_3D, "{\"layout\": \"naive\", \"overrelaxation_steps\": 1}");
}
Test(independent, heisenberg_tiled_system_reruns_alone)
{
    TEST_LONG_ONLY();
    expect_copies_rerun_alone("ind-heis-tiled", HEISENBERG_3D,
                              "{\"layout\": \"tiled\", \"type\": \"metropolis\", \"overrelaxation_steps\": 1}");
}
Test(independent, heisenberg_planes_system_reruns_alone)
{
    TEST_LONG_ONLY();
    expect_copies_rerun_alone("ind-heis-planes", HEISENBERG_3D, "{\"layout\": \"planes\"}");
}
Test(independent, xy_2d_system_reruns_alone)
{
    expect_copies_rerun_alone("ind-xy", "\"type\": \"heisenberg\", \"dim\": 2, \"L\": 8, \"n\": 2",
                              "{\"layout\": \"tiled\", \"overrelaxation_steps\": 2}");
}

/* The result of DIR/all (caller frees): no temperatures, the observable
 * `pooled` present (the copies pooled). */
static cJSON *load_athermal_pooled(const char *dir, const char *pooled)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/all", dir);
    cJSON *result = test_load_result(path);
    cr_assert_not_null(result);
    const cJSON *observables = cJSON_GetObjectItem(result, "observables");
    cr_expect_null(cJSON_GetObjectItem(observables, "temperatures"), "an athermal run has no temperatures");
    cr_expect_not_null(cJSON_GetObjectItem(observables, pooled), "pooled observables");
    return result;
}

/* Percolation, copies alone (no betas): 4 systems, systems 1 and 3 each
 * equal a one-system run with first_system = i; the series has no
 * temperature columns and the observables pool the copies. */
static void expect_percolation_copies_rerun_alone(const char *label, const char *model)
{
    char *dir = test_scratch_dir(label), preset[4200], json[1024];
    snprintf(preset, sizeof preset, "%s/preset.json", dir);
    snprintf(json, sizeof json, "{\"model\": {\"type\": \"percolation\", %s}, \"ensemble\": {\"type\": "
             "\"independent\", \"copies\": 4}, \"run\": {\"thermalization\": 0, \"sweeps\": 40, \"seed\": 5}}", model);
    test_write_file(preset, json);
    char *all = rerun_file(dir, preset, "all", "", "series.csv");
    const char *header = "sweep,system,largest_cluster_fraction,";
    cr_expect(strncmp(all, header, strlen(header)) == 0, "header: %.60s", all);
    for (int i = 1; i < 4; i += 2)
        expect_rerun_alone(label, dir, preset, all, i, "--set ensemble.copies=1", 1, 40, "system");
    cJSON *result = load_athermal_pooled(dir, "largest_cluster_fraction");
    cJSON_Delete(result);
    free(all);
    free(dir);
}

Test(independent, percolation_bond_copies_rerun_alone)
{
    expect_percolation_copies_rerun_alone("ind-perc-bond", "\"dim\": 2, \"L\": 16, \"p\": 0.5");
}
Test(independent, percolation_site_3d_copies_rerun_alone)
{
    TEST_LONG_ONLY();
    expect_percolation_copies_rerun_alone("ind-perc-site", "\"dim\": 3, \"L\": 8, \"p\": 0.3, \"kind\": \"site\"");
}

/* Hard disks, copies alone: every system of a 3-copy run (first_system
 * `first`) equals the one-system run with ensemble.first_system = first + k
 * (floats on the same device: bit for bit), from the lattice start (the same
 * for all systems) and from the compressed start (each system's own); the
 * series has no temperature columns and the observables pool the copies. */
static void expect_disk_copies_rerun_alone(const char *label, const char *start, int first)
{
    char json[1024];
    snprintf(json, sizeof json,
             "{\"model\": {\"type\": \"hard_disks\", \"N\": 256, \"packing_fraction\": 0.65, \"start\": \"%s\","
             " \"write_configuration\": false}, \"algorithm\": {\"pressure_range\": 0.1, \"pressure_degree\": 3,"
             " \"pressure_bin\": 0.005}, \"ensemble\": {\"type\": \"independent\", \"copies\": 3, \"first_system\": %d},"
             " \"run\": {\"thermalization\": 20, \"sweeps\": 60, \"measure_every\": 2, \"seed\": 5}}",
             start, first);
    char *dir = rerun_preset_dir(label, json), preset[4200];
    snprintf(preset, sizeof preset, "%s/preset.json", dir);
    char *all = rerun_file(dir, preset, "all", "", "series.csv");
    const char *header = "sweep,system,pressure,acceptance\n";
    cr_expect(strncmp(all, header, strlen(header)) == 0, "header: %.60s", all);
    /* By default the first and the last system (each a run of its own);
     * CLMC_LONG_TESTS=1: all three. */
    for (int k = 0; k < 3; k += test_long_enabled() ? 1 : 2)
        expect_rerun_alone(label, dir, preset, all, first + k, "--set ensemble.copies=1", 1, 30, "system");
    cJSON *result = load_athermal_pooled(dir, "pressure");
    cr_expect_eq(physics_check(result, "particles"), 3 * 256, "disks of all systems");
    cr_expect_eq(physics_check(result, "overlaps"), 0);
    cr_expect_eq(physics_check(result, "pair_histogram_differences"), 0);
    cJSON_Delete(result);
    free(all);
    free(dir);
}

Test(independent, hard_disks_lattice_copies_rerun_alone) { expect_disk_copies_rerun_alone("ind-disks", "lattice", 0); }
Test(independent, hard_disks_compressed_copies_rerun_alone)
{
    TEST_LONG_ONLY(); /* the lattice start's case checks the systems' streams */
    expect_disk_copies_rerun_alone("ind-disks-compress", "compress", 4);
}

/* Hard disks at phi = 0.4: 8 copies of N = 256 in one run, the pressure
 * pooled over the copies (errors from bins of single copies' series) against
 * the fluid's equation of state (Clisby-McCoy Pade, support/disk_reference.h;
 * 0.1 % allowed for the reference and the finite N). */
Test(independent, hard_disks_copies_pressure_matches_equation_of_state, .timeout = 300)
{
    cJSON *result = physics_run("{\"model\": {\"type\": \"hard_disks\", \"N\": 256, \"packing_fraction\": 0.4,"
                                " \"write_configuration\": false}, \"algorithm\": {\"max_displacement\": 0.5,"
                                " \"pressure_range\": 0.1, \"pressure_degree\": 3, \"pressure_bin\": 0.005},"
                                " \"ensemble\": {\"type\": \"independent\", \"copies\": 8},"
                                " \"run\": {\"thermalization\": 200, \"sweeps\": 1500, \"measure_every\": 5, \"seed\": 21}}",
                                "ind-disks-eos");
    double pressure = test_observable(result, "pressure", "mean"), error = test_observable(result, "pressure", "error");
    double phi = 0.4, density = 4 * phi / 3.14159265358979323846, reference = density * disk_eos_pade(phi);
    double z = physics_compare("8 copies N=256 phi=0.4 pooled P*", pressure, hypot(error, 1e-3 * reference), reference);
    cr_expect_lt(z, TOLERANCE_SIGMA, "pressure off by %.2f sigma", z);
    cr_expect(error > 0 && error < 0.01 * reference, "pressure error %.5f: zero or too large to test", error);
    cJSON_Delete(result);
}

/* Spin glasses, 3 realizations x 3 betas: realization i (both replicas,
 * every beta) equals a one-realization run with first_system = i (EA: i = 1
 * takes the Metropolis draws two configurations past a multiple of four,
 * i = 2 at one).  `json` is the preset, `header` the series' first line;
 * by default from realization `first` (each a run of its own; the glass's
 * draws need no alignment, so 2 alone). */
static void expect_realizations_rerun_alone(const char *label, const char *json, const char *header, int first)
{
    char *dir = test_scratch_dir(label), preset[4200];
    snprintf(preset, sizeof preset, "%s/preset.json", dir);
    test_write_file(preset, json);
    char *all = rerun_file(dir, preset, "all", "", "series.csv");
    cr_expect(strncmp(all, header, strlen(header)) == 0, "header: %.60s", all);
    for (int i = test_long_enabled() ? 1 : first; i < 3; i++)
        expect_rerun_alone(label, dir, preset, all, i, "--set model.realizations=1", 3, 60 * 2 * 3, "realization");
    free(all);
    free(dir);
}

#define EA_PRESET(couplings)                                                                                         \
    "{\"model\": {\"type\": \"ea_ising\", \"dim\": 2, \"L\": 8, \"realizations\": 3, \"couplings\": \"" couplings "\"}," \
    " \"algorithm\": {\"layout\": \"naive\"}, \"ensemble\": {\"type\": \"independent\", \"betas\": [0.5, 0.8, 1.2]},"    \
    " \"run\": {\"thermalization\": 20, \"sweeps\": 60, \"seed\": 7}}"
#define GLASS_PRESET(layout)                                                                                         \
    "{\"model\": {\"type\": \"heisenberg_glass\", \"dim\": 3, \"L\": 4, \"realizations\": 3},"                     \
    " \"algorithm\": {\"layout\": \"" layout "\", \"overrelaxation_steps\": 1},"                                       \
    " \"ensemble\": {\"type\": \"independent\", \"betas\": [0.5, 0.8, 1.2]},"                                         \
    " \"run\": {\"thermalization\": 10, \"sweeps\": 60, \"seed\": 7}}"
#define GLASS_HEADER "sweep,system,temperature,beta,energy,q2,q4\n"

Test(independent, ea_bimodal_realization_reruns_alone)
{
    expect_realizations_rerun_alone("ind-ea", EA_PRESET("bimodal"), GLASS_HEADER, 1);
}
Test(independent, ea_gaussian_realization_reruns_alone)
{
    TEST_LONG_ONLY();
    expect_realizations_rerun_alone("ind-eag", EA_PRESET("gaussian"), GLASS_HEADER, 1);
}
Test(independent, heisenberg_glass_naive_realization_reruns_alone)
{
    expect_realizations_rerun_alone("ind-hg-naive", GLASS_PRESET("naive"), GLASS_HEADER, 2);
}
Test(independent, heisenberg_glass_tiled_realization_reruns_alone)
{
    TEST_LONG_ONLY();
    expect_realizations_rerun_alone("ind-hg-tiled", GLASS_PRESET("tiled"), GLASS_HEADER, 2);
}

/* EA multi-spin coded, 64 realizations at `betas` (n_betas of them): realization i
 * equals a one-realization naive run with shared_randoms and first_system =
 * i (the shared numbers of its run-wide word), and the second word of a
 * 128-realization run (word_bits 64) a run of that word alone. */
static void expect_msc_realizations_rerun_alone(const char *label, int word_bits, const char *betas, int n_betas)
{
    char *dir = test_scratch_dir(label), preset[4200], json[1024];
    snprintf(preset, sizeof preset, "%s/preset.json", dir);
    snprintf(json, sizeof json,
             "{\"model\": {\"type\": \"ea_ising\", \"dim\": 2, \"L\": 4, \"realizations\": %d},"
             " \"algorithm\": {\"layout\": \"msc\", \"word_bits\": %d},"
             " \"ensemble\": {\"type\": \"independent\", \"betas\": %s},"
             " \"run\": {\"thermalization\": 10, \"sweeps\": 40, \"seed\": 7}}",
             2 * word_bits, word_bits, betas);
    test_write_file(preset, json);
    char *all = rerun_file(dir, preset, "all", "", "series.csv");
    cr_expect(strncmp(all, GLASS_HEADER, strlen(GLASS_HEADER)) == 0, "header: %.60s", all);
    /* By default an odd lane of each word and the last lane (each pick a run
     * of its own); CLMC_LONG_TESTS=1: all five. */
    const int picks[] = {1, word_bits + 5, 2 * word_bits - 1, 0, word_bits - 1};
    size_t n_picks = test_long_enabled() ? 5 : 3;
    for (size_t k = 0; k < n_picks; k++) {
        int i = picks[k], n_many = 0, n_one = 0;
        char name[32], overrides[256];
        snprintf(name, sizeof name, "one%d", i);
        snprintf(overrides, sizeof overrides,
                 "--set 'algorithm.layout=\"naive\"' --set algorithm.shared_randoms=true --set model.realizations=1 "
                 "--set ensemble.first_system=%d", i);
        char *one = rerun_file(dir, preset, name, overrides, "series.csv");
        char *a = rerun_rows_of_system(all, i, 3, &n_many), *b = rerun_rows_of_system(one, i, 3, &n_one);
        printf("%s: realization %d: %d rows in the msc run, %d alone (naive, shared randoms), %s\n", label, i, n_many,
               n_one, strcmp(a, b) == 0 ? "identical" : "DIFFERENT");
        cr_expect_eq(n_many, 40 * 2 * n_betas);
        cr_expect_eq(n_one, 40 * 2 * n_betas);
        cr_expect_str_eq(a, b, "%s: realization %d differs from its one-realization run", label, i);
        free(a);
        free(b);
        free(one);
    }
    char overrides[128];
    snprintf(overrides, sizeof overrides, "--set model.realizations=%d --set ensemble.first_system=%d", word_bits,
             word_bits);
    char *word = rerun_file(dir, preset, "word1", overrides, "series.csv");
    for (int i = word_bits; i < 2 * word_bits; i++) {
        int n_many = 0, n_one = 0;
        char *a = rerun_rows_of_system(all, i, 3, &n_many), *b = rerun_rows_of_system(word, i, 3, &n_one);
        cr_expect_eq(n_one, 40 * 2 * n_betas);
        cr_expect_str_eq(a, b, "%s: realization %d differs in its word's own run", label, i);
        free(a);
        free(b);
    }
    free(word);
    free(all);
    free(dir);
}

Test(independent, ea_msc32_realization_reruns_alone, .timeout = 600)
{
    expect_msc_realizations_rerun_alone("ind-ea-msc32", 32, "[0.5, 0.9, 1.3]", 3);
}
Test(independent, ea_msc64_realization_reruns_alone, .timeout = 600)
{
    TEST_LONG_ONLY();
    expect_msc_realizations_rerun_alone("ind-ea-msc64", 64, "[0.5, 0.9, 1.3]", 3);
}
/* One beta: the naive one-realization runs take the shared-randoms path
 * without tempering, at odd first_system too. */
Test(independent, ea_msc_one_beta_realization_reruns_alone, .timeout = 600)
{
    TEST_LONG_ONLY();
    expect_msc_realizations_rerun_alone("ind-ea-msc1", 32, "[0.9]", 1);
}

#define RESUMED_RUN "\"run\": {\"thermalization\": 100, \"sweeps\": 200, \"seed\": 3, \"checkpoint_every\": 130}}"

Test(independent, ising_resume_bit_identical)
{
    rerun_expect_resume_identical("ind-resume", "{\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": 8}, \"ensemble\": "
                                              "{\"type\": \"independent\", \"betas\": [0.3, 0.5], \"copies\": 3}, " RESUMED_RUN);
}
Test(independent, ea_resume_bit_identical)
{
    rerun_expect_resume_identical("ind-resume-ea", "{\"model\": {\"type\": \"ea_ising\", \"dim\": 2, \"L\": 8, "
                                                 "\"realizations\": 3}, \"ensemble\": {\"type\": \"independent\", "
                                                 "\"betas\": [0.5, 1.0], \"first_system\": 5}, " RESUMED_RUN);
}
Test(independent, ea_msc_resume_bit_identical)
{
    rerun_expect_resume_identical("ind-resume-eamsc", "{\"model\": {\"type\": \"ea_ising\", \"dim\": 2, \"L\": 8, "
                                                    "\"realizations\": 32}, \"algorithm\": {\"layout\": \"msc\", "
                                                    "\"word_bits\": 32}, \"ensemble\": {\"type\": \"independent\", "
                                                    "\"betas\": [0.5, 1.0], \"first_system\": 64}, " RESUMED_RUN);
}
Test(independent, potts_resume_bit_identical)
{
    TEST_LONG_ONLY();
    rerun_expect_resume_identical("ind-resume-potts", "{\"model\": {\"type\": \"potts\", \"dim\": 2, \"L\": 8, "
                                                    "\"q\": 3}, \"algorithm\": {\"type\": \"few_cluster\", \"tile\": 4}, "
                                                    "\"ensemble\": {\"type\": \"independent\", \"betas\": [0.8, 1.2], "
                                                    "\"copies\": 2, \"first_system\": 3}, " RESUMED_RUN);
}
Test(independent, heisenberg_resume_bit_identical)
{
    rerun_expect_resume_identical("ind-resume-heis", "{\"model\": {\"type\": \"heisenberg\", \"dim\": 3, \"L\": 4}, "
                                                   "\"ensemble\": {\"type\": \"independent\", \"betas\": [0.5, 0.9], "
                                                   "\"copies\": 2, \"first_system\": 1}, " RESUMED_RUN);
}
Test(independent, percolation_resume_bit_identical)
{
    TEST_LONG_ONLY();
    rerun_expect_resume_identical("ind-resume-perc", "{\"model\": {\"type\": \"percolation\", \"L\": 8}, "
                                                   "\"ensemble\": {\"type\": \"independent\", \"copies\": 3, "
                                                   "\"first_system\": 2}, " RESUMED_RUN);
}
Test(independent, hard_disks_resume_bit_identical)
{
    rerun_expect_resume_identical("ind-resume-disks", "{\"model\": {\"type\": \"hard_disks\", \"N\": 256, "
                                                      "\"packing_fraction\": 0.6, \"write_configuration\": false}, "
                                                      "\"ensemble\": {\"type\": \"independent\", \"copies\": 3, "
                                                      "\"first_system\": 1}, " RESUMED_RUN);
}
Test(independent, heisenberg_glass_resume_bit_identical)
{
    rerun_expect_resume_identical("ind-resume-hg", "{\"model\": {\"type\": \"heisenberg_glass\", \"dim\": 3, \"L\": 4, "
                                                 "\"realizations\": 2}, \"ensemble\": {\"type\": \"independent\", "
                                                 "\"betas\": [0.5]}, " RESUMED_RUN);
}

/* Exit 2 with a message containing `key` (and `also`, when given). */
static void expect_refused(const char *json, const char *key, const char *also)
{
    char *dir = test_scratch_dir("ind-bad"), preset[4200];
    snprintf(preset, sizeof preset, "%s/preset.json", dir);
    test_write_file(preset, json);
    char *output = NULL;
    int rc = test_run_clmc(&output, "run '%s' --quiet --out '%s/out'", preset, dir);
    printf("exit %d: %s", rc, output ? output : "");
    cr_expect_eq(rc, 2, "exit status %d for %s", rc, json);
    cr_expect(output && strstr(output, key), "message does not name %s", key);
    if (also) cr_expect(output && strstr(output, also), "message does not name %s", also);
    char path[4400];
    snprintf(path, sizeof path, "%s/out", dir);
    cr_expect(!test_path_exists(path), "an output directory was created");
    free(output);
    free(dir);
}

#define ISING_WITH(ensemble) \
    "{\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": 8}, \"ensemble\": " ensemble ", \"run\": {\"sweeps\": 10}}"

Test(independent, bad_input_exits_2_naming_the_key)
{
    expect_refused(ISING_WITH("{\"type\": \"independent\", \"betas\": []}"), "ensemble.betas", NULL);
    expect_refused(ISING_WITH("{\"type\": \"independent\"}"), "ensemble.betas", NULL);
    expect_refused(ISING_WITH("{\"type\": \"independent\", \"betas\": [0.3, 0]}"), "ensemble.betas[1]", NULL);
    expect_refused(ISING_WITH("{\"type\": \"independent\", \"betas\": [-0.2]}"), "ensemble.betas[0]", NULL);
    expect_refused(ISING_WITH("{\"type\": \"independent\", \"betas\": [0.5, 0.4]}"), "ensemble.betas[1]", NULL);
    expect_refused(ISING_WITH("{\"type\": \"independent\", \"betas\": [0.4], \"copies\": 0}"), "ensemble.copies", NULL);
    expect_refused(ISING_WITH("{\"type\": \"independent\", \"betas\": [0.4], \"copies\": 16777216,"
                              " \"first_system\": 1}"),
                   "ensemble.copies", "2^24");
    expect_refused(ISING_WITH("{\"type\": \"independent\", \"betas\": [0.4], \"exchange_every\": 5}"),
                   "ensemble.exchange_every", NULL);
    expect_refused("{\"model\": {\"type\": \"potts\", \"L\": 8}, \"ensemble\": {\"type\": \"independent\", "
                   "\"betas\": [0.4], \"copies\": 0}, \"run\": {\"sweeps\": 10}}", "ensemble.copies", NULL);
    expect_refused("{\"model\": {\"type\": \"potts\", \"L\": 8}, \"ensemble\": {\"type\": \"independent\", "
                   "\"betas\": []}, \"run\": {\"sweeps\": 10}}", "ensemble.betas", NULL);
    /* Athermal: copies alone. */
    expect_refused("{\"model\": {\"type\": \"percolation\", \"L\": 8}, \"ensemble\": {\"type\": \"independent\", "
                   "\"betas\": [0.5], \"copies\": 2}, \"run\": {\"sweeps\": 10}}", "ensemble.betas", "no temperature");
    expect_refused("{\"model\": {\"type\": \"percolation\", \"L\": 8}, \"ensemble\": {\"type\": \"independent\", "
                   "\"copies\": 0}, \"run\": {\"sweeps\": 10}}", "ensemble.copies", NULL);
    expect_refused("{\"model\": {\"type\": \"hard_disks\", \"N\": 256, \"packing_fraction\": 0.5}, \"ensemble\": "
                   "{\"type\": \"independent\", \"copies\": 0}, \"run\": {\"sweeps\": 10}}", "ensemble.copies", NULL);
    expect_refused("{\"model\": {\"type\": \"hard_disks\", \"N\": 256, \"packing_fraction\": 0.5}, \"ensemble\": "
                   "{\"type\": \"independent\", \"betas\": [0.5], \"copies\": 2}, \"run\": {\"sweeps\": 10}}",
                   "ensemble.betas", "no temperature");
}

/* The memory check of a preset against an 80 GB H100 as OpenCL reports it
 * (85029158912 bytes, at most 21257289728 in one buffer): status, and the
 * model's estimate printed. */
static clmc_status h100_check(const char *json, uint64_t *total, uint64_t *largest)
{
    clmc_preset *preset = NULL;
    cr_assert_eq(clmc_preset_parse(json, strlen(json), "h100", NULL, 0, &preset), CLMC_OK, "%s", clmc_error_message());
    const clmc_model_ops *ops = clmc_model_find(clmc_preset_string(preset, "model.type"));
    cr_assert(ops && ops->device_bytes);
    clmc_device_info h100 = {.name = "H100 (80 GB, as reported)", .global_mem_bytes = 85029158912ULL,
                             .max_alloc_bytes = 21257289728ULL};
    ops->device_bytes(preset, total, largest);
    clmc_status status = clmc_check_device_memory(ops, preset, &h100);
    clmc_preset_free(preset);
    return status;
}

/* Many copies of a small lattice fit an 80 GB GPU: the measurement buffers
 * shrink with the configurations (clmc_measure_slots, Heisenberg's group
 * cap) instead of growing past the spins (Ising L = 64 with 262144 copies
 * asked for one 34 GB buffer before); far too many copies are still refused. */
Test(independent, many_small_copies_fit_device_memory)
{
    static const struct { const char *model, *algorithm; unsigned copies; bool fits; } cases[] = {
        {"\"type\": \"ising\", \"L\": 64", "\"layout\": \"random_site\", \"random_site\": \"copies\"", 262144, true},
        {"\"type\": \"ising\", \"L\": 64", "\"layout\": \"random_site\", \"random_site\": \"copies\"", 1048576, true},
        {"\"type\": \"ising\", \"L\": 64", "\"layout\": \"tiled\"", 1048576, true},
        {"\"type\": \"ising\", \"L\": 64", "\"layout\": \"msc\"", 1048576, true},
        {"\"type\": \"potts\", \"L\": 64, \"q\": 3", "\"type\": \"metropolis\"", 1048576, true},
        {"\"type\": \"heisenberg\", \"L\": 64, \"n\": 3", "\"layout\": \"naive\"", 262144, true},
        {"\"type\": \"heisenberg\", \"L\": 64, \"n\": 2", "\"layout\": \"naive\"", 262144, true},
        /* 16 GiB of Ising spins in one buffer: fits; 2^23 copies: 32 GiB do not. */
        {"\"type\": \"ising\", \"L\": 64", "\"layout\": \"random_site\", \"random_site\": \"copies\"", 4194304, true},
        {"\"type\": \"ising\", \"L\": 64", "\"layout\": \"random_site\", \"random_site\": \"copies\"", 8388608, false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char json[512];
        snprintf(json, sizeof json, "{\"model\": {%s}, \"algorithm\": {%s}, \"ensemble\": {\"type\": \"independent\","
                 " \"betas\": [0.44], \"copies\": %u}, \"run\": {\"sweeps\": 10}}", cases[i].model,
                 cases[i].algorithm, cases[i].copies);
        uint64_t total = 0, largest = 0;
        clmc_status status = h100_check(json, &total, &largest);
        printf("%-34s %-52s x %7u: %6.2f GiB, largest buffer %6.2f GiB: %s\n", cases[i].model, cases[i].algorithm,
               cases[i].copies, total / 1073741824.0, largest / 1073741824.0, status == CLMC_OK ? "fits" : "refused");
        cr_expect_eq(status == CLMC_OK, cases[i].fits, "%s x %u: %s", cases[i].model, cases[i].copies,
                     status == CLMC_OK ? "fits" : clmc_error_message());
    }
}

/* The slot rule: the whole batch for few configurations, shorter batches
 * (at least one slot) as the slot bytes grow past the budget. */
Test(independent, measure_slots_within_budget)
{
    cr_expect_eq(clmc_measure_slots(256, 1, 512, 4096), 256);
    cr_expect_eq(clmc_measure_slots(256, 1, 128ULL << 20, 1ULL << 30), 7);         /* Ising L = 64, 262144 copies */
    cr_expect_eq(clmc_measure_slots(256, 1, 1ULL << 30, 1ULL << 29), 1);           /* past the budget: one slot */
    cr_expect_eq(clmc_measure_slots(256, 1, 1ULL << 20, 0), 255);                  /* 256 MiB / 1 MiB - the spare */
}

/* Series do not depend on the batch length: a run that collects after
 * every sweep (a checkpoint each sweep ends each batch at one measurement,
 * as clmc_measure_slots' shortest batch) equals one collecting 256 at once. */
Test(independent, series_independent_of_measurement_batch)
{
    const char *json = "{\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": 8},"
                       " \"algorithm\": {\"layout\": \"random_site\", \"random_site\": \"copies\"},"
                       " \"ensemble\": {\"type\": \"independent\", \"betas\": [0.3, 0.5], \"copies\": 3},"
                       " \"run\": {\"thermalization\": 0, \"sweeps\": 300, \"seed\": 5}}";
    char *dir = rerun_preset_dir("ind-batch", json), preset[4200];
    snprintf(preset, sizeof preset, "%s/preset.json", dir);
    char *batched = rerun_file(dir, preset, "batched", "", "series.csv");
    char *single = rerun_file(dir, preset, "single", "--set run.checkpoint_every=1", "series.csv");
    cr_assert(batched && single);
    printf("series of 300 sweeps x 6 systems: %zu bytes, %s\n", strlen(batched),
           strcmp(batched, single) == 0 ? "identical" : "DIFFERENT");
    cr_expect_str_eq(batched, single);
    free(batched);
    free(single);
    free(dir);
}

/* 2^20 copies of a 4096^2 lattice: 16 TiB of spins (Ising; Potts with
 * cluster updates 10 bytes a site), refused before any allocation with the
 * bytes needed and the bytes the device has. */
Test(independent, copies_beyond_device_memory_refused)
{
    expect_refused("{\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": 4096}, \"ensemble\": {\"type\": "
                   "\"independent\", \"betas\": [0.4], \"copies\": 1048576}, \"run\": {\"sweeps\": 10}}",
                   "ensemble.copies: the preset needs ", " has ");
    expect_refused("{\"model\": {\"type\": \"potts\", \"dim\": 2, \"L\": 4096}, \"ensemble\": {\"type\": "
                   "\"independent\", \"betas\": [0.5, 1.0], \"copies\": 524288}, \"run\": {\"sweeps\": 10}}",
                   "ensemble.copies: the preset needs ", " has ");
    expect_refused("{\"model\": {\"type\": \"percolation\", \"L\": 8192}, \"ensemble\": {\"type\": "
                   "\"independent\", \"copies\": 1048576}, \"run\": {\"sweeps\": 10}}",
                   "ensemble.copies: the preset needs ", " has ");
    /* Hard disks: 65536 copies of N = 2^20 at phi = 0.708, 2.6 TiB of cell lists. */
    expect_refused("{\"model\": {\"type\": \"hard_disks\", \"N\": 1048576, \"packing_fraction\": 0.708},"
                   " \"ensemble\": {\"type\": \"independent\", \"copies\": 65536}, \"run\": {\"sweeps\": 10}}",
                   "ensemble.copies: the preset needs ", " has ");
}

Test(independent, models_without_systems_refused)
{
    expect_refused("{\"model\": {\"type\": \"ea_ising\", \"dim\": 2, \"L\": 8, \"realizations\": 64},"
                   " \"algorithm\": {\"layout\": \"msc\"}, \"ensemble\": {\"type\": \"independent\", \"betas\": [0.5],"
                   " \"first_system\": 32}, \"run\": {\"sweeps\": 10}}",
                   "ensemble.first_system", "multiple of 64");
    expect_refused("{\"model\": {\"type\": \"ea_ising\", \"dim\": 2, \"L\": 8, \"realizations\": 2},"
                   " \"ensemble\": {\"type\": \"independent\", \"betas\": [0.5], \"copies\": 2}, \"run\": {\"sweeps\": 10}}",
                   "ensemble.copies", "model.realizations");
    expect_refused("{\"model\": {\"type\": \"heisenberg_glass\", \"dim\": 3, \"L\": 4, \"realizations\": 2},"
                   " \"ensemble\": {\"type\": \"independent\", \"betas\": [0.5], \"copies\": 2}, \"run\": {\"sweeps\": 10}}",
                   "ensemble.copies", "model.realizations");
}
