/* ensemble.type "population_annealing" (2D Ising): the free energy, energy
 * and specific heat at every step agree with the exact finite-lattice values
 * (errors from independent runs); the bias of a short anneal shrinks as the
 * population grows; the adaptive schedule reaches beta_end with exact
 * values at its betas and overlaps near the target; the prefix-sum, source and copy kernels on irregular
 * copy numbers; every resampling scheme keeps the expected population and
 * draws each member's expected copy number; the reproducible weights' exp
 * (pa_exp) within 2 ulp; the fused steps equal the separate kernels; bad
 * input exits 2 naming the key. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clmc/runtime.h"
#include "clmc/status.h"
#include "ising_exact.h"
#include "physics.h"
#include "testenv.h"

#define TOLERANCE_SIGMA 4.0
#define MAX_STEPS 32

/* One anneal of the L = 16 model from beta 0 to beta_end; per step
 * (beta_start first) free energy, energy, specific heat and members. */
typedef struct {
    int n;
    double beta[MAX_STEPS + 1], f[MAX_STEPS + 1], e[MAX_STEPS + 1], c[MAX_STEPS + 1], members[MAX_STEPS + 1];
    double overlap[MAX_STEPS + 1], rho_t[MAX_STEPS + 1];
} anneal;

static double mean_of(const cJSON *entry, const char *name)
{
    return cJSON_GetObjectItem(cJSON_GetObjectItem(entry, name), "mean")->valuedouble;
}

/* The same with the algorithm object `algorithm` (JSON). */
static void run_anneal_with(anneal *a, const char *algorithm, int population, const char *scheme, int steps, int theta,
                            double beta_end, int seed)
{
    char json[1024];
    snprintf(json, sizeof json,
             "{\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": 16}, \"algorithm\": %s,"
             " \"ensemble\": {\"type\": \"population_annealing\", \"population\": %d, \"beta_end\": %g,"
             " \"steps\": %d, \"sweeps_per_step\": %d, \"resampling\": \"%s\"}, \"run\": {\"seed\": %d}}",
             algorithm, population, beta_end, steps, theta, scheme, seed);
    cJSON *result = physics_run(json, "population");
    const cJSON *temperatures = cJSON_GetObjectItem(cJSON_GetObjectItem(result, "observables"), "temperatures");
    a->n = cJSON_GetArraySize(temperatures);
    cr_assert_eq(a->n, steps + 1, "one entry per step and one for beta_start");
    for (int k = 0; k < a->n; k++) {
        const cJSON *entry = cJSON_GetArrayItem(temperatures, k);
        a->beta[k] = cJSON_GetObjectItem(entry, "beta")->valuedouble;
        a->f[k] = mean_of(entry, "free_energy");
        a->e[k] = mean_of(entry, "energy");
        a->c[k] = mean_of(entry, "specific_heat");
        const cJSON *population = cJSON_GetObjectItem(entry, "population");
        a->members[k] = cJSON_GetObjectItem(population, "members")->valuedouble;
        a->rho_t[k] = cJSON_GetObjectItem(population, "rho_t")->valuedouble;
        const cJSON *overlap = cJSON_GetObjectItem(population, "histogram_overlap");
        cr_assert_eq(overlap != NULL, k > 0, "histogram_overlap from the first step on");
        a->overlap[k] = overlap ? overlap->valuedouble : 0;
    }
    cJSON_Delete(result);
}

static void run_anneal(anneal *a, int population, const char *scheme, int steps, int theta, double beta_end,
                       int seed)
{
    run_anneal_with(a, "{\"layout\": \"naive\"}", population, scheme, steps, theta, beta_end, seed);
}

/* Mean and standard error over runs of one quantity at step k. */
static void over_runs(const anneal *runs, int n_runs, size_t offset, int k, double *mean, double *error)
{
    double sum = 0, squares = 0;
    for (int r = 0; r < n_runs; r++) sum += ((const double *)((const char *)&runs[r] + offset))[k];
    *mean = sum / n_runs;
    for (int r = 0; r < n_runs; r++) {
        double d = ((const double *)((const char *)&runs[r] + offset))[k] - *mean;
        squares += d * d;
    }
    *error = sqrt(squares / (n_runs - 1) / n_runs);
}

static void exact_values(double beta, double *f, double *e, double *c)
{
    if (beta == 0) { /* ln Z(0) = N ln 2 */
        *f = -log(2.0), *e = 0, *c = 0;
        return;
    }
    *f = -ising2d_exact_log_z(16, beta) / 256.0;
    ising2d_exact(16, beta, e, c);
}

/* 16 runs of R = 1000 from beta 0 to 0.5 in 10 steps of 20 sweeps: every
 * step's free energy, energy and specific heat within 4 standard errors of
 * the exact L = 16 values; beta 0 is exact (ln 2 per site). */
Test(population, ising2d_L16_matches_exact_at_every_step, .timeout = 1200)
{
    enum { RUNS = 16 };
    static anneal runs[RUNS];
    for (int r = 0; r < RUNS; r++) run_anneal(&runs[r], 1000, "systematic", 10, 20, 0.5, 100 + r);
    cr_expect_eq(runs[0].f[0], -log(2.0), "free energy at beta 0: exactly -ln 2");
    for (int k = 1; k < runs[0].n; k++) {
        double exact[3], mean, error;
        exact_values(runs[0].beta[k], &exact[0], &exact[1], &exact[2]);
        const size_t offsets[3] = {offsetof(anneal, f), offsetof(anneal, e), offsetof(anneal, c)};
        const char *names[3] = {"free_energy", "energy", "specific_heat"};
        for (int q = 0; q < 3; q++) {
            over_runs(runs, RUNS, offsets[q], k, &mean, &error);
            char what[96];
            snprintf(what, sizeof what, "PA R=1000 x%d beta=%.3f %s", RUNS, runs[0].beta[k], names[q]);
            cr_expect_leq(physics_compare(what, mean, error, exact[q]), TOLERANCE_SIGMA, "%s", what);
        }
        for (int r = 0; r < RUNS; r++) {
            cr_expect_eq(runs[r].members[k], 1000, "systematic keeps R exactly");
            cr_expect(runs[r].overlap[k] > 0 && runs[r].overlap[k] <= 1 + 1e-12, "overlap %g", runs[r].overlap[k]);
            cr_expect(runs[r].rho_t[k] >= 1 && runs[r].rho_t[k] <= 1000, "rho_t %g", runs[r].rho_t[k]);
        }
    }
}

/* Random-site members (sequential_reference): 8 runs of R = 1500 (past the
 * 1024 thresholds rows the temperature change writes from the host; the
 * rest are copied on the device) from beta 0 to 0.4 in 8 steps of 10
 * sweeps: every step's energy within 4 standard errors of the exact L = 16
 * value. */
Test(population, random_site_members_match_exact, .timeout = 600)
{
    enum { RUNS = 8 };
    static anneal runs[RUNS];
    for (int r = 0; r < RUNS; r++)
        run_anneal_with(&runs[r], "{\"layout\": \"random_site\", \"random_site\": \"sequential_reference\"}", 1500,
                        "systematic", 8, 10, 0.4, 300 + r);
    for (int k = 1; k < runs[0].n; k++) {
        double exact[3], mean, error;
        exact_values(runs[0].beta[k], &exact[0], &exact[1], &exact[2]);
        over_runs(runs, RUNS, offsetof(anneal, e), k, &mean, &error);
        char what[96];
        snprintf(what, sizeof what, "PA random-site R=1500 x%d beta=%.3f energy", RUNS, runs[0].beta[k]);
        cr_expect_leq(physics_compare(what, mean, error, exact[1]), TOLERANCE_SIGMA, "%s", what);
    }
}

/* A short anneal (5 steps of 5 sweeps to beta 0.5) is biased at small R:
 * the final free energy (ln Z from the ln Q of a few families) lies visibly
 * above the exact value at R = 16 and the bias shrinks at R = 2048; the
 * energy's bias shrinks too (printed; its error at R = 16 is large). */
Test(population, bias_shrinks_with_population, .timeout = 1200)
{
    enum { SMALL_RUNS = 16, LARGE_RUNS = 8 };
    static anneal small[SMALL_RUNS], large[LARGE_RUNS];
    for (int r = 0; r < SMALL_RUNS; r++) run_anneal(&small[r], 16, "systematic", 5, 5, 0.5, 200 + r);
    for (int r = 0; r < LARGE_RUNS; r++) run_anneal(&large[r], 2048, "systematic", 5, 5, 0.5, 300 + r);
    double exact[3];
    exact_values(0.5, &exact[0], &exact[1], &exact[2]);
    const size_t offsets[2] = {offsetof(anneal, f), offsetof(anneal, e)};
    for (int q = 0; q < 2; q++) {
        double m_small, e_small, m_large, e_large;
        over_runs(small, SMALL_RUNS, offsets[q], 5, &m_small, &e_small);
        over_runs(large, LARGE_RUNS, offsets[q], 5, &m_large, &e_large);
        double bias_small = m_small - exact[q], bias_large = m_large - exact[q];
        double z = (bias_small - bias_large) / sqrt(e_small * e_small + e_large * e_large);
        printf("%s bias R=16 %+.5f +- %.5f, R=2048 %+.5f +- %.5f (difference %.1f sigma)\n",
               q ? "energy" : "free energy", bias_small, e_small, bias_large, e_large, z);
        cr_expect_lt(fabs(bias_large), bias_small, "%s: bias smaller at R = 2048", q ? "energy" : "free energy");
        if (q == 0) {
            cr_expect_gt(bias_small / e_small, TOLERANCE_SIGMA, "R = 16 is visibly biased (upwards)");
            cr_expect_gt(z, TOLERANCE_SIGMA, "the bias shrinks from R = 16 to R = 2048");
        }
    }
}

/* Each scheme on a full anneal: the free energy at beta 0.4 within 4
 * standard errors of the exact value; nearest_integer's population stays
 * near R (its size has a standard deviation of at most sqrt(R) / 2). */
Test(population, every_scheme_matches_exact, .timeout = 1200)
{
    enum { RUNS = 6 };
    const char *schemes[] = {"multinomial", "nearest_integer"};
    for (int s = 0; s < 2; s++) {
        static anneal runs[RUNS];
        for (int r = 0; r < RUNS; r++) run_anneal(&runs[r], 1000, schemes[s], 8, 10, 0.4, 400 + r);
        double exact[3], mean, error;
        exact_values(0.4, &exact[0], &exact[1], &exact[2]);
        char what[96];
        snprintf(what, sizeof what, "PA %s beta=0.4 free_energy", schemes[s]);
        over_runs(runs, RUNS, offsetof(anneal, f), 8, &mean, &error);
        cr_expect_leq(physics_compare(what, mean, error, exact[0]), TOLERANCE_SIGMA, "%s", what);
        snprintf(what, sizeof what, "PA %s beta=0.4 energy", schemes[s]);
        over_runs(runs, RUNS, offsetof(anneal, e), 8, &mean, &error);
        cr_expect_leq(physics_compare(what, mean, error, exact[1]), TOLERANCE_SIGMA, "%s", what);
        double members = 0;
        for (int r = 0; r < RUNS; r++)
            for (int k = 1; k <= 8; k++) {
                members += runs[r].members[k];
                if (s == 0) cr_expect_eq(runs[r].members[k], 1000, "multinomial keeps R exactly");
            }
        members /= RUNS * 8;
        double sigma = sqrt(1000.0) / 2 / sqrt(RUNS * 8.0);
        printf("%s: mean population %.2f (R = 1000, sigma at most %.2f)\n", schemes[s], members, sigma);
        cr_expect_leq(fabs(members - 1000) / sigma, TOLERANCE_SIGMA, "mean population near R");
    }
}

/* The same preset twice: every step's results equal bit for bit, for each
 * scheme (fixed summation order, copy numbers from Philox, atomic counts). */
Test(population, reruns_are_bit_identical, .timeout = 600)
{
    const char *schemes[] = {"systematic", "multinomial", "nearest_integer"};
    for (int s = 0; s < 3; s++) {
        char json[1024];
        snprintf(json, sizeof json,
                 "{\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": 16}, \"algorithm\": {\"layout\": \"tiled\"},"
                 " \"ensemble\": {\"type\": \"population_annealing\", \"population\": 700, \"betas\": [0.2, 0.35, 0.5],"
                 " \"sweeps_per_step\": 3, \"resampling\": \"%s\"}, \"run\": {\"seed\": 9}}",
                 schemes[s]);
        char *text[2];
        for (int r = 0; r < 2; r++) {
            cJSON *result = physics_run(json, "population-rerun");
            text[r] = cJSON_PrintUnformatted(cJSON_GetObjectItem(cJSON_GetObjectItem(result, "observables"), "temperatures"));
            cJSON *checks = cJSON_GetObjectItem(result, "checks");
            printf("%s: configurations %s\n", schemes[s],
                   cJSON_GetObjectItem(checks, "configuration_fnv1a")->valuestring);
            cJSON_Delete(result);
        }
        cr_expect_str_eq(text[0], text[1], "%s: the two runs differ", schemes[s]);
        free(text[0]);
        free(text[1]);
    }
}

/* ensemble.fused_steps: a step's measurement and resampling in two or three
 * launches (pa_member_weights and pa_copy_sources after the chunks' energy
 * ranges, from pa_energy_range or folded by the EA msc resident update)
 * give every step's results and the final configurations bit for bit as
 * the separate kernels ("off"): 2D Ising with 700 members (three chunks, the
 * last partly filled), two runs; 70001 members of L = 4 on the resident
 * update (274 chunks: the repeated scans take blocks of two chunks, the
 * last block one); XY members (real energies, the reproducible weights);
 * 700 msc members on the resident update with lcg64_reseeded, two runs;
 * EA msc members on the resident update, which folds the ranges (two runs
 * from beta 0, and Philox from beta 0.2, whose first step is swept); 40
 * steps of 300 members (the records of 32 steps made at once, then the
 * rest at the end).  Multinomial resampling keeps the separate kernels and
 * says why. */
static char *fused_run(const char *json, const char *fused, bool *used, char **hash)
{
    char preset[2048];
    snprintf(preset, sizeof preset, json, fused);
    cJSON *result = physics_run(preset, "population-fused");
    const cJSON *record = cJSON_GetObjectItem(cJSON_GetObjectItem(result, "performance"), "fused_steps");
    cr_assert(record, "performance.fused_steps reported");
    *used = cJSON_IsTrue(cJSON_GetObjectItem(record, "used"));
    const cJSON *reason = cJSON_GetObjectItem(record, "reason");
    printf("fused_steps \"%s\": used %d%s%s\n", fused, *used, reason ? ", reason: " : "",
           reason ? reason->valuestring : "");
    char *text = cJSON_PrintUnformatted(cJSON_GetObjectItem(cJSON_GetObjectItem(result, "observables"), "temperatures"));
    *hash = strdup(cJSON_GetObjectItem(cJSON_GetObjectItem(result, "checks"), "configuration_fnv1a")->valuestring);
    cJSON_Delete(result);
    return text;
}

Test(population, fused_steps_equal_separate_kernels, .timeout = 900)
{
    const char *cases[] = {
        "{\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": 8}, \"algorithm\": {\"layout\": \"tiled\", \"tile\": 4},"
        " \"ensemble\": {\"type\": \"population_annealing\", \"population\": 700, \"betas\": [0.2, 0.35, 0.5, 0.7],"
        " \"sweeps_per_step\": 2, \"runs\": 2, \"fused_steps\": \"%s\"}, \"run\": {\"seed\": 5}}",
        "{\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": 4}, \"algorithm\": {\"layout\": \"naive\", \"resident\": \"on\"},"
        " \"ensemble\": {\"type\": \"population_annealing\", \"population\": 70001, \"beta_end\": 0.8, \"steps\": 4,"
        " \"sweeps_per_step\": 1, \"fused_steps\": \"%s\"}, \"run\": {\"seed\": 6}}",
        "{\"model\": {\"type\": \"heisenberg\", \"dim\": 2, \"L\": 8, \"n\": 2, \"precision\": \"float\"},"
        " \"algorithm\": {\"reproducible\": true},"
        " \"ensemble\": {\"type\": \"population_annealing\", \"population\": 600, \"beta_end\": 1.5, \"steps\": 3,"
        " \"sweeps_per_step\": 2, \"fused_steps\": \"%s\"}, \"run\": {\"seed\": 7}}",
        "{\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": 64}, \"algorithm\": {\"layout\": \"msc\", \"resident\": \"on\","
        " \"rng\": \"lcg64_reseeded\"}, \"ensemble\": {\"type\": \"population_annealing\", \"population\": 700,"
        " \"betas\": [0.3, 0.44, 0.6, 0.9], \"sweeps_per_step\": 2, \"runs\": 2, \"fused_steps\": \"%s\"},"
        " \"run\": {\"seed\": 8}}",
        "{\"model\": {\"type\": \"ea_ising\", \"dim\": 3, \"L\": 4, \"realizations\": 1}, \"algorithm\": {\"layout\":"
        " \"msc\", \"resident\": \"on\", \"rng\": \"lcg64_reseeded\"}, \"ensemble\": {\"type\": \"population_annealing\","
        " \"population\": 1024, \"beta_end\": 3.0, \"steps\": 6, \"sweeps_per_step\": 3, \"runs\": 2,"
        " \"fused_steps\": \"%s\"}, \"run\": {\"seed\": 9}}",
        "{\"model\": {\"type\": \"ea_ising\", \"dim\": 3, \"L\": 4, \"realizations\": 1}, \"algorithm\": {\"layout\":"
        " \"msc\", \"resident\": \"on\"}, \"ensemble\": {\"type\": \"population_annealing\", \"population\": 640,"
        " \"beta_start\": 0.2, \"beta_end\": 2.0, \"steps\": 4, \"sweeps_per_step\": 2, \"fused_steps\": \"%s\"},"
        " \"run\": {\"seed\": 10}}",
        "{\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": 4}, \"ensemble\": {\"type\": \"population_annealing\","
        " \"population\": 300, \"beta_end\": 0.8, \"steps\": 40, \"sweeps_per_step\": 1, \"fused_steps\": \"%s\"},"
        " \"run\": {\"seed\": 11}}",
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        bool used[2];
        char *hash[2];
        char *fused = fused_run(cases[c], "auto", &used[0], &hash[0]);
        char *separate = fused_run(cases[c], "off", &used[1], &hash[1]);
        printf("case %zu: configurations %s (fused) %s (separate); step results %s\n", c, hash[0], hash[1],
               strcmp(fused, separate) == 0 ? "equal" : "differ");
        cr_expect(used[0] && !used[1], "case %zu: fused with auto, separate with off", c);
        cr_expect_str_eq(fused, separate, "case %zu: the step results differ", c);
        cr_expect_str_eq(hash[0], hash[1], "case %zu: the final configurations differ", c);
        free(fused), free(separate), free(hash[0]), free(hash[1]);
    }
    bool used;
    char *hash, *text = fused_run("{\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": 4}, \"ensemble\": {\"type\":"
                                  " \"population_annealing\", \"population\": 50, \"steps\": 2, \"beta_end\": 0.4,"
                                  " \"resampling\": \"multinomial\", \"fused_steps\": \"%s\"}}",
                                  "auto", &used, &hash);
    cr_expect(!used, "multinomial resampling runs the separate kernels");
    free(text), free(hash);
}

/* The fused steps' launches under --profile: EA msc members on the resident
 * update, which folds the chunks' energy ranges, 40 steps from beta 0.  A
 * step after the sweeps is pa_member_weights and the next step's
 * pa_copy_sources; pa_energy_range runs once (step 0: no sweeps at beta 0),
 * pa_step_records twice (steps 0-31, then 32-40 at the end); nothing of the
 * separate kernels.  Every update launch is timed, the small launches their
 * kernel's first and every 32nd (SAMPLE_EVERY in src/runtime/runtime.c:
 * launches 1 and 33).  The device time outside the sweeps, measured between
 * every two update launches whether the small launches between have events
 * or not, is between 0 and the anneal's wall time. */
Test(population, fused_steps_launches_under_profile, .timeout = 600)
{
    char *dir = test_scratch_dir("population-profile"), out[4200];
    char *preset = test_write_preset(
        dir, "{\"model\": {\"type\": \"ea_ising\", \"dim\": 3, \"L\": 4, \"realizations\": 1}, \"algorithm\":"
             " {\"layout\": \"msc\", \"resident\": \"on\", \"rng\": \"lcg64_reseeded\"}, \"ensemble\": {\"type\":"
             " \"population_annealing\", \"population\": 512, \"beta_end\": 2.0, \"steps\": 40,"
             " \"sweeps_per_step\": 1}, \"run\": {\"seed\": 13}}");
    snprintf(out, sizeof out, "%s/out", dir);
    char *output = NULL;
    int status = test_run_clmc(&output, "run '%s' --quiet --profile --out '%s'", preset, out);
    cr_assert_eq(status, 0, "exit %d: %s", status, output ? output : "");
    struct {
        const char *kernel;
        long launches;
        long timed;
    } expected[] = {{"ea_msc_resident_update", 40, 40}, {"pa_member_weights", 41, 2}, {"pa_copy_sources", 40, 2},
                    {"pa_energy_range", 1, 1},          {"pa_step_records", 2, 1},    {"pa_member_stats", -1, -1},
                    {"pa_weights", -1, -1}};
    for (size_t k = 0; k < sizeof expected / sizeof expected[0]; k++) {
        long launches = test_profiled_launches(output, expected[k].kernel, 0);
        long timed = test_profiled_timed(output, expected[k].kernel, 0);
        printf("%-24s %ld launches, %ld timed (expected %ld, %ld)\n", expected[k].kernel, launches, timed,
               expected[k].launches, expected[k].timed);
        cr_expect_eq(launches, expected[k].launches, "%s: %ld launches, expected %ld", expected[k].kernel, launches,
                     expected[k].launches);
        cr_expect_eq(timed, expected[k].timed, "%s: %ld launches timed, expected %ld", expected[k].kernel, timed,
                     expected[k].timed);
    }
    const char *line = strstr(output, "clmc profile: population annealing: ");
    double wall = -1, outside = -1;
    cr_assert(line && sscanf(line, "clmc profile: population annealing: %lf s wall, %lf s device", &wall, &outside) == 2,
              "no population annealing line");
    printf("anneal %.6f s wall, %.6f s on the device outside the sweeps\n", wall, outside);
    cr_expect(outside > 0 && outside <= wall, "outside %.6f s, wall %.6f s", outside, wall);
    free(output), free(preset), free(dir);
}

/* ensemble.runs = 8 in one invocation: errors from the spread over runs,
 * the Z-weighted means and the free energy from the runs' mean Z within 4
 * standard errors of the exact values at the last step (beta 0.4). */
Test(population, runs_give_errors_and_match_exact, .timeout = 1200)
{
    cJSON *result = physics_run("{\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": 16}, \"algorithm\": "
                                "{\"layout\": \"naive\"}, \"ensemble\": {\"type\": \"population_annealing\", "
                                "\"population\": 500, \"beta_end\": 0.4, \"steps\": 8, \"sweeps_per_step\": 10, "
                                "\"runs\": 8}, \"run\": {\"seed\": 77}}",
                                "population-runs");
    const cJSON *observables = cJSON_GetObjectItem(result, "observables");
    cr_assert_eq(cJSON_GetObjectItem(observables, "runs")->valuedouble, 8);
    const cJSON *last = cJSON_GetArrayItem(cJSON_GetObjectItem(observables, "temperatures"), 8);
    double exact[3];
    exact_values(0.4, &exact[0], &exact[1], &exact[2]);
    const char *names[3] = {"free_energy", "energy", "specific_heat"};
    for (int q = 0; q < 3; q++) {
        const cJSON *item = cJSON_GetObjectItem(last, names[q]);
        const cJSON *error = cJSON_GetObjectItem(item, "error");
        cr_assert_not_null(error, "%s: an error from the runs", names[q]);
        cr_expect_gt(error->valuedouble, 0);
        char what[96];
        snprintf(what, sizeof what, "PA runs=8 R=500 beta=0.4 %s", names[q]);
        cr_expect_leq(physics_compare(what, cJSON_GetObjectItem(item, "mean")->valuedouble, error->valuedouble,
                                      exact[q]),
                      TOLERANCE_SIGMA, "%s", what);
    }
    cJSON_Delete(result);
}

/* schedule "adaptive" (target_overlap 0.6, beta_end 0.5), 12 runs of R = 500
 * sharing run 0's schedule: the schedule increases to beta_end exactly; at
 * every chosen beta the free energy and energy (Z-weighted over runs) lie
 * within 4 standard errors of the exact L = 16 values; the measured overlap
 * of successive histograms is near the target at every step but the last
 * (cut short at beta_end), within 0.1, and within 0.05 on average. */
Test(population, adaptive_schedule_matches_exact_and_target, .timeout = 1200)
{
    const double target = 0.6;
    cJSON *result = physics_run("{\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": 16}, \"algorithm\": "
                                "{\"layout\": \"naive\"}, \"ensemble\": {\"type\": \"population_annealing\", "
                                "\"population\": 500, \"schedule\": \"adaptive\", \"target_overlap\": 0.6, "
                                "\"beta_end\": 0.5, \"sweeps_per_step\": 10, \"runs\": 12}, \"run\": {\"seed\": 31}}",
                                "population-adaptive");
    const cJSON *temperatures = cJSON_GetObjectItem(cJSON_GetObjectItem(result, "observables"), "temperatures");
    int n = cJSON_GetArraySize(temperatures);
    printf("adaptive schedule: %d steps\n", n - 1);
    cr_assert_geq(n, 3, "more than one step to beta_end at overlap %g", target);
    cr_expect_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(temperatures, n - 1), "beta")->valuedouble, 0.5,
                 "the schedule ends at beta_end");
    double overlap_sum = 0;
    for (int k = 1; k < n; k++) {
        const cJSON *entry = cJSON_GetArrayItem(temperatures, k);
        double beta = cJSON_GetObjectItem(entry, "beta")->valuedouble;
        cr_expect_gt(beta, cJSON_GetObjectItem(cJSON_GetArrayItem(temperatures, k - 1), "beta")->valuedouble);
        double exact[3];
        exact_values(beta, &exact[0], &exact[1], &exact[2]);
        const char *names[2] = {"free_energy", "energy"};
        for (int q = 0; q < 2; q++) {
            const cJSON *item = cJSON_GetObjectItem(entry, names[q]);
            char what[96];
            snprintf(what, sizeof what, "PA adaptive beta=%.5f %s", beta, names[q]);
            cr_expect_leq(physics_compare(what, cJSON_GetObjectItem(item, "mean")->valuedouble,
                                          cJSON_GetObjectItem(item, "error")->valuedouble, exact[q]),
                          TOLERANCE_SIGMA, "%s", what);
        }
        double overlap = cJSON_GetObjectItem(cJSON_GetObjectItem(entry, "population"), "histogram_overlap")->valuedouble;
        printf("step %d: beta %.5f, measured histogram overlap %.4f (target %.2f)\n", k, beta, overlap, target);
        if (k == n - 1) continue;
        overlap_sum += overlap;
        cr_expect_leq(fabs(overlap - target), 0.1, "step %d: overlap %g, target %g", k, overlap, target);
    }
    double mean = overlap_sum / (n - 2);
    printf("mean measured overlap %.4f (target %.2f)\n", mean, target);
    cr_expect_leq(fabs(mean - target), 0.05, "mean overlap %g, target %g", mean, target);
    cJSON_Delete(result);
}

/* ---- The kernels of cl/ensembles/population.cl on their own -------------- */

static clmc_runtime *rt;
static cl_program program;

static void open_program_with(const char *options)
{
    cr_assert_eq(clmc_runtime_open(NULL, &rt), CLMC_OK, "%s", clmc_error_message());
    cr_assert_eq(clmc_program_build(rt, "ensembles/population.cl", options, &program), CLMC_OK, "%s",
                 clmc_error_message());
}

static void open_program(void) { open_program_with("-cl-std=CL1.2"); }

static void close_program(void)
{
    clReleaseProgram(program);
    clmc_runtime_close(rt);
}

static cl_mem buffer(size_t bytes, const void *host)
{
    cl_mem b;
    cr_assert_eq(clmc_buffer_create(rt, bytes, host, "test", &b), CLMC_OK, "%s", clmc_error_message());
    return b;
}

static void read(cl_mem b, size_t bytes, void *host)
{
    cr_assert_eq(clEnqueueReadBuffer(clmc_runtime_queue(rt), b, CL_TRUE, 0, bytes, host, 0, NULL, NULL), CL_SUCCESS);
}

/* Runs kernel `name` with the arguments (size, pointer) pairs over `items`. */
static void run_kernel(const char *name, size_t items, int n_args, const size_t *sizes, const void *const *values)
{
    cl_kernel k;
    cr_assert_eq(clmc_kernel_create(program, name, &k), CLMC_OK);
    for (int i = 0; i < n_args; i++) cr_assert_eq(clSetKernelArg(k, (cl_uint)i, sizes[i], values[i]), CL_SUCCESS);
    cr_assert_eq(clmc_enqueue(rt, k, 1, &items, NULL, CLMC_UNTIMED), CLMC_OK);
    clReleaseKernel(k);
}

/* Runs kernel `name` as `groups` work-groups of `group` work-items. */
static void run_groups(const char *name, size_t groups, size_t group, int n_args, const size_t *sizes,
                       const void *const *values)
{
    cl_kernel k;
    cr_assert_eq(clmc_kernel_create(program, name, &k), CLMC_OK);
    for (int i = 0; i < n_args; i++) cr_assert_eq(clSetKernelArg(k, (cl_uint)i, sizes[i], values[i]), CL_SUCCESS);
    size_t global = groups * group;
    cr_assert_eq(clmc_enqueue(rt, k, 1, &global, &group, CLMC_UNTIMED), CLMC_OK);
    clReleaseKernel(k);
}

static void run_one_group(const char *name, size_t group, int n_args, const size_t *sizes, const void *const *values)
{
    run_groups(name, 1, group, n_args, sizes, values);
}

/* The one-work-group scans of chunk totals (1000 chunks: blocks of several
 * per work-item) at work-group sizes 1, 7, 64 and 256: the copy-number scan
 * exactly the host's exclusive scan and total; the weight scan within 1e-13
 * of the host's sequential one, its total bit for bit the last offset plus
 * the last chunk total (what the copy-number kernels take as the total). */
Test(population, one_group_scans_at_several_group_sizes, .timeout = 300)
{
    open_program();
    enum { CHUNKS = 1000 };
    static cl_uint u[CHUNKS], u_scan[CHUNKS];
    static double d[CHUNKS], d_scan[CHUNKS];
    cl_uint u_total = 0;
    double d_sum = 0;
    for (int c = 0; c < CHUNKS; c++) {
        u[c] = (cl_uint)((c * 2654435761u) % 513u);
        d[c] = exp(-0.01 * (double)((c * 40503u) % 977u)) * 37.5;
        u_scan[c] = u_total, u_total += u[c];
        d_scan[c] = d_sum, d_sum += d[c];
    }
    const size_t groups[] = {1, 7, 64, 256};
    for (size_t g = 0; g < 4; g++) {
        cl_uint n = CHUNKS, at = 3, device_u[CHUNKS], device_u_total;
        double device_d[CHUNKS], totals[4];
        cl_mem b_u = buffer(sizeof u, u), b_ut = buffer(4, NULL), b_d = buffer(sizeof d, d), b_dt = buffer(32, NULL);
        run_one_group("pa_scan_uint", groups[g], 3, (size_t[]){8, 4, 8}, (const void *[]){&b_u, &n, &b_ut});
        run_one_group("pa_scan_double", groups[g], 4, (size_t[]){8, 4, 8, 4}, (const void *[]){&b_d, &n, &b_dt, &at});
        read(b_u, sizeof u, device_u);
        read(b_ut, 4, &device_u_total);
        read(b_d, sizeof d, device_d);
        read(b_dt, 32, totals);
        cr_expect_arr_eq(device_u, u_scan, sizeof u_scan, "group %zu: copy-number scan", groups[g]);
        cr_expect_eq(device_u_total, u_total, "group %zu: copy-number total", groups[g]);
        double worst = 0;
        for (int c = 0; c < CHUNKS; c++) worst = fmax(worst, fabs(device_d[c] - d_scan[c]) / d_sum);
        printf("group %zu: copy numbers exact, weight scan off by at most %.2g of the total %.12g (device %.12g)\n",
               groups[g], worst, d_sum, totals[3]);
        cr_expect_leq(worst, 1e-13, "group %zu: weight scan", groups[g]);
        cr_expect(totals[3] == device_d[CHUNKS - 1] + d[CHUNKS - 1], "group %zu: total is the last offset plus the "
                  "last chunk total, bit for bit", groups[g]);
        cl_mem all[] = {b_u, b_ut, b_d, b_dt};
        for (int i = 0; i < 4; i++) clReleaseMemObject(all[i]);
    }
    close_program();
}

/* The prefix sum of `copies` and the source of every new slot, on the
 * device, both ways: the chunks' sums with their offsets added and the
 * search of pa_sources (MPI ranks' path), and the chunks' own sums searched
 * with their offsets by pa_sources_own (one process), which also gathers
 * the new slots' ancestors (ancestor[i] = 3i + 7 here: new_ancestor[j] must
 * be 3 source[j] + 7).  Both sources must agree; returns the new size. */
static cl_uint device_prefix_and_sources(cl_uint n, const cl_uint *copies, cl_uint *prefix, cl_uint *source)
{
    cl_uint n_chunks = (n + 255) / 256, total;
    cl_uint *ancestor = malloc(n * sizeof *ancestor);
    cr_assert(ancestor);
    for (cl_uint i = 0; i < n; i++) ancestor[i] = 3 * i + 7;
    cl_mem b_copies = buffer(n * 4, copies), b_prefix = buffer(n * 4, NULL), b_chunk = buffer(n_chunks * 4, NULL),
           b_total = buffer(4, NULL), b_ancestor = buffer(n * 4, ancestor);
    free(ancestor);
    run_groups("pa_prefix_chunks", n_chunks, 256, 4, (size_t[]){8, 4, 8, 8},
               (const void *[]){&b_copies, &n, &b_prefix, &b_chunk});
    run_kernel("pa_scan_uint", 1, 3, (size_t[]){8, 4, 8}, (const void *[]){&b_chunk, &n_chunks, &b_total});
    read(b_total, 4, &total);
    size_t slots = total ? total : 1;
    cl_mem b_source = buffer(slots * 4, NULL), b_own = buffer(slots * 4, NULL), b_new_ancestor = buffer(slots * 4, NULL);
    run_kernel("pa_sources_own", total, 7, (size_t[]){8, 8, 4, 4, 8, 8, 8},
               (const void *[]){&b_prefix, &b_chunk, &n, &total, &b_own, &b_ancestor, &b_new_ancestor});
    run_kernel("pa_add_uint", n, 3, (size_t[]){8, 4, 8}, (const void *[]){&b_prefix, &n, &b_chunk});
    read(b_prefix, n * 4, prefix);
    cl_uint offset = 0; /* one process: the window is every member, the new slots from 0 */
    run_kernel("pa_sources", total, 5, (size_t[]){8, 4, 4, 8, 4},
               (const void *[]){&b_prefix, &n, &total, &b_source, &offset});
    if (total) {
        cl_uint *own = malloc(2 * (size_t)total * sizeof *own), *new_ancestor = own + total;
        cr_assert(own);
        read(b_source, total * 4, source);
        read(b_own, total * 4, own);
        read(b_new_ancestor, total * 4, new_ancestor);
        for (cl_uint j = 0; j < total; j++) {
            cr_assert_eq(own[j], source[j], "slot %u: pa_sources_own %u, pa_sources %u", j, own[j], source[j]);
            cr_assert_eq(new_ancestor[j], 3 * source[j] + 7, "slot %u: ancestor %u of source %u", j, new_ancestor[j],
                         source[j]);
        }
        free(own);
    }
    cl_mem all[] = {b_copies, b_prefix, b_chunk, b_total, b_source, b_own, b_new_ancestor, b_ancestor};
    for (int i = 0; i < 8; i++) clReleaseMemObject(all[i]);
    return total;
}

/* Irregular copy numbers over several chunks: runs of zeros (a whole chunk
 * of them), one family of 5000, single copies; the prefix sums, the source
 * of every slot and the gathered payload (3 words per member) as on the host. */
Test(population, prefix_sum_and_copy_on_irregular_copy_numbers, .timeout = 300)
{
    open_program();
    enum { N = 1500 };
    static cl_uint copies[N], prefix[N], source[N * 8], expected_source[N * 8];
    for (cl_uint i = 0; i < N; i++) copies[i] = i < 300 ? 0 : (i % 7 == 0 ? 3 : (i % 5 == 0 ? 0 : 1));
    copies[777] = 5000;
    copies[N - 1] = 0;
    cl_uint total = device_prefix_and_sources(N, copies, prefix, source);
    cl_uint sum = 0, slot = 0;
    for (cl_uint i = 0; i < N; i++) {
        sum += copies[i];
        cr_assert_eq(prefix[i], sum, "inclusive prefix at %u", i);
        for (cl_uint c = 0; c < copies[i]; c++) expected_source[slot++] = i;
    }
    cr_assert_eq(total, sum, "new population size");
    for (cl_uint j = 0; j < total; j++) cr_assert_eq(source[j], expected_source[j], "source of slot %u", j);

    /* The copy kernel: member i's words are (i, 3i + 1, ~i). */
    static cl_uint from[3 * N], to[3 * N * 8];
    for (cl_uint i = 0; i < N; i++) from[3 * i] = i, from[3 * i + 1] = 3 * i + 1, from[3 * i + 2] = ~i;
    cl_mem b_from = buffer(sizeof from, from), b_to = buffer(3 * 4 * total, NULL),
           b_source = buffer(4 * total, source);
    cl_uint words = 3;
    cl_kernel k;
    cr_assert_eq(clmc_kernel_create(program, "pa_gather", &k), CLMC_OK);
    clSetKernelArg(k, 0, 8, &b_from);
    clSetKernelArg(k, 1, 8, &b_to);
    clSetKernelArg(k, 2, 4, &words);
    clSetKernelArg(k, 3, 8, &b_source);
    clSetKernelArg(k, 4, 4, &total);
    cl_uint n_lower = 0, n_own = N; /* one process: every source is an own member */
    clSetKernelArg(k, 5, 8, &b_from);
    clSetKernelArg(k, 6, 4, &n_lower);
    clSetKernelArg(k, 7, 4, &n_own);
    size_t global = 3 * (size_t)total; /* one work-item per word of the new members */
    cr_assert_eq(clmc_enqueue(rt, k, 1, &global, NULL, CLMC_UNTIMED), CLMC_OK);
    read(b_to, 3 * 4 * total, to);
    for (cl_uint j = 0; j < total; j++)
        for (cl_uint w = 0; w < 3; w++)
            cr_assert_eq(to[3 * j + w], from[3 * expected_source[j] + w], "slot %u word %u", j, w);
    clReleaseKernel(k);
    cl_mem all[] = {b_from, b_to, b_source};
    for (int i = 0; i < 3; i++) clReleaseMemObject(all[i]);

    /* All zeros but one member: one family fills every slot. */
    static cl_uint one[N];
    one[N / 2] = N;
    total = device_prefix_and_sources(N, one, prefix, source);
    cr_assert_eq(total, N);
    for (cl_uint j = 0; j < total; j++) cr_assert_eq(source[j], N / 2);
    close_program();
}

/* The family statistics of pa_member_stats on the ancestors of irregular
 * copy numbers (the sources of a resampling: families of 5000, 3, 1 and
 * none, a family at each end, families across chunks; then one family of
 * every member): per chunk, the sum of the squared sizes of the families
 * whose last member is in it and the largest of them, as counted on the
 * host.  The kernel relies on the members being in the order of their
 * ancestors, as resampling keeps them.  The fused steps' pa_member_weights
 * counts the same from labels that name each family's first member (as
 * pa_copy_sources keeps them), its energy range from the chunks' ranges. */
static void check_family_stats(cl_uint n, const cl_uint *copies)
{
    cl_uint *prefix = malloc(n * sizeof *prefix), *ancestor = malloc(8 * (size_t)n * sizeof *ancestor);
    cr_assert(prefix && ancestor);
    cl_uint total = device_prefix_and_sources(n, copies, prefix, ancestor), n_chunks = (total + 255) / 256;
    double *expected = calloc(2 * (size_t)n_chunks, sizeof *expected), *stats = malloc(9 * sizeof(double) * n_chunks);
    cl_int *zeros = calloc(total, sizeof *zeros), *ranges = calloc(2 * (size_t)n_chunks, sizeof *ranges);
    cl_uint *label = malloc(total * sizeof *label);
    cr_assert(expected && stats && zeros && ranges && label);
    cl_uint families = 0, largest = 0;
    for (cl_uint i = 0, at = 0; i < n; i++) { /* member i's family: slots [at, at + copies[i]) */
        if (copies[i] == 0) continue;
        for (cl_uint j = at; j < at + copies[i]; j++) label[j] = at;
        at += copies[i];
        double *e = expected + 2 * ((at - 1) / 256); /* counted in the chunk of its last member */
        e[0] += (double)copies[i] * copies[i];
        e[1] = fmax(e[1], copies[i]);
        families++;
        if (copies[i] > largest) largest = copies[i];
    }
    cl_mem b_ancestor = buffer(4 * total, ancestor), b_zeros = buffer(4 * total, zeros),
           b_stats = buffer(9 * sizeof(double) * n_chunks, NULL), b_label = buffer(4 * total, label),
           b_range = buffer(2 * sizeof(cl_int) * n_chunks, ranges), b_record = buffer(12 * sizeof(double), NULL),
           b_histogram = buffer(sizeof(cl_uint), zeros), b_cum = buffer(sizeof(double) * total, NULL),
           b_chunk = buffer(sizeof(double) * n_chunks, NULL);
    const char *kernels[] = {"pa_member_stats", "pa_member_weights"};
    for (int k = 0; k < 2; k++) {
        cl_uint at = 0, weigh = 0;
        double dbeta = 0;
        if (k == 0)
            run_groups(kernels[k], n_chunks, 256, 5, (size_t[]){8, 8, 8, 4, 8},
                       (const void *[]){&b_zeros, &b_zeros, &b_ancestor, &total, &b_stats});
        else
            run_groups(kernels[k], n_chunks, 256, 14, (size_t[]){8, 8, 8, 4, 8, 8, 4, 8, 4, 8, 4, 8, 8, 8},
                       (const void *[]){&b_zeros, &b_zeros, &b_label, &total, &b_range, &b_stats, &at, &b_record,
                                        &at, &b_histogram, &weigh, &dbeta, &b_cum, &b_chunk});
        read(b_stats, 9 * sizeof(double) * n_chunks, stats);
        for (cl_uint c = 0; c < n_chunks; c++) {
            cr_assert_eq(stats[9 * c + 7], expected[2 * c], "%s, chunk %u: squares %.0f, host %.0f", kernels[k], c,
                         stats[9 * c + 7], expected[2 * c]);
            cr_assert_eq(stats[9 * c + 8], expected[2 * c + 1], "%s, chunk %u: largest %.0f, host %.0f", kernels[k],
                         c, stats[9 * c + 8], expected[2 * c + 1]);
        }
        printf("%s: %u members in %u families over %u chunks, the largest %u, as the host\n", kernels[k], total,
               families, n_chunks, largest);
    }
    cl_mem all[] = {b_ancestor, b_zeros, b_stats, b_label, b_range, b_record, b_histogram, b_cum, b_chunk};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) clReleaseMemObject(all[i]);
    free(prefix), free(ancestor), free(expected), free(stats), free(zeros), free(ranges), free(label);
}

Test(population, family_stats_equal_the_host_count, .timeout = 120)
{
    open_program();
    enum { N = 1500 };
    static cl_uint copies[N];
    for (cl_uint i = 0; i < N; i++) copies[i] = i % 7 == 0 ? 3 : (i % 5 == 0 ? 0 : 1);
    copies[777] = 5000;
    copies[0] = 300; /* the first family fills the first chunk and more */
    check_family_stats(N, copies);
    static cl_uint one[N];
    one[N / 3] = N;
    check_family_stats(N, one);
    close_program();
}

/* pa_histogram against the host's counts: energies over 1000 values (the
 * work-group-local bins) and over 9000 (more than the 4096 local bins: the
 * global ones), each with 1, 3 and 8 work-groups (members per work-item 1 to
 * 24) and members not a multiple of the group; the histogram is the host's
 * exactly (integer counts). */
Test(population, histogram_counts_every_member_in_local_and_global_bins, .timeout = 120)
{
    open_program();
    enum { N = 6000 };
    static cl_int energy[N];
    static cl_uint expected[9000], got[9000];
    const int widths[] = {1000, 9000};
    for (int t = 0; t < 2; t++) {
        int width = widths[t], e_min = -3 * width / 4;
        memset(expected, 0, sizeof expected);
        for (cl_uint i = 0; i < N; i++) {
            /* skewed: most members in a few bins (a cold population), the ends reached */
            cl_uint h = (i * 2654435761u) >> 8;
            int e = i == 0 ? e_min : i == 1 ? e_min + width - 1 : e_min + (int)(h % 7 == 0 ? h % (cl_uint)width : h % 5);
            energy[i] = e;
            expected[e - e_min]++;
        }
        double records[12] = {0};
        records[0] = e_min, records[1] = e_min + width - 1; /* PA_E_MIN, PA_E_MAX */
        cl_mem b_energy = buffer(sizeof energy, energy), b_records = buffer(sizeof records, records);
        cl_uint n = N - 17, at = 0;
        for (cl_uint i = n; i < N; i++) expected[energy[i] - e_min]--; /* members past n are not counted */
        const size_t group_counts[] = {1, 3, 8};
        for (int g = 0; g < 3; g++) {
            cl_mem b_histogram = buffer(sizeof got, NULL);
            cl_uint zero_value = 0;
            cr_assert_eq(clEnqueueFillBuffer(clmc_runtime_queue(rt), b_histogram, &zero_value, 4, 0, sizeof got, 0, NULL,
                                             NULL), CL_SUCCESS);
            run_groups("pa_histogram", group_counts[g], 256, 5, (size_t[]){8, 4, 8, 4, 8},
                       (const void *[]){&b_energy, &n, &b_records, &at, &b_histogram});
            read(b_histogram, sizeof got, got);
            cl_uint counted = 0;
            for (int b = 0; b < width; b++) {
                cr_assert_eq(got[b], expected[b], "width %d, %zu groups: bin %d: %u, host %u", width,
                             group_counts[g], b, got[b], expected[b]);
                counted += got[b];
            }
            cr_assert_eq(counted, n);
            printf("pa_histogram: %d energy values, %zu work-groups: %u members counted, bin 0 %u, bin 2 %u, "
                   "as the host\n", width, group_counts[g], counted, got[0], got[2]);
            clReleaseMemObject(b_histogram);
        }
        clReleaseMemObject(b_energy);
        clReleaseMemObject(b_records);
    }
    close_program();
}

/* clmc_write_repeated, the temperature change's writer (Ising 12-byte rows,
 * Potts 16 and 24): every one of `count` units equal to the first (12, 16 and 24 bytes,
 * copied doubling), counts below, at and past
 * the 1024 written from the host, and the bytes past them untouched; then
 * pinned host memory (clmc_pinned) round-trips a buffer. */
Test(population, write_repeated_and_pinned_memory, .timeout = 120)
{
    cr_assert_eq(clmc_runtime_open(NULL, &rt), CLMC_OK, "%s", clmc_error_message());
    const size_t units[] = {12, 16, 24}, counts[] = {1, 5, 1024, 1025, 3001};
    enum { MOST = 3001 * 24 + 64 };
    static unsigned char host[MOST], got[MOST];
    for (int u = 0; u < 3; u++)
        for (int c = 0; c < 5; c++) {
            size_t unit = units[u], count = counts[c], bytes = unit * count;
            memset(got, 0xA5, sizeof got);
            cl_mem b = buffer(MOST, got);
            for (size_t i = 0; i < unit; i++) host[i] = (unsigned char)(17 * i + 3 * u + c + 1);
            cr_assert_eq(clmc_write_repeated(rt, b, host, unit, count), CLMC_OK, "%s", clmc_error_message());
            read(b, MOST, got);
            for (size_t i = 0; i < bytes; i++)
                cr_assert_eq(got[i], host[i % unit], "unit %zu, count %zu: byte %zu is %u, not %u", unit, count, i,
                             got[i], host[i % unit]);
            for (size_t i = bytes; i < MOST; i++) cr_assert_eq(got[i], 0xA5, "unit %zu, count %zu: byte %zu written", unit, count, i);
            clReleaseMemObject(b);
        }
    printf("clmc_write_repeated: 12-, 16- and 24-byte units, 1 to 3001 copies, every byte as the first unit's\n");
    clmc_pinned pinned = {0};
    cr_assert_eq(clmc_pinned_reserve(rt, &pinned, 100), CLMC_OK, "%s", clmc_error_message());
    cr_assert_eq(clmc_pinned_reserve(rt, &pinned, 5000), CLMC_OK, "%s", clmc_error_message());
    cr_assert_geq(pinned.bytes, 5000);
    for (int i = 0; i < 5000; i++) ((unsigned char *)pinned.host)[i] = (unsigned char)(i * 7);
    cl_mem b = buffer(5000, NULL);
    cr_assert_eq(clEnqueueWriteBuffer(clmc_runtime_queue(rt), b, CL_TRUE, 0, 5000, pinned.host, 0, NULL, NULL), CL_SUCCESS);
    memset(pinned.host, 0, 5000);
    cr_assert_eq(clEnqueueReadBuffer(clmc_runtime_queue(rt), b, CL_TRUE, 0, 5000, pinned.host, 0, NULL, NULL), CL_SUCCESS);
    for (int i = 0; i < 5000; i++) cr_assert_eq(((unsigned char *)pinned.host)[i], (unsigned char)(i * 7));
    clReleaseMemObject(b);
    clmc_pinned_release(rt, &pinned);
    cr_assert_null(pinned.buffer);
    clmc_runtime_close(rt);
}

/* Each scheme's copy numbers from the device weights of random energies,
 * over 2000 steps (their step counters): systematic and multinomial give
 * exactly R each time, nearest_integer R on average; every member's mean
 * copy number is its expected tau_i = R w_i / sum w within 5 standard errors. */
Test(population, schemes_draw_the_expected_copy_numbers, .timeout = 600)
{
    open_program();
    enum { N = 300, DRAWS = 2000 };
    cl_uint target = N, n = N, n_chunks = (N + 255) / 256;
    static cl_int energy[N];
    for (int i = 0; i < N; i++) energy[i] = -2 * (int)((i * 2654435761u) % 97u);
    cl_int e_min = energy[0];
    for (int i = 0; i < N; i++) e_min = energy[i] < e_min ? energy[i] : e_min;
    double dbeta = 0.05, tau[N], weight_sum = 0;
    for (int i = 0; i < N; i++) weight_sum += tau[i] = exp(-dbeta * (energy[i] - e_min));
    for (int i = 0; i < N; i++) tau[i] *= target / weight_sum;
    cl_mem b_energy = buffer(sizeof energy, energy), b_cum = buffer(N * 8, NULL), b_chunk = buffer(n_chunks * 8, NULL),
           b_total = buffer(8, NULL), b_copies = buffer(N * 4, NULL);
    double e_min_record = e_min;
    cl_mem b_e_min = buffer(8, &e_min_record);
    cl_uint at = 0;
    run_groups("pa_weights", n_chunks, 256, 7, (size_t[]){8, 4, 8, 8, 4, 8, 8},
               (const void *[]){&b_energy, &n, &dbeta, &b_e_min, &at, &b_cum, &b_chunk});
    run_kernel("pa_scan_double", 1, 4, (size_t[]){8, 4, 8, 4}, (const void *[]){&b_chunk, &n_chunks, &b_total, &at});
    run_kernel("pa_add_double", n, 3, (size_t[]){8, 4, 8}, (const void *[]){&b_cum, &n, &b_chunk});
    double total, last_cum;
    read(b_total, 8, &total);
    cr_assert_eq(clEnqueueReadBuffer(clmc_runtime_queue(rt), b_cum, CL_TRUE, (N - 1) * 8, 8, &last_cum, 0, NULL, NULL),
                 CL_SUCCESS);
    cr_expect(last_cum == total, "the last cumulative weight (%.17g) is the total (%.17g) bit for bit, as the copy "
              "number kernels take it", last_cum, total);
    cr_expect_float_eq(total, weight_sum, 1e-9 * weight_sum, "device weight sum %.12g, host %.12g", total, weight_sum);
    const char *names[] = {"systematic", "multinomial", "nearest_integer"};
    cl_uint seed_lo = 5, seed_hi = 0, run = 0;
    for (cl_uint scheme = 0; scheme < 3; scheme++) {
        static double sum[N];
        memset(sum, 0, sizeof sum);
        double population_sum = 0;
        for (cl_uint step = 1; step <= DRAWS; step++) {
            cl_uint copies[N], first = 0, last = 1; /* one process: all members, none before them */
            double cum_before = 0;
            if (scheme == 1) {
                cl_uint zero = 0;
                clEnqueueFillBuffer(clmc_runtime_queue(rt), b_copies, &zero, 4, 0, N * 4, 0, NULL, NULL);
                run_kernel("pa_multinomial", target, 12, (size_t[]){8, 4, 4, 4, 4, 4, 4, 8, 8, 4, 8, 4},
                           (const void *[]){&b_cum, &n, &target, &seed_lo, &seed_hi, &step, &run, &b_copies,
                                            &cum_before, &last, &b_total, &at});
            } else {
                run_kernel("pa_copy_numbers", n, 13, (size_t[]){8, 4, 4, 4, 4, 4, 4, 4, 8, 4, 8, 8, 4},
                           (const void *[]){&b_cum, &n, &target, &scheme, &seed_lo, &seed_hi, &step, &run, &b_copies,
                                            &first, &cum_before, &b_total, &at});
            }
            read(b_copies, N * 4, copies);
            cl_uint size = 0;
            for (int i = 0; i < N; i++) size += copies[i], sum[i] += copies[i];
            if (scheme != 2) cr_assert_eq(size, target, "%s keeps R exactly (step %u)", names[scheme], step);
            population_sum += size;
        }
        double mean_size = population_sum / DRAWS;
        printf("%s: mean population %.3f (R = %u)\n", names[scheme], mean_size, target);
        if (scheme == 2)
            cr_expect_leq(fabs(mean_size - target), 5 * sqrt(target / 4.0 / DRAWS), "nearest_integer: mean size");
        int worst = 0;
        double worst_z = 0;
        for (int i = 0; i < N; i++) {
            double frac = tau[i] - floor(tau[i]);
            double variance = scheme == 1 ? tau[i] * (1 - tau[i] / target) : frac * (1 - frac);
            double error = sqrt(variance / DRAWS) + 1e-12, z = fabs(sum[i] / DRAWS - tau[i]) / error;
            if (z > worst_z) worst_z = z, worst = i;
        }
        printf("%s: largest deviation %.2f sigma (member %d, tau %.4f, mean %.4f)\n", names[scheme], worst_z, worst,
               tau[worst], sum[worst] / DRAWS);
        cr_expect_leq(worst_z, 5.0, "%s: member %d draws %.4f copies on average, expected %.4f", names[scheme], worst,
                      sum[worst] / DRAWS, tau[worst]);
    }
    cl_mem all[] = {b_energy, b_cum, b_chunk, b_total, b_copies, b_e_min};
    for (int i = 0; i < 6; i++) clReleaseMemObject(all[i]);
    close_program();
}

/* pa_copy_prefix (one process, systematic and nearest_integer) against the
 * three kernels it stands for: the weights' offsets added (pa_add_double),
 * the copy numbers (pa_copy_numbers) and their chunk sums
 * (pa_prefix_chunks), on 700 members (the last of three chunks partly
 * filled) at 50 steps of each scheme: copy numbers, running sums and chunk
 * totals equal bit for bit. */
Test(population, copy_prefix_equals_its_three_kernels, .timeout = 300)
{
    open_program();
    enum { N = 700, STEPS = 50 };
    cl_uint target = N, n = N, n_chunks = (N + 255) / 256;
    static cl_int energy[N];
    for (int i = 0; i < N; i++) energy[i] = -4 * (int)((i * 2654435761u) % 61u);
    double e_min = -240, dbeta = 0.07;
    cl_mem b_energy = buffer(sizeof energy, energy), b_local = buffer(N * 8, NULL), b_cum = buffer(N * 8, NULL),
           b_chunk = buffer(n_chunks * 8, NULL), b_total = buffer(8, NULL), b_e_min = buffer(8, &e_min);
    cl_mem b_copies[2] = {buffer(N * 4, NULL), buffer(N * 4, NULL)};
    cl_mem b_prefix[2] = {buffer(N * 4, NULL), buffer(N * 4, NULL)};
    cl_mem b_sums[2] = {buffer(n_chunks * 4, NULL), buffer(n_chunks * 4, NULL)};
    cl_uint at = 0, seed_lo = 11, seed_hi = 3, run = 1, first = 0;
    double cum_before = 0;
    run_groups("pa_weights", n_chunks, 256, 7, (size_t[]){8, 4, 8, 8, 4, 8, 8},
               (const void *[]){&b_energy, &n, &dbeta, &b_e_min, &at, &b_local, &b_chunk});
    run_kernel("pa_scan_double", 1, 4, (size_t[]){8, 4, 8, 4}, (const void *[]){&b_chunk, &n_chunks, &b_total, &at});
    cr_assert_eq(clEnqueueCopyBuffer(clmc_runtime_queue(rt), b_local, b_cum, 0, 0, N * 8, 0, NULL, NULL), CL_SUCCESS);
    run_kernel("pa_add_double", n, 3, (size_t[]){8, 4, 8}, (const void *[]){&b_cum, &n, &b_chunk});
    unsigned differ = 0, compared = 0;
    for (cl_uint scheme = 0; scheme < 3; scheme += 2) /* systematic, nearest_integer */
        for (cl_uint step = 1; step <= STEPS; step++) {
            run_kernel("pa_copy_numbers", n, 13, (size_t[]){8, 4, 4, 4, 4, 4, 4, 4, 8, 4, 8, 8, 4},
                       (const void *[]){&b_cum, &n, &target, &scheme, &seed_lo, &seed_hi, &step, &run, &b_copies[0],
                                        &first, &cum_before, &b_total, &at});
            run_groups("pa_prefix_chunks", n_chunks, 256, 4, (size_t[]){8, 4, 8, 8},
                       (const void *[]){&b_copies[0], &n, &b_prefix[0], &b_sums[0]});
            run_groups("pa_copy_prefix", n_chunks, 256, 14, (size_t[]){8, 4, 4, 4, 4, 4, 4, 4, 8, 8, 4, 8, 8, 8},
                       (const void *[]){&b_local, &n, &target, &scheme, &seed_lo, &seed_hi, &step, &run, &b_chunk,
                                        &b_total, &at, &b_copies[1], &b_prefix[1], &b_sums[1]});
            cl_uint copies[2][N], prefix[2][N], sums[2][3];
            for (int k = 0; k < 2; k++) {
                read(b_copies[k], N * 4, copies[k]);
                read(b_prefix[k], N * 4, prefix[k]);
                read(b_sums[k], n_chunks * 4, sums[k]);
            }
            differ += memcmp(copies[0], copies[1], sizeof copies[0]) != 0;
            differ += memcmp(prefix[0], prefix[1], sizeof prefix[0]) != 0;
            differ += memcmp(sums[0], sums[1], n_chunks * 4) != 0;
            compared += 3;
        }
    printf("pa_copy_prefix against pa_add_double + pa_copy_numbers + pa_prefix_chunks: %u of %u arrays differ "
           "(systematic and nearest_integer, %d steps each)\n", differ, compared, STEPS);
    cr_expect_eq(differ, 0);
    cl_mem all[] = {b_energy, b_local, b_cum, b_chunk, b_total, b_e_min, b_copies[0], b_copies[1], b_prefix[0],
                    b_prefix[1], b_sums[0], b_sums[1]};
    for (int i = 0; i < 12; i++) clReleaseMemObject(all[i]);
    close_program();
}

/* The reproducible weights (PA_REPRODUCIBLE, real members): pa_exp against
 * the host's exp at 2000 exponents from 0 down to -746 (the first member of
 * each chunk, whose chunk-local running sum is its weight alone): within 2
 * ulp where the result is a normal double, 0 below -746, exp(0) = 1 exactly. */
Test(population, reproducible_weights_exp_within_2_ulp, .timeout = 300)
{
    enum { CHUNKS = 2000 };
    open_program_with("-cl-std=CL1.2 -DPA_REAL_MEMBERS -DPA_REPRODUCIBLE");
    cl_uint n = CHUNKS * 256, at = 0;
    double *energy = calloc(n, sizeof *energy), *cum = malloc(sizeof(double) * n), dbeta = 1.0, e_min = 0;
    cr_assert(energy && cum);
    for (int c = 0; c < CHUNKS; c++) energy[256 * c] = 746.5 * c / (CHUNKS - 1); /* weight exp(-E) */
    cl_mem b_energy = buffer(sizeof(double) * n, energy), b_cum = buffer(sizeof(double) * n, NULL);
    cl_mem b_chunk = buffer(sizeof(double) * CHUNKS, NULL), b_e_min = buffer(8, &e_min);
    run_groups("pa_weights", CHUNKS, 256, 7, (size_t[]){8, 4, 8, 8, 4, 8, 8},
               (const void *[]){&b_energy, &n, &dbeta, &b_e_min, &at, &b_cum, &b_chunk});
    read(b_cum, sizeof(double) * n, cum);
    double worst = 0, worst_x = 0;
    int zeros = 0;
    for (int c = 0; c < CHUNKS; c++) {
        double x = -energy[256 * c], w = cum[256 * c], reference = exp(x);
        if (x < -746) {
            cr_expect(w == 0, "pa_exp(%.17g) = %g, not 0", x, w);
            zeros++;
        } else if (reference >= DBL_MIN) {
            double ulps = fabs(w - reference) / (nextafter(reference, INFINITY) - reference);
            if (ulps > worst) worst = ulps, worst_x = x;
        }
    }
    printf("pa_exp: worst %.2f ulp (at %.6f) over %d exponents in [-746.5, 0]; %d below -746 gave 0\n", worst,
           worst_x, CHUNKS, zeros);
    cr_expect(cum[0] == 1.0, "pa_exp(0) = %.17g", cum[0]);
    cr_expect_leq(worst, 2.0, "pa_exp: %.2f ulp at %g", worst, worst_x);
    cl_mem all[] = {b_energy, b_cum, b_chunk, b_e_min};
    for (int i = 0; i < 4; i++) clReleaseMemObject(all[i]);
    free(energy);
    free(cum);
    close_program();
}

/* ---- Bad input ------------------------------------------------------------ */

#define ISING_PA(keys)                                                                                           \
    "{\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": 8}, \"ensemble\": {\"type\": \"population_annealing\", " \
    keys "}}"

Test(population, bad_input_exits_2_naming_the_key)
{
    expect_input_error(ISING_PA("\"population\": 100, \"beta_end\": 0.5, \"steps\": 5, \"sweeps_per_step\": 0"),
                       "pa-theta", "ensemble.sweeps_per_step");
    expect_input_error(ISING_PA("\"population\": 100, \"beta_start\": 0.5, \"beta_end\": 0.5, \"steps\": 5"),
                       "pa-end", "ensemble.beta_end");
    expect_input_error(ISING_PA("\"population\": 100, \"beta_start\": 0.6, \"beta_end\": 0.5, \"steps\": 5"),
                       "pa-end-below", "ensemble.beta_end");
    expect_input_error(ISING_PA("\"population\": 100, \"betas\": [0.1, 0.3, 0.2]"), "pa-monotone",
                       "ensemble.betas[2]");
    expect_input_error(ISING_PA("\"population\": 100, \"beta_start\": 0.2, \"betas\": [0.1, 0.3]"), "pa-from-start",
                       "ensemble.betas[0]");
    expect_input_error(ISING_PA("\"population\": 100, \"betas\": [0.1, 0.3], \"beta_end\": 0.4"), "pa-end-list",
                       "ensemble.beta_end");
    expect_input_error(ISING_PA("\"population\": 100, \"betas\": [0.1], \"steps\": 4"), "pa-both", "ensemble.steps");
    expect_input_error(ISING_PA("\"population\": 100, \"beta_end\": 0.5"), "pa-no-schedule", "ensemble.steps");
    expect_input_error(ISING_PA("\"population\": 0, \"beta_end\": 0.5, \"steps\": 5"), "pa-zero", "ensemble.population");
    expect_input_error(ISING_PA("\"population\": 10, \"beta_end\": 0.5, \"steps\": 5, \"runs\": 0"), "pa-runs",
                       "ensemble.runs");
    expect_input_error("{\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": 8, \"start\": \"ordered\"}, \"ensemble\": "
                       "{\"type\": \"population_annealing\", \"population\": 10, \"beta_end\": 0.5, \"steps\": 5}}",
                       "pa-ordered", "model.start");
    expect_input_error(ISING_PA("\"population\": 100, \"schedule\": \"adaptive\", \"beta_end\": 0.5, "
                                "\"target_overlap\": 1"), "pa-target-one", "ensemble.target_overlap");
    expect_input_error(ISING_PA("\"population\": 100, \"schedule\": \"adaptive\", \"beta_end\": 0.5, "
                                "\"target_overlap\": 0"), "pa-target-zero", "ensemble.target_overlap");
    expect_input_error(ISING_PA("\"population\": 100, \"schedule\": \"adaptive\""), "pa-adaptive-end",
                       "ensemble.beta_end");
    expect_input_error(ISING_PA("\"population\": 100, \"schedule\": \"adaptive\", \"beta_end\": 0.5, \"steps\": 5"),
                       "pa-adaptive-steps", "ensemble.steps");
    expect_input_error(ISING_PA("\"population\": 100, \"schedule\": \"geometric\", \"beta_end\": 0.5, \"steps\": 5"),
                       "pa-schedule", "ensemble.schedule");
    expect_input_error(ISING_PA("\"population\": 100, \"beta_end\": 0.5, \"steps\": 5, \"resampling\": \"stratified\""),
                       "pa-scheme", "ensemble.resampling");
    expect_input_error("{\"model\": {\"type\": \"heisenberg_glass\", \"L\": 8}, \"ensemble\": {\"type\": "
                       "\"population_annealing\", \"population\": 10, \"beta_end\": 0.5, \"steps\": 5}}",
                       "pa-model", "ensemble.type");
}

/* 2^24 members of a 1024^2 lattice: refused before any allocation, naming
 * ensemble.population, the bytes needed and the bytes the device has. */
Test(population, population_beyond_device_memory_refused)
{
    char *dir = test_scratch_dir("pa-memory"), preset[4200];
    snprintf(preset, sizeof preset, "%s/preset.json", dir);
    test_write_file(preset, "{\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": 1024}, \"ensemble\": {\"type\": "
                            "\"population_annealing\", \"population\": 16777216, \"beta_end\": 0.5, \"steps\": 5}}");
    char *output = NULL;
    int rc = test_run_clmc(&output, "run '%s' --quiet --out '%s/out'", preset, dir);
    printf("exit %d: %s", rc, output ? output : "");
    cr_expect_eq(rc, 2);
    cr_expect(output && strstr(output, "ensemble.population: the preset needs "), "names ensemble.population");
    cr_expect(output && strstr(output, " has "), "names what the device has");
    char path[4400];
    snprintf(path, sizeof path, "%s/out", dir);
    cr_expect(!test_path_exists(path), "an output directory was created");
    free(output);
    free(dir);
}
