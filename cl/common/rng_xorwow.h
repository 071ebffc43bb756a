/* Marsaglia's xorwow (J. Stat. Softw. 8(14), 2003, p. 5): a five-word xorshift plus
 * the Weyl sequence d += 362437, output v + d. One body for OpenCL C and host C. */
#ifndef CLMC_RNG_XORWOW_H
#define CLMC_RNG_XORWOW_H

#include "common/rng_philox.h"

typedef struct { clmc_u32 v[5]; clmc_u32 d; } clmc_xorwow_state;

#define CLMC_XORWOW_WEYL 362437u

/* The paper's seeds: x, y, z, w, v, d. */
CLMC_INLINE clmc_xorwow_state clmc_xorwow_marsaglia(void)
{
    clmc_xorwow_state s = {{123456789u, 362436069u, 521288629u, 88675123u, 5783321u}, 6615241u};
    return s;
}

CLMC_INLINE clmc_u32 clmc_xorwow_next(clmc_xorwow_state *s)
{
    clmc_u32 t = s->v[0] ^ (s->v[0] >> 2);
    s->v[0] = s->v[1];
    s->v[1] = s->v[2];
    s->v[2] = s->v[3];
    s->v[3] = s->v[4];
    s->v[4] = (s->v[4] ^ (s->v[4] << 4)) ^ (t ^ (t << 1));
    s->d += CLMC_XORWOW_WEYL;
    return s->v[4] + s->d;
}

/* A state from six words; the xorshift part must not be all zero (its one
 * fixed point), so that case gets x = 1. */
CLMC_INLINE clmc_xorwow_state clmc_xorwow_from_words(clmc_u32 x, clmc_u32 y, clmc_u32 z,
                                                     clmc_u32 w, clmc_u32 v, clmc_u32 d)
{
    clmc_xorwow_state s = {{x, y, z, w, v}, d};
    s.v[0] |= (clmc_u32)((x | y | z | w | v) == 0u);
    return s;
}

/* The state of `stream`, drawn from Philox. */
CLMC_INLINE clmc_xorwow_state clmc_xorwow_seed(clmc_philox_key key, clmc_u32 stream)
{
    clmc_philox_ctr a = clmc_generator_seed4(key, stream, CLMC_GENERATOR_XORWOW, 0u);
    clmc_philox_ctr b = clmc_generator_seed4(key, stream, CLMC_GENERATOR_XORWOW, 1u);
    return clmc_xorwow_from_words(a.v[0], a.v[1], a.v[2], a.v[3], b.v[0], b.v[1]);
}

#endif
