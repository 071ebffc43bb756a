/* Re-run helpers (rerun.h). */
#include "rerun.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testenv.h"

char *rerun_file(const char *dir, const char *preset, const char *name, const char *overrides, const char *file)
{
    char *output = NULL;
    int rc = test_run_clmc(&output, "run '%s' --quiet --out '%s/%s' %s", preset, dir, name, overrides);
    cr_assert_eq(rc, 0, "%s: %s", name, output ? output : "");
    free(output);
    char path[4400];
    snprintf(path, sizeof path, "%s/%s/%s", dir, name, file);
    char *text = test_read_file(path);
    cr_assert_not_null(text, "%s: missing", path);
    return text;
}

char *rerun_preset_dir(const char *label, const char *json)
{
    char *dir = test_scratch_dir(label), path[4200];
    cr_assert_not_null(dir);
    snprintf(path, sizeof path, "%s/preset.json", dir);
    test_write_file(path, json);
    return dir;
}

char *rerun_rows_of_system(const char *series, int system, int skip, int *n)
{
    char *out = calloc(strlen(series) + 1, 1), *at = out;
    cr_assert_not_null(out);
    int rows = 0;
    const char *line = strchr(series, '\n');
    for (line = line ? line + 1 : series + strlen(series); *line;) {
        const char *end = strchr(line, '\n');
        if (!end) end = line + strlen(line);
        unsigned long long sweep;
        int sys, used = 0;
        cr_assert_eq(sscanf(line, "%llu,%d,%n", &sweep, &sys, &used), 2, "row %.60s", line);
        if (sys == system) {
            const char *from = line + used; /* after sweep,system, */
            for (int k = 1; k < skip && from < end; k++) from = memchr(from, ',', (size_t)(end - from)) + 1;
            at += sprintf(at, "%llu,", sweep);
            memcpy(at, from, (size_t)(end - from));
            at += end - from;
            *at++ = '\n';
            rows++;
        }
        line = *end ? end + 1 : end;
    }
    if (n) *n = rows;
    return out;
}

void rerun_expect_resume_identical(const char *label, const char *json)
{
    char *dir = rerun_preset_dir(label, json), preset[4200], command[17000], path[4400];
    snprintf(preset, sizeof preset, "%s/preset.json", dir);
    char *a = rerun_file(dir, preset, "full", "", "series.csv");
    snprintf(command, sizeof command, "cp -r '%s/full' '%s/resumed' && rm '%s/resumed/result.json' "
             "'%s/resumed/series.csv'", dir, dir, dir, dir);
    cr_assert_eq(system(command), 0);
    char *output = NULL;
    int rc = test_run_clmc(&output, "run --resume '%s/resumed' --quiet", dir);
    cr_assert_eq(rc, 0, "%s: resume: %s", label, output ? output : "");
    free(output);
    snprintf(path, sizeof path, "%s/resumed/series.csv", dir);
    char *b = test_read_file(path);
    cr_assert_not_null(b, "%s: no resumed series", label);
    snprintf(path, sizeof path, "%s/full", dir);
    cJSON *x = test_load_result(path);
    snprintf(path, sizeof path, "%s/resumed", dir);
    cJSON *y = test_load_result(path);
    cr_assert(x && y, "%s: missing result.json", label);
    bool same_observables = cJSON_Compare(cJSON_GetObjectItem(x, "observables"), cJSON_GetObjectItem(y, "observables"), true);
    bool same_checks = cJSON_Compare(cJSON_GetObjectItem(x, "checks"), cJSON_GetObjectItem(y, "checks"), true);
    printf("%s: series.csv %zu and %zu bytes, %s; observables %s; checks %s\n", label, strlen(a), strlen(b),
           strcmp(a, b) == 0 ? "identical" : "DIFFERENT", same_observables ? "identical" : "DIFFERENT",
           same_checks ? "identical" : "DIFFERENT");
    cr_expect_str_eq(a, b, "%s: resumed series differs", label);
    cr_expect(same_observables, "%s: resumed observables differ", label);
    cr_expect(same_checks, "%s: final configurations (checks) differ", label);
    cJSON_Delete(x);
    cJSON_Delete(y);
    free(a);
    free(b);
    free(dir);
}
