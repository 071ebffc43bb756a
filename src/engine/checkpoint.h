/* Checkpoints: the full state of a run in one self-checking file
 * (DIR/checkpoint.clmc), its byte format, and saving and restoring it. */
#ifndef CLMC_CHECKPOINT_H
#define CLMC_CHECKPOINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clmc/preset.h"
#include "clmc/runtime.h"
#include "clmc/status.h"
#include "models/model.h"
#include "engine/series.h"
#include "ensembles/tempering.h"

#define CLMC_CHECKPOINT_FORMAT 1
#define CLMC_CHECKPOINT_FILE "checkpoint.clmc"
#define CLMC_CHECKPOINT_PREVIOUS "checkpoint.prev"

/* A decoded checkpoint; every pointer is owned (clmc_checkpoint_free). */
typedef struct clmc_checkpoint {
    char *engine_version, *device_name, *preset_json;
    uint64_t next_sweep; /* sweeps done: the run continues with this index */
    /* Tempering map and statistics (one temperature without tempering). */
    uint32_t n_configs, n_temperatures;
    uint32_t *config_at;           /* [n_configs], each < n_configs */
    int32_t *heading;              /* [n_configs], each -1, 0 or +1 */
    uint64_t *accepted, *attempted; /* [n_temperatures] */
    uint64_t round_trips, exchanges;
    /* Measured series so far. */
    uint64_t n_rows, row_values; /* row_values = configurations x columns */
    uint64_t *sweeps;            /* [n_rows] */
    double *rows;                /* [n_rows][row_values] */
    /* The model's device state (model.h save_state). */
    unsigned char *model_blob;
    uint64_t model_bytes;
    /* An ensemble kind's own state (population annealing between steps;
     * clmc_ensemble_save), the optional last section "ENSM"; NULL: none. */
    unsigned char *ensemble_blob;
    uint64_t ensemble_bytes;
    /* The how-many-th checkpoint of the run (counted on over resumes), the
     * optional last section "GENR" (0 in files without it): under MPI ranks
     * the ranks' checkpoints of one moment share it (docs/checkpoints.md). */
    uint64_t generation;
} clmc_checkpoint;

/* Bytes of the file format (checkpoint_format.c): magic "CLMCCKPT", format
 * version, tagged sections with lengths, a trailing FNV-1a 64 checksum. */
clmc_status clmc_checkpoint_encode(const clmc_checkpoint *c, unsigned char **bytes, size_t *length);
/* Verifies length, magic, format version and checksum before reading
 * anything, then every section; CLMC_ERR_INPUT with the reason otherwise.
 * Nothing is returned on failure (all or nothing). */
clmc_status clmc_checkpoint_decode(const unsigned char *bytes, size_t length, clmc_checkpoint *c);
void clmc_checkpoint_free(clmc_checkpoint *c);

/* Whether and when a run checkpoints (run.checkpoint_every). */
typedef struct clmc_checkpoint_plan {
    uint64_t every_sweeps; /* 0: not by sweeps */
    double every_seconds;  /* 0: not by time */
    double last_written;   /* monotonic seconds */
} clmc_checkpoint_plan;

/* The plan of run.checkpoint_every (clmc_preset_run); refuses models
 * without the save/load callbacks when it is set. */
clmc_status clmc_checkpoint_plan_read(const clmc_preset *preset, const clmc_model_ops *ops,
                                      clmc_checkpoint_plan *plan);

/* Saving is two-phase, so that MPI ranks can agree between the phases
 * (src/engine/engine.c): prepare writes the checkpoint, `generation`, into
 * DIR/.checkpoint.new (temporary file, fsync, rename), beside the current
 * one; commit then keeps the current one as DIR/checkpoint.prev (a hard
 * link: checkpoint.clmc never disappears) and renames the new one to
 * DIR/checkpoint.clmc.  With the ensemble kind's blob when ensemble_bytes > 0. */
clmc_status clmc_checkpoint_prepare(const char *dir, const clmc_preset *preset, const clmc_model_ops *ops,
                                    void *state, const clmc_tempering *pt, const clmc_series *s,
                                    uint64_t next_sweep, uint64_t generation, const clmc_device_info *device,
                                    const unsigned char *ensemble_blob, size_t ensemble_bytes);
clmc_status clmc_checkpoint_commit(const char *dir);
/* Reads and verifies DIR/checkpoint.clmc (a regular file: a FIFO or device
 * is refused without waiting on it). */
clmc_status clmc_checkpoint_read(const char *dir, clmc_checkpoint *c);
/* Under several MPI ranks (collective), each rank in its own DIR: reads
 * checkpoint.clmc and checkpoint.prev, and all ranks agree on the newest
 * generation that every rank holds, which *c receives; a rank whose
 * checkpoint.clmc is newer (committed there, not on every rank: a rank was
 * killed between the phases) puts checkpoint.prev back in its place.
 * *dropped: whether any rank held a newer generation.  CLMC_ERR_INPUT when
 * the ranks hold no generation in common. */
clmc_status clmc_checkpoint_read_agreed(const char *dir, clmc_checkpoint *c, bool *dropped);
/* Checks a checkpoint read from DIR against the run its preset describes,
 * before anything is restored or written (the checksum is no proof of
 * origin): sweeps done within the run, exactly one series row per
 * measurement those sweeps imply and at the sweep it implies, finite
 * values, and a tempering map that permutes each system's configurations.
 * CLMC_ERR_INPUT naming the inconsistency otherwise. */
clmc_status clmc_checkpoint_check(const char *dir, const clmc_checkpoint *c, const clmc_run_settings *run);
/* Puts a decoded checkpoint into a model, tempering state and series
 * freshly created from its preset; checks that the shapes agree. */
clmc_status clmc_checkpoint_restore(const clmc_checkpoint *c, const clmc_model_ops *ops, void *state,
                                    clmc_tempering *pt, clmc_series *s);

/* One run at a time per output directory: an exclusive flock on DIR itself
 * (no file is created; the OS drops it when the process ends), kept while
 * *fd is open.  CLMC_ERR_INPUT when another process holds it. */
clmc_status clmc_output_lock(const char *dir, int *fd);
/* Before a fresh run in DIR (locked): refuses (CLMC_ERR_INPUT) a checkpoint
 * of an earlier run that --resume would continue, unless `overwrite`; then
 * removes every checkpoint file, so that none outlives the new run's start. */
clmc_status clmc_checkpoint_clear(const char *dir, bool overwrite);

#endif
