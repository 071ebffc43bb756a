/* Tuned launch and tiling parameters: cache file, built-in defaults, and
 * their application to a preset before a run. */
#include "engine/tuning.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "output/results.h"

#define HEADER_PREFIX "# clmc tuning cache, format "
#define FILE_MAX_BYTES (4L << 20)

bool clmc_tuning_file(char *out, size_t n)
{
    const char *file = getenv("CLMC_TUNING_FILE"), *dir = getenv("CLMC_CACHE_DIR");
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (file && *file) snprintf(out, n, "%s", file);
    else if (dir && *dir) snprintf(out, n, "%s/tuning.txt", dir);
    else if (xdg && *xdg) snprintf(out, n, "%s/clmc/tuning.txt", xdg);
    else if (home && *home) snprintf(out, n, "%s/.cache/clmc/tuning.txt", home);
    else return false;
    return true;
}

/* A copy with tabs and line breaks (which would split a field) as spaces. */
static void flat_copy(char *out, size_t n, const char *text)
{
    snprintf(out, n, "%s", text);
    for (char *c = out; *c; c++)
        if (*c == '\t' || *c == '\n' || *c == '\r') *c = ' ';
}

clmc_status clmc_tuning_key(const clmc_preset *preset, const clmc_model_ops *ops, const clmc_device_info *device,
                            char **key)
{
    uint64_t kernels = 0;
    CLMC_TRY(clmc_kernel_sources_hash(&kernels));
    const cJSON *tree = clmc_preset_tree(preset);
    cJSON *shape = cJSON_CreateObject();
    cJSON_AddItemToObject(shape, "model", cJSON_Duplicate(cJSON_GetObjectItem(tree, "model"), true));
    cJSON *algorithm = cJSON_Duplicate(cJSON_GetObjectItem(tree, "algorithm"), true);
    for (const clmc_tunable *t = ops->tunables; t && t->path; t++)
        if (strncmp(t->path, "algorithm.", 10) == 0) cJSON_DeleteItemFromObject(algorithm, t->path + 10);
    cJSON_AddItemToObject(shape, "algorithm", algorithm);
    cJSON_AddNumberToObject(shape, "temperatures", (double)clmc_preset_betas(preset, NULL, 0));
    char *text = cJSON_PrintUnformatted(shape);
    cJSON_Delete(shape);
    char name[sizeof device->name], driver[sizeof device->driver];
    flat_copy(name, sizeof name, device->name);
    flat_copy(driver, sizeof driver, device->driver);
    size_t n = (text ? strlen(text) : 0) + strlen(name) + strlen(driver) + 64;
    *key = text ? malloc(n) : NULL;
    if (*key) snprintf(*key, n, "%s\t%s\t%016llx\t%s", name, driver, (unsigned long long)kernels, text);
    free(text);
    return *key ? CLMC_OK : clmc_fail(CLMC_ERR_OTHER, "out of host memory");
}

/* The whole file, or NULL with *missing set when it does not exist. */
static clmc_status read_cache(const char *file, char **text, bool *missing)
{
    *text = NULL;
    *missing = false;
    struct stat st; /* a FIFO would block the read until a writer came, a device never end: checked first */
    if (stat(file, &st) == 0 && !S_ISREG(st.st_mode))
        return clmc_fail(CLMC_ERR_INPUT, "tuning cache %s is not a regular file (a FIFO, device or folder); point "
                         "CLMC_TUNING_FILE at a regular file and run clmc tune again", file);
    int error = 0;
    char *buffer = clmc_read_text_file(file, FILE_MAX_BYTES, &error);
    if (!buffer && error == ENOENT) {
        *missing = true;
        return CLMC_OK;
    }
    if (!buffer)
        return clmc_fail(CLMC_ERR_INPUT, "tuning cache %s: cannot read it (%s): delete it and run clmc tune again",
                         file, strerror(error));
    long version = strncmp(buffer, HEADER_PREFIX, strlen(HEADER_PREFIX)) == 0
                       ? strtol(buffer + strlen(HEADER_PREFIX), NULL, 10) : -1;
    if (version != CLMC_TUNING_FORMAT_VERSION) {
        free(buffer);
        if (version < 0)
            return clmc_fail(CLMC_ERR_INPUT, "tuning cache %s does not start with \"%s%d\": not a clmc tuning cache; "
                             "delete or move it (or point CLMC_TUNING_FILE elsewhere) and run clmc tune again",
                             file, HEADER_PREFIX, CLMC_TUNING_FORMAT_VERSION);
        return clmc_fail(CLMC_ERR_INPUT, "tuning cache %s has format version %ld, this clmc reads version %d: "
                         "delete or move it (or point CLMC_TUNING_FILE elsewhere) and run clmc tune again",
                         file, version, CLMC_TUNING_FORMAT_VERSION);
    }
    *text = buffer;
    return CLMC_OK;
}

/* The line of `text` whose first four fields equal `key`, or NULL. */
static const char *find_entry(const char *text, const char *key)
{
    size_t n = strlen(key);
    for (const char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
        if (line[0] != '#' && strncmp(line, key, n) == 0 && line[n] == '\t') return line;
    return NULL;
}

/* "path=value;path=value<TAB>ns" after the key. */
static bool parse_values(const char *fields, clmc_tuning *t)
{
    memset(t, 0, sizeof *t);
    const char *c = fields;
    while (*c && *c != '\t' && t->n < CLMC_TUNING_MAX_VALUES) {
        const char *equals = strchr(c, '=');
        if (!equals || equals - c >= 64) return false;
        memcpy(t->paths[t->n], c, (size_t)(equals - c));
        char *end;
        t->values[t->n++] = strtoll(equals + 1, &end, 10);
        if (end == equals + 1) return false;
        c = *end == ';' ? end + 1 : end;
    }
    if (*c != '\t') return false;
    t->ns_per_update = strtod(c + 1, NULL);
    return true;
}

clmc_status clmc_tuning_lookup(const char *file, const char *key, clmc_tuning *tuning, bool *found)
{
    char *text = NULL;
    bool missing = false;
    *found = false;
    CLMC_TRY(read_cache(file, &text, &missing));
    if (missing) return CLMC_OK;
    const char *line = find_entry(text, key);
    if (line) *found = parse_values(line + strlen(key) + 1, tuning);
    free(text);
    return CLMC_OK;
}

static char *entry_line(const char *key, const clmc_tuning *t)
{
    size_t n = strlen(key) + 128 + t->n * 96;
    char *line = malloc(n);
    if (!line) return NULL;
    size_t at = (size_t)snprintf(line, n, "%s\t", key);
    for (size_t i = 0; i < t->n; i++)
        at += (size_t)snprintf(line + at, n - at, "%s%s=%lld", i ? ";" : "", t->paths[i], t->values[i]);
    snprintf(line + at, n - at, "\t%.6g\n", t->ns_per_update);
    return line;
}

/* Splits "dir/name" for the atomic writer. */
static clmc_status write_cache(const char *file, const char *text)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", file);
    char *slash = strrchr(dir, '/');
    const char *name = slash ? slash + 1 : file;
    if (slash) *slash = '\0';
    const char *folder = slash ? (dir[0] ? dir : "/") : ".";
    CLMC_TRY(clmc_make_directory(folder));
    return clmc_write_file_atomic(folder, name, text, strlen(text));
}

clmc_status clmc_tuning_store(const char *file, const char *key, const clmc_tuning *tuning)
{
    char *old = NULL, *line = entry_line(key, tuning);
    bool missing = false;
    clmc_status status = line ? read_cache(file, &old, &missing) : clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    if (status != CLMC_OK) {
        free(line);
        return status;
    }
    const char *header = HEADER_PREFIX "1\n# device\tdriver\tkernel sources\tpreset\tvalues\tns per update\n";
    const char *before = old ? old : header, *current = find_entry(before, key);
    size_t n = strlen(before) + strlen(line) + 1;
    char *text = malloc(n);
    if (!text) status = clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    else if (current) {
        const char *end = strchr(current, '\n');
        end = end ? end + 1 : current + strlen(current);
        snprintf(text, n, "%.*s%s%s", (int)(current - before), before, line, end);
    } else {
        snprintf(text, n, "%s%s%s", before, before[0] && before[strlen(before) - 1] != '\n' ? "\n" : "", line);
    }
    if (status == CLMC_OK && strcmp(text, before) != 0) status = write_cache(file, text);
    free(text);
    free(old);
    free(line);
    return status;
}

static const clmc_tunable *find_tunable(const clmc_model_ops *ops, const char *path)
{
    for (const clmc_tunable *t = ops->tunables; t && t->path; t++)
        if (strcmp(t->path, path) == 0) return t;
    return NULL;
}

/* Sets `path` to `value` if the preset leaves it automatic and the model's
 * checks accept the value for this preset (a default may not fit every
 * lattice); records it. */
static void apply_value(clmc_preset *preset, const clmc_model_ops *ops, const clmc_tunable *t, long long value,
                        cJSON *values)
{
    if (!t || !clmc_preset_has(preset, t->path) || clmc_preset_int(preset, t->path) != t->automatic) return;
    clmc_preset_set_int(preset, t->path, value);
    if (ops->validate && ops->validate(preset) != CLMC_OK) {
        clmc_preset_set_int(preset, t->path, t->automatic);
        return;
    }
    cJSON_AddNumberToObject(values, t->path, (double)value);
}

static bool apply_cached(clmc_preset *preset, const clmc_model_ops *ops, const clmc_device_info *device,
                         cJSON *report)
{
    char file[4096], *key = NULL;
    clmc_tuning tuning;
    bool found = false;
    if (!clmc_tuning_file(file, sizeof file) || clmc_tuning_key(preset, ops, device, &key) != CLMC_OK) return false;
    clmc_status status = clmc_tuning_lookup(file, key, &tuning, &found);
    free(key);
    if (status != CLMC_OK) {
        cJSON_AddStringToObject(report, "cache_problem", clmc_error_message());
        return false;
    }
    if (!found) return false;
    cJSON_AddStringToObject(report, "source", "tuned");
    cJSON_AddStringToObject(report, "file", file);
    cJSON *values = cJSON_AddObjectToObject(report, "values");
    for (size_t i = 0; i < tuning.n; i++)
        apply_value(preset, ops, find_tunable(ops, tuning.paths[i]), tuning.values[i], values);
    return true;
}

static void apply_builtin(clmc_preset *preset, const clmc_model_ops *ops, const clmc_device_info *device,
                          cJSON *report)
{
    cJSON *values = cJSON_CreateObject();
    long long dim = clmc_preset_has(preset, "model.dim") ? clmc_preset_int(preset, "model.dim") : 0;
    for (const clmc_tunable *t = ops->tunables; t && t->path; t++)
        for (const clmc_tunable_default *d = t->defaults; d && d->dim; d++) {
            if (d->dim != dim || strcmp(d->device_type, device->type) != 0) continue;
            if (d->vendor && !strstr(device->vendor, d->vendor)) continue;
            apply_value(preset, ops, t, d->value, values);
        }
    bool any = cJSON_GetArraySize(values) > 0;
    cJSON_AddStringToObject(report, "source", any ? "built-in defaults" : "model defaults");
    if (any) cJSON_AddItemToObject(report, "values", values);
    else cJSON_Delete(values);
}

void clmc_tuning_apply(clmc_preset *preset, const clmc_model_ops *ops, const clmc_device_info *device,
                       cJSON *report)
{
    if (!ops->tunables || !ops->tunables[0].path) {
        cJSON_AddStringToObject(report, "source", "model defaults (nothing to tune)");
        return;
    }
    if (!apply_cached(preset, ops, device, report)) apply_builtin(preset, ops, device, report);
}
