/* Parallel-tempering exchanges on the device, for any model with integer
 * energies: one work-item per system makes the decisions of the host rule
 * (src/tempering.c) with the exact integer thresholds of
 * src/tempering_table.c, the same Philox counters, and keeps the maps,
 * headings, per-pair accepted counts and round trips on the device. */
#include "common/philox.h"

/* The uniform word for pair t of `system` at exchange `exchange`: word t % 4
 * of the draw at counter (system T + t - t % 4, exchange, EXCHANGE). */
inline clmc_philox_ctr exchange_draw(uint system, uint T, uint t, ulong exchange, clmc_philox_key key)
{
    clmc_philox_ctr c;
    c.v[0] = system * T + t;
    c.v[1] = (uint)exchange;
    c.v[2] = (uint)(exchange >> 32);
    c.v[3] = CLMC_PURPOSE_EXCHANGE;
    return clmc_philox4x32_10(c, key);
}

inline bool threshold_accepts(__global const ulong *threshold, __global const uint *offset, uint t, long k, uint v)
{
    if (k >= 0) return true;
    ulong i = (ulong)(-(k + 1));
    if (i >= offset[t + 1] - offset[t]) return false;
    return (ulong)v < threshold[offset[t] + i];
}

/* config_at[system][t], heading[config], energies[config] (integers the
 * model wrote, times energy_sign = +1 or -1: EA msc keeps minus the energy), accepted[system][pair] and trips[system] (running totals),
 * temperature_of[config] (written). */
__kernel void tempering_exchange(__global uint *config_at, __global int *heading, __global const long *energies, int energy_sign,
                                 __global const ulong *threshold, __global const uint *offset,
                                 __global ulong *accepted, __global ulong *trips, __global uint *temperature_of,
                                 uint n_systems, uint T, uint seed_lo, uint seed_hi, ulong exchange)
{
    uint system = get_global_id(0);
    if (system >= n_systems) return;
    clmc_philox_key key = {{seed_lo, seed_hi}};
    __global uint *at = config_at + (size_t)system * T;
    __global ulong *pair_accepted = accepted + (size_t)system * (T - 1);
    uint top = T - 1, a = at[0];
    long energy_a = energy_sign * energies[a];
    clmc_philox_ctr draw;
    for (uint t = 0; t < top; t++) {
        if (t % 4 == 0) draw = exchange_draw(system, T, t, exchange, key);
        uint b = at[t + 1];
        long energy_b = energy_sign * energies[b];
        bool accept = threshold_accepts(threshold, offset, t, energy_b - energy_a, draw.v[t % 4]);
        at[t] = accept ? b : a;
        a = accept ? a : b;
        energy_a = accept ? energy_a : energy_b;
        pair_accepted[t] += accept;
    }
    at[top] = a;
    uint hot = at[0];
    trips[system] += heading[hot] == -1;
    heading[hot] = +1;
    if (heading[at[top]] == +1) heading[at[top]] = -1;
    for (uint t = 0; t < T; t++) temperature_of[at[t]] = t;
}
