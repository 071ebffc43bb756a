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
/* ... and rounds of words at most for which a work-item keeps the colour-0
 * phase's draws for the colour-1 phase (registers, against a second draw). */
#define TB_PLANES_KEEP 8 /* tiled, blocks of 128, k = 2 on an H200: 5.43 against 5.98 ps per update with 4 */
#define MSC_LIST_BYTES (5 * 4)
#define MSC_FLUSH_ROUNDS 4
/* msc's automatic choice (ising_tblock_choose), the fastest of k = 1 ... 12
 * and bands of 4 ... 32 rows on an H200 (docs/models/ising.md; wall ps per
 * update): L from MSC_AUTO_MIN_L to MSC_AUTO_MAX_L; up to L = 512 8 sweeps
 * per launch in bands of MSC_AUTO_ROWS rows (also the band of
 * algorithm.block 0), up to 1024 6 sweeps in bands of 8 (4.27 against 4.56
 * with 4), up to 2048 4 sweeps in bands of 16 (1.82 against 2.08 in bands of
 * 8), up to 8192 2 sweeps in bands of 16 (L = 4096: 1.12 against 1.21 with
 * 2 in bands of 8; L = 8192: 0.85 against 0.89 with 1), beyond 1 sweep in
 * bands of 8. */
#define MSC_AUTO_MIN_L 256
#define MSC_AUTO_MAX_L 16384
#define MSC_AUTO_ROWS 8
/* naive and tiled in colour planes (2D, one hit): the automatic choice, the
 * fastest of the H200 points of docs/models/ising.md (k = 2, 4, 8, 16; blocks
 * of 16 ... 128; wall ps per update, the ordinary kernels' in brackets):
 * naive L = 256, 512 k = 8 blocks of 32: 30.6 (451), 10.4 (99); L = 1024 k =
 * 8 blocks of 64: 4.6 (30.2); L = 2048 ... 16384 k = 4 blocks of 128: 3.2
 * ... 2.7 (10.5 ... 7.3); tiled L = 256, 512 k = 4 blocks of 32: 60 (476),
 * 20 (119); L = 1024 k = 4 blocks of 96: 8.7 (34; k = 2 blocks of 64: 9.3);
 * L = 2048 k = 4 blocks of 128: 4.6-4.7 (6.3-6.5; k = 2: 5.0); beyond that
 * the ordinary tiled kernels (L = 4096: 3.5 against 4.5 blocked). */
#define PLANES_AUTO_MIN_L 256
#define PLANES_AUTO_MAX_L 16384
#define TILED_AUTO_MAX_L 2048

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

void ising_tblock_choose(ising_tblock *t, clmc_preset *p, const clmc_device_info *d, uint64_t spin_bytes, bool msc,
                         int tile, int hits)
{
    long long edge = clmc_preset_int(p, "model.L"), sweeps, block;
    if (ising_tblock_wanted(p) || clmc_preset_int(p, "algorithm.block") != 0 || !d->local_mem_dedicated ||
        strcmp(clmc_preset_string(p, "algorithm.resident"), "auto") != 0 || spin_bytes > d->global_mem_bytes / 8)
        return;
    if (msc) {
        if (edge < MSC_AUTO_MIN_L || edge > MSC_AUTO_MAX_L) return;
        sweeps = edge <= 512 ? 8 : edge <= 1024 ? 6 : edge <= 2048 ? 4 : edge <= 8192 ? 2 : 1;
        block = edge > 1024 && edge <= 8192 ? 16 : MSC_AUTO_ROWS;
    } else {
        if (edge < PLANES_AUTO_MIN_L || edge > (tile ? TILED_AUTO_MAX_L : PLANES_AUTO_MAX_L) || hits != 1) return;
        if (edge <= 512) sweeps = tile ? 4 : 8, block = 32;
        else if (edge <= 1024) sweeps = tile ? 4 : 8, block = tile ? 96 : 64;
        else sweeps = 4, block = 128;
    }
    clmc_preset_set_int(p, "algorithm.sweeps_per_launch", sweeps);
    clmc_preset_set_int(p, "algorithm.block", block);
    t->automatic = true;
}

clmc_status ising_tblock_plan(ising_tblock *t, clmc_preset *p, const clmc_device_info *d, int dim, int edge,
                              int phases, bool msc, bool planes, int tile, size_t items)
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
    t->planes = planes && t->block % 8 == 0;
    /* tiled in planes: the tile colours' lists of the box's words, 2 bytes a word */
    size_t lists = t->planes && tile > 0 ? t->box_bytes / 4 : 0;
    if (t->box_bytes + lists + BOX_LOCAL_EXTRA > d->local_mem_bytes && t->automatic) { /* the ordinary kernels */
        memset(t, 0, sizeof *t);
        clmc_preset_set_int(p, "algorithm.sweeps_per_launch", 0);
        clmc_preset_set_int(p, "algorithm.block", 0);
        return CLMC_OK;
    }
    if (t->box_bytes + lists + BOX_LOCAL_EXTRA > d->local_mem_bytes)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.sweeps_per_launch: %d sweeps per launch with algorithm.block %d "
                         "need a box of %zu bytes in local memory (halo %d = %d sweeps x %d colour phases)%s; %s "
                         "has %llu bytes: give fewer sweeps per launch or a smaller block",
                         t->sweeps, t->block, t->box_bytes, t->halo, t->sweeps, phases,
                         lists ? " and lists of its words" : "", d->name, (unsigned long long)d->local_mem_bytes);
    size_t groups = (size_t)t->blocks_per_edge * (size_t)t->blocks_per_edge;
    t->groups = dim == 3 ? groups * (size_t)t->blocks_per_edge : groups;
    if (t->planes) { /* a work-item per word of a plane, up to ISING_PLANES_ITEMS, the rest in rounds */
        size_t words = t->box_bytes / 8, phase_words = words;
        if (tile > 0) { /* tiled: a phase takes one tile colour's words, at most half the box's and the
                         * imbalance of whole tiles' rows (T), octets (T / 8) and planes (T) */
            size_t slack = (size_t)tile * (size_t)(tile / 8) * (dim == 3 ? (size_t)tile : 1);
            phase_words = words / 2 + slack < words ? words / 2 + slack : words;
        }
        t->work_group = words < ISING_PLANES_ITEMS ? words : ISING_PLANES_ITEMS;
        if (t->work_group > d->max_work_group_size) t->work_group = d->max_work_group_size;
        t->rounds = (int)((phase_words + t->work_group - 1) / t->work_group);
    }
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
    if (t->planes) {
        clmc_defines_flag(options, "TB_PLANES");
        clmc_defines_int(options, "BLOCK_ITEMS", (long long)t->work_group);
        clmc_defines_int(options, "TB_ROUNDS", t->rounds);
        clmc_defines_int(options, "TB_KEEP", TB_PLANES_KEEP);
    }
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
    if (t->planes && t->work_group > limit)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.sweeps_per_launch: the blocked kernel in colour planes needs %zu "
                         "work-items per block; %s allows it %zu: give a smaller algorithm.block", t->work_group,
                         d->name, limit);
    if (!t->msc && !t->planes) { /* a work-item per octet of a box row; beyond the limit,
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
    else cJSON_AddBoolToObject(r, "planes", t->planes);
}

void ising_tblock_release(ising_tblock *t)
{
    if (t->kernel) CLMC_CL_WARN(clReleaseKernel(t->kernel));
    if (t->spare) CLMC_CL_WARN(clReleaseMemObject(t->spare));
    t->kernel = NULL;
    t->spare = NULL;
}
