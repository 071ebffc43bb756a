/* The measured time series: rows per measurement, system and temperature,
 * filled from device batches through the tempering map, and written as CSV
 * and as per-temperature estimates. */
#ifndef CLMC_SERIES_H
#define CLMC_SERIES_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "models/model.h"
#include "output/h5.h"
#include "ensembles/tempering.h"

typedef struct clmc_series {
    size_t n_columns, n_configs, capacity, n_rows; /* n_rows counts measurements */
    uint64_t *sweeps;     /* [measurement] */
    double *rows;         /* [measurement][system][temperature][column] */
    unsigned *pending_at; /* [batch slot][config]: tempering map when it was measured */
    double *batch;        /* [batch slot][config][column], as the model returns it */
    /* Parallel tempering of one system across MPI ranks (docs/mpi.md): the
     * model holds configurations [share_first, share_first + share_count)
     * of n_configs and returns theirs into share_batch; every rank gathers
     * all of them into batch, so each holds the whole series. */
    unsigned share_first, share_count;
    double *share_batch, *gathered;
} clmc_series;

clmc_status clmc_series_init(clmc_series *s, size_t measurements, const clmc_model_shape *shape,
                             size_t n_columns);
void clmc_series_free(clmc_series *s);
/* Across MPI ranks: the model holds configurations [first, first + count)
 * of the series' n_configs (one system), measured in batches of
 * measure_batch slots; clmc_series_collect then becomes collective. */
clmc_status clmc_series_share(clmc_series *s, unsigned first, unsigned count, unsigned measure_batch);
/* Notes the sweep and the current map for batch slot `slot`. */
void clmc_series_note(clmc_series *s, unsigned slot, uint64_t sweep, const clmc_tempering *pt);
/* Reads `pending` slots from the model and appends them in temperature order. */
clmc_status clmc_series_collect(clmc_series *s, const clmc_model_ops *ops, void *state, unsigned pending);
/* series.csv text (caller frees): sweep[,system],temperature,beta,columns with
 * tempering; sweep,columns without. */
char *clmc_series_text(const clmc_series *s, const clmc_tempering *pt, const char *const *columns);
/* Names of the written columns after the sweep ([system,] [temperature,
 * beta,] the model's) into names and integer (room for n_columns + 3);
 * returns their number, the width of a written row. */
size_t clmc_series_names(const clmc_series *s, const clmc_tempering *pt, const char *const *columns,
                         const char **names, bool *integer);
/* Written rows of measurements [first, last): n_configs rows each. */
void clmc_series_rows(const clmc_series *s, const clmc_tempering *pt, size_t first, size_t last, double *rows,
                      uint64_t *sweeps);
/* output.format "hdf5": creates DIR's partial result.h5 with the written
 * columns, and appends the measurements it lacks (all collected rows past
 * those already in the file). */
clmc_status clmc_series_create_h5(const clmc_series *s, const clmc_tempering *pt, const char *const *columns,
                                  const char *dir, clmc_h5 **h5);
clmc_status clmc_series_append_h5(const clmc_series *s, const clmc_tempering *pt, clmc_h5 *h5);
/* Model estimates per temperature into `observables` (flat without tempering). */
clmc_status clmc_series_estimate(const clmc_series *s, const clmc_tempering *pt, const clmc_model_ops *ops,
                                 void *state, cJSON *observables);

#endif
