/* In-process runs of presets and z-score comparisons for the physics tests. */
#include "physics.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clmc/engine.h"
#include "clmc/preset.h"
#include "testenv.h"

cJSON *physics_run(const char *preset_json, const char *label)
{
    char *dir = NULL;
    cJSON *result = physics_run_in(preset_json, label, &dir);
    free(dir);
    return result;
}

cJSON *physics_run_in(const char *preset_json, const char *label, char **out_dir)
{
    char *dir = test_scratch_dir(label);
    cr_assert_not_null(dir, "scratch directory");
    char override[4200];
    snprintf(override, sizeof override, "output.dir=\"%s\"", dir);
    const char *overrides[] = {override};
    clmc_preset *preset = NULL;
    clmc_status status = clmc_preset_parse(preset_json, strlen(preset_json), label, overrides, 1, &preset);
    cr_assert_eq(status, CLMC_OK, "preset: %s", clmc_error_message());
    clmc_run_options options = {.quiet = true};
    status = clmc_run(preset, &options);
    cr_assert_eq(status, CLMC_OK, "run: %s", clmc_error_message());
    clmc_preset_free(preset);
    cJSON *result = test_load_result(dir);
    cr_assert_not_null(result, "result.json in %s", dir);
    *out_dir = dir;
    return result;
}

double physics_check(const cJSON *result, const char *name)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(result, "checks"), name);
    cr_assert(cJSON_IsNumber(item), "checks.%s missing", name);
    return item->valuedouble;
}

const cJSON *physics_item(const cJSON *entry, const char *name)
{
    const cJSON *item = cJSON_GetObjectItem(entry, name);
    cr_assert_not_null(item, "no %s in the result", name);
    return item;
}

double physics_mean(const cJSON *entry, const char *name)
{
    return cJSON_GetObjectItem(physics_item(entry, name), "mean")->valuedouble;
}

double physics_error(const cJSON *entry, const char *name)
{
    const cJSON *error = cJSON_GetObjectItem(physics_item(entry, name), "error");
    cr_assert_not_null(error, "%s: no error", name);
    cr_assert_gt(error->valuedouble, 0, "%s: error %g", name, error->valuedouble);
    return error->valuedouble;
}

double physics_compare(const char *what, double measured, double error, double reference)
{
    double z = error > 0 ? (measured - reference) / error : INFINITY;
    printf("%-48s %12.7f +- %.7f  vs %12.7f  (z = %+.2f)\n", what, measured, error, reference, z);
    fflush(stdout);
    return fabs(z);
}

void expect_input_error(const char *preset_json, const char *label, const char *needle)
{
    clmc_preset *parsed = NULL;
    clmc_status status = clmc_preset_parse(preset_json, strlen(preset_json), label, NULL, 0, &parsed);
    const char *message = clmc_error_message();
    printf("%s: status %d, %s\n", label, (int)status, message);
    cr_expect_eq(status, CLMC_ERR_INPUT, "%s: status %d", label, (int)status);
    cr_expect(strstr(message, needle), "%s: message lacks '%s'", label, needle);
    clmc_preset_free(parsed);
    char *dir = test_scratch_dir(label), path[4200];
    cr_assert_not_null(dir, "scratch directory");
    snprintf(path, sizeof path, "%s/preset.json", dir);
    test_write_file(path, preset_json);
    int exit_status = test_run_clmc(NULL, "run '%s' --quiet --out '%s/out'", path, dir);
    cr_expect_eq(exit_status, 2, "%s: exit status %d", label, exit_status);
    snprintf(path, sizeof path, "%s/out", dir);
    cr_expect(!test_path_exists(path), "%s: an output directory was created", label);
    free(dir);
}

/* observables.tempering: an acceptance per pair of neighbouring betas, and
 * the final map a permutation of each chain's configurations. */
void physics_check_tempering_report(const cJSON *result, int chains, int n_betas)
{
    cr_assert(n_betas <= 64, "at most 64 temperatures checked");
    const cJSON *report = cJSON_GetObjectItem(cJSON_GetObjectItem(result, "observables"), "tempering");
    cr_assert_not_null(report, "tempering report missing");
    const cJSON *acceptance = cJSON_GetObjectItem(report, "acceptance");
    cr_assert_eq(cJSON_GetArraySize(acceptance), n_betas - 1);
    printf("acceptance:");
    for (int t = 0; t < n_betas - 1; t++) {
        double a = cJSON_GetArrayItem(acceptance, t)->valuedouble;
        printf(" %.3f", a);
        cr_expect(a > 0 && a <= 1, "pair %d: acceptance %.4f", t, a);
    }
    printf(", round trips %g\n", cJSON_GetObjectItem(report, "round_trips")->valuedouble);
    const cJSON *map = cJSON_GetObjectItem(report, "final_configuration_at_temperature");
    cr_assert_eq(cJSON_GetArraySize(map), chains * n_betas);
    for (int chain = 0; chain < chains; chain++) {
        int seen[64] = {0};
        for (int t = 0; t < n_betas; t++) {
            int c = cJSON_GetArrayItem(map, chain * n_betas + t)->valueint;
            cr_expect(c >= chain * n_betas && c < (chain + 1) * n_betas && !seen[c - chain * n_betas]++,
                      "chain %d: configuration %d out of place or repeated", chain, c);
        }
    }
}
