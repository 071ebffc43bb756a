/* Edwards-Anderson spin glass: the ferromagnetic limit against the exact 2D
 * solution, 4x4 samples against exact enumeration (both also with parallel
 * tempering), multi-spin coding against the single-spin-coded kernel bit for
 * bit and statistically, tempering energies of the msc energy pass against
 * the measurement kernel, and preset errors. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clmc/preset.h"
#include "clmc/stats.h"
#include "ising_exact.h"
#include "models/ea/ea_ising.h"
#include "physics.h"
#include "testenv.h"

#define TOLERANCE_SIGMA 4.0

typedef struct {
    double beta;
    char couplings[16]; /* inline: parameters cross a process boundary */
} ea_case;

static double observable(const cJSON *result, const char *name, double *error)
{
    *error = test_observable(result, name, "error");
    return test_observable(result, name, "mean");
}

/* ---- 1. Uniform couplings are the ferromagnet ------------------------------- */

ParameterizedTestParameters(ea, uniform_couplings_are_the_ferromagnet)
{
    static double betas[] = {0.3, 0.4406868};
    return cr_make_param_array(double, betas, 2);
}

/* 32 realizations (identical couplings, independent starts and random
 * numbers); the error is over realizations, so 31 degrees of freedom.  1000
 * sweeps (was 4000, the CI budget): errors about 0.0008 at beta 0.3 and
 * 0.002 at beta_c, where a wrong coupling or update shifts e by percents. */
ParameterizedTest(double *beta, ea, uniform_couplings_are_the_ferromagnet, .timeout = 300)
{
    char preset[1024];
    snprintf(preset, sizeof preset,
             "{\"model\": {\"type\": \"ea_ising\", \"dim\": 2, \"L\": 16, \"couplings\": \"uniform\","
             " \"realizations\": 32}, \"algorithm\": {\"layout\": \"naive\"}, \"ensemble\": {\"beta\": %.10g},"
             " \"run\": {\"thermalization\": 500, \"sweeps\": 1000, \"measure_every\": 4, \"seed\": %d}}",
             *beta, 300 + (int)(*beta * 100));
    cJSON *result = physics_run(preset, "ea-ferromagnet");
    double exact_energy, error;
    ising2d_exact(16, *beta, &exact_energy, NULL);
    double energy = observable(result, "energy", &error);
    char what[96];
    snprintf(what, sizeof what, "uniform J, 2D L=16 beta=%.7g energy", *beta);
    double z = physics_compare(what, energy, error, exact_energy);
    cr_expect_lt(z, TOLERANCE_SIGMA, "energy off by %.2f sigma", z);
    cr_expect(error > 0 && error < 0.004, "energy error %.5f: zero or too large to mean something", error);
    cJSON_Delete(result);
}

/* ---- 2. A 4x4 sample against exact enumeration ------------------------------- */

#define SAMPLE_EDGE 4
#define SAMPLE_SITES (SAMPLE_EDGE * SAMPLE_EDGE)
#define SAMPLE_SEED 2024

/* <H>/N of the 4x4 periodic sample (realization 0 of SAMPLE_SEED) over all
 * 2^16 states; couplings from the engine's own host function. */
static double sample_exact_energy(clmc_ea_couplings kind, double beta)
{
    double j[SAMPLE_SITES][2];
    for (int site = 0; site < SAMPLE_SITES; site++)
        for (int d = 0; d < 2; d++) j[site][d] = clmc_ea_coupling(kind, SAMPLE_SEED, 0, (uint32_t)site, (unsigned)d);
    static double energies[1 << SAMPLE_SITES];
    double lowest = 0;
    for (unsigned state = 0; state < (1u << SAMPLE_SITES); state++) {
        double h = 0;
        for (int site = 0; site < SAMPLE_SITES; site++) {
            int x = site % SAMPLE_EDGE, y = site / SAMPLE_EDGE;
            int right = (x + 1) % SAMPLE_EDGE + SAMPLE_EDGE * y, up = x + SAMPLE_EDGE * ((y + 1) % SAMPLE_EDGE);
            int s = (state >> site) & 1 ? 1 : -1;
            int s_right = (state >> right) & 1 ? 1 : -1, s_up = (state >> up) & 1 ? 1 : -1;
            h -= j[site][0] * s * s_right + j[site][1] * s * s_up;
        }
        energies[state] = h;
        if (h < lowest) lowest = h;
    }
    double z = 0, weighted = 0;
    for (unsigned state = 0; state < (1u << SAMPLE_SITES); state++) {
        double w = exp(-beta * (energies[state] - lowest));
        z += w;
        weighted += w * energies[state];
    }
    return weighted / z / SAMPLE_SITES;
}

ParameterizedTestParameters(ea, sample_4x4_against_enumeration)
{
    /* beta 0.5 repeats beta 1.0's path at a higher temperature (CLMC_LONG_TESTS=1). */
    static ea_case cases[] = {{1.0, "bimodal"}, {2.0, "bimodal"}, {1.0, "gaussian"}, {0.5, "bimodal"}};
    return cr_make_param_array(ea_case, cases, test_long_enabled() ? 4 : 3);
}

/* 10000 sweeps (was 30000, the CI budget): errors about 0.002 at beta 1. */
ParameterizedTest(ea_case *c, ea, sample_4x4_against_enumeration, .timeout = 300)
{
    char preset[1024];
    snprintf(preset, sizeof preset,
             "{\"model\": {\"type\": \"ea_ising\", \"dim\": 2, \"L\": %d, \"couplings\": \"%s\"},"
             " \"algorithm\": {\"layout\": \"naive\"}, \"ensemble\": {\"beta\": %.10g},"
             " \"run\": {\"thermalization\": 1000, \"sweeps\": 10000, \"measure_every\": 5, \"seed\": %d}}",
             SAMPLE_EDGE, c->couplings, c->beta, SAMPLE_SEED);
    cJSON *result = physics_run(preset, "ea-sample");
    double exact = sample_exact_energy(clmc_ea_couplings_from_name(c->couplings), c->beta), error;
    double energy = observable(result, "energy", &error);
    char what[96];
    snprintf(what, sizeof what, "4x4 %s sample beta=%.2f energy", c->couplings, c->beta);
    double z = physics_compare(what, energy, error, exact);
    cr_expect_lt(z, TOLERANCE_SIGMA, "energy off by %.2f sigma", z);
    cr_expect(error > 0 && error < 0.01, "energy error %.5f: zero or too large to mean something", error);
    cJSON_Delete(result);
}

/* ---- 3. Multi-spin coding equals the single-spin kernel bit for bit ---------- */

static char *run_dir_preset(const char *preset, const char *label, cJSON **result)
{
    char *dir = test_scratch_dir(label), path[4200];
    cr_assert_not_null(dir);
    snprintf(path, sizeof path, "%s/preset.json", dir);
    test_write_file(path, preset);
    int status = test_run_clmc(NULL, "run '%s' --quiet --out '%s/out'", path, dir);
    cr_assert_eq(status, 0, "clmc run %s exited with %d", label, status);
    snprintf(path, sizeof path, "%s/out", dir);
    *result = test_load_result(path);
    cr_assert_not_null(*result);
    snprintf(path, sizeof path, "%s/out/series.csv", dir);
    free(dir);
    char *series = test_read_file(path);
    cr_assert_not_null(series);
    return series;
}

static const char *configuration_hash(const cJSON *result)
{
    const cJSON *hash = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(result, "checks"),
                                                         "configuration_fnv1a");
    cr_assert(cJSON_IsString(hash));
    return hash->valuestring;
}

typedef struct {
    int dim, word_bits, edge;
} msc_case;

/* The same preset (2 word_bits realizations on L = edge, i.e. two words) run
 * with the msc layout and with the naive one fed msc's shared random
 * numbers: series.csv and the parsed results of both. */
static void run_msc_and_shared(const msc_case *c, const char *ensemble, const char *run, const char *label,
                               char *series[2], cJSON *results[2])
{
    const char *layouts[] = {"\"layout\": \"msc\"", "\"layout\": \"naive\", \"shared_randoms\": true"};
    for (int i = 0; i < 2; i++) {
        char preset[1024], name[64];
        snprintf(preset, sizeof preset,
                 "{\"model\": {\"type\": \"ea_ising\", \"dim\": %d, \"L\": %d, \"realizations\": %d},"
                 " \"algorithm\": {%s, \"word_bits\": %d}, \"ensemble\": {%s}, \"run\": {%s}}",
                 c->dim, c->edge, 2 * c->word_bits, layouts[i], c->word_bits, ensemble, run);
        snprintf(name, sizeof name, "%s-%s", label, i == 0 ? "msc" : "shared");
        series[i] = run_dir_preset(preset, name, &results[i]);
    }
}

ParameterizedTestParameters(ea, msc_equals_naive_with_shared_randoms)
{
    /* The first two by default; all four with CLMC_LONG_TESTS=1 (CI budget). */
    static msc_case cases[] = {{2, 32, 8}, {3, 64, 8}, {3, 32, 8}, {2, 64, 8}};
    return cr_make_param_array(msc_case, cases, test_long_enabled() ? 4 : 2);
}

/* 2 word_bits realizations = two words, so every bit of both words is
 * compared; algorithm.word_bits applies to both layouts. */
ParameterizedTest(msc_case *c, ea, msc_equals_naive_with_shared_randoms, .timeout = 300)
{
    int realizations = 2 * c->word_bits;
    char *series[2];
    cJSON *results[2];
    run_msc_and_shared(c, "\"beta\": 1.0", "\"thermalization\": 100, \"sweeps\": 200, \"seed\": 77", "ea", series,
                       results);
    const char *msc_hash = configuration_hash(results[0]), *naive_hash = configuration_hash(results[1]);
    double msc_energy = test_observable(results[0], "energy", "mean");
    double naive_energy = test_observable(results[1], "energy", "mean");
    printf("%dD L=8, word_bits %d, %d realizations, 300 sweeps: configuration hash msc %s, naive shared %s; "
           "energy %.10f vs %.10f; series.csv %zu vs %zu bytes, %s\n",
           c->dim, c->word_bits, realizations, msc_hash, naive_hash, msc_energy, naive_energy, strlen(series[0]), strlen(series[1]),
           strcmp(series[0], series[1]) == 0 ? "identical" : "different");
    cr_expect_str_eq(msc_hash, naive_hash, "final configurations differ");
    cr_expect_str_eq(series[0], series[1], "series.csv differ");
    /* From a random start (e = 0) the spins must have moved towards order. */
    cr_expect_lt(msc_energy, -1.0, "energy %.4f: the updates did not run", msc_energy);
    for (int i = 0; i < 2; i++) {
        free(series[i]);
        cJSON_Delete(results[i]);
    }
}

/* ---- 4. Shared random numbers leave the statistics unchanged ----------------- */

ParameterizedTestParameters(ea, msc_agrees_with_independent_randoms)
{
    static int word_bits[] = {32, 64}; /* 64 with CLMC_LONG_TESTS=1 (CI budget) */
    return cr_make_param_array(int, word_bits, test_long_enabled() ? 2 : 1);
}

/* Same seed, so the same couplings and starts; only the random numbers
 * differ.  The errors over realizations include the sample-to-sample spread,
 * which the two runs share, so the combined error is conservative.  One word
 * of word_bits realizations (word_bits does not change naive without
 * shared_randoms). */
ParameterizedTest(int *word_bits, ea, msc_agrees_with_independent_randoms, .timeout = 300)
{
    const char *layouts[] = {"msc", "naive"};
    cJSON *results[2];
    for (int i = 0; i < 2; i++) {
        char preset[1024];
        snprintf(preset, sizeof preset,
                 "{\"model\": {\"type\": \"ea_ising\", \"dim\": 3, \"L\": 8, \"realizations\": %d},"
                 " \"algorithm\": {\"layout\": \"%s\", \"word_bits\": %d}, \"ensemble\": {\"beta\": 1.0},"
                 " \"run\": {\"thermalization\": 1000, \"sweeps\": 4000, \"measure_every\": 4, \"seed\": 8}}",
                 *word_bits, layouts[i], *word_bits);
        results[i] = physics_run(preset, layouts[i]);
    }
    const char *names[] = {"energy", "q2"};
    for (int k = 0; k < 2; k++) {
        double msc_error, naive_error;
        double msc = observable(results[0], names[k], &msc_error);
        double naive = observable(results[1], names[k], &naive_error);
        char what[96];
        snprintf(what, sizeof what, "3D L=8 beta=1 msc%d vs naive %s (naive %.5f +- %.5f)", *word_bits, names[k], naive,
                 naive_error);
        double z = physics_compare(what, msc, hypot(msc_error, naive_error), naive);
        cr_expect_lt(z, TOLERANCE_SIGMA, "%s off by %.2f sigma", names[k], z);
        cr_expect(msc_error > 0 && naive_error > 0, "an error of zero means nothing was measured");
    }
    for (int i = 0; i < 2; i++) cJSON_Delete(results[i]);
}

/* ---- 5. Parallel tempering (naive layout) ------------------------------------ */

static const cJSON *temperature_entries(const cJSON *result, int expected)
{
    const cJSON *list = cJSON_GetObjectItem(cJSON_GetObjectItem(result, "observables"), "temperatures");
    cr_assert_eq(cJSON_GetArraySize(list), expected, "one estimate per temperature");
    return list;
}

static double entry_observable(const cJSON *entry, const char *name, double *error)
{
    const cJSON *o = cJSON_GetObjectItem(entry, name);
    cr_assert_not_null(o, "observable %s missing", name);
    *error = cJSON_GetObjectItem(o, "error")->valuedouble;
    return cJSON_GetObjectItem(o, "mean")->valuedouble;
}

/* Uniform J: two chains (the replicas) of the 2D ferromagnet, L=16, across
 * the critical point; 8000 sweeps (was 20000, the CI budget: errors about
 * 0.004 at beta_c, 0.001 elsewhere). */
Test(ea, tempering_ferromagnet_matches_exact, .timeout = 300)
{
    static const double betas[] = {0.3, 0.36, 0.4406868, 0.5, 0.6};
    const char *preset =
        "{\"model\": {\"type\": \"ea_ising\", \"dim\": 2, \"L\": 16, \"couplings\": \"uniform\"},"
        " \"algorithm\": {\"layout\": \"naive\"}, \"ensemble\": {\"type\": \"parallel_tempering\","
        " \"betas\": [0.3, 0.36, 0.4406868, 0.5, 0.6], \"exchange_every\": 10},"
        " \"run\": {\"thermalization\": 1000, \"sweeps\": 8000, \"measure_every\": 5, \"seed\": 31}}";
    cJSON *result = physics_run(preset, "ea-tempering-ferromagnet");
    const cJSON *list = temperature_entries(result, 5);
    for (int t = 0; t < 5; t++) {
        const cJSON *entry = cJSON_GetArrayItem(list, t);
        cr_expect_float_eq(cJSON_GetObjectItem(entry, "beta")->valuedouble, betas[t], 1e-12);
        double exact, error;
        ising2d_exact(16, betas[t], &exact, NULL);
        double energy = entry_observable(entry, "energy", &error);
        char what[96];
        snprintf(what, sizeof what, "tempering uniform J, 2D L=16 beta=%.7g energy", betas[t]);
        double z = physics_compare(what, energy, error, exact);
        cr_expect_lt(z, TOLERANCE_SIGMA, "beta %.7g: energy off by %.2f sigma", betas[t], z);
        cr_expect(error > 0 && error < 0.01, "energy error %.5f: zero or too large to mean something", error);
    }
    physics_check_tempering_report(result, 2, 5);
    cJSON_Delete(result);
}

/* The 4x4 +-J sample of section 2 at three temperatures in one ensemble
 * (10000 sweeps, was 30000: errors about 0.004 at beta 0.5). */
Test(ea, tempering_sample_4x4_against_enumeration, .timeout = 300)
{
    static const double betas[] = {0.5, 1.0, 2.0};
    char preset[1024];
    snprintf(preset, sizeof preset,
             "{\"model\": {\"type\": \"ea_ising\", \"dim\": 2, \"L\": %d, \"couplings\": \"bimodal\"},"
             " \"algorithm\": {\"layout\": \"naive\"}, \"ensemble\": {\"type\": \"parallel_tempering\","
             " \"betas\": [0.5, 1.0, 2.0], \"exchange_every\": 10},"
             " \"run\": {\"thermalization\": 1000, \"sweeps\": 10000, \"measure_every\": 5, \"seed\": %d}}",
             SAMPLE_EDGE, SAMPLE_SEED);
    cJSON *result = physics_run(preset, "ea-tempering-sample");
    const cJSON *list = temperature_entries(result, 3);
    for (int t = 0; t < 3; t++) {
        double exact = sample_exact_energy(CLMC_EA_BIMODAL, betas[t]), error;
        double energy = entry_observable(cJSON_GetArrayItem(list, t), "energy", &error);
        char what[96];
        snprintf(what, sizeof what, "tempering 4x4 bimodal sample beta=%.2f energy", betas[t]);
        double z = physics_compare(what, energy, error, exact);
        cr_expect_lt(z, TOLERANCE_SIGMA, "beta %.2f: energy off by %.2f sigma", betas[t], z);
        cr_expect(error > 0 && error < 0.01, "energy error %.5f: zero or too large to mean something", error);
    }
    physics_check_tempering_report(result, 2, 3);
    cJSON_Delete(result);
}

ParameterizedTestParameters(ea, msc_tempering_equals_naive_with_shared_randoms)
{
    /* 3D with CLMC_LONG_TESTS=1 (CI budget).  2D on L = 4: the msc programs of
     * energy_pass_equals_measurement's 2D L = 4 case (the same realizations,
     * temperatures and word bits), one program build set fewer. */
    static msc_case cases[] = {{2, 32, 4}, {3, 64, 8}};
    return cr_make_param_array(msc_case, cases, test_long_enabled() ? 2 : 1);
}

/* Tempering: the exchanges depend on the exact energies only, so with the
 * msc random numbers the naive kernel must follow msc exactly, the lanes of
 * each word scattered over the temperatures.  Two words, four temperatures. */
ParameterizedTest(msc_case *c, ea, msc_tempering_equals_naive_with_shared_randoms, .timeout = 300)
{
    int realizations = 2 * c->word_bits;
    char *series[2];
    cJSON *results[2];
    char ensemble[160];
    snprintf(ensemble, sizeof ensemble, "\"type\": \"parallel_tempering\", \"betas\": %s, \"exchange_every\": 3",
             c->dim == 2 ? "[0.3, 0.5, 0.7, 0.9]" : "[0.6, 0.66, 0.72, 0.78]");
    run_msc_and_shared(c, ensemble, "\"thermalization\": 60, \"sweeps\": 120, \"measure_every\": 4, \"seed\": 78",
                       "ea-tempering", series, results);
    const cJSON *reports[2];
    for (int i = 0; i < 2; i++)
        reports[i] = cJSON_GetObjectItem(cJSON_GetObjectItem(results[i], "observables"), "tempering");
    char *maps[2];
    for (int i = 0; i < 2; i++) maps[i] = cJSON_PrintUnformatted(reports[i]);
    const cJSON *acceptance = cJSON_GetObjectItem(reports[0], "acceptance");
    printf("%dD L=%d, word_bits %d, %d realizations, 4 temperatures, 180 sweeps: configuration hash msc %s, naive "
           "shared %s; acceptance %.3f %.3f %.3f; series.csv %zu vs %zu bytes, %s; tempering reports %s\n",
           c->dim, c->edge, c->word_bits, realizations, configuration_hash(results[0]), configuration_hash(results[1]),
           cJSON_GetArrayItem(acceptance, 0)->valuedouble, cJSON_GetArrayItem(acceptance, 1)->valuedouble,
           cJSON_GetArrayItem(acceptance, 2)->valuedouble, strlen(series[0]), strlen(series[1]),
           strcmp(series[0], series[1]) == 0 ? "identical" : "different",
           strcmp(maps[0], maps[1]) == 0 ? "identical" : "different");
    cr_expect_str_eq(configuration_hash(results[0]), configuration_hash(results[1]), "final configurations differ");
    cr_expect_str_eq(series[0], series[1], "series.csv differ");
    cr_expect_str_eq(maps[0], maps[1], "exchange histories differ");
    physics_check_tempering_report(results[0], 2 * realizations, 4);
    for (int i = 0; i < 2; i++) {
        free(maps[i]);
        free(series[i]);
        cJSON_Delete(results[i]);
    }
}

/* msc tempering on the 4x4 +-J sample: realization 0 of 32 in one word (the
 * others are other samples, their lanes at their own temperatures).  Its two
 * chains' rows of series.csv give the sample's energy at each temperature,
 * with a time-series error, against exact enumeration. */
Test(ea, msc_tempering_sample_4x4_against_enumeration, .timeout = 300)
{
    static const double betas[] = {0.5, 1.0, 2.0};
    enum { TEMPERATURES = 3, MEASUREMENTS = 2000 }; /* was 5000 (the CI budget): errors about 0.004 at beta 0.5 */
    char preset[1024];
    snprintf(preset, sizeof preset,
             "{\"model\": {\"type\": \"ea_ising\", \"dim\": 2, \"L\": %d, \"realizations\": 32},"
             " \"algorithm\": {\"layout\": \"msc\", \"word_bits\": 32}, \"ensemble\": {\"type\":"
             " \"parallel_tempering\", \"betas\": [0.5, 1.0, 2.0], \"exchange_every\": 10},"
             " \"run\": {\"thermalization\": 2000, \"sweeps\": %d, \"measure_every\": 10, \"seed\": %d}}",
             SAMPLE_EDGE, 10 * MEASUREMENTS, SAMPLE_SEED);
    cJSON *result;
    char *series = run_dir_preset(preset, "ea-msc-tempering-sample", &result);
    static double energy[TEMPERATURES][MEASUREMENTS];
    int rows[TEMPERATURES] = {0};
    for (char *line = strchr(series, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
        /* strto* rather than sscanf, which measures the whole rest of the file per call */
        char *at = line + 1;
        unsigned long sweep = strtoul(at, &at, 10);
        long system = strtol(at + 1, &at, 10), t = strtol(at + 1, &at, 10);
        double beta = strtod(at + 1, &at), e = strtod(at + 1, &at);
        cr_assert(*at == ',', "bad row after sweep %lu", sweep);
        if (system > 1) continue;
        cr_assert(t >= 0 && t < TEMPERATURES && beta == betas[t], "row of sweep %lu: temperature %ld beta %g", sweep,
                  t, beta);
        int m = rows[t]++ / 2; /* systems 0 and 1 alternate within a measurement */
        cr_assert_lt(m, MEASUREMENTS);
        energy[t][m] += 0.5 * e;
    }
    for (int t = 0; t < TEMPERATURES; t++) {
        cr_assert_eq(rows[t], 2 * MEASUREMENTS, "temperature %d: %d rows of realization 0", t, rows[t]);
        clmc_estimate estimate = clmc_estimate_mean(energy[t], MEASUREMENTS);
        double exact = sample_exact_energy(CLMC_EA_BIMODAL, betas[t]);
        char what[96];
        snprintf(what, sizeof what, "msc tempering 4x4 bimodal sample beta=%.2f energy", betas[t]);
        double z = physics_compare(what, estimate.mean, estimate.error, exact);
        cr_expect_lt(z, TOLERANCE_SIGMA, "beta %.2f: energy off by %.2f sigma", betas[t], z);
        cr_expect(estimate.error > 0 && estimate.error < 0.01, "energy error %.5f: zero or too large to mean something",
                  estimate.error);
    }
    physics_check_tempering_report(result, 64, TEMPERATURES);
    free(series);
    cJSON_Delete(result);
}

typedef struct {
    int dim, edge, word_bits;
} energy_pass_case;

ParameterizedTestParameters(ea, energy_pass_equals_measurement)
{
    /* Half-lattices of 8, 800, 256 and 864 sites, four sites per work-item:
     * one group of 2 work-items (fewer than the lanes), two groups of 128
     * (the second partly idle), one full group of 64, two of 128 (the last
     * repeats the second's path in 3D: CLMC_LONG_TESTS=1).  3D L = 8 with 64
     * realizations and these temperatures are launch_keys_keep_the_results'
     * programs (was L = 6, programs of its own). */
    static energy_pass_case cases[] = {{2, 4, 32}, {2, 40, 64}, {3, 8, 32}, {3, 12, 64}};
    return cr_make_param_array(energy_pass_case, cases, test_long_enabled() ? 4 : 3);
}

static double check_count(const cJSON *result, const char *name)
{
    const cJSON *value = cJSON_GetObjectItem(cJSON_GetObjectItem(result, "checks"), name);
    cr_assert(cJSON_IsNumber(value), "checks.%s missing", name);
    return value->valuedouble;
}

/* msc tempering takes its energies from the last colour pass of the sweep
 * before each exchange.  algorithm.tempering_energies "check" also measures
 * them with the measurement kernel at every exchange and counts the
 * configurations whose energies differ (must be none); "measure" is the previous
 * method, whose run (series.csv, observables, final configurations) must be
 * the same bit for bit. */
ParameterizedTest(energy_pass_case *c, ea, energy_pass_equals_measurement, .timeout = 300)
{
    const char *modes[] = {"check", "measure"};
    enum { REALIZATIONS_PER_WORD = 2, TEMPERATURES = 4, SWEEPS = 60, EVERY = 3 };
    int realizations = REALIZATIONS_PER_WORD * c->word_bits;
    char *series[2], *observables[2];
    cJSON *results[2];
    for (int i = 0; i < 2; i++) {
        char preset[1024];
        snprintf(preset, sizeof preset,
                 "{\"model\": {\"type\": \"ea_ising\", \"dim\": %d, \"L\": %d, \"realizations\": %d},"
                 " \"algorithm\": {\"layout\": \"msc\", \"word_bits\": %d, \"tempering_energies\": \"%s\"},"
                 " \"ensemble\": {\"type\": \"parallel_tempering\", \"betas\": %s, \"exchange_every\": %d},"
                 " \"run\": {\"thermalization\": %d, \"sweeps\": %d, \"measure_every\": 5, \"seed\": 91}}",
                 c->dim, c->edge, realizations, c->word_bits, modes[i],
                 c->dim == 2 ? "[0.3, 0.5, 0.7, 0.9]" : "[0.6, 0.66, 0.72, 0.78]", EVERY, SWEEPS / 2, SWEEPS / 2);
        series[i] = run_dir_preset(preset, i == 0 ? "ea-energy-check" : "ea-energy-measure", &results[i]);
        observables[i] = cJSON_PrintUnformatted(cJSON_GetObjectItem(results[i], "observables"));
    }
    double configurations = 2.0 * realizations * TEMPERATURES, exchanges = SWEEPS / EVERY;
    double checked = check_count(results[0], "energy_pass_checked");
    double mismatches = check_count(results[0], "energy_pass_mismatches");
    printf("%dD L=%d word_bits %d: energies of %g configurations x %g exchanges from the last colour pass: %g "
           "checked, %g differ from the measurement kernel; against the measured-energy run: hashes %s %s, series.csv "
           "%s, observables %s\n",
           c->dim, c->edge, c->word_bits, configurations, exchanges, checked, mismatches,
           configuration_hash(results[0]), configuration_hash(results[1]),
           strcmp(series[0], series[1]) == 0 ? "identical" : "different",
           strcmp(observables[0], observables[1]) == 0 ? "identical" : "different");
    cr_expect_eq(checked, configurations * exchanges, "energy pass ran at %g of %g exchanges",
                 checked / configurations, exchanges);
    cr_expect_eq(mismatches, 0, "%g energies differ", mismatches);
    cr_expect_str_eq(configuration_hash(results[0]), configuration_hash(results[1]), "final configurations differ");
    cr_expect_str_eq(series[0], series[1], "series.csv differ");
    cr_expect_str_eq(observables[0], observables[1], "observables differ");
    for (int i = 0; i < 2; i++) {
        free(series[i]);
        free(observables[i]);
        cJSON_Delete(results[i]);
    }
}

/* The launch keys clmc tune searches (algorithm.update_group, energy_sites,
 * reverse_odd: model.h keeps_order) change no random number and no update
 * within a colour: msc tempering runs with each of them varied give the same
 * series.csv, observables and final configurations bit for bit as the run
 * with the keys left automatic, which reports them resolved. */
Test(ea, launch_keys_keep_the_results, .timeout = 300)
{
    static const char *const settings[] = {
        "",
        "--set algorithm.update_group=32 --set algorithm.energy_sites=1 --set algorithm.reverse_odd=0",
        "--set algorithm.update_group=64 --set algorithm.energy_sites=16 --set algorithm.reverse_odd=1",
    };
    enum { RUNS = sizeof settings / sizeof *settings };
    char *dir = test_scratch_dir("ea-launch-keys"), path[4200], *series[RUNS], *observables[RUNS];
    cJSON *results[RUNS];
    snprintf(path, sizeof path, "%s/preset.json", dir);
    test_write_file(path, "{\"model\": {\"type\": \"ea_ising\", \"dim\": 3, \"L\": 8, \"realizations\": 64},"
                          " \"algorithm\": {\"layout\": \"msc\", \"word_bits\": 32}, \"ensemble\": {\"type\":"
                          " \"parallel_tempering\", \"betas\": [0.6, 0.66, 0.72, 0.78], \"exchange_every\": 3},"
                          " \"run\": {\"thermalization\": 30, \"sweeps\": 60, \"measure_every\": 5, \"seed\": 17}}");
    for (int i = 0; i < RUNS; i++) {
        char out[4300];
        snprintf(out, sizeof out, "%s/out%d", dir, i);
        int status = test_run_clmc(NULL, "run '%s' --quiet --out '%s' %s", path, out, settings[i]);
        cr_assert_eq(status, 0, "clmc run %s exited with %d", settings[i], status);
        results[i] = test_load_result(out);
        cr_assert_not_null(results[i]);
        snprintf(out + strlen(out), sizeof out - strlen(out), "/series.csv");
        series[i] = test_read_file(out);
        cr_assert_not_null(series[i]);
        observables[i] = cJSON_PrintUnformatted(cJSON_GetObjectItem(results[i], "observables"));
    }
    const cJSON *algorithm = cJSON_GetObjectItem(cJSON_GetObjectItem(results[0], "preset"), "algorithm");
    double sites = cJSON_GetObjectItem(algorithm, "energy_sites")->valuedouble;
    double reverse = cJSON_GetObjectItem(algorithm, "reverse_odd")->valuedouble;
    printf("automatic launch keys resolved to energy_sites %g, reverse_odd %g, update_group %g\n", sites, reverse,
           cJSON_GetObjectItem(algorithm, "update_group")->valuedouble);
    cr_expect(sites >= 1 && sites <= 8, "energy_sites %g not resolved", sites);
    cr_expect(reverse == 0 || reverse == 1, "reverse_odd %g not resolved", reverse);
    for (int i = 1; i < RUNS; i++) {
        printf("%s: hash %s against %s, series.csv %s, observables %s\n", settings[i], configuration_hash(results[i]),
               configuration_hash(results[0]), strcmp(series[i], series[0]) == 0 ? "identical" : "different",
               strcmp(observables[i], observables[0]) == 0 ? "identical" : "different");
        cr_expect_str_eq(configuration_hash(results[i]), configuration_hash(results[0]), "%s: configurations differ",
                         settings[i]);
        cr_expect_str_eq(series[i], series[0], "%s: series.csv differ", settings[i]);
        cr_expect_str_eq(observables[i], observables[0], "%s: observables differ", settings[i]);
    }
    for (int i = 0; i < RUNS; i++) {
        free(series[i]);
        free(observables[i]);
        cJSON_Delete(results[i]);
    }
    free(dir);
}

/* The host side of the exchanges runs its per-chain loops on several
 * threads when the build has OpenMP (above 256 chains, 4096
 * configurations): one thread and two must give the same run. */
Test(ea, tempering_does_not_depend_on_host_threads, .timeout = 300)
{
    const char *threads[] = {"1", "2"};
    char *series[2], *reports[2];
    cJSON *results[2];
    for (int i = 0; i < 2; i++) {
        setenv("OMP_NUM_THREADS", threads[i], 1);
        const char *preset =
            "{\"model\": {\"type\": \"ea_ising\", \"dim\": 2, \"L\": 4, \"realizations\": 2048},"
            " \"algorithm\": {\"layout\": \"msc\", \"word_bits\": 32}, \"ensemble\": {\"type\":"
            " \"parallel_tempering\", \"betas\": [0.5, 1.0, 1.5, 2.0], \"exchange_every\": 2},"
            " \"run\": {\"thermalization\": 20, \"sweeps\": 100, \"measure_every\": 10, \"seed\": 5}}";
        series[i] = run_dir_preset(preset, i == 0 ? "ea-threads-1" : "ea-threads-2", &results[i]);
        reports[i] = cJSON_PrintUnformatted(cJSON_GetObjectItem(cJSON_GetObjectItem(results[i], "observables"),
                                                                "tempering"));
    }
    printf("4096 chains x 4 temperatures, OMP_NUM_THREADS 1 vs 2: hashes %s %s; series %s; tempering reports %s\n",
           configuration_hash(results[0]), configuration_hash(results[1]),
           strcmp(series[0], series[1]) == 0 ? "identical" : "different",
           strcmp(reports[0], reports[1]) == 0 ? "identical" : "different");
    cr_expect_str_eq(configuration_hash(results[0]), configuration_hash(results[1]));
    cr_expect_str_eq(series[0], series[1], "series.csv differ");
    cr_expect_str_eq(reports[0], reports[1], "exchange histories differ");
    for (int i = 0; i < 2; i++) {
        free(series[i]);
        free(reports[i]);
        cJSON_Delete(results[i]);
    }
}

/* ---- Couplings and preset errors ------------------------------------------ */

/* 10^5 bonds: bimodal balanced, Gaussian with mean 0 and variance 1, within
 * 4 standard errors, and the same value on every call. */
Test(ea, coupling_distributions)
{
    const int n = 100000;
    double bimodal = 0, sum = 0, squares = 0;
    for (int i = 0; i < n; i++) {
        uint32_t realization = (uint32_t)(i / 3000), site = (uint32_t)(i % 3000) / 3;
        unsigned direction = (unsigned)(i % 3);
        bimodal += clmc_ea_coupling(CLMC_EA_BIMODAL, 5, realization, site, direction);
        double g = clmc_ea_coupling(CLMC_EA_GAUSSIAN, 5, realization, site, direction);
        sum += g;
        squares += g * g;
    }
    double mean = sum / n, variance = squares / n - mean * mean;
    printf("bimodal mean %.5f, gaussian mean %.5f variance %.5f (standard errors %.5f, %.5f)\n", bimodal / n, mean,
           variance, 1 / sqrt(n), sqrt(2.0 / n));
    cr_expect_lt(fabs(bimodal / n), 4 / sqrt(n));
    cr_expect_lt(fabs(mean), 4 / sqrt(n));
    cr_expect_lt(fabs(variance - 1), 4 * sqrt(2.0 / n));
    cr_expect_eq(clmc_ea_coupling(CLMC_EA_GAUSSIAN, 5, 7, 11, 1), clmc_ea_coupling(CLMC_EA_GAUSSIAN, 5, 7, 11, 1));
    cr_expect_eq(clmc_ea_coupling(CLMC_EA_UNIFORM, 5, 7, 11, 1), 1.0);
}

typedef struct {
    const char *model, *algorithm, *needle;
    const char *ensemble; /* NULL: "beta": 1 */
} invalid_case;

static const invalid_case invalid_cases[] = {
    {"\"L\": 8, \"couplings\": \"gaussian\", \"realizations\": 32", "\"layout\": \"msc\"",
     "model.couplings: bimodal couplings required for msc", NULL},
    {"\"L\": 8, \"realizations\": 48", "\"layout\": \"msc\", \"word_bits\": 32", "model.realizations: ", NULL},
    {"\"L\": 8, \"realizations\": 32", "\"layout\": \"msc\"", "algorithm.word_bits", NULL},
    {"\"L\": 8, \"realizations\": 96", "\"layout\": \"msc\", \"word_bits\": 64", "model.realizations: ", NULL},
    {"\"L\": 8, \"realizations\": 64", "\"layout\": \"msc\", \"word_bits\": 48", "algorithm.word_bits: ", NULL},
    {"\"L\": 9", "\"layout\": \"naive\"", "model.L: must be even", NULL},
    {"\"dim\": 3, \"L\": 1292", "\"layout\": \"naive\"", "model.L: ", NULL},
    {"\"L\": 8, \"realizations\": 32", "\"layout\": \"msc\", \"word_bits\": 32", "ensemble.betas",
     "\"type\": \"parallel_tempering\", \"betas\": [1, 0.5]"},
    {"\"L\": 8, \"couplings\": \"uniform\", \"realizations\": 32", "\"layout\": \"msc\", \"word_bits\": 32",
     "model.couplings: \"uniform\"", NULL},
    {"\"L\": 8, \"couplings\": \"uniform\"", "\"layout\": \"naive\", \"shared_randoms\": true",
     "model.couplings: \"uniform\"", NULL},
    {"\"L\": 8, \"realizations\": 32", "\"layout\": \"msc\", \"word_bits\": 32", "ensemble.betas",
     "\"type\": \"parallel_tempering\", \"betas\": [0.5, 0.5]"},
    {"\"L\": 8, \"realizations\": 1048576", "\"layout\": \"msc\", \"word_bits\": 32", "ensemble.betas: ",
     "\"type\": \"parallel_tempering\", \"betas\": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 1.1, 1.2, "
     "1.3, 1.4, 1.5, 1.6]"},
    {"\"L\": 8, \"realizations\": 32", "\"layout\": \"msc\", \"word_bits\": 32, \"tempering_energies\": \"check\"",
     "algorithm.tempering_energies: \"check\" is for layout \"msc\" with parallel tempering", NULL},
    {"\"L\": 8, \"realizations\": 32", "\"layout\": \"msc\", \"word_bits\": 32, \"tempering_energies\": \"both\"",
     "algorithm.tempering_energies", NULL},
    {"\"L\": 8", "\"layout\": \"naive\", \"update_group\": 64", "algorithm.update_group: 64 is for layout \"msc\"",
     NULL},
    {"\"L\": 8, \"realizations\": 32", "\"layout\": \"msc\", \"word_bits\": 32, \"update_group\": 96",
     "algorithm.update_group: 96 must divide", NULL},
    {"\"L\": 8, \"realizations\": 32", "\"layout\": \"msc\", \"word_bits\": 32, \"energy_sites\": 8",
     "algorithm.energy_sites: 8 is for layout \"msc\" with parallel tempering", NULL},
    {"\"L\": 8", "\"layout\": \"naive\", \"reverse_odd\": 1", "algorithm.reverse_odd: 1 is for layout \"msc\"",
     NULL},
    {"\"L\": 8, \"realizations\": 32", "\"layout\": \"msc\", \"word_bits\": 32, \"reverse_odd\": 2",
     "algorithm.reverse_odd", NULL},
};

/* Each error names its JSON path, and the command line exits with 2. */
Test(ea, invalid_presets_are_input_errors)
{
    for (size_t i = 0; i < sizeof invalid_cases / sizeof invalid_cases[0]; i++) {
        char preset[512];
        snprintf(preset, sizeof preset,
                 "{\"model\": {\"type\": \"ea_ising\", %s}, \"algorithm\": {%s}, \"ensemble\": {%s}}",
                 invalid_cases[i].model, invalid_cases[i].algorithm,
                 invalid_cases[i].ensemble ? invalid_cases[i].ensemble : "\"beta\": 1");
        char label[32];
        snprintf(label, sizeof label, "ea-invalid-%zu", i);
        expect_input_error(preset, label, invalid_cases[i].needle);
    }
}
