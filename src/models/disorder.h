/* Quenched disorder shared by the spin glasses (Edwards-Anderson Ising and the
 * O(n) glass): the bond couplings, drawn on the host from Philox so that every
 * device (and the tests) get the same realizations. */
#ifndef CLMC_MODELS_DISORDER_H
#define CLMC_MODELS_DISORDER_H

#include <stdint.h>

typedef enum {
    CLMC_EA_BIMODAL,  /* J = +-1 with equal probability */
    CLMC_EA_GAUSSIAN, /* J normal with mean 0 and variance 1, stored as float */
    CLMC_EA_UNIFORM   /* J = +1: the ferromagnet, for testing */
} clmc_ea_couplings;

/* Parses model.couplings ("bimodal", "gaussian", "uniform"). */
clmc_ea_couplings clmc_ea_couplings_from_name(const char *name);

/* J of the bond between `site` and its +`direction` neighbour (direction 0 =
 * x, 1 = y, 2 = z; sites row-major, x fastest) in realization `realization`
 * of a run with seed `seed`.  Philox counter (site, realization, direction,
 * COUPLINGS): bimodal from the top bit of word 0, Gaussian by Box-Muller in
 * double from words 0 and 1, rounded to float. */
double clmc_ea_coupling(clmc_ea_couplings kind, uint64_t seed, uint32_t realization, uint32_t site,
                        unsigned direction);

#endif
