/* Temporal blocking of the Ising naive, tiled and msc layouts (host side of
 * cl/ising/temporal_block.h and of ising_blocked_update in
 * cl/ising/ising_msc.cl): keys, the box in local memory, launches. */
#include "models/ising/ising_blocked.h"

#include <stdio.h>
#include <string.h>

#include "models/rng_streams.h"

/* Local memory the kernel needs besides the box, with room to spare. */
#define BOX_LOCAL_EXTRA 64
/* msc: at most this many work-items per band's work-group by default
 * (algorithm.update_group 0), and bytes per work-item of its list of words
 * still tied (cl/ising/ising_msc.cl, PENDING_FIELDS in 2D). */
#define MSC_BLOCK_ITEMS 256
#define MSC_LIST_BYTES (5 * 4)
#define MSC_FLUSH_ROUNDS 4
/* msc's automatic choice (ising_tblock_choose), the fastest of k = 1, 2, 4,
 * 8 and bands of 4, 8, 12 rows on an H200 (docs/models/ising.md): L from
 * MSC_AUTO_MIN_L to MSC_AUTO_MAX_L, 8 sweeps per launch up to L = 512, then
 * 8192 / L (at least 1, at most 4), bands of MSC_AUTO_ROWS rows (also the
 * band of algorithm.block 0). */
#define MSC_AUTO_MIN_L 256
#define MSC_AUTO_MAX_L 16384
#define MSC_AUTO_ROWS 8

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
    bool msc = strcmp(layout, "msc") == 0;
    if (strcmp(layout, "naive") != 0 && strcmp(layout, "tiled") != 0 && !msc)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.sweeps_per_launch: %lld sweeps per launch (temporal blocking) are "
                         "for layouts \"naive\", \"tiled\" and \"msc\", not \"%s\"; give 0", sweeps, layout);
    if (msc && clmc_preset_int(p, "model.dim") != 2)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.sweeps_per_launch: temporal blocking of layout \"msc\" is for 2D "
                         "lattices (bands of whole rows), not model.dim = %lld; give 0",
                         clmc_preset_int(p, "model.dim"));
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

/* msc (2D): bands of t->block whole rows, a halo of 2 rows per sweep, the box
 * both colour planes of its rows (L / 8 bytes a row) and the list of tied
 * words, finished once per pass where it fits (at most MSC_FLUSH_ROUNDS
 * rounds); `items` work-items per band (algorithm.update_group, 0 = up to
 * MSC_BLOCK_ITEMS, fewer where the box's plane has fewer words).  An automatic
 * choice that does not fit the local memory is dropped. */
static clmc_status plan_msc(ising_tblock *t, clmc_preset *p, const clmc_device_info *d, int edge, size_t items)
{
    t->blocks_per_edge = (edge + t->block - 1) / t->block;
    t->row = edge / 8;
    t->span = t->block + 2 * t->halo;
    size_t plane_words = (size_t)t->span * (size_t)(edge / 64);
    if (items == 0) {
        items = plane_words < MSC_BLOCK_ITEMS ? (plane_words + 31) / 32 * 32 : MSC_BLOCK_ITEMS;
        if (items > d->max_work_group_size) items = d->max_work_group_size;
    }
    t->work_group = items;
    t->box_bytes = (size_t)t->row * (size_t)t->span;
    t->groups = (size_t)t->blocks_per_edge;
    /* The first pass, the longest: the band and 2 h - 1 rows around it. */
    size_t first_pass = (size_t)(t->block + 2 * (t->halo - 1)) * (size_t)(edge / 64);
    size_t rounds = (first_pass + items - 1) / items;
    t->flush_rounds = rounds < MSC_FLUSH_ROUNDS ? (int)rounds : MSC_FLUSH_ROUNDS;
    for (;;) {
        size_t local = t->box_bytes + MSC_LIST_BYTES * items * (size_t)t->flush_rounds + BOX_LOCAL_EXTRA;
        if (local <= d->local_mem_bytes) return CLMC_OK;
        if (t->flush_rounds > 1) {
            t->flush_rounds--;
            continue;
        }
        if (t->automatic) { /* the choice falls back to the ordinary kernels */
            memset(t, 0, sizeof *t);
            clmc_preset_set_int(p, "algorithm.sweeps_per_launch", 0);
            clmc_preset_set_int(p, "algorithm.block", 0);
            return CLMC_OK;
        }
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.sweeps_per_launch: %d sweeps per launch with bands of "
                         "algorithm.block %d rows need %zu bytes of local memory (a box of %d rows of %d bytes, a "
                         "halo of %d rows, and a list for %zu work-items); %s has %llu bytes: give fewer sweeps per "
                         "launch or a smaller block", t->sweeps, t->block, local, t->span, t->row, t->halo, items,
                         d->name, (unsigned long long)d->local_mem_bytes);
    }
}

void ising_tblock_choose(ising_tblock *t, clmc_preset *p, const clmc_device_info *d, uint64_t spin_bytes)
{
    long long edge = clmc_preset_int(p, "model.L");
    if (ising_tblock_wanted(p) || clmc_preset_int(p, "algorithm.block") != 0 || !d->local_mem_dedicated ||
        strcmp(clmc_preset_string(p, "algorithm.resident"), "auto") != 0 || edge < MSC_AUTO_MIN_L ||
        edge > MSC_AUTO_MAX_L || spin_bytes > d->global_mem_bytes / 8)
        return;
    long long sweeps = edge <= 512 ? 8 : (8192 / edge > 4 ? 4 : 8192 / edge);
    clmc_preset_set_int(p, "algorithm.sweeps_per_launch", sweeps < 1 ? 1 : sweeps);
    clmc_preset_set_int(p, "algorithm.block", MSC_AUTO_ROWS);
    t->automatic = true;
}

clmc_status ising_tblock_plan(ising_tblock *t, clmc_preset *p, const clmc_device_info *d, int dim, int edge,
                              int phases, bool msc, size_t items)
{
    if (!ising_tblock_wanted(p)) return CLMC_OK;
    t->used = true;
    t->msc = msc;
    t->sweeps = (int)clmc_preset_int(p, "algorithm.sweeps_per_launch");
    t->block = (int)clmc_preset_int(p, "algorithm.block");
    if (t->block == 0) {
        t->block = msc ? MSC_AUTO_ROWS : dim == 3 ? 16 : 64;
        if (t->block > edge) t->block = edge;
        clmc_preset_set_int(p, "algorithm.block", t->block);
    }
    long long halo = (long long)t->sweeps * phases;
    if (halo > 4096)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.sweeps_per_launch: %d sweeps of %d colour phases need a halo of "
                         "%lld layers; give fewer sweeps per launch", t->sweeps, phases, halo);
    t->halo = (int)halo;
    if (msc) return plan_msc(t, p, d, edge, items);
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
    if (!t->msc) return;
    clmc_defines_int(options, "BLOCK_ITEMS", (long long)t->work_group);
    clmc_defines_int(options, "FLUSH_ROUNDS", t->flush_rounds);
}

clmc_status ising_tblock_create(ising_tblock *t, clmc_runtime *rt, clmc_preset *p, cl_program program,
                                size_t spin_bytes, cl_uint seed_lo, cl_uint seed_hi, cl_uint hits, cl_mem thresholds,
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
    if (t->automatic && (local > d->local_mem_bytes || t->work_group > limit)) { /* the ordinary kernels instead */
        CLMC_CL_WARN(clReleaseKernel(t->kernel));
        memset(t, 0, sizeof *t);
        clmc_preset_set_int(p, "algorithm.sweeps_per_launch", 0);
        clmc_preset_set_int(p, "algorithm.block", 0);
        return CLMC_OK;
    }
    if (local > d->local_mem_bytes)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.sweeps_per_launch: the blocked kernel needs %llu bytes of local "
                         "memory; %s has %llu: give fewer sweeps per launch or a smaller algorithm.block",
                         (unsigned long long)local, d->name, (unsigned long long)d->local_mem_bytes);
    if (t->msc && t->work_group > limit)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.update_group: %zu work-items per band, more than the %zu that the "
                         "blocked kernel allows on %s", t->work_group, limit, d->name);
    if (!t->msc) { /* a work-item per octet of a box row; beyond the limit,
                    * items take several octets, shared out evenly (no round with few items) */
        size_t octets = t->box_bytes / 8, rounds = (octets + limit - 1) / limit;
        t->work_group = (octets + rounds - 1) / rounds;
    }
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
    cJSON_AddBoolToObject(r, "automatic", t->automatic);
    cJSON_AddNumberToObject(r, "block", t->block);
    cJSON_AddNumberToObject(r, "halo", t->halo);
    cJSON_AddNumberToObject(r, "box_bytes", (double)t->box_bytes);
    cJSON_AddNumberToObject(r, "launches", (double)t->launches);
    cJSON_AddNumberToObject(r, "sweeps_per_launch", t->launches ? (double)t->swept / (double)t->launches : 0.0);
    cJSON_AddNumberToObject(r, "work_group", (double)t->work_group);
    if (t->msc) cJSON_AddNumberToObject(r, "flush_rounds", t->flush_rounds);
}

void ising_tblock_release(ising_tblock *t)
{
    if (t->kernel) CLMC_CL_WARN(clReleaseKernel(t->kernel));
    if (t->spare) CLMC_CL_WARN(clReleaseMemObject(t->spare));
    t->kernel = NULL;
    t->spare = NULL;
}
