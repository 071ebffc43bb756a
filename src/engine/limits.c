/* Refuses presets whose device buffers cannot fit, before any allocation,
 * with the bytes needed and the bytes the device has. */
#include "engine/limits.h"

#include <stdio.h>

#include "models/rng_streams.h"
#include "runtime/ranks.h"


static void human_bytes(unsigned long long bytes, char *text, size_t size)
{
    snprintf(text, size, "%.2f GiB", (double)bytes / (1024.0 * 1024.0 * 1024.0));
}

/* The refusal: what the preset needs ("needs [before]N bytes (G GiB)[after]")
 * against what the device offers. */
static clmc_status refuse(const char *key, const char *before, uint64_t need, const char *after,
                          const char *device_name, const char *limit, uint64_t have, const char *rng)
{
    char need_text[32], have_text[32];
    human_bytes(need, need_text, sizeof need_text);
    human_bytes(have, have_text, sizeof have_text);
    return clmc_fail(CLMC_ERR_INPUT, "%s: the preset needs %s%llu bytes (%s)%s%s%s%s; %s %s %llu bytes (%s): make the "
                     "system (model.L, model.N) or the ensemble (betas, copies) smaller%s",
                     key, before, (unsigned long long)need, need_text, after,
                     rng ? ", with algorithm.rng \"" : "", rng ? rng : "", rng ? "\" keeping its state in device memory" : "",
                     device_name, limit, (unsigned long long)have, have_text,
                     rng ? ", or give algorithm.rng a generator with less state (docs/rng.md)" : "");
}

clmc_status clmc_check_device_memory(const clmc_model_ops *ops, const clmc_preset *preset,
                                     const clmc_device_info *device)
{
    if (!ops->device_bytes) return CLMC_OK;
    uint64_t total = 0, largest = 0;
    ops->device_bytes(preset, &total, &largest);
    /* Independent copies multiply the lattice: the message names both keys. */
    const char *key = clmc_preset_systems(preset)->copies > 1 ? "ensemble.copies" : "model";
    if (clmc_preset_is_population(preset)) { /* a second copy of the members and 64 bytes of each's bookkeeping */
        key = "ensemble.population";
        total = 2 * total + 64ULL * clmc_preset_systems(preset)->copies;
        if (clmc_ranks_many()) /* MPI ranks (copies: the rank's share): room for members received, family counts of all */
            total += total / 2 + 12ULL * (uint64_t)clmc_preset_int(preset, "ensemble.population");
    }
    /* A generator that keeps state in device memory (lagged Fibonacci rings cost
     * kilobytes per stream) is named, so that the user sees the other way out. */
    clmc_rng_kind kind = clmc_rng_from_preset(preset);
    const char *rng = clmc_rng_stateful(kind) ? clmc_preset_string(preset, "algorithm.rng") : NULL;
    if (total > device->global_mem_bytes)
        return refuse(key, "", total, " of device memory", device->name, "has", device->global_mem_bytes, rng);
    if (largest > device->max_alloc_bytes)
        return refuse(key, "one device buffer of ", largest, "", device->name, "allocates at most",
                      device->max_alloc_bytes, rng);
    return CLMC_OK;
}
