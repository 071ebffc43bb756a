/* Philox4x32-7 beside philox.h's 10-round generator: the same round, three rounds
 * fewer (Salmon et al., SC'11: 7 rounds pass BigCrush; the seeds' Table 2 lists both). */
#ifndef CLMC_RNG_PHILOX_H
#define CLMC_RNG_PHILOX_H

#include "common/philox.h"

CLMC_INLINE clmc_philox_ctr clmc_philox4x32_7(clmc_philox_ctr c, clmc_philox_key k)
{
    return clmc_philox4x32_rounds(c, k, 7);
}

/* With clmc_stream_counter (philox.h), clmc_philox4x32_7 draws in the engine's
 * stream layout. */

/* Seeds of the stateful generators (rng_lcg.h, rng_lagfib.h, rng_xorwow.h) come from
 * the 10-round Philox under CLMC_PURPOSE_GENERATOR_SEED (philox.h); the counter's hit
 * word names the generator so that two generators seeded from one (key, stream) never
 * share words. */
#define CLMC_GENERATOR_LCG32 1u
#define CLMC_GENERATOR_LCG64 2u
#define CLMC_GENERATOR_LAGFIB 3u
#define CLMC_GENERATOR_XORWOW 4u

/* Words 4 * block .. 4 * block + 3 of generator `generator`'s seed for `stream`. */
CLMC_INLINE clmc_philox_ctr clmc_generator_seed4(clmc_philox_key key, clmc_u32 stream,
                                                 clmc_u32 generator, clmc_u32 block)
{
    return clmc_random4(key, stream, block, generator, CLMC_PURPOSE_GENERATOR_SEED);
}

#endif
