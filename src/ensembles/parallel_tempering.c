/* Parallel tempering as an ensemble kind: an exchange every exchange_every
 * sweeps, on the device (tempering_device.c) where the model and the betas
 * allow it, else on the host (tempering.c); the same decisions either way. */
#include "ensemble.h"

static bool exchange_due(const clmc_ensemble *e, uint64_t sweep_index)
{
    return (sweep_index + 1) % e->map.exchange_every == 0;
}

static clmc_status pt_open(clmc_ensemble *e, unsigned measure_batch)
{
    return clmc_tempering_device_open(&e->device, e->rt, &e->map, e->ops, e->state, measure_batch);
}

/* A sweep an exchange follows lets the model count the energies on the way. */
static clmc_status pt_sweep(clmc_ensemble *e, uint64_t sweep_index)
{
    if (exchange_due(e, sweep_index) && e->ops->ensemble->sweep_before_energies)
        return e->ops->ensemble->sweep_before_energies(e->state, sweep_index);
    return e->ops->sweep(e->state, sweep_index);
}

static clmc_status pt_after_sweep(clmc_ensemble *e, uint64_t sweep_index)
{
    if (!exchange_due(e, sweep_index)) return CLMC_OK;
    if (e->device.active) return clmc_tempering_device_exchange(&e->device, &e->map, e->ops, e->state);
    return clmc_tempering_exchange(&e->map, e->ops, e->state);
}

static clmc_status pt_start(clmc_ensemble *e)
{
    return clmc_tempering_device_upload(&e->device, &e->map);
}

static clmc_status pt_note(clmc_ensemble *e, unsigned slot)
{
    return e->device.active ? clmc_tempering_device_note(&e->device, slot, e->map.n_configs) : CLMC_OK;
}

static clmc_status pt_collect(clmc_ensemble *e, unsigned n_slots, unsigned *map_of_slot)
{
    if (!e->device.active) return CLMC_OK;
    return clmc_tempering_device_read_noted(&e->device, n_slots, e->map.n_configs, map_of_slot);
}

static clmc_status pt_sync(clmc_ensemble *e)
{
    return clmc_tempering_device_sync(&e->device, &e->map);
}

static void pt_close(clmc_ensemble *e)
{
    clmc_tempering_device_close(&e->device);
}

const clmc_ensemble_kind clmc_ensemble_parallel_tempering = {
    .open = pt_open,
    .sweep = pt_sweep,
    .after_sweep = pt_after_sweep,
    .start = pt_start,
    .note = pt_note,
    .collect = pt_collect,
    .sync = pt_sync,
    .close = pt_close,
};
