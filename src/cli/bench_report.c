/* Benchmark output: clpeak-style versioned JSON in the C locale and a table. */
#include "cli/bench_report.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "output/results.h"

static clmc_status select_listed(const char *list, clmc_device_info **devices, size_t *count)
{
    size_t capacity = 1;
    for (const char *c = list; *c; c++) capacity += *c == ',';
    clmc_device_info *chosen = calloc(capacity, sizeof *chosen);
    char *copy = strdup(list);
    if (!chosen || !copy) {
        free(chosen);
        free(copy);
        return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    }
    size_t n = 0;
    clmc_status status = CLMC_OK;
    char *save = NULL;
    for (char *sel = strtok_r(copy, ",", &save); sel && status == CLMC_OK; sel = strtok_r(NULL, ",", &save))
        status = clmc_device_select(sel, &chosen[n++]);
    free(copy);
    if (status == CLMC_OK && n == 0) status = clmc_fail(CLMC_ERR_INPUT, "--devices: empty device list");
    if (status != CLMC_OK) {
        free(chosen);
        return status;
    }
    *devices = chosen;
    *count = n;
    return CLMC_OK;
}

clmc_status clmc_bench_select_devices(const char *list, clmc_device_info **devices, size_t *count)
{
    if (list && strcmp(list, "all") == 0) {
        CLMC_TRY(clmc_device_list(devices, count));
        return *count ? CLMC_OK : clmc_fail(CLMC_ERR_DEVICE, "no OpenCL device found");
    }
    if (list) return select_listed(list, devices, count);
    *devices = calloc(1, sizeof **devices);
    if (!*devices) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    *count = 1;
    clmc_status status = clmc_device_select(NULL, *devices);
    if (status != CLMC_OK) free(*devices);
    return status;
}

/* A kernel cannot move more bytes than the device copies: a fraction above
 * 1 means the model's bytes_per_sweep overstates its traffic. */
static const char fraction_warning[] =
    "above 100 % of the copy bandwidth: the model's traffic estimate (bytes_per_update) is wrong, not the device";

static double bandwidth_fraction(const clmc_bench_entry *e)
{
    return e->copy_bytes_per_second > 0 ? e->achieved_bytes_per_second / e->copy_bytes_per_second : 0;
}

const char *clmc_bench_fraction_status(double fraction)
{
    return fraction > 1.0 ? "traffic_model_error" : "ok";
}

clmc_status clmc_bench_check_json_path(const char *path)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = '\0';
    const char *folder = slash ? (dir[0] ? dir : "/") : ".";
    struct stat info;
    if (stat(folder, &info) != 0 || !S_ISDIR(info.st_mode))
        return clmc_fail(CLMC_ERR_INPUT, "--json %s: directory '%s' does not exist", path, folder);
    if (access(folder, W_OK | X_OK) != 0)
        return clmc_fail(CLMC_ERR_INPUT, "--json %s: directory '%s' is not writable", path, folder);
    if (stat(path, &info) == 0 && S_ISDIR(info.st_mode))
        return clmc_fail(CLMC_ERR_INPUT, "--json %s: is a directory; give a file name", path);
    return CLMC_OK;
}

void clmc_bench_print_table(FILE *out, const clmc_bench_entry *e, size_t n)
{
    double slowest = 0;
    for (size_t i = 0; i < n; i++)
        if (e[i].status == CLMC_OK && e[i].ns_per_update > slowest) slowest = e[i].ns_per_update;
    fprintf(out, "%-40s %-22s %12s %14s %8s %10s %8s\n", "device", "driver", "ns/update",
            "updates/s", "speedup", "GB/s", "of copy");
    for (size_t i = 0; i < n; i++) {
        if (e[i].status != CLMC_OK) {
            fprintf(out, "%-40.40s %-22.22s failed: %s\n", e[i].device.name, e[i].device.driver, e[i].reason);
            continue;
        }
        double fraction = bandwidth_fraction(&e[i]);
        bool impossible = strcmp(clmc_bench_fraction_status(fraction), "ok") != 0;
        fprintf(out, "%-40.40s %-22.22s %12.6f %14.4e %7.2fx %10.1f %7.1f%%%s\n", e[i].device.name,
                e[i].device.driver, e[i].ns_per_update, e[i].updates_per_second,
                slowest / e[i].ns_per_update, e[i].achieved_bytes_per_second * 1e-9, 100 * fraction,
                impossible ? " !" : "");
        if (impossible) fprintf(out, "    warning: %s\n", fraction_warning);
        for (size_t k = 0; k < e[i].n_phases; k++)
            fprintf(out, "%s%s %.6f ns%s", k ? ", " : "    phases: ", e[i].phase_names[k], e[i].phase_ns_per_update[k],
                    k + 1 == e[i].n_phases ? "\n" : "");
    }
}

static cJSON *add_metric(cJSON *metrics, const char *name, double value, const char *unit, const char *direction)
{
    cJSON *m = cJSON_AddObjectToObject(metrics, name);
    cJSON_AddNumberToObject(m, "value", value);
    cJSON_AddStringToObject(m, "unit", unit);
    cJSON_AddStringToObject(m, "direction", direction);
    return m;
}

static cJSON *entry_json(const clmc_bench_entry *e)
{
    cJSON *item = cJSON_CreateObject();
    cJSON_AddItemToObject(item, "device", clmc_device_json(&e->device));
    cJSON_AddStringToObject(item, "status", e->status == CLMC_OK ? "ok" : "failed");
    cJSON *resolved = e->resolved_preset ? cJSON_Parse(e->resolved_preset) : NULL;
    if (resolved) cJSON_AddItemToObject(item, "resolved_preset", resolved);
    if (e->status != CLMC_OK) {
        cJSON_AddStringToObject(item, "reason", e->reason);
        return item;
    }
    cJSON *metrics = cJSON_AddObjectToObject(item, "metrics");
    add_metric(metrics, "ns_per_update", e->ns_per_update, "ns", "lower_is_better");
    add_metric(metrics, "ns_per_update_min", e->ns_per_update_min, "ns", "lower_is_better");
    add_metric(metrics, "ns_per_update_max", e->ns_per_update_max, "ns", "lower_is_better");
    add_metric(metrics, "updates_per_second", e->updates_per_second, "1/s", "higher_is_better");
    add_metric(metrics, "bytes_per_update", e->bytes_per_update, "B", "lower_is_better");
    add_metric(metrics, "achieved_bandwidth", e->achieved_bytes_per_second, "B/s", "higher_is_better");
    add_metric(metrics, "copy_bandwidth", e->copy_bytes_per_second, "B/s", "higher_is_better");
    double fraction = bandwidth_fraction(e);
    const char *fraction_status = clmc_bench_fraction_status(fraction);
    cJSON *metric = add_metric(metrics, "bandwidth_fraction", fraction, "1", "higher_is_better");
    cJSON_AddStringToObject(metric, "status", fraction_status);
    if (strcmp(fraction_status, "ok") != 0) cJSON_AddStringToObject(metric, "warning", fraction_warning);
    if (e->n_phases) {
        cJSON *phases = cJSON_AddObjectToObject(item, "phases");
        for (size_t k = 0; k < e->n_phases; k++)
            add_metric(phases, e->phase_names[k], e->phase_ns_per_update[k], "ns", "lower_is_better");
    }
    cJSON_AddNumberToObject(item, "repetitions", e->repetitions);
    cJSON_AddNumberToObject(item, "sweeps_per_repetition", e->sweeps_per_repetition);
    return item;
}

clmc_status clmc_bench_write_json(const char *path, const clmc_preset *preset, const char *invocation,
                                  const clmc_launch_options *launch, const clmc_bench_entry *entries, size_t n)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "schema", CLMC_BENCH_SCHEMA);
    cJSON_AddNumberToObject(root, "format_version", CLMC_BENCH_FORMAT_VERSION);
    cJSON_AddStringToObject(root, "clmc_version", CLMC_VERSION);
    char host[256] = "unknown", when[64];
    gethostname(host, sizeof host - 1);
    time_t now = time(NULL);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    cJSON_AddStringToObject(root, "host", host);
    cJSON_AddStringToObject(root, "date", when);
    cJSON_AddStringToObject(root, "invocation", invocation ? invocation : "");
    cJSON_AddItemToObject(root, "options", clmc_launch_options_json(launch));
    cJSON_AddItemToObject(root, "preset", cJSON_Duplicate(clmc_preset_tree(preset), true));
    cJSON *devices = cJSON_AddArrayToObject(root, "devices");
    for (size_t i = 0; i < n; i++) cJSON_AddItemToArray(devices, entry_json(&entries[i]));
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    if (!text) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    const char *name = slash ? slash + 1 : path;
    if (slash) *slash = '\0';
    size_t length = strlen(text);
    text[length] = '\n';
    clmc_status status = clmc_write_file_atomic(slash ? (dir[0] ? dir : "/") : ".", name, text, length + 1);
    free(text);
    return status;
}

#define COMPARE_MAX_BYTES (64L << 20)

static clmc_status read_bench_document(const char *path, cJSON **doc)
{
    int error = 0;
    char *text = clmc_read_text_file(path, COMPARE_MAX_BYTES, &error);
    if (!text) return clmc_fail(CLMC_ERR_INPUT, "--compare: cannot read '%s': %s", path, strerror(error));
    *doc = cJSON_Parse(text);
    free(text);
    const cJSON *schema = *doc ? cJSON_GetObjectItem(*doc, "schema") : NULL;
    const cJSON *version = *doc ? cJSON_GetObjectItem(*doc, "format_version") : NULL;
    if (!cJSON_IsString(schema) || strcmp(schema->valuestring, CLMC_BENCH_SCHEMA) != 0 || !cJSON_IsNumber(version) ||
        version->valueint != CLMC_BENCH_FORMAT_VERSION || !cJSON_IsArray(cJSON_GetObjectItem(*doc, "devices"))) {
        cJSON_Delete(*doc);
        return clmc_fail(CLMC_ERR_INPUT, "--compare: '%s' is not a %s document of format version %d (written by "
                         "clmc bench --json)", path, CLMC_BENCH_SCHEMA, CLMC_BENCH_FORMAT_VERSION);
    }
    return CLMC_OK;
}

/* ns per update of the old document's entry for this device, or 0. */
static double old_ns_per_update(const cJSON *doc, const clmc_device_info *device)
{
    const cJSON *entry;
    cJSON_ArrayForEach(entry, cJSON_GetObjectItem(doc, "devices")) {
        const cJSON *d = cJSON_GetObjectItem(entry, "device");
        const cJSON *name = cJSON_GetObjectItem(d, "name"), *driver = cJSON_GetObjectItem(d, "driver");
        const cJSON *ns = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(entry, "metrics"),
                                                                  "ns_per_update"), "value");
        if (cJSON_IsString(name) && cJSON_IsString(driver) && cJSON_IsNumber(ns) &&
            strcmp(name->valuestring, device->name) == 0 && strcmp(driver->valuestring, device->driver) == 0)
            return ns->valuedouble;
    }
    return 0;
}

clmc_status clmc_bench_check_compare_file(const char *old_path)
{
    cJSON *doc = NULL;
    CLMC_TRY(read_bench_document(old_path, &doc));
    cJSON_Delete(doc);
    return CLMC_OK;
}

clmc_status clmc_bench_compare(FILE *out, const char *old_path, const clmc_preset *preset, const clmc_bench_entry *e,
                               size_t n)
{
    cJSON *doc = NULL;
    CLMC_TRY(read_bench_document(old_path, &doc));
    const cJSON *date = cJSON_GetObjectItem(doc, "date");
    fprintf(out, "compared with %s (%s):\n", old_path, cJSON_IsString(date) ? date->valuestring : "undated");
    if (!cJSON_Compare(cJSON_GetObjectItem(doc, "preset"), clmc_preset_tree(preset), true))
        fprintf(out, "note: the old run's preset differs from this one\n");
    fprintf(out, "%-40s %14s %14s %10s\n", "device", "old ns/update", "new ns/update", "new/old");
    for (size_t i = 0; i < n; i++) {
        double old = old_ns_per_update(doc, &e[i].device);
        if (e[i].status != CLMC_OK) fprintf(out, "%-40.40s %14s\n", e[i].device.name, "failed now");
        else if (old <= 0) fprintf(out, "%-40.40s %14s %14.6f\n", e[i].device.name, "not in old", e[i].ns_per_update);
        else
            fprintf(out, "%-40.40s %14.6f %14.6f %9.3fx (%s)\n", e[i].device.name, old, e[i].ns_per_update,
                    e[i].ns_per_update / old, e[i].ns_per_update <= old ? "faster or equal" : "slower");
    }
    cJSON_Delete(doc);
    return CLMC_OK;
}

char *clmc_join_arguments(int argc, char **argv)
{
    size_t n = 1;
    for (int i = 0; i < argc; i++) n += strlen(argv[i]) + 1;
    char *text = calloc(n, 1);
    for (int i = 0; text && i < argc; i++) {
        if (i) strcat(text, " ");
        strcat(text, argv[i]);
    }
    return text;
}
