/* Observables shared by ferromagnetic models, computed from the raw series. */
#ifndef CLMC_MEASURE_H
#define CLMC_MEASURE_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "clmc/stats.h"
#include "clmc/status.h"

/* rows: n_rows x n_columns; energy and magnetisation per spin in the given
 * columns.  Adds energy, abs_magnetization, specific_heat, susceptibility and
 * binder (docs/results.md conventions) to `observables`. */
void clmc_ferromagnet_observables(const double *rows, size_t n_rows, size_t n_columns,
                                  size_t energy_column, size_t magnetization_column,
                                  double beta, double n_sites, cJSON *observables);

void clmc_add_estimate(cJSON *observables, const char *name, clmc_estimate estimate);

/* Every column of rows (n_rows x n_columns) as its own mean with error,
 * under names[column] (NULL-terminated, one per column). */
clmc_status clmc_add_column_estimates(const double *rows, size_t n_rows, const char *const *names,
                                      cJSON *observables);

#endif
