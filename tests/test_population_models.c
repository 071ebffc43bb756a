/* ensemble.type "population_annealing" for the models beyond Ising
 * (docs/ensembles.md): the q = 2 Potts model against the exact 2D Ising
 * values it maps to (H_Potts = -sum delta = -dim N / 2 + H_Ising / 2, so
 * Potts at beta is Ising at beta / 2); the EA spin glass with uniform
 * couplings (the ferromagnet) against the exact 2D Ising values; the 3D EA
 * spin glass at L = 4 against parallel tempering on the same disorder
 * realization at the lowest temperatures; bad input exits 2 naming the key
 * (the msc layout's: tests/test_population_msc.c).
 * Errors of PA from ensemble.runs; tolerance 4 (combined) standard errors.
 * Larger lattices and longer runs are opt-in: CLMC_LONG_TESTS=1. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clmc/runtime.h"
#include "ising_exact.h"
#include "physics.h"
#include "testenv.h"

#define TOLERANCE_SIGMA 4.0

/* One PA observable at a step against a reference value within 4 standard errors. */
static void expect_exact(const char *label, const cJSON *entry, const char *name, double reference)
{
    char what[128];
    snprintf(what, sizeof what, "%s beta=%.3f %s", label, cJSON_GetObjectItem(entry, "beta")->valuedouble, name);
    cr_expect_leq(physics_compare(what, physics_mean(entry, name), physics_error(entry, name), reference), TOLERANCE_SIGMA, "%s",
                  what);
}

/* ---- Potts q = 2 against exact 2D Ising ----------------------------------- */

/* Every step k >= 1 of a q = 2 Potts anneal (L x L, `algorithm`) against
 * exact Ising at beta / 2: energy -1 + e_I / 2, specific heat C_I, free
 * energy beta F / N = -beta - ln Z_I / N; the order parameter (q max N_k /
 * N - 1) / (q - 1) = |M| / N lies in [0, 1]. */
static void potts_q2_against_ising(const char *algorithm, int edge, int population, int steps, int theta, int runs,
                                   double beta_end, int seed)
{
    char json[1024], label[96];
    snprintf(json, sizeof json,
             "{\"model\": {\"type\": \"potts\", \"dim\": 2, \"L\": %d, \"q\": 2}, \"algorithm\": {\"type\": "
             "\"%s\"}, \"ensemble\": {\"type\": \"population_annealing\", \"population\": %d, \"beta_end\": %g, "
             "\"steps\": %d, \"sweeps_per_step\": %d, \"runs\": %d}, \"run\": {\"seed\": %d}}",
             edge, algorithm, population, beta_end, steps, theta, runs, seed);
    snprintf(label, sizeof label, "PA potts q=2 %s L=%d R=%d x%d", algorithm, edge, population, runs);
    cJSON *result = physics_run(json, "pa-potts");
    const cJSON *temperatures = cJSON_GetObjectItem(cJSON_GetObjectItem(result, "observables"), "temperatures");
    cr_assert_eq(cJSON_GetArraySize(temperatures), steps + 1);
    cr_expect_float_eq(physics_mean(cJSON_GetArrayItem(temperatures, 0), "free_energy"), -log(2.0), 1e-12,
                       "beta 0: ln Z / N = ln 2 exactly");
    double sites = (double)edge * edge;
    for (int k = 1; k <= steps; k++) {
        const cJSON *entry = cJSON_GetArrayItem(temperatures, k);
        double beta = cJSON_GetObjectItem(entry, "beta")->valuedouble, e_ising, c_ising;
        ising2d_exact(edge, beta / 2, &e_ising, &c_ising);
        expect_exact(label, entry, "energy", -1.0 + e_ising / 2);
        expect_exact(label, entry, "specific_heat", c_ising);
        expect_exact(label, entry, "free_energy", -beta - ising2d_exact_log_z(edge, beta / 2) / sites);
        double order = physics_mean(entry, "abs_magnetization");
        cr_expect(order >= 0 && order <= 1, "order parameter %g in [0, 1]", order);
    }
    cJSON_Delete(result);
}

/* L = 8 through the Ising transition (Potts beta_c = ln(1 + sqrt 2) = 0.88)
 * to beta 1.2 in steps of 0.1. */
Test(population_models, potts_q2_matches_exact_ising_L8, .timeout = 600)
{
    potts_q2_against_ising("metropolis", 8, 300, 12, 10, 16, 1.2, 11);
}

/* Cluster sweeps: copies of a member share no bonds or labels (rebuilt
 * every sweep), few-cluster marks are stamped with the sweep. */
Test(population_models, potts_q2_swendsen_wang_matches_exact_ising_L8, .timeout = 600)
{
    potts_q2_against_ising("swendsen_wang", 8, 120, 12, 2, 8, 1.2, 13);
}

Test(population_models, potts_q2_few_cluster_matches_exact_ising_L8, .timeout = 600)
{
    potts_q2_against_ising("few_cluster", 8, 150, 12, 4, 8, 1.2, 14);
}

/* Opt-in: L = 16, a larger population. */
Test(population_models, potts_q2_matches_exact_ising_L16_long, .timeout = 3600)
{
    TEST_LONG_ONLY();
    potts_q2_against_ising("metropolis", 16, 1000, 16, 10, 10, 2.0, 12);
    potts_q2_against_ising("swendsen_wang", 16, 500, 32, 3, 10, 2.0, 15);
}

/* ---- EA: uniform couplings (the ferromagnet) against exact 2D Ising -------- */

/* A member is a pair of replicas: energy per spin, specific heat and free
 * energy per spin of the pair are those of one Ising system. */
Test(population_models, ea_uniform_matches_exact_ising_L8, .timeout = 600)
{
    enum { STEPS = 8 };
    cJSON *result = physics_run("{\"model\": {\"type\": \"ea_ising\", \"dim\": 2, \"L\": 8, \"couplings\": \"uniform\"}, "
                                "\"ensemble\": {\"type\": \"population_annealing\", \"population\": 400, "
                                "\"beta_end\": 0.6, \"steps\": 8, \"sweeps_per_step\": 10, \"runs\": 8}, "
                                "\"run\": {\"seed\": 21}}",
                                "pa-ea-uniform");
    const cJSON *temperatures = cJSON_GetObjectItem(cJSON_GetObjectItem(result, "observables"), "temperatures");
    cr_assert_eq(cJSON_GetArraySize(temperatures), STEPS + 1);
    for (int k = 1; k <= STEPS; k++) {
        const cJSON *entry = cJSON_GetArrayItem(temperatures, k);
        double beta = cJSON_GetObjectItem(entry, "beta")->valuedouble, e, c;
        ising2d_exact(8, beta, &e, &c);
        expect_exact("PA ea uniform L=8 R=400 x8", entry, "energy", e);
        expect_exact("PA ea uniform L=8 R=400 x8", entry, "specific_heat", c);
        expect_exact("PA ea uniform L=8 R=400 x8", entry, "free_energy", -ising2d_exact_log_z(8, beta) / 64.0);
        double q2 = physics_mean(entry, "q2"), q4 = physics_mean(entry, "q4"), abs_q = physics_mean(entry, "abs_overlap");
        cr_expect(q2 >= abs_q * abs_q - 1e-12 && q4 >= q2 * q2 - 1e-12 && q4 <= q2, "<|q|> = %g, <q^2> = %g, <q^4> = %g",
                  abs_q, q2, q4);
        double binder_q = physics_mean(entry, "binder_q"); /* <q^4> >= <q^2>^2; near 0 (Gaussian q) at high T */
        cr_expect(binder_q <= 1 + 1e-12, "binder_q = %g at most 1", binder_q);
    }
    cJSON_Delete(result);
}

/* ---- 3D EA spin glass: PA against parallel tempering ---------------------- */

/* The same seed gives the same couplings: PA members take realization 0's,
 * which a one-realization tempering run simulates.  PA: beta 0 to 2 in
 * steps of 0.1; PT: betas 0.4 .. 2 in steps of 0.2.  At the PT betas from
 * `lowest` on, the energy, <q^2> and the overlap's Binder ratio (3 -
 * <q^4>/<q^2>^2) / 2 of both within 4 combined standard errors (PT: errors
 * from its time series). */
static void ea_against_tempering(int population, int runs, int theta, long long pt_sweeps, double lowest, int seed)
{
    char json[1024];
    snprintf(json, sizeof json,
             "{\"model\": {\"type\": \"ea_ising\", \"dim\": 3, \"L\": 4}, \"ensemble\": {\"type\": "
             "\"population_annealing\", \"population\": %d, \"beta_end\": 2.0, \"steps\": 20, \"sweeps_per_step\": %d, "
             "\"runs\": %d}, \"run\": {\"seed\": %d}}",
             population, theta, runs, seed);
    cJSON *pa = physics_run(json, "pa-ea3d");
    snprintf(json, sizeof json,
             "{\"model\": {\"type\": \"ea_ising\", \"dim\": 3, \"L\": 4}, \"ensemble\": {\"type\": "
             "\"parallel_tempering\", \"exchange_every\": 1, \"betas\": [0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0]}, "
             "\"run\": {\"seed\": %d, \"thermalization\": %lld, \"sweeps\": %lld, \"measure_every\": 10}}",
             seed, pt_sweeps / 8, pt_sweeps);
    cJSON *pt = physics_run(json, "pa-ea3d-pt");
    const cJSON *pa_t = cJSON_GetObjectItem(cJSON_GetObjectItem(pa, "observables"), "temperatures");
    const cJSON *pt_t = cJSON_GetObjectItem(cJSON_GetObjectItem(pt, "observables"), "temperatures");
    int compared = 0;
    for (int j = 0; j < cJSON_GetArraySize(pt_t); j++) {
        const cJSON *b = cJSON_GetArrayItem(pt_t, j);
        double beta = cJSON_GetObjectItem(b, "beta")->valuedouble;
        if (beta < lowest - 1e-9) continue;
        const cJSON *a = NULL;
        for (int k = 0; k < cJSON_GetArraySize(pa_t); k++)
            if (fabs(cJSON_GetObjectItem(cJSON_GetArrayItem(pa_t, k), "beta")->valuedouble - beta) < 1e-9)
                a = cJSON_GetArrayItem(pa_t, k);
        cr_assert_not_null(a, "PA has no step at beta %g", beta);
        const char *names[3] = {"energy", "q2", "binder_q"};
        for (int q = 0; q < 3; q++) {
            double pa_mean = physics_mean(a, names[q]), pa_error = physics_error(a, names[q]);
            double pt_mean = physics_mean(b, names[q]), pt_error = physics_error(b, names[q]);
            char what[160];
            snprintf(what, sizeof what, "EA3d L=4 beta=%.1f %s: PA R=%d x%d %.5f +- %.5f, PT %.5f +- %.5f; difference",
                     beta, names[q], population, runs, pa_mean, pa_error, pt_mean, pt_error);
            double z = physics_compare(what, pa_mean - pt_mean, sqrt(pa_error * pa_error + pt_error * pt_error), 0);
            cr_expect_leq(z, TOLERANCE_SIGMA, "%s", what);
        }
        compared++;
    }
    cr_expect_gt(compared, 0);
    cJSON_Delete(pa);
    cJSON_Delete(pt);
}

Test(population_models, ea3d_L4_matches_tempering_at_low_temperatures, .timeout = 600)
{
    ea_against_tempering(300, 6, 10, 8000, 1.6, 7);
}

/* Opt-in: more members, runs and PT sweeps; every PT beta compared. */
Test(population_models, ea3d_L4_matches_tempering_long, .timeout = 3600)
{
    TEST_LONG_ONLY();
    ea_against_tempering(1000, 10, 20, 100000, 0.4, 8);
}

/* ---- Reproducibility ------------------------------------------------------ */

/* The same preset twice: every step's results and the final configurations
 * equal bit for bit (integer energies, Philox streams of the slots), with
 * two runs (the second from the model's random start for run 1). */
Test(population_models, reruns_are_bit_identical, .timeout = 600)
{
    const char *presets[] = {
        "{\"model\": {\"type\": \"ea_ising\", \"dim\": 3, \"L\": 4}, \"ensemble\": {\"type\": "
        "\"population_annealing\", \"population\": 40, \"betas\": [0.5, 1.0], \"sweeps_per_step\": 2, "
        "\"resampling\": \"nearest_integer\", \"runs\": 2}, \"run\": {\"seed\": 4}}",
        "{\"model\": {\"type\": \"potts\", \"dim\": 2, \"L\": 8, \"q\": 5}, \"algorithm\": {\"type\": "
        "\"metropolis\"}, \"ensemble\": {\"type\": \"population_annealing\", \"population\": 40, \"betas\": "
        "[0.5, 1.0], \"sweeps_per_step\": 2, \"resampling\": \"multinomial\", \"runs\": 2}, \"run\": {\"seed\": 4}}"};
    for (int m = 0; m < 2; m++) {
        char *text[2], hash[2][32];
        for (int r = 0; r < 2; r++) {
            cJSON *result = physics_run(presets[m], "pa-models-rerun");
            text[r] = cJSON_PrintUnformatted(cJSON_GetObjectItem(cJSON_GetObjectItem(result, "observables"), "temperatures"));
            snprintf(hash[r], sizeof hash[r], "%s",
                     cJSON_GetObjectItem(cJSON_GetObjectItem(result, "checks"), "configuration_fnv1a")->valuestring);
            cJSON_Delete(result);
        }
        printf("%s: configurations %s, %s\n", m ? "potts" : "ea_ising", hash[0], hash[1]);
        cr_expect_str_eq(text[0], text[1], "%s: the two runs differ", m ? "potts" : "ea_ising");
        cr_expect_str_eq(hash[0], hash[1], "%s: the final configurations differ", m ? "potts" : "ea_ising");
        free(text[0]);
        free(text[1]);
    }
}

/* ---- Bad input ------------------------------------------------------------ */

#define EA_PA(model, algorithm)                                                                                  \
    "{\"model\": {\"type\": \"ea_ising\", \"dim\": 3, \"L\": 4" model "}, \"algorithm\": {\"type\": \"metropolis\"" \
    algorithm "}, \"ensemble\": {\"type\": \"population_annealing\", \"population\": 64, \"beta_end\": 1, "       \
    "\"steps\": 4}}"

Test(population_models, bad_input_exits_2_naming_the_key)
{
    expect_input_error(EA_PA(", \"realizations\": 2", ""), "pa-ea-realizations", "model.realizations");
    expect_input_error(EA_PA(", \"couplings\": \"gaussian\"", ""), "pa-ea-gaussian", "model.couplings");
    expect_input_error(EA_PA("", ", \"shared_randoms\": true"), "pa-ea-shared", "algorithm.shared_randoms");
    expect_input_error(EA_PA(", \"start\": \"ordered\"", ""), "pa-ea-ordered", "model.start");
    expect_input_error("{\"model\": {\"type\": \"potts\", \"dim\": 2, \"L\": 8, \"q\": 3, \"start\": \"ordered\"}, "
                       "\"algorithm\": {\"type\": \"metropolis\"}, \"ensemble\": {\"type\": \"population_annealing\", "
                       "\"population\": 10, \"beta_end\": 0.5, \"steps\": 5}}",
                       "pa-potts-ordered", "model.start");
}

/* Populations beyond the device: refused before any allocation (no output
 * directory), naming ensemble.population.  Potts: by the memory check; EA:
 * by the 2^32 spins its kernels index, which comes first on devices of more
 * than about 8 GiB (smaller ones: the memory check, also naming it). */
static void expect_refused_population(const char *json, const char *label, const char *needle)
{
    char *dir = test_scratch_dir(label), preset[4200];
    snprintf(preset, sizeof preset, "%s/preset.json", dir);
    test_write_file(preset, json);
    char *output = NULL;
    int rc = test_run_clmc(&output, "run '%s' --quiet --out '%s/out'", preset, dir);
    printf("%s: exit %d: %s", label, rc, output ? output : "");
    cr_expect_eq(rc, 2);
    cr_expect(output && strstr(output, needle), "%s: names %s", label, needle);
    char path[4400];
    snprintf(path, sizeof path, "%s/out", dir);
    cr_expect(!test_path_exists(path), "%s: an output directory was created", label);
    free(output);
    free(dir);
}

Test(population_models, population_beyond_device_memory_refused)
{
    expect_refused_population("{\"model\": {\"type\": \"potts\", \"dim\": 2, \"L\": 1024, \"q\": 10}, \"algorithm\": "
                              "{\"type\": \"metropolis\"}, \"ensemble\": {\"type\": \"population_annealing\", "
                              "\"population\": 16777216, \"beta_end\": 1.5, \"steps\": 5}}",
                              "pa-potts-memory", "ensemble.population: the preset needs ");
    expect_refused_population("{\"model\": {\"type\": \"ea_ising\", \"dim\": 3, \"L\": 64}, \"ensemble\": {\"type\": "
                              "\"population_annealing\", \"population\": 8000000, \"beta_end\": 1.5, \"steps\": 5}}",
                              "pa-ea-memory", "ensemble.population: ");
    /* 2^24 - 2^20 members of L = 4 (3D): below the index limit, about 9.7 GB
     * in all; the memory check where the device has less. */
    clmc_device_info device;
    cr_assert_eq(clmc_device_select(NULL, &device), CLMC_OK);
    if ((double)device.global_mem_bytes > 9.8e9) cr_skip("%s has room for 15728640 EA members of L = 4", device.name);
    expect_refused_population("{\"model\": {\"type\": \"ea_ising\", \"dim\": 3, \"L\": 4}, \"ensemble\": {\"type\": "
                              "\"population_annealing\", \"population\": 15728640, \"beta_end\": 1.5, \"steps\": 5}}",
                              "pa-ea-memory-check", "ensemble.population: the preset needs ");
}
