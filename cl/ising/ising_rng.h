/* The Metropolis draws of the Ising kernels (ising.cl, ising_msc.cl) under
 * algorithm.rng (docs/rng.md): four words per call from Philox4x32-10 (the
 * default), or Philox4x32-7 under RNG_PHILOX7; RNG_STATEFUL brings the
 * per-stream generators of common/rng_streams.h. */
#ifndef CLMC_ISING_RNG_H
#define CLMC_ISING_RNG_H

#ifdef RNG_STATEFUL
#include "common/rng_streams.h"
#endif
#ifdef RNG_PHILOX7
#include "common/rng_philox.h"
#define METROPOLIS_RANDOM4(key, unit, sweep, hit, purpose) \
    clmc_philox4x32_7(clmc_stream_counter(unit, sweep, hit, purpose), key)
#else
#define METROPOLIS_RANDOM4 clmc_random4
#endif

#endif
