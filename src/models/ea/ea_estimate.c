/* Disorder averages of the Edwards-Anderson model with errors over
 * realizations (or from the time series for a single realization). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clmc/stats.h"
#include "measure/measure.h"
#include "models/ea/ea_internal.h"

/* ---- Disorder averages ------------------------------------------------------- */

/* Binder parameter of the overlap, (3 - <q^4>/<q^2>^2) / 2, from means {q2, q4}. */
static double binder_q(const double *means, void *context)
{
    (void)context;
    return means[0] > 0 ? 0.5 * (3.0 - means[1] / (means[0] * means[0])) : 0.0;
}

static clmc_estimate scaled(clmc_estimate e, double factor)
{
    e.mean *= factor;
    e.error *= factor;
    return e;
}

static clmc_estimate with_tau(clmc_estimate e, double tau_int)
{
    e.tau_int = tau_int;
    return e;
}

static double first_mean(const double *means, void *context)
{
    (void)context;
    return means[0];
}

static double column_tau(const double *rows, size_t n_rows, size_t column, double *scratch)
{
    for (size_t i = 0; i < n_rows; i++) scratch[i] = rows[3 * i + column];
    return clmc_tau_int(scratch, n_rows);
}

/* Several realizations (n): errors over realizations from their time averages
 * (averages: energy, q2, q4 of each realization, column-major); tau_int of
 * the disorder-averaged series `rows`, as an indicator of equilibration. */
static clmc_status estimate_over_realizations(const ea_state *s, size_t n, const double *averages, const double *rows,
                                              size_t n_rows, cJSON *observables)
{
    double *scratch = calloc(n_rows + 1, sizeof *scratch);
    if (!scratch) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    const double *energy[] = {averages}, *moments[] = {averages + n, averages + 2 * n};
    double tau_q2 = column_tau(rows, n_rows, 1, scratch), tau_q4 = column_tau(rows, n_rows, 2, scratch);
    clmc_estimate q2 = with_tau(clmc_estimate_over_samples(moments, 1, n, first_mean, NULL), tau_q2);
    clmc_add_estimate(observables, "energy", with_tau(clmc_estimate_over_samples(energy, 1, n, first_mean, NULL), column_tau(rows, n_rows, 0, scratch)));
    clmc_add_estimate(observables, "q2", q2);
    clmc_add_estimate(observables, "q4", with_tau(clmc_estimate_over_samples(moments + 1, 1, n, first_mean, NULL), tau_q4));
    clmc_add_estimate(observables, "binder_q", with_tau(clmc_estimate_over_samples(moments, 2, n, binder_q, NULL), fmax(tau_q2, tau_q4)));
    clmc_add_estimate(observables, "chi_sg", scaled(q2, s->n_sites));
    free(scratch);
    return CLMC_OK;
}

/* One realization: errors from the time series (binning jackknife). */
static clmc_status estimate_one_realization(const ea_state *s, const double *rows, size_t n_rows, cJSON *observables)
{
    double *columns = malloc((3 * n_rows + 1) * sizeof *columns);
    if (!columns) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    for (size_t i = 0; i < n_rows; i++)
        for (size_t c = 0; c < 3; c++) columns[c * n_rows + i] = rows[3 * i + c];
    const double *moments[] = {columns + n_rows, columns + 2 * n_rows};
    clmc_estimate q2 = clmc_estimate_mean(moments[0], n_rows);
    clmc_add_estimate(observables, "energy", clmc_estimate_mean(columns, n_rows));
    clmc_add_estimate(observables, "q2", q2);
    clmc_add_estimate(observables, "q4", clmc_estimate_mean(moments[1], n_rows));
    clmc_add_estimate(observables, "binder_q", clmc_estimate_derived(moments, 2, n_rows, binder_q, NULL));
    clmc_add_estimate(observables, "chi_sg", scaled(q2, s->n_sites));
    free(columns);
    return CLMC_OK;
}

/* Without tempering: the rows are disorder averages already and the
 * per-realization averages were summed while collecting. */
static clmc_status estimate_single_temperature(ea_state *s, const double *rows, size_t n_rows, cJSON *observables)
{
    if (s->realizations == 1) return estimate_one_realization(s, rows, n_rows, observables);
    size_t n = s->realizations;
    double *averages = malloc(3 * n * sizeof *averages);
    if (!averages) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    double count = s->measurements ? (double)s->measurements : 1.0;
    for (size_t r = 0; r < n; r++) {
        averages[r] = s->energy_sum[r] / count;
        averages[n + r] = s->q2_sum[r] / count;
        averages[2 * n + r] = s->q4_sum[r] / count;
    }
    clmc_status status = estimate_over_realizations(s, n, averages, rows, n_rows, observables);
    free(averages);
    return status;
}

/* Tempering: rows of one temperature, n_rows = measurements x chains with
 * chain = 2 realization + replica fastest.  Each measurement gives the
 * disorder-averaged row (energy of both replicas, q^2, q^4 of the pair), and
 * each realization its time averages, as without tempering.  n realizations:
 * those of the rows (under MPI ranks rank 0 is given every rank's). */
static clmc_status estimate_tempered(const ea_state *s, size_t n, const double *rows, size_t n_rows,
                                     cJSON *observables)
{
    size_t chains = 2 * n, measurements = n_rows / chains;
    double *averages = calloc(3 * n + 3 * (measurements ? measurements : 1), sizeof *averages);
    if (!averages) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    double *series = averages + 3 * n;
    for (size_t m = 0; m < measurements; m++)
        for (size_t r = 0; r < n; r++) {
            const double *row0 = rows + 3 * (m * chains + 2 * r), *row1 = row0 + 3;
            double energy = 0.5 * (row0[0] + row1[0]);
            averages[r] += energy;
            averages[n + r] += row0[1];
            averages[2 * n + r] += row0[2];
            series[3 * m] += energy / (double)n;
            series[3 * m + 1] += row0[1] / (double)n;
            series[3 * m + 2] += row0[2] / (double)n;
        }
    for (size_t k = 0; k < 3 * n; k++) averages[k] /= measurements ? (double)measurements : 1.0;
    clmc_status status = n > 1 ? estimate_over_realizations(s, n, averages, series, measurements, observables)
                               : estimate_one_realization(s, series, measurements, observables);
    free(averages);
    return status;
}

/* Realizations in the rows of one temperature with one row per
 * configuration: n_rows = measurements x 2 realizations. */
static clmc_status realizations_in_rows(const ea_state *s, size_t n_rows, size_t *n)
{
    *n = s->realizations;
    if (s->measurements_unknown || s->measurements == 0) return CLMC_OK; /* one process: its own */
    if (n_rows % (2 * s->measurements) != 0)
        return clmc_fail(CLMC_ERR_OTHER, "ea_ising: %zu rows per temperature are not 2 x %zu measurements x "
                         "realizations", n_rows, s->measurements);
    *n = n_rows / (2 * s->measurements);
    return CLMC_OK;
}

clmc_status ea_estimate(void *state, const double *rows, size_t n_rows, double beta, cJSON *observables)
{
    ea_state *s = state;
    (void)beta; /* the rows' temperature; the model knows its configurations' own */
    if (s->temperatures == 1 && !s->independent) {
        cJSON_AddNumberToObject(observables, "realizations", s->realizations);
        return estimate_single_temperature(s, rows, n_rows, observables);
    }
    size_t n;
    CLMC_TRY(realizations_in_rows(s, n_rows, &n));
    cJSON_AddNumberToObject(observables, "realizations", (double)n);
    return estimate_tempered(s, n, rows, n_rows, observables);
}
