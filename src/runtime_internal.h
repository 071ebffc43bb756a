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
    cl_uint n_pending;
    double timed_ns;
};

#endif
