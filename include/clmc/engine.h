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
} clmc_run_options;

/* Runs thermalization + measured sweeps and writes result.json and series.csv
 * into output.dir atomically.  The preset's automatic values are resolved. */
clmc_status clmc_run(clmc_preset *preset, const clmc_run_options *options);

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
 * `repetitions` timed blocks of run.sweeps / repetitions sweeps each). */
void clmc_bench_device(clmc_preset *preset, const clmc_device_info *device, int repetitions,
                       clmc_bench_entry *entry);

#endif
