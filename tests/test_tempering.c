/* Parallel tempering with the Ising model: every temperature's series agrees
 * with the exact 2D values, the temperature <-> configuration map stays a
 * permutation, exchanges are reported, and runs are reproducible. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ising_exact.h"
#include "physics.h"
#include "testenv.h"

#define TOLERANCE_SIGMA 4.0

/* A wide range at L = 16; at L = 64 (msc) neighbouring temperatures must be
 * closer for exchanges to be accepted. */
static const double wide_betas[] = {0.3, 0.36, 0.4406868, 0.5, 0.6};
static const double close_betas[] = {0.43, 0.435, 0.44, 0.445, 0.45};
#define N_BETAS 5

/* msc needs L = 64, where the energy relaxes over several thousand
 * Metropolis sweeps near beta_c; a hot start with too short a
 * thermalization leaves the energy biased upwards by a few 1e-3. */
static const char *preset_text(const char *layout, const double *betas)
{
    static char text[1024];
    snprintf(text, sizeof text,
             "{\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": %d},"
             " \"algorithm\": {\"layout\": \"%s\"},"
             " \"ensemble\": {\"type\": \"parallel_tempering\", \"betas\": [%.10g, %.10g, %.10g, %.10g, %.10g],"
             " \"exchange_every\": 5},"
             " \"run\": {\"thermalization\": %d, \"sweeps\": 30000, \"seed\": 11}}",
             strcmp(layout, "msc") == 0 ? 64 : 16, layout, betas[0], betas[1], betas[2], betas[3], betas[4],
             strcmp(layout, "msc") == 0 ? 10000 : 1000);
    return text;
}

static void check_against_exact(const char *layout, const double *betas)
{
    cJSON *result = physics_run(preset_text(layout, betas), "tempering");
    int L = strcmp(layout, "msc") == 0 ? 64 : 16;
    const cJSON *temperatures = cJSON_GetObjectItem(cJSON_GetObjectItem(result, "observables"), "temperatures");
    cr_assert_eq(cJSON_GetArraySize(temperatures), N_BETAS, "one estimate per temperature");
    for (int t = 0; t < N_BETAS; t++) {
        const cJSON *entry = cJSON_GetArrayItem(temperatures, t);
        cr_expect_float_eq(cJSON_GetObjectItem(entry, "beta")->valuedouble, betas[t], 1e-12);
        double exact_energy, exact_heat;
        ising2d_exact(L, betas[t], &exact_energy, &exact_heat);
        const cJSON *energy = cJSON_GetObjectItem(entry, "energy"), *heat = cJSON_GetObjectItem(entry, "specific_heat");
        char what[96];
        snprintf(what, sizeof what, "tempering %s L=%d beta=%.7g energy", layout, L, betas[t]);
        double z_e = physics_compare(what, cJSON_GetObjectItem(energy, "mean")->valuedouble,
                                     cJSON_GetObjectItem(energy, "error")->valuedouble, exact_energy);
        snprintf(what, sizeof what, "tempering %s L=%d beta=%.7g C", layout, L, betas[t]);
        double z_c = physics_compare(what, cJSON_GetObjectItem(heat, "mean")->valuedouble,
                                     cJSON_GetObjectItem(heat, "error")->valuedouble, exact_heat);
        cr_expect_lt(z_e, TOLERANCE_SIGMA);
        cr_expect_lt(z_c, TOLERANCE_SIGMA);
    }
    const cJSON *report = cJSON_GetObjectItem(cJSON_GetObjectItem(result, "observables"), "tempering");
    cr_assert_not_null(report, "tempering report missing");
    const cJSON *acceptance = cJSON_GetObjectItem(report, "acceptance");
    cr_expect_eq(cJSON_GetArraySize(acceptance), N_BETAS - 1);
    for (int t = 0; t < N_BETAS - 1; t++) {
        double a = cJSON_GetArrayItem(acceptance, t)->valuedouble;
        printf("pair %d-%d acceptance %.4f\n", t, t + 1, a);
        cr_expect(a > 0 && a <= 1, "acceptance of pair %d is %g", t, a);
    }
    /* The map must be a permutation of the configurations. */
    const cJSON *map = cJSON_GetObjectItem(report, "final_configuration_at_temperature");
    int seen[N_BETAS] = {0};
    for (int t = 0; t < cJSON_GetArraySize(map); t++) seen[cJSON_GetArrayItem(map, t)->valueint]++;
    for (int c = 0; c < N_BETAS; c++) cr_expect_eq(seen[c], 1, "configuration %d appears %d times", c, seen[c]);
    printf("round trips: %g\n", cJSON_GetObjectItem(report, "round_trips")->valuedouble);
    cr_expect_gt(cJSON_GetObjectItem(report, "round_trips")->valuedouble, 0);
    cJSON_Delete(result);
}

Test(tempering, tiled_each_temperature_matches_exact, .timeout = 600)
{
    check_against_exact("tiled", wide_betas);
}

Test(tempering, msc_each_temperature_matches_exact, .timeout = 600)
{
    check_against_exact("msc", close_betas);
}

Test(tempering, series_rows_follow_temperatures_and_repeat)
{
    char *dir = test_scratch_dir("tempering-repeat");
    char preset[4200], first[4300], second[4300];
    snprintf(preset, sizeof preset, "%s/pt.json", dir);
    test_write_file(preset, "{\"model\": {\"type\": \"ising\", \"L\": 16}, \"ensemble\": {\"type\": "
                            "\"parallel_tempering\", \"betas\": [0.3, 0.4, 0.5], \"exchange_every\": 2},"
                            " \"run\": {\"thermalization\": 10, \"sweeps\": 200}}");
    for (int run = 0; run < 2; run++) {
        char *output = NULL;
        int status = test_run_clmc(&output, "run '%s' --quiet --out '%s/out%d'", preset, dir, run);
        cr_assert_eq(status, 0, "%s", output);
        free(output);
    }
    snprintf(first, sizeof first, "%s/out0/series.csv", dir);
    snprintf(second, sizeof second, "%s/out1/series.csv", dir);
    char *a = test_read_file(first), *b = test_read_file(second);
    cr_assert(a && b);
    cr_expect_str_eq(a, b, "tempering runs with the same seed differ");
    cr_expect(strncmp(a, "sweep,temperature,beta,energy,magnetization\n", 44) == 0, "header: %.60s", a);
    /* Rows come in temperature order 0, 1, 2 with their betas. */
    int rows = 0;
    for (char *line = strchr(a, '\n') + 1; *line; line = strchr(line, '\n') + 1, rows++) {
        unsigned long long sweep;
        int t;
        double beta;
        cr_assert_eq(sscanf(line, "%llu,%d,%lf", &sweep, &t, &beta), 3);
        cr_expect_eq(t, rows % 3);
        cr_expect_float_eq(beta, 0.3 + 0.1 * t, 1e-12);
    }
    cr_expect_eq(rows, 600);
    free(a);
    free(b);
    free(dir);
}
