/* What multicanonical.c and wang_landau.c share: the walkers on the device
 * (clmc_density_walkers of the model) and their sweeps. */
#ifndef CLMC_DENSITY_WALKERS_H
#define CLMC_DENSITY_WALKERS_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdint.h>

#include "clmc/preset.h"
#include "models/ensemble_hooks.h"
#include "output/state_blob.h"

/* ensemble.type "multicanonical" and "wang_landau" (multicanonical.c, wang_landau.c). */
#define CLMC_DENSITY_MAX_WINDOWS 64

typedef struct clmc_density_settings {
    bool wang_landau;          /* the weights from Wang-Landau, else from W/H iterations */
    unsigned walkers;          /* ensemble.walkers */
    double flatness;           /* ensemble.flatness */
    uint64_t iteration_sweeps; /* ensemble.iteration_sweeps */
    long long max_iterations;  /* ensemble.max_iterations */
    double final_ln_f;         /* ensemble.final_ln_f (Wang-Landau) */
    bool production;           /* ensemble.production (Wang-Landau; always with multicanonical) */
    /* Wang-Landau energy windows: ensemble.windows, ensemble.overlap and
     * ensemble.walkers_per_window, or the explicit ranges
     * ensemble.window_energies (n_window_values values, pairs lo, hi). */
    unsigned windows, walkers_per_window, n_window_values;
    double overlap;
    double window_energies[2 * CLMC_DENSITY_MAX_WINDOWS + 1];
} clmc_density_settings;

#define MAX_BLOCKS 32 /* jackknife blocks of walkers */

typedef struct {
    clmc_runtime *rt;
    const clmc_preset *preset;
    clmc_density_settings settings;
    clmc_density_walkers model;
    unsigned walkers, blocks;
    size_t group; /* walkers per work-group; walker w is in block (w / group) % blocks */
    /* Under K MPI ranks: this rank sweeps work-groups first_group ..
     * first_group + rank_groups - 1 of the run's (all of them with one
     * process); every rank holds every walker's buffers. */
    size_t first_group, rank_groups;
    cl_uint seed_lo, seed_hi, sweep; /* sweep: the next sweep number of every walker */
    unsigned unit;                   /* the model's unit (EA realization) the walkers simulate (muca_start) */
    cl_program program;
    cl_kernel init, sweeps, accept;
    /* With windows: muca_sweeps of the program of one window, for the
     * launches that keep no walker in its window (records 0 and 1). */
    cl_program free_program;
    cl_kernel free_sweeps;
    cl_mem spins, energy, ln_w, histogram;
    cl_mem acceptance; /* muca_acceptance's table from ln_w, read by the sweeps */
    /* Energy windows (Wang-Landau): bins window_lo [k] .. window_hi [k] of
     * window k, window_of [walker] on the device (window_bounds: lo, hi).
     * One window [0, n_bins - 1] otherwise, and in production. */
    unsigned windows, walkers_per_window;
    unsigned window_lo[CLMC_DENSITY_MAX_WINDOWS], window_hi[CLMC_DENSITY_MAX_WINDOWS];
    cl_mem window_of, window_bounds;
    cl_uint *counts; /* BLOCKS x bins, read back */
    double updates;
    /* Checkpoints (docs/checkpoints.md): before every launch of muca_sweep,
     * between (may be NULL) is called with
     * the sweeps done; it may save the state (muca_save) and stops the run
     * after a signal.  A saved state is always inside a muca_sweep call:
     * call_done of its sweeps done, its histograms so far in call_hist. */
    clmc_status (*between)(void *context, uint64_t sweeps_done);
    void *between_context;
    unsigned phase; /* muca_phase */
    uint64_t call_done;
    double *call_hist;
    size_t call_entries;
    /* The phase's own state after the common part (save_phase of phase_state). */
    void (*save_phase)(const void *phase_state, clmc_blob_writer *w);
    const void *phase_state;
    /* Resuming: the blob after the common part, for the phase to read its
     * state from (NULL in a fresh run), and the call to continue. */
    clmc_blob_reader *resume;
    bool resume_call;
    double *resume_hist;
    bool global_histogram; /* the group histograms in global memory whatever the local-memory rule (tests) */
    size_t local_memory;   /* the local memory the rule assumes, bytes (tests; 0: the device's) */
} muca;

enum muca_phase { MUCA_WEIGHTS, MUCA_THERMALIZATION, MUCA_PRODUCTION };

/* The walkers (windows x walkers_per_window with Wang-Landau windows) and
 * the windows' bins from the settings, then the blocks (at most MAX_BLOCKS)
 * and work-group size from the walkers alone, so that the blocks do not
 * depend on the device: groups of up to 64 walkers, at least one group per
 * block.  Refuses windows that do not overlap or do not cover the energies. */
clmc_status muca_layout(muca *m);
/* The run's work-groups shared among the MPI ranks (contiguous, in rank
 * order); refuses more ranks than work-groups, naming the walkers' key. */
clmc_status muca_share(muca *m);
/* Refuses walkers beyond the device's memory (blocks set). */
clmc_status muca_check(const muca *m);
/* Builds the model's program, allocates the buffers and starts the walkers (muca_start of unit 0). */
clmc_status muca_open(muca *m, const clmc_preset *preset);
/* Starts the walkers afresh on the model's unit `unit` (clmc_density_walkers.units):
 * weights 0, every walker in its first window, sweep 0, random starts. */
clmc_status muca_start(muca *m, unsigned unit);
void muca_close(muca *m);
/* Every walker's energy into energy [walker], from the MPI rank that runs it. */
clmc_status muca_read_energies(muca *m, cl_int *energy);
/* CLMC_OK, or the OpenCL error named after `what`. */
clmc_status muca_cl_status(cl_int err, const char *what);
/* `sweeps` sweeps of every walker with the weights on the device; with
 * `record` 1, the histograms of the blocks are added to hist [block][bin],
 * with record 2 those of the windows to hist [window][bin]. */
clmc_status muca_sweep(muca *m, uint64_t sweeps, cl_uint record, double *hist);
/* Puts ln_w [bin] (shifted to a maximum of 0) on the device as the weights
 * of every window, and opens every window to all energies; scratch: windows
 * x n_bins floats. */
clmc_status muca_set_weights(muca *m, const double *ln_w, float *scratch);
/* The weights of window k from ln_w [bin] into scratch [bin]: inside the
 * window shifted to a maximum of 0, outside a ramp down towards it (walkers
 * not yet inside move in). */
void muca_window_weights(const muca *m, unsigned k, const double *ln_w, float *scratch);
/* The acceptance table (muca_acceptance) from the weights now in ln_w:
 * after any write of ln_w (muca_set_all_weights, a checkpoint's restore). */
clmc_status muca_refresh_acceptance(muca *m);
/* Puts values [window][bin] on the device as every window's weights (one
 * write: Oclgrind mis-tracks writes at an offset) and tabulates their
 * acceptance probabilities (muca_acceptance). */
clmc_status muca_set_all_weights(muca *m, const float *values);

/* values [i] of the n bins not seen (seen [i] 0) set to those of the
 * nearest seen bin below (above, below the first seen one): with
 * edges_unknown the weights of energies not yet visited, so that a walker
 * finding one late (a ground state) is not held there by a weight far
 * above its neighbours'; unchanged where nothing is seen. */
void muca_fill_unseen(double *values, const unsigned char *seen, unsigned n);
/* The state of a run for a checkpoint (src/ensembles/density_checkpoint.c):
 * the settings it was started with, the phase, the sweep counters, the call
 * under way with its histograms, the walkers' device buffers, then the
 * phase's own state (save_phase). */
clmc_status muca_save(const muca *m, unsigned char **blob, size_t *bytes);
/* After muca_open: checks the blob's settings against the preset's
 * (CLMC_ERR_INPUT naming the first key that differs), puts the common part
 * back (device buffers included) and leaves *r at the phase's own state. */
clmc_status muca_restore(muca *m, const clmc_preset *preset, clmc_blob_reader *r);
/* Byte arrays in blobs: their length, then a buffer item of that length. */
void muca_put_bytes(clmc_blob_writer *w, const void *bytes, size_t n);
const unsigned char *muca_get_bytes(clmc_blob_reader *r, size_t n, const char *what);

/* ensemble.type "wang_landau" (wang_landau.c): leaves on the device the
 * weights ln W = -ln g of the converged (joined) ln g, which it also puts in
 * ln_g [bin] with seen [bin] = 1 where a walker visited the bin; adds its
 * report to `report`. */
clmc_status wang_landau_weights(muca *m, bool quiet, cJSON *report, double *ln_g, unsigned char *seen);

#endif
