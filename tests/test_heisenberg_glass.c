/* O(n) spin glass (heisenberg_glass): heat-bath, Metropolis and the heat-bath
 * + over-relaxation mix on one Gaussian and one bimodal 3D sample against a
 * sequential host simulation of two replicas with the same couplings (energy
 * and overlap q2), the same under parallel tempering at each temperature,
 * disorder averages over two samples (with and without tempering),
 * energy conservation of pure over-relaxation in all layouts, the naive
 * update's launch shapes (algorithm.work_group, sites_per_item) against the
 * automatic one, and preset errors. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clmc/engine.h"
#include "clmc/preset.h"
#include "clmc/stats.h"
#include "heisenberg_ref.h"
#include "models/disorder.h"
#include "physics.h"
#include "testenv.h"

#define TOLERANCE_SIGMA 4.0
#define DRIFT_TOLERANCE 1e-5
#define SEED 17

static double observable(const cJSON *result, const char *name, double *error)
{
    *error = test_observable(result, name, "error");
    return test_observable(result, name, "mean");
}

typedef struct {
    int n, edge;
    double beta;
    char couplings[16]; /* inline: parameters cross a process boundary */
} glass_case;

/* The device's couplings of one realization for run.seed = SEED, as floats
 * (the device stores floats). */
static double *device_couplings(const glass_case *c, unsigned realization)
{
    size_t sites = (size_t)c->edge * c->edge * c->edge;
    double *j = malloc(3 * sites * sizeof *j);
    cr_assert_not_null(j);
    clmc_ea_couplings kind = strcmp(c->couplings, "bimodal") == 0 ? CLMC_EA_BIMODAL : CLMC_EA_GAUSSIAN;
    for (size_t d = 0; d < 3; d++)
        for (size_t site = 0; site < sites; site++)
            j[d * sites + site] = (float)clmc_ea_coupling(kind, SEED, realization, (uint32_t)site, (unsigned)d);
    return j;
}

ParameterizedTestParameters(heisenberg_glass, moves_agree_with_host_reference)
{
    static glass_case cases[] = {{3, 4, 1.0, "gaussian"}, {3, 4, 1.2, "bimodal"}};
    return cr_make_param_array(glass_case, cases, sizeof cases / sizeof cases[0]);
}

/* One 4^3 sample (same kernel builds for both couplings): energy and q2 of
 * heat-bath (naive), Metropolis (tiled, hits 2), heat-bath + 2 over-relaxation
 * (tiled) and 2 heat-bath + 1 over-relaxation (planes) against the host. */
ParameterizedTest(glass_case *c, heisenberg_glass, moves_agree_with_host_reference, .timeout = 300)
{
    double *couplings = device_couplings(c, 0);
    heisenberg_ref_series ref;
    cr_assert_eq(heisenberg_ref_glass_run(3, c->n, c->edge, c->beta, couplings, 2000, 40000, 99, &ref), 0);
    free(couplings);
    clmc_estimate ref_energy = clmc_estimate_mean(ref.energy, ref.n), ref_q2 = clmc_estimate_mean(ref.q2, ref.n);
    heisenberg_ref_series_free(&ref);
    const char *algorithms[] = {"\"type\": \"heatbath\", \"layout\": \"naive\"",
                                "\"type\": \"metropolis\", \"layout\": \"tiled\", \"tile\": 2, \"hits\": 2",
                                "\"type\": \"heatbath\", \"layout\": \"tiled\", \"tile\": 2, \"overrelaxation_steps\": 2",
                                "\"type\": \"heatbath\", \"layout\": \"planes\", \"tile\": 2, \"overrelaxation_steps\": 1, \"hits\": 2"};
    const char *labels[] = {"heatbath naive", "metropolis tiled hits=2", "heatbath+2 OR tiled", "2 heatbath+OR planes"};
    for (int a = 0; a < 4; a++) {
        char preset[1024];
        snprintf(preset, sizeof preset,
                 "{\"model\": {\"type\": \"heisenberg_glass\", \"L\": %d, \"n\": %d, \"couplings\": \"%s\"},"
                 " \"algorithm\": {%s}, \"ensemble\": {\"beta\": %.10g}, \"run\": {\"thermalization\": 500,"
                 " \"sweeps\": 4000, \"seed\": %d}}",
                 c->edge, c->n, c->couplings, algorithms[a], c->beta, SEED);
        cJSON *result = physics_run(preset, "heisenberg-glass");
        const char *names[] = {"energy", "q2"};
        clmc_estimate refs[] = {ref_energy, ref_q2};
        for (int k = 0; k < 2; k++) {
            double error, value = observable(result, names[k], &error);
            char what[160];
            snprintf(what, sizeof what, "glass n=%d %s b=%.2f %s %s", c->n, c->couplings, c->beta, labels[a], names[k]);
            double z = physics_compare(what, value, hypot(error, refs[k].error), refs[k].mean);
            cr_expect_lt(z, TOLERANCE_SIGMA, "%s off by %.2f sigma", what, z);
            cr_expect(error > 0, "an error of zero means nothing was measured");
        }
        cr_expect(physics_check(result, "max_norm_deviation") < 1e-5);
        cJSON_Delete(result);
    }
}

ParameterizedTestParameters(heisenberg_glass, overrelaxation_conserves_energy)
{
    static int layouts[] = {0, 1, 2}; /* naive, tiled, planes */
    return cr_make_param_array(int, layouts, 3);
}

/* Heat-bath thermalization at beta = 2, then 1000 sweeps of pure
 * over-relaxation (float, both replicas): energy_drift is the larger of the
 * replicas' |E_end - E_start| / N. */
ParameterizedTest(int *variant, heisenberg_glass, overrelaxation_conserves_energy, .timeout = 300)
{
    const char *layouts[] = {"\"layout\": \"naive\"", "\"layout\": \"tiled\", \"tile\": 2",
                             "\"layout\": \"planes\", \"tile\": 2"};
    const char *layout = layouts[*variant];
    char preset[1024];
    snprintf(preset, sizeof preset,
             "{\"model\": {\"type\": \"heisenberg_glass\", \"L\": 4, \"couplings\": \"gaussian\"}, \"algorithm\":"
             " {\"type\": \"overrelaxation\", %s}, \"ensemble\": {\"beta\": 2}, \"run\": {\"thermalization\": 200,"
             " \"sweeps\": 1000, \"measure_every\": 10, \"seed\": %d}}", layout, SEED);
    cJSON *result = physics_run(preset, "heisenberg-glass-or");
    double drift = physics_check(result, "energy_drift"), start = physics_check(result, "energy_start");
    double q2_error, q2 = observable(result, "q2", &q2_error);
    printf("glass over-relaxation %s: energy %.8f -> %.8f, drift %.3g per spin, q2 %.4f +- %.4f\n",
           layout, start, physics_check(result, "energy_end"), drift, q2, q2_error);
    cr_expect(drift < DRIFT_TOLERANCE, "energy drift %.3g per spin", drift);
    cr_expect(start < -0.5, "the start (%.4f) is not a thermalized configuration", start);
    cr_expect(q2_error > 0, "the overlap never changed: over-relaxation did not move the spins");
    cJSON_Delete(result);
}

/* Every launch shape of the naive update (algorithm.work_group and
 * sites_per_item; same arithmetic in the same order) gives the automatic
 * shape's series bit for bit on two 4^3 samples (heat-bath thermalization,
 * then pure over-relaxation), and over-relaxation keeps the energy (shapes
 * the lattice or layout cannot take: invalid_presets_are_input_errors). */
Test(heisenberg_glass, launch_shapes_give_the_automatic_series, .timeout = 300)
{
    static const char *shapes[] = {"", ", \"sites_per_item\": 1", ", \"sites_per_item\": 2",
                                   ", \"work_group\": 4", ", \"work_group\": 16, \"sites_per_item\": 1",
                                   ", \"work_group\": 1, \"sites_per_item\": 2"};
    enum { N_SHAPES = sizeof shapes / sizeof shapes[0] };
    char *reference = NULL;
    for (int v = 0; v < N_SHAPES; v++) {
        char preset[1024], *dir, path[4200];
        snprintf(preset, sizeof preset,
                 "{\"model\": {\"type\": \"heisenberg_glass\", \"L\": 4, \"couplings\": \"gaussian\", \"realizations\": 2},"
                 " \"algorithm\": {\"type\": \"overrelaxation\", \"layout\": \"naive\"%s}, \"ensemble\": {\"beta\": 2},"
                 " \"run\": {\"thermalization\": 100, \"sweeps\": 300, \"measure_every\": 5, \"seed\": %d}}",
                 shapes[v], SEED);
        cJSON *result = physics_run_in(preset, "heisenberg-glass-shape", &dir);
        snprintf(path, sizeof path, "%s/series.csv", dir);
        char *series = test_read_file(path);
        cr_assert_not_null(series, "%s", path);
        double drift = physics_check(result, "energy_drift");
        printf("glass launch {%s}: energy %.8f -> %.8f, drift %.3g per spin, series %s\n", shapes[v],
               physics_check(result, "energy_start"), physics_check(result, "energy_end"), drift,
               reference ? (strcmp(series, reference) == 0 ? "identical" : "DIFFERS") : "(reference)");
        cr_expect(drift < DRIFT_TOLERANCE, "shape {%s}: energy drift %.3g per spin", shapes[v], drift);
        if (reference) {
            cr_expect_str_eq(series, reference, "shape {%s}: series differ from the automatic shape's", shapes[v]);
            free(series);
        } else {
            reference = series;
        }
        cJSON_Delete(result);
        free(dir);
    }
    free(reference);
}

/* Energy and q2 at beta averaged over realizations 0 .. n - 1 of the Gaussian
 * 4^3 sample (host simulations; errors combined). */
static void reference_averages(double beta, int realizations, clmc_estimate out[2])
{
    glass_case sample = {3, 4, beta, "gaussian"};
    double sums[2] = {0, 0}, variances[2] = {0, 0};
    for (int r = 0; r < realizations; r++) {
        double *couplings = device_couplings(&sample, (unsigned)r);
        heisenberg_ref_series ref;
        cr_assert_eq(heisenberg_ref_glass_run(3, 3, 4, beta, couplings, 2000, 40000, 199 + r, &ref), 0);
        free(couplings);
        clmc_estimate e[2] = {clmc_estimate_mean(ref.energy, ref.n), clmc_estimate_mean(ref.q2, ref.n)};
        heisenberg_ref_series_free(&ref);
        for (int k = 0; k < 2; k++) {
            sums[k] += e[k].mean;
            variances[k] += e[k].error * e[k].error;
        }
    }
    for (int k = 0; k < 2; k++) {
        out[k].mean = sums[k] / realizations;
        out[k].error = sqrt(variances[k]) / realizations;
    }
}

static void compare_with_reference(const cJSON *observables, const clmc_estimate refs[2], const char *label)
{
    const char *names[] = {"energy", "q2"};
    for (int k = 0; k < 2; k++) {
        const cJSON *o = cJSON_GetObjectItem(observables, names[k]);
        double value = cJSON_GetObjectItem(o, "mean")->valuedouble;
        double error = cJSON_GetObjectItem(o, "error")->valuedouble;
        char what[160];
        snprintf(what, sizeof what, "%s %s", label, names[k]);
        double z = physics_compare(what, value, hypot(error, refs[k].error), refs[k].mean);
        cr_expect_lt(z, TOLERANCE_SIGMA, "%s off by %.2f sigma", what, z);
        cr_expect(error > 0, "an error of zero means nothing was measured");
    }
}

/* Parallel tempering over three betas of one Gaussian 4^3 sample (two replica
 * chains, an exchange every sweep): energy and q2 at each temperature against
 * the host simulation at that beta, for heat-bath + over-relaxation (naive:
 * every configuration at its own beta in one work-item) and Metropolis
 * (tiled, hits 2). */
Test(heisenberg_glass, tempering_agrees_with_host_reference, .timeout = 300)
{
    static const double betas[] = {0.8, 1.0, 1.2};
    enum { N_BETAS = 3 };
    clmc_estimate refs[N_BETAS][2];
    for (int t = 0; t < N_BETAS; t++) reference_averages(betas[t], 1, refs[t]);
    const char *algorithms[] = {"\"type\": \"heatbath\", \"layout\": \"naive\", \"overrelaxation_steps\": 1",
                                "\"type\": \"metropolis\", \"layout\": \"tiled\", \"tile\": 2, \"hits\": 2"};
    const char *labels[] = {"heatbath+OR naive", "metropolis tiled hits=2"};
    for (int a = 0; a < 2; a++) {
        char preset[1024];
        snprintf(preset, sizeof preset,
                 "{\"model\": {\"type\": \"heisenberg_glass\", \"L\": 4, \"couplings\": \"gaussian\"},"
                 " \"algorithm\": {%s}, \"ensemble\": {\"type\": \"parallel_tempering\", \"betas\": [%g, %g, %g],"
                 " \"exchange_every\": 1}, \"run\": {\"thermalization\": 500, \"sweeps\": 4000, \"seed\": %d}}",
                 algorithms[a], betas[0], betas[1], betas[2], SEED);
        cJSON *result = physics_run(preset, "heisenberg-glass-tempering");
        const cJSON *list = cJSON_GetObjectItem(cJSON_GetObjectItem(result, "observables"), "temperatures");
        cr_assert_eq(cJSON_GetArraySize(list), N_BETAS);
        for (int t = 0; t < N_BETAS; t++) {
            char label[96];
            snprintf(label, sizeof label, "glass tempering %s b=%.2f", labels[a], betas[t]);
            compare_with_reference(cJSON_GetArrayItem(list, t), refs[t], label);
        }
        physics_check_tempering_report(result, 2, N_BETAS);
        cJSON_Delete(result);
    }
}

/* model.realizations 2: the disorder averages of energy and q2 against the
 * mean of the host simulations of the two samples, at one beta (naive
 * heat-bath, tiled Metropolis) and under tempering over two betas (naive). */
Test(heisenberg_glass, realizations_average_host_references, .timeout = 300)
{
    static const double betas[] = {1.0, 1.2};
    clmc_estimate refs[2][2];
    for (int t = 0; t < 2; t++) reference_averages(betas[t], 2, refs[t]);
    const char *algorithms[] = {"\"type\": \"heatbath\", \"layout\": \"naive\"",
                                "\"type\": \"metropolis\", \"layout\": \"tiled\", \"tile\": 2, \"hits\": 2"};
    const char *labels[] = {"glass 2 samples b=1.00 heatbath naive", "glass 2 samples b=1.00 metropolis tiled hits=2"};
    char preset[1024];
    for (int a = 0; a < 2; a++) {
        snprintf(preset, sizeof preset,
                 "{\"model\": {\"type\": \"heisenberg_glass\", \"L\": 4, \"realizations\": 2}, \"algorithm\": {%s},"
                 " \"ensemble\": {\"beta\": 1.0}, \"run\": {\"thermalization\": 500, \"sweeps\": 4000, \"seed\": %d}}",
                 algorithms[a], SEED);
        cJSON *result = physics_run(preset, "heisenberg-glass-realizations");
        compare_with_reference(cJSON_GetObjectItem(result, "observables"), refs[0], labels[a]);
        cJSON_Delete(result);
    }
    snprintf(preset, sizeof preset,
             "{\"model\": {\"type\": \"heisenberg_glass\", \"L\": 4, \"realizations\": 2}, \"algorithm\": {%s},"
             " \"ensemble\": {\"type\": \"parallel_tempering\", \"betas\": [1.0, 1.2], \"exchange_every\": 1},"
             " \"run\": {\"thermalization\": 500, \"sweeps\": 4000, \"seed\": %d}}", algorithms[0], SEED);
    cJSON *result = physics_run(preset, "heisenberg-glass-realizations-tempering");
    const cJSON *list = cJSON_GetObjectItem(cJSON_GetObjectItem(result, "observables"), "temperatures");
    cr_assert_eq(cJSON_GetArraySize(list), 2);
    for (int t = 0; t < 2; t++) {
        char label[96];
        snprintf(label, sizeof label, "glass 2 samples tempering b=%.2f heatbath naive", betas[t]);
        compare_with_reference(cJSON_GetArrayItem(list, t), refs[t], label);
    }
    cJSON_Delete(result);
}

/* Each error names its JSON path, and the command line exits with 2. */
Test(heisenberg_glass, invalid_presets_are_input_errors)
{
    const char *cases[][3] = {
        {"\"L\": 4, \"couplings\": \"uniform\"", "\"type\": \"heatbath\"", "model.couplings"},
        {"\"L\": 4, \"n\": 2", "\"type\": \"heatbath\"", "model.n"},
        {"\"L\": 6", "\"tile\": 2", "algorithm.tile: 2 must leave an even number of tiles"},
        {"\"L\": 4, \"realizations\": 0", "\"type\": \"heatbath\"", "model.realizations"},
        {"\"L\": 6", "\"layout\": \"naive\", \"sites_per_item\": 2", "algorithm.sites_per_item: 2 needs model.L"},
        {"\"L\": 4", "\"layout\": \"naive\", \"work_group\": 48", "algorithm.work_group: must be a power of two"},
        {"\"L\": 4", "\"work_group\": 64", "algorithm.work_group: only for layout \"naive\""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char preset[512], label[48];
        snprintf(preset, sizeof preset,
                 "{\"model\": {\"type\": \"heisenberg_glass\", %s}, \"algorithm\": {%s}, \"ensemble\": {\"beta\": 1}}",
                 cases[i][0], cases[i][1]);
        snprintf(label, sizeof label, "heisenberg-glass-invalid-%zu", i);
        expect_input_error(preset, label, cases[i][2]);
    }
    const char *tempering =
        "\"ensemble\": {\"type\": \"parallel_tempering\", \"betas\": [1, 2], \"exchange_every\": 1}";
    const char *tempered[][3] = {
        {"heisenberg_glass", "overrelaxation", "algorithm.type: \"overrelaxation\" keeps the energy"},
        {"heisenberg", "heatbath", "ensemble: the heisenberg ferromagnet has no parallel tempering"},
    };
    for (size_t i = 0; i < 2; i++) {
        char preset[512], label[48];
        snprintf(preset, sizeof preset,
                 "{\"model\": {\"type\": \"%s\", \"L\": 4}, \"algorithm\": {\"type\": \"%s\"}, %s}",
                 tempered[i][0], tempered[i][1], tempering);
        snprintf(label, sizeof label, "heisenberg-glass-invalid-tempering-%zu", i);
        expect_input_error(preset, label, tempered[i][2]);
    }
}
