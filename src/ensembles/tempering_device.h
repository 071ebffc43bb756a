/* Parallel-tempering exchanges on the device (cl/ensembles/tempering.cl, or the
 * model's own kernel) for models with the energies_device and
 * set_temperatures_device hooks: the maps and
 * counters stay on the device and are read back into clmc_tempering only at
 * measurements' collection, checkpoints and the end. */
#ifndef CLMC_TEMPERING_DEVICE_H
#define CLMC_TEMPERING_DEVICE_H

#include "tempering.h"

typedef struct clmc_tempering_device {
    bool active;
    clmc_runtime *rt;
    cl_program program;
    cl_kernel exchange;
    clmc_exchange_kernels model; /* the model's own (ensemble_hooks.h exchange_kernel), kernel NULL if none */
    cl_mem config_at, heading, temperature_of, threshold, offset, reach_scale, accepted, trips, noted;
    cl_mem reaches; /* [system][pair], written by the model's reach pass where it has one */
    cl_mem energies; /* the model's */
    int energy_scale;
    unsigned n_slots;
} clmc_tempering_device;

/* Activates the device path where the model, the betas and
 * ensemble.exchanges allow it ("host" forces the host path); n_slots: the
 * measurements noted between collections. */
clmc_status clmc_tempering_device_open(clmc_tempering_device *d, clmc_runtime *rt, const clmc_tempering *pt,
                                       const clmc_model_ops *ops, void *state, unsigned n_slots);
void clmc_tempering_device_close(clmc_tempering_device *d);
/* Copies the host maps (fresh or restored) to the device. */
clmc_status clmc_tempering_device_upload(clmc_tempering_device *d, const clmc_tempering *pt);
clmc_status clmc_tempering_device_exchange(clmc_tempering_device *d, clmc_tempering *pt, const clmc_model_ops *ops,
                                           void *state);
/* Keeps the current map for measurement slot `slot`; read_noted reads slots
 * [0, n) into pending_at ([slot][config]). */
clmc_status clmc_tempering_device_note(clmc_tempering_device *d, unsigned slot, unsigned n_configs);
clmc_status clmc_tempering_device_read_noted(clmc_tempering_device *d, unsigned n, unsigned n_configs,
                                             unsigned *pending_at);
/* Reads the maps and counters back into pt (the device counters restart at 0). */
clmc_status clmc_tempering_device_sync(clmc_tempering_device *d, clmc_tempering *pt);

#endif
