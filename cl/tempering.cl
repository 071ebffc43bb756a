/* Parallel-tempering exchanges on the device, for any model with integer
 * energies: one work-item per system (cl/common/tempering_exchange.h).
 * Built with TEMPERATURES defined. */
#include "common/tempering_exchange.h"

__kernel void tempering_exchange(TEMPERING_EXCHANGE_ARGUMENTS)
{
    uint system = get_global_id(0);
    if (system >= n_systems) return;
    uint at[TEMPERATURES];
    tempering_exchange_system(system, at, TEMPERING_EXCHANGE_NAMES);
    tempering_exchange_scatter(at, temperature_of, energies);
}
