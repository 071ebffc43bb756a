/* Host side of the q-state Potts model: validation, kernel set-up, sweeps
 * (checkerboard Metropolis, or Swendsen-Wang: bond activation, labeling by
 * clmc_labeler, cluster flips; random-site Metropolis and heat bath through
 * models/random_site.c) and measurements of the energy and the Potts
 * order parameter, for one system or the copies x len(betas) systems of
 * ensemble.type "independent" (ensemble_hooks.h), held one after another;
 * or, Swendsen-Wang under several MPI ranks, one system's slab, its clusters
 * merged across ranks by models/potts/potts_slab.c (docs/mpi.md). */
#include "models/potts/potts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <math.h>

#include "clmc/labeling.h"
#include "models/labeling/labeling_options.h"
#include "runtime/defines.h"
#include "runtime/ranks.h"
#include "measure/measure.h"
#include "models/ensemble_hooks.h"
#include "models/lattice.h"
#include "models/configuration_hash.h"
#include "models/potts/potts_slab.h"
#include "models/random_site.h"
#include "runtime/ranks.h"

#define MEASURE_WG_MAX 256
#define MEASURE_GROUPS_MAX 1024
#define MEASURE_BATCH 256

/* Measurement slots: a batch and the spare slot of ensemble energies, the
 * batch shortened for many configurations (clmc_measure_slots: counts within
 * max(256 MiB, the spins)); population annealing measures only through the
 * spare slot. */
static unsigned batch_slots(const clmc_preset *p)
{
    if (clmc_preset_is_population(p)) return 0;
    uint64_t sites = clmc_lattice_sites((int)clmc_preset_int(p, "model.dim"), (int)clmc_preset_int(p, "model.L"));
    uint64_t configs = clmc_preset_betas(p, NULL, 0) * clmc_preset_systems(p)->copies;
    uint64_t slot_bytes = configs * ((uint64_t)clmc_preset_int(p, "model.q") + 1) * sizeof(cl_uint);
    return clmc_measure_slots(MEASURE_BATCH, 1, slot_bytes, sites * configs);
}

static const char *const series_columns[] = {"energy", "magnetization", NULL};

typedef struct {
    clmc_runtime *rt;
    int dim, edge, q;
    char muca_defines[80]; /* clmc_density_walkers.defines */
    clmc_label_lattice labeling;
    cl_uint n_sites, seed_lo, seed_hi, ordered;
    unsigned batch; /* measurement slots before the spare one (population annealing: none) */
    bool ranks_chained; /* under MPI ranks: a share of one run's members (clmc_systems_settings) */
    cl_uint n_configs, first_system; /* systems held (copy-major) and the run-wide index of the first */
    bool cluster;      /* Swendsen-Wang or few-cluster, else Metropolis */
    bool few_clusters; /* few-cluster: only seeded clusters change */
    clmc_rsite *rsite; /* layout random_site, else NULL */
    /* Swendsen-Wang on one lattice cut over MPI ranks (docs/mpi.md): this rank
     * holds `slab` layers from `first_layer` (n_sites of the lattice_sites)
     * and a halo layer above them; bonds and labels cover the slab. */
    bool domain;
    int slab, first_layer;
    cl_uint lattice_sites;
    potts_slab merge;
    cl_uint flip_threshold, tile_edge, tiles; /* few-cluster */
    cl_program program;
    cl_kernel init, metropolis, bonds_kernel, flip, mark_seeds, flip_marked, measure, member_totals;
    cl_mem spins, bonds, labels, marked, thresholds, bond_thresholds, counts, member_energy, member_order;
    clmc_labeler *labeler;
    size_t measure_wg, measure_global;
    cl_uint *counts_host; /* [slot][config][state 0 .. q - 1, equal bonds] */
    cl_uint *thresholds_host;      /* [config][2 dim]: Metropolis, floor(exp(-beta dE) 2^32) */
    cl_uint *bond_thresholds_host; /* [config]: Swendsen-Wang, floor((1 - exp(-beta)) 2^32) */
} potts_state;

/* Swendsen-Wang or few-cluster (else a single-spin update). */
static bool cluster_update(const clmc_preset *p)
{
    const char *type = clmc_preset_string(p, "algorithm.type");
    return strcmp(type, "swendsen_wang") == 0 || strcmp(type, "few_cluster") == 0;
}

/* Layers per rank where the run cuts one lattice over several MPI ranks
 * (one system, not multicanonical walkers: src/engine/distribute.c), else 0. */
static int slab_layers(const clmc_preset *p)
{
    if (!clmc_ranks_many() || clmc_preset_systems(p)->independent || clmc_preset_is_density(p) ||
        clmc_preset_has(p, "ensemble.type"))
        return 0;
    return (int)clmc_preset_int(p, "model.L") / clmc_ranks()->size;
}

static clmc_status potts_validate(const clmc_preset *p)
{
    int dim = (int)clmc_preset_int(p, "model.dim"), edge = (int)clmc_preset_int(p, "model.L");
    int tile = (int)clmc_preset_int(p, "algorithm.tile");
    bool cluster = cluster_update(p);
    double flip_probability = clmc_preset_number(p, "algorithm.flip_probability");
    bool density = clmc_preset_has(p, "ensemble.type") &&
                   (strcmp(clmc_preset_string(p, "ensemble.type"), "multicanonical") == 0 ||
                    strcmp(clmc_preset_string(p, "ensemble.type"), "wang_landau") == 0);
    if (density && clmc_preset_int(p, "model.q") > 127)
        return clmc_fail(CLMC_ERR_INPUT, "model.q: multicanonical walkers hold states in a signed char, q <= 127; got "
                         "%lld", clmc_preset_int(p, "model.q"));
    if (clmc_preset_betas(p, NULL, 0) > 1 && !clmc_preset_systems(p)->independent && !density)
        return clmc_fail(CLMC_ERR_INPUT, "ensemble: the potts model has no parallel tempering yet; give ensemble.beta "
                         "(or ensemble.type \"independent\")");
    if (edge % 2 != 0) return clmc_fail(CLMC_ERR_INPUT, "model.L: must be even for the checkerboard, got %d", edge);
    if (clmc_lattice_sites(dim, edge) >= (1ULL << 30))
        return clmc_fail(CLMC_ERR_INPUT, "model.L: %d^%d sites exceed the 2^30 the kernels count", edge, dim);
    if (cluster && tile != 0 && (edge % tile != 0 || clmc_lattice_sites(dim, tile) > CLMC_LABEL_TILE_SITES_MAX))
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.tile: %d must divide model.L = %d with tile^%d <= %d", tile, edge,
                         dim, CLMC_LABEL_TILE_SITES_MAX);
    if (!cluster && tile != 0)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.tile: only for swendsen_wang (labeling tiles); got %d", tile);
    int slab = slab_layers(p);
    if (cluster && tile != 0 && slab && slab % tile != 0)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.tile: %d does not divide the %d %s of a slab (model.L %d over %d "
                         "MPI ranks)", tile, slab, dim == 2 ? "rows" : "planes", edge, clmc_ranks()->size);
    if (!(flip_probability > 0 && flip_probability < 1))
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.flip_probability: must lie strictly between 0 and 1 (below one "
                         "for ergodicity), got %g", flip_probability);
    if (cluster && clmc_rsite_wanted(p))
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.layout: \"random_site\" runs algorithm.type \"metropolis\" or "
                         "\"heatbath\", not \"%s\"", clmc_preset_string(p, "algorithm.type"));
    return clmc_rsite_validate(p, false, false);
}

static clmc_status create_buffer(potts_state *s, size_t bytes, void *host, cl_mem *out)
{
    return clmc_buffer_create(s->rt, bytes, host, "potts", out);
}

static clmc_status build(potts_state *s, clmc_preset *p)
{
    size_t limit = clmc_runtime_device(s->rt)->max_work_group_size;
    s->measure_wg = clmc_power_of_two_at_most(limit < MEASURE_WG_MAX ? limit : MEASURE_WG_MAX);
    size_t groups = (s->n_sites + s->measure_wg - 1) / s->measure_wg;
    s->measure_global = (groups < MEASURE_GROUPS_MAX ? groups : MEASURE_GROUPS_MAX) * s->measure_wg;
    clmc_defines options = {0};
    clmc_defines_text(&options, "-cl-std=CL1.2");
    clmc_defines_int(&options, "DIM", s->dim);
    clmc_defines_int(&options, "EDGE", s->edge);
    clmc_defines_int(&options, "Q", s->q);
    clmc_defines_int(&options, "MEASURE_WG", (long long)s->measure_wg);
    clmc_defines_int(&options, "CONFIGS", s->n_configs);
    if (s->domain) clmc_defines_int(&options, "SLAB", s->slab); /* the first site is an argument */
    CLMC_TRY(clmc_defines_build(s->rt, "potts/potts.cl", &options, &s->program));
    CLMC_TRY(clmc_kernel_create(s->program, "potts_init", &s->init));
    CLMC_TRY(clmc_kernel_set_first_system(s->init, s->first_system));
    CLMC_TRY(clmc_kernel_create(s->program, "potts_measure", &s->measure));
    if (s->cluster) {
        CLMC_TRY(clmc_kernel_create(s->program, "potts_bonds", &s->bonds_kernel));
        CLMC_TRY(clmc_kernel_create(s->program, "potts_flip", &s->flip));
        CLMC_TRY(clmc_kernel_create(s->program, "potts_mark_seeds", &s->mark_seeds));
        CLMC_TRY(clmc_kernel_create(s->program, "potts_flip_marked", &s->flip_marked));
        cl_kernel drawing[] = {s->bonds_kernel, s->flip, s->mark_seeds, s->flip_marked};
        for (size_t i = 0; i < sizeof drawing / sizeof drawing[0]; i++)
            CLMC_TRY(clmc_kernel_set_first_system(drawing[i], s->first_system));
        CLMC_TRY(clmc_labeler_create(s->rt, s->labeling, &s->labeler));
        s->tile_edge = (cl_uint)clmc_labeler_tile(s->labeler);
        clmc_preset_set_int(p, "algorithm.tile", (long long)s->tile_edge); /* the resolved edge, echoed */
        s->tiles = (cl_uint)clmc_lattice_sites(s->dim, s->edge / (int)s->tile_edge);
        return s->domain ? potts_slab_create(s->rt, s->program, s->dim, s->edge, &s->merge) : CLMC_OK;
    }
    CLMC_TRY(clmc_kernel_create(s->program, "potts_metropolis", &s->metropolis));
    return clmc_kernel_set_first_system(s->metropolis, s->first_system);
}

/* Sites of all systems. */
static size_t all_sites(const potts_state *s)
{
    return (size_t)s->n_sites * s->n_configs;
}

/* Spin bytes on the device: all systems, or a slab and its halo layer. */
static size_t stored_sites(const potts_state *s)
{
    return all_sites(s) + (s->domain ? s->lattice_sites / (size_t)s->edge : 0);
}

/* Measurement slots: the batch and one spare for the ensemble's energies. */
static size_t counts_entries(const potts_state *s)
{
    return (size_t)(s->batch + 1) * s->n_configs * (s->q + 1);
}

static clmc_status allocate(potts_state *s)
{
    CLMC_TRY(create_buffer(s, stored_sites(s), NULL, &s->spins));
    s->counts_host = calloc(counts_entries(s), sizeof *s->counts_host);
    s->thresholds_host = calloc((size_t)s->n_configs * 2 * s->dim, sizeof *s->thresholds_host);
    s->bond_thresholds_host = calloc(s->n_configs, sizeof *s->bond_thresholds_host);
    if (!s->counts_host || !s->thresholds_host || !s->bond_thresholds_host)
        return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    CLMC_TRY(create_buffer(s, counts_entries(s) * sizeof(cl_uint), NULL, &s->counts));
    if (!s->cluster)
        return create_buffer(s, (size_t)s->n_configs * 2 * s->dim * sizeof(cl_uint), NULL, &s->thresholds);
    CLMC_TRY(create_buffer(s, s->n_configs * sizeof(cl_uint), NULL, &s->bond_thresholds));
    CLMC_TRY(create_buffer(s, all_sites(s), NULL, &s->bonds));
    CLMC_TRY(create_buffer(s, all_sites(s) * sizeof(cl_uint), NULL, &s->labels));
    if (!s->few_clusters) return CLMC_OK;
    CLMC_TRY(create_buffer(s, all_sites(s) * sizeof(cl_uint), NULL, &s->marked));
    cl_uint zero = 0; /* no cluster marked: stamps are sweep + 1 */
    CLMC_CL_TRY(clEnqueueFillBuffer(clmc_runtime_queue(s->rt), s->marked, &zero, sizeof zero, 0,
                                    all_sites(s) * sizeof(cl_uint), 0, NULL, NULL));
    return CLMC_OK;
}

/* System c's host thresholds at beta (Metropolis: floor(exp(-beta dE) 2^32)
 * for dE = 1 .. 2 dim; Swendsen-Wang: the bond probability 1 - exp(-beta)
 * as floor(p 2^32)). */
static void thresholds_at(const potts_state *s, double beta, cl_uint c)
{
    for (int k = 1; k <= 2 * s->dim; k++)
        s->thresholds_host[c * 2 * s->dim + k - 1] = (cl_uint)floor(exp(-beta * k) * 4294967296.0);
    s->bond_thresholds_host[c] = (cl_uint)floor(-expm1(-beta) * 4294967296.0);
}

/* The thresholds of every system at its beta, written before the next sweep. */
static clmc_status potts_set_betas(void *state, const double *betas, const unsigned *temperature_of)
{
    potts_state *s = state;
    (void)temperature_of;
    if (s->rsite) CLMC_TRY(clmc_rsite_set_betas(s->rsite, betas));
    cl_command_queue queue = clmc_runtime_queue(s->rt);
    for (cl_uint c = 0; c < s->n_configs; c++) thresholds_at(s, betas[c], c);
    if (!s->cluster)
        CLMC_CL_TRY(clEnqueueWriteBuffer(queue, s->thresholds, CL_TRUE, 0,
                                         (size_t)s->n_configs * 2 * s->dim * sizeof(cl_uint), s->thresholds_host, 0,
                                         NULL, NULL));
    else
        CLMC_CL_TRY(clEnqueueWriteBuffer(queue, s->bond_thresholds, CL_TRUE, 0, s->n_configs * sizeof(cl_uint),
                                         s->bond_thresholds_host, 0, NULL, NULL));
    return CLMC_OK;
}

/* Population annealing: every system's thresholds those of beta, written as
 * copies of system 0's (clmc_write_repeated, not waited for). */
static clmc_status potts_set_beta_all(void *state, double beta)
{
    potts_state *s = state;
    if (s->rsite) CLMC_TRY(clmc_rsite_set_beta_all(s->rsite, beta));
    thresholds_at(s, beta, 0);
    if (s->cluster) return clmc_write_repeated(s->rt, s->bond_thresholds, s->bond_thresholds_host, sizeof(cl_uint), s->n_configs);
    return clmc_write_repeated(s->rt, s->thresholds, s->thresholds_host, 2 * (size_t)s->dim * sizeof(cl_uint),
                               s->n_configs);
}

/* Before the ensemble sets them: system c at betas[c % len(betas)]. */
static clmc_status set_preset_betas(potts_state *s, const clmc_preset *p)
{
    size_t n = clmc_preset_betas(p, NULL, 0);
    double *betas = malloc(n * sizeof *betas), *config_betas = malloc(s->n_configs * sizeof *config_betas);
    clmc_status status = betas && config_betas ? CLMC_OK : clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    if (status == CLMC_OK) {
        clmc_preset_betas(p, betas, n);
        for (cl_uint c = 0; c < s->n_configs; c++) config_betas[c] = betas[c % n];
        status = potts_set_betas(s, config_betas, NULL);
    }
    free(betas);
    free(config_betas);
    return status;
}

static clmc_status set_arguments(potts_state *s)
{
    CLMC_CL_TRY(clSetKernelArg(s->init, 0, sizeof(cl_mem), &s->spins));
    CLMC_CL_TRY(clSetKernelArg(s->init, 1, sizeof(cl_uint), &s->seed_lo));
    CLMC_CL_TRY(clSetKernelArg(s->init, 2, sizeof(cl_uint), &s->seed_hi));
    CLMC_CL_TRY(clSetKernelArg(s->init, 3, sizeof(cl_uint), &s->ordered));
    cl_uint run = 0, first_site = (cl_uint)s->first_layer * (s->lattice_sites / (cl_uint)s->edge);
    CLMC_CL_TRY(clSetKernelArg(s->init, 4, sizeof(cl_uint), &run));
    CLMC_CL_TRY(clSetKernelArg(s->init, 5, sizeof(cl_uint), &first_site));
    CLMC_CL_TRY(clSetKernelArg(s->measure, 0, sizeof(cl_mem), &s->spins));
    CLMC_CL_TRY(clSetKernelArg(s->measure, 1, sizeof(cl_mem), &s->counts));
    if (!s->cluster) {
        CLMC_CL_TRY(clSetKernelArg(s->metropolis, 0, sizeof(cl_mem), &s->spins));
        CLMC_CL_TRY(clSetKernelArg(s->metropolis, 1, sizeof(cl_mem), &s->thresholds));
        CLMC_CL_TRY(clSetKernelArg(s->metropolis, 2, sizeof(cl_uint), &s->seed_lo));
        CLMC_CL_TRY(clSetKernelArg(s->metropolis, 3, sizeof(cl_uint), &s->seed_hi));
        return CLMC_OK;
    }
    CLMC_CL_TRY(clSetKernelArg(s->bonds_kernel, 0, sizeof(cl_mem), &s->spins));
    CLMC_CL_TRY(clSetKernelArg(s->bonds_kernel, 1, sizeof(cl_mem), &s->bonds));
    CLMC_CL_TRY(clSetKernelArg(s->bonds_kernel, 2, sizeof(cl_mem), &s->bond_thresholds));
    CLMC_CL_TRY(clSetKernelArg(s->bonds_kernel, 3, sizeof(cl_uint), &s->seed_lo));
    CLMC_CL_TRY(clSetKernelArg(s->bonds_kernel, 4, sizeof(cl_uint), &s->seed_hi));
    CLMC_CL_TRY(clSetKernelArg(s->bonds_kernel, 6, sizeof(cl_uint), &first_site));
    CLMC_CL_TRY(clSetKernelArg(s->flip, 0, sizeof(cl_mem), &s->spins));
    CLMC_CL_TRY(clSetKernelArg(s->flip, 1, sizeof(cl_mem), &s->labels));
    CLMC_CL_TRY(clSetKernelArg(s->flip, 2, sizeof(cl_uint), &s->seed_lo));
    CLMC_CL_TRY(clSetKernelArg(s->flip, 3, sizeof(cl_uint), &s->seed_hi));
    CLMC_CL_TRY(clSetKernelArg(s->flip, 5, sizeof(cl_uint), &first_site));
    if (!s->few_clusters) return CLMC_OK;
    CLMC_CL_TRY(clSetKernelArg(s->mark_seeds, 0, sizeof(cl_mem), &s->labels));
    CLMC_CL_TRY(clSetKernelArg(s->mark_seeds, 1, sizeof(cl_mem), &s->marked));
    CLMC_CL_TRY(clSetKernelArg(s->mark_seeds, 2, sizeof(cl_uint), &s->tile_edge));
    CLMC_CL_TRY(clSetKernelArg(s->mark_seeds, 3, sizeof(cl_uint), &s->seed_lo));
    CLMC_CL_TRY(clSetKernelArg(s->mark_seeds, 4, sizeof(cl_uint), &s->seed_hi));
    CLMC_CL_TRY(clSetKernelArg(s->flip_marked, 0, sizeof(cl_mem), &s->spins));
    CLMC_CL_TRY(clSetKernelArg(s->flip_marked, 1, sizeof(cl_mem), &s->labels));
    CLMC_CL_TRY(clSetKernelArg(s->flip_marked, 2, sizeof(cl_mem), &s->marked));
    CLMC_CL_TRY(clSetKernelArg(s->flip_marked, 3, sizeof(cl_uint), &s->flip_threshold));
    CLMC_CL_TRY(clSetKernelArg(s->flip_marked, 4, sizeof(cl_uint), &s->seed_lo));
    CLMC_CL_TRY(clSetKernelArg(s->flip_marked, 5, sizeof(cl_uint), &s->seed_hi));
    return CLMC_OK;
}

static void potts_destroy(void *state)
{
    potts_state *s = state;
    if (!s) return;
    clmc_rsite_destroy(s->rsite);
    cl_kernel kernels[] = {s->init,       s->metropolis, s->bonds_kernel, s->flip, s->mark_seeds, s->flip_marked,
                           s->measure,    s->member_totals};
    for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++)
        if (kernels[i]) CLMC_CL_WARN(clReleaseKernel(kernels[i]));
    if (s->program) CLMC_CL_WARN(clReleaseProgram(s->program));
    cl_mem buffers[] = {s->spins,  s->bonds,         s->labels,        s->marked,      s->thresholds,
                        s->bond_thresholds, s->counts, s->member_energy, s->member_order};
    for (size_t i = 0; i < sizeof buffers / sizeof buffers[0]; i++)
        if (buffers[i]) CLMC_CL_WARN(clReleaseMemObject(buffers[i]));
    clmc_labeler_destroy(s->labeler);
    potts_slab_release(&s->merge);
    free(s->counts_host);
    free(s->thresholds_host);
    free(s->bond_thresholds_host);
    free(s);
}

/* Random-site table of one system (cl/potts/random_site.cl), (2 dim + 1)^2
 * entries: Metropolis floor(exp(-beta dE) 2^32) for dE = 1 .. 2 dim; heat
 * bath, row m (the largest number of equal neighbours of any state) and
 * column n <= m, round(2^31 exp(beta (n - m))), the weight of a state with n
 * equal neighbours relative to the heaviest. */
static void rsite_table(double beta, int dim, int q, bool heatbath, cl_uint *table)
{
    (void)q;
    int width = 2 * dim + 1;
    memset(table, 0, (size_t)width * width * sizeof *table);
    for (int m = 0; m < width; m++)
        for (int n = 0; heatbath && n <= m; n++)
            table[m * width + n] = (cl_uint)floor(ldexp(exp(beta * (n - m)), 31) + 0.5);
    for (int k = 1; !heatbath && k < width; k++) table[k - 1] = (cl_uint)floor(exp(-beta * k) * 4294967296.0);
}

static clmc_status setup(potts_state *s, clmc_preset *p)
{
    s->dim = (int)clmc_preset_int(p, "model.dim");
    s->edge = (int)clmc_preset_int(p, "model.L");
    s->q = (int)clmc_preset_int(p, "model.q");
    s->labeling = clmc_label_lattice_from_preset(p, s->dim, s->edge);
    s->lattice_sites = s->n_sites = (cl_uint)clmc_lattice_sites(s->dim, s->edge);
    s->cluster = cluster_update(p);
    /* One system under several ranks: the engine let it through potts_domain. */
    s->slab = slab_layers(p);
    s->domain = s->slab != 0;
    if (s->domain) {
        s->first_layer = clmc_ranks()->rank * s->slab;
        s->n_sites = s->lattice_sites / (cl_uint)clmc_ranks()->size;
        s->labeling.layers = s->slab;
    }
    s->few_clusters = strcmp(clmc_preset_string(p, "algorithm.type"), "few_cluster") == 0;
    s->flip_threshold = (cl_uint)floor(clmc_preset_number(p, "algorithm.flip_probability") * 4294967296.0);
    s->ordered = strcmp(clmc_preset_string(p, "model.start"), "ordered") == 0;
    s->n_configs = (cl_uint)(clmc_preset_betas(p, NULL, 0) * clmc_preset_systems(p)->copies);
    s->first_system = clmc_preset_systems(p)->first_system;
    s->batch = batch_slots(p);
    s->ranks_chained = clmc_preset_systems(p)->ranks_chained;
    uint64_t seed = clmc_preset_run(p)->seed;
    s->seed_lo = (cl_uint)seed;
    s->seed_hi = (cl_uint)(seed >> 32);
    CLMC_TRY(build(s, p));
    CLMC_TRY(allocate(s));
    CLMC_TRY(set_arguments(s));
    size_t global[2] = {stored_sites(s) / s->n_configs, s->n_configs}; /* a slab's halo drawn as its own sites */
    CLMC_TRY(clmc_enqueue(s->rt, s->init, 2, global, NULL, CLMC_UNTIMED));
    if (clmc_rsite_wanted(p)) {
        clmc_rsite_model model = {"potts/random_site.cl", (unsigned)((2 * s->dim + 1) * (2 * s->dim + 1)), rsite_table,
                                  s->q, false, false};
        CLMC_TRY(clmc_rsite_create(s->rt, p, &model, s->spins, s->n_configs, &s->rsite));
    }
    return set_preset_betas(s, p);
}

static clmc_status potts_create(clmc_runtime *rt, clmc_preset *p, void **state, clmc_model_shape *shape)
{
    potts_state *s = calloc(1, sizeof *s);
    if (!s) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    s->rt = rt;
    clmc_status status = setup(s, p);
    if (status != CLMC_OK) {
        potts_destroy(s);
        return status;
    }
    shape->series_columns = series_columns;
    shape->measure_batch = s->batch ? s->batch : 1;
    shape->updates_per_sweep = (double)all_sites(s);
    if (s->rsite) shape->updates_per_sweep = (double)clmc_rsite_attempts(p) * s->n_configs;
    /* Per site: Metropolis reads it, its neighbours (cached) and writes it
     * (about 2 bytes); Swendsen-Wang writes and reads bonds and labels and
     * rewrites the spin (about 12 bytes; relaxation passes not counted). */
    shape->bytes_per_sweep = (double)all_sites(s) * (s->cluster ? 12.0 : 2.0);
    shape->n_systems = clmc_preset_systems(p)->copies;
    shape->n_temperatures = (unsigned)clmc_preset_betas(p, NULL, 0);
    *state = s;
    return CLMC_OK;
}

/* Sets argument `arg` (the sweep) of a per-site kernel and launches it on
 * `items` per system. */
static clmc_status launch_with_sweep(potts_state *s, cl_kernel kernel, cl_uint arg, cl_uint sweep, size_t items)
{
    CLMC_CL_TRY(clSetKernelArg(kernel, arg, sizeof(cl_uint), &sweep));
    size_t global[2] = {items, s->n_configs};
    return clmc_enqueue(s->rt, kernel, 2, global, NULL, CLMC_TIMED);
}



static clmc_status flip_seeded_clusters(potts_state *s, cl_uint sweep)
{
    CLMC_TRY(launch_with_sweep(s, s->mark_seeds, 5, sweep, s->tiles));
    return launch_with_sweep(s, s->flip_marked, 6, sweep, s->n_sites);
}

static clmc_status potts_sweep(void *state, uint64_t sweep_index)
{
    potts_state *s = state;
    cl_uint sweep = (cl_uint)sweep_index;
    size_t sites = s->n_sites, half = s->n_sites / 2;
    if (s->rsite) return clmc_rsite_step(s->rsite, sweep_index);
    if (!s->cluster) {
        CLMC_CL_TRY(clSetKernelArg(s->metropolis, 4, sizeof(cl_uint), &sweep));
        for (cl_uint colour = 0; colour < 2; colour++) {
            CLMC_CL_TRY(clSetKernelArg(s->metropolis, 5, sizeof(cl_uint), &colour));
            size_t global[2] = {half, s->n_configs};
            CLMC_TRY(clmc_enqueue(s->rt, s->metropolis, 2, global, NULL, CLMC_TIMED));
        }
        return CLMC_OK;
    }
    clmc_runtime_set_phase(s->rt, "bond_activation");
    CLMC_TRY(launch_with_sweep(s, s->bonds_kernel, 5, sweep, sites));
    CLMC_TRY(clmc_labeler_run_systems(s->labeler, s->bonds, s->labels, s->n_configs)); /* all at once, each as alone */
    if (s->domain) {
        clmc_runtime_set_phase(s->rt, "cross_rank_merge");
        CLMC_TRY(potts_slab_merge(&s->merge, s->bonds, s->labels));
    }
    clmc_runtime_set_phase(s->rt, "flip");
    clmc_status status = s->few_clusters ? flip_seeded_clusters(s, sweep)
                                         : launch_with_sweep(s, s->flip, 4, sweep, sites);
    clmc_runtime_set_phase(s->rt, NULL);
    if (status == CLMC_OK && s->domain) status = potts_slab_halo(&s->merge, s->spins);
    return status;
}

static clmc_status potts_measure(void *state, unsigned slot)
{
    potts_state *s = state;
    if (s->rsite) CLMC_TRY(clmc_rsite_sync(s->rsite));
    cl_uint zero = 0, slot_arg = slot;
    size_t width = (size_t)(s->q + 1) * s->n_configs * sizeof(cl_uint);
    CLMC_CL_TRY(clEnqueueFillBuffer(clmc_runtime_queue(s->rt), s->counts, &zero, sizeof zero, slot * width, width, 0,
                                    NULL, NULL));
    CLMC_CL_TRY(clSetKernelArg(s->measure, 2, sizeof(cl_uint), &slot_arg));
    size_t global[2] = {s->measure_global, s->n_configs}, local[2] = {s->measure_wg, 1};
    return clmc_enqueue(s->rt, s->measure, 2, global, local, CLMC_UNTIMED);
}

/* Reads the counts of slots [first, first + n), all systems. */
static clmc_status read_counts(potts_state *s, unsigned first, unsigned n)
{
    size_t per_slot = (size_t)(s->q + 1) * s->n_configs * sizeof(cl_uint);
    CLMC_CL_TRY(clEnqueueReadBuffer(clmc_runtime_queue(s->rt), s->counts, CL_TRUE, first * per_slot, n * per_slot,
                                    s->counts_host, 0, NULL, NULL));
    if (!s->domain) return CLMC_OK;
    /* A slab's counts: the lattice's are their exact sum over the ranks (below 2^32: dim x sites < 3 x 2^30). */
    size_t entries = n * per_slot / sizeof(cl_uint);
    long long *sums = malloc(entries * sizeof *sums);
    if (!sums) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    for (size_t i = 0; i < entries; i++) sums[i] = s->counts_host[i];
    clmc_ranks_sum_int64(sums, (int)entries);
    for (size_t i = 0; i < entries; i++) s->counts_host[i] = (cl_uint)sums[i];
    free(sums);
    return CLMC_OK;
}

/* Rows [slot][system]: energy per spin -(equal bonds)/N and the order
 * parameter (q max_k N_k / N - 1)/(q - 1), which is |M|/N for q = 2. */
static clmc_status potts_collect(void *state, unsigned n_slots, double *rows)
{
    potts_state *s = state;
    size_t width = (size_t)(s->q + 1);
    CLMC_TRY(read_counts(s, 0, n_slots));
    for (size_t row = 0; row < (size_t)n_slots * s->n_configs; row++) {
        const cl_uint *c = s->counts_host + row * width;
        cl_uint largest = 0;
        for (int k = 0; k < s->q; k++) largest = c[k] > largest ? c[k] : largest;
        rows[2 * row] = -(double)c[s->q] / s->lattice_sites;
        rows[2 * row + 1] = ((double)s->q * largest / s->lattice_sites - 1.0) / (s->q - 1);
    }
    return CLMC_OK;
}

/* Total energies H = -(equal bonds) of all systems, measured into the spare
 * slot. */
static clmc_status potts_energies(void *state, double *energies)
{
    potts_state *s = state;
    CLMC_TRY(potts_measure(s, s->batch));
    CLMC_TRY(read_counts(s, s->batch, 1));
    for (cl_uint c = 0; c < s->n_configs; c++) energies[c] = -(double)s->counts_host[c * (s->q + 1) + s->q];
    return CLMC_OK;
}

static clmc_status potts_estimate(void *state, const double *rows, size_t n_rows, double beta, cJSON *observables)
{
    potts_state *s = state;
    clmc_ferromagnet_observables(rows, n_rows, 2, 0, 1, beta, s->lattice_sites, observables);
    return CLMC_OK;
}

/* FNV-1a of the final states (all systems in storage order), and the count
 * of states outside 0 .. q - 1.  Slabs (collective): each rank continues the
 * hash of the rank below over its sites, so the lattice's hash comes out. */
static clmc_status potts_checks(void *state, cJSON *checks)
{
    potts_state *s = state;
    if (s->rsite) CLMC_TRY(clmc_rsite_sync(s->rsite));
    unsigned char *spins = malloc(all_sites(s));
    if (!spins) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    cl_int err = clEnqueueReadBuffer(clmc_runtime_queue(s->rt), s->spins, CL_TRUE, 0, all_sites(s), spins, 0, NULL,
                                     NULL);
    /* Slabs and population annealing's members of all ranks, in order
     * (collective, after the ranks' reads, side by side). */
    clmc_configuration_hash hash;
    clmc_configuration_hash_start(&hash, s->domain || s->ranks_chained);
    clmc_configuration_hash_receive(&hash);
    for (size_t i = 0; err == CL_SUCCESS && i < all_sites(s); i++) {
        hash.invalid += spins[i] >= s->q;
        clmc_configuration_hash_byte(&hash, spins[i]);
    }
    free(spins);
    clmc_configuration_hash_finish(&hash, err == CL_SUCCESS ? checks : NULL);
    CLMC_CL_CHECK(err, "clEnqueueReadBuffer(spins)");
    return hash.invalid ? clmc_fail(CLMC_ERR_OTHER, "%lld spins outside 0 .. q - 1", hash.invalid) : CLMC_OK;
}

/* State k as grey level 255 k / (q - 1); system 0.  Slabs (collective): in
 * 2D rank 0 gathers the ranks' rows; in 3D plane z = 0 is rank 0's. */
static clmc_status potts_picture(void *state, unsigned char **grey, int *width, int *height)
{
    potts_state *s = state;
    size_t plane = (size_t)s->edge * (size_t)s->edge, own = plane < s->n_sites ? plane : s->n_sites;
    if (s->rsite) CLMC_TRY(clmc_rsite_sync(s->rsite));
    unsigned char *mine = NULL;
    clmc_status status = clmc_buffer_download(s->rt, s->spins, own, &mine);
    for (size_t i = 0; status == CLMC_OK && i < own; i++) mine[i] = (unsigned char)(mine[i] * 255 / (s->q - 1));
    *width = *height = s->edge;
    if (!(s->domain && s->dim == 2)) {
        *grey = mine;
        return status;
    }
    *grey = malloc(plane);
    if (status == CLMC_OK && !*grey) status = clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    status = clmc_ranks_agree(status);
    if (status == CLMC_OK) status = clmc_ranks_gather(mine, own, *grey);
    free(mine);
    return status;
}

/* result.h5: every system's states 0 .. q - 1 as bytes, [config][z][y][x]. */
static clmc_status potts_snapshot(void *state, clmc_array *configuration)
{
    potts_state *s = state;
    if (s->rsite) CLMC_TRY(clmc_rsite_sync(s->rsite));
    *configuration = clmc_lattice_array("spins", CLMC_ARRAY_UINT8, s->n_configs, s->dim, s->edge, 1);
    if (!configuration->data) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    CLMC_CL_TRY(clEnqueueReadBuffer(clmc_runtime_queue(s->rt), s->spins, CL_TRUE, 0, all_sites(s), configuration->data,
                                    0, NULL, NULL));
    return CLMC_OK;
}

/* Checkpoints: the states (one byte per site, all systems).  Swendsen-Wang bonds and
 * labels are rebuilt every sweep; few-cluster marks are stamped with the
 * sweep, so stale ones never match a later sweep and need no saving. */
static clmc_status potts_save_state(void *state, unsigned char **blob, size_t *bytes)
{
    potts_state *s = state;
    *bytes = stored_sites(s); /* a slab's halo layer too, so that a resume needs no exchange */
    if (s->rsite) CLMC_TRY(clmc_rsite_sync(s->rsite));
    return clmc_buffer_download(s->rt, s->spins, *bytes, blob);
}

static clmc_status potts_load_state(void *state, const unsigned char *blob, size_t bytes)
{
    potts_state *s = state;
    if (bytes != stored_sites(s))
        return clmc_fail(CLMC_ERR_INPUT, "checkpoint: %zu bytes of states; the preset has %zu sites", bytes,
                         stored_sites(s));
    for (size_t i = 0; i < bytes; i++)
        if (blob[i] >= s->q) return clmc_fail(CLMC_ERR_INPUT, "checkpoint: state %zu is outside 0 .. q - 1", i);
    CLMC_CL_TRY(clEnqueueWriteBuffer(clmc_runtime_queue(s->rt), s->spins, CL_TRUE, 0, bytes, blob, 0, NULL, NULL));
    return s->rsite ? clmc_rsite_reload(s->rsite) : CLMC_OK;
}

/* States of every system, and for cluster updates their bonds, labels and
 * marks, plus about one system's labels for the labeler (all systems are
 * labelled in place, in the same launches). */
static void potts_device_bytes(const clmc_preset *p, uint64_t *total, uint64_t *largest)
{
    uint64_t sites = clmc_lattice_sites((int)clmc_preset_int(p, "model.dim"), (int)clmc_preset_int(p, "model.L"));
    uint64_t configs = clmc_preset_betas(p, NULL, 0) * clmc_preset_systems(p)->copies;
    bool cluster = cluster_update(p);
    uint64_t q = (uint64_t)clmc_preset_int(p, "model.q");
    if (slab_layers(p)) sites = sites / (uint64_t)clmc_ranks()->size; /* a slab (its halo layer not counted) */
    uint64_t counts = (batch_slots(p) + 1ULL) * configs * (q + 1) * sizeof(cl_uint);
    *total = sites * configs * (cluster ? 1 + 1 + 4 + 4 : 1) + (cluster ? sites * 4 : 0) + counts;
    if (strcmp(clmc_preset_string(p, "algorithm.random_site"), "copies") == 0)
        *total += sites * configs + 49 * sizeof(cl_uint) * configs; /* the copy-minor states and the tables */
    if (clmc_preset_is_population(p)) *total += 2 * sizeof(cl_int) * configs; /* member energies and order values */
    *largest = sites * configs * (cluster ? 4 : 1);
    if (counts > *largest) *largest = counts;
}

/* ---- One lattice over MPI ranks (docs/mpi.md) ------------------------------- */

/* Swendsen-Wang of one system cut into `ranks` slabs along the last axis:
 * L a multiple of the ranks with at least 2 layers each, the tile (given)
 * dividing the slab. */
static clmc_status potts_domain(const clmc_preset *p, int ranks, cJSON *record)
{
    int dim = (int)clmc_preset_int(p, "model.dim"), edge = (int)clmc_preset_int(p, "model.L");
    const char *type = clmc_preset_string(p, "algorithm.type"), *layers = dim == 2 ? "rows" : "planes";
    if (strcmp(type, "swendsen_wang") != 0)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.type: \"%s\" cannot be decomposed over %d MPI ranks; one Potts "
                         "lattice is cut into slabs for \"swendsen_wang\" only (run \"%s\" in one process)", type,
                         ranks, type);
    if (clmc_preset_has(p, "ensemble.type"))
        return clmc_fail(CLMC_ERR_INPUT, "ensemble.type: \"%s\" is not spread over %d MPI ranks; one system at one "
                         "temperature (ensemble.beta) is decomposed, independent copies are shared",
                         clmc_preset_string(p, "ensemble.type"), ranks);
    if (edge % ranks != 0 || edge / ranks < 2)
        return clmc_fail(CLMC_ERR_INPUT, "model.L: %d %s cannot be cut into %d slabs of equal size with at least 2 %s "
                         "each (L must be a multiple of the %d MPI ranks, L / K >= 2)", edge, layers, ranks, layers,
                         ranks);
    int tile = (int)clmc_preset_int(p, "algorithm.tile");
    if (tile != 0 && (edge / ranks) % tile != 0)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.tile: %d does not divide the %d %s of a slab (model.L %d over %d "
                         "MPI ranks)", tile, edge / ranks, layers, edge, ranks);
    if (record) {
        double layer = (double)edge * (dim == 3 ? edge : 1);
        cJSON_AddStringToObject(record, "axis", dim == 2 ? "y" : "z");
        cJSON_AddNumberToObject(record, "slabs", ranks);
        cJSON_AddNumberToObject(record, "layers_per_rank", edge / ranks);
        cJSON_AddNumberToObject(record, "halo_bytes_per_sweep", layer);
        cJSON_AddNumberToObject(record, "merge_bytes_per_sweep", 8 * layer * ranks);
    }
    return CLMC_OK;
}

/* Slabs: rank 0's host time in the cross-rank merge and the halo exchange. */
static void potts_describe_update(void *state, cJSON *performance)
{
    potts_state *s = state;
    if (!s->domain) return;
    cJSON *merge = cJSON_AddObjectToObject(performance, "cross_rank");
    cJSON_AddNumberToObject(merge, "merge_seconds", s->merge.merge_seconds);
    cJSON_AddNumberToObject(merge, "halo_seconds", s->merge.halo_seconds);
    cJSON_AddNumberToObject(merge, "merged_roots", (double)s->merge.merged_roots);
    cJSON_AddNumberToObject(merge, "allgather_seconds", s->merge.allgather_seconds);
    cJSON_AddNumberToObject(merge, "union_find_seconds", s->merge.union_find_seconds);
    cJSON_AddNumberToObject(merge, "upload_seconds", s->merge.upload_seconds);
}

/* ---- Population annealing (docs/ensembles.md) ------------------------------ */

/* Every system's H and order value Q max_k N_k - N as cl_int, from the
 * spare measurement slot (potts_member_totals). */
static clmc_status potts_member_observables(void *state, cl_mem *energy, cl_mem *order)
{
    potts_state *s = state;
    if (!s->member_totals) {
        CLMC_TRY(clmc_kernel_create(s->program, "potts_member_totals", &s->member_totals));
        CLMC_TRY(create_buffer(s, sizeof(cl_int) * s->n_configs, NULL, &s->member_energy));
        CLMC_TRY(create_buffer(s, sizeof(cl_int) * s->n_configs, NULL, &s->member_order));
        cl_uint slot = s->batch;
        CLMC_CL_TRY(clSetKernelArg(s->member_totals, 0, sizeof(cl_mem), &s->counts));
        CLMC_CL_TRY(clSetKernelArg(s->member_totals, 1, sizeof(cl_uint), &slot));
        CLMC_CL_TRY(clSetKernelArg(s->member_totals, 2, sizeof(cl_mem), &s->member_energy));
        CLMC_CL_TRY(clSetKernelArg(s->member_totals, 3, sizeof(cl_mem), &s->member_order));
    }
    CLMC_TRY(potts_measure(s, s->batch));
    size_t items = s->n_configs;
    CLMC_TRY(clmc_enqueue(s->rt, s->member_totals, 1, &items, NULL, CLMC_UNTIMED));
    *energy = s->member_energy;
    *order = s->member_order;
    return CLMC_OK;
}

/* The random start drawn for independent run `run` (the init counter's third word). */
static clmc_status potts_fresh_start(void *state, unsigned run)
{
    potts_state *s = state;
    cl_uint run_arg = run;
    CLMC_CL_TRY(clSetKernelArg(s->init, 4, sizeof(cl_uint), &run_arg));
    size_t global[2] = {s->n_sites, s->n_configs};
    return clmc_enqueue(s->rt, s->init, 2, global, NULL, CLMC_UNTIMED);
}

static clmc_status potts_members_buffer(void *state, cl_mem *buffer, size_t *bytes_per_member)
{
    potts_state *s = state;
    *buffer = s->spins;
    *bytes_per_member = s->n_sites; /* one byte per site; L even, so whole words */
    return CLMC_OK;
}

static void potts_member_size(void *state, double *sites, double *log_states)
{
    const potts_state *s = state;
    *sites = s->n_sites;
    *log_states = s->n_sites * log((double)s->q);
}

/* The order parameter (Q max_k N_k / N - 1) / (Q - 1) of the model's series. */
static void potts_member_order(void *state, clmc_member_order *out)
{
    const potts_state *s = state;
    *out = (clmc_member_order){"abs_magnetization", NULL, NULL, "susceptibility", "binder",
                               (double)(s->q - 1) * s->n_sites, 1.0};
}

/* Multicanonical walkers (cl/potts/muca_potts.cl): energies -(satisfied
 * bonds) = -dim N ... 0 in steps of 1, one byte per site. */
static clmc_status potts_density_walkers(void *state, clmc_density_walkers *out)
{
    potts_state *s = state;
    snprintf(s->muca_defines, sizeof s->muca_defines, "-cl-std=CL1.2 -DDIM=%d -DEDGE=%d -DQ=%d", s->dim, s->edge,
             s->q);
    *out = (clmc_density_walkers){.program = "potts/muca_potts.cl",
                                  .defines = s->muca_defines,
                                  .e_min = -s->dim * (int)s->n_sites,
                                  .e_step = 1,
                                  .n_bins = (unsigned)s->dim * s->n_sites + 1,
                                  .max_bin_step = 2 * (unsigned)s->dim,
                                  .sites = s->n_sites,
                                  .log_states = s->n_sites * log((double)s->q),
                                  .walker_bytes = s->n_sites};
    return CLMC_OK;
}

static const clmc_ensemble_hooks potts_ensemble_hooks = {
    .independent = true,
    .energies = potts_energies,
    .set_betas = potts_set_betas,
    .set_beta_all = potts_set_beta_all,
    .member_observables = potts_member_observables,
    .members_buffer = potts_members_buffer,
    .member_size = potts_member_size,
    .fresh_start = potts_fresh_start,
    .member_order = potts_member_order,
    .density_walkers = potts_density_walkers,
};

const clmc_model_ops clmc_model_potts = {
    .type = "potts",
    .model_fields = clmc_potts_model_fields,
    .algorithm_fields = clmc_potts_algorithm_fields,
    .validate = potts_validate,
    .create = potts_create,
    .destroy = potts_destroy,
    .sweep = potts_sweep,
    .measure = potts_measure,
    .collect = potts_collect,
    .estimate = potts_estimate,
    .ensemble = &potts_ensemble_hooks,
    .checks = potts_checks,
    .save_state = potts_save_state,
    .load_state = potts_load_state,
    .device_bytes = potts_device_bytes,
    .tunables = clmc_labeling_tunables,
    .picture = potts_picture,
    .snapshot = potts_snapshot,
    .domain = potts_domain,
    .describe_update = potts_describe_update,
};
