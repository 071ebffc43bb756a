/* Random-site dynamics shared by Ising and Potts: keys, kernels and launches
 * (cl/common/random_site.h; docs/models/ising.md, "Random-site dynamics"). */
#include "models/random_site.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/lattice.h"
#include "runtime/defines.h"

#define COPIES_WG_MAX 64

const char *const clmc_random_site_variants[] = {"none", "sequential_reference", "copies", "double_tiling",
                                                 "dead_border", NULL};
const char *const clmc_site_sequences[] = {"auto", "per_copy", "shared", NULL};

struct clmc_rsite {
    clmc_runtime *rt;
    clmc_rsite_model model;
    int dim, edge;
    bool copies, heatbath, dirty;
    bool dead_border;
    int tile, substeps;  /* tile: double_tiling's or dead_border's tile edge, else 0 */
    long long shift_every; /* dead_border: sweeps between origin shifts */
    cl_uint n_sites, n_configs, seed_lo, seed_hi;
    size_t wg;
    cl_mem spins, by_site, thresholds; /* spins: the driver's; by_site: copy-minor (copies only) */
    cl_uint *thresholds_host;
    cl_program program;
    cl_kernel update, to_copies, from_copies;
};

bool clmc_rsite_wanted(const clmc_preset *p)
{
    return strcmp(clmc_preset_string(p, "algorithm.layout"), "random_site") == 0;
}

unsigned long long clmc_rsite_attempts(const clmc_preset *p)
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
    int dim = (int)clmc_preset_int(p, "model.dim");
    if (!dead_border && dim != 2)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.random_site: \"double_tiling\" is implemented for model.dim 2 only");
    if (!dead_border && substeps != 1 && substeps != 2 && substeps != 4)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.substeps: double_tiling takes 1, 2 or 4 (phases of a sweep), "
                         "got %lld", substeps);
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

/* Outside layout random_site its keys keep their defaults. */
static clmc_status validate_unused(const clmc_preset *p, bool tiles)
{
    if (strcmp(clmc_preset_string(p, "algorithm.type"), "heatbath") == 0)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.type: \"heatbath\" needs algorithm.layout \"random_site\", got \"%s\"",
                         clmc_preset_string(p, "algorithm.layout"));
    if (strcmp(clmc_preset_string(p, "algorithm.random_site"), "none") != 0)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.random_site: is for algorithm.layout \"random_site\" only, got \"%s\"",
                         clmc_preset_string(p, "algorithm.layout"));
    if (strcmp(clmc_preset_string(p, "algorithm.site_sequence"), "auto") != 0)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.site_sequence: is for algorithm.layout \"random_site\" only");
    long long substeps = clmc_preset_int(p, "algorithm.substeps");
    if (substeps != 1)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.substeps: %lld needs algorithm.layout \"random_site\" (give 1)",
                         substeps);
    if (tiles && clmc_preset_int(p, "algorithm.shift_every") != 1)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.shift_every: is for random_site \"dead_border\" only (give 1)");
    return CLMC_OK;
}

clmc_status clmc_rsite_validate(const clmc_preset *p, bool tiles)
{
    if (!clmc_rsite_wanted(p)) return validate_unused(p, tiles);
    const char *variant = clmc_preset_string(p, "algorithm.random_site");
    const char *sequence = clmc_preset_string(p, "algorithm.site_sequence");
    long long substeps = clmc_preset_int(p, "algorithm.substeps");
    if (strcmp(variant, "none") == 0)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.random_site: layout \"random_site\" needs \"sequential_reference\", "
                         "\"copies\"%s", tiles ? ", \"double_tiling\" or \"dead_border\"" : " (model.type \"potts\")");
    bool dead_border = strcmp(variant, "dead_border") == 0, double_tiling = strcmp(variant, "double_tiling") == 0;
    if (!tiles && (dead_border || double_tiling))
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.random_site: \"%s\" is offered for model.type \"ising\" only; "
                         "give \"sequential_reference\" or \"copies\"", variant);
    if (strcmp(variant, "copies") == 0 && strcmp(sequence, "per_copy") == 0)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.site_sequence: \"per_copy\" contradicts algorithm.random_site "
                         "\"copies\" (one site sequence shared by all copies)");
    int edge = (int)clmc_preset_int(p, "model.L");
    if (tiles) {
        int tile = (int)clmc_preset_int(p, "algorithm.tile");
        if (!dead_border && clmc_preset_int(p, "algorithm.shift_every") != 1)
            return clmc_fail(CLMC_ERR_INPUT, "algorithm.shift_every: is for random_site \"dead_border\" only (give 1)");
        if (dead_border || double_tiling) return validate_tiles(p, edge, tile, substeps, dead_border);
        if (tile != 0)
            return clmc_fail(CLMC_ERR_INPUT, "algorithm.tile: %d is for layout \"tiled\" and random_site \"double_tiling\" "
                             "only (give 0)", tile);
    }
    unsigned long long sites = clmc_lattice_sites((int)clmc_preset_int(p, "model.dim"), edge);
    if (sites % (unsigned long long)substeps != 0)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.substeps: %lld must divide the %llu sites", substeps, sites);
    if (strcmp(variant, "copies") == 0 && clmc_preset_is_population(p))
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.random_site: \"copies\" holds the spins apart from the buffer "
                         "population annealing resamples; give \"sequential_reference\"");
    return CLMC_OK;
}

static clmc_status build(clmc_rsite *rs, const clmc_preset *p)
{
    const clmc_device_info *d = clmc_runtime_device(rs->rt);
    size_t limit = d->max_work_group_size < COPIES_WG_MAX ? d->max_work_group_size : COPIES_WG_MAX;
    rs->wg = clmc_power_of_two_at_most(limit);
    while (rs->wg > 1 && rs->wg / 2 >= rs->n_configs) rs->wg /= 2;
    const char *sequence = clmc_preset_string(p, "algorithm.site_sequence");
    bool shared = rs->copies || strcmp(sequence, "shared") == 0;
    clmc_defines options = {0};
    clmc_defines_text(&options, "-cl-std=CL1.2");
    clmc_defines_int(&options, "DIM", rs->dim);
    clmc_defines_int(&options, "EDGE", clmc_preset_int(p, "model.L"));
    clmc_defines_int(&options, "CONFIGS", rs->n_configs);
    clmc_defines_int(&options, "ATTEMPTS", (long long)clmc_rsite_attempts(p));
    clmc_defines_int(&options, "SHARED_SITES", shared);
    clmc_defines_int(&options, "HEATBATH", rs->heatbath);
    clmc_defines_int(&options, "RS_WG", (long long)rs->wg);
    unsigned first_system = clmc_preset_systems(p)->first_system;
    if (first_system) clmc_defines_int(&options, "CLMC_FIRST_SYSTEM", first_system);
    if (rs->tile) clmc_defines_int(&options, "RS_TILE", rs->tile);
    long long tile_sites = (long long)rs->tile * rs->tile * (rs->dim == 3 ? rs->tile : 1);
    if (rs->dead_border) clmc_defines_int(&options, "TILE_ATTEMPTS", tile_sites / rs->substeps);
    if (rs->model.q) clmc_defines_int(&options, "Q", rs->model.q);
    CLMC_TRY(clmc_defines_build(rs->rt, rs->model.program, &options, &rs->program));
    const char *kernel = rs->dead_border ? "rsite_dead_border"
                       : rs->tile      ? "rsite_double_tiling"
                       : rs->copies    ? "rsite_copies"
                                       : "rsite_sequential";
    CLMC_TRY(clmc_kernel_create(rs->program, kernel, &rs->update));
    CLMC_TRY(clmc_kernel_create(rs->program, "rsite_to_copies", &rs->to_copies));
    return clmc_kernel_create(rs->program, "rsite_from_copies", &rs->from_copies);
}

static clmc_status transpose(clmc_rsite *rs, cl_kernel kernel, cl_mem from, cl_mem to)
{
    CLMC_CL_TRY(clSetKernelArg(kernel, 0, sizeof(cl_mem), &from));
    CLMC_CL_TRY(clSetKernelArg(kernel, 1, sizeof(cl_mem), &to));
    size_t global[2] = {rs->n_sites, rs->n_configs};
    return clmc_enqueue(rs->rt, kernel, 2, global, NULL, CLMC_UNTIMED);
}

clmc_status clmc_rsite_create(clmc_runtime *rt, clmc_preset *p, const clmc_rsite_model *model, cl_mem spins,
                              cl_uint n_configs, clmc_rsite **out)
{
    clmc_rsite *rs = calloc(1, sizeof *rs);
    if (!rs) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    *out = rs;
    rs->rt = rt;
    rs->model = *model;
    rs->dim = (int)clmc_preset_int(p, "model.dim");
    rs->edge = (int)clmc_preset_int(p, "model.L");
    rs->n_sites = (cl_uint)clmc_lattice_sites(rs->dim, (int)clmc_preset_int(p, "model.L"));
    rs->n_configs = n_configs;
    rs->copies = strcmp(clmc_preset_string(p, "algorithm.random_site"), "copies") == 0;
    rs->heatbath = strcmp(clmc_preset_string(p, "algorithm.type"), "heatbath") == 0;
    rs->spins = spins;
    rs->substeps = (int)clmc_preset_int(p, "algorithm.substeps");
    rs->dead_border = strcmp(clmc_preset_string(p, "algorithm.random_site"), "dead_border") == 0;
    rs->shift_every = model->tiles ? clmc_preset_int(p, "algorithm.shift_every") : 1;
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
    size_t threshold_bytes = rs->model.table_stride * sizeof(cl_uint) * n_configs;
    CLMC_TRY(clmc_buffer_create(rt, threshold_bytes, NULL, "random-site thresholds", &rs->thresholds));
    rs->thresholds_host = calloc(rs->model.table_stride * (size_t)n_configs, sizeof(cl_uint));
    if (!rs->thresholds_host) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    cl_mem target = spins;
    if (rs->copies) {
        CLMC_TRY(clmc_buffer_create(rt, (size_t)rs->n_sites * n_configs, NULL, "random-site copies", &rs->by_site));
        CLMC_TRY(transpose(rs, rs->to_copies, spins, rs->by_site));
        target = rs->by_site;
    }
    CLMC_CL_TRY(clSetKernelArg(rs->update, 0, sizeof(cl_mem), &target));
    CLMC_CL_TRY(clSetKernelArg(rs->update, 1, sizeof(cl_uint), &rs->seed_lo));
    CLMC_CL_TRY(clSetKernelArg(rs->update, 2, sizeof(cl_uint), &rs->seed_hi));
    CLMC_CL_TRY(clSetKernelArg(rs->update, 5, sizeof(cl_mem), &rs->thresholds));
    return CLMC_OK;
}

void clmc_rsite_destroy(clmc_rsite *rs)
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

/* double_tiling: step s of substeps k runs phases (s mod k) 4/k .. of sweep s / k. */
static clmc_status double_tiling_step(clmc_rsite *rs, uint64_t step)
{
    uint64_t sweep = step / (uint64_t)rs->substeps;
    cl_uint lo = (cl_uint)(sweep & 0xffffffffu), hi = (cl_uint)(sweep >> 32), phases = 4 / (cl_uint)rs->substeps;
    CLMC_CL_TRY(clSetKernelArg(rs->update, 3, sizeof(cl_uint), &lo));
    CLMC_CL_TRY(clSetKernelArg(rs->update, 4, sizeof(cl_uint), &hi));
    size_t tiles_per_edge = (size_t)(rs->edge / rs->tile), global[2] = {tiles_per_edge * tiles_per_edge, rs->n_configs};
    for (cl_uint k = 0; k < phases; k++) {
        cl_uint phase = (cl_uint)(step % (uint64_t)rs->substeps) * phases + k;
        CLMC_CL_TRY(clSetKernelArg(rs->update, 6, sizeof(cl_uint), &phase));
        CLMC_TRY(clmc_enqueue(rs->rt, rs->update, 2, global, NULL, CLMC_TIMED));
    }
    return CLMC_OK;
}

/* dead_border: one launch per step; the origin of segment (step / substeps) / shift_every. */
static clmc_status dead_border_step(clmc_rsite *rs, uint64_t step)
{
    uint64_t segment = step / (uint64_t)rs->substeps / (uint64_t)rs->shift_every;
    cl_uint args[4] = {(cl_uint)(step & 0xffffffffu), (cl_uint)(step >> 32), (cl_uint)(segment & 0xffffffffu),
                       (cl_uint)(segment >> 32)};
    CLMC_CL_TRY(clSetKernelArg(rs->update, 3, sizeof(cl_uint), &args[0]));
    CLMC_CL_TRY(clSetKernelArg(rs->update, 4, sizeof(cl_uint), &args[1]));
    CLMC_CL_TRY(clSetKernelArg(rs->update, 6, sizeof(cl_uint), &args[2]));
    CLMC_CL_TRY(clSetKernelArg(rs->update, 7, sizeof(cl_uint), &args[3]));
    size_t tiles = (size_t)clmc_lattice_sites(rs->dim, rs->edge / rs->tile), global[2] = {tiles, rs->n_configs};
    return clmc_enqueue(rs->rt, rs->update, 2, global, NULL, CLMC_TIMED);
}

clmc_status clmc_rsite_step(clmc_rsite *rs, uint64_t step)
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

clmc_status clmc_rsite_set_betas(clmc_rsite *rs, const double *betas)
{
    for (cl_uint c = 0; c < rs->n_configs; c++)
        rs->model.table(betas[c], rs->dim, rs->model.q, rs->heatbath, rs->thresholds_host + rs->model.table_stride * c);
    CLMC_CL_TRY(clEnqueueWriteBuffer(clmc_runtime_queue(rs->rt), rs->thresholds, CL_FALSE, 0,
                                     rs->model.table_stride * sizeof(cl_uint) * rs->n_configs, rs->thresholds_host, 0,
                                     NULL, NULL));
    return CLMC_OK;
}

clmc_status clmc_rsite_sync(clmc_rsite *rs)
{
    if (!rs->dirty) return CLMC_OK;
    rs->dirty = false;
    return transpose(rs, rs->from_copies, rs->by_site, rs->spins);
}

clmc_status clmc_rsite_reload(clmc_rsite *rs)
{
    rs->dirty = false;
    return rs->copies ? transpose(rs, rs->to_copies, rs->spins, rs->by_site) : CLMC_OK;
}
