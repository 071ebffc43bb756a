/* Random-site dynamics of the Ising model (algorithm.layout "random_site",
 * cl/ising/random_site.cl): the driver in ising.c keeps its spin buffer
 * (config-major bytes +-1, initialised, measured and checkpointed as for the
 * other layouts) and hands the updates to this part. */
#ifndef CLMC_MODELS_ISING_RANDOM_SITE_H
#define CLMC_MODELS_ISING_RANDOM_SITE_H

#include <stdint.h>

#include "models/model.h"

typedef struct clmc_ising_rsite clmc_ising_rsite;

/* Keys of random-site dynamics; exit 2 naming the key. */
clmc_status clmc_ising_rsite_validate(const clmc_preset *p);
bool clmc_ising_rsite_wanted(const clmc_preset *p);
/* Attempts per configuration and step (sites / algorithm.substeps). */
unsigned long long clmc_ising_rsite_attempts(const clmc_preset *p);

/* `spins`: the driver's buffer of n_configs configurations, already
 * initialised; records the double_tiling tile edge used in algorithm.tile. */
clmc_status clmc_ising_rsite_create(clmc_runtime *rt, clmc_preset *p, cl_mem spins, cl_uint n_configs,
                                    clmc_ising_rsite **out);
void clmc_ising_rsite_destroy(clmc_ising_rsite *rs);
clmc_status clmc_ising_rsite_step(clmc_ising_rsite *rs, uint64_t step);
clmc_status clmc_ising_rsite_set_betas(clmc_ising_rsite *rs, const double *betas);
/* Brings the driver's buffer up to date (before measuring or reading it). */
clmc_status clmc_ising_rsite_sync(clmc_ising_rsite *rs);
/* The driver's buffer was rewritten (checkpoint load): take it over. */
clmc_status clmc_ising_rsite_reload(clmc_ising_rsite *rs);

#endif
