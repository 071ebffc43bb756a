/* Sequential single-site Metropolis for the Ising model on the host: the RNG study's
 * "sequential update (CPU)" column (Weigel 2011, Table 1). */
#ifndef CLMC_ISING_SEQUENTIAL_H
#define CLMC_ISING_SEQUENTIAL_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdint.h>

#include "clmc/status.h"
#include "reference/host_rng.h"

typedef struct {
    int dim;               /* 2 or 3 */
    int L;
    double beta;
    uint64_t sweeps, thermalization;
    uint64_t seed;
    clmc_rng_kind rng;
    bool random_start;     /* else all spins up */
} clmc_sequential_settings;

/* Runs thermalization + sweeps sweeps in typewriter order (x fastest), one stream,
 * one number per site visit, and measures every sweep. Adds energy,
 * abs_magnetization, specific_heat, susceptibility (docs/results.md conventions,
 * jackknife errors; tau_int in bins) and measurements to `observables`. */
clmc_status clmc_ising_sequential_run(const clmc_sequential_settings *settings, cJSON *observables,
                                      double *seconds);

#endif
