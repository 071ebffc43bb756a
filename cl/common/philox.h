/* Philox4x32-10 counter-based generator (Salmon et al., SC'11); one body that
 * compiles as OpenCL C and as host C, checked against Random123's known-answer
 * vectors on both. */
#ifndef CLMC_PHILOX_H
#define CLMC_PHILOX_H

#ifdef __OPENCL_C_VERSION__
typedef uint clmc_u32;
typedef ulong clmc_u64;
#define CLMC_INLINE inline
#else
#include <stdint.h>
typedef uint32_t clmc_u32;
typedef uint64_t clmc_u64;
#define CLMC_INLINE static inline
#endif

typedef struct { clmc_u32 v[4]; } clmc_philox_ctr;
typedef struct { clmc_u32 v[2]; } clmc_philox_key;

#define CLMC_PHILOX_M0 0xD2511F53u
#define CLMC_PHILOX_M1 0xCD9E8D57u
#define CLMC_PHILOX_W0 0x9E3779B9u
#define CLMC_PHILOX_W1 0xBB67AE85u

CLMC_INLINE clmc_philox_ctr clmc_philox_round(clmc_philox_ctr c, clmc_philox_key k)
{
    /* One widening multiply gives both halves (a single instruction on GPUs). */
    clmc_u64 p0 = (clmc_u64)CLMC_PHILOX_M0 * c.v[0];
    clmc_u64 p1 = (clmc_u64)CLMC_PHILOX_M1 * c.v[2];
    clmc_philox_ctr r;
    r.v[0] = (clmc_u32)(p1 >> 32) ^ c.v[1] ^ k.v[0];
    r.v[1] = (clmc_u32)p1;
    r.v[2] = (clmc_u32)(p0 >> 32) ^ c.v[3] ^ k.v[1];
    r.v[3] = (clmc_u32)p0;
    return r;
}

/* Philox4x32 with `rounds` rounds: 10 is the engine's generator; 7 (Salmon et
 * al., SC'11, also BigCrush-clean) is offered to the RNG study (rng_philox.h).
 * Called with a constant, so the loop unrolls as a fixed-round body would. */
CLMC_INLINE clmc_philox_ctr clmc_philox4x32_rounds(clmc_philox_ctr c, clmc_philox_key k, int rounds)
{
    for (int round = 0; round < rounds; round++) {
        if (round > 0) {
            k.v[0] += CLMC_PHILOX_W0;
            k.v[1] += CLMC_PHILOX_W1;
        }
        c = clmc_philox_round(c, k);
    }
    return c;
}

CLMC_INLINE clmc_philox_ctr clmc_philox4x32_10(clmc_philox_ctr c, clmc_philox_key k)
{
    return clmc_philox4x32_rounds(c, k, 10);
}

/* The counter of the engine's stream layout: what the numbers are for. */
CLMC_INLINE clmc_philox_ctr clmc_stream_counter(clmc_u32 unit, clmc_u32 sweep, clmc_u32 hit, clmc_u32 purpose)
{
    clmc_philox_ctr c;
    c.v[0] = unit;
    c.v[1] = sweep;
    c.v[2] = hit;
    c.v[3] = purpose;
    return c;
}

/* The engine's stream layout (docs/interface.md, "Reproducibility"): the key is the
 * seed; the counter names what the numbers are for, never a thread. */
CLMC_INLINE clmc_philox_ctr clmc_random4(clmc_philox_key seed, clmc_u32 unit, clmc_u32 sweep,
                                         clmc_u32 hit, clmc_u32 purpose)
{
    return clmc_philox4x32_10(clmc_stream_counter(unit, sweep, hit, purpose), seed);
}

/* Purposes: one value per distinct use of random numbers in the engine. */
#define CLMC_PURPOSE_INIT 0u
#define CLMC_PURPOSE_METROPOLIS 1u
#define CLMC_PURPOSE_REFINE 2u
#define CLMC_PURPOSE_COUPLINGS 3u
#define CLMC_PURPOSE_EXCHANGE 4u
#define CLMC_PURPOSE_CLUSTER_BONDS 5u
#define CLMC_PURPOSE_CLUSTER_FLIP 6u
#define CLMC_PURPOSE_DISK_SHUFFLE 7u
#define CLMC_PURPOSE_DISK_MOVE 8u
#define CLMC_PURPOSE_DISK_SWEEP 9u
#define CLMC_PURPOSE_CLUSTER_SEED 10u
#define CLMC_PURPOSE_HEATBATH 11u
#define CLMC_PURPOSE_GENERATOR_SEED 12u /* seeds of the stateful generators (rng_*.h) */
#define CLMC_PURPOSE_MULTICANONICAL 13u /* walkers of multicanonical runs (config 0: updates, 1: start) */
#define CLMC_PURPOSE_RESAMPLE 14u /* population annealing copy numbers (cl/ensembles/population.cl) */

/* The counter word naming a purpose for configuration `config` of a model
 * that holds several (tempering slots, replicas); config 0 is the purpose. */
#define CLMC_STREAM(purpose, config) ((clmc_u32)(purpose) | ((clmc_u32)(config) << 8))

/* The run-wide index of a kernel's configuration 0 (ensemble.first_system,
 * docs/ensembles.md): a kernel passes first_system + config as the config
 * above, so configuration i of a run draws what a one-system run with
 * first_system = i draws.  Every drawing kernel (and the stateful generators'
 * rng_init) takes first_system as its last argument (set by
 * clmc_kernel_set_first_system), so every first_system shares one program
 * build. */

/* Chunk q (0..7) of a draw as a 16-bit uniform: one draw serves eight sites. */
CLMC_INLINE clmc_u32 clmc_chunk16(clmc_philox_ctr r, clmc_u32 q)
{
    return (r.v[q >> 1] >> ((q & 1u) * 16u)) & 0xFFFFu;
}

#endif
