/* OpenCL runtime: device discovery and selection, context and queue, kernel
 * programs with an on-disk cache, and profiled kernel launches. */
#ifndef CLMC_RUNTIME_H
#define CLMC_RUNTIME_H

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clmc/status.h"

/* How kernels are launched, from the command line; neither changes the
 * results beyond what tunable keys that keep the order allow.  Recorded as
 * "options" in result.json and in the clmc-bench document. */
typedef struct clmc_launch_options {
    bool profile;   /* --profile: every launch timed per kernel, a table on stderr */
    bool no_tuning; /* --no-tuning: automatic tunable keys take the model's own
                       defaults, not the tuning cache or the built-in table */
} clmc_launch_options;

typedef struct clmc_device_info {
    int platform_index, device_index;
    char platform[256], platform_vendor[256], platform_version[256];
    char name[256], vendor[256], driver[256], version[256];
    const char *type; /* "GPU", "CPU", "ACCELERATOR", "OTHER" */
    cl_ulong global_mem_bytes, local_mem_bytes, max_alloc_bytes;
    bool local_mem_dedicated; /* CL_DEVICE_LOCAL_MEM_TYPE is CL_LOCAL (GPUs), not emulated in global memory (CPUs) */
    size_t max_work_group_size;
    cl_uint compute_units;
} clmc_device_info;

/* All devices of all platforms; caller frees *devices with free(). */
clmc_status clmc_device_list(clmc_device_info **devices, size_t *count);

/* Resolves a selector (docs/interface.md: "P:D" or a case-insensitive substring of
 * platform, vendor, device name or type).  NULL: $CLMC_DEVICE, else the first
 * GPU, else the first CPU.  An unmatched selector is CLMC_ERR_INPUT. */
clmc_status clmc_device_select(const char *selector, clmc_device_info *chosen);
bool clmc_device_matches(const clmc_device_info *info, const char *selector);

typedef struct clmc_runtime clmc_runtime;

clmc_status clmc_runtime_open(const char *selector, clmc_runtime **rt);
clmc_status clmc_runtime_open_device(const clmc_device_info *device, clmc_runtime **rt);
void clmc_runtime_close(clmc_runtime *rt);
/* From now on every launch is timed per kernel (and every program build),
 * printed as a table on stderr when the runtime closes (clmc --profile). */
clmc_status clmc_runtime_profile(clmc_runtime *rt);
/* Whether clmc_runtime_profile is on; seconds on a monotonic clock (program
 * build times and population annealing's wall time under --profile). */
bool clmc_runtime_profiling(const clmc_runtime *rt);
/* Host seconds spent building or loading programs (clmc_program_build) so far. */
double clmc_runtime_program_seconds(const clmc_runtime *rt);
/* Adds `sweeps` to the sweeps the profile divides launches and idle time by
 * (the engine's sweep loop; nothing when profiling is off). */
void clmc_runtime_profile_sweeps(clmc_runtime *rt, uint64_t sweeps);
/* Under profiling, the device time so far between consecutive update
 * launches (CLMC_TIMED) with other launches between them, in ns: the work
 * between the sweeps of an ensemble's steps and the device's idle time
 * around it, from the launches' own events (no markers in the queue); the
 * launches enqueued so far are waited for.  0 when profiling is off. */
clmc_status clmc_runtime_profile_between(clmc_runtime *rt, double *ns);
double clmc_runtime_clock(void);

const clmc_device_info *clmc_runtime_device(const clmc_runtime *rt);
cl_context clmc_runtime_context(const clmc_runtime *rt);
cl_command_queue clmc_runtime_queue(const clmc_runtime *rt);

/* Loads cl/FILE (includes expanded), builds it with `options`, using the
 * program cache unless $CLMC_NO_CACHE is set.  Build failures return
 * CLMC_ERR_DEVICE with the compiler log in the message. */
clmc_status clmc_program_build(clmc_runtime *rt, const char *file, const char *options,
                               cl_program *program);
clmc_status clmc_kernel_create(cl_program program, const char *name, cl_kernel *kernel);
/* Sets the kernel's last argument, `uint first_system`: the run-wide index of its
 * configuration 0 (ensemble.first_system, cl/common/philox.h).  An argument, not
 * a define, so that every first_system shares one program build. */
clmc_status clmc_kernel_set_first_system(cl_kernel kernel, cl_uint first_system);
/* FNV-1a hash of every kernel source (.cl files in cl/, .h files in cl/common/): what tuned
 * parameters are valid for. */
clmc_status clmc_kernel_sources_hash(uint64_t *hash);

/* Enqueues a kernel with a profiling event.  Timed launches add their device
 * time to the runtime's update-kernel clock (read with clmc_runtime_finish). */
typedef enum { CLMC_UNTIMED = 0, CLMC_TIMED = 1 } clmc_timing;
clmc_status clmc_enqueue(clmc_runtime *rt, cl_kernel kernel, cl_uint dims, const size_t *global,
                         const size_t *local, clmc_timing timing);
/* The same with a global work offset (get_global_id counts from it; NULL:
 * none): a share of a launch's work-items, e.g. one MPI rank's walkers. */
clmc_status clmc_enqueue_offset(clmc_runtime *rt, cl_kernel kernel, cl_uint dims, const size_t *offset,
                                const size_t *global, const size_t *local, clmc_timing timing);

/* The largest work-group `kernel` can be launched with on the device. */
clmc_status clmc_kernel_group_limit(const clmc_runtime *rt, cl_kernel kernel, size_t *limit);
/* The local memory a built kernel needs on the runtime's device (CL_KERNEL_LOCAL_MEM_SIZE). */
clmc_status clmc_kernel_local_bytes(const clmc_runtime *rt, cl_kernel kernel, cl_ulong *bytes);
/* `items` work-items of a kernel that ignores the ones past `items`: the
 * global size is rounded up to whole work-groups of up to 256 (the kernel's
 * and the device's limits), so odd sizes do not leave the driver to pick
 * tiny work-groups that divide them. */
clmc_status clmc_enqueue_items(clmc_runtime *rt, cl_kernel kernel, size_t items, clmc_timing timing);
/* `count` copies of the unit of `unit_bytes` bytes at host[0] written into
 * `buffer` from its start, without waiting and without work per copy on the
 * host: the first min(count, 1024) units from host (copied there from the
 * first; host has room for that many) and device copies doubling them (not a
 * fill: Oclgrind 21.10 leaves filled memory marked uninitialised).  host stays
 * unchanged until the queue has passed the write (as for any non-blocking
 * write). */
clmc_status clmc_write_repeated(clmc_runtime *rt, cl_mem buffer, void *host, size_t unit_bytes, size_t count);
/* Host memory the device reads and writes at full speed (pinned): a buffer
 * made with CL_MEM_ALLOC_HOST_PTR, mapped for as long as it lives; host is
 * for transfers to and from other buffers (and any host use). */
typedef struct {
    cl_mem buffer;
    void *host;
    size_t bytes;
} clmc_pinned;
/* At least `bytes` of it; what it held is not kept where it grows (no
 * transfer from or to it may be pending then). */
clmc_status clmc_pinned_reserve(clmc_runtime *rt, clmc_pinned *pinned, size_t bytes);
void clmc_pinned_release(clmc_runtime *rt, clmc_pinned *pinned);
/* The first `bytes` of a device buffer in a fresh host array (blocking read;
 * the caller frees *copy). */
clmc_status clmc_buffer_download(clmc_runtime *rt, cl_mem buffer, size_t bytes, unsigned char **copy);
/* A read-write device buffer of `bytes` bytes, filled from `initial` unless
 * NULL; `what` names it in the error. */
clmc_status clmc_buffer_create(clmc_runtime *rt, size_t bytes, const void *initial, const char *what, cl_mem *out);
/* Waits for all work; returns the device seconds of the timed (update)
 * launches since the clock's reset: from profiling events on each kernel's
 * first launch in each phase and on every 32nd after it, the others counted
 * at the sampled ones' mean, or on every launch after
 * clmc_runtime_time_every_launch(rt, true) and under --profile. */
clmc_status clmc_runtime_finish(clmc_runtime *rt, double *timed_seconds);
/* Settles the launches so far and starts the clock again. */
void clmc_runtime_reset_clock(clmc_runtime *rt);
/* Every update launch timed (benchmarks) or, with false, a sample of them
 * (always every one under --profile). */
void clmc_runtime_time_every_launch(clmc_runtime *rt, bool every);
/* Update launches since the clock's reset, and how many of them have their
 * device time measured (after clmc_runtime_finish). */
void clmc_runtime_update_launches(const clmc_runtime *rt, double *launches, double *timed);

/* Phases: timed launches after clmc_runtime_set_phase(rt, name) are also
 * counted under `name` (a string that outlives the runtime, e.g. a literal;
 * NULL stops the attribution), so a model can break its sweep time into
 * parts.  clmc_runtime_phases fills up to `max` names and device seconds
 * (after clmc_runtime_finish) and returns how many phases there are. */
#define CLMC_MAX_PHASES 8
void clmc_runtime_set_phase(clmc_runtime *rt, const char *name);
size_t clmc_runtime_phases(const clmc_runtime *rt, const char **names, double *seconds, size_t max);

/* Measures device-to-device copy bandwidth in bytes/s (read + write counted). */
clmc_status clmc_measure_copy_bandwidth(clmc_runtime *rt, double *bytes_per_second);

const char *clmc_cl_error_name(cl_int code);

/* The OpenCL error idiom: name the failing call and the error. */
#define CLMC_CL_TRY(call)                                                      \
    do {                                                                       \
        cl_int clmc_cl_err_ = (call);                                          \
        if (clmc_cl_err_ != CL_SUCCESS)                                        \
            return clmc_fail(CLMC_ERR_DEVICE, "%s failed: %s", #call,          \
                             clmc_cl_error_name(clmc_cl_err_));                \
    } while (0)
#define CLMC_CL_CHECK(err, what)                                               \
    do {                                                                       \
        if ((err) != CL_SUCCESS)                                               \
            return clmc_fail(CLMC_ERR_DEVICE, "%s failed: %s", (what),         \
                             clmc_cl_error_name(err));                         \
    } while (0)
/* Warn-only twin for clean-up paths. */
void clmc_cl_warn(cl_int err, const char *what);
#define CLMC_CL_WARN(call) clmc_cl_warn((call), #call)

#endif
