/* A run spread over MPI ranks (docs/mpi.md): each rank runs a contiguous
 * share of an independent ensemble's copies on its own device, checkpoints in
 * its own folder OUT/rank-R, and rank 0 writes the one result, equal to the
 * single-process run's. */
#ifndef CLMC_DISTRIBUTE_H
#define CLMC_DISTRIBUTE_H

#include <cjson/cJSON.h>

#include "clmc/preset.h"
#include "clmc/runtime.h"
#include "engine/series.h"
#include "ensembles/tempering.h"

#define CLMC_RANKS_FILE "ranks.json"

/* This rank's preset: ensemble.copies = its share, ensemble.first_system
 * moved to the share's first system, output.dir = OUT/rank-R.  Refuses
 * (CLMC_ERR_INPUT) what cannot be spread: fewer copies than ranks.  One
 * system (not "independent"): the whole preset with output.dir = OUT/rank-R,
 * where the model cuts its lattice (clmc_model_ops.domain; refused naming
 * the key where it cannot).  Population annealing: the whole preset with
 * output.dir = OUT/rank-R and the rank's share of the members (refused
 * naming ensemble.population with fewer chunks of 256 members than ranks). */
clmc_status clmc_rank_preset(const clmc_preset *global, clmc_preset **local);
/* Population annealing: sets `local`'s share of the members (this rank's
 * slots and first member) from the run's preset; the share was
 * checked by clmc_rank_preset.  The resumed run's preset needs it again. */
void clmc_rank_population_share(const clmc_preset *global, clmc_preset *local);
/* Whether this run under several ranks decomposes one system's lattice. */
bool clmc_rank_domain(const clmc_preset *global);
/* Whether this run under several ranks is parallel tempering of one system
 * whose temperatures the ranks share (docs/mpi.md): rank r's model holds the
 * configurations [first, first + count) (clmc_rank_temperature_share) of
 * the run's len(ensemble.betas), as independent systems from first_system +
 * first on; the ensemble stays the run's on every rank. */
bool clmc_rank_temperatures(const clmc_preset *global);
void clmc_rank_temperature_share(const clmc_preset *global, unsigned *first, unsigned *count);
#define CLMC_RANK_MAX_TEMPERATURES 4096

/* This rank's device: entry `rank` of a comma-separated selector list (one
 * per rank), else device local_rank mod n among those matching the selector
 * (default: the default device's platform and type). */
clmc_status clmc_rank_device(const char *selector, clmc_device_info *device);

/* Rank 0 records the rank count and the run's preset in OUT/ranks.json, so
 * that `mpirun -np K clmc run --resume OUT` finds both; the reader refuses a
 * different K. */
clmc_status clmc_ranks_record(const char *dir, const clmc_preset *global);
clmc_status clmc_ranks_recorded_preset(const char *dir, clmc_preset **global);
/* One process resuming DIR: refused (CLMC_ERR_INPUT) where DIR's run ran
 * under several ranks. */
clmc_status clmc_ranks_unrecorded(const char *dir);

/* Rank 0: `global` holds every rank's rows, systems in rank order (the
 * single-process layout); other ranks: `global` stays empty.  Collective. */
clmc_status clmc_series_gather(const clmc_series *local, clmc_series *global);

/* The result's preset: rank 0's resolved tree with the run-wide copies,
 * first_system and output.dir of `global` (caller deletes). */
cJSON *clmc_rank_result_preset(const clmc_preset *local, const clmc_preset *global);

/* *data (malloc'd, *bytes long) replaced by the last rank's on every rank,
 * *item likewise (population annealing's runs over the ranks: the checks
 * and picture of the run-wide last run).  Collective; NULL: this rank has
 * none (a failure); fails where the last rank has none. */
clmc_status clmc_rank_last_bytes(unsigned char **data, size_t *bytes);
clmc_status clmc_rank_last_json(cJSON **item);

/* Every rank's device as JSON, in rank order, on rank 0 (NULL elsewhere).
 * Collective. */
cJSON *clmc_rank_devices_json(const clmc_device_info *mine);

/* Parallel tempering spread over the ranks (realizations): rank 0's `global`
 * map gets the exchange counts summed over the ranks and every rank's
 * config_at in rank order, in the run's numbering (arrays in *config_at and
 * *counts, which the caller frees).  Nothing where `local` does not temper.
 * Collective. */
clmc_status clmc_tempering_gather(const clmc_tempering *local, clmc_tempering *global, unsigned **config_at,
                                  uint64_t **counts);

#endif
