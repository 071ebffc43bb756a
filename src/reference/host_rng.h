/* The generators of algorithm.rng as one stream on the host (cl/common/rng_*.h bodies),
 * for the sequential reference and the host-side tests. */
#ifndef CLMC_HOST_RNG_H
#define CLMC_HOST_RNG_H

#include <stdint.h>

#include "clmc/status.h"
#include "common/rng_lagfib.h"
#include "common/rng_lcg.h"
#include "common/rng_philox.h"
#include "common/rng_xorwow.h"
#include "models/rng_streams.h" /* clmc_rng_kind and clmc_rng_names: the generators of algorithm.rng */



typedef struct {
    clmc_rng_kind kind;
    clmc_philox_key key;
    uint64_t block;         /* Philox: counter of the next four words */
    clmc_philox_ctr words;  /* Philox: the current four words */
    unsigned used;          /* Philox: words of `words` handed out */
    uint32_t lcg32;
    uint64_t lcg64;
    uint32_t *ring, r, s, pos;  /* lagged Fibonacci */
    clmc_xorwow_state xorwow;
} clmc_host_rng;

/* The kind named `name`; CLMC_ERR_INPUT naming `what` (the flag or key) and listing
 * the accepted names otherwise. */
clmc_status clmc_rng_kind_from_name(const char *name, const char *what, clmc_rng_kind *kind);

/* Stream 0 of generator `kind` for run seed `seed` (the key {low, high word}):
 * Philox counts blocks of four words under CLMC_PURPOSE_METROPOLIS; lcg32 / lcg64
 * start their shared sequence at the seed's low word / the whole seed (stream 0 of
 * the skip-ahead layout); lcg*_random, lagged Fibonacci and xorwow are seeded from
 * Philox as on the device (rng_lcg.h, rng_lagfib.h, rng_xorwow.h). */
clmc_status clmc_host_rng_init(clmc_host_rng *rng, clmc_rng_kind kind, uint64_t seed);
void clmc_host_rng_free(clmc_host_rng *rng);

static inline uint32_t clmc_host_rng_next(clmc_host_rng *rng)
{
    switch (rng->kind) {
    case CLMC_RNG_PHILOX4X32_10:
    case CLMC_RNG_PHILOX4X32_7:
        if (rng->used == 4) {
            clmc_philox_ctr c = clmc_stream_counter((uint32_t)rng->block, (uint32_t)(rng->block >> 32), 0u,
                                                    CLMC_PURPOSE_METROPOLIS);
            rng->words = rng->kind == CLMC_RNG_PHILOX4X32_10 ? clmc_philox4x32_10(c, rng->key)
                                                             : clmc_philox4x32_7(c, rng->key);
            rng->block++;
            rng->used = 0;
        }
        return rng->words.v[rng->used++];
    case CLMC_RNG_LCG32:
    case CLMC_RNG_LCG32_RANDOM:
        return rng->lcg32 = clmc_lcg32_step(rng->lcg32);
    case CLMC_RNG_LCG64:
    case CLMC_RNG_LCG64_RANDOM:
    case CLMC_RNG_LCG64_RESEEDED:
        rng->lcg64 = clmc_lcg64_step(rng->lcg64);
        return clmc_lcg64_word(rng->lcg64);
    case CLMC_RNG_LAGFIB_521:
    case CLMC_RNG_LAGFIB_1279:
    case CLMC_RNG_LAGFIB_1279_418:
        return clmc_lagfib_next(rng->ring, rng->r, rng->s, &rng->pos);
    case CLMC_RNG_XORWOW:
    default:
        return clmc_xorwow_next(&rng->xorwow);
    }
}

#endif
