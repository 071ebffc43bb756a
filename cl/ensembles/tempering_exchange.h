/* Parallel-tempering exchanges of one system on the device, shared by the
 * general kernel (cl/ensembles/tempering.cl) and models' own exchange kernels
 * (EA msc: cl/ensembles/ea_msc_exchange.cl, whose energy pass draws the
 * reaches): the decisions of the host rule (src/ensembles/tempering.c) with the
 * exact integer thresholds of src/ensembles/tempering_table.c and the same
 * Philox counters.  TEMPERATURES must be defined.
 *
 * Buffers: config_at[system][t] (the configuration at temperature t),
 * heading[config], energies[config] (integers e with energy = energy_scale e
 * plus a constant; an exchange reads them and sets them to 0, so a model may
 * accumulate the next ones with atomic adds), threshold, offset and
 * reach_scale (the table), accepted[system][pair] and trips[system]
 * (running totals), temperature_of[config] (written by the general kernel, for the model's
 * set_temperatures_device).  No two buffers overlap. */
#ifndef CLMC_TEMPERING_EXCHANGE_H
#define CLMC_TEMPERING_EXCHANGE_H

#include "common/philox.h"

/* The arguments of every exchange kernel, in this order (set by
 * src/ensembles/tempering_device.c), and the same names passed on. */
#define TEMPERING_EXCHANGE_ARGUMENTS                                                                                  \
    __global uint *restrict config_at, __global int *restrict heading, __global int *restrict energies,               \
        int energy_scale, __global const ulong *restrict threshold, __global const uint *restrict offset,             \
        __global const float *restrict reach_scale, __global ulong *restrict accepted, __global ulong *restrict trips, \
        __global uint *restrict temperature_of, uint n_systems, uint first_system, uint seed_lo, uint seed_hi,      \
        ulong exchange
#define TEMPERING_EXCHANGE_NAMES                                                                                      \
    config_at, heading, energies, energy_scale, threshold, offset, reach_scale, accepted, trips, temperature_of,    \
        n_systems, first_system, seed_lo, seed_hi, exchange

/* The uniform word for pair t of `system` at exchange `exchange`: word t % 4
 * of the draw at counter ((first_system + system) TEMPERATURES + t - t % 4,
 * exchange, EXCHANGE).  `system` counts from the process's first; the draws
 * follow the run-wide system, first_system + system (the ensemble passes
 * clmc_tempering.exchange_first), so a share of the systems run elsewhere
 * (MPI ranks) draws what the whole run would. */
inline clmc_philox_ctr exchange_draw(uint first_system, uint system, uint t, ulong exchange, clmc_philox_key key)
{
    clmc_philox_ctr c;
    c.v[0] = (first_system + system) * TEMPERATURES + t;
    c.v[1] = (uint)exchange;
    c.v[2] = (uint)(exchange >> 32);
    c.v[3] = CLMC_PURPOSE_EXCHANGE;
    return clmc_philox4x32_10(c, key);
}

/* The reach of a pair for uniform word v: the number n of its `entries`
 * thresholds that exceed v (they do not increase), so that an exchange with
 * energy change k is accepted exactly when k >= -n.  Found by binary search
 * over the table. */
inline uint reach_by_search(uint v, __global const ulong *restrict table, uint entries)
{
    uint lo = 0, hi = entries;
    while (lo < hi) {
        uint mid = lo + (hi - lo) / 2;
        if ((ulong)v < table[mid]) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

#define REACH_UNSURE 0xffffffffu /* pair_reach_guess: search instead */

/* The same reach, mostly without reading the table: threshold i exceeds v
 * exactly when the host's log u(v) < -dbeta (i + 1), i.e. when i + 1 < y =
 * -log2 u(v) scale (scale = ln 2 / dbeta), so n = min(entries, ceil(y) - 1)
 * (0 for y <= 1).  In float, y is within 2^-23 (1.5 scale + 4 y) of its exact
 * value (u rounded to float: 1.45 2^-23 in log2 u; log2 within 3 ulp; two
 * rounded products); with a margin 32 times that, ceil(y) is certain unless y
 * lies that close to an integer j, and then threshold j - 1 alone decides
 * between j - 1 and j.  That read is made whether needed or not (of threshold
 * 0 when not, the same word for all) and nothing branches, so that a
 * work-item's reads for several pairs overlap instead of waiting one after
 * the other.  Margins of a quarter or more (beta steps of about 2^-16 or
 * less) give REACH_UNSURE. */
inline uint pair_reach_guess(uint v, float scale, __global const ulong *restrict table, uint entries)
{
    float y = -log2(((float)v + 0.5f) * 0x1p-32f) * scale;
    float margin = 0x1p-18f * (1.5f * scale + 4.0f * y) + 0x1p-13f, nearest = rint(y), top = (float)entries;
    bool near = fabs(y - nearest) <= margin && nearest >= 1.0f && nearest <= top;
    uint j = near ? (uint)nearest : 1u, guess = (uint)clamp(ceil(y) - 1.0f, 0.0f, top);
    ulong edge = table[j - 1];
    uint at_edge = (ulong)v < edge ? j : j - 1;
    return margin < 0.25f ? (near ? at_edge : guess) : REACH_UNSURE;
}

inline uint pair_reach(uint v, float scale, __global const ulong *restrict table, uint entries)
{
    uint reach = pair_reach_guess(v, scale, table, entries);
    return reach == REACH_UNSURE ? reach_by_search(v, table, entries) : reach;
}

/* The arguments of a model's reach pass (clmc_exchange_kernels in
 * src/models/ensemble_hooks.h), in this order, set by
 * src/ensembles/tempering_device.c; reaches[system][pair]. */
#define TEMPERING_REACH_ARGUMENTS                                                                                     \
    __global const ulong *restrict threshold, __global const uint *restrict offset,                                    \
        __global const float *restrict reach_scale, __global uint *restrict reaches, uint n_systems,                   \
        uint first_system, uint exchange_seed_lo, uint exchange_seed_hi, ulong exchange
#define TEMPERING_REACH_NAMES                                                                                         \
    threshold, offset, reach_scale, reaches, n_systems, first_system, exchange_seed_lo, exchange_seed_hi, exchange
#define TEMPERING_DRAWS ((TEMPERATURES + 2) / 4) /* a system's draws: four pairs' uniform words each */

/* Work-items of a pass take draws in blocks of this many adjacent ones. */
#define REACH_BLOCK 32

/* The reaches of every system's pairs at exchange `exchange`, one draw (four
 * pairs) per work-item at a time, by the `items` work-items of a pass
 * numbered `item` (so that a pass over a lattice, which a model runs anyway
 * before an exchange, finds them on the side): in units of REACH_BLOCK
 * adjacent work-items (whole warps or wavefronts, where they are that wide;
 * single work-items when REACH_BLOCK does not divide `items`) spread evenly
 * over the pass, so that few units and work-groups do the extra work. */
inline void tempering_reach_draws(uint item, uint items, TEMPERING_REACH_ARGUMENTS)
{
    uint needed = n_systems * TEMPERING_DRAWS, unit = items % REACH_BLOCK == 0 ? REACH_BLOCK : 1;
    uint units = items / unit, needed_units = (needed + unit - 1) / unit;
    uint stride = needed_units > 0 && units > needed_units ? units / needed_units : 1;
    if (item / unit % stride != 0) return;
    uint working = (units + stride - 1) / stride; /* the units that take draws, all whole */
    clmc_philox_key key = {{exchange_seed_lo, exchange_seed_hi}};
    for (uint d = item / unit / stride * unit + item % unit; d < needed; d += working * unit) {
        uint system = d / TEMPERING_DRAWS, first = 4 * (d % TEMPERING_DRAWS);
        clmc_philox_ctr draw = exchange_draw(first_system, system, first, exchange, key);
        for (uint k = 0; k < 4; k++) {
            uint t = min(first + k, TEMPERATURES - 2u);
            uint reach = pair_reach(draw.v[k], reach_scale[t], threshold + offset[t], offset[t + 1] - offset[t]);
            if (first + k < TEMPERATURES - 1) reaches[(size_t)system * (TEMPERATURES - 1) + first + k] = reach;
        }
    }
}

/* The uniform words of `system`'s pairs at exchange `exchange`. */
inline void exchange_uniforms(uint first_system, uint system, ulong exchange, uint seed_lo, uint seed_hi, uint *uniform)
{
    clmc_philox_key key = {{seed_lo, seed_hi}};
    for (uint t = 0; t + 1 < TEMPERATURES; t++) {
        if (t % 4 == 0) {
            clmc_philox_ctr draw = exchange_draw(first_system, system, t, exchange, key);
            for (uint k = 0; k < 4 && t + k + 1 < TEMPERATURES; k++) uniform[t + k] = draw.v[k];
        }
    }
}

/* The reaches of the pairs for their uniform words (pair_reach): nothing
 * in them depends on the other pairs' decisions, so they overlap (the
 * guesses first, without branches; searches, rarely, after). */
inline void exchange_reaches(const uint *uniform, __global const ulong *restrict threshold,
                             __global const uint *restrict offset, __global const float *restrict reach_scale,
                             uint *reach)
{
    for (uint t = 0; t + 1 < TEMPERATURES; t++)
        reach[t] = pair_reach_guess(uniform[t], reach_scale[t], threshold + offset[t], offset[t + 1] - offset[t]);
    for (uint t = 0; t + 1 < TEMPERATURES; t++)
        if (reach[t] == REACH_UNSURE) reach[t] = reach_by_search(uniform[t], threshold + offset[t], offset[t + 1] - offset[t]);
}

/* The decisions of one system, pair 0 first: at[t] (any configuration
 * numbers) holds the configuration at temperature t before and after, value[t]
 * its energy count (energy = energy_scale value + a constant), reach[t] pair
 * t's reach; took[t] receives whether pair t exchanged.  The chain from pair
 * to pair is integer arithmetic only. */
inline void exchange_decisions(uint *at, const int *value, const uint *reach, int energy_scale, uchar *took)
{
    uint a = at[0];
    long energy_a = (long)energy_scale * value[0];
    for (uint t = 0; t + 1 < TEMPERATURES; t++) {
        uint b = at[t + 1];
        long energy_b = (long)energy_scale * value[t + 1];
        bool accept = energy_b - energy_a >= -(long)reach[t];
        at[t] = accept ? b : a;
        a = accept ? a : b;
        energy_a = accept ? energy_a : energy_b;
        took[t] = accept;
    }
    at[TEMPERATURES - 1] = a;
}

/* Round trips: the configuration now at the hottest temperature, hot, heads
 * up (a trip ends if it was heading down), the one at the coldest, cold (not
 * hot: two temperatures or more), heads down; hot_heading and cold_heading
 * are their headings before.  Returns the trips completed (0 or 1). */
inline uint update_headings(uint hot, uint cold, int hot_heading, int cold_heading, __global int *restrict heading)
{
    heading[hot] = +1;
    if (cold_heading == +1) heading[cold] = -1;
    return hot_heading == -1;
}

/* The exchanges of `system`: at[t] receives the configuration at temperature
 * t afterwards, also written to config_at (tempering_exchange_scatter writes
 * temperature_of and clears the energies).  Everything that does not depend
 * on the decisions (maps, energies, table offsets, random words) is read or
 * drawn first, and the reaches need no decision, so the chain of decisions
 * waits on nothing. */
inline void tempering_exchange_system(uint system, uint *at, TEMPERING_EXCHANGE_ARGUMENTS)
{
    __global uint *row = config_at + (size_t)system * TEMPERATURES;
    __global ulong *pair_accepted = accepted + (size_t)system * (TEMPERATURES - 1);
    int value[TEMPERATURES];
    uint uniform[TEMPERATURES - 1], reach[TEMPERATURES - 1];
    uchar took[TEMPERATURES - 1];
    for (uint t = 0; t < TEMPERATURES; t++) at[t] = row[t];
    for (uint t = 0; t < TEMPERATURES; t++) value[t] = energies[at[t]];
    exchange_uniforms(first_system, system, exchange, seed_lo, seed_hi, uniform);
    exchange_reaches(uniform, threshold, offset, reach_scale, reach);
    exchange_decisions(at, value, reach, energy_scale, took);
    for (uint t = 0; t + 1 < TEMPERATURES; t++) pair_accepted[t] += took[t];
    uint hot = at[0], cold = at[TEMPERATURES - 1];
    trips[system] += update_headings(hot, cold, heading[hot], heading[cold], heading);
    for (uint t = 0; t < TEMPERATURES; t++) row[t] = at[t];
}

/* temperature_of of the system's configurations, and their energies set to 0
 * (scattered stores, one work-item per system; a kernel that has the
 * system's work-group at hand can clear the energies in one coalesced pass
 * instead, and needs temperature_of only for set_temperatures_device). */
inline void tempering_exchange_scatter(const uint *at, __global uint *restrict temperature_of,
                                       __global int *restrict energies)
{
    for (uint t = 0; t < TEMPERATURES; t++) {
        temperature_of[at[t]] = t;
        energies[at[t]] = 0;
    }
}

#endif
