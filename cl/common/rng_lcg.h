/* Linear congruential generators x' = a x + c mod 2^32 (lcg32) and mod 2^64 (lcg64)
 * with O(log n) skip-ahead, as Weigel 2011 (sec. 3.3, eqs. 3-5) uses them on GPUs:
 * streams are either disjoint pieces of one sequence (skip-ahead) or started from
 * random seeds drawn from Philox (clmc_lcg*_random_seed). One body for OpenCL C and
 * host C; lcg64 needs 64-bit integers (ulong, part of OpenCL C 1.2's full profile). */
#ifndef CLMC_RNG_LCG_H
#define CLMC_RNG_LCG_H

#include "common/rng_philox.h"

/* lcg32: Numerical Recipes' constants (Press et al., 3rd ed.), the ones the seed's
 * Ref. [11] used ("originally suggested in Ref. [34]" = Numerical Recipes). */
#define CLMC_LCG32_A 1664525u
#define CLMC_LCG32_C 1013904223u

/* lcg64: Knuth's MMIX constants unless the kernel defines others. The seed takes its
 * multiplier from L'Ecuyer's 1999 tables with an odd offset; the numbers are lost
 * from our copy of the seed text, so they are not assumed here (see cl/README.md). */
#ifndef CLMC_LCG64_A
#define CLMC_LCG64_A 6364136223846793005ul
#endif
#ifndef CLMC_LCG64_C
#define CLMC_LCG64_C 1442695040888963407ul
#endif

/* The affine map x -> mul x + add (mod 2^32 or 2^64). */
typedef struct { clmc_u32 mul, add; } clmc_lcg32_map;
typedef struct { clmc_u64 mul, add; } clmc_lcg64_map;

/* The map applied n times, by repeated squaring (seed eq. 5: a_n = a^n,
 * c_n = c (a^n - 1) / (a - 1), here without the division). */
#define CLMC_LCG_MAP_POWER(map)                                    \
    CLMC_INLINE map map##_power(map step, clmc_u64 n)              \
    {                                                              \
        map total = {1u, 0u};                                      \
        while (n > 0) {                                            \
            if (n & 1u) {                                          \
                total.mul = step.mul * total.mul;                  \
                total.add = step.mul * total.add + step.add;       \
            }                                                      \
            step.add = step.mul * step.add + step.add;             \
            step.mul = step.mul * step.mul;                        \
            n >>= 1;                                               \
        }                                                          \
        return total;                                              \
    }
CLMC_LCG_MAP_POWER(clmc_lcg32_map)
CLMC_LCG_MAP_POWER(clmc_lcg64_map)

CLMC_INLINE clmc_u32 clmc_lcg32_apply(clmc_lcg32_map m, clmc_u32 x) { return m.mul * x + m.add; }
CLMC_INLINE clmc_u64 clmc_lcg64_apply(clmc_lcg64_map m, clmc_u64 x) { return m.mul * x + m.add; }

/* One step of the generator; the new state is the output (lcg32: the whole word;
 * lcg64: its high 32 bits, clmc_lcg64_word, as the low bits have short periods). */
CLMC_INLINE clmc_u32 clmc_lcg32_step(clmc_u32 x) { return CLMC_LCG32_A * x + CLMC_LCG32_C; }
CLMC_INLINE clmc_u64 clmc_lcg64_step(clmc_u64 x) { return CLMC_LCG64_A * x + CLMC_LCG64_C; }
CLMC_INLINE clmc_u32 clmc_lcg64_word(clmc_u64 x) { return (clmc_u32)(x >> 32); }

/* The map of n steps of the generator. */
CLMC_INLINE clmc_lcg32_map clmc_lcg32_jump(clmc_u64 n)
{
    clmc_lcg32_map step = {CLMC_LCG32_A, CLMC_LCG32_C};
    return clmc_lcg32_map_power(step, n);
}

CLMC_INLINE clmc_lcg64_map clmc_lcg64_jump(clmc_u64 n)
{
    clmc_lcg64_map step = {CLMC_LCG64_A, CLMC_LCG64_C};
    return clmc_lcg64_map_power(step, n);
}

CLMC_INLINE clmc_u32 clmc_lcg32_skip(clmc_u32 x, clmc_u64 n) { return clmc_lcg32_apply(clmc_lcg32_jump(n), x); }
CLMC_INLINE clmc_u64 clmc_lcg64_skip(clmc_u64 x, clmc_u64 n) { return clmc_lcg64_apply(clmc_lcg64_jump(n), x); }

/* Streams of one shared sequence x_0 = seed, x_1, ...:
 * - blocked: stream i starts at x_{i * stride} and steps with clmc_lcg*_step, so it
 *   emits x_{i*stride+1}, x_{i*stride+2}, ... (disjoint while it uses <= stride numbers);
 * - interleaved (the seed's eq. 4 with k = number of streams): stream i starts at x_i
 *   and steps with clmc_lcg*_jump(streams), emitting x_{i+k}, x_{i+2k}, ... */
CLMC_INLINE clmc_u32 clmc_lcg32_stream_start(clmc_u32 seed, clmc_u64 stream, clmc_u64 stride)
{
    return clmc_lcg32_skip(seed, stream * stride);
}

CLMC_INLINE clmc_u64 clmc_lcg64_stream_start(clmc_u64 seed, clmc_u64 stream, clmc_u64 stride)
{
    return clmc_lcg64_skip(seed, stream * stride);
}

/* Randomly seeded streams (lcg32_random, lcg64_random): stream's start from Philox. */
CLMC_INLINE clmc_u32 clmc_lcg32_random_seed(clmc_philox_key key, clmc_u32 stream)
{
    return clmc_generator_seed4(key, stream, CLMC_GENERATOR_LCG32, 0u).v[0];
}

CLMC_INLINE clmc_u64 clmc_lcg64_random_seed(clmc_philox_key key, clmc_u32 stream)
{
    clmc_philox_ctr r = clmc_generator_seed4(key, stream, CLMC_GENERATOR_LCG64, 0u);
    return ((clmc_u64)r.v[1] << 32) | r.v[0];
}

#endif
