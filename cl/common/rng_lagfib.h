/* Additive lagged Fibonacci generator x_n = x_{n-r} + x_{n-s} mod 2^32 (Weigel 2011,
 * eq. 6 with unity multipliers; lags from Brent's primitive trinomials), on a ring of
 * r words shared by a work-group. One body for OpenCL C and host C. */
#ifndef CLMC_RNG_LAGFIB_H
#define CLMC_RNG_LAGFIB_H

#include "common/rng_philox.h"

/* Lag pairs (r, s), r > s. The seed's 2018 review (sec. 4) names (521, 353) and
 * (1279, 861); (1279, 418) is the reciprocal trinomial of the latter (the same
 * maximal period 2^31 (2^1279 - 1), a different sequence). */
#define CLMC_LAGFIB_521_R 521u
#define CLMC_LAGFIB_521_S 353u
#define CLMC_LAGFIB_1279_R 1279u
#define CLMC_LAGFIB_1279_S 418u
#define CLMC_LAGFIB_1279_861_S 861u

/* The ring holds x_{n-r} .. x_{n-1}; `pos` indexes x_{n-r}, the oldest word, which
 * x_n replaces. k <= CLMC_LAGFIB_MAX_BATCH(r, s) consecutive numbers can be made at
 * once, item t (0 <= t < k) reading clmc_lagfib_long_index and clmc_lagfib_short_index
 * and writing the long index: no item's write is another item's read, so a barrier
 * is needed only between batches, after which pos advances by k. */
#define CLMC_LAGFIB_MAX_BATCH(r, s) ((s) < (r) - (s) ? (s) : (r) - (s))

CLMC_INLINE clmc_u32 clmc_lagfib_long_index(clmc_u32 pos, clmc_u32 t, clmc_u32 r)
{
    return (pos + t) % r;
}

CLMC_INLINE clmc_u32 clmc_lagfib_short_index(clmc_u32 pos, clmc_u32 t, clmc_u32 r, clmc_u32 s)
{
    return (pos + t + (r - s)) % r;
}

CLMC_INLINE clmc_u32 clmc_lagfib_advance(clmc_u32 pos, clmc_u32 k, clmc_u32 r)
{
    return (pos + k) % r;
}

/* Word i (0 <= i < r) of the ring of `stream`, drawn from Philox; word 0 is made odd,
 * which with additive lags gives the maximal period (not all words even). pos = 0. */
CLMC_INLINE clmc_u32 clmc_lagfib_seed_word(clmc_philox_key key, clmc_u32 stream, clmc_u32 i)
{
    clmc_philox_ctr r = clmc_generator_seed4(key, stream, CLMC_GENERATOR_LAGFIB, i >> 2);
    clmc_u32 word = r.v[i & 3u];
    return i == 0u ? word | 1u : word;
}

/* One number from a ring in one work-item's hands: the function for each address
 * space (OpenCL C 1.2 has no generic one); on the host all three are the same. */
#define CLMC_LAGFIB_DEFINE_NEXT(name, space)                                          \
    CLMC_INLINE clmc_u32 name(space clmc_u32 *ring, clmc_u32 r, clmc_u32 s, clmc_u32 *pos) \
    {                                                                                 \
        clmc_u32 oldest = clmc_lagfib_long_index(*pos, 0u, r);                        \
        clmc_u32 x = ring[oldest] + ring[clmc_lagfib_short_index(*pos, 0u, r, s)];    \
        ring[oldest] = x;                                                             \
        *pos = clmc_lagfib_advance(*pos, 1u, r);                                      \
        return x;                                                                     \
    }

#ifdef __OPENCL_C_VERSION__
CLMC_LAGFIB_DEFINE_NEXT(clmc_lagfib_next, __private)
CLMC_LAGFIB_DEFINE_NEXT(clmc_lagfib_next_global, __global)
CLMC_LAGFIB_DEFINE_NEXT(clmc_lagfib_next_local, __local)
#else
CLMC_LAGFIB_DEFINE_NEXT(clmc_lagfib_next, )
CLMC_LAGFIB_DEFINE_NEXT(clmc_lagfib_next_global, )
CLMC_LAGFIB_DEFINE_NEXT(clmc_lagfib_next_local, )
#endif

#endif
