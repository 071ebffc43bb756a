/* Ferromagnet observables (energy, |m|, C, chi, Binder) with jackknife errors. */
#include "measure/measure.h"

#include <math.h>
#include <stdlib.h>

void clmc_add_estimate(cJSON *observables, const char *name, clmc_estimate estimate)
{
    cJSON *entry = cJSON_AddObjectToObject(observables, name);
    cJSON_AddNumberToObject(entry, "mean", estimate.mean);
    cJSON_AddNumberToObject(entry, "error", estimate.error);
    cJSON_AddNumberToObject(entry, "tau_int", estimate.tau_int);
}

typedef struct { double scale; } fluctuation_context;

/* scale * (<a^2> - <a>^2) with means = {<a>, <a^2>}. */
static double fluctuation(const double *means, void *context)
{
    const fluctuation_context *c = context;
    return c->scale * (means[1] - means[0] * means[0]);
}

static double binder(const double *means, void *context)
{
    (void)context;
    return means[1] > 0 ? 1.0 - means[2] / (3.0 * means[1] * means[1]) : 0.0;
}

void clmc_ferromagnet_observables(const double *rows, size_t n_rows, size_t n_columns,
                                  size_t energy_column, size_t magnetization_column,
                                  double beta, double n_sites, cJSON *observables)
{
    double *columns = malloc(5 * (n_rows ? n_rows : 1) * sizeof *columns);
    if (!columns) return;
    double *e = columns, *e2 = e + n_rows, *m = e2 + n_rows, *m2 = m + n_rows, *m4 = m2 + n_rows;
    for (size_t i = 0; i < n_rows; i++) {
        e[i] = rows[i * n_columns + energy_column];
        e2[i] = e[i] * e[i];
        m[i] = fabs(rows[i * n_columns + magnetization_column]);
        m2[i] = m[i] * m[i];
        m4[i] = m2[i] * m2[i];
    }
    clmc_add_estimate(observables, "energy", clmc_estimate_mean(e, n_rows));
    clmc_add_estimate(observables, "abs_magnetization", clmc_estimate_mean(m, n_rows));
    const double *energy_pair[] = {e, e2};
    fluctuation_context heat = {beta * beta * n_sites};
    clmc_add_estimate(observables, "specific_heat",
                      clmc_estimate_derived(energy_pair, 2, n_rows, fluctuation, &heat));
    const double *magnet_pair[] = {m, m2};
    fluctuation_context chi = {beta * n_sites};
    clmc_add_estimate(observables, "susceptibility",
                      clmc_estimate_derived(magnet_pair, 2, n_rows, fluctuation, &chi));
    const double *moments[] = {m, m2, m4};
    clmc_add_estimate(observables, "binder", clmc_estimate_derived(moments, 3, n_rows, binder, NULL));
    free(columns);
}

clmc_status clmc_add_column_estimates(const double *rows, size_t n_rows, const char *const *names,
                                      cJSON *observables)
{
    size_t n_columns = 0;
    while (names[n_columns]) n_columns++;
    double *column = malloc((n_rows ? n_rows : 1) * sizeof *column);
    if (!column) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    for (size_t k = 0; k < n_columns; k++) {
        for (size_t i = 0; i < n_rows; i++) column[i] = rows[i * n_columns + k];
        clmc_add_estimate(observables, names[k], clmc_estimate_mean(column, n_rows));
    }
    free(column);
    return CLMC_OK;
}
