/* clmc tune: search the tunable launch and tiling keys of a preset's model on
 * one device, check each candidate against the defaults, store the fastest. */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clmc/engine.h"
#include "models/model.h"
#include "output/results.h"
#include "engine/tuning.h"

#define MAX_TUNABLES CLMC_TUNING_MAX_VALUES
#define CHECK_THERMALIZATION 100
#define CHECK_SWEEPS 200
#define CHECK_SIGMAS 5.0
#define CHECK_RELATIVE 0.01

typedef struct {
    const clmc_tunable *tunables[MAX_TUNABLES];
    size_t n;
    bool keeps_order; /* every key keeps the update order */
} search_space;

/* Overrides "path=value" of one candidate (automatic values left out). */
typedef struct {
    char text[MAX_TUNABLES][96];
    const char *list[MAX_TUNABLES + 4];
    size_t n;
} overrides;

static void candidate_overrides(const search_space *space, const size_t *choice, overrides *o)
{
    o->n = 0;
    for (size_t k = 0; k < space->n; k++) {
        const clmc_tunable *t = space->tunables[k];
        if (choice[k] == 0) continue; /* index 0: automatic */
        snprintf(o->text[o->n], sizeof o->text[o->n], "%s=%lld", t->path, t->candidates[choice[k] - 1]);
        o->list[o->n] = o->text[o->n];
        o->n++;
    }
}

static size_t candidate_count(const clmc_tunable *t)
{
    size_t n = 0;
    while (t->candidates[n] != t->automatic) n++;
    return n;
}

/* Next combination (index 0 = automatic for every key); false after the last. */
static bool next_choice(const search_space *space, size_t *choice)
{
    for (size_t k = 0; k < space->n; k++) {
        if (++choice[k] <= candidate_count(space->tunables[k])) return true;
        choice[k] = 0;
    }
    return false;
}

static void remove_folder(const char *dir)
{
    DIR *d = opendir(dir);
    char path[4200];
    for (struct dirent *e; d && (e = readdir(d));) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        remove(path);
    }
    if (d) closedir(d);
    rmdir(dir);
}

/* A short run of the candidate in a scratch folder; its result.json. */
static clmc_status check_run(const char *base, const overrides *candidate, const char *device,
                             const clmc_launch_options *launch, cJSON **result)
{
    *result = NULL;
    char dir[] = "/tmp/clmc-tune-XXXXXX", out[64], thermalization[64], sweeps[64];
    if (!mkdtemp(dir)) return clmc_fail(CLMC_ERR_OTHER, "cannot create a scratch folder for the check run");
    overrides o = *candidate;
    for (size_t i = 0; i < o.n; i++) o.list[i] = o.text[i];
    snprintf(out, sizeof out, "output.dir=\"%s\"", dir);
    snprintf(thermalization, sizeof thermalization, "run.thermalization=%d", CHECK_THERMALIZATION);
    snprintf(sweeps, sizeof sweeps, "run.sweeps=%d", CHECK_SWEEPS);
    const char *extra[] = {out, thermalization, sweeps, "run.measure_every=1"};
    for (size_t i = 0; i < 4; i++) o.list[o.n++] = extra[i];
    clmc_preset *preset = NULL;
    clmc_status status = clmc_preset_parse(base, strlen(base), "tune check", o.list, o.n, &preset);
    clmc_run_options options = {.device = device, .quiet = true, .launch = *launch};
    if (status == CLMC_OK) status = clmc_run(preset, &options);
    clmc_preset_free(preset);
    char path[128];
    snprintf(path, sizeof path, "%s/result.json", dir);
    int error = 0;
    char *text = status == CLMC_OK ? clmc_read_text_file(path, 64u << 20, &error) : NULL;
    if (text) *result = cJSON_Parse(text);
    free(text);
    remove_folder(dir);
    if (status == CLMC_OK && !*result) status = clmc_fail(CLMC_ERR_OTHER, "check run wrote no readable result.json");
    return status;
}

/* Every observable with a mean identical (keeps_order), or else the energy
 * (every observable where there is none) within errors: a short run from a
 * random start gives order parameters and susceptibilities whose errors
 * mean little, while the energy relaxes fast. */
static bool observables_agree(const cJSON *reference, const cJSON *candidate, bool keeps_order, char *why, size_t n)
{
    const cJSON *item, *observables = cJSON_GetObjectItem(reference, "observables");
    bool energy_only = !keeps_order && cJSON_GetObjectItem(observables, "energy");
    cJSON_ArrayForEach(item, observables) {
        if (energy_only && strcmp(item->string, "energy") != 0) continue;
        const cJSON *mean = cJSON_GetObjectItem(item, "mean"), *error = cJSON_GetObjectItem(item, "error");
        const cJSON *other = cJSON_GetObjectItem(cJSON_GetObjectItem(candidate, "observables"), item->string);
        if (!cJSON_IsNumber(mean)) continue;
        const cJSON *other_mean = cJSON_GetObjectItem(other, "mean"), *other_error = cJSON_GetObjectItem(other, "error");
        if (!cJSON_IsNumber(other_mean)) {
            snprintf(why, n, "%s missing", item->string);
            return false;
        }
        double a = mean->valuedouble, b = other_mean->valuedouble;
        double sigma = hypot(cJSON_IsNumber(error) ? error->valuedouble : 0,
                             cJSON_IsNumber(other_error) ? other_error->valuedouble : 0);
        bool ok = keeps_order ? a == b : fabs(a - b) <= CHECK_SIGMAS * sigma + CHECK_RELATIVE * fabs(a);
        if (!ok) {
            snprintf(why, n, "%s %.8g differs from the defaults' %.8g", item->string, b, a);
            return false;
        }
    }
    const cJSON *hash = cJSON_GetObjectItem(cJSON_GetObjectItem(reference, "checks"), "configuration_fnv1a");
    const cJSON *other_hash = cJSON_GetObjectItem(cJSON_GetObjectItem(candidate, "checks"), "configuration_fnv1a");
    if (keeps_order && cJSON_IsString(hash) &&
        (!cJSON_IsString(other_hash) || strcmp(hash->valuestring, other_hash->valuestring) != 0)) {
        snprintf(why, n, "final configuration differs");
        return false;
    }
    snprintf(why, n, keeps_order ? "bit-identical" : energy_only ? "energy within errors" : "observables within errors");
    return true;
}

/* The candidate's keys whose update order differs from the defaults'. */
static bool choice_keeps_order(const search_space *space, const size_t *choice)
{
    for (size_t k = 0; k < space->n; k++)
        if (choice[k] != 0 && !space->tunables[k]->keeps_order) return false;
    return true;
}

typedef struct {
    const char *base, *device_selector;
    clmc_device_info device;
    int repetitions;
    bool quiet;
    clmc_launch_options launch; /* no tuning: the reference is the model's own defaults */
    cJSON *reference;           /* the defaults' check run */
} tune_context;

/* Times and checks one candidate; *ns = 0 if it was refused or failed. */
static void try_candidate(tune_context *c, const search_space *space, const size_t *choice, double *ns,
                          char **resolved, char *note, size_t note_size)
{
    overrides o;
    candidate_overrides(space, choice, &o);
    *ns = 0;
    *resolved = NULL;
    clmc_preset *preset = NULL;
    if (clmc_preset_parse(c->base, strlen(c->base), "tune candidate", o.list, o.n, &preset) != CLMC_OK) {
        snprintf(note, note_size, "refused: %s", clmc_error_message());
        return;
    }
    clmc_bench_entry entry;
    clmc_bench_device(preset, &c->device, c->repetitions, &c->launch, &entry);
    clmc_preset_free(preset);
    if (entry.status != CLMC_OK) {
        snprintf(note, note_size, "failed: %s", entry.reason);
        free(entry.resolved_preset);
        return;
    }
    cJSON *result = NULL;
    if (check_run(c->base, &o, c->device_selector, &c->launch, &result) != CLMC_OK) {
        snprintf(note, note_size, "check run failed: %s", clmc_error_message());
        free(entry.resolved_preset);
        return;
    }
    if (!c->reference) {
        c->reference = result;
        snprintf(note, note_size, "reference");
    } else {
        bool ok = observables_agree(c->reference, result, choice_keeps_order(space, choice), note, note_size);
        cJSON_Delete(result);
        if (!ok) {
            free(entry.resolved_preset);
            return;
        }
    }
    *ns = entry.ns_per_update;
    *resolved = entry.resolved_preset;
}

static void describe(const search_space *space, const size_t *choice, char *out, size_t n)
{
    size_t at = 0;
    out[0] = '\0';
    for (size_t k = 0; k < space->n && at < n; k++) {
        const clmc_tunable *t = space->tunables[k];
        if (choice[k] == 0) at += (size_t)snprintf(out + at, n - at, "%s%s=auto", k ? " " : "", t->path);
        else at += (size_t)snprintf(out + at, n - at, "%s%s=%lld", k ? " " : "", t->path, t->candidates[choice[k] - 1]);
    }
}

/* The stored values: every tunable key as the winner resolved it (none if
 * the winner left them all to the model, which then chooses as before). */
static clmc_status winner_values(const search_space *space, const char *resolved, clmc_tuning *t)
{
    cJSON *tree = cJSON_Parse(resolved);
    memset(t, 0, sizeof *t);
    for (size_t k = 0; tree && k < space->n; k++) {
        const char *path = space->tunables[k]->path, *dot = strchr(path, '.');
        const cJSON *section = cJSON_GetObjectItem(tree, "algorithm");
        if (!dot || strncmp(path, "algorithm.", 10) != 0) continue;
        const cJSON *value = cJSON_GetObjectItem(section, dot + 1);
        if (!cJSON_IsNumber(value) || (long long)value->valuedouble == space->tunables[k]->automatic) continue;
        snprintf(t->paths[t->n], sizeof t->paths[t->n], "%s", path);
        t->values[t->n++] = (long long)value->valuedouble;
    }
    cJSON_Delete(tree);
    return CLMC_OK;
}

static clmc_status store_winner(const clmc_preset *preset, const clmc_model_ops *ops, const tune_context *c,
                                const search_space *space, const char *resolved, double ns, clmc_tune_result *r)
{
    clmc_tuning tuning;
    CLMC_TRY(winner_values(space, resolved, &tuning));
    tuning.ns_per_update = ns;
    char *key = NULL;
    if (!clmc_tuning_file(r->file, sizeof r->file))
        return clmc_fail(CLMC_ERR_OTHER, "tune: no place for the tuning cache (set CLMC_TUNING_FILE or HOME)");
    CLMC_TRY(clmc_tuning_key(preset, ops, &c->device, &key));
    clmc_status status = clmc_tuning_store(r->file, key, &tuning);
    free(key);
    size_t at = 0;
    for (size_t i = 0; i < tuning.n; i++)
        at += (size_t)snprintf(r->values + at, sizeof r->values - at, "%s%s=%lld", i ? ";" : "", tuning.paths[i],
                               tuning.values[i]);
    return status;
}

static clmc_status search(const clmc_preset *preset, const clmc_model_ops *ops, tune_context *c,
                          const search_space *space, clmc_tune_result *r)
{
    size_t choice[MAX_TUNABLES] = {0};
    char *best_resolved = NULL, label[256], note[1200];
    double best = 0;
    if (!c->quiet) printf("%-52s %14s  %s\n", "candidate", "ns/update", "check");
    do {
        double ns;
        char *resolved;
        try_candidate(c, space, choice, &ns, &resolved, note, sizeof note);
        describe(space, choice, label, sizeof label);
        if (!c->quiet) {
            printf("%-52s %14.6f  %s\n", label, ns, note);
            fflush(stdout);
        }
        r->candidates_tried++;
        if (!c->reference) break; /* the defaults failed: nothing to compare with */
        if (ns <= 0) continue;
        r->candidates_passed++;
        if (r->default_ns_per_update == 0) r->default_ns_per_update = ns;
        if (best == 0 || ns < best) {
            best = ns;
            free(best_resolved);
            best_resolved = resolved;
        } else {
            free(resolved);
        }
    } while (next_choice(space, choice));
    clmc_status status = best_resolved ? store_winner(preset, ops, c, space, best_resolved, best, r)
                                       : clmc_fail(CLMC_ERR_OTHER, "tune: the defaults failed: %s", note);
    free(best_resolved);
    r->tuned_ns_per_update = best;
    return status;
}

clmc_status clmc_tune(const clmc_preset *preset, const clmc_tune_options *options, clmc_tune_result *result)
{
    memset(result, 0, sizeof *result);
    const clmc_model_ops *ops = clmc_model_find(clmc_preset_string(preset, "model.type"));
    search_space space = {.n = 0};
    for (const clmc_tunable *t = ops ? ops->tunables : NULL; t && t->path && space.n < MAX_TUNABLES; t++)
        space.tunables[space.n++] = t;
    if (space.n == 0)
        return clmc_fail(CLMC_ERR_INPUT, "model.type: model \"%s\" has no tunable keys",
                         clmc_preset_string(preset, "model.type"));
    tune_context c = {.device_selector = options ? options->device : NULL,
                      .repetitions = options && options->repetitions > 0 ? options->repetitions : 5,
                      .quiet = options && options->quiet,
                      .launch = {.profile = options && options->profile, .no_tuning = true}};
    CLMC_TRY(clmc_device_select(c.device_selector, &c.device));
    char *base = clmc_preset_to_json(preset);
    if (!base) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    c.base = base;
    clmc_status status = search(preset, ops, &c, &space, result);
    cJSON_Delete(c.reference);
    free(base);
    if (status == CLMC_OK && !c.quiet)
        printf("%s: defaults %.6f ns, best %.6f ns per update (%s), stored in %s\n", c.device.name,
               result->default_ns_per_update, result->tuned_ns_per_update, result->values, result->file);
    return status;
}
