/* Host side of the O(n) vector spin models (XY, Heisenberg ferromagnets and
 * spin glasses): validation, kernel set-up, the sweep mix (Metropolis or
 * heat-bath sub-sweeps followed by over-relaxation ones, naive or tiled),
 * measurements and the checks (spin lengths, energy drift of pure
 * over-relaxation); the glass adds its couplings, overlaps and naive update
 * through heisenberg_extension (heisenberg_glass.c). */
#include "models/heisenberg/heisenberg_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/measure.h"
#include "models/ensemble_hooks.h"
#include "models/lattice.h"

#define MEASURE_WG_MAX 256
#define MEASURE_GROUPS_MAX 1024
#define MOVE_METROPOLIS 0u
#define MOVE_HEATBATH 1u
#define MOVE_OVERRELAXATION 2u

static const char *const series_columns[] = {"energy", "magnetization", NULL};

static const char *tile_problem(int edge, int tile)
{
    if (tile < 2 || tile % 2 != 0) return "must be an even number >= 2";
    if (edge % tile != 0) return "must divide model.L";
    if ((edge / tile) % 2 != 0) return "must leave an even number of tiles along an edge (L / tile even)";
    return NULL;
}

/* Reproducible mode has a float function library only, and excludes the
 * device's fast math. */
static clmc_status check_reproducible(const clmc_preset *p)
{
    if (!clmc_preset_bool(p, "algorithm.reproducible")) return CLMC_OK;
    if (strcmp(clmc_preset_string(p, "model.precision"), "double") == 0)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.reproducible: true needs model.precision \"float\" (no "
                         "reproducible double-precision functions yet); set it false for double");
    if (clmc_preset_bool(p, "algorithm.fast_math"))
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.reproducible: true excludes algorithm.fast_math true (native "
                         "functions differ between devices); set one of them false");
    return CLMC_OK;
}

/* Population annealing of the ferromagnet: a stochastic update (pure
 * over-relaxation keeps the energy) and counter-based random numbers (a
 * copied member must draw fresh numbers from its slot's stream). */
static clmc_status check_population(const clmc_preset *p)
{
    if (strcmp(clmc_preset_string(p, "algorithm.type"), "overrelaxation") == 0)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.type: \"overrelaxation\" keeps the energy and cannot anneal; "
                         "population annealing needs \"heatbath\" or \"metropolis\" (with "
                         "algorithm.overrelaxation_steps)");
    clmc_rng_kind rng = clmc_rng_from_preset(p);
    if (clmc_rng_stateful(rng))
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.rng: \"%s\" keeps generator states, which population "
                         "annealing's copies of members cannot carry; use a Philox generator", clmc_rng_names[rng]);
    return CLMC_OK;
}

clmc_status clmc_heisenberg_validate(const clmc_preset *p)
{
    CLMC_TRY(check_reproducible(p));
    if (clmc_preset_is_population(p) && strcmp(clmc_preset_string(p, "model.type"), "heisenberg_glass") != 0)
        CLMC_TRY(check_population(p));
    int dim = (int)clmc_preset_int(p, "model.dim"), edge = (int)clmc_preset_int(p, "model.L");
    int tile = (int)clmc_preset_int(p, "algorithm.tile");
    const char *layout = clmc_preset_string(p, "algorithm.layout");
    bool tiled = strcmp(layout, "naive") != 0, planes = strcmp(layout, "planes") == 0;
    bool pure_or = strcmp(clmc_preset_string(p, "algorithm.type"), "overrelaxation") == 0;
    bool glass = strcmp(clmc_preset_string(p, "model.type"), "heisenberg_glass") == 0;
    bool independent = clmc_preset_systems(p)->independent;
    unsigned long long temperatures = clmc_preset_betas(p, NULL, 0), configs = 1;
    if (temperatures > 1 && !glass && !independent)
        return clmc_fail(CLMC_ERR_INPUT, "ensemble: the heisenberg ferromagnet has no parallel tempering; "
                         "give ensemble.beta (or ensemble.type \"independent\")");
    if (glass) configs = 2 * temperatures * (unsigned long long)clmc_preset_int(p, "model.realizations");
    if (configs > (1ULL << 24)) /* CLMC_STREAM keeps 24 bits of the configuration */
        return clmc_fail(CLMC_ERR_INPUT, "model.realizations: 2 x realizations x temperatures = %llu configurations "
                         "exceed the 2^24 that have their own random streams", configs);
    if (temperatures > 1 && pure_or && !independent)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.type: \"overrelaxation\" keeps the energy and cannot be tempered; "
                         "use \"heatbath\" or \"metropolis\" (with algorithm.overrelaxation_steps)");
    if (edge % 2 != 0) return clmc_fail(CLMC_ERR_INPUT, "model.L: must be even for the checkerboard, got %d", edge);
    if (clmc_lattice_sites(dim, edge) >= (1ULL << 31))
        return clmc_fail(CLMC_ERR_INPUT, "model.L: %d^%d sites exceed the 2^31 the measurement sums hold", edge, dim);
    if (pure_or && clmc_preset_int(p, "algorithm.overrelaxation_steps") != 0)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.overrelaxation_steps: type \"overrelaxation\" is over-relaxation "
                         "only; give its sub-sweeps as algorithm.hits");
    if (!tiled && tile != 0)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.tile: only for layouts \"tiled\" and \"planes\"; got %d", tile);
    if (planes && dim != 3)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.layout: \"planes\" marches along z and needs model.dim 3");
    const char *problem = tiled && tile != 0 ? tile_problem(edge, tile) : NULL;
    if (problem) return clmc_fail(CLMC_ERR_INPUT, "algorithm.tile: %d %s (model.L = %d)", tile, problem, edge);
    /* The glass has no algorithm.rng: the default. */
    clmc_rng_kind rng = clmc_rng_from_preset(p);
    if (rng == CLMC_RNG_LCG64_RESEEDED)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.rng: \"lcg64_reseeded\" is for the Ising model's multi-spin "
                         "coded population annealing; model.type \"heisenberg\" takes the others (docs/rng.md)");
    unsigned ring = 0;
    if (clmc_rng_lagfib(rng, &ring, NULL, NULL) && clmc_lattice_sites(dim, edge) / 2 * ring >= (1ULL << 32))
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.rng: \"%s\" gives each of the %llu site pairs a ring of %u words; "
                         "more than the 2^32 words the kernels index (make model.L smaller)",
                         clmc_rng_names[rng], (unsigned long long)(clmc_lattice_sites(dim, edge) / 2), ring);
    if (clmc_rng_stateful(rng) && tiled)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.rng: \"%s\" is not available with algorithm.layout \"%s\" "
                         "of model.type \"heisenberg\"; give algorithm.layout \"naive\"", clmc_rng_names[rng], layout);
    return CLMC_OK;
}

clmc_status clmc_heisenberg_check_precision(bool want_double, bool device_has_fp64, const char *device_name)
{
    if (want_double && !device_has_fp64)
        return clmc_fail(CLMC_ERR_INPUT, "model.precision: \"double\" needs double-precision support (cl_khr_fp64), "
                         "which device \"%s\" lacks; use \"float\" or another device", device_name);
    return CLMC_OK;
}

static clmc_status check_precision(heisenberg_state *s)
{
    cl_device_id device;
    CLMC_CL_TRY(clGetCommandQueueInfo(clmc_runtime_queue(s->rt), CL_QUEUE_DEVICE, sizeof device, &device, NULL));
    cl_device_fp_config fp64 = 0;
    CLMC_CL_TRY(clGetDeviceInfo(device, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp64, &fp64, NULL));
    return clmc_heisenberg_check_precision(s->is_double, fp64 != 0, clmc_runtime_device(s->rt)->name);
}

/* Work-items of a tile (one site of each colour each), or of a column of
 * the planes layout (one site of a colour in each of two planes). */
static size_t tile_items(const heisenberg_state *s, int tile)
{
    if (s->planes) return (size_t)tile * (size_t)tile;
    return (size_t)tile * (size_t)tile * (s->dim == 3 ? (size_t)tile : 1) / 2;
}

/* Tile and halo (planes: a ring of four halo planes), spins and couplings. */
static size_t tile_local_bytes(const heisenberg_state *s, int tile)
{
    size_t halo = (size_t)tile + 2, per_site = (size_t)s->ncomp + (s->glass ? (size_t)s->dim : 0);
    size_t depth = s->planes ? 4 : (s->dim == 3 ? halo : 1);
    return per_site * clmc_heisenberg_real_bytes(s) * halo * halo * depth;
}

static bool tile_fits_device(const heisenberg_state *s, int tile)
{
    const clmc_device_info *d = clmc_runtime_device(s->rt);
    return tile_items(s, tile) <= d->max_work_group_size && tile_local_bytes(s, tile) <= d->local_mem_bytes;
}

/* Default tile edge: the first candidate that fits lattice and device; the
 * list does not depend on the device type, so the update order is the same
 * on every device that holds the tile. */
static clmc_status resolve_tile(heisenberg_state *s, clmc_preset *p)
{
    const clmc_device_info *d = clmc_runtime_device(s->rt);
    const int candidates_2d[] = {32, 16, 8, 4, 2}, candidates_3d[] = {8, 4, 2, 16, 6};
    const int *candidates = s->dim == 3 && !s->planes ? candidates_3d : candidates_2d;
    for (int i = 0; s->tile == 0 && i < 5; i++) {
        int tile = candidates[i];
        if (!tile_problem(s->edge, tile) && tile_fits_device(s, tile)) s->tile = tile;
    }
    if (s->tile == 0)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.tile: no tile edge fits L = %d on %s", s->edge, d->name);
    clmc_preset_set_int(p, "algorithm.tile", s->tile);
    if (!tile_fits_device(s, s->tile))
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.tile: %d needs %zu work-items per group and %zu bytes of local "
                         "memory; %s allows %zu work-items and %llu bytes", s->tile, tile_items(s, s->tile),
                         tile_local_bytes(s, s->tile), d->name, d->max_work_group_size,
                         (unsigned long long)d->local_mem_bytes);
    s->tiles_per_edge = s->edge / s->tile;
    s->tile_items = tile_items(s, s->tile);
    s->tile_groups = (size_t)clmc_lattice_sites(s->planes ? 2 : s->dim, s->tiles_per_edge) / 2;
    return CLMC_OK;
}

static uint64_t measure_groups_cap(const clmc_preset *p, bool glass);

static clmc_status build_kernels(heisenberg_state *s, clmc_preset *p)
{
    size_t limit = clmc_runtime_device(s->rt)->max_work_group_size;
    s->measure_wg = clmc_power_of_two_at_most(limit < MEASURE_WG_MAX ? limit : MEASURE_WG_MAX);
    size_t groups = (s->n_sites + s->measure_wg - 1) / s->measure_wg;
    size_t most = (size_t)measure_groups_cap(p, s->glass);
    s->measure_groups = groups < most ? groups : most;
    s->naive_items = s->n_sites / 2;
    s->naive_wg = 0;
    clmc_defines options = {0};
    clmc_defines_text(&options, "-cl-std=CL1.2");
    clmc_defines_int(&options, "DIM", s->dim);
    clmc_defines_int(&options, "EDGE", s->edge);
    clmc_defines_int(&options, "NCOMP", s->ncomp);
    clmc_defines_int(&options, "MEASURE_WG", (long long)s->measure_wg);
    /* The ferromagnet's independent systems are samples of one configuration. */
    clmc_defines_int(&options, "CONFIGS", s->glass ? s->n_configs / s->realizations : 1);
    if (s->is_double) clmc_defines_flag(&options, "REAL_DOUBLE");
    if (s->population) clmc_defines_flag(&options, "MEMBER_TOTALS");
    if (s->fast_math) {
        clmc_defines_flag(&options, "FAST_MATH");
        clmc_defines_text(&options, "-cl-fast-relaxed-math");
    }
    const heisenberg_extension *ext = s->extension;
    clmc_status status = s->reproducible ? clmc_defines_reproducible(s->rt, &options) : CLMC_OK;
    if (status == CLMC_OK && ext) status = ext->configure(s, p, &options);
    if (status != CLMC_OK) {
        clmc_defines_free(&options);
        return status;
    }
    if (s->tiled) {
        clmc_defines_int(&options, s->planes ? "PLANE_TILE" : "TILE", s->tile);
        clmc_defines_int(&options, "TILES_PER_EDGE", s->tiles_per_edge);
    }
    s->rng.streams = (cl_uint)s->naive_items; /* stateful generators: naive layout only (validate) */
    s->rng.configs = s->n_configs;
    s->rng.own_rings = true; /* the moves draw varying counts: a lagged Fibonacci ring per work-item */
    clmc_rng_defines(&s->rng, &options);
    CLMC_TRY(clmc_defines_build(s->rt, ext ? ext->kernel_file : "heisenberg/heisenberg.cl", &options, &s->program));
    CLMC_TRY(clmc_kernel_create(s->program, "heisenberg_init", &s->init));
    const char *update = s->planes ? "heisenberg_planes_update"
                                   : (s->tiled ? "heisenberg_tiled_update" : "heisenberg_naive_update");
    if (!s->tiled && ext) update = ext->naive_update;
    CLMC_TRY(clmc_kernel_create(s->program, update, &s->update));
    if (!s->tiled && ext && ext->naive_update_or)
        CLMC_TRY(clmc_kernel_create(s->program, ext->naive_update_or, &s->update_or));
    /* ensemble.first_system: the drawing kernels' last argument (one program for every value). */
    CLMC_TRY(clmc_kernel_set_first_system(s->init, s->first_system));
    CLMC_TRY(clmc_kernel_set_first_system(s->update, s->first_system));
    if (s->update_or) CLMC_TRY(clmc_kernel_set_first_system(s->update_or, s->first_system));
    CLMC_TRY(clmc_kernel_create(s->program, "heisenberg_renormalize", &s->renormalize));
    CLMC_TRY(clmc_kernel_create(s->program, "heisenberg_norm_deviation", &s->norm_deviation));
    CLMC_TRY(clmc_kernel_create(s->program, "heisenberg_fault", &s->fault));
    return clmc_kernel_create(s->program, "heisenberg_measure", &s->measure);
}

static clmc_status allocate(heisenberg_state *s)
{
    size_t spin_bytes = (size_t)s->ncomp * s->n_sites * clmc_heisenberg_real_bytes(s) * s->n_configs;
    CLMC_TRY(clmc_heisenberg_buffer(s, spin_bytes, NULL, &s->spins));
    size_t partial_count = clmc_heisenberg_partials_per_slot(s) * MEASURE_SLOTS(s);
    CLMC_TRY(clmc_heisenberg_buffer(s, partial_count * sizeof(cl_long), NULL, &s->partials));
    CLMC_TRY(clmc_heisenberg_buffer(s, sizeof(cl_uint), NULL, &s->max_deviation));
    CLMC_TRY(clmc_heisenberg_buffer(s, sizeof(cl_uint), NULL, &s->guard_deviation));
    CLMC_TRY(clmc_heisenberg_buffer(s, s->n_configs * clmc_heisenberg_real_bytes(s), NULL, &s->betas));
    double *betas = malloc(s->n_configs * sizeof *betas);
    if (!betas) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    for (cl_uint c = 0; c < s->n_configs; c++) betas[c] = s->beta; /* tempering: set_betas follows */
    clmc_status status = clmc_heisenberg_write_betas(s, betas);
    free(betas);
    CLMC_TRY(status);
    if (s->extension) CLMC_TRY(s->extension->allocate(s));
    else CLMC_TRY(clmc_heisenberg_buffer(s, sizeof(cl_double), NULL, &s->couplings)); /* not read */
    cl_uint zero = 0;
    CLMC_CL_TRY(clEnqueueWriteBuffer(clmc_runtime_queue(s->rt), s->max_deviation, CL_TRUE, 0, sizeof zero, &zero, 0,
                                     NULL, NULL));
    CLMC_TRY(clmc_rng_streams_create(s->rt, s->program, &s->rng, s->seed_lo, s->seed_hi, s->first_system));
    s->partials_host = malloc(partial_count * sizeof(cl_long));
    return s->partials_host ? CLMC_OK : clmc_fail(CLMC_ERR_OTHER, "out of host memory");
}

clmc_status clmc_heisenberg_write_betas(heisenberg_state *s, const double *betas)
{
    cl_double *values = malloc(s->n_configs * sizeof *values);
    if (!values) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    cl_float *floats = (cl_float *)values;
    for (cl_uint c = 0; c < s->n_configs; c++) {
        if (s->is_double) values[c] = betas[c];
        else floats[c] = (cl_float)betas[c];
    }
    cl_int err = clEnqueueWriteBuffer(clmc_runtime_queue(s->rt), s->betas, CL_TRUE, 0,
                                      s->n_configs * clmc_heisenberg_real_bytes(s), values, 0, NULL, NULL);
    free(values);
    CLMC_CL_CHECK(err, "clEnqueueWriteBuffer(betas)");
    return CLMC_OK;
}

static clmc_status set_arguments(heisenberg_state *s)
{
    CLMC_CL_TRY(clSetKernelArg(s->init, 0, sizeof(cl_mem), &s->spins));
    CLMC_CL_TRY(clSetKernelArg(s->init, 1, sizeof(cl_uint), &s->seed_lo));
    CLMC_CL_TRY(clSetKernelArg(s->init, 2, sizeof(cl_uint), &s->seed_hi));
    CLMC_CL_TRY(clSetKernelArg(s->init, 3, sizeof(cl_uint), &s->ordered));
    cl_uint run = 0;
    CLMC_CL_TRY(clSetKernelArg(s->init, 4, sizeof(cl_uint), &run));
    cl_kernel updates[] = {s->update, s->update_or};
    for (int k = 0; k < 2 && updates[k]; k++) {
        CLMC_CL_TRY(clSetKernelArg(updates[k], 0, sizeof(cl_mem), &s->spins));
        CLMC_CL_TRY(clSetKernelArg(updates[k], 1, sizeof(cl_uint), &s->seed_lo));
        CLMC_CL_TRY(clSetKernelArg(updates[k], 2, sizeof(cl_uint), &s->seed_hi));
        CLMC_CL_TRY(clSetKernelArg(updates[k], 7, sizeof(cl_mem), &s->betas));
        CLMC_CL_TRY(clSetKernelArg(updates[k], 8, sizeof(cl_mem), &s->couplings));
    }
    if (s->tiled) CLMC_CL_TRY(clSetKernelArg(s->update, 9, sizeof(cl_uint), &s->mc_move));
    if (s->rng.states) CLMC_CL_TRY(clSetKernelArg(s->update, 9, sizeof(cl_mem), &s->rng.states));
    CLMC_CL_TRY(clSetKernelArg(s->renormalize, 0, sizeof(cl_mem), &s->spins));
    CLMC_CL_TRY(clSetKernelArg(s->renormalize, 1, sizeof(cl_mem), &s->max_deviation));
    CLMC_CL_TRY(clSetKernelArg(s->measure, 0, sizeof(cl_mem), &s->spins));
    CLMC_CL_TRY(clSetKernelArg(s->measure, 1, sizeof(cl_mem), &s->partials));
    CLMC_CL_TRY(clSetKernelArg(s->measure, 3, sizeof(cl_mem), &s->couplings));
    return CLMC_OK;
}

static void read_preset(heisenberg_state *s, const clmc_preset *p)
{
    s->dim = (int)clmc_preset_int(p, "model.dim");
    s->edge = (int)clmc_preset_int(p, "model.L");
    s->ncomp = (int)clmc_preset_int(p, "model.n");
    s->n_sites = (cl_uint)clmc_lattice_sites(s->dim, s->edge);
    s->is_double = strcmp(clmc_preset_string(p, "model.precision"), "double") == 0;
    s->ordered = strcmp(clmc_preset_string(p, "model.start"), "ordered") == 0;
    const char *type = clmc_preset_string(p, "algorithm.type");
    s->pure_overrelaxation = strcmp(type, "overrelaxation") == 0;
    s->mc_move = strcmp(type, "metropolis") == 0 ? MOVE_METROPOLIS : MOVE_HEATBATH;
    s->tiled = strcmp(clmc_preset_string(p, "algorithm.layout"), "naive") != 0; /* tiled or planes */
    s->planes = strcmp(clmc_preset_string(p, "algorithm.layout"), "planes") == 0;
    s->tile = (int)clmc_preset_int(p, "algorithm.tile");
    s->hits = (cl_uint)clmc_preset_int(p, "algorithm.hits");
    s->or_steps = (cl_uint)clmc_preset_int(p, "algorithm.overrelaxation_steps");
    s->renormalize_every = clmc_preset_int(p, "algorithm.renormalize_every");
    s->fast_math = clmc_preset_bool(p, "algorithm.fast_math");
    s->reproducible = clmc_preset_bool(p, "algorithm.reproducible");
    s->thermalization = clmc_preset_run(p)->thermalization;
    s->seed = clmc_preset_run(p)->seed;
    s->temperatures = (cl_uint)clmc_preset_betas(p, NULL, 0);
    s->realizations = s->glass ? (cl_uint)clmc_preset_int(p, "model.realizations") : 1;
    s->copies = clmc_preset_systems(p)->copies;
    s->n_configs = s->glass ? 2 * s->temperatures * s->realizations : s->temperatures * s->copies;
    s->independent = clmc_preset_systems(p)->independent;
    s->first_system = clmc_preset_systems(p)->first_system;
    unsigned per_slot = s->glass ? s->temperatures * s->realizations : s->n_configs;
    s->batch = MEASURE_BATCH / per_slot ? MEASURE_BATCH / per_slot : 1;
    s->population = !s->glass && clmc_preset_is_population(p);
    if (s->population) s->batch = 0; /* the members are measured through the spare slot only */
    s->bimodal = s->glass && strcmp(clmc_preset_string(p, "model.couplings"), "bimodal") == 0;
    clmc_preset_betas(p, &s->beta, 1);
    unsigned long long seed = (unsigned long long)clmc_preset_run(p)->seed;
    s->seed_lo = (cl_uint)(seed & 0xffffffffu);
    s->seed_hi = (cl_uint)(seed >> 32);
    s->rng.kind = clmc_rng_from_preset(p);
}

void clmc_heisenberg_destroy(void *state)
{
    heisenberg_state *s = state;
    if (!s) return;
    cl_kernel kernels[] = {s->init, s->update, s->renormalize, s->measure, s->overlap, s->norm_deviation, s->fault,
                           s->update_or, s->member_totals};
    for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++)
        if (kernels[i]) CLMC_CL_WARN(clReleaseKernel(kernels[i]));
    if (s->program) CLMC_CL_WARN(clReleaseProgram(s->program));
    cl_mem buffers[] = {s->spins, s->partials, s->max_deviation, s->couplings, s->overlaps,
                        s->betas, s->pairs,    s->guard_deviation, s->member_energy, s->member_magnetisation};
    for (size_t i = 0; i < sizeof buffers / sizeof buffers[0]; i++)
        if (buffers[i]) CLMC_CL_WARN(clReleaseMemObject(buffers[i]));
    clmc_rng_streams_release(&s->rng);
    free(s->partials_host);
    free(s->overlaps_host);
    free(s->pairs_host);
    free(s->slot_pairs);
    free(s);
}

static clmc_status setup(heisenberg_state *s, clmc_preset *p)
{
    read_preset(s, p);
    CLMC_TRY(check_precision(s));
    if (s->tiled) CLMC_TRY(resolve_tile(s, p));
    CLMC_TRY(build_kernels(s, p));
    CLMC_TRY(allocate(s));
    CLMC_TRY(set_arguments(s));
    CLMC_TRY(clmc_heisenberg_guard_setup(s));
    size_t global[2] = {s->n_sites, s->n_configs};
    return clmc_enqueue(s->rt, s->init, 2, global, NULL, CLMC_UNTIMED);
}

/* Global-memory traffic of a sweep (estimate).  Tiles read tile + halo and
 * write the tile once per visit, per configuration (spins and couplings, as
 * the earlier figures).  Each naive colour pass reads all spins (its colour and
 * the neighbours') and all couplings (its sites' +d bonds and the
 * neighbours'), each byte once, and writes its colour's spins; a sample's
 * configurations share the couplings. */
static double bytes_per_sweep(const heisenberg_state *s, double sub_sweeps)
{
    double real_bytes = (double)clmc_heisenberg_real_bytes(s), dim = s->glass ? s->dim : 0;
    if (s->tiled) {
        double halo = pow((s->tile + 2.0) / s->tile, s->planes ? 2 : s->dim);
        return s->n_sites * real_bytes * (s->ncomp + dim) * (halo + 1.0) * s->n_configs;
    }
    double spins = (double)s->ncomp * s->n_configs, couplings = dim * s->realizations;
    return s->n_sites * real_bytes * sub_sweeps * 2.0 * (1.5 * spins + couplings);
}

clmc_status clmc_heisenberg_create(clmc_runtime *rt, clmc_preset *p, const heisenberg_extension *glass, void **state,
                                   clmc_model_shape *shape)
{
    heisenberg_state *s = calloc(1, sizeof *s);
    if (!s) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    s->rt = rt;
    s->extension = glass;
    s->glass = glass != NULL;
    clmc_status status = setup(s, p);
    if (status != CLMC_OK) {
        clmc_heisenberg_destroy(s);
        return status;
    }
    double sub_sweeps = s->pure_overrelaxation ? s->hits : (double)s->hits + s->or_steps;
    shape->series_columns = glass ? glass->series_columns : series_columns;
    shape->measure_batch = s->batch;
    shape->updates_per_sweep = (double)s->n_sites * sub_sweeps * s->n_configs;
    shape->bytes_per_sweep = bytes_per_sweep(s, sub_sweeps);
    /* Tempering and independent systems: one row per configuration, each
     * replica chain a tempering system; an independent system is a
     * realization, its 2 T configurations (the ferromagnet: one
     * configuration, copies x T of them). */
    shape->n_systems = !s->glass ? s->copies : s->temperatures > 1 || s->independent ? 2 * s->realizations : 1;
    shape->n_temperatures = s->temperatures;
    shape->configs_per_system = s->glass && s->independent ? 2 * s->temperatures : 1;
    *state = s;
    return CLMC_OK;
}

clmc_status clmc_heisenberg_measure(void *state, unsigned slot)
{
    heisenberg_state *s = state;
    cl_uint slot_arg = slot;
    CLMC_CL_TRY(clSetKernelArg(s->measure, 2, sizeof(cl_uint), &slot_arg));
    size_t global[2] = {s->measure_groups * s->measure_wg, s->n_configs}, local[2] = {s->measure_wg, 1};
    CLMC_TRY(clmc_enqueue(s->rt, s->measure, 2, global, local, CLMC_UNTIMED));
    return s->extension ? s->extension->measure(s, slot) : CLMC_OK;
}

/* One sub-sweep of `move` over both colours of the naive layout (a
 * work-item updates its site in every configuration of one realization; the
 * ferromagnet's in one configuration). */
static clmc_status naive_sub_sweep(heisenberg_state *s, cl_uint sweep, cl_uint move, cl_uint hit)
{
    size_t samples = s->glass ? s->realizations : s->n_configs;
    size_t wg = s->naive_wg, global[2] = {wg ? (s->naive_items + wg - 1) / wg * wg : s->naive_items, samples};
    size_t local[2] = {wg, 1};
    cl_kernel update = s->update_or && move == MOVE_OVERRELAXATION ? s->update_or : s->update;
    CLMC_CL_TRY(clSetKernelArg(update, 3, sizeof(cl_uint), &sweep));
    CLMC_CL_TRY(clSetKernelArg(update, 5, sizeof(cl_uint), &move));
    CLMC_CL_TRY(clSetKernelArg(update, 6, sizeof(cl_uint), &hit));
    for (cl_uint colour = 0; colour < 2; colour++) {
        CLMC_CL_TRY(clSetKernelArg(update, 4, sizeof(cl_uint), &colour));
        CLMC_TRY(clmc_enqueue(s->rt, update, 2, global, wg ? local : NULL, CLMC_TIMED));
    }
    return CLMC_OK;
}

static clmc_status tiled_sweep(heisenberg_state *s, cl_uint mc_hits, cl_uint or_steps)
{
    CLMC_CL_TRY(clSetKernelArg(s->update, 5, sizeof(cl_uint), &mc_hits));
    CLMC_CL_TRY(clSetKernelArg(s->update, 6, sizeof(cl_uint), &or_steps));
    size_t global[2] = {s->tile_groups * s->tile_items, s->n_configs}, local[2] = {s->tile_items, 1};
    for (cl_uint colour = 0; colour < 2; colour++) {
        CLMC_CL_TRY(clSetKernelArg(s->update, 4, sizeof(cl_uint), &colour));
        CLMC_TRY(clmc_enqueue(s->rt, s->update, 2, global, local, CLMC_TIMED));
    }
    return CLMC_OK;
}

/* A sweep: `hits` sub-sweeps of the stochastic move, then or_steps of
 * over-relaxation; pure over-relaxation after thermalization (heat-bath before). */
clmc_status clmc_heisenberg_sweep(void *state, uint64_t sweep_index)
{
    heisenberg_state *s = state;
    if (s->pure_overrelaxation && (long long)sweep_index == s->thermalization)
        CLMC_TRY(clmc_heisenberg_measure(s, SLOT_DRIFT_START(s)));
    bool microcanonical = s->pure_overrelaxation && (long long)sweep_index >= s->thermalization;
    cl_uint mc_hits = microcanonical ? 0 : s->hits;
    cl_uint or_steps = microcanonical ? s->hits : (s->pure_overrelaxation ? 0 : s->or_steps);
    cl_uint sweep = (cl_uint)sweep_index;
    CLMC_CL_TRY(clSetKernelArg(s->update, 3, sizeof(cl_uint), &sweep));
    if (s->tiled) {
        CLMC_TRY(tiled_sweep(s, mc_hits, or_steps));
    } else {
        for (cl_uint hit = 0; hit < mc_hits; hit++) CLMC_TRY(naive_sub_sweep(s, sweep, s->mc_move, hit));
        for (cl_uint step = 0; step < or_steps; step++)
            CLMC_TRY(naive_sub_sweep(s, sweep, MOVE_OVERRELAXATION, mc_hits + step));
    }
    if (s->renormalize_every > 0 && (sweep_index + 1) % (uint64_t)s->renormalize_every == 0) {
        size_t global[2] = {s->n_sites, s->n_configs};
        CLMC_TRY(clmc_enqueue(s->rt, s->renormalize, 2, global, NULL, CLMC_TIMED));
    }
    return clmc_heisenberg_inject_fault(s, sweep_index);
}

/* Sums of one configuration in one batch slot (its partials): bond sum and
 * magnetisation components, in units of one spin. */
void clmc_heisenberg_sums(const heisenberg_state *s, const cl_long *slot_partials, double sums[4])
{
    long long total[4] = {0, 0, 0, 0};
    for (size_t g = 0; g < s->measure_groups; g++)
        for (int k = 0; k < 4; k++) total[k] += slot_partials[4 * g + (size_t)k];
    for (int k = 0; k < 4; k++) sums[k] = (double)total[k] / FIXED_SCALE;
}

/* Rows [slot][configuration]: energy per spin -(bond sum)/N and |M|/N. */
static clmc_status heisenberg_collect(void *state, unsigned n_slots, double *rows)
{
    heisenberg_state *s = state;
    CLMC_TRY(clmc_heisenberg_read_slots(s, 0, n_slots));
    for (size_t row = 0; row < (size_t)n_slots * s->n_configs; row++) {
        double sums[4];
        clmc_heisenberg_sums(s, s->partials_host + row * 4 * s->measure_groups, sums);
        rows[2 * row] = -sums[0] / s->n_sites;
        rows[2 * row + 1] = sqrt(sums[1] * sums[1] + sums[2] * sums[2] + sums[3] * sums[3]) / s->n_sites;
    }
    return CLMC_OK;
}

/* Ensembles: H (for the glass -sum J s.s) of every configuration, exact
 * fixed-point sums, through the spare slot. */
clmc_status clmc_heisenberg_energies(void *state, double *energies)
{
    heisenberg_state *s = state;
    CLMC_TRY(clmc_heisenberg_measure(s, SLOT_ENERGIES(s)));
    CLMC_TRY(clmc_heisenberg_read_slots(s, SLOT_ENERGIES(s), 1));
    size_t per_config = 4 * s->measure_groups;
    for (cl_uint c = 0; c < s->n_configs; c++) {
        double sums[4];
        clmc_heisenberg_sums(s, s->partials_host + c * per_config, sums);
        energies[c] = -sums[0];
    }
    return CLMC_OK;
}

/* Independent systems: configuration c at betas[c].  One beta for all
 * (population annealing's steps): a fill, which does not wait for the device. */
static clmc_status heisenberg_set_betas(void *state, const double *betas, const unsigned *temperature_of)
{
    (void)temperature_of;
    heisenberg_state *s = state;
    bool same = true;
    for (cl_uint c = 1; c < s->n_configs && same; c++) same = betas[c] == betas[0];
    if (!same) return clmc_heisenberg_write_betas(state, betas);
    cl_double beta_double = betas[0];
    cl_float beta_float = (cl_float)betas[0];
    const void *pattern = s->is_double ? (const void *)&beta_double : (const void *)&beta_float;
    size_t bytes = clmc_heisenberg_real_bytes(s);
    CLMC_CL_TRY(clEnqueueFillBuffer(clmc_runtime_queue(s->rt), s->betas, pattern, bytes, 0, bytes * s->n_configs, 0,
                                    NULL, NULL));
    return CLMC_OK;
}

/* ---- Population annealing (docs/ensembles.md) ------------------------------ */

/* Every member's H and |M| as cl_double (real_members), from the spare
 * measurement slot's exact sums (heisenberg_member_totals). */
static clmc_status heisenberg_member_observables(void *state, cl_mem *energy, cl_mem *magnetisation)
{
    heisenberg_state *s = state;
    if (!s->member_totals) {
        CLMC_TRY(clmc_kernel_create(s->program, "heisenberg_member_totals", &s->member_totals));
        CLMC_TRY(clmc_heisenberg_buffer(s, sizeof(cl_double) * s->n_configs, NULL, &s->member_energy));
        CLMC_TRY(clmc_heisenberg_buffer(s, sizeof(cl_double) * s->n_configs, NULL, &s->member_magnetisation));
        cl_uint slot = SLOT_ENERGIES(s), groups = (cl_uint)s->measure_groups;
        CLMC_CL_TRY(clSetKernelArg(s->member_totals, 0, sizeof(cl_mem), &s->partials));
        CLMC_CL_TRY(clSetKernelArg(s->member_totals, 1, sizeof(cl_uint), &slot));
        CLMC_CL_TRY(clSetKernelArg(s->member_totals, 2, sizeof(cl_uint), &groups));
        CLMC_CL_TRY(clSetKernelArg(s->member_totals, 3, sizeof(cl_uint), &s->n_configs));
        CLMC_CL_TRY(clSetKernelArg(s->member_totals, 4, sizeof(cl_mem), &s->member_energy));
        CLMC_CL_TRY(clSetKernelArg(s->member_totals, 5, sizeof(cl_mem), &s->member_magnetisation));
    }
    CLMC_TRY(clmc_heisenberg_measure(s, SLOT_ENERGIES(s)));
    size_t items = s->n_configs;
    CLMC_TRY(clmc_enqueue(s->rt, s->member_totals, 1, &items, NULL, CLMC_UNTIMED));
    *energy = s->member_energy;
    *magnetisation = s->member_magnetisation;
    return CLMC_OK;
}

/* The random start drawn for independent run `run` (the init counter's
 * second word; run 0: the start the model was created with). */
static clmc_status heisenberg_fresh_start(void *state, unsigned run)
{
    heisenberg_state *s = state;
    cl_uint run_arg = run;
    CLMC_CL_TRY(clSetKernelArg(s->init, 4, sizeof(cl_uint), &run_arg));
    size_t global[2] = {s->n_sites, s->n_configs};
    return clmc_enqueue(s->rt, s->init, 2, global, NULL, CLMC_UNTIMED);
}

/* A member: its NCOMP x N reals, contiguous (configuration-major). */
static clmc_status heisenberg_members_buffer(void *state, cl_mem *buffer, size_t *bytes_per_member)
{
    heisenberg_state *s = state;
    *buffer = s->spins;
    *bytes_per_member = (size_t)s->ncomp * s->n_sites * clmc_heisenberg_real_bytes(s);
    return CLMC_OK;
}

/* Z = integral of exp(-beta H) over the normalised uniform measure on the
 * spheres, so ln Z(0) = 0. */
static void heisenberg_member_size(void *state, double *sites, double *log_states)
{
    const heisenberg_state *s = state;
    *sites = s->n_sites;
    *log_states = 0;
}

/* |m| = |M| / N with <m^2> and <m^4>; susceptibility and Binder ratio
 * 1 - <m^4> / (3 <m^2>^2) as the model's canonical results define them. */
static void heisenberg_member_order(void *state, clmc_member_order *out)
{
    const heisenberg_state *s = state;
    *out = (clmc_member_order){"abs_magnetization", "m2", "m4", "susceptibility", "binder", s->n_sites, 1.0};
}

static bool heisenberg_reproducible(void *state)
{
    return ((const heisenberg_state *)state)->reproducible;
}

static clmc_status heisenberg_estimate(void *state, const double *rows, size_t n_rows, double beta, cJSON *observables)
{
    heisenberg_state *s = state;
    clmc_ferromagnet_observables(rows, n_rows, 2, 0, 1, beta, s->n_sites, observables);
    return CLMC_OK;
}

/* Largest | |s| - 1 | over the final configuration, the count of spins
 * with a non-finite component, and the FNV-1a hash of the spins' bytes. */
static clmc_status final_norms(heisenberg_state *s, double *max_deviation, unsigned long long *invalid,
                               unsigned long long *hash)
{
    size_t count = (size_t)s->ncomp * s->n_sites * s->n_configs;
    void *values = malloc(count * clmc_heisenberg_real_bytes(s));
    if (!values) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    cl_int err = clEnqueueReadBuffer(clmc_runtime_queue(s->rt), s->spins, CL_TRUE, 0, count * clmc_heisenberg_real_bytes(s), values, 0,
                                     NULL, NULL);
    *max_deviation = 0;
    *invalid = 0;
    *hash = 0xcbf29ce484222325ULL;
    for (size_t i = 0; err == CL_SUCCESS && i < count * clmc_heisenberg_real_bytes(s); i++)
        *hash = (*hash ^ ((const unsigned char *)values)[i]) * 0x100000001b3ULL;
    for (size_t i = 0; err == CL_SUCCESS && i < (size_t)s->n_sites * s->n_configs; i++) {
        double norm2 = 0;
        size_t config = i / s->n_sites, site = i % s->n_sites;
        for (int c = 0; c < s->ncomp; c++) {
            size_t k = (config * (size_t)s->ncomp + (size_t)c) * s->n_sites + site;
            double v = s->is_double ? ((const double *)values)[k] : ((const float *)values)[k];
            norm2 += v * v;
        }
        if (!isfinite(norm2)) (*invalid)++;
        else if (fabs(sqrt(norm2) - 1.0) > *max_deviation) *max_deviation = fabs(sqrt(norm2) - 1.0);
    }
    free(values);
    CLMC_CL_CHECK(err, "clEnqueueReadBuffer(spins)");
    return CLMC_OK;
}

/* checks: max_norm_deviation (largest | |s| - 1 | seen before any
 * renormalisation and in the final state), invalid_spins, and for pure
 * over-relaxation energy_drift = |E_end - E_start| / N over the measured
 * sweeps with the energies themselves. */
clmc_status clmc_heisenberg_checks(void *state, cJSON *checks)
{
    heisenberg_state *s = state;
    double deviation;
    unsigned long long invalid, hash;
    CLMC_TRY(final_norms(s, &deviation, &invalid, &hash));
    cl_uint bits = 0;
    CLMC_CL_TRY(clEnqueueReadBuffer(clmc_runtime_queue(s->rt), s->max_deviation, CL_TRUE, 0, sizeof bits, &bits, 0,
                                    NULL, NULL));
    float renormalized;
    memcpy(&renormalized, &bits, sizeof renormalized);
    if (renormalized > deviation || isnan(renormalized)) deviation = renormalized;
    cJSON_AddNumberToObject(checks, "max_norm_deviation", deviation);
    cJSON_AddNumberToObject(checks, "invalid_spins", (double)invalid);
    char text[32];
    snprintf(text, sizeof text, "%016llx", hash);
    cJSON_AddStringToObject(checks, "configuration_fnv1a", text);
    if (s->pure_overrelaxation) {
        CLMC_TRY(clmc_heisenberg_measure(s, SLOT_FINAL(s)));
        CLMC_TRY(clmc_heisenberg_read_slots(s, SLOT_DRIFT_START(s), 2));
        double start[4], end[4], drift = 0;
        size_t per_config = 4 * s->measure_groups;
        for (cl_uint c = 0; c < s->n_configs; c++) {
            clmc_heisenberg_sums(s, s->partials_host + c * per_config, start);
            clmc_heisenberg_sums(s, s->partials_host + clmc_heisenberg_partials_per_slot(s) + c * per_config, end);
            drift = fmax(drift, fabs(end[0] - start[0]) / s->n_sites);
            if (c == 0) {
                cJSON_AddNumberToObject(checks, "energy_start", -start[0] / s->n_sites);
                cJSON_AddNumberToObject(checks, "energy_end", -end[0] / s->n_sites);
            }
        }
        cJSON_AddNumberToObject(checks, "energy_drift", drift);
    }
    return invalid ? clmc_fail(CLMC_ERR_OTHER, "%llu spins have non-finite components", invalid) : CLMC_OK;
}

/* A preset's buffer sizes in units: configurations, measurement rows per
 * slot (pairs), batch slots, spin bytes. */
typedef struct {
    uint64_t ncomp, sites, real, realizations, configs, pairs, batch, spins;
} heisenberg_sizes;

static heisenberg_sizes sizes_of(const clmc_preset *p, bool glass)
{
    heisenberg_sizes z;
    z.ncomp = (uint64_t)clmc_preset_int(p, "model.n");
    z.sites = clmc_lattice_sites((int)clmc_preset_int(p, "model.dim"), (int)clmc_preset_int(p, "model.L"));
    z.real = strcmp(clmc_preset_string(p, "model.precision"), "double") == 0 ? 8 : 4;
    uint64_t temperatures = clmc_preset_betas(p, NULL, 0);
    z.realizations = glass ? (uint64_t)clmc_preset_int(p, "model.realizations") : 1;
    z.configs = glass ? 2 * temperatures * z.realizations : temperatures * clmc_preset_systems(p)->copies;
    z.pairs = glass ? temperatures * z.realizations : z.configs; /* measurement rows per slot */
    z.batch = MEASURE_BATCH / z.pairs ? MEASURE_BATCH / z.pairs : 1;
    if (!glass && clmc_preset_is_population(p)) z.batch = 0; /* as read_preset */
    z.spins = z.ncomp * z.sites * z.real * z.configs;
    return z;
}

/* Measurement work-groups per configuration at most: MEASURE_GROUPS_MAX, or
 * fewer (at least 1) for many configurations, so that the partials and
 * overlaps of all slots stay within max(CLMC_MEASURE_BUDGET_BYTES, the
 * spins).  The sums are exact (fixed point): the grouping does not change them. */
static uint64_t measure_groups_cap(const clmc_preset *p, bool glass)
{
    heisenberg_sizes z = sizes_of(p, glass);
    uint64_t per_group = (4 * z.configs * (z.batch + 3) + (glass ? z.ncomp * z.ncomp * z.pairs * z.batch : 0)) *
                         sizeof(cl_long);
    uint64_t budget = z.spins > CLMC_MEASURE_BUDGET_BYTES ? z.spins : CLMC_MEASURE_BUDGET_BYTES;
    uint64_t groups = budget / per_group;
    return groups < 1 ? 1 : groups > MEASURE_GROUPS_MAX ? MEASURE_GROUPS_MAX : groups;
}

/* Device memory of a preset (model.h device_bytes), buffer by buffer as
 * allocate() and glass_allocate() create them, with the measurement partials
 * and overlaps at their largest group count (measure_groups_cap). */
void clmc_heisenberg_device_bytes(const clmc_preset *p, bool glass, uint64_t *total, uint64_t *largest)
{
    heisenberg_sizes z = sizes_of(p, glass);
    uint64_t dim = (uint64_t)clmc_preset_int(p, "model.dim"), groups = measure_groups_cap(p, glass);
    uint64_t partials = 4 * groups * z.configs * (z.batch + 3) * sizeof(cl_long);
    uint64_t couplings = glass ? dim * z.sites * z.realizations * z.real : sizeof(cl_double);
    uint64_t overlaps = glass ? z.ncomp * z.ncomp * groups * z.pairs * z.batch * sizeof(cl_long) : 0;
    uint64_t small = 2 * sizeof(cl_uint) + z.configs * z.real + (glass ? 2 * z.pairs * sizeof(cl_uint) : 0);
    uint64_t states = clmc_rng_own_ring_state_bytes(clmc_rng_from_preset(p), z.sites / 2, z.configs);
    uint64_t members = !glass && clmc_preset_is_population(p) ? 2 * sizeof(cl_double) * z.configs : 0;
    *total = z.spins + partials + couplings + overlaps + small + states + members;
    *largest = z.spins;
    uint64_t others[] = {partials, couplings, overlaps, states};
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++)
        if (others[i] > *largest) *largest = others[i];
}

static void heisenberg_device_bytes(const clmc_preset *p, uint64_t *total, uint64_t *largest)
{
    clmc_heisenberg_device_bytes(p, false, total, largest);
}

static const clmc_ensemble_hooks heisenberg_ensemble_hooks = {
    .independent = true,
    .energies = clmc_heisenberg_energies,
    .set_betas = heisenberg_set_betas,
    .member_observables = heisenberg_member_observables,
    .members_buffer = heisenberg_members_buffer,
    .member_size = heisenberg_member_size,
    .fresh_start = heisenberg_fresh_start,
    .member_order = heisenberg_member_order,
    .real_members = true,
    .reproducible = heisenberg_reproducible,
};

static clmc_status heisenberg_create(clmc_runtime *rt, clmc_preset *p, void **state, clmc_model_shape *shape)
{
    return clmc_heisenberg_create(rt, p, NULL, state, shape);
}

const clmc_model_ops clmc_model_heisenberg = {
    .type = "heisenberg",
    .model_fields = clmc_heisenberg_model_fields,
    .algorithm_fields = clmc_heisenberg_algorithm_fields,
    .validate = clmc_heisenberg_validate,
    .create = heisenberg_create,
    .destroy = clmc_heisenberg_destroy,
    .sweep = clmc_heisenberg_sweep,
    .measure = clmc_heisenberg_measure,
    .collect = heisenberg_collect,
    .estimate = heisenberg_estimate,
    .ensemble = &heisenberg_ensemble_hooks,
    .guard = clmc_heisenberg_guard,
    .checks = clmc_heisenberg_checks,
    .snapshot = clmc_heisenberg_snapshot,
    .save_state = clmc_heisenberg_save_state,
    .load_state = clmc_heisenberg_load_state,
    .device_bytes = heisenberg_device_bytes,
};
