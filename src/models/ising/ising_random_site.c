/* Random-site dynamics of the Ising model: keys, kernels and launches
 * (cl/ising/random_site.cl; docs/models/ising.md, "Random-site dynamics"). */
#include "models/ising/ising_random_site.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/lattice.h"
#include "runtime/defines.h"

#define THRESHOLD_STRIDE 8 /* as in cl/ising/random_site.cl */
#define COPIES_WG_MAX 64
#define PACKED_WG 32 /* copies per word of the packed copies kernel */
#define CHUNK_MAX 64 /* attempts per tile planned at once by the local-memory kernels */

struct clmc_ising_rsite {
    clmc_runtime *rt;
    int dim, edge;
    bool copies, heatbath, dirty;
    bool packed;         /* copies in local memory, 32 sites per word (RS_LOCAL) */
    bool dead_border, local; /* local: the tiled variants' local-memory kernels */
    int tile, substeps;  /* tile: double_tiling's or dead_border's tile edge, else 0 */
    long long shift_every; /* dead_border: sweeps between origin shifts */
    cl_uint n_sites, n_configs, seed_lo, seed_hi;
    size_t wg, group_tiles, tiles, chunk; /* group_tiles, chunk: per work-group of wg items (local kernels) */
    cl_mem spins, by_site, thresholds; /* spins: the driver's; by_site (copies only): copy-minor bytes or packed words */
    cl_uint *thresholds_host;
    cl_program program;
    cl_kernel update, to_copies, from_copies;
};

bool clmc_ising_rsite_wanted(const clmc_preset *p)
{
    return strcmp(clmc_preset_string(p, "algorithm.layout"), "random_site") == 0;
}

unsigned long long clmc_ising_rsite_attempts(const clmc_preset *p)
{
    unsigned long long sites = clmc_lattice_sites((int)clmc_preset_int(p, "model.dim"), (int)clmc_preset_int(p, "model.L"));
    return sites / (unsigned long long)clmc_preset_int(p, "algorithm.substeps");
}

/* Problems with a double_tiling or dead_border tile edge, or NULL. */
static const char *tile_problem(int edge, int tile, bool dead_border)
{
    if (dead_border && tile < 4) return "is too small for a dead border (at least 4: a one-site border around the interior)";
    if (!dead_border && (tile < 4 || tile % 4 != 0)) return "must be a multiple of 4 (sub-tiles of an even edge)";
    if (edge % tile != 0) return "must divide model.L";
    if (edge / tile < 2) return "must be at most model.L / 2";
    return NULL;
}

/* Default tile: the first of 16, 8, 4 that fits L. */
static int default_tile(int edge, bool dead_border)
{
    const int candidates[] = {16, 8, 4};
    for (int i = 0; i < 3; i++)
        if (!tile_problem(edge, candidates[i], dead_border)) return candidates[i];
    return 0;
}

static clmc_status validate_tiles(const clmc_preset *p, int edge, int tile, long long substeps, bool dead_border)
{
    int dim = (int)clmc_preset_int(p, "model.dim"), phases = dim == 3 ? 8 : 4;
    if (!dead_border && (substeps > phases || phases % substeps != 0))
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.substeps: double_tiling in %dD takes a divisor of its %d phases "
                         "per sweep, got %lld", dim, phases, substeps);
    if (!tile && !default_tile(edge, dead_border))
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.tile: none of 16, 8, 4 fits model.L = %d (%s)", edge,
                         dead_border ? "dead_border needs at least 4 dividing L, at most L / 2"
                                     : "double_tiling needs a multiple of 4 dividing L, at most L / 2");
    const char *problem = tile ? tile_problem(edge, tile, dead_border) : NULL;
    if (problem) return clmc_fail(CLMC_ERR_INPUT, "algorithm.tile: %d %s (model.L = %d)", tile, problem, edge);
    long long used = tile ? tile : default_tile(edge, dead_border), tile_sites = used * used * (dim == 3 ? used : 1);
    if (dead_border && tile_sites % substeps != 0)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.substeps: %lld must divide the tile's %lld sites (dead_border)",
                         substeps, tile_sites);
    return CLMC_OK;
}

clmc_status clmc_ising_rsite_validate(const clmc_preset *p)
{
    bool wanted = clmc_ising_rsite_wanted(p);
    const char *variant = clmc_preset_string(p, "algorithm.random_site");
    const char *sequence = clmc_preset_string(p, "algorithm.site_sequence");
    long long substeps = clmc_preset_int(p, "algorithm.substeps");
    if (!wanted) {
        if (strcmp(clmc_preset_string(p, "algorithm.type"), "heatbath") == 0)
            return clmc_fail(CLMC_ERR_INPUT, "algorithm.type: \"heatbath\" needs algorithm.layout \"random_site\", got \"%s\"",
                             clmc_preset_string(p, "algorithm.layout"));
        if (strcmp(variant, "none") != 0)
            return clmc_fail(CLMC_ERR_INPUT, "algorithm.random_site: is for algorithm.layout \"random_site\" only, got \"%s\"",
                             clmc_preset_string(p, "algorithm.layout"));
        if (strcmp(sequence, "auto") != 0)
            return clmc_fail(CLMC_ERR_INPUT, "algorithm.site_sequence: is for algorithm.layout \"random_site\" only");
        if (substeps != 1)
            return clmc_fail(CLMC_ERR_INPUT, "algorithm.substeps: %lld needs algorithm.layout \"random_site\" (give 1)",
                             substeps);
        if (clmc_preset_int(p, "algorithm.shift_every") != 1)
            return clmc_fail(CLMC_ERR_INPUT, "algorithm.shift_every: is for random_site \"dead_border\" only (give 1)");
        if (strcmp(clmc_preset_string(p, "algorithm.copies_memory"), "auto") != 0)
            return clmc_fail(CLMC_ERR_INPUT, "algorithm.copies_memory: is for random_site \"copies\" only (give \"auto\")");
        if (strcmp(clmc_preset_string(p, "algorithm.tile_memory"), "auto") != 0)
            return clmc_fail(CLMC_ERR_INPUT, "algorithm.tile_memory: is for random_site \"double_tiling\" and "
                             "\"dead_border\" only (give \"auto\")");
        return CLMC_OK;
    }
    if (strcmp(variant, "none") == 0)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.random_site: layout \"random_site\" needs \"sequential_reference\", "
                         "\"copies\", \"double_tiling\" or \"dead_border\"");
    if (strcmp(variant, "copies") == 0 && strcmp(sequence, "per_copy") == 0)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.site_sequence: \"per_copy\" contradicts algorithm.random_site "
                         "\"copies\" (one site sequence shared by all copies)");
    int edge = (int)clmc_preset_int(p, "model.L"), tile = (int)clmc_preset_int(p, "algorithm.tile");
    bool dead_border = strcmp(variant, "dead_border") == 0;
    if (!dead_border && clmc_preset_int(p, "algorithm.shift_every") != 1)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.shift_every: is for random_site \"dead_border\" only (give 1)");
    if (strcmp(variant, "copies") != 0 && strcmp(clmc_preset_string(p, "algorithm.copies_memory"), "auto") != 0)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.copies_memory: is for random_site \"copies\" only (give \"auto\")");
    if (dead_border || strcmp(variant, "double_tiling") == 0)
        return validate_tiles(p, edge, tile, substeps, dead_border);
    if (strcmp(clmc_preset_string(p, "algorithm.tile_memory"), "auto") != 0)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.tile_memory: is for random_site \"double_tiling\" and "
                         "\"dead_border\" only (give \"auto\")");
    if (tile != 0)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.tile: %d is for layout \"tiled\" and random_site \"double_tiling\" "
                         "only (give 0)", tile);
    unsigned long long sites = clmc_lattice_sites((int)clmc_preset_int(p, "model.dim"), edge);
    if (sites % (unsigned long long)substeps != 0)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.substeps: %lld must divide the %llu sites", substeps, sites);
    return CLMC_OK;
}

/* Words of one copy in the packed copies kernel: 32 sites each. */
static size_t packed_words(cl_uint n_sites)
{
    return ((size_t)n_sites + 31) / 32;
}

/* Local memory of the packed copies kernel: 32 copies' words and the picks. */
static unsigned long long packed_local_bytes(cl_uint n_sites)
{
    return 4ULL * PACKED_WG * packed_words(n_sites) + 4ULL * 4 * PACKED_WG;
}

/* algorithm.copies_memory: packed copies in local memory ("local", or "auto"
 * on a GPU where they fit), else bytes in global memory.  CPU devices (PoCL)
 * emulate local memory in ordinary memory, where the packed kernel is no
 * faster (docs/models/ising.md). */
static clmc_status choose_memory(clmc_ising_rsite *rs, const clmc_preset *p)
{
    const clmc_device_info *d = clmc_runtime_device(rs->rt);
    const char *memory = clmc_preset_string(p, "algorithm.copies_memory");
    bool fits = d->max_work_group_size >= PACKED_WG && packed_local_bytes(rs->n_sites) <= d->local_mem_bytes;
    if (strcmp(memory, "local") == 0 && !fits)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.copies_memory: \"local\" needs %llu bytes of local memory (32 "
                         "copies, one bit a spin) and work-groups of %d; %s has %llu bytes and %zu work-items (give \"auto\" "
                         "or \"global\")", packed_local_bytes(rs->n_sites), PACKED_WG, d->name,
                         (unsigned long long)d->local_mem_bytes, d->max_work_group_size);
    bool gpu = strcmp(d->type, "GPU") == 0;
    rs->packed = rs->copies && fits && (strcmp(memory, "local") == 0 || (strcmp(memory, "auto") == 0 && gpu));
    return CLMC_OK;
}

/* Attempts per tile and launch of the tiled variants. */
static size_t tile_attempts(const clmc_ising_rsite *rs)
{
    size_t tile = (size_t)rs->tile, sites = tile * tile * (rs->dim == 3 ? tile : 1);
    return rs->dead_border ? sites / (size_t)rs->substeps : sites >> rs->dim;
}

/* Local bytes of one tile of the local-memory kernels: its box (dead_border
 * the whole tile, double_tiling the active sub-tile and its one-site halo)
 * and a chunk of plan words. */
static size_t tile_local_bytes(const clmc_ising_rsite *rs)
{
    size_t edge = rs->dead_border ? (size_t)rs->tile : (size_t)rs->tile / 2 + 2;
    return edge * edge * (rs->dim == 3 ? edge : 1) + sizeof(cl_uint) * rs->chunk;
}

/* algorithm.tile_memory: the local-memory kernels take work-groups of wg (up
 * to 64) items holding group_tiles tiles, the largest power of two up to wg
 * whose tiles fit the device's local memory (halved while half of it still
 * holds every tile), and plan chunks of 64 attempts (fewer where a tile makes
 * fewer, rounded up to 4); "auto" falls back to the global-memory kernels
 * where not even one tile fits. */
static clmc_status choose_tile_memory(clmc_ising_rsite *rs, const clmc_preset *p)
{
    const clmc_device_info *d = clmc_runtime_device(rs->rt);
    const char *wanted = clmc_preset_string(p, "algorithm.tile_memory");
    size_t attempts = (tile_attempts(rs) + 3) / 4 * 4;
    rs->chunk = attempts < CHUNK_MAX ? attempts : CHUNK_MAX;
    size_t bytes = tile_local_bytes(rs);
    rs->tiles = (size_t)clmc_lattice_sites(rs->dim, rs->edge / rs->tile);
    rs->group_tiles = rs->wg;
    while (rs->group_tiles > 1 && rs->group_tiles * bytes > d->local_mem_bytes) rs->group_tiles /= 2;
    while (rs->group_tiles > 1 && rs->group_tiles / 2 >= rs->tiles) rs->group_tiles /= 2;
    bool fits = bytes <= d->local_mem_bytes;
    if (strcmp(wanted, "local") == 0 && !fits)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.tile_memory: \"local\" needs %zu bytes of local memory per tile "
                         "(algorithm.tile %d), %s has %llu", bytes, rs->tile, d->name,
                         (unsigned long long)d->local_mem_bytes);
    rs->local = fits && strcmp(wanted, "global") != 0;
    return CLMC_OK;
}

static clmc_status build(clmc_ising_rsite *rs, const clmc_preset *p)
{
    const clmc_device_info *d = clmc_runtime_device(rs->rt);
    size_t limit = d->max_work_group_size < COPIES_WG_MAX ? d->max_work_group_size : COPIES_WG_MAX;
    rs->wg = clmc_power_of_two_at_most(limit);
    if (rs->tile) CLMC_TRY(choose_tile_memory(rs, p));
    else
        while (rs->wg > 1 && rs->wg / 2 >= rs->n_configs) rs->wg /= 2;
    if (rs->copies) CLMC_TRY(choose_memory(rs, p));
    if (rs->packed) rs->wg = PACKED_WG;
    const char *sequence = clmc_preset_string(p, "algorithm.site_sequence");
    bool shared = rs->copies || strcmp(sequence, "shared") == 0;
    clmc_defines options = {0};
    clmc_defines_text(&options, "-cl-std=CL1.2");
    clmc_defines_int(&options, "DIM", rs->dim);
    clmc_defines_int(&options, "EDGE", clmc_preset_int(p, "model.L"));
    clmc_defines_int(&options, "CONFIGS", rs->n_configs);
    clmc_defines_int(&options, "ATTEMPTS", (long long)clmc_ising_rsite_attempts(p));
    clmc_defines_int(&options, "SHARED_SITES", shared);
    clmc_defines_int(&options, "HEATBATH", rs->heatbath);
    clmc_defines_int(&options, "RS_WG", (long long)rs->wg);
    clmc_defines_int(&options, "RS_LOCAL", rs->packed);
    unsigned first_system = clmc_preset_systems(p)->first_system;
    if (first_system) clmc_defines_int(&options, "CLMC_FIRST_SYSTEM", first_system);
    if (rs->tile) clmc_defines_int(&options, "RS_TILE", rs->tile);
    long long tile_sites = (long long)rs->tile * rs->tile * (rs->dim == 3 ? rs->tile : 1);
    if (rs->dead_border) clmc_defines_int(&options, "TILE_ATTEMPTS", tile_sites / rs->substeps);
    if (rs->local) {
        clmc_defines_int(&options, "RS_LWG", (long long)rs->wg);
        clmc_defines_int(&options, "RS_GROUP_TILES", (long long)rs->group_tiles);
        clmc_defines_int(&options, "RS_CHUNK", (long long)rs->chunk);
    }
    CLMC_TRY(clmc_defines_build(rs->rt, "ising/random_site.cl", &options, &rs->program));
    const char *kernel = rs->dead_border ? (rs->local ? "rsite_dead_border_local" : "rsite_dead_border")
                       : rs->tile      ? (rs->local ? "rsite_double_tiling_local" : "rsite_double_tiling")
                       : rs->copies    ? "rsite_copies"
                                       : "rsite_sequential";
    CLMC_TRY(clmc_kernel_create(rs->program, kernel, &rs->update));
    CLMC_TRY(clmc_kernel_create(rs->program, "rsite_to_copies", &rs->to_copies));
    return clmc_kernel_create(rs->program, "rsite_from_copies", &rs->from_copies);
}

/* Blocks of PACKED_WG copies. */
static size_t packed_blocks(const clmc_ising_rsite *rs)
{
    return (rs->n_configs + PACKED_WG - 1) / PACKED_WG;
}

/* Config-major spins <-> the copies kernel's storage (rsite_to_copies runs
 * per packed word and configuration of whole blocks when packed). */
static clmc_status transpose(clmc_ising_rsite *rs, cl_kernel kernel, cl_mem from, cl_mem to)
{
    CLMC_CL_TRY(clSetKernelArg(kernel, 0, sizeof(cl_mem), &from));
    CLMC_CL_TRY(clSetKernelArg(kernel, 1, sizeof(cl_mem), &to));
    bool to_packed = rs->packed && kernel == rs->to_copies;
    size_t global[2] = {to_packed ? packed_words(rs->n_sites) : rs->n_sites,
                        to_packed ? packed_blocks(rs) * PACKED_WG : rs->n_configs};
    return clmc_enqueue(rs->rt, kernel, 2, global, NULL, CLMC_UNTIMED);
}

clmc_status clmc_ising_rsite_create(clmc_runtime *rt, clmc_preset *p, cl_mem spins, cl_uint n_configs,
                                    clmc_ising_rsite **out)
{
    clmc_ising_rsite *rs = calloc(1, sizeof *rs);
    if (!rs) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    *out = rs;
    rs->rt = rt;
    rs->dim = (int)clmc_preset_int(p, "model.dim");
    rs->edge = (int)clmc_preset_int(p, "model.L");
    rs->n_sites = (cl_uint)clmc_lattice_sites(rs->dim, (int)clmc_preset_int(p, "model.L"));
    rs->n_configs = n_configs;
    rs->copies = strcmp(clmc_preset_string(p, "algorithm.random_site"), "copies") == 0;
    rs->heatbath = strcmp(clmc_preset_string(p, "algorithm.type"), "heatbath") == 0;
    rs->spins = spins;
    rs->substeps = (int)clmc_preset_int(p, "algorithm.substeps");
    rs->dead_border = strcmp(clmc_preset_string(p, "algorithm.random_site"), "dead_border") == 0;
    rs->shift_every = clmc_preset_int(p, "algorithm.shift_every");
    if (rs->dead_border || strcmp(clmc_preset_string(p, "algorithm.random_site"), "double_tiling") == 0) {
        rs->tile = (int)clmc_preset_int(p, "algorithm.tile");
        if (!rs->tile) {
            rs->tile = default_tile((int)clmc_preset_int(p, "model.L"), rs->dead_border);
            clmc_preset_set_int(p, "algorithm.tile", rs->tile);
        }
    }
    unsigned long long seed = (unsigned long long)clmc_preset_run(p)->seed;
    rs->seed_lo = (cl_uint)(seed & 0xffffffffu);
    rs->seed_hi = (cl_uint)(seed >> 32);
    CLMC_TRY(build(rs, p));
    size_t threshold_bytes = THRESHOLD_STRIDE * sizeof(cl_uint) * n_configs;
    CLMC_TRY(clmc_buffer_create(rt, threshold_bytes, NULL, "random-site thresholds", &rs->thresholds));
    rs->thresholds_host = calloc(THRESHOLD_STRIDE * (size_t)n_configs, sizeof(cl_uint));
    if (!rs->thresholds_host) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    cl_mem target = spins;
    if (rs->copies) {
        size_t bytes = rs->packed ? packed_blocks(rs) * PACKED_WG * packed_words(rs->n_sites) * sizeof(cl_uint)
                                  : (size_t)rs->n_sites * n_configs;
        CLMC_TRY(clmc_buffer_create(rt, bytes, NULL, "random-site copies", &rs->by_site));
        CLMC_TRY(transpose(rs, rs->to_copies, spins, rs->by_site));
        target = rs->by_site;
    }
    CLMC_CL_TRY(clSetKernelArg(rs->update, 0, sizeof(cl_mem), &target));
    CLMC_CL_TRY(clSetKernelArg(rs->update, 1, sizeof(cl_uint), &rs->seed_lo));
    CLMC_CL_TRY(clSetKernelArg(rs->update, 2, sizeof(cl_uint), &rs->seed_hi));
    CLMC_CL_TRY(clSetKernelArg(rs->update, 5, sizeof(cl_mem), &rs->thresholds));
    return CLMC_OK;
}

void clmc_ising_rsite_destroy(clmc_ising_rsite *rs)
{
    if (!rs) return;
    if (rs->update) CLMC_CL_WARN(clReleaseKernel(rs->update));
    if (rs->to_copies) CLMC_CL_WARN(clReleaseKernel(rs->to_copies));
    if (rs->from_copies) CLMC_CL_WARN(clReleaseKernel(rs->from_copies));
    if (rs->program) CLMC_CL_WARN(clReleaseProgram(rs->program));
    if (rs->by_site) CLMC_CL_WARN(clReleaseMemObject(rs->by_site));
    if (rs->thresholds) CLMC_CL_WARN(clReleaseMemObject(rs->thresholds));
    if (rs->rt) CLMC_CL_WARN(clFinish(clmc_runtime_queue(rs->rt))); /* pending writes read thresholds_host */
    free(rs->thresholds_host);
    free(rs);
}

/* One launch of a tiled variant: a work-item per tile (global memory) or
 * work-groups of wg items per group_tiles tiles (local memory). */
static clmc_status tiled_launch(clmc_ising_rsite *rs)
{
    if (!rs->local) {
        size_t global[2] = {rs->tiles, rs->n_configs};
        return clmc_enqueue(rs->rt, rs->update, 2, global, NULL, CLMC_TIMED);
    }
    size_t global[2] = {(rs->tiles + rs->group_tiles - 1) / rs->group_tiles * rs->wg, rs->n_configs}, local[2] = {rs->wg, 1};
    return clmc_enqueue(rs->rt, rs->update, 2, global, local, CLMC_TIMED);
}

/* double_tiling: step s of substeps k runs phases (s mod k) P/k .. of sweep
 * s / k (P = 2^dim phases per sweep). */
static clmc_status double_tiling_step(clmc_ising_rsite *rs, uint64_t step)
{
    uint64_t sweep = step / (uint64_t)rs->substeps;
    cl_uint lo = (cl_uint)(sweep & 0xffffffffu), hi = (cl_uint)(sweep >> 32);
    cl_uint phases = (rs->dim == 3 ? 8u : 4u) / (cl_uint)rs->substeps;
    CLMC_CL_TRY(clSetKernelArg(rs->update, 3, sizeof(cl_uint), &lo));
    CLMC_CL_TRY(clSetKernelArg(rs->update, 4, sizeof(cl_uint), &hi));
    for (cl_uint k = 0; k < phases; k++) {
        cl_uint phase = (cl_uint)(step % (uint64_t)rs->substeps) * phases + k;
        CLMC_CL_TRY(clSetKernelArg(rs->update, 6, sizeof(cl_uint), &phase));
        CLMC_TRY(tiled_launch(rs));
    }
    return CLMC_OK;
}

/* dead_border: one launch per step; the origin of segment (step / substeps) / shift_every. */
static clmc_status dead_border_step(clmc_ising_rsite *rs, uint64_t step)
{
    uint64_t segment = step / (uint64_t)rs->substeps / (uint64_t)rs->shift_every;
    cl_uint args[4] = {(cl_uint)(step & 0xffffffffu), (cl_uint)(step >> 32), (cl_uint)(segment & 0xffffffffu),
                       (cl_uint)(segment >> 32)};
    CLMC_CL_TRY(clSetKernelArg(rs->update, 3, sizeof(cl_uint), &args[0]));
    CLMC_CL_TRY(clSetKernelArg(rs->update, 4, sizeof(cl_uint), &args[1]));
    CLMC_CL_TRY(clSetKernelArg(rs->update, 6, sizeof(cl_uint), &args[2]));
    CLMC_CL_TRY(clSetKernelArg(rs->update, 7, sizeof(cl_uint), &args[3]));
    return tiled_launch(rs);
}

clmc_status clmc_ising_rsite_step(clmc_ising_rsite *rs, uint64_t step)
{
    if (rs->dead_border) return dead_border_step(rs, step);
    if (rs->tile) return double_tiling_step(rs, step);
    cl_uint lo = (cl_uint)(step & 0xffffffffu), hi = (cl_uint)(step >> 32);
    CLMC_CL_TRY(clSetKernelArg(rs->update, 3, sizeof(cl_uint), &lo));
    CLMC_CL_TRY(clSetKernelArg(rs->update, 4, sizeof(cl_uint), &hi));
    size_t local = rs->wg, global = (rs->n_configs + local - 1) / local * local;
    rs->dirty = rs->copies;
    return clmc_enqueue(rs->rt, rs->update, 1, &global, rs->copies ? &local : NULL, CLMC_TIMED);
}

/* Flip thresholds floor(p 2^32) per number of aligned neighbours a (0 ..
 * 2 dim), dE = 4 a - 4 dim: Metropolis p = exp(-beta dE) for dE > 0 (the
 * others are accepted outright), heat bath p = 1 / (1 + exp(beta dE)). */
static void thresholds_of(double beta, int dim, bool heatbath, cl_uint *t)
{
    for (int a = 0; a <= 2 * dim; a++) {
        double dE = 4.0 * a - 4.0 * dim;
        double p = heatbath ? 1.0 / (1.0 + exp(beta * dE)) : (dE > 0 ? exp(-beta * dE) : 1.0);
        double scaled = floor(ldexp(p, 32));
        t[a] = scaled >= 4294967295.0 ? 4294967295u : (cl_uint)scaled;
    }
}

clmc_status clmc_ising_rsite_set_betas(clmc_ising_rsite *rs, const double *betas)
{
    for (cl_uint c = 0; c < rs->n_configs; c++)
        thresholds_of(betas[c], rs->dim, rs->heatbath, rs->thresholds_host + THRESHOLD_STRIDE * c);
    CLMC_CL_TRY(clEnqueueWriteBuffer(clmc_runtime_queue(rs->rt), rs->thresholds, CL_FALSE, 0,
                                     THRESHOLD_STRIDE * sizeof(cl_uint) * rs->n_configs, rs->thresholds_host, 0,
                                     NULL, NULL));
    return CLMC_OK;
}

clmc_status clmc_ising_rsite_sync(clmc_ising_rsite *rs)
{
    if (!rs->dirty) return CLMC_OK;
    rs->dirty = false;
    return transpose(rs, rs->from_copies, rs->by_site, rs->spins);
}

clmc_status clmc_ising_rsite_reload(clmc_ising_rsite *rs)
{
    rs->dirty = false;
    return rs->copies ? transpose(rs, rs->to_copies, rs->spins, rs->by_site) : CLMC_OK;
}
