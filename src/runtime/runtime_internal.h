/* Runtime internals shared by runtime.c and program.c. */
#ifndef CLMC_RUNTIME_INTERNAL_H
#define CLMC_RUNTIME_INTERNAL_H

#include "clmc/runtime.h"

/* The update launches of one kernel in one phase (runtime.c: their device
 * time from profiling events on a sample of them). */
struct clmc_timed_kernel {
    cl_kernel kernel;
    int phase;
    unsigned long long launches; /* since the clock's reset */
    unsigned long long sampled;  /* launches after the first with an event, settled */
    double first_ns;             /* the first launch's device time */
    double sampled_ns;           /* the sampled launches' */
};
#define CLMC_TIMED_KERNELS 64

struct clmc_runtime {
    clmc_device_info info;
    cl_platform_id platform;
    cl_device_id device;
    cl_context context;
    cl_command_queue queue;
    cl_event *pending; /* profiling events of launches not yet read */
    struct clmc_pending *pending_info; /* what each pending event times (runtime.c) */
    cl_uint n_pending;
    double timed_ns; /* update launches of no stratum (the table full), each with an event */
    const char *phase_names[CLMC_MAX_PHASES]; /* named parts of the timed kernels */
    double phase_ns[CLMC_MAX_PHASES];         /* the same, by phase */
    int n_phases, current_phase;
    struct clmc_timed_kernel timed[CLMC_TIMED_KERNELS]; /* the update launches' strata */
    int n_timed;
    bool time_every; /* an event on every update launch (clmc_runtime_time_every_launch, --profile) */
    struct clmc_profile *profile; /* clmc_runtime_profile: every launch timed per kernel; NULL when off */
    double program_seconds;       /* host time in clmc_program_build (start-up, issue 19) */
};

#endif
