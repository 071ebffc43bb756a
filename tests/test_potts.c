/* Potts model: Swendsen-Wang and the few-cluster variant for q = 2 against
 * the exact 2D Ising solution, Swendsen-Wang against Metropolis for q = 3,
 * identical runs with either consolidation of the labels, the critical
 * slowing down of Swendsen-Wang and Metropolis, and preset errors. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "clmc/preset.h"
#include "ising_exact.h"
#include "physics.h"
#include "testenv.h"

#define TOLERANCE_SIGMA 4.0

static double observable(const cJSON *result, const char *name, double *error, double *tau)
{
    *error = test_observable(result, name, "error");
    if (tau) *tau = test_observable(result, name, "tau_int");
    return test_observable(result, name, "mean");
}

typedef struct {
    int edge;
    double beta_ising;
} exact_case;

/* q = 2 at beta = 2 beta_Ising is the Ising model with e = -1 + e_Ising / 2
 * (delta(s, s') = (1 + s s') / 2) and the same specific heat: both against
 * the exact 2D values within 4 sigma; consumes `result`. */
static void expect_exact_ising(const char *algorithm, const exact_case *c, cJSON *result)
{
    double exact_energy, exact_heat, error, heat_error, tau;
    ising2d_exact(c->edge, c->beta_ising, &exact_energy, &exact_heat);
    double energy = observable(result, "energy", &error, &tau);
    double heat = observable(result, "specific_heat", &heat_error, NULL);
    char what[112];
    snprintf(what, sizeof what, "%s q=2 L=%d beta_Ising=%.7g energy (tau_int %.2f)", algorithm, c->edge,
             c->beta_ising, tau);
    double z = physics_compare(what, energy, error, -1.0 + exact_energy / 2);
    cr_expect_lt(z, TOLERANCE_SIGMA, "energy off by %.2f sigma", z);
    snprintf(what, sizeof what, "%s q=2 L=%d beta_Ising=%.7g C", algorithm, c->edge, c->beta_ising);
    z = physics_compare(what, heat, heat_error, exact_heat);
    cr_expect_lt(z, TOLERANCE_SIGMA, "specific heat off by %.2f sigma", z);
    cr_expect(error > 0 && error < 0.005, "energy error %.5f: zero or too large to mean something", error);
    cJSON_Delete(result);
}

ParameterizedTestParameters(potts, swendsen_wang_q2_matches_exact_ising)
{
    /* L = 32 (union-find) off beta_c repeats its path (CLMC_LONG_TESTS=1). */
    static exact_case cases[] = {{16, 0.3}, {16, 0.4406868}, {16, 0.6}, {32, 0.4406868}, {32, 0.3}, {32, 0.6}};
    return cr_make_param_array(exact_case, cases, test_long_enabled() ? 6 : 4);
}

/* L = 16 labels tiles by self-labeling, L = 32 by union-find. */
ParameterizedTest(exact_case *c, potts, swendsen_wang_q2_matches_exact_ising, .timeout = 300)
{
    char preset[512];
    snprintf(preset, sizeof preset,
             "{\"model\": {\"type\": \"potts\", \"dim\": 2, \"L\": %d, \"q\": 2}, \"algorithm\": {\"type\":"
             " \"swendsen_wang\", \"tile\": %d, \"labeling\": \"%s\"}, \"ensemble\": {\"beta\": %.10g},"
             " \"run\": {\"thermalization\": 300, \"sweeps\": 6000, \"seed\": %d}}",
             c->edge, c->edge == 16 ? 8 : 16, c->edge == 16 ? "self_labeling" : "union_find", 2 * c->beta_ising, 40 + c->edge + (int)(100 * c->beta_ising));
    expect_exact_ising("SW", c, physics_run(preset, "potts-sw-q2"));
}

ParameterizedTestParameters(potts, few_cluster_q2_matches_exact_ising)
{
    static exact_case cases[] = {{16, 0.4406868}, {16, 0.6}};
    return cr_make_param_array(exact_case, cases, sizeof cases / sizeof cases[0]);
}

/* The few-cluster variant: one seed per 8x8 tile (4 seeds), seeded clusters
 * change with probability 0.9; labels consolidated by sewing. */
ParameterizedTest(exact_case *c, potts, few_cluster_q2_matches_exact_ising, .timeout = 300)
{
    char preset[512];
    snprintf(preset, sizeof preset,
             "{\"model\": {\"type\": \"potts\", \"dim\": 2, \"L\": %d, \"q\": 2}, \"algorithm\": {\"type\":"
             " \"few_cluster\", \"tile\": 8, \"consolidation\": \"sewing\", \"flip_probability\": 0.9},"
             " \"ensemble\": {\"beta\": %.10g}, \"run\": {\"thermalization\": 500, \"sweeps\": 8000, \"seed\": %d}}",
             c->edge, 2 * c->beta_ising, 70 + (int)(100 * c->beta_ising));
    expect_exact_ising("few-cluster", c, physics_run(preset, "potts-few-q2"));
}

/* Relaxation and sewing give the same labels, so the same cluster roots
 * draw the same new states: whole runs agree bit for bit (q = 3, 2D L=24
 * with 3 tiles per edge and 3D L=12, both tile labelings). */
Test(potts, consolidation_methods_give_identical_runs, .timeout = 300)
{
    const char *lattices[] = {"\"dim\": 2, \"L\": 24", "\"dim\": 3, \"L\": 12"};
    const char *labelings[] = {"self_labeling", "union_find"};
    for (int i = 0; i < 2; i++) {
        cJSON *results[2];
        const char *methods[] = {"relaxation", "sewing"};
        for (int m = 0; m < 2; m++) {
            char preset[512];
            snprintf(preset, sizeof preset,
                     "{\"model\": {\"type\": \"potts\", %s, \"q\": 3}, \"algorithm\": {\"type\": \"swendsen_wang\","
                     " \"tile\": 4, \"labeling\": \"%s\", \"consolidation\": \"%s\"}, \"ensemble\": {\"beta\": 1.0},"
                     " \"run\": {\"thermalization\": 20, \"sweeps\": 200, \"seed\": 3}}",
                     lattices[i], labelings[i], methods[m]);
            results[m] = physics_run(preset, methods[m]);
        }
        const char *hash[2];
        double energy[2];
        for (int m = 0; m < 2; m++) {
            hash[m] = cJSON_GetObjectItem(cJSON_GetObjectItem(results[m], "checks"), "configuration_fnv1a")->valuestring;
            energy[m] = test_observable(results[m], "energy", "mean");
        }
        printf("q=3 %s, %s: relaxation final configuration %s, energy %.10f; sewing %s, %.10f\n", lattices[i],
               labelings[i], hash[0], energy[0], hash[1], energy[1]);
        cr_expect_str_eq(hash[0], hash[1], "final configurations differ");
        cr_expect_eq(energy[0], energy[1], "mean energies differ");
        for (int m = 0; m < 2; m++) cJSON_Delete(results[m]);
    }
}

ParameterizedTestParameters(potts, swendsen_wang_q3_agrees_with_metropolis)
{
    static double betas[] = {0.8, 1.2};
    return cr_make_param_array(double, betas, 2);
}

/* q = 3, 2D L=16 on either side of beta_c = ln(1 + sqrt 3) = 1.005: two
 * independent algorithms of the engine, compared within the combined error. */
ParameterizedTest(double *beta, potts, swendsen_wang_q3_agrees_with_metropolis, .timeout = 300)
{
    const char *types[] = {"swendsen_wang", "metropolis"};
    int sweeps[] = {6000, 40000};
    cJSON *results[2];
    for (int i = 0; i < 2; i++) {
        char preset[512];
        snprintf(preset, sizeof preset,
                 "{\"model\": {\"type\": \"potts\", \"dim\": 2, \"L\": 16, \"q\": 3}, \"algorithm\": {\"type\": \"%s\"},"
                 " \"ensemble\": {\"beta\": %.10g}, \"run\": {\"thermalization\": 1000, \"sweeps\": %d, \"seed\": %d}}",
                 types[i], *beta, sweeps[i], 7 + i);
        results[i] = physics_run(preset, types[i]);
    }
    const char *names[] = {"energy", "abs_magnetization", "specific_heat"};
    for (int k = 0; k < 3; k++) {
        double sw_error, metropolis_error;
        double sw = observable(results[0], names[k], &sw_error, NULL);
        double metropolis = observable(results[1], names[k], &metropolis_error, NULL);
        char what[112];
        snprintf(what, sizeof what, "q=3 L=16 beta=%.2f SW vs Metropolis %s (Metropolis %.5f +- %.5f)", *beta, names[k],
                 metropolis, metropolis_error);
        double z = physics_compare(what, sw, hypot(sw_error, metropolis_error), metropolis);
        cr_expect_lt(z, TOLERANCE_SIGMA, "%s off by %.2f sigma", names[k], z);
        cr_expect(sw_error > 0 && metropolis_error > 0, "an error of zero means nothing was measured");
    }
    for (int i = 0; i < 2; i++) cJSON_Delete(results[i]);
}

typedef struct {
    int q, metropolis_sweeps;
    double beta, energy_ratio, magnetization_ratio; /* the least Metropolis / Swendsen-Wang tau asked */
} tau_case;

ParameterizedTestParameters(potts, swendsen_wang_beats_critical_slowing_down)
{
    /* q = 2 (the weaker energy gap, 60000 Metropolis sweeps) repeats q = 3's
     * path (CLMC_LONG_TESTS=1). */
    static tau_case cases[] = {{3, 50000, 1.0050525, 10, 10}, {2, 60000, 0.8813736, 4, 10}};
    return cr_make_param_array(tau_case, cases, test_long_enabled() ? 2 : 1);
}

/* Critical 2D Potts models at L = 64: integrated autocorrelation times per
 * sweep, Swendsen-Wang against checkerboard Metropolis.  q = 3: energy and
 * |m| both at least 10x (about 70x and 120x here: 14 against 1040 for the
 * energy, from 50000 Metropolis sweeps).  q = 2 (Ising): for |m| the gap is large (about 170 against 4 in
 * long runs); the energy, which the checkerboard sweep decorrelates fast,
 * gains about 9x at this size (47 against 5.2 from 400000 Metropolis
 * sweeps), and windowed estimates from shorter runs come out lower, so that
 * case asks 4x for the energy. */
ParameterizedTest(tau_case *c, potts, swendsen_wang_beats_critical_slowing_down, .timeout = 600)
{
    const char *types[] = {"swendsen_wang", "metropolis"};
    int sweeps[] = {4000, c->metropolis_sweeps};
    double tau_energy[2], tau_magnetization[2];
    for (int i = 0; i < 2; i++) {
        char preset[512];
        snprintf(preset, sizeof preset,
                 "{\"model\": {\"type\": \"potts\", \"dim\": 2, \"L\": 64, \"q\": %d}, \"algorithm\": {\"type\": \"%s\"},"
                 " \"ensemble\": {\"beta\": %.8f}, \"run\": {\"thermalization\": %d, \"sweeps\": %d, \"seed\": 5}}",
                 c->q, types[i], c->beta, sweeps[i] / 10, sweeps[i]);
        cJSON *result = physics_run(preset, types[i]);
        double error;
        observable(result, "energy", &error, &tau_energy[i]);
        observable(result, "abs_magnetization", &error, &tau_magnetization[i]);
        cJSON_Delete(result);
    }
    printf("critical 2D q=%d Potts L=64, tau_int in sweeps: energy Swendsen-Wang %.2f, Metropolis %.2f (ratio %.1f, "
           "asked %.0f); |m| Swendsen-Wang %.2f, Metropolis %.2f (ratio %.1f, asked %.0f)\n",
           c->q, tau_energy[0], tau_energy[1], tau_energy[1] / tau_energy[0], c->energy_ratio, tau_magnetization[0],
           tau_magnetization[1], tau_magnetization[1] / tau_magnetization[0], c->magnetization_ratio);
    cr_expect(tau_magnetization[0] > 0 && tau_magnetization[1] >= c->magnetization_ratio * tau_magnetization[0],
              "|m|: Metropolis tau %.2f is not %.0fx Swendsen-Wang's %.2f", tau_magnetization[1],
              c->magnetization_ratio, tau_magnetization[0]);
    cr_expect(tau_energy[0] > 0 && tau_energy[1] >= c->energy_ratio * tau_energy[0],
              "energy: Metropolis tau %.2f is not %.0fx Swendsen-Wang's %.2f", tau_energy[1], c->energy_ratio,
              tau_energy[0]);
}

typedef struct {
    const char *model, *algorithm, *ensemble, *needle;
} invalid_case;

static const invalid_case invalid_cases[] = {
    {"\"L\": 24", "\"tile\": 16", "\"beta\": 1", "algorithm.tile: 16 must divide model.L"},
    {"\"L\": 17", "\"type\": \"metropolis\"", "\"beta\": 1", "model.L: must be even"},
    {"\"L\": 16", "\"type\": \"metropolis\", \"tile\": 8", "\"beta\": 1", "algorithm.tile: only for swendsen_wang"},
    {"\"L\": 16", "\"type\": \"swendsen_wang\"", "\"type\": \"parallel_tempering\", \"betas\": [0.5, 1]",
     "ensemble: the potts model has no parallel tempering"},
    {"\"L\": 16, \"q\": 1", "\"type\": \"swendsen_wang\"", "\"beta\": 1", "model.q"},
    {"\"L\": 16, \"dim\": 3, \"q\": 3", "\"type\": \"swendsen_wang\", \"tile\": 32", "\"beta\": 1", "algorithm.tile"},
};

/* Each error names its JSON path, and the command line exits with 2. */
Test(potts, invalid_presets_are_input_errors)
{
    for (size_t i = 0; i < sizeof invalid_cases / sizeof invalid_cases[0]; i++) {
        char preset[512];
        snprintf(preset, sizeof preset, "{\"model\": {\"type\": \"potts\", %s}, \"algorithm\": {%s}, \"ensemble\": {%s}}",
                 invalid_cases[i].model, invalid_cases[i].algorithm, invalid_cases[i].ensemble);
        char label[32];
        snprintf(label, sizeof label, "potts-invalid-%zu", i);
        expect_input_error(preset, label, invalid_cases[i].needle);
    }
}
