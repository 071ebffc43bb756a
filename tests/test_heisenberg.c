/* XY and Heisenberg models: Metropolis (multi-hit tiles), heat-bath and the
 * heat-bath + over-relaxation mix against a sequential host Metropolis
 * simulation (2D and 3D, n = 2 and 3), energy conservation of pure
 * over-relaxation in every layout, float against double and fast_math
 * against accurate math, reproducible mode against the reference, spin
 * lengths, and preset errors. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clmc/preset.h"
#include "clmc/stats.h"
#include "heisenberg_ref.h"
#include "models/heisenberg/heisenberg.h"
#include "physics.h"
#include "testenv.h"

#define TOLERANCE_SIGMA 4.0
#define NORM_TOLERANCE 1e-5
#define DRIFT_TOLERANCE 1e-5

static double observable(const cJSON *result, const char *name, double *error)
{
    *error = test_observable(result, name, "error");
    return test_observable(result, name, "mean");
}

typedef struct {
    int dim, n, edge, tile;
    double beta;
    int naive_too; /* also heat-bath in the naive layout (and, in 3D, heat-bath + OR in planes) */
} lattice_case;

static const char *const names[] = {"energy", "abs_magnetization", "specific_heat"};

/* beta^2 N (<e^2> - <e>^2) from the means of e and e^2; context: beta^2 N. */
static double heat_capacity(const double *means, void *context)
{
    return *(const double *)context * (means[1] - means[0] * means[0]);
}

/* Host reference estimates of names[] for one case, with their errors. */
static void reference_estimates(const lattice_case *c, double mean[3], double error[3])
{
    heisenberg_ref_series series;
    long sweeps = c->dim == 2 ? 60000 : 30000;
    cr_assert_eq(heisenberg_ref_run(c->dim, c->n, c->edge, c->beta, 2000, sweeps, 977 + (uint64_t)c->n, &series), 0);
    double *squares = malloc(series.n * sizeof *squares);
    cr_assert_not_null(squares);
    for (size_t i = 0; i < series.n; i++) squares[i] = series.energy[i] * series.energy[i];
    clmc_estimate e = clmc_estimate_mean(series.energy, series.n);
    clmc_estimate m = clmc_estimate_mean(series.abs_magnetization, series.n);
    const double *pair[] = {series.energy, squares};
    double scale = c->beta * c->beta * pow(c->edge, c->dim);
    clmc_estimate heat = clmc_estimate_derived(pair, 2, series.n, heat_capacity, &scale);
    mean[0] = e.mean, error[0] = e.error;
    mean[1] = m.mean, error[1] = m.error;
    mean[2] = heat.mean, error[2] = heat.error;
    free(squares);
    heisenberg_ref_series_free(&series);
}

/* Runs the case with the given algorithm block and precision/fast_math
 * settings; asserts the spin lengths stayed within NORM_TOLERANCE. */
static cJSON *run_case(const lattice_case *c, const char *algorithm, const char *model_extra, int sweeps, int seed,
                       const char *label)
{
    char preset[1024];
    snprintf(preset, sizeof preset,
             "{\"model\": {\"type\": \"heisenberg\", \"dim\": %d, \"L\": %d, \"n\": %d%s}, \"algorithm\": {%s},"
             " \"ensemble\": {\"beta\": %.10g}, \"run\": {\"thermalization\": 300, \"sweeps\": %d, \"seed\": %d}}",
             c->dim, c->edge, c->n, model_extra, algorithm, c->beta, sweeps, seed);
    cJSON *result = physics_run(preset, label);
    double deviation = physics_check(result, "max_norm_deviation");
    cr_expect(deviation < NORM_TOLERANCE, "%s: max_norm_deviation %.3g", label, deviation);
    return result;
}

static void expect_agreement(const char *label, const lattice_case *c, const cJSON *result, const double mean[3],
                             const double error[3])
{
    for (int k = 0; k < 3; k++) {
        double device_error, device = observable(result, names[k], &device_error);
        char what[128];
        snprintf(what, sizeof what, "%dD n=%d L=%d b=%.2f %s %s", c->dim, c->n, c->edge, c->beta, label, names[k]);
        double z = physics_compare(what, device, hypot(device_error, error[k]), mean[k]);
        cr_expect_lt(z, TOLERANCE_SIGMA, "%s: %s off by %.2f sigma", label, names[k], z);
        cr_expect(device_error > 0, "%s: an error of zero means nothing was measured", label);
    }
}

ParameterizedTestParameters(heisenberg, moves_agree_with_host_reference)
{
    static lattice_case cases[] = {
        {2, 2, 8, 4, 1.0, 1}, {2, 3, 16, 8, 0.7, 0}, {3, 2, 4, 2, 0.45, 0}, {3, 3, 4, 2, 0.6, 1},
    };
    return cr_make_param_array(lattice_case, cases, sizeof cases / sizeof cases[0]);
}

/* Metropolis (3 hits), heat-bath and heat-bath + 2 over-relaxation
 * sub-sweeps, tiled (tile edges 2, 4, 8), in two cases heat-bath in the
 * naive layout and in 3D heat-bath + over-relaxation in the planes layout,
 * against the host Metropolis reference.  The lattices and
 * layouts are few on purpose: each is a kernel build, and PoCL builds take
 * most of this suite's time (the other tests reuse them). */
ParameterizedTest(lattice_case *c, heisenberg, moves_agree_with_host_reference, .timeout = 300)
{
    double mean[3], error[3];
    reference_estimates(c, mean, error);
    const char *moves[] = {"\"type\": \"metropolis\", \"hits\": 3", "\"type\": \"heatbath\"",
                           "\"type\": \"heatbath\", \"overrelaxation_steps\": 2"};
    const char *labels[] = {"metropolis tiled hits=3", "heatbath tiled", "heatbath+2 OR tiled"};
    for (int m = 0; m < 3; m++) {
        char algorithm[192];
        snprintf(algorithm, sizeof algorithm, "%s, \"layout\": \"tiled\", \"tile\": %d", moves[m], c->tile);
        cJSON *result = run_case(c, algorithm, "", 3000, 11 + m, "heisenberg-moves");
        expect_agreement(labels[m], c, result, mean, error);
        cJSON_Delete(result);
    }
    if (!c->naive_too) return;
    cJSON *result = run_case(c, "\"type\": \"heatbath\", \"layout\": \"naive\"", "", 3000, 14, "heisenberg-naive");
    expect_agreement("heatbath naive", c, result, mean, error);
    cJSON_Delete(result);
    if (c->dim != 3) return;
    char planes[160];
    snprintf(planes, sizeof planes, "\"type\": \"heatbath\", \"layout\": \"planes\", \"tile\": %d, \"overrelaxation_steps\": 1",
             c->tile);
    result = run_case(c, planes, "", 3000, 15, "heisenberg-planes");
    expect_agreement("heatbath+OR planes", c, result, mean, error);
    cJSON_Delete(result);
}

typedef struct {
    int dim, n, edge, tile; /* tile 0: naive layout */
} drift_case;

ParameterizedTestParameters(heisenberg, overrelaxation_conserves_energy)
{
    /* The lattices and layouts of moves_agree_with_host_reference: the same
     * kernel builds (PoCL compiles take most of this suite's time). */
    static drift_case cases[] = {{2, 3, 16, 8}, {2, 2, 8, 0}, {3, 3, 4, 0}, {3, 2, 4, 2}};
    return cr_make_param_array(drift_case, cases, sizeof cases / sizeof cases[0]);
}

/* Heat-bath thermalization, then 1000 sweeps of pure over-relaxation in
 * float: the energy per spin may change by rounding only (renormalisation
 * every 100 sweeps included), and the configuration must move. */
ParameterizedTest(drift_case *c, heisenberg, overrelaxation_conserves_energy, .timeout = 300)
{
    char preset[1024], layout[96];
    if (c->tile) snprintf(layout, sizeof layout, "\"layout\": \"tiled\", \"tile\": %d", c->tile);
    else snprintf(layout, sizeof layout, "\"layout\": \"naive\"");
    snprintf(preset, sizeof preset,
             "{\"model\": {\"type\": \"heisenberg\", \"dim\": %d, \"L\": %d, \"n\": %d}, \"algorithm\": {\"type\":"
             " \"overrelaxation\", %s}, \"ensemble\": {\"beta\": 0.5}, \"run\": {\"thermalization\": 200,"
             " \"sweeps\": 1000, \"measure_every\": 10, \"seed\": 5}}",
             c->dim, c->edge, c->n, layout);
    cJSON *result = physics_run(preset, "heisenberg-overrelaxation");
    double drift = physics_check(result, "energy_drift"), start = physics_check(result, "energy_start");
    double deviation = physics_check(result, "max_norm_deviation"), error;
    double m_error, m = observable(result, "abs_magnetization", &m_error);
    double energy = observable(result, "energy", &error);
    printf("over-relaxation %dD n=%d L=%d %s: energy %.8f -> %.8f, drift %.3g per spin, series mean %.8f +- %.2g, "
           "max |s|-1 %.3g, |m| %.4f +- %.4f\n", c->dim, c->n, c->edge, c->tile ? layout : "naive", start,
           physics_check(result, "energy_end"), drift, energy, error, deviation, m, m_error);
    cr_expect(drift < DRIFT_TOLERANCE, "energy drift %.3g per spin", drift);
    /* A random start has |e| of order 1/sqrt(N) (about 0.05 here); the
     * thermalized ones lie near -0.2 (n = 3, 2D) and below. */
    cr_expect(start < -0.15, "the start (%.4f) is not a thermalized configuration", start);
    cr_expect(error < DRIFT_TOLERANCE, "the energy series varies (error %.3g)", error);
    cr_expect(m_error > 0, "the magnetisation never changed: over-relaxation did not move the spins");
    cr_expect(deviation < NORM_TOLERANCE, "max_norm_deviation %.3g", deviation);
    cJSON_Delete(result);
}

/* The same heat-bath + over-relaxation chain in float (accurate math), in
 * double and in float with fast_math (L = 16, tile 8): double and fast_math
 * agree with float within errors, and all three with the host reference. */
Test(heisenberg, precisions_and_fast_math_agree, .timeout = 300)
{
    lattice_case c = {2, 3, 16, 8, 0.9, 0};
    const char *extras[] = {"", ", \"precision\": \"double\"", ""};
    const char *algorithms[] = {"\"overrelaxation_steps\": 1, \"tile\": 8",
                                "\"overrelaxation_steps\": 1, \"tile\": 8",
                                "\"overrelaxation_steps\": 1, \"tile\": 8, \"fast_math\": true"};
    const char *labels[] = {"float", "double", "float fast_math"};
    double mean[3], error[3];
    reference_estimates(&c, mean, error);
    cJSON *results[3];
    for (int i = 0; i < 3; i++) {
        results[i] = run_case(&c, algorithms[i], extras[i], 4000, 21 + i, "heisenberg-precision");
        expect_agreement(labels[i], &c, results[i], mean, error);
    }
    for (int i = 1; i < 3; i++)
        for (int k = 0; k < 3; k++) {
            double e0, e1, v0 = observable(results[0], names[k], &e0), v1 = observable(results[i], names[k], &e1);
            char what[128];
            snprintf(what, sizeof what, "%s vs float %s", labels[i], names[k]);
            double z = physics_compare(what, v1, hypot(e0, e1), v0);
            cr_expect_lt(z, TOLERANCE_SIGMA, "%s: %s off by %.2f sigma", labels[i], names[k], z);
        }
    for (int i = 0; i < 3; i++) cJSON_Delete(results[i]);
}

/* Reproducible mode (cl/common/repro_math.h's functions, no contraction)
 * against the host reference: XY heat-bath (von Mises: cos, log, sqrt,
 * divisions) + over-relaxation, Heisenberg heat-bath (expm1, log1p, cross,
 * normalize) + over-relaxation and Heisenberg Metropolis (exp, sin, cos). */
Test(heisenberg, reproducible_mode_agrees_with_host_reference, .timeout = 300)
{
    lattice_case cases[] = {{2, 2, 8, 4, 1.0, 0}, {2, 3, 16, 8, 0.7, 0}, {2, 3, 16, 8, 0.7, 0}};
    const char *algorithms[] = {"\"overrelaxation_steps\": 1, \"tile\": 4, \"reproducible\": true",
                                "\"overrelaxation_steps\": 1, \"tile\": 8, \"reproducible\": true",
                                "\"type\": \"metropolis\", \"hits\": 3, \"tile\": 8, \"reproducible\": true"};
    const char *labels[] = {"reproducible XY heat-bath + OR", "reproducible heat-bath + OR",
                            "reproducible Metropolis"};
    double mean[3], error[3];
    for (int i = 0; i < 3; i++) {
        if (i < 2) reference_estimates(&cases[i], mean, error);
        cJSON *result = run_case(&cases[i], algorithms[i], "", 4000, 31 + i, "heisenberg-reproducible");
        expect_agreement(labels[i], &cases[i], result, mean, error);
        cJSON_Delete(result);
    }
}

/* Double precision on a device without fp64 is an input error naming
 * model.precision and the device (PoCL has fp64, so the decision itself is
 * tested; a double run on PoCL is in precisions_and_fast_math_agree). */
Test(heisenberg, double_without_fp64_is_refused)
{
    clmc_status status = clmc_heisenberg_check_precision(true, false, "Example GPU 9000");
    const char *message = clmc_error_message();
    printf("double without fp64: status %d, %s\n", (int)status, message);
    cr_expect_eq(status, CLMC_ERR_INPUT);
    cr_expect(strstr(message, "model.precision") && strstr(message, "Example GPU 9000"), "message: %s", message);
    cr_expect_eq(clmc_heisenberg_check_precision(true, true, "x"), CLMC_OK);
    cr_expect_eq(clmc_heisenberg_check_precision(false, false, "x"), CLMC_OK);
}

typedef struct {
    const char *model, *algorithm, *ensemble, *needle;
} invalid_case;

static const invalid_case invalid_cases[] = {
    {"\"L\": 8, \"n\": 4", "\"type\": \"heatbath\"", "\"beta\": 1", "model.n"},
    {"\"L\": 8, \"n\": 1", "\"type\": \"heatbath\"", "\"beta\": 1", "model.n"},
    {"\"L\": 9", "\"type\": \"heatbath\"", "\"beta\": 1", "model.L: must be even"},
    {"\"L\": 8, \"precision\": \"half\"", "\"type\": \"heatbath\"", "\"beta\": 1", "model.precision"},
    {"\"L\": 24", "\"tile\": 16", "\"beta\": 1", "algorithm.tile: 16 must divide model.L"},
    {"\"L\": 24", "\"tile\": 8", "\"beta\": 1", "algorithm.tile: 8 must leave an even number of tiles"},
    {"\"L\": 16", "\"layout\": \"naive\", \"tile\": 8", "\"beta\": 1", "algorithm.tile: only for layouts"},
    {"\"L\": 16", "\"layout\": \"planes\"", "\"beta\": 1", "algorithm.layout: \"planes\" marches along z"},
    {"\"L\": 16", "\"type\": \"overrelaxation\", \"overrelaxation_steps\": 2", "\"beta\": 1",
     "algorithm.overrelaxation_steps"},
    {"\"L\": 16", "\"type\": \"wolff\"", "\"beta\": 1", "algorithm.type"},
    {"\"L\": 8, \"precision\": \"double\"", "\"reproducible\": true", "\"beta\": 1",
     "algorithm.reproducible: true needs model.precision"},
    {"\"L\": 8", "\"reproducible\": true, \"fast_math\": true", "\"beta\": 1",
     "algorithm.reproducible: true excludes algorithm.fast_math"},
    {"\"L\": 16", "\"type\": \"heatbath\"", "\"type\": \"parallel_tempering\", \"betas\": [0.5, 1]",
     "ensemble: the heisenberg ferromagnet has no parallel tempering"},
};

/* Each error names its JSON path, and the command line exits with 2. */
Test(heisenberg, invalid_presets_are_input_errors)
{
    for (size_t i = 0; i < sizeof invalid_cases / sizeof invalid_cases[0]; i++) {
        char preset[512];
        snprintf(preset, sizeof preset,
                 "{\"model\": {\"type\": \"heisenberg\", %s}, \"algorithm\": {%s}, \"ensemble\": {%s}}",
                 invalid_cases[i].model, invalid_cases[i].algorithm, invalid_cases[i].ensemble);
        char label[40];
        snprintf(label, sizeof label, "heisenberg-invalid-%zu", i);
        expect_input_error(preset, label, invalid_cases[i].needle);
    }
}
