/* Parallel-tempering exchanges of one system on the device, shared by the
 * general kernel (cl/tempering.cl) and models' own exchange kernels (EA msc:
 * cl/ea_ising.cl): the decisions of the host rule (src/tempering.c) with the
 * exact integer thresholds of src/tempering_table.c and the same Philox
 * counters.  TEMPERATURES must be defined.
 *
 * Buffers: config_at[system][t] (the configuration at temperature t),
 * heading[config], energies[config] (integers e with energy = energy_scale e
 * plus a constant; an exchange reads them and sets them to 0, so a model may
 * accumulate the next ones with atomic adds), threshold and offset (the
 * table), accepted[system][pair] and trips[system] (running totals),
 * temperature_of[config] (written by the general kernel, for the model's
 * set_temperatures_device).  No two buffers overlap. */
#ifndef CLMC_TEMPERING_EXCHANGE_H
#define CLMC_TEMPERING_EXCHANGE_H

#include "common/philox.h"

/* The arguments of every exchange kernel, in this order (set by
 * src/tempering_device.c), and the same names passed on. */
#define TEMPERING_EXCHANGE_ARGUMENTS                                                                                  \
    __global uint *restrict config_at, __global int *restrict heading, __global int *restrict energies,               \
        int energy_scale, __global const ulong *restrict threshold, __global const uint *restrict offset,             \
        __global ulong *restrict accepted, __global ulong *restrict trips, __global uint *restrict temperature_of,     \
        uint n_systems, uint seed_lo, uint seed_hi, ulong exchange
#define TEMPERING_EXCHANGE_NAMES                                                                                      \
    config_at, heading, energies, energy_scale, threshold, offset, accepted, trips, temperature_of, n_systems,        \
        seed_lo, seed_hi, exchange

/* The uniform word for pair t of `system` at exchange `exchange`: word t % 4
 * of the draw at counter (system TEMPERATURES + t - t % 4, exchange,
 * EXCHANGE). */
inline clmc_philox_ctr exchange_draw(uint system, uint t, ulong exchange, clmc_philox_key key)
{
    clmc_philox_ctr c;
    c.v[0] = system * TEMPERATURES + t;
    c.v[1] = (uint)exchange;
    c.v[2] = (uint)(exchange >> 32);
    c.v[3] = CLMC_PURPOSE_EXCHANGE;
    return clmc_philox4x32_10(c, key);
}

/* Whether the exchange with energy change k (the upper configuration's energy
 * minus the lower's) is accepted with uniform word v, from the pair's table
 * of `entries` thresholds. */
inline bool threshold_accepts(__global const ulong *restrict table, uint entries, long k, uint v)
{
    if (k >= 0) return true;
    ulong i = (ulong)(-(k + 1));
    return i < entries && (ulong)v < table[i];
}

/* The uniform words of `system`'s pairs at exchange `exchange`. */
inline void exchange_uniforms(uint system, ulong exchange, uint seed_lo, uint seed_hi, uint *uniform)
{
    clmc_philox_key key = {{seed_lo, seed_hi}};
    for (uint t = 0; t + 1 < TEMPERATURES; t++) {
        if (t % 4 == 0) {
            clmc_philox_ctr draw = exchange_draw(system, t, exchange, key);
            for (uint k = 0; k < 4 && t + k + 1 < TEMPERATURES; k++) uniform[t + k] = draw.v[k];
        }
    }
}

/* The decisions of one system, pair 0 first: at[t] (any configuration
 * numbers) holds the configuration at temperature t before and after, value[t]
 * its energy count (energy = energy_scale value + a constant), first[] the
 * table offsets; took[t] receives whether pair t exchanged. */
inline void exchange_decisions(uint *at, const int *value, const uint *first, const uint *uniform, int energy_scale,
                               __global const ulong *restrict threshold, uchar *took)
{
    uint a = at[0];
    long energy_a = (long)energy_scale * value[0];
    for (uint t = 0; t + 1 < TEMPERATURES; t++) {
        uint b = at[t + 1];
        long energy_b = (long)energy_scale * value[t + 1];
        bool accept = threshold_accepts(threshold + first[t], first[t + 1] - first[t], energy_b - energy_a, uniform[t]);
        at[t] = accept ? b : a;
        a = accept ? a : b;
        energy_a = accept ? energy_a : energy_b;
        took[t] = accept;
    }
    at[TEMPERATURES - 1] = a;
}

/* Round trips: the configuration now at the hottest temperature heads up
 * (a trip ends if it was heading down), the one at the coldest heads down. */
inline void exchange_headings(uint system, uint hot, uint cold, __global int *restrict heading,
                              __global ulong *restrict trips)
{
    trips[system] += heading[hot] == -1;
    heading[hot] = +1;
    if (heading[cold] == +1) heading[cold] = -1;
}

/* The exchanges of `system`: at[t] receives the configuration at temperature
 * t afterwards, also written to config_at (tempering_exchange_scatter writes
 * temperature_of and clears the energies).  Everything that does not depend
 * on the decisions (maps, energies, table offsets, random words) is read or
 * drawn first, so the chain of decisions waits only on its table reads. */
inline void tempering_exchange_system(uint system, uint *at, TEMPERING_EXCHANGE_ARGUMENTS)
{
    __global uint *row = config_at + (size_t)system * TEMPERATURES;
    __global ulong *pair_accepted = accepted + (size_t)system * (TEMPERATURES - 1);
    int value[TEMPERATURES];
    uint first[TEMPERATURES], uniform[TEMPERATURES - 1];
    uchar took[TEMPERATURES - 1];
    for (uint t = 0; t < TEMPERATURES; t++) at[t] = row[t];
    for (uint t = 0; t < TEMPERATURES; t++) value[t] = energies[at[t]];
    for (uint t = 0; t < TEMPERATURES; t++) first[t] = offset[t];
    exchange_uniforms(system, exchange, seed_lo, seed_hi, uniform);
    exchange_decisions(at, value, first, uniform, energy_scale, threshold, took);
    for (uint t = 0; t + 1 < TEMPERATURES; t++) pair_accepted[t] += took[t];
    exchange_headings(system, at[0], at[TEMPERATURES - 1], heading, trips);
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
