/* Parallel-tempering exchanges on the device, for any model with integer
 * energies: one work-item per system (cl/ensembles/tempering_exchange.h).
 * Built with TEMPERATURES defined. */
#include "ensembles/tempering_exchange.h"

__kernel void tempering_exchange(TEMPERING_EXCHANGE_ARGUMENTS)
{
    uint system = get_global_id(0);
    if (system >= n_systems) return;
    uint at[TEMPERATURES];
    tempering_exchange_system(system, at, TEMPERING_EXCHANGE_NAMES);
    tempering_exchange_scatter(at, temperature_of, energies);
}

/* Test aid (tests/test_tempering_device.c): reach[i] = pair_reach of pair
 * pair_of[i] for word words[i], the decisions' only use of the table. */
__kernel void tempering_reaches(__global const uint *pair_of, __global const uint *words,
                                __global const ulong *threshold, __global const uint *offset,
                                __global const float *reach_scale, __global uint *reach, uint n)
{
    uint i = get_global_id(0);
    if (i >= n) return;
    uint t = pair_of[i];
    reach[i] = pair_reach(words[i], reach_scale[t], threshold + offset[t], offset[t + 1] - offset[t]);
}
