/* clmc scan jobs: reading JOB.json and expanding its grid into tasks. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/scan.h"
#include "output/results.h"

#define JOB_MAX_BYTES ((size_t)16 << 20)
#define MAX_TASKS 1000000

static char *read_json(const char *path, const char *what, cJSON **tree)
{
    int error = 0;
    char *text = clmc_read_text_file(path, JOB_MAX_BYTES, &error);
    if (!text) {
        clmc_fail(CLMC_ERR_INPUT, "cannot read %s '%s': %s", what, path, strerror(error));
        return NULL;
    }
    const char *end = NULL;
    *tree = cJSON_ParseWithOpts(text, &end, true);
    if (!*tree) {
        int line = 1, column = 1;
        for (const char *c = text; end && c < end; c++) {
            column = *c == '\n' ? 1 : column + 1;
            line += *c == '\n';
        }
        clmc_fail(CLMC_ERR_INPUT, "%s:%d:%d: invalid JSON in the %s", path, line, column, what);
        free(text);
        return NULL;
    }
    return text;
}

/* The file name without its folder and ".json": the default preset name. */
static char *stem(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *name = strdup(slash ? slash + 1 : path);
    size_t n = name ? strlen(name) : 0;
    if (n > 5 && strcmp(name + n - 5, ".json") == 0) name[n - 5] = '\0';
    return name;
}

/* The preset as an object with a name (the file's stem when it has none). */
static clmc_status resolve_preset(const char *job_path, const cJSON *given, cJSON **preset)
{
    char *name_source = NULL;
    if (cJSON_IsString(given)) {
        const char *file = given->valuestring;
        const char *slash = strrchr(job_path, '/');
        char path[4200];
        if (file[0] == '/' || !slash) snprintf(path, sizeof path, "%s", file);
        else snprintf(path, sizeof path, "%.*s/%s", (int)(slash - job_path), job_path, file);
        char *text = read_json(path, "preset", preset);
        if (!text) return CLMC_ERR_INPUT;
        free(text);
        name_source = stem(path);
    } else if (cJSON_IsObject(given)) {
        *preset = cJSON_Duplicate(given, true);
        name_source = stem(job_path);
    } else {
        return clmc_fail(CLMC_ERR_INPUT, "%s: \"preset\" must be a preset object or the name of a preset file",
                         job_path);
    }
    if (!cJSON_IsObject(*preset)) {
        free(name_source);
        return clmc_fail(CLMC_ERR_INPUT, "%s: the preset is not a JSON object", job_path);
    }
    if (!cJSON_GetObjectItemCaseSensitive(*preset, "name") && name_source)
        cJSON_AddStringToObject(*preset, "name", name_source);
    free(name_source);
    return CLMC_OK;
}

/* {"from": a, "to": b, "step": s} (s default 1) or {"from": a, "to": b, "count": n}. */
static clmc_status expand_range(const char *path, const cJSON *range, cJSON **values)
{
    const cJSON *from = NULL, *to = NULL, *step = NULL, *count = NULL, *item;
    cJSON_ArrayForEach(item, range) {
        const cJSON **slot = strcmp(item->string, "from") == 0    ? &from
                             : strcmp(item->string, "to") == 0    ? &to
                             : strcmp(item->string, "step") == 0  ? &step
                             : strcmp(item->string, "count") == 0 ? &count
                                                                  : NULL;
        if (!slot)
            return clmc_fail(CLMC_ERR_INPUT, "grid.%s: unknown range key '%s' (expected from, to and step or count)",
                             path, item->string);
        if (!cJSON_IsNumber(item) || !isfinite(item->valuedouble))
            return clmc_fail(CLMC_ERR_INPUT, "grid.%s.%s: expected a number", path, item->string);
        *slot = item;
    }
    if (!from || !to) return clmc_fail(CLMC_ERR_INPUT, "grid.%s: a range needs \"from\" and \"to\"", path);
    if (step && count) return clmc_fail(CLMC_ERR_INPUT, "grid.%s: give \"step\" or \"count\", not both", path);
    double a = from->valuedouble, b = to->valuedouble, n;
    double s = step ? step->valuedouble : 1;
    if (count) {
        n = count->valuedouble;
        if (n != floor(n) || n < 1 || (n == 1 && a != b) || n > MAX_TASKS)
            return clmc_fail(CLMC_ERR_INPUT, "grid.%s.count: expected a whole number of values, 1 only when from = to",
                             path);
        s = n > 1 ? (b - a) / (n - 1) : 0;
    } else {
        if (!(s > 0)) return clmc_fail(CLMC_ERR_INPUT, "grid.%s.step: expected a number above 0", path);
        n = b < a ? 0 : floor((b - a) / s * (1 + 1e-12) + 1e-9) + 1;
        if (n > MAX_TASKS) return clmc_fail(CLMC_ERR_INPUT, "grid.%s: more than %d values", path, MAX_TASKS);
    }
    if (n < 1) return clmc_fail(CLMC_ERR_INPUT, "grid.%s: empty range (\"to\" is below \"from\")", path);
    *values = cJSON_CreateArray();
    for (double k = 0; k < n; k++) cJSON_AddItemToArray(*values, cJSON_CreateNumber(k == n - 1 && count ? b : a + k * s));
    return CLMC_OK;
}

static clmc_status read_axis(const cJSON *entry, scan_axis *axis)
{
    axis->path = entry->string;
    if (strcmp(entry->string, "output.dir") == 0 || strcmp(entry->string, "output") == 0)
        return clmc_fail(CLMC_ERR_INPUT, "grid.%s: clmc scan chooses each task's output directory", entry->string);
    if (cJSON_IsObject(entry)) return expand_range(entry->string, entry, &axis->values);
    if (!cJSON_IsArray(entry))
        return clmc_fail(CLMC_ERR_INPUT, "grid.%s: expected a list of values or a range {\"from\", \"to\", ...}",
                         entry->string);
    if (cJSON_GetArraySize(entry) == 0) return clmc_fail(CLMC_ERR_INPUT, "grid.%s: empty list", entry->string);
    axis->values = cJSON_Duplicate(entry, true);
    return CLMC_OK;
}

static clmc_status read_grid(const char *job_path, const cJSON *grid, scan_job *job)
{
    if (!cJSON_IsObject(grid))
        return clmc_fail(CLMC_ERR_INPUT, "%s: \"grid\" must be an object of PATH: [values] or PATH: {range}",
                         job_path);
    size_t n = (size_t)cJSON_GetArraySize(grid);
    if (n == 0) return clmc_fail(CLMC_ERR_INPUT, "%s: \"grid\" is empty: name at least one preset path to scan", job_path);
    job->axes = calloc(n, sizeof *job->axes);
    if (!job->axes) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    job->n_tasks = 1;
    const cJSON *entry;
    cJSON_ArrayForEach(entry, grid) {
        scan_axis *axis = &job->axes[job->n_axes];
        CLMC_TRY(read_axis(entry, axis));
        job->n_axes++;
        job->n_tasks *= (size_t)cJSON_GetArraySize(axis->values);
        if (job->n_tasks > MAX_TASKS)
            return clmc_fail(CLMC_ERR_INPUT, "%s: the grid makes more than %d tasks", job_path, MAX_TASKS);
    }
    return CLMC_OK;
}

clmc_status scan_job_load(const char *path, scan_job *job)
{
    memset(job, 0, sizeof *job);
    char *text = read_json(path, "job", &job->job);
    if (!text) return CLMC_ERR_INPUT;
    free(text);
    if (!cJSON_IsObject(job->job)) return clmc_fail(CLMC_ERR_INPUT, "%s: a job is a JSON object", path);
    const cJSON *item;
    cJSON_ArrayForEach(item, job->job)
        if (strcmp(item->string, "preset") != 0 && strcmp(item->string, "grid") != 0)
            return clmc_fail(CLMC_ERR_INPUT, "%s: unknown job key '%s' (a job has \"preset\" and \"grid\")", path,
                             item->string);
    const cJSON *given = cJSON_GetObjectItemCaseSensitive(job->job, "preset");
    const cJSON *grid = cJSON_GetObjectItemCaseSensitive(job->job, "grid");
    if (!given) return clmc_fail(CLMC_ERR_INPUT, "%s: missing \"preset\"", path);
    if (!grid) return clmc_fail(CLMC_ERR_INPUT, "%s: missing \"grid\"", path);
    cJSON *preset = NULL;
    clmc_status status = resolve_preset(path, given, &preset);
    if (status == CLMC_OK) {
        job->preset_text = cJSON_Print(preset);
        status = read_grid(path, grid, job);
    }
    cJSON_Delete(preset);
    return status;
}

void scan_job_free(scan_job *job)
{
    for (size_t i = 0; i < job->n_axes; i++) cJSON_Delete(job->axes[i].values);
    free(job->axes);
    free(job->preset_text);
    cJSON_Delete(job->job);
    memset(job, 0, sizeof *job);
}

const cJSON *scan_task_value(const scan_job *job, size_t task, size_t axis)
{
    size_t stride = 1;
    for (size_t a = job->n_axes; a-- > axis + 1;) stride *= (size_t)cJSON_GetArraySize(job->axes[a].values);
    size_t n = (size_t)cJSON_GetArraySize(job->axes[axis].values);
    return cJSON_GetArrayItem(job->axes[axis].values, (int)(task / stride % n));
}

static char *override_text(const char *path, const cJSON *value)
{
    char *json = cJSON_PrintUnformatted(value);
    size_t size = strlen(path) + (json ? strlen(json) : 0) + 2;
    char *text = malloc(size);
    if (text) snprintf(text, size, "%s=%s", path, json ? json : "");
    free(json);
    return text;
}

char **scan_task_overrides(const scan_job *job, size_t task, const char *task_dir)
{
    char **overrides = calloc(job->n_axes + 1, sizeof *overrides);
    if (!overrides) return NULL;
    for (size_t a = 0; a < job->n_axes; a++)
        overrides[a] = override_text(job->axes[a].path, scan_task_value(job, task, a));
    cJSON *dir = cJSON_CreateString(task_dir);
    overrides[job->n_axes] = override_text("output.dir", dir);
    cJSON_Delete(dir);
    return overrides;
}

void scan_free_overrides(char **overrides, size_t n)
{
    for (size_t i = 0; overrides && i < n; i++) free(overrides[i]);
    free(overrides);
}
