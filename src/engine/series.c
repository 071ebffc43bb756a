/* Time series in temperature order, their CSV form and per-temperature estimates. */
#include "engine/series.h"

#include <stdlib.h>
#include <string.h>

#include "output/results.h"
#include "runtime/ranks.h"

clmc_status clmc_series_init(clmc_series *s, size_t measurements, const clmc_model_shape *shape,
                             size_t n_columns)
{
    memset(s, 0, sizeof *s);
    s->n_columns = n_columns;
    s->n_configs = (size_t)shape->n_systems * shape->n_temperatures;
    s->capacity = measurements;
    size_t row_values = s->n_configs * n_columns;
    s->sweeps = malloc((measurements + 1) * sizeof *s->sweeps);
    s->rows = malloc((measurements + 1) * row_values * sizeof *s->rows);
    s->pending_at = malloc((size_t)shape->measure_batch * s->n_configs * sizeof *s->pending_at);
    s->batch = malloc((size_t)shape->measure_batch * row_values * sizeof *s->batch);
    if (!s->sweeps || !s->rows || !s->pending_at || !s->batch)
        return clmc_fail(CLMC_ERR_OTHER, "out of host memory for %zu measurements", measurements);
    return CLMC_OK;
}

void clmc_series_free(clmc_series *s)
{
    free(s->sweeps);
    free(s->rows);
    free(s->pending_at);
    free(s->batch);
    free(s->share_batch);
    free(s->gathered);
    memset(s, 0, sizeof *s);
}

clmc_status clmc_series_share(clmc_series *s, unsigned first, unsigned count, unsigned measure_batch)
{
    s->share_first = first;
    s->share_count = count;
    s->share_batch = malloc(((size_t)measure_batch * count * s->n_columns + 1) * sizeof *s->share_batch);
    s->gathered = malloc(((size_t)measure_batch * s->n_configs * s->n_columns + 1) * sizeof *s->gathered);
    return s->share_batch && s->gathered ? CLMC_OK : clmc_fail(CLMC_ERR_OTHER, "out of host memory");
}

/* Every rank's slots [0, pending) of its configurations into batch
 * [slot][config][column] (collective). */
static clmc_status gather_shares(clmc_series *s, unsigned pending)
{
    const clmc_ranks_info *ranks = clmc_ranks();
    size_t *counts = malloc((size_t)ranks->size * sizeof *counts);
    if (!counts) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    unsigned configs = (unsigned)s->n_configs;
    for (int r = 0; r < ranks->size; r++)
        counts[r] = (size_t)pending * (clmc_ranks_share_start(configs, r + 1) - clmc_ranks_share_start(configs, r)) *
                    s->n_columns * sizeof *s->gathered;
    clmc_status status = clmc_ranks_allgatherv(s->share_batch, s->gathered, counts);
    /* gathered: [rank][slot][its configuration][column]. */
    const double *in = s->gathered;
    for (int r = 0; status == CLMC_OK && r < ranks->size; r++) {
        unsigned first = clmc_ranks_share_start(configs, r), count = clmc_ranks_share_start(configs, r + 1) - first;
        for (unsigned slot = 0; slot < pending; slot++, in += (size_t)count * s->n_columns)
            memcpy(s->batch + ((size_t)slot * configs + first) * s->n_columns, in,
                   (size_t)count * s->n_columns * sizeof *in);
    }
    free(counts);
    return status;
}

void clmc_series_note(clmc_series *s, unsigned slot, uint64_t sweep, const clmc_tempering *pt)
{
    s->sweeps[s->n_rows + slot] = sweep;
    memcpy(s->pending_at + slot * s->n_configs, pt->config_at, s->n_configs * sizeof *pt->config_at);
}

clmc_status clmc_series_collect(clmc_series *s, const clmc_model_ops *ops, void *state, unsigned pending)
{
    if (pending == 0) return CLMC_OK;
    CLMC_TRY(ops->collect(state, pending, s->share_count ? s->share_batch : s->batch));
    if (s->share_count) CLMC_TRY(gather_shares(s, pending));
    size_t row_values = s->n_configs * s->n_columns;
    for (unsigned slot = 0; slot < pending; slot++) {
        double *out = s->rows + (s->n_rows + slot) * row_values;
        const double *in = s->batch + slot * row_values;
        const unsigned *config_at = s->pending_at + slot * s->n_configs;
        /* config_at is [system][temperature] -> configuration, as the rows. */
        for (size_t k = 0; k < s->n_configs; k++)
            memcpy(out + k * s->n_columns, in + config_at[k] * s->n_columns, s->n_columns * sizeof *out);
    }
    s->n_rows += pending;
    return CLMC_OK;
}

/* With tempering each row gains [system,] temperature and beta columns;
 * independent systems always have all three, system being the run-wide
 * index first_system + config / configs_per_system that names the system's
 * random stream (Ising: first_system + copy T + t); those of an athermal
 * model only the system. */
static size_t lead_columns(const clmc_series *s, const clmc_tempering *pt)
{
    if (s->n_configs == 1 && !pt->independent) return 0;
    if (pt->athermal) return 1;
    return pt->n_systems > 1 || pt->independent ? 3 : 2;
}

size_t clmc_series_names(const clmc_series *s, const clmc_tempering *pt, const char *const *columns,
                         const char **names, bool *integer)
{
    size_t lead = lead_columns(s, pt), c = 0;
    if (lead == 1 || lead == 3) integer[c] = true, names[c++] = "system";
    if (lead >= 2) {
        integer[c] = true, names[c++] = "temperature";
        integer[c] = false, names[c++] = "beta";
    }
    for (size_t k = 0; k < s->n_columns; k++) integer[c] = false, names[c++] = columns[k];
    return c;
}

void clmc_series_rows(const clmc_series *s, const clmc_tempering *pt, size_t first, size_t last, double *rows,
                      uint64_t *sweeps)
{
    size_t lead = lead_columns(s, pt), width = lead + s->n_columns;
    for (size_t r = first * s->n_configs; r < last * s->n_configs; r++) {
        size_t config = r % s->n_configs, t = config % pt->n_temperatures;
        double *row = rows + (r - first * s->n_configs) * width;
        if (lead == 1 || lead == 3)
            *row++ = pt->independent ? (double)(pt->first_system + config / pt->configs_per_system)
                                     : (double)(config / pt->n_temperatures);
        if (lead >= 2) {
            *row++ = (double)t;
            *row++ = pt->betas[t];
        }
        memcpy(row, s->rows + r * s->n_columns, s->n_columns * sizeof *row);
        sweeps[r - first * s->n_configs] = s->sweeps[r / s->n_configs];
    }
}

/* The written rows of measurements [first, last) into fresh buffers. */
static bool expand(const clmc_series *s, const clmc_tempering *pt, size_t first, size_t last, double **rows,
                   uint64_t **sweeps)
{
    size_t n = (last - first) * s->n_configs, width = lead_columns(s, pt) + s->n_columns;
    *rows = malloc((n ? n : 1) * width * sizeof **rows);
    *sweeps = malloc((n ? n : 1) * sizeof **sweeps);
    if (*rows && *sweeps) clmc_series_rows(s, pt, first, last, *rows, *sweeps);
    return *rows && *sweeps;
}

char *clmc_series_text(const clmc_series *s, const clmc_tempering *pt, const char *const *columns)
{
    const char **names = malloc((s->n_columns + 3) * sizeof *names);
    bool *integer = malloc((s->n_columns + 3) * sizeof *integer);
    double *rows = NULL;
    uint64_t *sweeps = NULL;
    char *text = NULL;
    if (names && integer && expand(s, pt, 0, s->n_rows, &rows, &sweeps)) {
        size_t width = clmc_series_names(s, pt, columns, names, integer);
        text = clmc_series_csv(names, width, sweeps, rows, s->n_rows * s->n_configs);
    }
    free(names);
    free(integer);
    free(rows);
    free(sweeps);
    return text;
}

clmc_status clmc_series_create_h5(const clmc_series *s, const clmc_tempering *pt, const char *const *columns,
                                  const char *dir, clmc_h5 **h5)
{
    const char **names = malloc((s->n_columns + 3) * sizeof *names);
    bool *integer = malloc((s->n_columns + 3) * sizeof *integer);
    clmc_status status = names && integer ? CLMC_OK : clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    if (status == CLMC_OK) status = clmc_h5_create(dir, names, integer, clmc_series_names(s, pt, columns, names, integer), h5);
    free(names);
    free(integer);
    return status;
}

clmc_status clmc_series_append_h5(const clmc_series *s, const clmc_tempering *pt, clmc_h5 *h5)
{
    size_t first = (size_t)(clmc_h5_rows(h5) / (s->n_configs ? s->n_configs : 1));
    if (first >= s->n_rows) return CLMC_OK;
    double *rows;
    uint64_t *sweeps;
    clmc_status status = expand(s, pt, first, s->n_rows, &rows, &sweeps)
                             ? clmc_h5_append(h5, sweeps, rows, (s->n_rows - first) * s->n_configs)
                             : clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    free(rows);
    free(sweeps);
    return status;
}

/* Rows of temperature t (all systems), measurement-major; for independent
 * systems of one configuration each copy-major instead (each copy's time
 * series whole, one after the other), so that the estimate's bins are
 * stretches of single copies.  (Models whose systems hold several
 * configurations, EA's replicas, estimate from measurement-major rows.) */
static void gather_temperature(const clmc_series *s, const clmc_tempering *pt, unsigned t, double *out)
{
    size_t n = 0;
    bool copy_major = pt->independent && pt->configs_per_system == 1;
    for (size_t i = 0; i < s->n_rows * pt->n_systems; i++) {
        size_t m = copy_major ? i % s->n_rows : i / pt->n_systems;
        size_t system = copy_major ? i / s->n_rows : i % pt->n_systems;
        size_t k = m * s->n_configs + system * pt->n_temperatures + t;
        memcpy(out + n++ * s->n_columns, s->rows + k * s->n_columns, s->n_columns * sizeof *out);
    }
}

clmc_status clmc_series_estimate(const clmc_series *s, const clmc_tempering *pt, const clmc_model_ops *ops,
                                 void *state, cJSON *observables)
{
    size_t per_temperature = s->n_rows * pt->n_systems;
    if (pt->n_temperatures == 1 && !pt->independent) return ops->estimate(state, s->rows, per_temperature, pt->betas[0], observables);
    double *rows = malloc((per_temperature ? per_temperature : 1) * s->n_columns * sizeof *rows);
    if (!rows) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    if (pt->athermal) { /* one group: the copies' estimates in observables itself */
        gather_temperature(s, pt, 0, rows);
        clmc_status status = ops->estimate(state, rows, per_temperature, pt->betas[0], observables);
        free(rows);
        return status;
    }
    cJSON *list = cJSON_AddArrayToObject(observables, "temperatures");
    clmc_status status = CLMC_OK;
    for (unsigned t = 0; t < pt->n_temperatures && status == CLMC_OK; t++) {
        cJSON *entry = cJSON_CreateObject();
        cJSON_AddItemToArray(list, entry);
        cJSON_AddNumberToObject(entry, "beta", pt->betas[t]);
        gather_temperature(s, pt, t, rows);
        status = ops->estimate(state, rows, per_temperature, pt->betas[t], entry);
    }
    free(rows);
    clmc_tempering_report(pt, observables);
    return status;
}
