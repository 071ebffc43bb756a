/* Throughput probes of every generator of algorithm.rng (benchmarks/rng_throughput.c):
 * each work-item makes `numbers` 32-bit numbers and stores their XOR so that the
 * compiler keeps every one. The stateful generators load their state from global
 * memory at the start and store it at the end, as an update kernel must once per
 * launch: with few numbers per launch that traffic, not the arithmetic, is the cost. */
#include "common/rng_lagfib.h"
#include "common/rng_lcg.h"
#include "common/rng_philox.h"
#include "common/rng_xorwow.h"

/* Counter-based: no state; four numbers per call, the counter from (item, call). */
__kernel void philox4x32_10_numbers(__global uint *sink, uint numbers, uint seed)
{
    uint i = get_global_id(0), items = get_global_size(0), acc = 0;
    clmc_philox_key key = {{seed, 0}};
    for (uint d = 0; d < numbers / 4; d++) {
        clmc_philox_ctr r = clmc_philox4x32_10(clmc_stream_counter(i + d * items, 0, 0, CLMC_PURPOSE_METROPOLIS), key);
        acc ^= r.v[0] ^ r.v[1] ^ r.v[2] ^ r.v[3];
    }
    sink[i] = acc;
}

__kernel void philox4x32_7_numbers(__global uint *sink, uint numbers, uint seed)
{
    uint i = get_global_id(0), items = get_global_size(0), acc = 0;
    clmc_philox_key key = {{seed, 0}};
    for (uint d = 0; d < numbers / 4; d++) {
        clmc_philox_ctr r = clmc_philox4x32_7(clmc_stream_counter(i + d * items, 0, 0, CLMC_PURPOSE_METROPOLIS), key);
        acc ^= r.v[0] ^ r.v[1] ^ r.v[2] ^ r.v[3];
    }
    sink[i] = acc;
}

/* One LCG per work-item (lcg32 and lcg32_random differ only in their seeds). */
__kernel void lcg32_numbers(__global uint *sink, uint numbers, __global uint *state)
{
    uint i = get_global_id(0), x = state[i], acc = 0;
    for (uint d = 0; d < numbers; d++) {
        x = clmc_lcg32_step(x);
        acc ^= x;
    }
    state[i] = x;
    sink[i] = acc;
}

__kernel void lcg64_numbers(__global uint *sink, uint numbers, __global ulong *state)
{
    uint i = get_global_id(0), acc = 0;
    ulong x = state[i];
    for (uint d = 0; d < numbers; d++) {
        x = clmc_lcg64_step(x);
        acc ^= clmc_lcg64_word(x);
    }
    state[i] = x;
    sink[i] = acc;
}

/* Six words per work-item, word k of item i at state[k * items + i] (coalesced). */
__kernel void xorwow_numbers(__global uint *sink, uint numbers, __global uint *state)
{
    uint i = get_global_id(0), items = get_global_size(0), acc = 0;
    clmc_xorwow_state s;
    for (uint k = 0; k < 5; k++) s.v[k] = state[k * items + i];
    s.d = state[5 * items + i];
    for (uint d = 0; d < numbers; d++) acc ^= clmc_xorwow_next(&s);
    for (uint k = 0; k < 5; k++) state[k * items + i] = s.v[k];
    state[5 * items + i] = s.d;
    sink[i] = acc;
}

/* One ring of LAGFIB_R words per work-group in local memory (LAGFIB_R, LAGFIB_S
 * defined by the host); the group makes get_local_size(0) numbers per batch, which
 * must not exceed CLMC_LAGFIB_MAX_BATCH(r, s). Ring g at state[g * r ..], its
 * position at positions[g]. */
#ifdef LAGFIB_R
__kernel void lagfib_numbers(__global uint *sink, uint numbers, __global uint *state, __global uint *positions)
{
    __local uint ring[LAGFIB_R];
    uint t = get_local_id(0), width = get_local_size(0), g = get_group_id(0), acc = 0;
    for (uint k = t; k < LAGFIB_R; k += width) ring[k] = state[g * LAGFIB_R + k];
    uint pos = positions[g];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint d = 0; d < numbers; d++) {
        uint slot = clmc_lagfib_long_index(pos, t, LAGFIB_R);
        uint x = ring[slot] + ring[clmc_lagfib_short_index(pos, t, LAGFIB_R, LAGFIB_S)];
        ring[slot] = x;
        acc ^= x;
        pos = clmc_lagfib_advance(pos, width, LAGFIB_R);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (uint k = t; k < LAGFIB_R; k += width) state[g * LAGFIB_R + k] = ring[k];
    if (t == 0) positions[g] = pos;
    sink[get_global_id(0)] = acc;
}
#endif
