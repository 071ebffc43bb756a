/* Host side of the q-state Potts model: validation, kernel set-up, sweeps
 * (checkerboard Metropolis, or Swendsen-Wang: bond activation, labeling by
 * clmc_labeler, cluster flips) and measurements of the energy and the Potts
 * order parameter. */
#include "models/potts/potts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <math.h>

#include "clmc/labeling.h"
#include "models/labeling/labeling_options.h"
#include "runtime/defines.h"
#include "measure/measure.h"
#include "models/lattice.h"

#define MEASURE_WG_MAX 256
#define MEASURE_GROUPS_MAX 1024
#define MEASURE_BATCH 256

static const char *const series_columns[] = {"energy", "magnetization", NULL};

typedef struct {
    clmc_runtime *rt;
    int dim, edge, q;
    clmc_label_lattice labeling;
    cl_uint n_sites, seed_lo, seed_hi, ordered;
    bool cluster;      /* Swendsen-Wang or few-cluster, else Metropolis */
    bool few_clusters; /* few-cluster: only seeded clusters change */
    cl_uint flip_threshold, tile_edge, tiles; /* few-cluster */
    double beta;
    cl_program program;
    cl_kernel init, metropolis, bonds_kernel, flip, mark_seeds, flip_marked, measure;
    cl_mem spins, bonds, labels, marked, thresholds, counts;
    clmc_labeler *labeler;
    size_t measure_wg, measure_global;
    cl_uint *counts_host; /* [slot][state 0 .. q - 1, equal bonds] */
} potts_state;

static clmc_status potts_validate(const clmc_preset *p)
{
    int dim = (int)clmc_preset_int(p, "model.dim"), edge = (int)clmc_preset_int(p, "model.L");
    int tile = (int)clmc_preset_int(p, "algorithm.tile");
    bool cluster = strcmp(clmc_preset_string(p, "algorithm.type"), "metropolis") != 0;
    double flip_probability = clmc_preset_number(p, "algorithm.flip_probability");
    if (clmc_preset_betas(p, NULL, 0) > 1)
        return clmc_fail(CLMC_ERR_INPUT, "ensemble: the potts model has no parallel tempering yet; give ensemble.beta");
    if (edge % 2 != 0) return clmc_fail(CLMC_ERR_INPUT, "model.L: must be even for the checkerboard, got %d", edge);
    if (clmc_lattice_sites(dim, edge) >= (1ULL << 30))
        return clmc_fail(CLMC_ERR_INPUT, "model.L: %d^%d sites exceed the 2^30 the kernels count", edge, dim);
    if (cluster && tile != 0 && (edge % tile != 0 || clmc_lattice_sites(dim, tile) > CLMC_LABEL_TILE_SITES_MAX))
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.tile: %d must divide model.L = %d with tile^%d <= %d", tile, edge,
                         dim, CLMC_LABEL_TILE_SITES_MAX);
    if (!cluster && tile != 0)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.tile: only for swendsen_wang (labeling tiles); got %d", tile);
    if (!(flip_probability > 0 && flip_probability < 1))
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.flip_probability: must lie strictly between 0 and 1 (below one "
                         "for ergodicity), got %g", flip_probability);
    return CLMC_OK;
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
    CLMC_TRY(clmc_defines_build(s->rt, "potts/potts.cl", &options, &s->program));
    CLMC_TRY(clmc_kernel_create(s->program, "potts_init", &s->init));
    CLMC_TRY(clmc_kernel_create(s->program, "potts_measure", &s->measure));
    if (s->cluster) {
        CLMC_TRY(clmc_kernel_create(s->program, "potts_bonds", &s->bonds_kernel));
        CLMC_TRY(clmc_kernel_create(s->program, "potts_flip", &s->flip));
        CLMC_TRY(clmc_kernel_create(s->program, "potts_mark_seeds", &s->mark_seeds));
        CLMC_TRY(clmc_kernel_create(s->program, "potts_flip_marked", &s->flip_marked));
        CLMC_TRY(clmc_labeler_create(s->rt, s->labeling, &s->labeler));
        s->tile_edge = (cl_uint)clmc_labeler_tile(s->labeler);
        clmc_preset_set_int(p, "algorithm.tile", (long long)s->tile_edge); /* the resolved edge, echoed */
        s->tiles = (cl_uint)clmc_lattice_sites(s->dim, s->edge / (int)s->tile_edge);
        return CLMC_OK;
    }
    return clmc_kernel_create(s->program, "potts_metropolis", &s->metropolis);
}

static clmc_status allocate(potts_state *s)
{
    CLMC_TRY(create_buffer(s, s->n_sites, NULL, &s->spins));
    s->counts_host = calloc((size_t)MEASURE_BATCH * (s->q + 1), sizeof *s->counts_host);
    if (!s->counts_host) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    CLMC_TRY(create_buffer(s, (size_t)MEASURE_BATCH * (s->q + 1) * sizeof(cl_uint), NULL, &s->counts));
    if (s->cluster) {
        CLMC_TRY(create_buffer(s, s->n_sites, NULL, &s->bonds));
        CLMC_TRY(create_buffer(s, (size_t)s->n_sites * sizeof(cl_uint), NULL, &s->labels));
        if (!s->few_clusters) return CLMC_OK;
        CLMC_TRY(create_buffer(s, (size_t)s->n_sites * sizeof(cl_uint), NULL, &s->marked));
        cl_uint zero = 0; /* no cluster marked: stamps are sweep + 1 */
        CLMC_CL_TRY(clEnqueueFillBuffer(clmc_runtime_queue(s->rt), s->marked, &zero, sizeof zero, 0,
                                        (size_t)s->n_sites * sizeof(cl_uint), 0, NULL, NULL));
        return CLMC_OK;
    }
    /* floor(exp(-beta dE) 2^32) for dE = 1 .. 2 dim. */
    cl_uint thresholds[6];
    for (int k = 1; k <= 2 * s->dim; k++) thresholds[k - 1] = (cl_uint)floor(exp(-s->beta * k) * 4294967296.0);
    return create_buffer(s, sizeof thresholds, thresholds, &s->thresholds);
}

static clmc_status set_arguments(potts_state *s)
{
    CLMC_CL_TRY(clSetKernelArg(s->init, 0, sizeof(cl_mem), &s->spins));
    CLMC_CL_TRY(clSetKernelArg(s->init, 1, sizeof(cl_uint), &s->seed_lo));
    CLMC_CL_TRY(clSetKernelArg(s->init, 2, sizeof(cl_uint), &s->seed_hi));
    CLMC_CL_TRY(clSetKernelArg(s->init, 3, sizeof(cl_uint), &s->ordered));
    CLMC_CL_TRY(clSetKernelArg(s->measure, 0, sizeof(cl_mem), &s->spins));
    CLMC_CL_TRY(clSetKernelArg(s->measure, 1, sizeof(cl_mem), &s->counts));
    if (!s->cluster) {
        CLMC_CL_TRY(clSetKernelArg(s->metropolis, 0, sizeof(cl_mem), &s->spins));
        CLMC_CL_TRY(clSetKernelArg(s->metropolis, 1, sizeof(cl_mem), &s->thresholds));
        CLMC_CL_TRY(clSetKernelArg(s->metropolis, 2, sizeof(cl_uint), &s->seed_lo));
        CLMC_CL_TRY(clSetKernelArg(s->metropolis, 3, sizeof(cl_uint), &s->seed_hi));
        return CLMC_OK;
    }
    /* Bond probability 1 - exp(-beta) as an exact integer threshold. */
    cl_uint threshold = (cl_uint)floor(-expm1(-s->beta) * 4294967296.0);
    CLMC_CL_TRY(clSetKernelArg(s->bonds_kernel, 0, sizeof(cl_mem), &s->spins));
    CLMC_CL_TRY(clSetKernelArg(s->bonds_kernel, 1, sizeof(cl_mem), &s->bonds));
    CLMC_CL_TRY(clSetKernelArg(s->bonds_kernel, 2, sizeof(cl_uint), &threshold));
    CLMC_CL_TRY(clSetKernelArg(s->bonds_kernel, 3, sizeof(cl_uint), &s->seed_lo));
    CLMC_CL_TRY(clSetKernelArg(s->bonds_kernel, 4, sizeof(cl_uint), &s->seed_hi));
    CLMC_CL_TRY(clSetKernelArg(s->flip, 0, sizeof(cl_mem), &s->spins));
    CLMC_CL_TRY(clSetKernelArg(s->flip, 1, sizeof(cl_mem), &s->labels));
    CLMC_CL_TRY(clSetKernelArg(s->flip, 2, sizeof(cl_uint), &s->seed_lo));
    CLMC_CL_TRY(clSetKernelArg(s->flip, 3, sizeof(cl_uint), &s->seed_hi));
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
    cl_kernel kernels[] = {s->init, s->metropolis, s->bonds_kernel, s->flip, s->mark_seeds, s->flip_marked, s->measure};
    for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++)
        if (kernels[i]) CLMC_CL_WARN(clReleaseKernel(kernels[i]));
    if (s->program) CLMC_CL_WARN(clReleaseProgram(s->program));
    cl_mem buffers[] = {s->spins, s->bonds, s->labels, s->marked, s->thresholds, s->counts};
    for (size_t i = 0; i < sizeof buffers / sizeof buffers[0]; i++)
        if (buffers[i]) CLMC_CL_WARN(clReleaseMemObject(buffers[i]));
    clmc_labeler_destroy(s->labeler);
    free(s->counts_host);
    free(s);
}

static clmc_status setup(potts_state *s, clmc_preset *p)
{
    s->dim = (int)clmc_preset_int(p, "model.dim");
    s->edge = (int)clmc_preset_int(p, "model.L");
    s->q = (int)clmc_preset_int(p, "model.q");
    s->labeling = clmc_label_lattice_from_preset(p, s->dim, s->edge);
    s->n_sites = (cl_uint)clmc_lattice_sites(s->dim, s->edge);
    s->cluster = strcmp(clmc_preset_string(p, "algorithm.type"), "metropolis") != 0;
    s->few_clusters = strcmp(clmc_preset_string(p, "algorithm.type"), "few_cluster") == 0;
    s->flip_threshold = (cl_uint)floor(clmc_preset_number(p, "algorithm.flip_probability") * 4294967296.0);
    s->ordered = strcmp(clmc_preset_string(p, "model.start"), "ordered") == 0;
    clmc_preset_betas(p, &s->beta, 1);
    uint64_t seed = clmc_preset_run(p)->seed;
    s->seed_lo = (cl_uint)seed;
    s->seed_hi = (cl_uint)(seed >> 32);
    CLMC_TRY(build(s, p));
    CLMC_TRY(allocate(s));
    CLMC_TRY(set_arguments(s));
    size_t global = s->n_sites;
    return clmc_enqueue(s->rt, s->init, 1, &global, NULL, CLMC_UNTIMED);
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
    shape->measure_batch = MEASURE_BATCH;
    shape->updates_per_sweep = s->n_sites;
    /* Per site: Metropolis reads it, its neighbours (cached) and writes it
     * (about 2 bytes); Swendsen-Wang writes and reads bonds and labels and
     * rewrites the spin (about 12 bytes; relaxation passes not counted). */
    shape->bytes_per_sweep = (double)s->n_sites * (s->cluster ? 12.0 : 2.0);
    shape->n_systems = 1;
    shape->n_temperatures = 1;
    *state = s;
    return CLMC_OK;
}

/* Sets argument `arg` (the sweep) of a per-site kernel and launches it. */
static clmc_status launch_with_sweep(potts_state *s, cl_kernel kernel, cl_uint arg, cl_uint sweep, size_t items)
{
    CLMC_CL_TRY(clSetKernelArg(kernel, arg, sizeof(cl_uint), &sweep));
    return clmc_enqueue(s->rt, kernel, 1, &items, NULL, CLMC_TIMED);
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
    if (!s->cluster) {
        CLMC_CL_TRY(clSetKernelArg(s->metropolis, 4, sizeof(cl_uint), &sweep));
        for (cl_uint colour = 0; colour < 2; colour++) {
            CLMC_CL_TRY(clSetKernelArg(s->metropolis, 5, sizeof(cl_uint), &colour));
            CLMC_TRY(clmc_enqueue(s->rt, s->metropolis, 1, &half, NULL, CLMC_TIMED));
        }
        return CLMC_OK;
    }
    CLMC_CL_TRY(clSetKernelArg(s->bonds_kernel, 5, sizeof(cl_uint), &sweep));
    clmc_runtime_set_phase(s->rt, "bond_activation");
    CLMC_TRY(clmc_enqueue(s->rt, s->bonds_kernel, 1, &sites, NULL, CLMC_TIMED));
    CLMC_TRY(clmc_labeler_run(s->labeler, s->bonds, s->labels, NULL));
    clmc_runtime_set_phase(s->rt, "flip");
    clmc_status status = s->few_clusters ? flip_seeded_clusters(s, sweep)
                                         : launch_with_sweep(s, s->flip, 4, sweep, sites);
    clmc_runtime_set_phase(s->rt, NULL);
    return status;
}

static clmc_status potts_measure(void *state, unsigned slot)
{
    potts_state *s = state;
    cl_uint zero = 0, slot_arg = slot;
    size_t width = (size_t)(s->q + 1) * sizeof(cl_uint);
    CLMC_CL_TRY(clEnqueueFillBuffer(clmc_runtime_queue(s->rt), s->counts, &zero, sizeof zero, slot * width, width, 0,
                                    NULL, NULL));
    CLMC_CL_TRY(clSetKernelArg(s->measure, 2, sizeof(cl_uint), &slot_arg));
    return clmc_enqueue(s->rt, s->measure, 1, &s->measure_global, &s->measure_wg, CLMC_UNTIMED);
}

/* Rows: energy per spin -(equal bonds)/N and the order parameter
 * (q max_k N_k / N - 1)/(q - 1), which is |M|/N for q = 2. */
static clmc_status potts_collect(void *state, unsigned n_slots, double *rows)
{
    potts_state *s = state;
    size_t width = (size_t)(s->q + 1);
    CLMC_CL_TRY(clEnqueueReadBuffer(clmc_runtime_queue(s->rt), s->counts, CL_TRUE, 0, n_slots * width * sizeof(cl_uint),
                                    s->counts_host, 0, NULL, NULL));
    for (unsigned slot = 0; slot < n_slots; slot++) {
        const cl_uint *c = s->counts_host + slot * width;
        cl_uint largest = 0;
        for (int k = 0; k < s->q; k++) largest = c[k] > largest ? c[k] : largest;
        rows[2 * slot] = -(double)c[s->q] / s->n_sites;
        rows[2 * slot + 1] = ((double)s->q * largest / s->n_sites - 1.0) / (s->q - 1);
    }
    return CLMC_OK;
}

static clmc_status potts_estimate(void *state, const double *rows, size_t n_rows, double beta, cJSON *observables)
{
    potts_state *s = state;
    clmc_ferromagnet_observables(rows, n_rows, 2, 0, 1, beta, s->n_sites, observables);
    return CLMC_OK;
}

/* FNV-1a of the final states, and the count of states outside 0 .. q - 1. */
static clmc_status potts_checks(void *state, cJSON *checks)
{
    potts_state *s = state;
    unsigned char *spins = malloc(s->n_sites);
    if (!spins) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    cl_int err = clEnqueueReadBuffer(clmc_runtime_queue(s->rt), s->spins, CL_TRUE, 0, s->n_sites, spins, 0, NULL, NULL);
    unsigned long long hash = 0xcbf29ce484222325ULL, invalid = 0;
    for (cl_uint i = 0; err == CL_SUCCESS && i < s->n_sites; i++) {
        invalid += spins[i] >= s->q;
        hash = (hash ^ spins[i]) * 0x100000001b3ULL;
    }
    free(spins);
    CLMC_CL_CHECK(err, "clEnqueueReadBuffer(spins)");
    char text[32];
    snprintf(text, sizeof text, "%016llx", hash);
    cJSON_AddStringToObject(checks, "configuration_fnv1a", text);
    cJSON_AddNumberToObject(checks, "invalid_spins", (double)invalid);
    return invalid ? clmc_fail(CLMC_ERR_OTHER, "%llu spins outside 0 .. q - 1", invalid) : CLMC_OK;
}

/* State k as grey level 255 k / (q - 1). */
static clmc_status potts_picture(void *state, unsigned char **grey, int *width, int *height)
{
    potts_state *s = state;
    size_t plane = (size_t)s->edge * (size_t)s->edge;
    CLMC_TRY(clmc_buffer_download(s->rt, s->spins, plane, grey));
    for (size_t i = 0; i < plane; i++) (*grey)[i] = (unsigned char)((*grey)[i] * 255 / (s->q - 1));
    *width = *height = s->edge;
    return CLMC_OK;
}

/* Checkpoints: the states (one byte per site).  Swendsen-Wang bonds and
 * labels are rebuilt every sweep; few-cluster marks are stamped with the
 * sweep, so stale ones never match a later sweep and need no saving. */
static clmc_status potts_save_state(void *state, unsigned char **blob, size_t *bytes)
{
    potts_state *s = state;
    *bytes = s->n_sites;
    return clmc_buffer_download(s->rt, s->spins, *bytes, blob);
}

static clmc_status potts_load_state(void *state, const unsigned char *blob, size_t bytes)
{
    potts_state *s = state;
    if (bytes != s->n_sites)
        return clmc_fail(CLMC_ERR_INPUT, "checkpoint: %zu bytes of states; the preset has %u sites", bytes, s->n_sites);
    for (size_t i = 0; i < bytes; i++)
        if (blob[i] >= s->q) return clmc_fail(CLMC_ERR_INPUT, "checkpoint: state %zu is outside 0 .. q - 1", i);
    CLMC_CL_TRY(clEnqueueWriteBuffer(clmc_runtime_queue(s->rt), s->spins, CL_TRUE, 0, bytes, blob, 0, NULL, NULL));
    return CLMC_OK;
}

/* States, and for cluster updates bonds, labels, marks and about as much
 * again for the labeler's tiles. */
static void potts_device_bytes(const clmc_preset *p, uint64_t *total, uint64_t *largest)
{
    uint64_t sites = clmc_lattice_sites((int)clmc_preset_int(p, "model.dim"), (int)clmc_preset_int(p, "model.L"));
    bool cluster = strcmp(clmc_preset_string(p, "algorithm.type"), "metropolis") != 0;
    *total = sites * (cluster ? 1 + 1 + 4 + 4 + 4 : 1);
    *largest = cluster ? 4 * sites : sites;
}

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
    .checks = potts_checks,
    .save_state = potts_save_state,
    .load_state = potts_load_state,
    .device_bytes = potts_device_bytes,
    .tunables = clmc_labeling_tunables,
    .picture = potts_picture,
};
