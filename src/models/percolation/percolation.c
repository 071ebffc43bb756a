/* Host side of the percolation model: every sweep draws a new sample on the
 * device (cl/percolation/percolation.cl) and labels it (clmc_labeler); a measurement
 * reads labels, bonds and occupation back and computes, on the host, the
 * largest cluster, the mean cluster size and whether a cluster wraps the
 * torus (a depth-first search that keeps unwrapped coordinates: reaching a
 * site of the cluster again with other coordinates closes a loop around the
 * torus in the directions that differ).  ensemble.type "independent": copies
 * systems one after another in every buffer, each drawn from its own stream
 * and labelled as if alone. */
#include "models/percolation/percolation.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clmc/labeling.h"
#include "models/labeling/labeling_options.h"
#include "clmc/stats.h"
#include "runtime/defines.h"
#include "measure/measure.h"
#include "models/ensemble_hooks.h"
#include "models/lattice.h"
#include "output/state_blob.h"

enum { LARGEST, MEAN_SIZE, WRAP_X, WRAP_EITHER, WRAP_ALL, COLUMNS };
static const char *const series_columns[] = {"largest_cluster_fraction", "mean_cluster_size", "wrapping_horizontal",
                                             "wrapping_either", "wrapping_both", NULL};

typedef struct {
    clmc_runtime *rt;
    int dim, edge;
    cl_uint n_sites, seed_lo, seed_hi, threshold, site_kind;
    cl_uint n_configs, first_system; /* ensemble.copies and ensemble.first_system (1 and 0 without) */
    cl_program program;
    cl_kernel sample;
    cl_mem bonds, occupied, labels;
    clmc_labeler *labeler;
    uint8_t *bonds_host, *occupied_host; /* all systems */
    uint32_t *labels_host;               /* all systems */
    uint32_t *stack, *size;              /* one system's analysis */
    int32_t *unwrapped; /* [site][d] */
    unsigned char *seen;
} percolation_state;

static clmc_status percolation_validate(const clmc_preset *p)
{
    int dim = (int)clmc_preset_int(p, "model.dim"), edge = (int)clmc_preset_int(p, "model.L");
    int tile = (int)clmc_preset_int(p, "algorithm.tile");
    if (clmc_lattice_sites(dim, edge) >= (1ULL << 31))
        return clmc_fail(CLMC_ERR_INPUT, "model.L: %d^%d sites exceed the 2^31 - 1 the kernels index", edge, dim);
    if (tile != 0 && (edge % tile != 0 || clmc_lattice_sites(dim, tile) > CLMC_LABEL_TILE_SITES_MAX))
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.tile: %d must divide model.L = %d with tile^%d <= %d", tile, edge,
                         dim, CLMC_LABEL_TILE_SITES_MAX);
    return CLMC_OK;
}

static clmc_status create_buffer(percolation_state *s, size_t bytes, cl_mem *out)
{
    return clmc_buffer_create(s->rt, bytes, NULL, "percolation", out);
}

static void percolation_destroy(void *state)
{
    percolation_state *s = state;
    if (!s) return;
    if (s->sample) CLMC_CL_WARN(clReleaseKernel(s->sample));
    if (s->program) CLMC_CL_WARN(clReleaseProgram(s->program));
    cl_mem buffers[] = {s->bonds, s->occupied, s->labels};
    for (size_t i = 0; i < 3; i++)
        if (buffers[i]) CLMC_CL_WARN(clReleaseMemObject(buffers[i]));
    clmc_labeler_destroy(s->labeler);
    free(s->bonds_host);
    free(s->occupied_host);
    free(s->labels_host);
    free(s->stack);
    free(s->size);
    free(s->unwrapped);
    free(s->seen);
    free(s);
}

static clmc_status setup(percolation_state *s, clmc_preset *p)
{
    s->dim = (int)clmc_preset_int(p, "model.dim");
    s->edge = (int)clmc_preset_int(p, "model.L");
    s->n_sites = (cl_uint)clmc_lattice_sites(s->dim, s->edge);
    s->n_configs = clmc_preset_systems(p)->copies;
    s->first_system = clmc_preset_systems(p)->first_system;
    double probability = clmc_preset_number(p, "model.p");
    s->threshold = probability >= 1.0 ? 0xFFFFFFFFu : (cl_uint)floor(probability * 4294967296.0);
    s->site_kind = strcmp(clmc_preset_string(p, "model.kind"), "site") == 0;
    uint64_t seed = clmc_preset_run(p)->seed;
    s->seed_lo = (cl_uint)seed;
    s->seed_hi = (cl_uint)(seed >> 32);
    clmc_defines options = {0};
    clmc_defines_text(&options, "-cl-std=CL1.2");
    clmc_defines_int(&options, "DIM", s->dim);
    clmc_defines_int(&options, "EDGE", s->edge);
    CLMC_TRY(clmc_defines_build(s->rt, "percolation/percolation.cl", &options, &s->program));
    CLMC_TRY(clmc_kernel_create(s->program, "percolation_sample", &s->sample));
    CLMC_TRY(clmc_kernel_set_first_system(s->sample, s->first_system));
    CLMC_TRY(clmc_labeler_create(s->rt, clmc_label_lattice_from_preset(p, s->dim, s->edge), &s->labeler));
    clmc_preset_set_int(p, "algorithm.tile", clmc_labeler_tile(s->labeler)); /* the resolved edge, echoed */
    size_t n = s->n_sites, all = n * s->n_configs;
    CLMC_TRY(create_buffer(s, all, &s->bonds));
    CLMC_TRY(create_buffer(s, all, &s->occupied));
    CLMC_TRY(create_buffer(s, all * sizeof(cl_uint), &s->labels));
    s->bonds_host = malloc(all);
    s->occupied_host = malloc(all);
    s->labels_host = malloc(all * sizeof *s->labels_host);
    s->stack = malloc(n * sizeof *s->stack);
    s->size = malloc(n * sizeof *s->size);
    s->unwrapped = malloc(n * (size_t)s->dim * sizeof *s->unwrapped);
    s->seen = malloc(n);
    if (!s->bonds_host || !s->occupied_host || !s->labels_host || !s->stack || !s->size || !s->unwrapped || !s->seen)
        return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    CLMC_CL_TRY(clSetKernelArg(s->sample, 0, sizeof(cl_mem), &s->bonds));
    CLMC_CL_TRY(clSetKernelArg(s->sample, 1, sizeof(cl_mem), &s->occupied));
    CLMC_CL_TRY(clSetKernelArg(s->sample, 2, sizeof(cl_uint), &s->threshold));
    CLMC_CL_TRY(clSetKernelArg(s->sample, 3, sizeof(cl_uint), &s->site_kind));
    CLMC_CL_TRY(clSetKernelArg(s->sample, 4, sizeof(cl_uint), &s->seed_lo));
    CLMC_CL_TRY(clSetKernelArg(s->sample, 5, sizeof(cl_uint), &s->seed_hi));
    return CLMC_OK;
}

static clmc_status percolation_create(clmc_runtime *rt, clmc_preset *p, void **state, clmc_model_shape *shape)
{
    percolation_state *s = calloc(1, sizeof *s);
    if (!s) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    s->rt = rt;
    clmc_status status = setup(s, p);
    if (status != CLMC_OK) {
        percolation_destroy(s);
        return status;
    }
    shape->series_columns = series_columns;
    shape->measure_batch = 1; /* measurements are analysed on the host at once */
    shape->updates_per_sweep = (double)s->n_sites * s->n_configs;
    /* bonds, occupation, labels (relaxation not counted) */
    shape->bytes_per_sweep = (double)s->n_sites * s->n_configs * 12.0;
    shape->n_systems = s->n_configs;
    shape->n_temperatures = 1;
    *state = s;
    return CLMC_OK;
}

/* One sweep = a new sample, labelled. */
static clmc_status percolation_sweep(void *state, uint64_t sweep_index)
{
    percolation_state *s = state;
    cl_uint sample = (cl_uint)sweep_index;
    size_t global[2] = {s->n_sites, s->n_configs};
    CLMC_CL_TRY(clSetKernelArg(s->sample, 6, sizeof(cl_uint), &sample));
    clmc_runtime_set_phase(s->rt, "sampling");
    CLMC_TRY(clmc_enqueue(s->rt, s->sample, 2, global, NULL, CLMC_TIMED));
    return clmc_labeler_run_systems(s->labeler, s->bonds, s->labels, s->n_configs);
}

static clmc_status percolation_measure(void *state, unsigned slot)
{
    percolation_state *s = state;
    (void)slot;
    cl_command_queue queue = clmc_runtime_queue(s->rt);
    size_t n = (size_t)s->n_sites * s->n_configs;
    CLMC_CL_TRY(clEnqueueReadBuffer(queue, s->bonds, CL_FALSE, 0, n, s->bonds_host, 0, NULL, NULL));
    CLMC_CL_TRY(clEnqueueReadBuffer(queue, s->occupied, CL_FALSE, 0, n, s->occupied_host, 0, NULL, NULL));
    CLMC_CL_TRY(clEnqueueReadBuffer(queue, s->labels, CL_TRUE, 0, n * sizeof(cl_uint), s->labels_host, 0, NULL, NULL));
    return CLMC_OK;
}

/* Neighbour of `site` one step along d (sign +1 or -1), periodic. */
static uint32_t step(const percolation_state *s, uint32_t site, int d, int sign)
{
    uint32_t stride = d == 0 ? 1u : (d == 1 ? (uint32_t)s->edge : (uint32_t)(s->edge * s->edge));
    uint32_t c = site / stride % (uint32_t)s->edge, last = (uint32_t)s->edge - 1;
    if (sign > 0) return c == last ? site - last * stride : site + stride;
    return c == 0 ? site + last * stride : site - stride;
}

/* Directions (bit d) in which the cluster of `start` wraps the torus, with
 * the bonds of its system. */
static unsigned wrapping_of_cluster(percolation_state *s, const uint8_t *bonds, uint32_t start)
{
    unsigned wraps = 0;
    size_t top = 0;
    s->stack[top++] = start;
    s->seen[start] = 1;
    for (int d = 0; d < s->dim; d++) s->unwrapped[(size_t)start * s->dim + d] = 0;
    while (top) {
        uint32_t site = s->stack[--top];
        for (int d = 0; d < s->dim; d++)
            for (int sign = -1; sign <= 1; sign += 2) {
                uint32_t next = step(s, site, d, sign);
                uint32_t owner = sign > 0 ? site : next; /* the bond is stored at its lower end */
                if (!((bonds[owner] >> d) & 1u)) continue;
                int32_t *here = s->unwrapped + (size_t)site * s->dim, *there = s->unwrapped + (size_t)next * s->dim;
                if (!s->seen[next]) {
                    s->seen[next] = 1;
                    for (int k = 0; k < s->dim; k++) there[k] = here[k] + (k == d ? sign : 0);
                    s->stack[top++] = next;
                    continue;
                }
                for (int k = 0; k < s->dim; k++)
                    if (there[k] != here[k] + (k == d ? sign : 0)) wraps |= 1u << k;
            }
    }
    return wraps;
}

/* The row of system `config`. */
static void analyse(percolation_state *s, cl_uint config, double *row)
{
    size_t n = s->n_sites;
    const uint8_t *bonds = s->bonds_host + config * n, *occupied = s->occupied_host + config * n;
    const uint32_t *labels = s->labels_host + config * n;
    memset(s->size, 0, n * sizeof *s->size);
    memset(s->seen, 0, n);
    for (size_t site = 0; site < n; site++)
        if (occupied[site]) s->size[labels[site]]++;
    uint32_t largest = 0;
    double squares = 0;
    unsigned wraps_any = 0, wraps_x = 0, wraps_all = 0, all = (1u << s->dim) - 1;
    for (size_t root = 0; root < n; root++) {
        if (!s->size[root]) continue;
        largest = s->size[root] > largest ? s->size[root] : largest;
        squares += (double)s->size[root] * s->size[root];
        unsigned w = wrapping_of_cluster(s, bonds, (uint32_t)root);
        wraps_any |= w != 0;
        wraps_x |= w & 1u;
        wraps_all |= w == all;
    }
    row[LARGEST] = (double)largest / n;
    row[MEAN_SIZE] = (squares - (double)largest * largest) / n;
    row[WRAP_X] = wraps_x;
    row[WRAP_EITHER] = wraps_any;
    row[WRAP_ALL] = wraps_all;
}

/* Rows [slot][system] (one slot: measurements are analysed at once). */
static clmc_status percolation_collect(void *state, unsigned n_slots, double *rows)
{
    percolation_state *s = state;
    for (unsigned slot = 0; slot < n_slots; slot++)
        for (cl_uint c = 0; c < s->n_configs; c++) analyse(s, c, rows + ((size_t)slot * s->n_configs + c) * COLUMNS);
    return CLMC_OK;
}

/* Means over samples, each column with its own error (samples are independent). */
static clmc_status percolation_estimate(void *state, const double *rows, size_t n_rows, double beta, cJSON *observables)
{
    (void)state;
    (void)beta;
    return clmc_add_column_estimates(rows, n_rows, series_columns, observables);
}

/* Labels of the final samples, all systems (read from the device: the last
 * measured one may be older, or missing after a resume). */
static clmc_status percolation_checks(void *state, cJSON *checks)
{
    percolation_state *s = state;
    size_t all = (size_t)s->n_sites * s->n_configs;
    CLMC_CL_TRY(clEnqueueReadBuffer(clmc_runtime_queue(s->rt), s->labels, CL_TRUE, 0, all * sizeof(cl_uint),
                                    s->labels_host, 0, NULL, NULL));
    unsigned long long unlabelled = 0;
    for (size_t i = 0; i < all; i++) unlabelled += s->labels_host[i] > i % s->n_sites;
    cJSON_AddNumberToObject(checks, "labels_above_site", (double)unlabelled);
    return unlabelled ? clmc_fail(CLMC_ERR_OTHER, "%llu labels exceed their site", unlabelled) : CLMC_OK;
}

/* Checkpoints: every sweep draws its sample afresh from (seed, sweep), so the
 * state is the current sample; its buffers (bonds, occupation, labels) are
 * saved as stored, so that the final checks are those of the uninterrupted
 * run even when the checkpoint comes after the last sweep's sample. */
static clmc_status percolation_save_state(void *state, unsigned char **blob, size_t *bytes)
{
    percolation_state *s = state;
    clmc_blob_writer w = {0};
    clmc_blob_put_buffer(&w, s->rt, s->bonds);
    clmc_blob_put_buffer(&w, s->rt, s->occupied);
    clmc_blob_put_buffer(&w, s->rt, s->labels);
    return clmc_blob_finish(&w, blob, bytes);
}

/* Labels must name a site of their system (< N) for the checks' counting. */
static clmc_status percolation_load_state(void *state, const unsigned char *blob, size_t bytes)
{
    percolation_state *s = state;
    size_t n = (size_t)s->n_sites * s->n_configs;
    clmc_blob_reader r = clmc_blob_reader_of(blob, bytes);
    const unsigned char *bonds = clmc_blob_get_buffer(&r, n, "the percolation bonds");
    const unsigned char *occupied = clmc_blob_get_buffer(&r, n, "the percolation occupation");
    const unsigned char *labels = clmc_blob_get_buffer(&r, n * sizeof(cl_uint), "the percolation labels");
    CLMC_TRY(clmc_blob_end(&r));
    for (size_t site = 0; site < n; site++) {
        cl_uint label;
        memcpy(&label, labels + site * sizeof label, sizeof label);
        if (label >= s->n_sites)
            return clmc_fail(CLMC_ERR_INPUT, "checkpoint: percolation label %u of site %zu is not a site; refused",
                             label, site);
    }
    CLMC_TRY(clmc_buffer_upload(s->rt, s->bonds, bonds, n));
    CLMC_TRY(clmc_buffer_upload(s->rt, s->occupied, occupied, n));
    return clmc_buffer_upload(s->rt, s->labels, labels, n * sizeof(cl_uint));
}

/* Bonds, occupation and labels of every system, plus about one system's
 * labels for the labeler (all systems are labelled in place, in the same
 * launches). */
static void percolation_device_bytes(const clmc_preset *p, uint64_t *total, uint64_t *largest)
{
    uint64_t sites = clmc_lattice_sites((int)clmc_preset_int(p, "model.dim"), (int)clmc_preset_int(p, "model.L"));
    uint64_t copies = clmc_preset_systems(p)->copies;
    *total = sites * copies * (1 + 1 + 4) + sites * 4;
    *largest = sites * copies * 4;
}

static const clmc_ensemble_hooks percolation_ensemble_hooks = {.independent = true}; /* copies alone */

const clmc_model_ops clmc_model_percolation = {
    .type = "percolation",
    .athermal = true,
    .model_fields = clmc_percolation_model_fields,
    .algorithm_fields = clmc_percolation_algorithm_fields,
    .validate = percolation_validate,
    .create = percolation_create,
    .destroy = percolation_destroy,
    .sweep = percolation_sweep,
    .measure = percolation_measure,
    .collect = percolation_collect,
    .estimate = percolation_estimate,
    .ensemble = &percolation_ensemble_hooks,
    .device_bytes = percolation_device_bytes,
    .checks = percolation_checks,
    .save_state = percolation_save_state,
    .load_state = percolation_load_state,
    .tunables = clmc_labeling_tunables,
};
