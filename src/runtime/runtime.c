/* Device discovery, selection, context/queue set-up and profiled launches. */
#include "clmc/runtime.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runtime/runtime_internal.h"

#define MAX_PENDING_EVENTS 512
#define PROFILE_KERNELS 64
#define UNTIMED_PHASE (-2) /* pending only for the profile, not in timed_ns */
/* Launches get profiling events by a sample, one in SAMPLE_EVERY, the
 * others counted at the sampled ones' mean (record
 * benchmarks/results/2026-11-28-nvidia-h200-session22.txt, H200):
 *  - under --profile, an untimed launch where it is its kernel's first or
 *    every SAMPLE_EVERY-th launch: an event on each small launch cost about
 *    3 us of device time, and an EA population anneal's two small launches a
 *    step read 5.5 % of the wall time outside the sweeps with them, 4.1 %
 *    without;
 *  - outside --profile and bench, the update launches (timed_ns,
 *    performance.seconds): each kernel's first launch in each phase and
 *    every SAMPLE_EVERY-th after it; an event on every one made launch-bound
 *    runs twice as slow (hard disks N = 4096, one system: 71-76 against
 *    29-36 us a sweep). */
#define SAMPLE_EVERY 32

/* A pending launch with its event (clmc_runtime's pending_info). */
struct clmc_pending {
    int phase;        /* phase index, -1: none; UNTIMED_PHASE: an untimed launch, pending for the profile */
    int profile;      /* profile entry, -1: none */
    int stratum;      /* an update launch's entry of clmc_runtime's timed, -1: none (timed exactly) */
    bool first;       /* the stratum's first launch */
    bool after_other; /* an update launch's: another launch was enqueued since the previous update launch */
    bool after_event; /* the launch enqueued just before it has an event too (the idle time before it is known) */
};

/* clmc_runtime_profile (clmc --profile, a benchmarking aid): every update
 * launch, and each untimed kernel's first and every SAMPLE_EVERY-th launch,
 * gets a profiling event; its device time, and the device's idle time since
 * the previous launch ended where that launch has an event too (copies and
 * fills in between count as idle; not before a kernel's first launch, which
 * waits on start-up), are added to its kernel's row, printed to stderr when
 * the runtime closes with the times of the launches without events taken as
 * their kernel's mean; timed_ns still counts only the timed launches. */
struct clmc_profile {
    cl_kernel kernel[PROFILE_KERNELS];
    char name[PROFILE_KERNELS][64];
    unsigned long long launches[PROFILE_KERNELS]; /* all, counted as they are enqueued */
    unsigned long long sampled[PROFILE_KERNELS];  /* those with events, settled */
    double ns[PROFILE_KERNELS];                   /* device time of the sampled launches */
    unsigned long long gaps[PROFILE_KERNELS];     /* sampled launches after one with an event, but the first */
    double gap_ns[PROFILE_KERNELS];               /* idle device time before them */
    cl_ulong last_end;
    bool last_event; /* the last launch enqueued has an event */
    int n;
    unsigned long long timed_launches; /* update launches (CLMC_TIMED) */
    uint64_t sweeps;                   /* clmc_runtime_profile_sweeps */
    /* clmc_runtime_profile_between: the last update launch's end, whether
     * another launch was enqueued since the last update launch, and the sum
     * of the stretches between update launches with other launches between
     * (measured whether those have events or not) */
    cl_ulong last_timed_end;
    bool other_enqueued;
    double between_ns;
    double opened;
};

/* A kernel's device time and idle time before its launches in all, the
 * launches without events counted at the sampled ones' means. */
static double profile_ns(const struct clmc_profile *p, int i)
{
    return p->sampled[i] ? p->ns[i] * (double)p->launches[i] / (double)p->sampled[i] : 0.0;
}

static double profile_gap_ns(const struct clmc_profile *p, int i)
{
    return p->gaps[i] && p->launches[i] > 1 ? p->gap_ns[i] * (double)(p->launches[i] - 1) / (double)p->gaps[i] : 0.0;
}

double clmc_runtime_clock(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

bool clmc_runtime_profiling(const clmc_runtime *rt) { return rt->profile != NULL; }

double clmc_runtime_program_seconds(const clmc_runtime *rt) { return rt->program_seconds; }

void clmc_runtime_profile_sweeps(clmc_runtime *rt, uint64_t sweeps)
{
    if (rt->profile) rt->profile->sweeps += sweeps;
}

/* The runtime keys its rows (profile entries, timed strata) on kernel
 * handles and retains each kernel it keys on until it closes: a kernel a
 * model released could otherwise hand its handle to a later one, whose
 * launches would go into the first one's row (seen: ea_member_totals counted
 * as ea_couplings under Oclgrind).  false where it cannot. */
static bool keep_kernel(cl_kernel kernel)
{
    cl_int err = clRetainKernel(kernel);
    clmc_cl_warn(err, "clRetainKernel");
    return err == CL_SUCCESS;
}

static int profile_entry(clmc_runtime *rt, cl_kernel kernel)
{
    struct clmc_profile *p = rt->profile;
    for (int i = 0; i < p->n; i++)
        if (p->kernel[i] == kernel) return i;
    if (p->n == PROFILE_KERNELS || !keep_kernel(kernel)) return -1;
    int i = p->n++;
    p->kernel[i] = kernel;
    if (clGetKernelInfo(kernel, CL_KERNEL_FUNCTION_NAME, sizeof p->name[i], p->name[i], NULL) != CL_SUCCESS)
        snprintf(p->name[i], sizeof p->name[i], "?");
    return i;
}

static void profile_print(const clmc_runtime *rt)
{
    const struct clmc_profile *p = rt->profile;
    double total = 0;
    for (int i = 0; i < p->n; i++) total += profile_ns(p, i);
    fprintf(stderr, "clmc profile: %s, runtime open %.3f s, kernels %.6f s in all\n", rt->info.name,
            clmc_runtime_clock() - p->opened, total * 1e-9);
    for (int i = 0; i < p->n; i++) {
        char sampled[64] = "";
        if (p->sampled[i] < p->launches[i])
            snprintf(sampled, sizeof sampled, " (timed %llu)", p->sampled[i]);
        fprintf(stderr, "clmc profile:   %-32s %10llu launches %12.6f s %10.2f us each %6.2f%%, idle before %.2f us "
                "each%s\n", p->name[i], p->launches[i], profile_ns(p, i) * 1e-9,
                p->sampled[i] ? p->ns[i] * 1e-3 / (double)p->sampled[i] : 0.0,
                total > 0 ? 100 * profile_ns(p, i) / total : 0.0,
                p->gaps[i] ? p->gap_ns[i] * 1e-3 / (double)p->gaps[i] : 0.0, sampled);
    }
    if (!p->sweeps) return;
    /* Per sweep of the run loop (issue 19): launches, and the device's idle time between launches. */
    unsigned long long launches = 0;
    double idle = 0;
    for (int i = 0; i < p->n; i++) {
        launches += p->launches[i];
        idle += profile_gap_ns(p, i);
    }
    double sweeps = (double)p->sweeps;
    fprintf(stderr, "clmc profile: %llu sweeps: %.4f launches per sweep (%.4f update launches), device idle %.6f s "
            "between launches, %.3f us per sweep\n", (unsigned long long)p->sweeps, (double)launches / sweeps,
            (double)p->timed_launches / sweeps, idle * 1e-9, idle * 1e-3 / sweeps);
}

const char *clmc_cl_error_name(cl_int code)
{
    switch (code) {
#define NAME(c) case c: return #c;
    NAME(CL_SUCCESS) NAME(CL_DEVICE_NOT_FOUND) NAME(CL_DEVICE_NOT_AVAILABLE)
    NAME(CL_COMPILER_NOT_AVAILABLE) NAME(CL_MEM_OBJECT_ALLOCATION_FAILURE)
    NAME(CL_OUT_OF_RESOURCES) NAME(CL_OUT_OF_HOST_MEMORY)
    NAME(CL_PROFILING_INFO_NOT_AVAILABLE) NAME(CL_MEM_COPY_OVERLAP)
    NAME(CL_IMAGE_FORMAT_MISMATCH) NAME(CL_IMAGE_FORMAT_NOT_SUPPORTED)
    NAME(CL_BUILD_PROGRAM_FAILURE) NAME(CL_MAP_FAILURE)
    NAME(CL_MISALIGNED_SUB_BUFFER_OFFSET) NAME(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    NAME(CL_COMPILE_PROGRAM_FAILURE) NAME(CL_LINKER_NOT_AVAILABLE) NAME(CL_LINK_PROGRAM_FAILURE)
    NAME(CL_DEVICE_PARTITION_FAILED) NAME(CL_KERNEL_ARG_INFO_NOT_AVAILABLE)
    NAME(CL_INVALID_VALUE) NAME(CL_INVALID_DEVICE_TYPE) NAME(CL_INVALID_PLATFORM)
    NAME(CL_INVALID_DEVICE) NAME(CL_INVALID_CONTEXT) NAME(CL_INVALID_QUEUE_PROPERTIES)
    NAME(CL_INVALID_COMMAND_QUEUE) NAME(CL_INVALID_HOST_PTR) NAME(CL_INVALID_MEM_OBJECT)
    NAME(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR) NAME(CL_INVALID_IMAGE_SIZE)
    NAME(CL_INVALID_SAMPLER) NAME(CL_INVALID_BINARY) NAME(CL_INVALID_BUILD_OPTIONS)
    NAME(CL_INVALID_PROGRAM) NAME(CL_INVALID_PROGRAM_EXECUTABLE)
    NAME(CL_INVALID_KERNEL_NAME) NAME(CL_INVALID_KERNEL_DEFINITION) NAME(CL_INVALID_KERNEL)
    NAME(CL_INVALID_ARG_INDEX) NAME(CL_INVALID_ARG_VALUE) NAME(CL_INVALID_ARG_SIZE)
    NAME(CL_INVALID_KERNEL_ARGS) NAME(CL_INVALID_WORK_DIMENSION)
    NAME(CL_INVALID_WORK_GROUP_SIZE) NAME(CL_INVALID_WORK_ITEM_SIZE)
    NAME(CL_INVALID_GLOBAL_OFFSET) NAME(CL_INVALID_EVENT_WAIT_LIST) NAME(CL_INVALID_EVENT)
    NAME(CL_INVALID_OPERATION) NAME(CL_INVALID_GL_OBJECT) NAME(CL_INVALID_BUFFER_SIZE)
    NAME(CL_INVALID_MIP_LEVEL) NAME(CL_INVALID_GLOBAL_WORK_SIZE) NAME(CL_INVALID_PROPERTY)
    NAME(CL_INVALID_IMAGE_DESCRIPTOR) NAME(CL_INVALID_COMPILER_OPTIONS)
    NAME(CL_INVALID_LINKER_OPTIONS) NAME(CL_INVALID_DEVICE_PARTITION_COUNT)
#undef NAME
    case -1001: return "CL_PLATFORM_NOT_FOUND_KHR (no OpenCL platform installed)";
    default: return "unknown OpenCL error";
    }
}

void clmc_cl_warn(cl_int err, const char *what)
{
    if (err != CL_SUCCESS)
        fprintf(stderr, "clmc: warning: %s failed: %s\n", what, clmc_cl_error_name(err));
}

static const char *device_type_name(cl_device_type type)
{
    if (type & CL_DEVICE_TYPE_GPU) return "GPU";
    if (type & CL_DEVICE_TYPE_CPU) return "CPU";
    if (type & CL_DEVICE_TYPE_ACCELERATOR) return "ACCELERATOR";
    return "OTHER";
}

static void fill_device_info(cl_platform_id platform, cl_device_id device, clmc_device_info *info)
{
    cl_device_type type = 0;
    clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof info->platform, info->platform, NULL);
    clGetPlatformInfo(platform, CL_PLATFORM_VENDOR, sizeof info->platform_vendor,
                      info->platform_vendor, NULL);
    clGetPlatformInfo(platform, CL_PLATFORM_VERSION, sizeof info->platform_version,
                      info->platform_version, NULL);
    clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof info->name, info->name, NULL);
    clGetDeviceInfo(device, CL_DEVICE_VENDOR, sizeof info->vendor, info->vendor, NULL);
    clGetDeviceInfo(device, CL_DRIVER_VERSION, sizeof info->driver, info->driver, NULL);
    clGetDeviceInfo(device, CL_DEVICE_VERSION, sizeof info->version, info->version, NULL);
    clGetDeviceInfo(device, CL_DEVICE_TYPE, sizeof type, &type, NULL);
    clGetDeviceInfo(device, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof(cl_ulong), &info->global_mem_bytes, NULL);
    clGetDeviceInfo(device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof(cl_ulong), &info->local_mem_bytes, NULL);
    cl_device_local_mem_type local_type = CL_GLOBAL;
    clGetDeviceInfo(device, CL_DEVICE_LOCAL_MEM_TYPE, sizeof local_type, &local_type, NULL);
    info->local_mem_dedicated = local_type == CL_LOCAL;
    clGetDeviceInfo(device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof(cl_ulong), &info->max_alloc_bytes, NULL);
    clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof(size_t), &info->max_work_group_size, NULL);
    clGetDeviceInfo(device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof(cl_uint), &info->compute_units, NULL);
    info->type = device_type_name(type);
}

/* Calls visit(platform, device, info) for every device; stops early when it
 * returns true. */
typedef bool (*device_visitor)(cl_platform_id, cl_device_id, const clmc_device_info *, void *);

static clmc_status for_each_device(device_visitor visit, void *context)
{
    cl_uint n_platforms = 0;
    cl_int err = clGetPlatformIDs(0, NULL, &n_platforms);
    if (err == -1001 || n_platforms == 0)
        return clmc_fail(CLMC_ERR_DEVICE, "no OpenCL platform found (clGetPlatformIDs: %s); "
                         "install an OpenCL driver, e.g. pocl-opencl-icd", clmc_cl_error_name(err));
    CLMC_CL_CHECK(err, "clGetPlatformIDs");
    cl_platform_id platforms[64];
    if (n_platforms > 64) n_platforms = 64;
    CLMC_CL_TRY(clGetPlatformIDs(n_platforms, platforms, NULL));
    for (cl_uint p = 0; p < n_platforms; p++) {
        cl_uint n_devices = 0;
        if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 0, NULL, &n_devices) != CL_SUCCESS)
            continue;
        cl_device_id devices[64];
        if (n_devices > 64) n_devices = 64;
        CLMC_CL_TRY(clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, n_devices, devices, NULL));
        for (cl_uint d = 0; d < n_devices; d++) {
            clmc_device_info info = {.platform_index = (int)p, .device_index = (int)d};
            fill_device_info(platforms[p], devices[d], &info);
            if (visit(platforms[p], devices[d], &info, context)) return CLMC_OK;
        }
    }
    return CLMC_OK;
}

typedef struct { clmc_device_info *items; size_t count; } device_array;

static bool append_device(cl_platform_id p, cl_device_id d, const clmc_device_info *info, void *ctx)
{
    (void)p; (void)d;
    device_array *array = ctx;
    clmc_device_info *grown = realloc(array->items, (array->count + 1) * sizeof *grown);
    if (!grown) return true;
    array->items = grown;
    array->items[array->count++] = *info;
    return false;
}

clmc_status clmc_device_list(clmc_device_info **devices, size_t *count)
{
    device_array array = {0};
    clmc_status status = for_each_device(append_device, &array);
    if (status != CLMC_OK) {
        free(array.items);
        return status;
    }
    *devices = array.items;
    *count = array.count;
    return CLMC_OK;
}

static bool contains_ignoring_case(const char *haystack, const char *needle)
{
    size_t n = strlen(needle), h = strlen(haystack);
    for (size_t i = 0; n <= h && i <= h - n; i++) {
        size_t k = 0;
        while (k < n && tolower((unsigned char)haystack[i + k]) == tolower((unsigned char)needle[k]))
            k++;
        if (k == n) return true;
    }
    return false;
}

static bool parse_index_selector(const char *selector, int *platform, int *device)
{
    char tail;
    return sscanf(selector, "%d:%d%c", platform, device, &tail) == 2;
}

bool clmc_device_matches(const clmc_device_info *info, const char *selector)
{
    int p, d;
    if (parse_index_selector(selector, &p, &d))
        return p == info->platform_index && d == info->device_index;
    return contains_ignoring_case(info->platform, selector) ||
           contains_ignoring_case(info->platform_vendor, selector) ||
           contains_ignoring_case(info->vendor, selector) ||
           contains_ignoring_case(info->name, selector) ||
           contains_ignoring_case(info->type, selector);
}

static const clmc_device_info *default_device(const clmc_device_info *all, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(all[i].type, "GPU") == 0) return &all[i];
    for (size_t i = 0; i < n; i++)
        if (strcmp(all[i].type, "CPU") == 0) return &all[i];
    return n ? &all[0] : NULL;
}

clmc_status clmc_device_select(const char *selector, clmc_device_info *chosen)
{
    if (!selector || !*selector) selector = getenv("CLMC_DEVICE");
    clmc_device_info *all = NULL;
    size_t n = 0;
    CLMC_TRY(clmc_device_list(&all, &n));
    const clmc_device_info *match = NULL;
    if (selector && *selector) {
        for (size_t i = 0; i < n && !match; i++)
            if (clmc_device_matches(&all[i], selector)) match = &all[i];
    } else {
        match = default_device(all, n);
    }
    if (match) *chosen = *match;
    free(all);
    if (!match && selector && *selector)
        return clmc_fail(CLMC_ERR_INPUT, "no OpenCL device matches '%s' (see 'clmc devices')",
                         selector);
    if (!match) return clmc_fail(CLMC_ERR_DEVICE, "no OpenCL device found");
    return CLMC_OK;
}

typedef struct { const clmc_device_info *want; cl_platform_id platform; cl_device_id device; bool found; } id_lookup;

static bool find_ids(cl_platform_id p, cl_device_id d, const clmc_device_info *info, void *ctx)
{
    id_lookup *lookup = ctx;
    if (info->platform_index != lookup->want->platform_index ||
        info->device_index != lookup->want->device_index)
        return false;
    lookup->platform = p;
    lookup->device = d;
    lookup->found = true;
    return true;
}

clmc_status clmc_runtime_open_device(const clmc_device_info *device, clmc_runtime **out)
{
    id_lookup lookup = {.want = device};
    CLMC_TRY(for_each_device(find_ids, &lookup));
    if (!lookup.found) return clmc_fail(CLMC_ERR_DEVICE, "device %d:%d disappeared",
                                        device->platform_index, device->device_index);
    clmc_runtime *rt = calloc(1, sizeof *rt);
    if (!rt) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    rt->info = *device;
    rt->platform = lookup.platform;
    rt->device = lookup.device;
    cl_int err;
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)rt->platform, 0};
    rt->context = clCreateContext(props, 1, &rt->device, NULL, NULL, &err);
    if (err != CL_SUCCESS) {
        free(rt);
        return clmc_fail(CLMC_ERR_DEVICE, "clCreateContext failed: %s", clmc_cl_error_name(err));
    }
    rt->queue = clCreateCommandQueue(rt->context, rt->device, CL_QUEUE_PROFILING_ENABLE, &err);
    if (err != CL_SUCCESS) {
        clReleaseContext(rt->context);
        free(rt);
        return clmc_fail(CLMC_ERR_DEVICE, "clCreateCommandQueue failed: %s", clmc_cl_error_name(err));
    }
    rt->pending = calloc(MAX_PENDING_EVENTS, sizeof *rt->pending);
    rt->pending_info = calloc(MAX_PENDING_EVENTS, sizeof *rt->pending_info);
    rt->current_phase = -1;
    *out = rt;
    bool allocated = rt->pending && rt->pending_info;
    return allocated ? CLMC_OK : clmc_fail(CLMC_ERR_OTHER, "out of host memory");
}

clmc_status clmc_runtime_profile(clmc_runtime *rt)
{
    if (rt->profile) return CLMC_OK;
    rt->profile = calloc(1, sizeof *rt->profile);
    if (!rt->profile) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    rt->profile->opened = clmc_runtime_clock();
    rt->time_every = true; /* every update launch: the stretches between them (clmc_runtime_profile_between) */
    return CLMC_OK;
}

clmc_status clmc_runtime_open(const char *selector, clmc_runtime **rt)
{
    clmc_device_info device;
    CLMC_TRY(clmc_device_select(selector, &device));
    return clmc_runtime_open_device(&device, rt);
}

/* Waits for the oldest `count` pending events, adds their device times where
 * they belong and releases them (the newer ones move up); the first OpenCL
 * error, if any. */
static cl_int settle_oldest(clmc_runtime *rt, cl_uint count)
{
    if (count == 0) return CL_SUCCESS;
    cl_int first = clWaitForEvents(count, rt->pending);
    for (cl_uint i = 0; i < count; i++) {
        cl_ulong start = 0, end = 0;
        cl_int err = clGetEventProfilingInfo(rt->pending[i], CL_PROFILING_COMMAND_START, sizeof start, &start, NULL);
        if (err == CL_SUCCESS)
            err = clGetEventProfilingInfo(rt->pending[i], CL_PROFILING_COMMAND_END, sizeof end, &end, NULL);
        const struct clmc_pending *info = &rt->pending_info[i];
        if (err == CL_SUCCESS && first == CL_SUCCESS) {
            double ns = (double)(end - start);
            if (info->stratum >= 0) {
                struct clmc_timed_kernel *t = &rt->timed[info->stratum];
                if (info->first) t->first_ns += ns;
                else t->sampled_ns += ns, t->sampled++;
            } else if (info->phase != UNTIMED_PHASE) {
                rt->timed_ns += ns;
                if (info->phase >= 0) rt->phase_ns[info->phase] += ns;
            }
            if (info->profile >= 0) {
                struct clmc_profile *p = rt->profile;
                int k = info->profile;
                p->ns[k] += ns;
                p->timed_launches += info->phase != UNTIMED_PHASE;
                if (p->sampled[k]++ && info->after_event) {
                    p->gaps[k]++;
                    if (start > p->last_end) p->gap_ns[k] += (double)(start - p->last_end);
                }
                p->last_end = end;
                if (info->phase != UNTIMED_PHASE) {
                    if (info->after_other && p->last_timed_end && start > p->last_timed_end)
                        p->between_ns += (double)(start - p->last_timed_end);
                    p->last_timed_end = end;
                }
            }
        }
        if (first == CL_SUCCESS) first = err;
        CLMC_CL_WARN(clReleaseEvent(rt->pending[i]));
    }
    cl_uint rest = rt->n_pending - count;
    memmove(rt->pending, rt->pending + count, rest * sizeof *rt->pending);
    memmove(rt->pending_info, rt->pending_info + count, rest * sizeof *rt->pending_info);
    rt->n_pending = rest;
    return first;
}

/* All pending events settled. */
static cl_int settle_events(clmc_runtime *rt) { return settle_oldest(rt, rt->n_pending); }

static clmc_status settle_pending(clmc_runtime *rt)
{
    CLMC_CL_TRY(settle_events(rt));
    return CLMC_OK;
}

clmc_status clmc_runtime_profile_between(clmc_runtime *rt, double *ns)
{
    *ns = 0;
    if (!rt->profile) return CLMC_OK;
    CLMC_TRY(settle_pending(rt));
    *ns = rt->profile->between_ns;
    return CLMC_OK;
}

void clmc_runtime_close(clmc_runtime *rt)
{
    if (!rt) return;
    if (rt->queue) CLMC_CL_WARN(clFinish(rt->queue));
    (void)settle_events(rt);
    if (rt->profile) profile_print(rt);
    for (int i = 0; rt->profile && i < rt->profile->n; i++) CLMC_CL_WARN(clReleaseKernel(rt->profile->kernel[i]));
    for (int i = 0; i < rt->n_timed; i++) CLMC_CL_WARN(clReleaseKernel(rt->timed[i].kernel));
    if (rt->queue) CLMC_CL_WARN(clReleaseCommandQueue(rt->queue));
    if (rt->context) CLMC_CL_WARN(clReleaseContext(rt->context));
    free(rt->pending);
    free(rt->pending_info);
    free(rt->profile);
    free(rt);
}

const clmc_device_info *clmc_runtime_device(const clmc_runtime *rt) { return &rt->info; }

clmc_status clmc_pinned_reserve(clmc_runtime *rt, clmc_pinned *pinned, size_t bytes)
{
    if (bytes <= pinned->bytes) return CLMC_OK;
    clmc_pinned_release(rt, pinned);
    cl_int err;
    pinned->buffer = clCreateBuffer(rt->context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes, NULL, &err);
    CLMC_CL_CHECK(err, "clCreateBuffer(pinned host memory)");
    pinned->host = clEnqueueMapBuffer(rt->queue, pinned->buffer, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, 0, NULL,
                                      NULL, &err);
    if (err != CL_SUCCESS) {
        CLMC_CL_WARN(clReleaseMemObject(pinned->buffer));
        pinned->buffer = NULL;
        CLMC_CL_CHECK(err, "clEnqueueMapBuffer(pinned host memory)");
    }
    pinned->bytes = bytes;
    return CLMC_OK;
}

void clmc_pinned_release(clmc_runtime *rt, clmc_pinned *pinned)
{
    if (!pinned->buffer) return;
    CLMC_CL_WARN(clEnqueueUnmapMemObject(rt->queue, pinned->buffer, pinned->host, 0, NULL, NULL));
    CLMC_CL_WARN(clReleaseMemObject(pinned->buffer));
    *pinned = (clmc_pinned){0};
}

clmc_status clmc_write_repeated(clmc_runtime *rt, cl_mem buffer, void *host, size_t unit_bytes, size_t count)
{
    if (count == 0) return CLMC_OK;
    size_t done = count < 1024 ? count : 1024;
    for (size_t i = 1; i < done; i++) memcpy((unsigned char *)host + i * unit_bytes, host, unit_bytes);
    CLMC_CL_TRY(clEnqueueWriteBuffer(rt->queue, buffer, CL_FALSE, 0, done * unit_bytes, host, 0, NULL, NULL));
    for (; done < count; done *= 2) {
        size_t more = done < count - done ? done : count - done;
        CLMC_CL_TRY(clEnqueueCopyBuffer(rt->queue, buffer, buffer, 0, done * unit_bytes, more * unit_bytes, 0, NULL,
                                        NULL));
    }
    return CLMC_OK;
}
cl_context clmc_runtime_context(const clmc_runtime *rt) { return rt->context; }
cl_command_queue clmc_runtime_queue(const clmc_runtime *rt) { return rt->queue; }

/* The stratum of `kernel`'s update launches in `phase` (a new one on its
 * first launch, the kernel kept: keep_kernel), -1 when the table is full
 * (then timed exactly). */
static int timed_stratum(clmc_runtime *rt, cl_kernel kernel, int phase)
{
    for (int i = 0; i < rt->n_timed; i++)
        if (rt->timed[i].kernel == kernel && rt->timed[i].phase == phase) return i;
    if (rt->n_timed == CLMC_TIMED_KERNELS || !keep_kernel(kernel)) return -1;
    rt->timed[rt->n_timed] = (struct clmc_timed_kernel){.kernel = kernel, .phase = phase};
    return rt->n_timed++;
}

clmc_status clmc_enqueue(clmc_runtime *rt, cl_kernel kernel, cl_uint dims, const size_t *global,
                         const size_t *local, clmc_timing timing)
{
    return clmc_enqueue_offset(rt, kernel, dims, NULL, global, local, timing);
}

clmc_status clmc_enqueue_offset(clmc_runtime *rt, cl_kernel kernel, cl_uint dims, const size_t *offset,
                                const size_t *global, const size_t *local, clmc_timing timing)
{
    struct clmc_profile *p = rt->profile;
    int k = p ? profile_entry(rt, kernel) : -1;
    if (k >= 0) p->launches[k]++;
    bool timed = timing != CLMC_UNTIMED, event = !timed && k >= 0 && (p->launches[k] - 1) % SAMPLE_EVERY == 0;
    struct clmc_pending info = {.phase = timed ? rt->current_phase : UNTIMED_PHASE, .profile = k, .stratum = -1,
                                .after_other = timed && p && p->other_enqueued, .after_event = p && p->last_event};
    if (timed) {
        info.stratum = timed_stratum(rt, kernel, rt->current_phase);
        unsigned long long n = info.stratum >= 0 ? ++rt->timed[info.stratum].launches : 1;
        info.first = n == 1;
        event = rt->time_every || info.stratum < 0 || n == 1 || (n - 2) % SAMPLE_EVERY == 0;
    }
    if (p) {
        p->other_enqueued = !timed;
        p->last_event = event;
    }
    if (!event) {
        CLMC_CL_TRY(clEnqueueNDRangeKernel(rt->queue, kernel, dims, offset, global, local, 0, NULL, NULL));
        return CLMC_OK;
    }
    /* Full: the older half, long done, settled, so the queue keeps the
     * newer launches in flight (settling all left the device idle while
     * the host enqueued again: 2 us a step of an EA population anneal
     * under --profile, H200) */
    if (rt->n_pending == MAX_PENDING_EVENTS) CLMC_CL_TRY(settle_oldest(rt, MAX_PENDING_EVENTS / 2));
    rt->pending_info[rt->n_pending] = info;
    CLMC_CL_TRY(clEnqueueNDRangeKernel(rt->queue, kernel, dims, offset, global, local, 0, NULL,
                                       &rt->pending[rt->n_pending]));
    rt->n_pending++;
    return CLMC_OK;
}

clmc_status clmc_kernel_group_limit(const clmc_runtime *rt, cl_kernel kernel, size_t *limit)
{
    *limit = 0;
    CLMC_CL_TRY(clGetKernelWorkGroupInfo(kernel, rt->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof *limit, limit, NULL));
    return CLMC_OK;
}

clmc_status clmc_kernel_local_bytes(const clmc_runtime *rt, cl_kernel kernel, cl_ulong *bytes)
{
    *bytes = 0;
    CLMC_CL_TRY(clGetKernelWorkGroupInfo(kernel, rt->device, CL_KERNEL_LOCAL_MEM_SIZE, sizeof *bytes, bytes, NULL));
    return CLMC_OK;
}

clmc_status clmc_enqueue_items(clmc_runtime *rt, cl_kernel kernel, size_t items, clmc_timing timing)
{
    size_t group = 256, kernel_limit = 0;
    CLMC_TRY(clmc_kernel_group_limit(rt, kernel, &kernel_limit));
    if (kernel_limit && kernel_limit < group) group = kernel_limit;
    if (rt->info.max_work_group_size < group) group = rt->info.max_work_group_size;
    if (group == 0) group = 1;
    size_t global = (items + group - 1) / group * group;
    return clmc_enqueue(rt, kernel, 1, &global, &group, timing);
}

clmc_status clmc_buffer_create(clmc_runtime *rt, size_t bytes, const void *initial, const char *what, cl_mem *out)
{
    cl_int err;
    cl_mem_flags flags = CL_MEM_READ_WRITE | (initial ? CL_MEM_COPY_HOST_PTR : 0);
    *out = clCreateBuffer(rt->context, flags, bytes, (void *)initial, &err);
    if (err != CL_SUCCESS)
        return clmc_fail(CLMC_ERR_DEVICE, "clCreateBuffer(%s, %zu bytes) failed: %s", what, bytes, clmc_cl_error_name(err));
    return CLMC_OK;
}

clmc_status clmc_buffer_download(clmc_runtime *rt, cl_mem buffer, size_t bytes, unsigned char **copy)
{
    *copy = malloc(bytes ? bytes : 1);
    if (!*copy) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    CLMC_CL_TRY(clEnqueueReadBuffer(rt->queue, buffer, CL_TRUE, 0, bytes, *copy, 0, NULL, NULL));
    return CLMC_OK;
}

/* A stratum's device time: its first launch's, and the sampled launches'
 * mean for each of the others. */
static double stratum_ns(const struct clmc_timed_kernel *t)
{
    return t->first_ns + (t->sampled ? t->sampled_ns / (double)t->sampled * (double)(t->launches - 1) : 0.0);
}

/* Update launches' device time in all, or in phase `phase` (>= 0). */
static double timed_ns_of(const clmc_runtime *rt, int phase)
{
    double ns = phase < 0 ? rt->timed_ns : rt->phase_ns[phase];
    for (int i = 0; i < rt->n_timed; i++)
        if (phase < 0 || rt->timed[i].phase == phase) ns += stratum_ns(&rt->timed[i]);
    return ns;
}

clmc_status clmc_runtime_finish(clmc_runtime *rt, double *timed_seconds)
{
    CLMC_CL_TRY(clFinish(rt->queue));
    CLMC_TRY(settle_pending(rt));
    if (timed_seconds) *timed_seconds = timed_ns_of(rt, -1) * 1e-9;
    return CLMC_OK;
}

void clmc_runtime_reset_clock(clmc_runtime *rt)
{
    (void)settle_events(rt); /* launches before the reset are not counted after it */
    rt->timed_ns = 0;
    for (int i = 0; i < rt->n_phases; i++) rt->phase_ns[i] = 0;
    for (int i = 0; i < rt->n_timed; i++) {
        struct clmc_timed_kernel *t = &rt->timed[i];
        t->launches = t->sampled = 0;
        t->first_ns = t->sampled_ns = 0;
    }
}

void clmc_runtime_time_every_launch(clmc_runtime *rt, bool every) { rt->time_every = every || rt->profile; }

void clmc_runtime_update_launches(const clmc_runtime *rt, double *launches, double *timed)
{
    *launches = *timed = 0;
    for (int i = 0; i < rt->n_timed; i++) {
        *launches += (double)rt->timed[i].launches;
        *timed += rt->timed[i].launches ? 1.0 + (double)rt->timed[i].sampled : 0.0;
    }
}

void clmc_runtime_set_phase(clmc_runtime *rt, const char *name)
{
    rt->current_phase = -1;
    if (!name) return;
    for (int i = 0; i < rt->n_phases; i++)
        if (strcmp(rt->phase_names[i], name) == 0) {
            rt->current_phase = i;
            return;
        }
    if (rt->n_phases == CLMC_MAX_PHASES) return; /* more parts than kept: counted in the total only */
    rt->phase_names[rt->n_phases] = name;
    rt->phase_ns[rt->n_phases] = 0;
    rt->current_phase = rt->n_phases++;
}

size_t clmc_runtime_phases(const clmc_runtime *rt, const char **names, double *seconds, size_t max)
{
    for (int i = 0; i < rt->n_phases && (size_t)i < max; i++) {
        names[i] = rt->phase_names[i];
        seconds[i] = timed_ns_of(rt, i) * 1e-9;
    }
    return (size_t)rt->n_phases;
}

clmc_status clmc_measure_copy_bandwidth(clmc_runtime *rt, double *bytes_per_second)
{
    size_t bytes = (size_t)(rt->info.max_alloc_bytes / 4);
    if (bytes > ((size_t)512 << 20)) bytes = (size_t)512 << 20;
    bytes &= ~(size_t)4095;
    cl_int err;
    cl_mem src = clCreateBuffer(rt->context, CL_MEM_READ_WRITE, bytes, NULL, &err);
    CLMC_CL_CHECK(err, "clCreateBuffer(bandwidth source)");
    cl_mem dst = clCreateBuffer(rt->context, CL_MEM_READ_WRITE, bytes, NULL, &err);
    if (err != CL_SUCCESS) {
        CLMC_CL_WARN(clReleaseMemObject(src));
        CLMC_CL_CHECK(err, "clCreateBuffer(bandwidth destination)");
    }
    cl_uchar zero = 0;
    double best_ns = 0;
    err = clEnqueueFillBuffer(rt->queue, src, &zero, 1, 0, bytes, 0, NULL, NULL);
    for (int rep = 0; rep < 6 && err == CL_SUCCESS; rep++) {
        cl_event event;
        err = clEnqueueCopyBuffer(rt->queue, src, dst, 0, 0, bytes, 0, NULL, &event);
        if (err != CL_SUCCESS) break;
        cl_ulong start = 0, end = 0;
        err = clWaitForEvents(1, &event);
        if (err == CL_SUCCESS)
            err = clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL);
        if (err == CL_SUCCESS)
            err = clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL);
        clReleaseEvent(event);
        double ns = (double)(end - start);
        if (rep > 0 && (best_ns == 0 || ns < best_ns)) best_ns = ns; /* first run warms up */
    }
    CLMC_CL_WARN(clReleaseMemObject(src));
    CLMC_CL_WARN(clReleaseMemObject(dst));
    CLMC_CL_CHECK(err, "bandwidth copy");
    *bytes_per_second = best_ns > 0 ? 2.0 * (double)bytes / (best_ns * 1e-9) : 0;
    return CLMC_OK;
}
