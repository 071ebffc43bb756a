/* Runtime internals shared by runtime.c and program.c. */
#ifndef CLMC_RUNTIME_INTERNAL_H
#define CLMC_RUNTIME_INTERNAL_H

#include "clmc/runtime.h"

struct clmc_runtime {
    clmc_device_info info;
    cl_platform_id platform;
    cl_device_id device;
    cl_context context;
    cl_command_queue queue;
    cl_event *pending; /* profiling events of timed launches not yet read */
    struct clmc_pending *pending_info; /* what each pending event times (runtime.c) */
    cl_uint n_pending;
    double timed_ns;
    const char *phase_names[CLMC_MAX_PHASES]; /* named parts of the timed kernels */
    double phase_ns[CLMC_MAX_PHASES];
    int n_phases, current_phase;
    struct clmc_profile *profile; /* clmc_runtime_profile: every launch timed per kernel; NULL when off */
    double program_seconds;       /* host time in clmc_program_build (start-up, issue 19) */
};

#endif
