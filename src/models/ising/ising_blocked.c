/* Temporal blocking of the Ising naive and tiled layouts (host side of
 * cl/ising/temporal_block.h): keys, the box in local memory, launches. */
#include "models/ising/ising_blocked.h"

#include <stdio.h>
#include <string.h>

#include "models/rng_streams.h"

/* Local memory the kernel needs besides the box, with room to spare. */
#define BOX_LOCAL_EXTRA 64

bool ising_tblock_wanted(const clmc_preset *p)
{
    return clmc_preset_int(p, "algorithm.sweeps_per_launch") > 0;
}

clmc_status ising_tblock_validate(const clmc_preset *p)
{
    long long sweeps = clmc_preset_int(p, "algorithm.sweeps_per_launch");
    long long block = clmc_preset_int(p, "algorithm.block"), edge = clmc_preset_int(p, "model.L");
    const char *layout = clmc_preset_string(p, "algorithm.layout");
    if (sweeps == 0) {
        if (block != 0)
            return clmc_fail(CLMC_ERR_INPUT, "algorithm.block: %lld is for temporal blocking "
                             "(algorithm.sweeps_per_launch >= 1); give 0", block);
        return CLMC_OK;
    }
    if (strcmp(layout, "naive") != 0 && strcmp(layout, "tiled") != 0)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.sweeps_per_launch: %lld sweeps per launch (temporal blocking) are "
                         "for layouts \"naive\" and \"tiled\", not \"%s\"; give 0", sweeps, layout);
    clmc_rng_kind rng = clmc_rng_from_preset(p);
    if (clmc_rng_stateful(rng))
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.sweeps_per_launch: temporal blocking draws from philox4x32_10 or "
                         "philox4x32_7, not algorithm.rng \"%s\" (per-site generator states)", clmc_rng_names[rng]);
    if (strcmp(clmc_preset_string(p, "algorithm.resident"), "on") == 0)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.sweeps_per_launch: %lld (temporal blocking) and algorithm.resident "
                         "\"on\" both choose the update; give one of them", sweeps);
    if (block != 0 && (block < 2 || block > edge))
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.block: %lld must be 0 (default) or between 2 and model.L = %lld",
                         block, edge);
    return CLMC_OK;
}

/* Bytes per row of the box: every block's row from 8 floor((bx - h) / 8) to bx + B + h. */
static int box_row(int block, int halo, int blocks)
{
    int row = 0;
    for (int b = 0; b < blocks; b++) {
        int left = b * block - halo, start = left - (((left % 8) + 8) % 8);
        int bytes = (b * block + block + halo - start + 7) / 8 * 8;
        if (bytes > row) row = bytes;
    }
    return row;
}

clmc_status ising_tblock_plan(ising_tblock *t, clmc_preset *p, const clmc_device_info *d, int dim, int edge,
                              int phases)
{
    memset(t, 0, sizeof *t);
    if (!ising_tblock_wanted(p)) return CLMC_OK;
    t->used = true;
    t->sweeps = (int)clmc_preset_int(p, "algorithm.sweeps_per_launch");
    t->block = (int)clmc_preset_int(p, "algorithm.block");
    if (t->block == 0) {
        t->block = dim == 3 ? 16 : 64;
        if (t->block > edge) t->block = edge;
        clmc_preset_set_int(p, "algorithm.block", t->block);
    }
    long long halo = (long long)t->sweeps * phases;
    if (halo > 4096)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.sweeps_per_launch: %d sweeps of %d colour phases need a halo of "
                         "%lld layers; give fewer sweeps per launch", t->sweeps, phases, halo);
    t->halo = (int)halo;
    t->blocks_per_edge = (edge + t->block - 1) / t->block;
    t->row = box_row(t->block, t->halo, t->blocks_per_edge);
    t->span = t->block + 2 * t->halo;
    t->box_bytes = (size_t)t->row * (size_t)t->span * (dim == 3 ? (size_t)t->span : 1);
    if (t->box_bytes + BOX_LOCAL_EXTRA > d->local_mem_bytes)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.sweeps_per_launch: %d sweeps per launch with algorithm.block %d "
                         "need a box of %zu bytes in local memory (halo %d = %d sweeps x %d colour phases); %s has "
                         "%llu bytes: give fewer sweeps per launch or a smaller block",
                         t->sweeps, t->block, t->box_bytes, t->halo, t->sweeps, phases, d->name,
                         (unsigned long long)d->local_mem_bytes);
    size_t groups = (size_t)t->blocks_per_edge * (size_t)t->blocks_per_edge;
    t->groups = dim == 3 ? groups * (size_t)t->blocks_per_edge : groups;
    return CLMC_OK;
}

void ising_tblock_defines(const ising_tblock *t, clmc_defines *options)
{
    if (!t->used) return;
    clmc_defines_flag(options, "TEMPORAL_BLOCK");
    clmc_defines_int(options, "BLOCK", t->block);
    clmc_defines_int(options, "BLOCK_HALO", t->halo);
    clmc_defines_int(options, "BLOCK_ROW", t->row);
    clmc_defines_int(options, "BLOCKS_PER_EDGE", t->blocks_per_edge);
}

clmc_status ising_tblock_create(ising_tblock *t, clmc_runtime *rt, cl_program program, size_t spin_bytes,
                                cl_uint seed_lo, cl_uint seed_hi, cl_uint hits, cl_mem thresholds,
                                cl_uint first_system)
{
    if (!t->used) return CLMC_OK;
    const clmc_device_info *d = clmc_runtime_device(rt);
    CLMC_TRY(clmc_kernel_create(program, "ising_blocked_update", &t->kernel));
    size_t limit = 0;
    cl_ulong local = 0;
    CLMC_TRY(clmc_kernel_group_limit(rt, t->kernel, &limit));
    CLMC_TRY(clmc_kernel_local_bytes(rt, t->kernel, &local));
    if (limit > d->max_work_group_size) limit = d->max_work_group_size;
    if (limit == 0) limit = 1;
    if (local > d->local_mem_bytes)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.sweeps_per_launch: the blocked kernel needs %llu bytes of local "
                         "memory; %s has %llu: give fewer sweeps per launch or a smaller algorithm.block",
                         (unsigned long long)local, d->name, (unsigned long long)d->local_mem_bytes);
    /* A work-item per octet of a box row; beyond the limit, items take several
     * octets, shared out evenly (no round with few items). */
    size_t octets = t->box_bytes / 8, rounds = (octets + limit - 1) / limit;
    t->work_group = (octets + rounds - 1) / rounds;
    CLMC_TRY(clmc_buffer_create(rt, spin_bytes, NULL, "spins (temporal blocking)", &t->spare));
    CLMC_CL_TRY(clSetKernelArg(t->kernel, 2, sizeof(cl_uint), &seed_lo));
    CLMC_CL_TRY(clSetKernelArg(t->kernel, 3, sizeof(cl_uint), &seed_hi));
    CLMC_CL_TRY(clSetKernelArg(t->kernel, 6, sizeof(cl_uint), &hits));
    CLMC_CL_TRY(clSetKernelArg(t->kernel, 7, sizeof(cl_mem), &thresholds));
    return clmc_kernel_set_first_system(t->kernel, first_system);
}

clmc_status ising_tblock_launch(ising_tblock *t, clmc_runtime *rt, cl_mem *spins, uint64_t first, uint64_t count,
                                cl_uint configs)
{
    cl_uint sweep = (cl_uint)first, n = (cl_uint)count;
    CLMC_CL_TRY(clSetKernelArg(t->kernel, 0, sizeof(cl_mem), spins));
    CLMC_CL_TRY(clSetKernelArg(t->kernel, 1, sizeof(cl_mem), &t->spare));
    CLMC_CL_TRY(clSetKernelArg(t->kernel, 4, sizeof(cl_uint), &sweep));
    CLMC_CL_TRY(clSetKernelArg(t->kernel, 5, sizeof(cl_uint), &n));
    size_t global[2] = {t->groups * t->work_group, configs}, local[2] = {t->work_group, 1};
    CLMC_TRY(clmc_enqueue(rt, t->kernel, 2, global, local, CLMC_TIMED));
    cl_mem written = t->spare;
    t->spare = *spins;
    *spins = written;
    t->launches++;
    t->swept += count;
    return CLMC_OK;
}

void ising_tblock_describe(const ising_tblock *t, cJSON *performance)
{
    cJSON *r = cJSON_AddObjectToObject(performance, "temporal_blocking");
    cJSON_AddBoolToObject(r, "used", t->used);
    if (!t->used) return;
    cJSON_AddNumberToObject(r, "block", t->block);
    cJSON_AddNumberToObject(r, "halo", t->halo);
    cJSON_AddNumberToObject(r, "box_bytes", (double)t->box_bytes);
    cJSON_AddNumberToObject(r, "launches", (double)t->launches);
    cJSON_AddNumberToObject(r, "sweeps_per_launch", t->launches ? (double)t->swept / (double)t->launches : 0.0);
    cJSON_AddNumberToObject(r, "work_group", (double)t->work_group);
}

void ising_tblock_release(ising_tblock *t)
{
    if (t->kernel) CLMC_CL_WARN(clReleaseKernel(t->kernel));
    if (t->spare) CLMC_CL_WARN(clReleaseMemObject(t->spare));
    t->kernel = NULL;
    t->spare = NULL;
}
