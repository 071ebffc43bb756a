/* ensemble.type "population_annealing" for the O(n) ferromagnets (model.type
 * "heisenberg": XY n = 2, Heisenberg n = 3; docs/models/heisenberg.md): the
 * energy at every step against independent canonical runs of the same model
 * on the same lattice (ensemble.type "independent", errors from their time
 * series), the free energy beta F / N = -(ln Z)/N (normalised measure, ln Z(0)
 * = 0) against thermodynamic integration of the canonical energies
 * (Simpson) and against the high-temperature series at small beta; exactly
 * R members at every step; reproducible mode repeating bit for bit; resume
 * from a checkpoint bit for bit; bad input exits 2 naming the key.  Errors of
 * PA from ensemble.runs; tolerance 4 (combined) standard errors. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "physics.h"
#include "rerun.h"
#include "testenv.h"

#define TOLERANCE_SIGMA 4.0
#define MAX_STEPS 32

static double beta_of(const cJSON *entry) { return cJSON_GetObjectItem(entry, "beta")->valuedouble; }

static const cJSON *temperatures_of(const cJSON *result)
{
    return cJSON_GetObjectItem(cJSON_GetObjectItem(result, "observables"), "temperatures");
}

/* Modified Bessel functions I_0, I_1 by their series (x <= 1: 30 terms are exact in double). */
static double bessel_i(int order, double x)
{
    double term = order ? x / 2 : 1, sum = 0;
    for (int k = 0; k < 30; k++) {
        sum += term;
        term *= (x / 2) * (x / 2) / ((k + 1.0) * (k + 1.0 + order));
    }
    return sum;
}

/* High-temperature series of ln Z / N (normalised measure): one factor per
 * bond, ln c_0, plus the closed loops of the bond expansion exp(beta s.s') =
 * c_0 (1 + n t s.s' + ...), t = <s.s'> of one bond.  2D XY: c_0 = I_0(beta),
 * t = I_1/I_0; plaquettes 2 t^4 (one per site), 2 x 1 rectangles 2 t^6 (two
 * per site).  3D Heisenberg: c_0 = sinh(beta)/beta, t = coth(beta) - 1/beta;
 * plaquettes 3 t^4 (three per site).  Truncation: O(t^8) in 2D, O(t^6) in 3D. */
static double high_temperature_log_z(int n, int dim, double beta)
{
    if (n == 2 && dim == 2) {
        double t = bessel_i(1, beta) / bessel_i(0, beta);
        return 2 * log(bessel_i(0, beta)) + 2 * pow(t, 4) + 4 * pow(t, 6);
    }
    double t = 1 / tanh(beta) - 1 / beta;
    return dim * log(sinh(beta) / beta) + dim * (dim - 1) / 2 * 3 * pow(t, 4);
}

/* PA of `model` ("dim", "L", "n" ... keys) with `algorithm`, beta 0 to
 * beta_end in `steps` equal steps; canonical runs of the same model at the
 * schedule's betas from `first` on (every `every`-th), independent systems
 * with `copies` copies.  Checks every compared step's energy (|z| <= 4 of the
 * combined error), the population size (exactly R, systematic), and the free
 * energy: at beta <= series_beta against the high-temperature series, and,
 * where simpson, at every even step against h/3 (e_0 + 4 e_1 + 2 e_2 + ... +
 * e_k) over the canonical energies (e_0 = 0 exactly; every step then compared). */
static void against_canonical(const char *label, const char *model, const char *algorithm, int n, int dim,
                              int population, int runs, int theta, int steps, double beta_end, int first, int every,
                              long long sweeps, double series_beta, bool simpson, int seed)
{
    char json[2048], betas[512] = "";
    snprintf(json, sizeof json,
             "{\"model\": {\"type\": \"heisenberg\", %s}, \"algorithm\": {%s}, \"ensemble\": {\"type\": "
             "\"population_annealing\", \"population\": %d, \"beta_end\": %g, \"steps\": %d, \"sweeps_per_step\": %d, "
             "\"runs\": %d}, \"run\": {\"seed\": %d}}",
             model, algorithm, population, beta_end, steps, theta, runs, seed);
    cJSON *pa = physics_run(json, "pa-heis");
    for (int k = first; k <= steps; k += every)
        snprintf(betas + strlen(betas), sizeof betas - strlen(betas), "%s%.17g", k == first ? "" : ", ",
                 beta_end * k / steps);
    snprintf(json, sizeof json,
             "{\"model\": {\"type\": \"heisenberg\", %s}, \"algorithm\": {%s}, \"ensemble\": {\"type\": "
             "\"independent\", \"betas\": [%s], \"copies\": 2}, \"run\": {\"seed\": %d, \"thermalization\": %lld, "
             "\"sweeps\": %lld}}",
             model, algorithm, betas, seed + 1000, sweeps / 10, sweeps);
    cJSON *canonical = physics_run(json, "pa-heis-canonical");
    const cJSON *pa_t = temperatures_of(pa), *can_t = temperatures_of(canonical);
    cr_assert_eq(cJSON_GetArraySize(pa_t), steps + 1);
    cr_expect_float_eq(physics_mean(cJSON_GetArrayItem(pa_t, 0), "free_energy"), 0.0, 1e-15, "ln Z(0) = 0 exactly");
    double h = beta_end / steps, can_energy[MAX_STEPS + 1] = {0}, can_var[MAX_STEPS + 1] = {0};
    int compared = 0;
    cr_assert(steps <= MAX_STEPS && (!simpson || (first == 1 && every == 1)), "Simpson needs every step");
    for (int k = 1; k <= steps; k++) {
        const cJSON *a = cJSON_GetArrayItem(pa_t, k);
        double beta = beta_of(a);
        double members = cJSON_GetObjectItem(cJSON_GetObjectItem(a, "population"), "members")->valuedouble;
        cr_expect_eq(members, population, "%s beta=%g: %g members, R = %d", label, beta, members, population);
        char what[256];
        if (beta <= series_beta + 1e-12) {
            snprintf(what, sizeof what, "%s beta=%.4f free_energy vs high-T series", label, beta);
            double z = physics_compare(what, physics_mean(a, "free_energy"), physics_error(a, "free_energy"),
                                       -high_temperature_log_z(n, dim, beta));
            cr_expect_leq(z, TOLERANCE_SIGMA, "%s", what);
        }
        if (k < first || (k - first) % every) continue;
        const cJSON *b = cJSON_GetArrayItem(can_t, (k - first) / every);
        cr_assert_float_eq(beta_of(b), beta, 1e-12);
        double pa_e = physics_mean(a, "energy"), pa_error = physics_error(a, "energy");
        double can_e = physics_mean(b, "energy"), can_error = physics_error(b, "energy");
        snprintf(what, sizeof what, "%s beta=%.4f energy: PA %.5f +- %.5f, canonical %.5f +- %.5f; difference", label,
                 beta, pa_e, pa_error, can_e, can_error);
        double z = physics_compare(what, pa_e - can_e, sqrt(pa_error * pa_error + can_error * can_error), 0);
        cr_expect_leq(z, TOLERANCE_SIGMA, "%s", what);
        compared++;
        can_energy[k] = can_e;
        can_var[k] = can_error * can_error;
    }
    cr_expect_gt(compared, 0);
    /* Simpson: ln Z(beta_k) / N = -h/3 (e_0 + 4 e_1 + 2 e_2 + ... + 4 e_k-1 + e_k), e_0 = 0. */
    for (int k = 2; simpson && k <= steps; k += 2) {
        double integral = 0, variance = 0;
        for (int j = 1; j <= k; j++) {
            double w = j == k ? 1 : (j % 2 ? 4 : 2);
            integral += h / 3 * w * can_energy[j];
            variance += (h / 3 * w) * (h / 3 * w) * can_var[j];
        }
        const cJSON *a = cJSON_GetArrayItem(pa_t, k);
        double pa_f = physics_mean(a, "free_energy"), pa_f_error = physics_error(a, "free_energy");
        char what[256];
        snprintf(what, sizeof what,
                 "%s beta=%.4f free_energy: PA %.6f +- %.6f, Simpson of canonical e %.6f +- %.6f; difference", label,
                 beta_of(a), pa_f, pa_f_error, integral, sqrt(variance));
        double z = physics_compare(what, pa_f - integral, sqrt(pa_f_error * pa_f_error + variance), 0);
        cr_expect_leq(z, TOLERANCE_SIGMA, "%s", what);
    }
    cJSON_Delete(pa);
    cJSON_Delete(canonical);
}

/* 2D XY, L = 8, beta 0 to 1.0 (into the BKT crossover of L = 8) in steps of
 * 0.125, heat bath: energy at every step, free energy by Simpson at beta 0.25,
 * 0.5, 0.75, 1.0, and the series at beta 0.125, 0.25. */
Test(population_heisenberg, xy2d_energy_and_free_energy_against_canonical, .timeout = 600)
{
    against_canonical("PA XY 2D L=8 heatbath R=200 x6", "\"dim\": 2, \"L\": 8, \"n\": 2",
                      "\"type\": \"heatbath\", \"layout\": \"naive\"", 2, 2, 200, 6, 5, 8, 1.0, 1, 1, 1500, 0.25, true,
                      31);
}

/* 3D Heisenberg, L = 4, beta 0 to 1.0 across the transition (beta_c =
 * 0.693 in the infinite system) in steps of 0.05: Metropolis with one
 * over-relaxation sub-sweep, tiled (tile 2), double precision; the
 * energy at beta 0.4, 0.7, 1.0 and the series at beta 0.1, 0.2. */
Test(population_heisenberg, heisenberg3d_energy_against_canonical, .timeout = 600)
{
    against_canonical("PA Heisenberg 3D L=4 metropolis+OR tiled double R=200 x12",
                      "\"dim\": 3, \"L\": 4, \"n\": 3, \"precision\": \"double\"",
                      "\"type\": \"metropolis\", \"overrelaxation_steps\": 1, \"layout\": \"tiled\", \"tile\": 2", 3, 3,
                      200, 12, 3, 20, 1.0, 8, 6, 1500, 0.2, false, 32);
}

/* Opt-in: the XY preset's L = 32 physics is too slow for the default suite;
 * L = 16 to beta 1.5 through the BKT region, energy at every step. */
Test(population_heisenberg, xy2d_L16_against_canonical_long, .timeout = 3600)
{
    TEST_LONG_ONLY();
    against_canonical("PA XY 2D L=16 heatbath R=500 x8", "\"dim\": 2, \"L\": 16, \"n\": 2",
                      "\"type\": \"heatbath\", \"overrelaxation_steps\": 1", 2, 2, 500, 8, 10, 12, 1.5, 1, 1, 10000,
                      0.25, true, 33);
}

/* ---- Reproducibility and resume -------------------------------------------- */

/* algorithm.reproducible: the same preset twice gives every step's results
 * and the final configurations bit for bit (Philox streams of the slots,
 * exact member energies, pa_exp weights), with nearest_integer resampling
 * (its population near R) and two runs. */
Test(population_heisenberg, reproducible_reruns_are_bit_identical, .timeout = 600)
{
    const char *preset = "{\"model\": {\"type\": \"heisenberg\", \"dim\": 2, \"L\": 8, \"n\": 2}, \"algorithm\": "
                         "{\"type\": \"heatbath\", \"reproducible\": true, \"overrelaxation_steps\": 1}, \"ensemble\": "
                         "{\"type\": \"population_annealing\", \"population\": 64, \"betas\": [0.3, 0.6, 1.0], "
                         "\"sweeps_per_step\": 2, \"resampling\": \"nearest_integer\", \"runs\": 2}, \"run\": "
                         "{\"seed\": 4}}";
    char *text[2], hash[2][32];
    for (int r = 0; r < 2; r++) {
        cJSON *result = physics_run(preset, "pa-heis-rerun");
        const cJSON *temperatures = temperatures_of(result);
        for (int k = 0; k < cJSON_GetArraySize(temperatures); k++) {
            double members = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetArrayItem(temperatures, k), "population"),
                                                 "members")->valuedouble;
            cr_expect(fabs(members - 64) <= 4 * 4 + 1e-9, "nearest_integer: %g members (mean of 2 runs), R = 64",
                      members);
        }
        text[r] = cJSON_PrintUnformatted(temperatures);
        snprintf(hash[r], sizeof hash[r], "%s",
                 cJSON_GetObjectItem(cJSON_GetObjectItem(result, "checks"), "configuration_fnv1a")->valuestring);
        cJSON_Delete(result);
    }
    printf("XY reproducible: configurations %s, %s\n", hash[0], hash[1]);
    cr_expect_str_eq(text[0], text[1], "the two runs differ");
    cr_expect_str_eq(hash[0], hash[1], "the final configurations differ");
    free(text[0]);
    free(text[1]);
}

/* A checkpoint between steps, resumed: results and final spins bit for bit. */
Test(population_heisenberg, resume_is_bit_identical, .timeout = 600)
{
    rerun_expect_resume_identical("pa-heis-resume",
                                  "{\"model\": {\"type\": \"heisenberg\", \"dim\": 3, \"L\": 4}, \"algorithm\": "
                                  "{\"type\": \"heatbath\"}, \"ensemble\": {\"type\": \"population_annealing\", "
                                  "\"population\": 40, \"beta_end\": 1.2, \"steps\": 6, \"sweeps_per_step\": 2, "
                                  "\"resampling\": \"multinomial\"}, \"run\": {\"seed\": 9, \"checkpoint_every\": 5}}");
}

/* ---- Bad input ------------------------------------------------------------ */

#define HEIS_PA(model, algorithm, ensemble)                                                                      \
    "{\"model\": {\"type\": \"heisenberg\", \"dim\": 2, \"L\": 8" model "}, \"algorithm\": {\"type\": "           \
    "\"heatbath\"" algorithm "}, \"ensemble\": {\"type\": \"population_annealing\", \"population\": 16, "        \
    "\"beta_end\": 1, \"steps\": 4" ensemble "}}"

Test(population_heisenberg, bad_input_exits_2_naming_the_key)
{
    expect_input_error("{\"model\": {\"type\": \"heisenberg\", \"L\": 8}, \"algorithm\": {\"type\": "
                       "\"overrelaxation\"}, \"ensemble\": {\"type\": \"population_annealing\", \"population\": 16, "
                       "\"beta_end\": 1, \"steps\": 4}}",
                       "pa-heis-or", "algorithm.type");
    expect_input_error(HEIS_PA("", ", \"rng\": \"lagged_fibonacci_521\", \"layout\": \"naive\"", ""), "pa-heis-rng",
                       "algorithm.rng");
    expect_input_error(HEIS_PA(", \"start\": \"ordered\"", "", ""), "pa-heis-ordered", "model.start");
    expect_input_error(HEIS_PA(", \"precision\": \"double\"", ", \"reproducible\": true", ""), "pa-heis-repro-double",
                       "algorithm.reproducible");
    expect_input_error(HEIS_PA("", "", ", \"sweeps_per_step\": 0"), "pa-heis-theta", "ensemble.sweeps_per_step");
    expect_input_error("{\"model\": {\"type\": \"heisenberg\", \"L\": 8}, \"ensemble\": {\"type\": "
                       "\"population_annealing\", \"population\": 16, \"beta_start\": 0.5, \"beta_end\": 0.4, "
                       "\"steps\": 4}}",
                       "pa-heis-end", "ensemble.beta_end");
    expect_input_error("{\"model\": {\"type\": \"heisenberg_glass\", \"L\": 4}, \"ensemble\": {\"type\": "
                       "\"population_annealing\", \"population\": 16, \"beta_end\": 1, \"steps\": 4}}",
                       "pa-heis-glass", "ensemble.type");
}
