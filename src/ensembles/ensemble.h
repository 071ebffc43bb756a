/* The ensemble a run samples, driven by the engine without knowing its
 * kind: one temperature, parallel tempering (src/ensembles/parallel_tempering.c),
 * or independent systems (copies at each of several temperatures, no exchanges).
 * The model takes part through its clmc_ensemble_hooks only. */
#ifndef CLMC_ENSEMBLE_H
#define CLMC_ENSEMBLE_H

#include <stdbool.h>
#include <stdint.h>

#include "models/model.h"
#include "tempering.h"
#include "tempering_device.h"
#include "density_walkers.h"

#define CLMC_ENSEMBLE_MAX_TEMPERATURES 4096

typedef enum clmc_ensemble_type {
    CLMC_ENSEMBLE_ONE_TEMPERATURE,    /* ensemble.beta (or none, athermal) */
    CLMC_ENSEMBLE_PARALLEL_TEMPERING, /* ensemble.type "parallel_tempering" */
    CLMC_ENSEMBLE_INDEPENDENT,        /* ensemble.type "independent" */
    CLMC_ENSEMBLE_MULTICANONICAL,     /* ensemble.type "multicanonical" or "wang_landau" (multicanonical.c) */
    CLMC_ENSEMBLE_POPULATION_ANNEALING, /* ensemble.type "population_annealing" */
} clmc_ensemble_type;

/* The preset's ensemble section (and the seed it draws with), resolved once. */
typedef struct clmc_ensemble_settings {
    clmc_ensemble_type type;
    unsigned n_betas;
    double betas[CLMC_ENSEMBLE_MAX_TEMPERATURES]; /* increasing; betas[0] alone without tempering */
    uint64_t exchange_every;                      /* sweeps between exchanges; 0 without tempering */
    clmc_exchange_path exchanges;                 /* ensemble.exchanges */
    unsigned copies;                              /* systems per temperature (1 but for independent) */
    unsigned first_system;                        /* ensemble.first_system */
    unsigned units;                               /* units that temper alone (clmc_ensemble_hooks), or 0 */
    /* Parallel tempering of one system across MPI ranks (docs/mpi.md): the
     * model holds configurations [share_first, share_first + share_count)
     * of the n_betas; 0, 0: all (set by the engine, not read here). */
    unsigned share_first, share_count;
    uint64_t seed;                                /* run.seed */
    clmc_density_settings density;                /* multicanonical and Wang-Landau */
    /* Population annealing: betas holds the schedule (beta_start first). */
    unsigned population;       /* ensemble.population (target R) */
    uint64_t sweeps_per_step;  /* ensemble.sweeps_per_step */
    unsigned resampling;       /* 0 systematic, 1 multinomial, 2 nearest_integer (cl/ensembles/population.cl) */
    unsigned runs;             /* ensemble.runs */
    bool runs_over_ranks;      /* ensemble.distribute "runs" (under MPI ranks: each rank its share of the runs) */
    bool adaptive;             /* ensemble.schedule "adaptive": betas[0] alone, n_betas = max_steps + 1 */
    bool fused_steps;          /* ensemble.fused_steps "auto" (true) or "off" */
    double beta_end, target_overlap;
} clmc_ensemble_settings;

clmc_status clmc_ensemble_settings_read(const clmc_preset *preset, clmc_ensemble_settings *settings);

typedef struct clmc_ensemble clmc_ensemble;

/* What each kind does at the engine's calls below (NULL: nothing). */
typedef struct clmc_ensemble_kind {
    clmc_status (*open)(clmc_ensemble *e, unsigned measure_batch);
    clmc_status (*sweep)(clmc_ensemble *e, uint64_t sweep_index);
    clmc_status (*after_sweep)(clmc_ensemble *e, uint64_t sweep_index);
    clmc_status (*start)(clmc_ensemble *e);
    clmc_status (*note)(clmc_ensemble *e, unsigned slot);
    clmc_status (*collect)(clmc_ensemble *e, unsigned n_slots, unsigned *map_of_slot);
    clmc_status (*sync)(clmc_ensemble *e);
    void (*close)(clmc_ensemble *e);
    /* A kind with its own loop (population annealing): runs it instead of
     * the engine's sweeps and writes its own observables. */
    clmc_status (*run)(clmc_ensemble *e);
    clmc_status (*results)(clmc_ensemble *e, cJSON *observables);
    /* Such a kind's own state for a checkpoint between its steps (a blob
     * after the model's, section ENSM of src/engine/checkpoint.h) and back,
     * after the model's state was restored; NULL: none. */
    clmc_status (*save)(clmc_ensemble *e, unsigned char **blob, size_t *bytes);
    clmc_status (*restore)(clmc_ensemble *e, const unsigned char *blob, size_t bytes);
    /* What the kind adds to the result's performance object. */
    void (*describe)(clmc_ensemble *e, cJSON *performance);
} clmc_ensemble_kind;

struct clmc_ensemble {
    const clmc_ensemble_kind *kind;
    const clmc_model_ops *ops;
    void *state;
    clmc_runtime *rt;
    /* The temperature of every configuration (one temperature: the identity),
     * as the series and checkpoints read it. */
    clmc_tempering map;
    clmc_tempering_device device; /* parallel tempering: active when exchanges run on the device */
    clmc_density_settings density; /* multicanonical and Wang-Landau */
    void *kind_state;             /* population annealing: its own state */
    /* Set by the engine for a kind with its own loop, called by it between
     * its steps with the sweeps done so far: checkpoints when one is due
     * (kind->save) and fails with the resume hint after a signal. */
    clmc_status (*between_steps)(void *context, uint64_t sweeps_done);
    void *between_context;
};

/* Sets the model's temperatures for a fresh run; measure_batch: the
 * measurements noted between collections. */
clmc_status clmc_ensemble_create(clmc_ensemble *e, const clmc_ensemble_settings *settings, clmc_runtime *rt,
                                 const clmc_model_ops *ops, void *state, const clmc_model_shape *shape);
void clmc_ensemble_free(clmc_ensemble *e);
/* Before the first sweep of a run, fresh or with a map a checkpoint restored
 * (clmc_checkpoint_restore). */
clmc_status clmc_ensemble_start(clmc_ensemble *e);
/* Runs the model's sweep `sweep_index` in the form the ensemble needs. */
clmc_status clmc_ensemble_sweep(clmc_ensemble *e, uint64_t sweep_index);
/* Sweeps [first, first + count), none of which but the last is followed by
 * an exchange: at once where the model can (model ops `sweeps`), else one by
 * one; measure_slot >= 0: a measurement follows, *measured when the model made
 * it on the way (see model ops `sweeps`). */
clmc_status clmc_ensemble_sweeps(clmc_ensemble *e, uint64_t first, uint64_t count, int measure_slot, bool *measured);
/* What follows sweep `sweep_index` (an exchange, when one is due). */
clmc_status clmc_ensemble_after_sweep(clmc_ensemble *e, uint64_t sweep_index);
/* Keeps the map as it is now for measurement slot `slot`... */
clmc_status clmc_ensemble_note(clmc_ensemble *e, unsigned slot);
/* ...and writes the maps of slots [0, n_slots) into map_of_slot
 * ([slot][config], configurations at each temperature) before they are collected. */
clmc_status clmc_ensemble_collect(clmc_ensemble *e, unsigned n_slots, unsigned *map_of_slot);
/* Brings map and statistics up to date (before a checkpoint and at the end). */
clmc_status clmc_ensemble_sync(clmc_ensemble *e);

/* A kind with its own loop (kind->run): runs it and sets *ran; else *ran = false. */
clmc_status clmc_ensemble_run(clmc_ensemble *e, bool *ran);
/* Its observables instead of the series' estimates (*written), else *written = false. */
clmc_status clmc_ensemble_results(clmc_ensemble *e, cJSON *observables, bool *written);
/* The kind's additions to the result's performance object (none for most). */
void clmc_ensemble_describe(clmc_ensemble *e, cJSON *performance);
/* The kind's checkpoint blob (*blob NULL, *bytes 0 for kinds without one) and
 * its restoration (CLMC_ERR_INPUT when the kind takes none or refuses it). */
clmc_status clmc_ensemble_save(clmc_ensemble *e, unsigned char **blob, size_t *bytes);
clmc_status clmc_ensemble_restore(clmc_ensemble *e, const unsigned char *blob, size_t bytes);

/* Population annealing (population_annealing.c): opened by clmc_ensemble_create. */
clmc_status clmc_population_open(clmc_ensemble *e, const clmc_ensemble_settings *settings);
/* Population annealing under K MPI ranks (docs/mpi.md): rank r holds the
 * run's members from *first = 256 floor(r C / K) on, C = ceil(target / 256)
 * chunks of 256 (the resampling's sum chunks): the next rank's first minus
 * its own, and the last rank the rest up to `capacity` (nearest_integer's
 * fluctuating population).  *slots: the members its device holds at most.
 * false where a rank would get no chunk (C < K). */
bool clmc_population_share(unsigned target, unsigned capacity, int rank, int ranks, unsigned *first, unsigned *slots);

/* The kinds (ensemble.c, parallel_tempering.c, population_annealing.c). */
extern const clmc_ensemble_kind clmc_ensemble_one_temperature;
extern const clmc_ensemble_kind clmc_ensemble_independent_systems;
extern const clmc_ensemble_kind clmc_ensemble_parallel_tempering;
extern const clmc_ensemble_kind clmc_ensemble_multicanonical; /* save alone: clmc_multicanonical_run */

/* Refusals that need the device (walkers beyond its memory), before any output. */
clmc_status clmc_multicanonical_check(clmc_ensemble *e);
/* ensemble.type "multicanonical" and "wang_landau": the whole run (weight iterations and
 * production) in one call instead of the engine's sweeps; adds
 * density_of_states and observables.temperatures (reweighted) to `root`,
 * and the updates done to *updates.  Before every launch it calls
 * e->between_steps (when set) with the walkers' sweeps done, which may
 * checkpoint (kind->save, e->kind_state pointing at the run meanwhile) and
 * stops the run after a signal.  resume_blob (NULL: a fresh run): the
 * checkpoint's ENSM section to continue from.  Under several MPI ranks
 * (collective) each runs its share of the walkers; failures before the
 * walkers start are agreed among the ranks (*walkers_started false), later ones are
 * this rank's. */
clmc_status clmc_multicanonical_run(clmc_ensemble *e, const clmc_preset *preset, bool quiet, cJSON *root,
                                    double *updates, const unsigned char *resume_blob, size_t resume_bytes,
                                    bool *walkers_started);

extern const clmc_ensemble_kind clmc_ensemble_population_annealing;

#endif
