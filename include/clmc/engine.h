/* The engine API: run a preset on a device, or benchmark its update kernels. */
#ifndef CLMC_ENGINE_H
#define CLMC_ENGINE_H

#include <stdbool.h>

#include "clmc/preset.h"
#include "clmc/runtime.h"
#include "clmc/status.h"

typedef struct clmc_run_options {
    const char *device; /* selector; NULL: $CLMC_DEVICE or the default device */
    bool quiet;         /* no progress on stderr */
    bool overwrite;     /* clmc_run may replace an earlier run's checkpoint in output.dir */
    clmc_launch_options launch;
    double started; /* clmc_runtime_clock() when the command started (its start-up is timed from
                     * there, performance.startup); 0: from clmc_run's call */
} clmc_run_options;

/* Runs thermalization + measured sweeps and writes result.json and series.csv
 * into output.dir atomically.  The preset's automatic values are resolved.
 * One run at a time per output.dir (CLMC_ERR_INPUT while another holds it);
 * a checkpoint of an earlier run there is refused (CLMC_ERR_INPUT) unless
 * options->overwrite, and removed before the run starts. */
clmc_status clmc_run(clmc_preset *preset, const clmc_run_options *options);

/* Continues the run whose checkpoint is DIR/checkpoint.clmc (run.checkpoint_every,
 * SIGINT/SIGTERM/SIGHUP): the preset comes from the checkpoint, results go to DIR.
 * The results equal those of an uninterrupted run bit for bit.  A truncated,
 * corrupted, incompatible or inconsistent checkpoint is refused
 * (CLMC_ERR_INPUT) before anything is written. */
clmc_status clmc_resume(const char *dir, const clmc_run_options *options);

typedef struct clmc_bench_entry {
    clmc_device_info device;
    clmc_status status;      /* CLMC_OK, or why there is no figure */
    char reason[1024];
    int repetitions;
    double sweeps_per_repetition;
    double ns_per_update;    /* median over repetitions */
    double ns_per_update_min, ns_per_update_max;
    double updates_per_second;
    double bytes_per_update;        /* model's estimate of global-memory traffic */
    double achieved_bytes_per_second;
    double copy_bytes_per_second;   /* the device's own measured copy bandwidth */
    size_t n_phases;                /* parts of the update the model named */
    const char *phase_names[CLMC_MAX_PHASES];
    double phase_ns_per_update[CLMC_MAX_PHASES]; /* mean over all timed blocks */
    char *resolved_preset;          /* JSON of the preset as run (automatic values
                                       resolved for this device); free() it */
} clmc_bench_entry;

/* Times the preset's update kernels on one device (warm-up, then
 * `repetitions` timed blocks of run.sweeps / repetitions sweeps each);
 * launch NULL: the defaults. */
void clmc_bench_device(clmc_preset *preset, const clmc_device_info *device, int repetitions,
                       const clmc_launch_options *launch, clmc_bench_entry *entry);

typedef struct clmc_tune_options {
    const char *device; /* selector, as for clmc_run */
    int repetitions;    /* timed blocks per candidate */
    bool quiet;         /* no table on stdout */
    bool profile;       /* every candidate's launches profiled (--profile) */
} clmc_tune_options;

typedef struct clmc_tune_result {
    double default_ns_per_update, tuned_ns_per_update;
    int candidates_tried, candidates_passed;
    char values[512];   /* the stored values, "path=value;..." */
    char file[4096];    /* the tuning cache written */
} clmc_tune_result;

/* Searches the model's tunable keys (model.h) on one device: every
 * combination the preset's checks accept is timed as by clmc bench and then
 * run briefly against the defaults (bit-identical observables and
 * configuration where the keys keep the update order; clean checks and the
 * energy, or every observable where there is none, within 5 standard
 * errors plus 1% otherwise).  The fastest
 * candidate that passes is stored in the tuning cache (src/engine/tuning.h), which
 * later runs on the same device, driver and kernels use. */
clmc_status clmc_tune(const clmc_preset *preset, const clmc_tune_options *options, clmc_tune_result *result);

#endif
