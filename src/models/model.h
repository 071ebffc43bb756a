/* A model is a table of callbacks plus its preset schema; the runtime never
 * switches on model names (STYLE.md). */
#ifndef CLMC_MODEL_H
#define CLMC_MODEL_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clmc/preset.h"
#include "clmc/runtime.h"
#include "clmc/status.h"
#include "models/ensemble_hooks.h"
#include "output/h5.h"

/* clmc_model_ops.sweeps' measure_slot when population annealing's
 * member_observables follows the sweeps. */
#define CLMC_MEASURE_MEMBERS (-2)

/* What a created model tells the engine about itself. */
typedef struct clmc_model_shape {
    const char *const *series_columns; /* NULL-terminated names of raw values */
    unsigned measure_batch;            /* measurements held on the device at once */
    double updates_per_sweep;          /* spin updates (or trial moves) per sweep */
    double bytes_per_sweep;            /* global-memory traffic of one sweep (estimate) */
    /* Configurations: n_systems independent systems, each holding one
     * configuration per temperature of the ensemble (n_temperatures, 1
     * without tempering), stored system-major: config = system * T + slot. */
    unsigned n_systems, n_temperatures;
    /* ensemble.type "independent": configurations per independent system
     * (0 or 1: each configuration is one; EA: a realization's 2 T). */
    unsigned configs_per_system;
} clmc_model_shape;

/* A measured value for an automatic key where no tuned one exists, by
 * lattice dimension and device type ("GPU", "CPU"); vendor NULL: any. */
typedef struct clmc_tunable_default {
    int dim;                 /* 0 ends a list */
    const char *device_type, *vendor;
    long long value;
} clmc_tunable_default;

/* A launch or tiling parameter that `clmc tune` may search: a preset key
 * whose value `automatic` lets the model (or the tuning cache) choose. */
typedef struct clmc_tunable {
    const char *path;              /* e.g. "algorithm.tile"; NULL ends a list */
    long long automatic;           /* the value that means "choose for me" */
    const long long *candidates;   /* values to try, ended by `automatic` */
    bool keeps_order;              /* every value gives bit-identical results */
    /* Built-in defaults (NULL: none); only for keys that keep the order, so
     * presets stay bit-reproducible across devices. */
    const clmc_tunable_default *defaults;
} clmc_tunable;

typedef struct clmc_model_ops {
    const char *type;                   /* value of model.type */
    bool athermal;                      /* no temperature: "ensemble" is optional and empty */
    const clmc_field *model_fields;     /* keys of "model" other than "type" */
    const clmc_field *algorithm_fields; /* keys of "algorithm", "type" included */
    /* Cross-field checks that need no device (e.g. L divisible by tile). */
    clmc_status (*validate)(const clmc_preset *preset);
    /* Allocates device state and initialises the configuration; resolves
     * automatic preset values (e.g. the tile edge) for the device. */
    clmc_status (*create)(clmc_runtime *rt, clmc_preset *preset, void **state,
                          clmc_model_shape *shape);
    void (*destroy)(void *state);
    /* Enqueues the update kernels of sweep `sweep_index` (timed launches). */
    clmc_status (*sweep)(void *state, uint64_t sweep_index);
    /* Optional: enqueues sweeps [first, first + count) at once, with results
     * bit-identical to `count` calls of sweep (Ising's resident update: many
     * sweeps per launch).  The engine gives it the sweeps up to the next point
     * where the host acts (a measurement, an exchange, a checkpoint, the end).
     * measure_slot >= 0: a measurement into that batch slot follows the last
     * sweep; the model may make it in the same launch and set *measured (else
     * the engine calls measure).  measure_slot CLMC_MEASURE_MEMBERS: population
     * annealing's member_observables follows the last sweep; the model may
     * measure the members in the same launch (then *measured) and not again
     * in member_observables. */
    clmc_status (*sweeps)(void *state, uint64_t first, uint64_t count, int measure_slot, bool *measured);
    /* Enqueues one measurement into batch slot `slot` (< measure_batch). */
    clmc_status (*measure)(void *state, unsigned slot);
    /* Reads slots [0, n_slots) of the batch into rows: n_slots x configurations
     * x columns. */
    clmc_status (*collect)(void *state, unsigned n_slots, double *rows);
    /* Estimates with errors from the series of one temperature (n_rows x
     * columns, measured at inverse temperature beta), added to `observables`. */
    clmc_status (*estimate)(void *state, const double *rows, size_t n_rows, double beta, cJSON *observables);
    /* What the model offers to ensembles (parallel tempering); NULL: it
     * supports none, and takes ensemble.beta itself. */
    const clmc_ensemble_hooks *ensemble;
    /* Optional numerical guard: checks the current state's invariants
     * (spin lengths, particle count) and fails (clmc_fail, CLMC_ERR_OTHER)
     * with a message naming what broke.  The engine calls it after every
     * batch of measurements and before every checkpoint, so a checkpoint
     * always holds a state that passed. */
    clmc_status (*guard)(void *state);
    /* Optional: how the update ran (Ising: resident, sweeps per launch),
     * added to result.json's `performance`. */
    void (*describe_update)(void *state, cJSON *performance);
    /* Model invariants of the final state, added to `checks`. */
    clmc_status (*checks)(void *state, cJSON *checks);
    /* Optional: the final configuration of the first system as a grey image
     * (plane z = 0 in 3D), width x height bytes the caller frees. */
    clmc_status (*picture)(void *state, unsigned char **grey, int *width, int *height);
    /* Optional: the final configuration of every system as one array for
     * result.h5 (output.format "hdf5", docs/results.md): spins, positions or
     * vectors; `data` malloc'ed, the caller frees it. */
    clmc_status (*snapshot)(void *state, clmc_array *configuration);
    /* Checkpoints (optional; give both or neither, see src/engine/checkpoint.h).
     * save_state returns the model's whole evolving state (device buffers
     * such as configurations and couplings, plus any host-side
     * accumulators) as one malloc'ed byte blob whose layout does not depend
     * on the device; load_state puts such a blob into a model just created
     * from the same resolved preset and refuses (CLMC_ERR_INPUT) a blob of
     * the wrong size or content.  Inverse temperatures are not part of it:
     * the ensemble restores its map and calls set_betas. */
    clmc_status (*save_state)(void *state, unsigned char **blob, size_t *bytes);
    clmc_status (*load_state)(void *state, const unsigned char *blob, size_t bytes);
    /* Optional: device memory the preset will allocate (all buffers, and the
     * largest one), checked against the device before create. */
    void (*device_bytes)(const clmc_preset *preset, uint64_t *total, uint64_t *largest);
    /* Optional: domain decomposition of one system over K > 1 MPI ranks
     * (docs/mpi.md).  Checks that `preset` can be cut into `ranks` parts
     * (CLMC_ERR_INPUT naming the key) and, with `record`, describes the cut
     * (result.json performance.domain).  A model that has it holds rank
     * clmc_ranks()->rank's part when created under several ranks with one
     * system; its sweep, collect, checks and picture are then collective
     * and give every rank the whole lattice's values. */
    clmc_status (*domain)(const clmc_preset *preset, int ranks, cJSON *record);
    /* Parameters `clmc tune` may search (NULL or a list ended by a NULL
     * path); candidates the preset's checks refuse are skipped. */
    const clmc_tunable *tunables;
} clmc_model_ops;

/* NULL-terminated registry of all models (src/models/registry.c). */
extern const clmc_model_ops *const clmc_models[];
const clmc_model_ops *clmc_model_find(const char *type);

#endif
