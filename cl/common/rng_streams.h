/* Stateful generators (algorithm.rng, docs/rng.md) as streams in device memory: the
 * glue between the generator headers (rng_lcg.h, rng_xorwow.h, rng_lagfib.h) and a
 * model's kernels.  Included only when the host defines one of
 *   RNG_LCG32, RNG_LCG64 (with RNG_SKIP: skip-ahead streams of one sequence per
 *   system, stepping by the host's jump map RNG_JUMP_MUL, RNG_JUMP_ADD; without it
 *   streams seeded from Philox), RNG_XORWOW: one state per stream;
 *   RNG_LAGFIB with LAGFIB_R, LAGFIB_S, LAGFIB_BATCH: one ring of LAGFIB_R words per
 *   stream, drawn in batches shared by many work-items; with RNG_LAGFIB_OWN each
 *   ring belongs to one work-item, which draws from it one number at a time (any
 *   count) at its own position: the RNG_TOTAL positions follow the rings;
 * and RNG_STREAMS (streams per configuration), RNG_CONFIGS (configurations).
 * Stream g of configuration c is global stream c * RNG_STREAMS + g.  Per-stream
 * states are stored word-major (word w of global stream i at w * RNG_TOTAL + i) so
 * that neighbouring work-items read neighbouring words; rings stream-major. */
#ifndef CLMC_RNG_STREAMS_H
#define CLMC_RNG_STREAMS_H

#include "common/rng_lagfib.h"
#include "common/rng_lcg.h"
#include "common/rng_xorwow.h"

#define RNG_TOTAL ((uint)RNG_STREAMS * RNG_CONFIGS)

/* Philox stream id of stream g of a system (run-wide index, first_system + config):
 * system i of a run seeds what a one-system run with first_system = i seeds. */
inline uint rng_seed_stream(uint system, uint g)
{
    return system * (uint)RNG_STREAMS + g;
}

#if defined(RNG_LCG32)
typedef uint rng_state;
#define RNG_WORDS 1
inline uint rng_next(rng_state *s)
{
#ifdef RNG_SKIP
    *s = RNG_JUMP_MUL * *s + RNG_JUMP_ADD;
#else
    *s = clmc_lcg32_step(*s);
#endif
    return *s;
}
inline rng_state rng_seed(clmc_philox_key key, uint system, uint g)
{
#ifdef RNG_SKIP
    return clmc_lcg32_skip(clmc_lcg32_random_seed(key, system), g); /* x_g of the system's sequence */
#else
    return clmc_lcg32_random_seed(key, rng_seed_stream(system, g));
#endif
}
inline rng_state rng_load(__global const uint *states, uint i)
{
    return states[i];
}
inline void rng_store(__global uint *states, uint i, rng_state s)
{
    states[i] = s;
}
#elif defined(RNG_LCG64)
typedef ulong rng_state;
#define RNG_WORDS 2
inline uint rng_next(rng_state *s)
{
#ifdef RNG_SKIP
    *s = RNG_JUMP_MUL * *s + RNG_JUMP_ADD;
#else
    *s = clmc_lcg64_step(*s);
#endif
    return clmc_lcg64_word(*s);
}
inline rng_state rng_seed(clmc_philox_key key, uint system, uint g)
{
#ifdef RNG_SKIP
    return clmc_lcg64_skip(clmc_lcg64_random_seed(key, system), g);
#else
    return clmc_lcg64_random_seed(key, rng_seed_stream(system, g));
#endif
}
inline rng_state rng_load(__global const uint *states, uint i)
{
    return (ulong)states[i] | ((ulong)states[RNG_TOTAL + i] << 32);
}
inline void rng_store(__global uint *states, uint i, rng_state s)
{
    states[i] = (uint)s;
    states[RNG_TOTAL + i] = (uint)(s >> 32);
}
#elif defined(RNG_XORWOW)
typedef clmc_xorwow_state rng_state;
#define RNG_WORDS 6
inline uint rng_next(rng_state *s)
{
    return clmc_xorwow_next(s);
}
inline rng_state rng_seed(clmc_philox_key key, uint system, uint g)
{
    return clmc_xorwow_seed(key, rng_seed_stream(system, g));
}
inline rng_state rng_load(__global const uint *states, uint i)
{
    rng_state s;
    for (uint w = 0; w < 5; w++) s.v[w] = states[w * RNG_TOTAL + i];
    s.d = states[5 * RNG_TOTAL + i];
    return s;
}
inline void rng_store(__global uint *states, uint i, rng_state s)
{
    for (uint w = 0; w < 5; w++) states[w * RNG_TOTAL + i] = s.v[w];
    states[5 * RNG_TOTAL + i] = s.d;
}
#endif

#if defined(RNG_LAGFIB) && defined(RNG_LAGFIB_OWN)
/* A ring in one work-item's hands: rng_load/rng_next/rng_store as for the other
 * stateful generators, the ring staying in global memory (x[n] replaces x[n-r]),
 * only the position travelling in private memory. */
typedef struct {
    __global uint *ring;
    uint pos;
} rng_state;
#define RNG_POSITIONS ((size_t)RNG_TOTAL * LAGFIB_R)
inline uint rng_next(rng_state *s)
{
    return clmc_lagfib_next_global(s->ring, LAGFIB_R, LAGFIB_S, &s->pos);
}
inline rng_state rng_load(__global uint *states, uint i)
{
    rng_state s = {states + (size_t)i * LAGFIB_R, states[RNG_POSITIONS + i]};
    return s;
}
inline void rng_store(__global uint *states, uint i, rng_state s)
{
    states[RNG_POSITIONS + i] = s.pos;
}
#endif

#ifdef RNG_LAGFIB
/* Number t (< LAGFIB_BATCH) of the batch that starts at ring position pos; the
 * items of one batch touch disjoint words (rng_lagfib.h), so a batch needs no
 * barrier inside, only between batches. */
#define RNG_LAGFIB_DEFINE_DRAW(name, space)                                          \
    inline uint name(space uint *ring, uint pos, uint t)                             \
    {                                                                                \
        uint oldest = clmc_lagfib_long_index(pos, t, LAGFIB_R);                      \
        uint x = ring[oldest] + ring[clmc_lagfib_short_index(pos, t, LAGFIB_R, LAGFIB_S)]; \
        ring[oldest] = x;                                                            \
        return x;                                                                    \
    }
RNG_LAGFIB_DEFINE_DRAW(rng_lagfib_draw_global, __global)
RNG_LAGFIB_DEFINE_DRAW(rng_lagfib_draw_local, __local)

/* Unit `index` of configuration `config` draws its next word in launch number
 * `launch` of a kernel in which every unit draws exactly once: a unit is a
 * stream, or for lagged Fibonacci number index % LAGFIB_BATCH of the batch of
 * ring index / LAGFIB_BATCH, the ring at position launch * LAGFIB_BATCH (mod r). */
inline uint rng_draw_unit(__global uint *states, uint config, uint index, ulong launch)
{
    uint pos = (uint)((launch * LAGFIB_BATCH) % LAGFIB_R);
    __global uint *ring = states + (size_t)(config * RNG_STREAMS + index / LAGFIB_BATCH) * LAGFIB_R;
    return rng_lagfib_draw_global(ring, pos, index % LAGFIB_BATCH);
}

/* Ring word i of stream g of configuration config, global size (RNG_STREAMS * LAGFIB_R, configs). */
__kernel void rng_init(__global uint *states, uint seed_lo, uint seed_hi, uint first_system)
{
    uint index = get_global_id(0), config = get_global_id(1);
    if (index >= (uint)RNG_STREAMS * LAGFIB_R) return;
    clmc_philox_key key = {{seed_lo, seed_hi}};
    uint g = index / LAGFIB_R, i = index % LAGFIB_R;
    states[(size_t)config * RNG_STREAMS * LAGFIB_R + index] =
        clmc_lagfib_seed_word(key, rng_seed_stream(first_system + config, g), i);
#ifdef RNG_LAGFIB_OWN
    if (i == 0) states[RNG_POSITIONS + config * RNG_STREAMS + g] = 0; /* x_{n-r} at word 0 */
#endif
}
#else
inline uint rng_draw_unit(__global uint *states, uint config, uint index, ulong launch)
{
    (void)launch;
    uint i = config * RNG_STREAMS + index;
    rng_state s = rng_load(states, i);
    uint word = rng_next(&s);
    rng_store(states, i, s);
    return word;
}

/* The state of stream g of configuration config, global size (RNG_STREAMS, configs). */
__kernel void rng_init(__global uint *states, uint seed_lo, uint seed_hi, uint first_system)
{
    uint g = get_global_id(0), config = get_global_id(1);
    if (g >= RNG_STREAMS) return;
    clmc_philox_key key = {{seed_lo, seed_hi}};
    rng_store(states, config * RNG_STREAMS + g, rng_seed(key, first_system + config, g));
}
#endif

#endif
