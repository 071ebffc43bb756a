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
