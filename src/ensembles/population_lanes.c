/* Population annealing of members packed into the lanes of words
 * (population_lanes.h): builds and launches pa_gather_lanes
 * (cl/ensembles/population_lanes.cl). */
#include "ensembles/population_lanes.h"

#include <string.h>

#include "runtime/defines.h"

#define GATHER_WG_MAX 256

/* The largest power of two up to GATHER_WG_MAX and the device's limit that
 * divides the group's words (so most work-groups are full; at least 1). */
static size_t gather_group(clmc_runtime *rt, size_t group_words)
{
    size_t limit = clmc_runtime_device(rt)->max_work_group_size, size = 1;
    if (limit > GATHER_WG_MAX) limit = GATHER_WG_MAX;
    while (size * 2 <= limit && group_words % (size * 2) == 0) size *= 2;
    return size;
}

clmc_status clmc_population_lanes_open(clmc_runtime *rt, unsigned lanes, size_t group_bytes, size_t capacity,
                                       clmc_population_lanes *out)
{
    memset(out, 0, sizeof *out);
    if (lanes == 0) return CLMC_OK;
    if (lanes != 32 && lanes != 64)
        return clmc_fail(CLMC_ERR_OTHER, "population annealing: %u members per word (32 or 64 expected)", lanes);
    size_t word_bytes = lanes / 8, group_words = group_bytes / word_bytes;
    out->lanes = lanes;
    out->group_bytes = group_bytes;
    out->groups = (capacity + lanes - 1) / lanes;
    out->group_size = gather_group(rt, group_words);
    clmc_defines options = {0};
    clmc_defines_text(&options, "-cl-std=CL1.2");
    clmc_defines_int(&options, "LANE_BITS", lanes);
    clmc_defines_int(&options, "GROUP_WORDS", (long long)group_words);
    clmc_defines_int(&options, "GATHER_WG", (long long)out->group_size);
    CLMC_TRY(clmc_defines_build(rt, "ensembles/population_lanes.cl", &options, &out->program));
    return clmc_kernel_create(out->program, "pa_gather_lanes", &out->gather);
}

size_t clmc_population_lanes_bytes(const clmc_population_lanes *l)
{
    return l->group_bytes * l->groups;
}

clmc_status clmc_population_lanes_gather(clmc_runtime *rt, clmc_population_lanes *l, cl_mem from, cl_mem to,
                                         cl_mem source, cl_uint n_new)
{
    size_t group_words = l->group_bytes / (l->lanes / 8);
    size_t global[2] = {(group_words + l->group_size - 1) / l->group_size * l->group_size, l->groups};
    size_t local[2] = {l->group_size, 1};
    CLMC_CL_TRY(clSetKernelArg(l->gather, 0, sizeof from, &from));
    CLMC_CL_TRY(clSetKernelArg(l->gather, 1, sizeof to, &to));
    CLMC_CL_TRY(clSetKernelArg(l->gather, 2, sizeof source, &source));
    CLMC_CL_TRY(clSetKernelArg(l->gather, 3, sizeof n_new, &n_new));
    return clmc_enqueue(rt, l->gather, 2, global, local, CLMC_UNTIMED);
}

void clmc_population_lanes_close(clmc_population_lanes *l)
{
    if (l->gather) CLMC_CL_WARN(clReleaseKernel(l->gather));
    if (l->program) CLMC_CL_WARN(clReleaseProgram(l->program));
    memset(l, 0, sizeof *l);
}
