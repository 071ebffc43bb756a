/* Time series in temperature order, their CSV form and per-temperature estimates. */
#include "engine/series.h"

#include <stdlib.h>
#include <string.h>

#include "output/results.h"

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
    memset(s, 0, sizeof *s);
}

void clmc_series_note(clmc_series *s, unsigned slot, uint64_t sweep, const clmc_tempering *pt)
{
    s->sweeps[s->n_rows + slot] = sweep;
    memcpy(s->pending_at + slot * s->n_configs, pt->config_at, s->n_configs * sizeof *pt->config_at);
}

clmc_status clmc_series_collect(clmc_series *s, const clmc_model_ops *ops, void *state, unsigned pending)
{
    if (pending == 0) return CLMC_OK;
    CLMC_TRY(ops->collect(state, pending, s->batch));
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
char *clmc_series_text(const clmc_series *s, const clmc_tempering *pt, const char *const *columns)
{
    if (s->n_configs == 1 && !pt->independent)
        return clmc_series_csv(columns, s->n_columns, s->sweeps, s->rows, s->n_rows);
    size_t lead = pt->n_systems > 1 || pt->independent ? 3 : 2, width, n = s->n_rows * s->n_configs;
    if (pt->athermal) lead = 1;
    width = lead + s->n_columns;
    const char **names = malloc((width + 1) * sizeof *names);
    double *rows = malloc((n ? n : 1) * width * sizeof *rows);
    uint64_t *sweeps = malloc((n ? n : 1) * sizeof *sweeps);
    char *text = NULL;
    if (names && rows && sweeps) {
        size_t c = 0;
        if (lead != 2) names[c++] = "system";
        if (lead != 1) {
            names[c++] = "temperature";
            names[c++] = "beta";
        }
        for (size_t k = 0; k < s->n_columns; k++) names[c++] = columns[k];
        for (size_t r = 0; r < n; r++) {
            size_t config = r % s->n_configs, t = config % pt->n_temperatures;
            double *row = rows + r * width;
            if (pt->independent) *row++ = (double)(pt->first_system + config / pt->configs_per_system);
            else if (lead == 3) *row++ = (double)(config / pt->n_temperatures);
            if (lead != 1) {
                *row++ = (double)t;
                *row++ = pt->betas[t];
            }
            memcpy(row, s->rows + r * s->n_columns, s->n_columns * sizeof *row);
            sweeps[r] = s->sweeps[r / s->n_configs];
        }
        text = clmc_series_csv(names, width, sweeps, rows, n);
    }
    free(names);
    free(rows);
    free(sweeps);
    return text;
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
