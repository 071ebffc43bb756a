/* Refuses presets whose device buffers cannot fit, before any allocation,
 * with the bytes needed and the bytes the device has. */
#include "engine/limits.h"

#include <stdio.h>

static void human_bytes(unsigned long long bytes, char *text, size_t size)
{
    snprintf(text, size, "%.2f GiB", (double)bytes / (1024.0 * 1024.0 * 1024.0));
}

clmc_status clmc_check_device_memory(const clmc_model_ops *ops, const clmc_preset *preset,
                                     const clmc_device_info *device)
{
    if (!ops->device_bytes) return CLMC_OK;
    uint64_t total = 0, largest = 0;
    ops->device_bytes(preset, &total, &largest);
    char need[32], have[32];
    /* Independent copies multiply the lattice: the message names both keys. */
    const char *key = clmc_preset_systems(preset)->copies > 1 ? "ensemble.copies" : "model";
    if (total > device->global_mem_bytes) {
        human_bytes(total, need, sizeof need);
        human_bytes(device->global_mem_bytes, have, sizeof have);
        return clmc_fail(CLMC_ERR_INPUT, "%s: the preset needs %llu bytes (%s) of device memory; %s has %llu bytes "
                         "(%s): make the system (model.L, model.N) or the ensemble (betas, copies) smaller",
                         key, (unsigned long long)total, need, device->name, (unsigned long long)device->global_mem_bytes,
                         have);
    }
    if (largest > device->max_alloc_bytes) {
        human_bytes(largest, need, sizeof need);
        human_bytes(device->max_alloc_bytes, have, sizeof have);
        return clmc_fail(CLMC_ERR_INPUT, "%s: the preset needs one device buffer of %llu bytes (%s); %s allocates at "
                         "most %llu bytes (%s) at once: make the system (model.L, model.N) or the ensemble (betas, copies) smaller",
                         key, (unsigned long long)largest, need, device->name, (unsigned long long)device->max_alloc_bytes,
                         have);
    }
    return CLMC_OK;
}
