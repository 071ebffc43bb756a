/* Preset API and schema: validates JSON run descriptions into a resolved tree (docs/interface.md). */
#include "clmc/preset.h"

#include <ctype.h>
#include <math.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "preset/preset_internal.h"
#include "preset/preset_schema.h"

#define PATH_CAPACITY 256
#define MAX_SECTION_KEYS 64
#define MAX_HINT_DISTANCE 2
#define MAX_HINT_LENGTH 63
#define FIELD_END {NULL, 0, 0, 0, false, NULL, NULL, NULL}
#define MAX_CHECKPOINT_COUNT 1e12

struct clmc_preset {
    cJSON *root;             /* resolved tree, keys in schema order */
    char *name, *output_dir; /* the typed settings' strings */
    clmc_run_settings run;   /* read from the tree once it is resolved */
    clmc_output_settings output;
    clmc_systems_settings systems;
};

/* ---- Schema of the sections every model shares ------------------------- */

static const clmc_field root_fields[] = {
    /* No default_json: the default depends on the file name (fill_default_name). */
    {"name", CLMC_FIELD_STRING, 0, 0, false, NULL, NULL, "run name; default: file name without .json"},
    FIELD_END,
};

static const clmc_field single_beta_fields[] = {
    {"beta", CLMC_FIELD_NUMBER, 0, 1000, true, NULL, NULL, "inverse temperature"},
    FIELD_END,
};

static const char *const ensemble_types[] = {"parallel_tempering", "independent", "multicanonical", "wang_landau",
                                             "population_annealing", NULL};
static const char *const exchange_paths[] = {"auto", "general", "host", NULL};

static const clmc_field tempering_fields[] = {
    {"type", CLMC_FIELD_STRING, 0, 0, false, ensemble_types, NULL, "ensemble form"},
    {"betas", CLMC_FIELD_NUMBER_LIST, 0, 1000, true, NULL, NULL,
     "inverse temperatures of the replicas, strictly increasing"},
    {"exchange_every", CLMC_FIELD_INT, 1, 1e9, false, NULL, "10", "sweeps between exchange attempts"},
    {"exchanges", CLMC_FIELD_STRING, 0, 0, false, exchange_paths, "\"auto\"",
     "where exchanges run: auto (the model's own device kernel where it has one, else the general device "
     "kernel, else the host), general (the general device kernel), host (the host); the same results"},
    {"first_system", CLMC_FIELD_INT, 0, 16777215, false, NULL, "0",
     "index of the run's first system (disorder realization): system i draws the random numbers and exchange "
     "decisions of system first_system + i"},
    FIELD_END,
};

/* Systems run side by side without exchanges; each draws from its own stream
 * (system index from first_system on, below 2^24: CLMC_STREAM's config field). */
static const clmc_field independent_fields[] = {
    {"type", CLMC_FIELD_STRING, 0, 0, false, ensemble_types, NULL, "ensemble form"},
    {"betas", CLMC_FIELD_NUMBER_LIST, 0, 1000, true, NULL, NULL, "inverse temperatures, strictly increasing"},
    {"copies", CLMC_FIELD_INT, 1, 16777216, false, NULL, "1", "independent systems per temperature"},
    {"first_system", CLMC_FIELD_INT, 0, 16777215, false, NULL, "0",
     "index of the run's first system: system i draws the random numbers of system first_system + i"},
    FIELD_END,
};

/* Athermal models (no temperature): copies alone (prepare_ensemble refuses
 * betas). */
static const clmc_field ensemble_athermal_fields[] = {
    {"type", CLMC_FIELD_STRING, 0, 0, false, ensemble_types, NULL, "ensemble form"},
    {"copies", CLMC_FIELD_INT, 1, 16777216, false, NULL, "1", "independent systems"},
    {"first_system", CLMC_FIELD_INT, 0, 16777215, false, NULL, "0",
     "index of the run's first system: system i draws the random numbers of system first_system + i"},
    FIELD_END,
};

/* Walkers sampling the density of states (src/ensembles/multicanonical.c);
 * the betas are only where the result is reweighted to. */
static const clmc_field ensemble_multicanonical_fields[] = {
    {"type", CLMC_FIELD_STRING, 0, 0, false, ensemble_types, NULL, "ensemble form"},
    {"betas", CLMC_FIELD_NUMBER_LIST, 0, 1000, true, NULL, NULL,
     "inverse temperatures the density of states is reweighted to, strictly increasing"},
    {"walkers", CLMC_FIELD_INT, 1, 16777216, false, NULL, "64", "walkers, each a whole system, sharing the weights"},
    {"flatness", CLMC_FIELD_NUMBER, 0, 1, false, NULL, "0.5",
     "the weights are converged when an iteration's histogram has min H >= flatness * mean H over the energies "
     "visited so far; strictly between 0 and 1"},
    {"iteration_sweeps", CLMC_FIELD_INT, 1, 1e9, false, NULL, "100", "sweeps of every walker per weight iteration"},
    {"max_iterations", CLMC_FIELD_INT, 1, 1e9, false, NULL, "1000", "weight iterations before the run gives up"},
    FIELD_END,
};

/* Wang-Landau weights, then the multicanonical production (wang_landau.c). */
static const clmc_field ensemble_wang_landau_fields[] = {
    {"type", CLMC_FIELD_STRING, 0, 0, false, ensemble_types, NULL, "ensemble form"},
    {"betas", CLMC_FIELD_NUMBER_LIST, 0, 1000, true, NULL, NULL,
     "inverse temperatures the density of states is reweighted to, strictly increasing"},
    {"walkers", CLMC_FIELD_INT, 1, 16777216, false, NULL, "64", "walkers, each a whole system, sharing ln g"},
    {"flatness", CLMC_FIELD_NUMBER, 0, 1, false, NULL, "0.8",
     "ln f halves when the histogram since its last change has min H >= flatness * mean H; strictly between 0 and 1"},
    {"iteration_sweeps", CLMC_FIELD_INT, 1, 1e9, false, NULL, "1", "sweeps of every walker between updates of ln g"},
    {"final_ln_f", CLMC_FIELD_NUMBER, 1e-12, 1, false, NULL, "1e-4", "the Wang-Landau phase ends when ln f falls below"},
    {"max_iterations", CLMC_FIELD_INT, 1, 1e12, false, NULL, "10000000", "updates of ln g before the run gives up"},
    {"windows", CLMC_FIELD_INT, 1, 64, false, NULL, "1", "energy windows, each with its own ln g, joined at the end"},
    {"overlap", CLMC_FIELD_NUMBER, 0, 1, false, NULL, "0.5",
     "fraction of a window's energies shared with its neighbour; strictly between 0 and 1 with windows > 1"},
    {"walkers_per_window", CLMC_FIELD_INT, 1, 16777216, false, NULL, "16",
     "walkers of each window when windows > 1 (ensemble.walkers is then unused)"},
    {"production", CLMC_FIELD_BOOL, 0, 0, false, NULL, "true",
     "the multicanonical production with the Wang-Landau weights (false: the result is the Wang-Landau ln g, no errors)"},
    {"window_energies", CLMC_FIELD_NUMBER_LIST, -1e9, 1e9, false, NULL, "[]",
     "explicit windows instead of windows and overlap: total energies lo, hi of each window, increasing"},
    FIELD_END,
};

/* ---- ensemble.type "population_annealing" (docs/ensembles.md) ------------
 * Its key tables, the checks across its keys, the schedule, and the sweeps
 * and systems it implies, on the resolved ensemble block. */

static const char *const population_types[] = {"population_annealing", NULL};
static const char *const resampling_schemes[] = {"systematic", "multinomial", "nearest_integer", NULL};
static const char *const population_distributions[] = {"members", "runs", NULL};
static const char *const population_fusions[] = {"auto", "off", NULL};

/* The keys every schedule form shares (tools/check_docs.py reads them here). */
#define CLMC_POPULATION_ENSEMBLE_FIELDS                                                                   \
    {"type", CLMC_FIELD_STRING, 0, 0, false, population_types, NULL, "ensemble form"},                    \
    {"population", CLMC_FIELD_INT, 1, 16777216, false, NULL, NULL, "number of systems R"},                \
    {"beta_start", CLMC_FIELD_NUMBER, 0, 1000, false, NULL, "0",                                          \
     "inverse temperature of the initial population (0: infinite temperature, sampled exactly)"},         \
    {"sweeps_per_step", CLMC_FIELD_INT, 1, 1e9, false, NULL, "10", "sweeps at each temperature (theta)"}, \
    {"resampling", CLMC_FIELD_STRING, 0, 0, false, resampling_schemes, "\"systematic\"",                  \
     "copy numbers: systematic, multinomial (both keep R exactly) or nearest_integer (R fluctuates)"},    \
    {"runs", CLMC_FIELD_INT, 1, 65535, false, NULL, "1", "independent anneals, one after the other"},          \
    {"distribute", CLMC_FIELD_STRING, 0, 0, false, population_distributions, "\"members\"",                \
     "under K MPI ranks: members (the ranks share each run's population) or runs (each rank anneals "      \
     "runs / K whole runs; a fixed schedule)"},                                                         \
    {"fused_steps", CLMC_FIELD_STRING, 0, 0, false, population_fusions, "\"auto\"",                      \
     "auto: a step's measurement and resampling in three launches where they can be (one process, "       \
     "systematic resampling, a fixed schedule; the same results); off: in their separate kernels"},

/* The schedule is a list (betas) or equal steps to beta_end: one table each,
 * so a block with both keys names the one that does not belong. */
static const clmc_field ensemble_population_list_fields[] = {
    CLMC_POPULATION_ENSEMBLE_FIELDS
    {"betas", CLMC_FIELD_NUMBER_LIST, 0, 1000, true, NULL, NULL, "the schedule after beta_start, strictly increasing"},
    {"beta_end", CLMC_FIELD_NUMBER, 0, 1000, false, NULL, "0", "the last of betas (0: not checked)"},
    {NULL, 0, 0, 0, false, NULL, NULL, NULL},
};

static const clmc_field ensemble_population_steps_fields[] = {
    CLMC_POPULATION_ENSEMBLE_FIELDS
    {"steps", CLMC_FIELD_INT, 1, 4095, false, NULL, NULL, "equal steps in beta from beta_start to beta_end"},
    {"beta_end", CLMC_FIELD_NUMBER, 0, 1000, false, NULL, NULL, "the last inverse temperature"},
    {NULL, 0, 0, 0, false, NULL, NULL, NULL},
};

/* schedule "adaptive": each next beta chosen during the run so that the
 * predicted overlap of successive energy histograms is target_overlap
 * (src/ensembles/population_annealing.c); at most max_steps steps. */
static const char *const population_schedules[] = {"adaptive", NULL};
static const clmc_field ensemble_population_adaptive_fields[] = {
    CLMC_POPULATION_ENSEMBLE_FIELDS
    {"schedule", CLMC_FIELD_STRING, 0, 0, true, population_schedules, NULL,
     "adaptive: each next beta from the population's energies"},
    {"beta_end", CLMC_FIELD_NUMBER, 0, 1000, true, NULL, NULL, "the last inverse temperature"},
    {"target_overlap", CLMC_FIELD_NUMBER, 0, 1, false, NULL, "0.85",
     "predicted overlap of successive energy histograms each step aims at, strictly between 0 and 1"},
    {"max_steps", CLMC_FIELD_INT, 1, 4095, false, NULL, "1000", "the most steps the adaptive schedule may take"},
    {NULL, 0, 0, 0, false, NULL, NULL, NULL},
};

static bool population_adaptive(const cJSON *ensemble)
{
    const cJSON *schedule = cJSON_GetObjectItemCaseSensitive(ensemble, "schedule");
    return cJSON_IsString(schedule) && strcmp(schedule->valuestring, "adaptive") == 0;
}

static const clmc_field *clmc_population_fields(const void *ensemble_input)
{
    if (population_adaptive(ensemble_input)) return ensemble_population_adaptive_fields;
    return cJSON_GetObjectItemCaseSensitive(ensemble_input, "betas") ? ensemble_population_list_fields
                                                                   : ensemble_population_steps_fields;
}

static double population_number(const cJSON *ensemble, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(ensemble, key)->valuedouble;
}

static bool clmc_population_block(const cJSON *ensemble)
{
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(ensemble, "type");
    return cJSON_IsString(type) && strcmp(type->valuestring, "population_annealing") == 0;
}

/* The schedule's temperatures, beta_start first; adaptive: beta_start alone
 * (the rest comes during the run), its count max_steps + 1. */
static size_t clmc_population_schedule(const cJSON *ensemble, double *betas, size_t capacity)
{
    double start = population_number(ensemble, "beta_start");
    if (population_adaptive(ensemble)) {
        if (capacity > 0) betas[0] = start;
        return (size_t)population_number(ensemble, "max_steps") + 1;
    }
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(ensemble, "betas");
    size_t steps = list ? (size_t)cJSON_GetArraySize(list) : (size_t)population_number(ensemble, "steps");
    double end = list ? 0 : population_number(ensemble, "beta_end");
    for (size_t k = 0; k <= steps && k < capacity; k++)
        betas[k] = k == 0 ? start
                   : list ? cJSON_GetArrayItem(list, (int)k - 1)->valuedouble
                          : (k == steps ? end : start + (end - start) * (double)k / (double)steps);
    return steps + 1;
}

static unsigned clmc_population_capacity(const cJSON *ensemble)
{
    unsigned population = (unsigned)population_number(ensemble, "population");
    const cJSON *scheme = cJSON_GetObjectItemCaseSensitive(ensemble, "resampling");
    if (strcmp(scheme->valuestring, "nearest_integer") != 0) return population;
    /* The size's standard deviation is at most sqrt(R) / 2: room for 8 of them. */
    return population + 4 * (unsigned)ceil(sqrt((double)population)) + 16;
}

static uint64_t clmc_population_sweeps(const cJSON *ensemble)
{
    size_t steps = clmc_population_schedule(ensemble, NULL, 0) - 1;
    bool settle = population_number(ensemble, "beta_start") > 0;
    return (uint64_t)(steps + settle) * (uint64_t)population_number(ensemble, "sweeps_per_step") *
           (uint64_t)population_number(ensemble, "runs");
}

static clmc_status clmc_population_check(bool model_has_members, const char *model_type, const cJSON *ensemble,
                                  const clmc_run_settings *run, const char *source)
{
    (void)run; /* run.checkpoint_every: checkpoints between temperature steps */
    if (!model_has_members)
        return clmc_fail(CLMC_ERR_INPUT, "%s: ensemble.type: model \"%s\" does not support population annealing "
                         "(docs/ensembles.md lists the models that do)", source, model_type);
    const cJSON *betas = cJSON_GetObjectItemCaseSensitive(ensemble, "betas");
    double start = population_number(ensemble, "beta_start"), end_beta = population_number(ensemble, "beta_end");
    bool list = betas != NULL, end = end_beta > 0 || !list;
    if (population_adaptive(ensemble)) {
        double target = population_number(ensemble, "target_overlap");
        if (!(target > 0 && target < 1))
            return clmc_fail(CLMC_ERR_INPUT, "%s: ensemble.target_overlap: %g must lie strictly between 0 and 1",
                             source, target);
    }
    if (end && end_beta <= start)
        return clmc_fail(CLMC_ERR_INPUT, "%s: ensemble.beta_end: %g must be larger than ensemble.beta_start = %g",
                         source, end_beta, start);
    if (list) {
        int n = cJSON_GetArraySize(betas);
        if (n < 1 || n > 4095)
            return clmc_fail(CLMC_ERR_INPUT, "%s: ensemble.betas: 1 to 4095 temperatures, got %d", source, n);
        for (int i = 0; i < n; i++) {
            double previous = i ? cJSON_GetArrayItem(betas, i - 1)->valuedouble : start;
            double beta = cJSON_GetArrayItem(betas, i)->valuedouble;
            if (beta <= previous)
                return clmc_fail(CLMC_ERR_INPUT, "%s: ensemble.betas[%d]: the schedule must increase strictly from "
                                 "ensemble.beta_start = %g; %g follows %g", source, i, start, beta, previous);
        }
        double last = cJSON_GetArrayItem(betas, n - 1)->valuedouble;
        if (end && end_beta != last)
            return clmc_fail(CLMC_ERR_INPUT, "%s: ensemble.beta_end: %g differs from the last of ensemble.betas, %g",
                             source, end_beta, last);
    }
    if (clmc_population_capacity(ensemble) > (1u << 24))
        return clmc_fail(CLMC_ERR_INPUT, "%s: ensemble.population: %u systems pass the 2^24 system indices of the "
                         "random streams", source, clmc_population_capacity(ensemble));
    return CLMC_OK;
}

static const clmc_field run_fields[] = {
    {"thermalization", CLMC_FIELD_INT, 0, 1e12, false, NULL, "1000", "sweeps discarded before measuring"},
    {"sweeps", CLMC_FIELD_INT, 1, 1e12, false, NULL, "10000", "sweeps after thermalization"},
    {"measure_every", CLMC_FIELD_INT, 1, 1e9, false, NULL, "1", "sweeps between measurements"},
    {"seed", CLMC_FIELD_INT, 0, 9007199254740991.0, false, NULL, "42", "random seed (exact in a double)"},
    /* An integer given here is turned into its string by prepare_run. */
    {"checkpoint_every", CLMC_FIELD_STRING, 0, 0, false, NULL, "\"0\"",
     "sweeps (\"1000\" or 1000) or seconds (\"600s\", \"10m\", \"2h\") between checkpoints; 0: none"},
    FIELD_END,
};

static const char *const output_formats[] = {"csv", "hdf5", NULL};

static const clmc_field output_fields[] = {
    /* No default_json: "out/<name>" is filled in by prepare_output. */
    {"dir", CLMC_FIELD_STRING, 0, 0, false, NULL, NULL, "result directory; default: out/<name>"},
    {"picture", CLMC_FIELD_BOOL, 0, 0, false, NULL, "false",
     "also write configuration.pgm, the final configuration (plane z = 0 in 3D) as a grey image"},
    {"format", CLMC_FIELD_STRING, 0, 0, false, output_formats, "\"csv\"",
     "csv: series.csv and the other files; hdf5: one result.h5 (series, metadata, configuration) beside result.json"},
    FIELD_END,
};

typedef struct resolve_context {
    const char *source;             /* file name or "<string>": prefixes every message */
    const char *name;               /* resolved preset name, for derived defaults */
    const clmc_preset_model *models; /* the models model.type may name */
    size_t n_models;
    const clmc_preset_model *model; /* set once model.type is valid */
    const char **model_types;       /* their types, NULL-terminated */
    clmc_field model_type_fields[2];
} resolve_context;

/* One top-level object.  `fields` is its static table; sections whose keys
 * depend on the model or on the input pick their tables in select_tables. */
typedef struct section_schema {
    const char *name;
    bool required;
    const clmc_field *fields;
    void (*select_tables)(const resolve_context *ctx, const cJSON *input, const clmc_field *tables[2]);
    clmc_status (*prepare)(resolve_context *ctx, cJSON *input); /* optional, runs first */
} section_schema;

static void select_model_tables(const resolve_context *ctx, const cJSON *input, const clmc_field *tables[2])
{
    (void)input;
    tables[0] = ctx->model_type_fields;
    tables[1] = ctx->model->model_fields;
}

static void select_algorithm_tables(const resolve_context *ctx, const cJSON *input,
                                    const clmc_field *tables[2])
{
    (void)input;
    tables[0] = ctx->model->algorithm_fields;
}

/* Each ensemble form is one field table: a block with type "independent" is
 * independent systems, one with another type a parallel-tempering block, one
 * without a single temperature. */
static void select_ensemble_tables(const resolve_context *ctx, const cJSON *input,
                                   const clmc_field *tables[2])
{
    static const clmc_field no_fields[] = {FIELD_END};
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(input, "type");
    bool independent = cJSON_IsString(type) && strcmp(type->valuestring, "independent") == 0;
    if (ctx->model->athermal) tables[0] = independent ? ensemble_athermal_fields : no_fields;
    else if (independent) tables[0] = independent_fields;
    else if (cJSON_IsString(type) && strcmp(type->valuestring, "multicanonical") == 0) tables[0] = ensemble_multicanonical_fields;
    else if (cJSON_IsString(type) && strcmp(type->valuestring, "wang_landau") == 0) tables[0] = ensemble_wang_landau_fields;
    else if (cJSON_IsString(type) && strcmp(type->valuestring, "population_annealing") == 0)
        tables[0] = clmc_population_fields(input);
    else tables[0] = type ? tempering_fields : single_beta_fields;
}

static clmc_status prepare_model(resolve_context *ctx, cJSON *input);
static clmc_status prepare_ensemble(resolve_context *ctx, cJSON *input);
static clmc_status prepare_output(resolve_context *ctx, cJSON *input);
static clmc_status prepare_run(resolve_context *ctx, cJSON *input);

static const section_schema sections[] = {
    {"model", true, NULL, select_model_tables, prepare_model},
    {"algorithm", false, NULL, select_algorithm_tables, NULL},
    {"ensemble", true, NULL, select_ensemble_tables, prepare_ensemble},
    {"run", false, run_fields, NULL, prepare_run},
    {"output", false, output_fields, NULL, prepare_output},
};
#define N_SECTIONS (sizeof sections / sizeof sections[0])

/* ---- Messages ------------------------------------------------------------ */

static clmc_status schema_error(const resolve_context *ctx, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static clmc_status schema_error(const resolve_context *ctx, const char *path, const char *fmt, ...)
{
    char detail[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    return clmc_fail(CLMC_ERR_INPUT, "%s: %s: %s", ctx->source, path, detail);
}

static void join_path(char *buf, size_t size, const char *parent, const char *key)
{
    if (parent[0] == '\0')
        snprintf(buf, size, "%s", key);
    else
        snprintf(buf, size, "%s.%s", parent, key);
}


/* Shortest of %.15g / %.17g that reads back as the same double. */
static void format_number(double x, char *buf, size_t size)
{
    if (isinf(x)) {
        snprintf(buf, size, "%s", x < 0 ? "-inf" : "inf");
        return;
    }
    snprintf(buf, size, "%.15g", x);
    if (strtod(buf, NULL) != x) snprintf(buf, size, "%.17g", x);
}

static void describe_value(const cJSON *value, char *buf, size_t size)
{
    if (cJSON_IsString(value)) {
        char text[CLMC_PRESET_EXCERPT_BYTES + 8];
        clmc_preset_excerpt(value->valuestring, strlen(value->valuestring), false, text, sizeof text);
        snprintf(buf, size, "\"%s\"", text);
    } else if (cJSON_IsNumber(value)) {
        format_number(value->valuedouble, buf, size);
    } else {
        const char *what = cJSON_IsTrue(value)    ? "true"
                           : cJSON_IsFalse(value) ? "false"
                           : cJSON_IsNull(value)  ? "null"
                           : cJSON_IsArray(value) ? "a list"
                           : cJSON_IsObject(value) ? "an object"
                                                  : "an unknown value";
        snprintf(buf, size, "%s", what);
    }
}

static clmc_status wrong_type(const resolve_context *ctx, const char *path, const char *expected,
                              const cJSON *value)
{
    char found[64];
    describe_value(value, found, sizeof found);
    return schema_error(ctx, path, "expected %s; got %s", expected, found);
}

/* `"a", "b", "c"` from a NULL-terminated list. */
static void quoted_list(const char *const *names, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; names[i] && used < size; i++) {
        int n = snprintf(buf + used, size - used, "%s\"%s\"", i ? ", " : "", names[i]);
        if (n < 0) break;
        used += (size_t)n;
    }
}

static bool in_list(const char *const *names, const char *word)
{
    for (size_t i = 0; names[i]; i++)
        if (strcmp(names[i], word) == 0) return true;
    return false;
}

/* ---- Did-you-mean ---------------------------------------------------------- */

/* Case-insensitive Levenshtein distance; `b` is at most MAX_HINT_LENGTH long. */
static size_t edit_distance_nocase(const char *a, const char *b)
{
    size_t len_b = strlen(b), row[MAX_HINT_LENGTH + 1];
    for (size_t j = 0; j <= len_b; j++) row[j] = j;
    for (size_t i = 1; a[i - 1]; i++) {
        size_t diagonal = row[0];
        row[0] = i;
        for (size_t j = 1; j <= len_b; j++) {
            size_t above = row[j];
            bool same = tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 1]);
            size_t best = diagonal + (same ? 0 : 1);
            if (above + 1 < best) best = above + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            row[j] = best;
            diagonal = above;
        }
    }
    return row[len_b];
}

/* The known name closest to `word`, if it is a plausible typo of it: within
 * MAX_HINT_DISTANCE edits (case ignored) but not a complete rewrite. */
static const char *closest_name(const char *const *names, const char *word)
{
    const char *best = NULL;
    size_t best_distance = MAX_HINT_DISTANCE + 1, len_word = strlen(word);
    for (size_t i = 0; names[i]; i++) {
        size_t len_name = strlen(names[i]);
        size_t longer = len_name > len_word ? len_name : len_word;
        if (len_name > MAX_HINT_LENGTH || longer - (len_name + len_word - longer) > MAX_HINT_DISTANCE)
            continue;
        size_t distance = edit_distance_nocase(word, names[i]);
        if (distance < best_distance && distance < longer) {
            best = names[i];
            best_distance = distance;
        }
    }
    return best;
}

/* ---- Value checks ---------------------------------------------------------- */

static void format_range(const clmc_field *field, char *buf, size_t size)
{
    char low[40], high[40];
    format_number(field->min, low, sizeof low);
    format_number(field->max, high, sizeof high);
    snprintf(buf, size, "%c%s, %s]", field->min_open ? '(' : '[', low, high);
}

static clmc_status check_number(const resolve_context *ctx, const char *path, const clmc_field *field,
                                const cJSON *value, bool integral)
{
    const char *expected = integral ? "an integer" : "a number";
    if (!cJSON_IsNumber(value)) return wrong_type(ctx, path, expected, value);
    double x = value->valuedouble;
    if (!isfinite(x))
        return schema_error(ctx, path, "expected %s; got a number too large to represent", expected);
    if (integral && x != floor(x)) return wrong_type(ctx, path, expected, value);
    if (integral && (value->type & CLMC_JSON_NOT_INTEGER_TEXT))
        return schema_error(ctx, path, "expected an integer written in digits; got a number with a fraction or an "
                            "exponent (write %.0f)", x);
    bool below = field->min_open ? x <= field->min : x < field->min;
    if (!below && x <= field->max) return CLMC_OK;
    char range[96], found[64];
    format_range(field, range, sizeof range);
    describe_value(value, found, sizeof found);
    return schema_error(ctx, path, "expected %s in %s; got %s", expected, range, found);
}

static clmc_status check_number_list(const resolve_context *ctx, const char *path, const clmc_field *field,
                                     const cJSON *value)
{
    if (!cJSON_IsArray(value)) return wrong_type(ctx, path, "a list of numbers", value);
    /* An empty list only where it is the default (the resolved preset writes
     * it, and a checkpoint's preset is parsed again on resume). */
    bool empty_default = field->default_json && strcmp(field->default_json, "[]") == 0;
    if (!value->child && !empty_default)
        return schema_error(ctx, path, "expected a list of numbers; got an empty list");
    size_t index = 0;
    for (const cJSON *item = value->child; item; item = item->next, index++) {
        char item_path[PATH_CAPACITY + 24];
        snprintf(item_path, sizeof item_path, "%s[%zu]", path, index);
        CLMC_TRY(check_number(ctx, item_path, field, item, false));
    }
    return CLMC_OK;
}

static clmc_status check_string(const resolve_context *ctx, const char *path, const clmc_field *field,
                                const cJSON *value)
{
    if (!cJSON_IsString(value)) return wrong_type(ctx, path, "a string", value);
    if (value->valuestring[0] == '\0') return schema_error(ctx, path, "expected a non-empty string");
    if (!field->choices || in_list(field->choices, value->valuestring)) return CLMC_OK;
    char choices[1024], found[64];
    quoted_list(field->choices, choices, sizeof choices);
    describe_value(value, found, sizeof found);
    const char *hint = closest_name(field->choices, value->valuestring);
    return schema_error(ctx, path, "expected one of %s; got %s%s%s%s", choices, found,
                        hint ? "; did you mean \"" : "", hint ? hint : "", hint ? "\"?" : "");
}

static clmc_status check_value(const resolve_context *ctx, const char *path, const clmc_field *field,
                               const cJSON *value)
{
    switch (field->kind) {
    case CLMC_FIELD_INT: return check_number(ctx, path, field, value, true);
    case CLMC_FIELD_NUMBER: return check_number(ctx, path, field, value, false);
    case CLMC_FIELD_STRING: return check_string(ctx, path, field, value);
    case CLMC_FIELD_BOOL:
        return cJSON_IsBool(value) ? CLMC_OK : wrong_type(ctx, path, "true or false", value);
    case CLMC_FIELD_NUMBER_LIST: return check_number_list(ctx, path, field, value);
    }
    return schema_error(ctx, path, "field has an unknown kind %d", (int)field->kind);
}

/* ---- Keys of one object ---------------------------------------------------- */

/* Names of the fields in `tables` (and `extra`), NULL-terminated, into `names`. */
static void collect_names(const clmc_field *const tables[2], const section_schema *extra, size_t n_extra,
                          const char *names[MAX_SECTION_KEYS + 1])
{
    size_t n = 0;
    for (size_t t = 0; t < 2; t++)
        for (const clmc_field *field = tables[t]; field && field->name && n < MAX_SECTION_KEYS; field++)
            names[n++] = field->name;
    for (size_t i = 0; i < n_extra && n < MAX_SECTION_KEYS; i++) names[n++] = extra[i].name;
    names[n] = NULL;
}

static clmc_status unknown_key(const resolve_context *ctx, const char *path, const char *key,
                               const char *const *names)
{
    if (!names[0]) return schema_error(ctx, path, "unknown key; this section takes no keys for this model");
    const char *hint = closest_name(names, key);
    if (hint) return schema_error(ctx, path, "unknown key; did you mean \"%s\"?", hint);
    char allowed[1024];
    quoted_list(names, allowed, sizeof allowed);
    return schema_error(ctx, path, "unknown key; allowed keys: %s", allowed);
}

/* Every key must be known and appear once.  Earlier keys are all known and
 * distinct, so the duplicate scan stays short whatever the input. */
static clmc_status check_keys(const resolve_context *ctx, const cJSON *object, const char *path,
                              const char *const *names)
{
    for (const cJSON *item = object->child; item; item = item->next) {
        const char *key = item->string ? item->string : "";
        char item_path[PATH_CAPACITY];
        join_path(item_path, sizeof item_path, path, key);
        if (!in_list(names, key)) return unknown_key(ctx, item_path, key, names);
        for (const cJSON *earlier = object->child; earlier != item; earlier = earlier->next)
            if (strcmp(earlier->string, key) == 0) return schema_error(ctx, item_path, "duplicate key");
    }
    return CLMC_OK;
}

/* ---- Resolution: validate the input and build the tree in schema order ----- */

static clmc_status resolve_field(const resolve_context *ctx, const cJSON *input, const char *path,
                                 const clmc_field *field, cJSON *out)
{
    char field_path[PATH_CAPACITY];
    join_path(field_path, sizeof field_path, path, field->name);
    const cJSON *given = cJSON_GetObjectItemCaseSensitive(input, field->name);
    if (!given && !field->default_json) return schema_error(ctx, field_path, "required key missing");
    if (given) CLMC_TRY(check_value(ctx, field_path, field, given));
    cJSON *value = given ? cJSON_Duplicate(given, true) : cJSON_Parse(field->default_json);
    if (!value) return given ? out_of_memory() : schema_error(ctx, field_path, "invalid schema default");
    /* An empty default list stands for "not given" (a given list is never empty). */
    bool empty_default = !given && cJSON_IsArray(value) && !value->child;
    clmc_status status = given || empty_default ? CLMC_OK : check_value(ctx, field_path, field, value);
    if (status == CLMC_OK && !cJSON_AddItemToObject(out, field->name, value)) status = out_of_memory();
    if (status != CLMC_OK) cJSON_Delete(value);
    return status;
}

static clmc_status resolve_fields(const resolve_context *ctx, const cJSON *input, const char *path,
                                  const clmc_field *const tables[2], cJSON *out)
{
    for (size_t t = 0; t < 2; t++)
        for (const clmc_field *field = tables[t]; field && field->name; field++)
            CLMC_TRY(resolve_field(ctx, input, path, field, out));
    return CLMC_OK;
}

static clmc_status prepare_model(resolve_context *ctx, cJSON *input)
{
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(input, "type");
    if (!type) return schema_error(ctx, "model.type", "required key missing");
    CLMC_TRY(check_value(ctx, "model.type", &ctx->model_type_fields[0], type));
    for (size_t i = 0; i < ctx->n_models; i++)
        if (strcmp(ctx->models[i].type, type->valuestring) == 0) ctx->model = &ctx->models[i];
    return CLMC_OK;
}

static clmc_status prepare_output(resolve_context *ctx, cJSON *input)
{
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(input, "picture")) && !ctx->model->picture)
        return schema_error(ctx, "output.picture", "model \"%s\" draws no picture; remove the key (or give false)",
                            ctx->model->type);
#ifndef CLMC_HAVE_HDF5
    const cJSON *format = cJSON_GetObjectItemCaseSensitive(input, "format");
    if (cJSON_IsString(format) && strcmp(format->valuestring, "hdf5") == 0)
        return schema_error(ctx, "output.format", "this build of clmc lacks HDF5 (libhdf5 was not found when it was "
                            "configured: install libhdf5-dev and rebuild with -Dhdf5=enabled); use \"csv\"");
#endif
    if (cJSON_GetObjectItemCaseSensitive(input, "dir")) return CLMC_OK;
    size_t size = strlen(ctx->name) + sizeof "out/";
    char *dir = malloc(size);
    if (!dir) return out_of_memory();
    snprintf(dir, size, "out/%s", ctx->name);
    cJSON *added = cJSON_AddStringToObject(input, "dir", dir);
    free(dir);
    return added ? CLMC_OK : out_of_memory();
}

const char *clmc_checkpoint_every_problem(const char *text, uint64_t *sweeps, double *seconds)
{
    *sweeps = 0;
    *seconds = 0;
    char *end;
    errno = 0;
    if (text[0] < '0' || text[0] > '9') return "expected a count of sweeps (e.g. 1000) or of seconds (e.g. \"600s\", "
                                               "\"10m\", \"2h\"); 0 turns checkpoints off";
    double count = strtod(text, &end);
    if (errno || !(count <= MAX_CHECKPOINT_COUNT) || count != (double)(uint64_t)count)
        return "expected a whole number of sweeps or seconds, at most 1e12";
    double unit = 0;
    if (strcmp(end, "") == 0) {
        *sweeps = (uint64_t)count;
        return NULL;
    }
    if (strcmp(end, "s") == 0) unit = 1;
    else if (strcmp(end, "m") == 0) unit = 60;
    else if (strcmp(end, "h") == 0) unit = 3600;
    else return "unknown unit; use no unit (sweeps) or s, m, h (seconds, minutes, hours)";
    *seconds = count * unit;
    return NULL;
}

/* run.checkpoint_every: an integer (sweeps) becomes its decimal string, so
 * the resolved value always has one type; the syntax is checked here. */
static clmc_status prepare_run(resolve_context *ctx, cJSON *input)
{
    cJSON *every = cJSON_GetObjectItemCaseSensitive(input, "checkpoint_every");
    if (!every) return CLMC_OK;
    if (cJSON_IsNumber(every)) {
        /* Numbers become strings, then pass the string checks below. */
        double x = every->valuedouble;
        if (!(x >= 0 && x <= 1e12 && x == floor(x)) || (every->type & CLMC_JSON_NOT_INTEGER_TEXT))
            return schema_error(ctx, "run.checkpoint_every", "expected a whole number of sweeps in [0, 1e12], written "
                                "in digits");
        char text[32];
        snprintf(text, sizeof text, "%.0f", x);
        cJSON *replacement = cJSON_CreateString(text);
        if (!replacement) return out_of_memory();
        if (!cJSON_ReplaceItemInObjectCaseSensitive(input, "checkpoint_every", replacement)) return out_of_memory();
        every = replacement;
    }
    if (!cJSON_IsString(every)) return wrong_type(ctx, "run.checkpoint_every", "an integer or a string", every);
    uint64_t sweeps;
    double seconds;
    const char *problem = clmc_checkpoint_every_problem(every->valuestring, &sweeps, &seconds);
    if (problem) return schema_error(ctx, "run.checkpoint_every", "%s", problem);
    if ((sweeps || seconds > 0) && !ctx->model->checkpoints)
        return schema_error(ctx, "run.checkpoint_every", "model \"%s\" cannot checkpoint yet; remove the key (or "
                            "give 0)", ctx->model->type);
    return CLMC_OK;
}

/* An athermal model's ensemble block takes no temperature: a clearer
 * refusal than the unknown key. */
static clmc_status prepare_ensemble(resolve_context *ctx, cJSON *input)
{
    if (!ctx->model->athermal) return CLMC_OK;
    if (cJSON_GetObjectItemCaseSensitive(input, "betas") || cJSON_GetObjectItemCaseSensitive(input, "beta"))
        return schema_error(ctx, cJSON_GetObjectItemCaseSensitive(input, "betas") ? "ensemble.betas" : "ensemble.beta",
                            "model \"%s\" has no temperature; %s", ctx->model->type,
                            ctx->model->independent ? "its only ensemble is {\"type\": \"independent\", \"copies\": n} "
                                                      "(or none)" : "give no ensemble section");
    return CLMC_OK;
}

static clmc_status resolve_section(resolve_context *ctx, cJSON *root_in, const section_schema *section,
                                   cJSON *root_out)
{
    cJSON *input = cJSON_GetObjectItemCaseSensitive(root_in, section->name);
    bool required = section->required && !(ctx->model && ctx->model->athermal && strcmp(section->name, "ensemble") == 0);
    if (!input && required) return schema_error(ctx, section->name, "required key missing");
    if (!input && !(input = cJSON_AddObjectToObject(root_in, section->name))) return out_of_memory();
    if (!cJSON_IsObject(input)) return wrong_type(ctx, section->name, "an object", input);
    if (section->prepare) CLMC_TRY(section->prepare(ctx, input));
    const clmc_field *tables[2] = {section->fields, NULL};
    if (section->select_tables) section->select_tables(ctx, input, tables);
    const char *names[MAX_SECTION_KEYS + 1];
    collect_names(tables, NULL, 0, names);
    CLMC_TRY(check_keys(ctx, input, section->name, names));
    cJSON *out = cJSON_AddObjectToObject(root_out, section->name);
    if (!out) return out_of_memory();
    return resolve_fields(ctx, input, section->name, tables, out);
}

/* "presets/ising2d.json" -> "ising2d"; strings without a file -> "unnamed". */
static clmc_status fill_default_name(const resolve_context *ctx, cJSON *root_in)
{
    if (cJSON_GetObjectItemCaseSensitive(root_in, "name")) return CLMC_OK;
    const char *base = strrchr(ctx->source, '/');
    base = base ? base + 1 : ctx->source;
    size_t length = strlen(base);
    if (length >= 5 && strcmp(base + length - 5, ".json") == 0) length -= 5;
    if (strcmp(ctx->source, "<string>") == 0 || length == 0) {
        base = "unnamed";
        length = strlen(base);
    }
    char *name = malloc(length + 1);
    if (!name) return out_of_memory();
    memcpy(name, base, length);
    name[length] = '\0';
    cJSON *added = cJSON_AddStringToObject(root_in, "name", name);
    free(name);
    return added ? CLMC_OK : out_of_memory();
}

static bool valid_utf8(const char *text);

/* The default output.dir is out/<name>: a name must stay one directory
 * name there (docs/presets.md, "name"). */
static clmc_status check_name(const resolve_context *ctx, const char *name)
{
    if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
        return schema_error(ctx, "name", "\"%s\" is not a run name (it would leave out/)", name);
    if (!valid_utf8(name)) return schema_error(ctx, "name", "invalid UTF-8");
    for (const char *c = name; *c; c++)
        if (*c == '/' || *c == '\\' || iscntrl((unsigned char)*c))
            return schema_error(ctx, "name", "a run name must not contain '/', '\\' or control characters "
                                "(character %zu); it names the directory out/<name>", (size_t)(c - name) + 1);
    return CLMC_OK;
}

static clmc_status resolve_tree(resolve_context *ctx, cJSON *root_in, cJSON *root_out)
{
    const clmc_field *tables[2] = {root_fields, NULL};
    const char *names[MAX_SECTION_KEYS + 1];
    collect_names(tables, sections, N_SECTIONS, names);
    CLMC_TRY(check_keys(ctx, root_in, "", names));
    CLMC_TRY(fill_default_name(ctx, root_in));
    CLMC_TRY(resolve_fields(ctx, root_in, "", tables, root_out));
    ctx->name = cJSON_GetObjectItemCaseSensitive(root_out, "name")->valuestring;
    CLMC_TRY(check_name(ctx, ctx->name));
    for (size_t i = 0; i < N_SECTIONS; i++) CLMC_TRY(resolve_section(ctx, root_in, &sections[i], root_out));
    return CLMC_OK;
}

/* model.type accepts exactly the given models' types. */
static clmc_status init_model_types(resolve_context *ctx)
{
    ctx->model_types = calloc(ctx->n_models + 1, sizeof *ctx->model_types);
    if (!ctx->model_types) return out_of_memory();
    for (size_t i = 0; i < ctx->n_models; i++) ctx->model_types[i] = ctx->models[i].type;
    ctx->model_type_fields[0] = (clmc_field){"type", CLMC_FIELD_STRING, 0, 0, false, ctx->model_types, NULL,
                                             "model name (registry type)"};
    ctx->model_type_fields[1] = (clmc_field)FIELD_END;
    return CLMC_OK;
}

static const cJSON *ensemble_block(const clmc_preset *preset)
{
    return cJSON_GetObjectItemCaseSensitive(clmc_preset_tree(preset), "ensemble");
}

bool clmc_preset_is_population(const clmc_preset *preset)
{
    return clmc_population_block(ensemble_block(preset));
}

bool clmc_preset_population_runs(const clmc_preset *preset)
{
    const cJSON *block = ensemble_block(preset);
    return clmc_population_block(block) &&
           strcmp(cJSON_GetObjectItemCaseSensitive(block, "distribute")->valuestring, "runs") == 0;
}

bool clmc_preset_is_density(const clmc_preset *preset)
{
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(ensemble_block(preset), "type");
    return cJSON_IsString(type) &&
           (strcmp(type->valuestring, "multicanonical") == 0 || strcmp(type->valuestring, "wang_landau") == 0);
}

size_t clmc_preset_population_schedule(const clmc_preset *preset, double *betas, size_t capacity)
{
    return clmc_population_schedule(ensemble_block(preset), betas, capacity);
}

bool clmc_preset_population_adaptive(const clmc_preset *preset, double *beta_end, double *target_overlap)
{
    const cJSON *ensemble = ensemble_block(preset);
    if (!clmc_population_block(ensemble) || !population_adaptive(ensemble)) return false;
    *beta_end = population_number(ensemble, "beta_end");
    *target_overlap = population_number(ensemble, "target_overlap");
    return true;
}

/* The run and output sections and the name as typed settings, read once the
 * tree is resolved (again after clmc_preset_set_int changes a run key). */
static void read_run_settings(clmc_preset *preset)
{
    clmc_run_settings *run = &preset->run;
    run->thermalization = (uint64_t)clmc_preset_int(preset, "run.thermalization");
    run->sweeps = (uint64_t)clmc_preset_int(preset, "run.sweeps");
    run->measure_every = (uint64_t)clmc_preset_int(preset, "run.measure_every");
    run->seed = (uint64_t)clmc_preset_int(preset, "run.seed");
    /* prepare_run checked the syntax. */
    clmc_checkpoint_every_problem(clmc_preset_string(preset, "run.checkpoint_every"), &run->checkpoint_every_sweeps,
                                  &run->checkpoint_every_seconds);
    if (clmc_preset_is_population(preset)) { /* the schedule sets the sweeps; the ensemble measures */
        run->thermalization = 0;
        run->sweeps = run->measure_every = clmc_population_sweeps(ensemble_block(preset));
    }
}

static clmc_status read_settings(clmc_preset *preset)
{
    read_run_settings(preset);
    preset->name = strdup(clmc_preset_string(preset, "name"));
    preset->output_dir = strdup(clmc_preset_string(preset, "output.dir"));
    preset->output = (clmc_output_settings){.dir = preset->output_dir,
                                            .picture = clmc_preset_bool(preset, "output.picture"),
                                            .hdf5 = strcmp(clmc_preset_string(preset, "output.format"), "hdf5") == 0};
    bool independent = clmc_preset_has(preset, "ensemble.type") &&
                       strcmp(clmc_preset_string(preset, "ensemble.type"), "independent") == 0;
    preset->systems = (clmc_systems_settings){
        .independent = independent,
        .copies = independent ? (unsigned)clmc_preset_int(preset, "ensemble.copies") : 1,
        .first_system = clmc_preset_has(preset, "ensemble.first_system")
                            ? (unsigned)clmc_preset_int(preset, "ensemble.first_system")
                            : 0};
    if (clmc_preset_is_population(preset)) preset->systems.copies = clmc_population_capacity(ensemble_block(preset));
    return preset->name && preset->output_dir ? CLMC_OK : out_of_memory();
}

static clmc_status build_preset(const clmc_preset_model *models, size_t n_models, cJSON *root_in, const char *source,
                                clmc_preset **out, const clmc_preset_model **model)
{
    resolve_context ctx = {.source = source, .models = models, .n_models = n_models};
    clmc_preset *preset = calloc(1, sizeof *preset);
    cJSON *root = cJSON_CreateObject();
    clmc_status status = preset && root ? init_model_types(&ctx) : out_of_memory();
    if (status == CLMC_OK) status = resolve_tree(&ctx, root_in, root);
    free(ctx.model_types);
    if (status != CLMC_OK) {
        cJSON_Delete(root);
        free(preset);
        return status;
    }
    preset->root = root;
    *model = ctx.model;
    *out = preset;
    return read_settings(preset);
}

/* ---- Public API ------------------------------------------------------------ */

/* The model's cross-field checks, with their message prefixed like the schema's. */
static clmc_status validate_model(const clmc_preset_model *model, const clmc_preset *preset, const char *source)
{
    clmc_status status = model->validate(preset);
    if (status == CLMC_OK) return status;
    char message[4096];
    snprintf(message, sizeof message, "%s", clmc_error_message());
    return clmc_fail(status, "%s: %s", source, message);
}

/* Overrides and sections need an object at the top. */
static clmc_status check_top_level(const cJSON *input, const char *source)
{
    if (cJSON_IsObject(input)) return CLMC_OK;
    resolve_context ctx = {.source = source};
    return wrong_type(&ctx, "top level", "an object", input);
}

/* Length of the valid UTF-8 sequence at `s` (no overlongs, surrogates or
 * code points above U+10FFFF), 0 if invalid. */
static size_t utf8_sequence(const unsigned char *s)
{
    if (s[0] < 0x80) return 1;
    size_t n = s[0] >= 0xC2 && s[0] <= 0xDF ? 2 : s[0] >= 0xE0 && s[0] <= 0xEF ? 3 : s[0] >= 0xF0 && s[0] <= 0xF4 ? 4 : 0;
    for (size_t i = 1; i < n; i++)
        if ((s[i] & 0xC0) != 0x80) return 0;
    if ((s[0] == 0xE0 && s[1] < 0xA0) || (s[0] == 0xED && s[1] > 0x9F) || (s[0] == 0xF0 && s[1] < 0x90) ||
        (s[0] == 0xF4 && s[1] > 0x8F))
        return 0;
    return n;
}

static bool valid_utf8(const char *text)
{
    for (const unsigned char *s = (const unsigned char *)text; *s;) {
        size_t n = utf8_sequence(s);
        if (!n) return false;
        s += n;
    }
    return true;
}

/* Every key and string of the input is valid UTF-8 (result.json repeats them). */
static clmc_status check_utf8(const cJSON *node, const char *path, const char *source)
{
    for (; node; node = node->next) {
        char node_path[PATH_CAPACITY];
        if (node->string) {
            if (!valid_utf8(node->string))
                return clmc_fail(CLMC_ERR_INPUT, "%s: %s: a key with invalid UTF-8", source,
                                 path[0] ? path : "top level");
            join_path(node_path, sizeof node_path, path, node->string);
        } else {
            snprintf(node_path, sizeof node_path, "%s[]", path);
        }
        if (cJSON_IsString(node) && !valid_utf8(node->valuestring))
            return clmc_fail(CLMC_ERR_INPUT, "%s: %s: invalid UTF-8 in the string", source, node_path);
        CLMC_TRY(check_utf8(node->child, node_path, source));
    }
    return CLMC_OK;
}

/* A run measures every measure_every-th sweep after thermalization: more
 * than run.sweeps would measure nothing (docs/presets.md, "run"). */
static clmc_status check_measurements(const clmc_preset *preset, const char *source)
{
    const clmc_run_settings *run = clmc_preset_run(preset);
    if (run->measure_every <= run->sweeps) return CLMC_OK;
    return clmc_fail(CLMC_ERR_INPUT, "%s: run.measure_every: %llu is larger than run.sweeps = %llu, so the run would "
                     "measure nothing; make it at most %llu", source, (unsigned long long)run->measure_every,
                     (unsigned long long)run->sweeps, (unsigned long long)run->sweeps);
}

/* Independent systems: a model that holds several configurations, and at
 * most 2^24 system indices (the stream's config field). */
static clmc_status check_independent(const clmc_preset_model *model, const clmc_preset *preset, const char *source)
{
    if (!model->independent)
        return clmc_fail(CLMC_ERR_INPUT, "%s: ensemble.type: model \"%s\" does not support \"independent\" systems "
                         "(docs/ensembles.md lists the models that do)", source, model->type);
    unsigned long long systems = clmc_preset_betas(preset, NULL, 0) * (unsigned long long)clmc_preset_int(preset, "ensemble.copies");
    unsigned long long first = (unsigned long long)clmc_preset_int(preset, "ensemble.first_system");
    if (first + systems > (1ULL << 24))
        return clmc_fail(CLMC_ERR_INPUT, "%s: ensemble.copies: %llu systems from ensemble.first_system = %llu pass the "
                         "2^24 system indices of the random streams", source, systems, first);
    return CLMC_OK;
}

/* Tempering needs at least two strictly increasing inverse temperatures;
 * independent systems at least one (athermal models none). */
static clmc_status check_tempering(const clmc_preset_model *model, const clmc_preset *preset, const char *source)
{
    const cJSON *betas = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(clmc_preset_tree(preset), "ensemble"), "betas");
    if (clmc_preset_is_population(preset) && clmc_preset_has(preset, "model.start") &&
        strcmp(clmc_preset_string(preset, "model.start"), "random") != 0)
        return clmc_fail(CLMC_ERR_INPUT, "%s: model.start: population annealing starts from the random start (an "
                         "exact sample of beta = 0), not \"%s\"", source, clmc_preset_string(preset, "model.start"));
    if (clmc_preset_is_population(preset))
        return clmc_population_check(model->population, model->type, ensemble_block(preset), clmc_preset_run(preset),
                                     source);
    bool independent = clmc_preset_has(preset, "ensemble.type") &&
                       strcmp(clmc_preset_string(preset, "ensemble.type"), "independent") == 0;
    if (independent) CLMC_TRY(check_independent(model, preset, source)); /* athermal: without betas */
    if (!betas) return CLMC_OK;
    bool multicanonical = strcmp(clmc_preset_string(preset, "ensemble.type"), "multicanonical") == 0 ||
                          strcmp(clmc_preset_string(preset, "ensemble.type"), "wang_landau") == 0;
    if (multicanonical) {
        double flatness = clmc_preset_number(preset, "ensemble.flatness");
        if (!(flatness > 0 && flatness < 1))
            return clmc_fail(CLMC_ERR_INPUT, "%s: ensemble.flatness: must lie strictly between 0 and 1, got %g", source,
                             flatness);
    }
    if (!independent && !multicanonical && cJSON_GetArraySize(betas) < 2)
        return clmc_fail(CLMC_ERR_INPUT, "%s: ensemble.betas: parallel tempering needs at least two betas", source);
    for (int i = 1; i < cJSON_GetArraySize(betas); i++) {
        double previous = cJSON_GetArrayItem(betas, i - 1)->valuedouble, beta = cJSON_GetArrayItem(betas, i)->valuedouble;
        if (beta <= previous)
            return clmc_fail(CLMC_ERR_INPUT, "%s: ensemble.betas[%d]: betas must be strictly increasing; %g follows %g",
                             source, i, beta, previous);
    }
    return CLMC_OK;
}

size_t clmc_preset_betas(const clmc_preset *preset, double *betas, size_t capacity)
{
    const cJSON *ensemble = cJSON_GetObjectItemCaseSensitive(clmc_preset_tree(preset), "ensemble");
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(ensemble, "betas");
    if (clmc_preset_is_population(preset)) { /* the model's one temperature: the start of the anneal */
        if (capacity > 0) betas[0] = clmc_preset_number(preset, "ensemble.beta_start");
        return 1;
    }
    if (!list) {
        if (capacity > 0) betas[0] = clmc_preset_number(preset, "ensemble.beta");
        return 1;
    }
    size_t n = (size_t)cJSON_GetArraySize(list);
    for (size_t i = 0; i < n && i < capacity; i++) betas[i] = cJSON_GetArrayItem(list, (int)i)->valuedouble;
    return n;
}

clmc_status clmc_preset_parse_for(const clmc_preset_model *models, size_t n_models, const char *text, size_t length,
                                  const char *source_name, const char *const *overrides, size_t n_overrides,
                                  clmc_preset **out)
{
    if (!out) return clmc_fail(CLMC_ERR_INPUT, "clmc_preset_parse: no output pointer");
    *out = NULL;
    const char *source = source_name ? source_name : "<string>";
    cJSON *input = NULL;
    CLMC_TRY(clmc_preset_parse_json(text, length, source, &input));
    clmc_preset *preset = NULL;
    const clmc_preset_model *model = NULL;
    clmc_status status = check_top_level(input, source);
    if (status == CLMC_OK) status = clmc_preset_apply_overrides(input, overrides, n_overrides);
    if (status == CLMC_OK) status = check_utf8(input->child, "", source);
    if (status == CLMC_OK) status = build_preset(models, n_models, input, source, &preset, &model);
    cJSON_Delete(input);
    if (status == CLMC_OK) status = check_measurements(preset, source);
    if (status == CLMC_OK) status = check_tempering(model, preset, source);
    if (status == CLMC_OK && model->validate) status = validate_model(model, preset, source);
    if (status != CLMC_OK) {
        clmc_preset_free(preset);
        return status;
    }
    *out = preset;
    return CLMC_OK;
}

clmc_status clmc_preset_load_for(const clmc_preset_model *models, size_t n_models, const char *path,
                                 const char *const *overrides, size_t n_overrides, clmc_preset **out)
{
    if (!out) return clmc_fail(CLMC_ERR_INPUT, "clmc_preset_load: no output pointer");
    *out = NULL;
    if (!path) return clmc_fail(CLMC_ERR_INPUT, "cannot read preset: no path given");
    char *text = NULL;
    size_t length = 0;
    CLMC_TRY(clmc_preset_read_file(path, &text, &length));
    clmc_status status = clmc_preset_parse_for(models, n_models, text, length, path, overrides, n_overrides, out);
    free(text);
    return status;
}

void clmc_preset_free(clmc_preset *preset)
{
    if (!preset) return;
    cJSON_Delete(preset->root);
    free(preset->name);
    free(preset->output_dir);
    free(preset);
}

char *clmc_preset_to_json(const clmc_preset *preset) { return preset ? cJSON_Print(preset->root) : NULL; }

const void *clmc_preset_tree(const clmc_preset *preset) { return preset ? preset->root : NULL; }

const char *clmc_preset_name(const clmc_preset *preset) { return preset->name; }

const clmc_run_settings *clmc_preset_run(const clmc_preset *preset) { return &preset->run; }

const clmc_output_settings *clmc_preset_output(const clmc_preset *preset) { return &preset->output; }

const clmc_systems_settings *clmc_preset_systems(const clmc_preset *preset) { return &preset->systems; }

static cJSON *child_with_key(const cJSON *object, const char *key, size_t length)
{
    if (!cJSON_IsObject(object)) return NULL;
    for (cJSON *item = object->child; item; item = item->next)
        if (item->string && strncmp(item->string, key, length) == 0 && item->string[length] == '\0')
            return item;
    return NULL;
}

static cJSON *find_path(const clmc_preset *preset, const char *path)
{
    if (!preset || !path) return NULL;
    const cJSON *node = preset->root;
    for (;;) {
        size_t length = strcspn(path, ".");
        cJSON *child = child_with_key(node, path, length);
        if (!child || path[length] == '\0') return child;
        node = child;
        path += length + 1;
    }
}

long long clmc_preset_int(const clmc_preset *preset, const char *path)
{
    const cJSON *item = find_path(preset, path);
    bool representable = cJSON_IsNumber(item) && fabs(item->valuedouble) < 9.2e18;
    return representable ? (long long)item->valuedouble : 0;
}

double clmc_preset_number(const clmc_preset *preset, const char *path)
{
    const cJSON *item = find_path(preset, path);
    return cJSON_IsNumber(item) ? item->valuedouble : NAN;
}

const char *clmc_preset_string(const clmc_preset *preset, const char *path)
{
    const cJSON *item = find_path(preset, path);
    return cJSON_IsString(item) ? item->valuestring : NULL;
}

bool clmc_preset_bool(const clmc_preset *preset, const char *path)
{
    return cJSON_IsTrue(find_path(preset, path));
}

bool clmc_preset_has(const clmc_preset *preset, const char *path) { return find_path(preset, path) != NULL; }

void clmc_preset_population_share(clmc_preset *preset, unsigned copies, unsigned first_system)
{
    preset->systems.copies = copies;
    preset->systems.first_system = first_system;
}

void clmc_preset_chain_ranks(clmc_preset *preset) { preset->systems.ranks_chained = true; }

void clmc_preset_set_int(clmc_preset *preset, const char *path, long long value)
{
    cJSON *item = find_path(preset, path);
    if (cJSON_IsNumber(item)) cJSON_SetNumberHelper(item, (double)value);
    else if (preset && path) clmc_preset_set_path(preset->root, path, cJSON_CreateNumber((double)value));
    if (preset && path && strncmp(path, "run.", 4) == 0) read_run_settings(preset);
}
