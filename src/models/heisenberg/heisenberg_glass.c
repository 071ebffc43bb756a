/* The O(n) spin glass (model.type "heisenberg_glass"): quenched Gaussian or
 * bimodal couplings, two replicas (two replica chains under parallel
 * tempering), the overlap observables and the tempering callbacks; sweeps and
 * checks are those of heisenberg.c, extended through heisenberg_extension
 * (cl/heisenberg/heisenberg_glass.cl: heisenberg.cl with GLASS, its naive update and the
 * overlaps). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clmc/stats.h"
#include "measure/measure.h"
#include "models/disorder.h"
#include "models/heisenberg/heisenberg_internal.h"

static const char *const glass_columns[] = {"energy", "q2", "q4", NULL};

/* Place of a site in the colour-split arrays (cl/heisenberg/heisenberg.cl, packed_site):
 * colour * N / 2 + site / 2. */
static size_t packed_site(const heisenberg_state *s, size_t site)
{
    size_t edge = (size_t)s->edge, row = site / edge;
    size_t colour = (site % edge + row % edge + row / edge) & 1u;
    return colour * (s->n_sites / 2) + site / 2;
}

/* Pairs of replicas whose overlap is measured: one per (realization r,
 * temperature t), pair r T + t. */
static cl_uint pair_count(const heisenberg_state *s)
{
    return s->realizations * s->temperatures;
}

/* couplings[(r dim + d) N + packed_site(site)] = J of the bond from site to its
 * +d neighbour in realization r, the shared draw for (seed, r, site, d)
 * (disorder.c, as the EA model's). */
static clmc_status upload_couplings(heisenberg_state *s)
{
    clmc_ea_couplings kind = s->bimodal ? CLMC_EA_BIMODAL : CLMC_EA_GAUSSIAN;
    size_t bonds = (size_t)s->dim * s->n_sites;
    void *values = malloc(bonds * s->realizations * clmc_heisenberg_real_bytes(s));
    if (!values) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    /* Each coupling is its own draw: all cores (OpenMP), the same values (start-up, issue 19:
     * 3.8 s of one core at L = 256). */
#pragma omp parallel for schedule(static) if (bonds * s->realizations > 65536)
    for (size_t b = 0; b < bonds * s->realizations; b++) {
        size_t site = b % s->n_sites, d = b / s->n_sites % (size_t)s->dim, r = b / bonds;
        size_t slot = (r * (size_t)s->dim + d) * s->n_sites + packed_site(s, site);
        double j = clmc_ea_coupling(kind, s->seed, (uint32_t)(s->first_system + r), (uint32_t)site, (unsigned)d);
        if (s->is_double) ((double *)values)[slot] = j;
        else ((float *)values)[slot] = (float)j;
    }
    clmc_status status = clmc_heisenberg_buffer(s, bonds * s->realizations * clmc_heisenberg_real_bytes(s), values,
                                                &s->couplings);
    free(values);
    return status;
}

/* Couplings and overlap buffers, and the overlap kernel (after the shared
 * buffers). */
static clmc_status glass_allocate(heisenberg_state *s)
{
    size_t groups_values = (size_t)s->ncomp * s->ncomp * s->measure_groups * pair_count(s);
    s->overlaps_host = malloc(groups_values * s->batch * sizeof(cl_long));
    s->pairs_host = malloc(2 * pair_count(s) * sizeof *s->pairs_host);
    s->slot_pairs = malloc(2 * (size_t)pair_count(s) * s->batch * sizeof *s->slot_pairs);
    if (!s->overlaps_host || !s->pairs_host || !s->slot_pairs) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    CLMC_TRY(upload_couplings(s));
    CLMC_TRY(clmc_heisenberg_buffer(s, groups_values * s->batch * sizeof(cl_long), NULL, &s->overlaps));
    for (cl_uint p = 0; p < pair_count(s); p++) { /* chains 2 r and 2 r + 1 at temperature t */
        cl_uint r = p / s->temperatures, t = p % s->temperatures;
        s->pairs_host[2 * p] = 2 * r * s->temperatures + t;
        s->pairs_host[2 * p + 1] = (2 * r + 1) * s->temperatures + t;
    }
    CLMC_TRY(clmc_heisenberg_buffer(s, 2 * pair_count(s) * sizeof *s->pairs_host, s->pairs_host, &s->pairs));
    CLMC_TRY(clmc_kernel_create(s->program, "heisenberg_overlap", &s->overlap));
    CLMC_CL_TRY(clSetKernelArg(s->overlap, 0, sizeof(cl_mem), &s->spins));
    CLMC_CL_TRY(clSetKernelArg(s->overlap, 1, sizeof(cl_mem), &s->overlaps));
    CLMC_CL_TRY(clSetKernelArg(s->overlap, 3, sizeof(cl_mem), &s->pairs));
    return CLMC_OK;
}

/* The overlaps of every pair in batch slot `slot` (none in the spare slots);
 * the pairs are kept for collect. */
static clmc_status glass_measure(heisenberg_state *s, unsigned slot)
{
    if (slot >= s->batch) return CLMC_OK;
    cl_uint slot_arg = slot;
    memcpy(s->slot_pairs + 2 * (size_t)pair_count(s) * slot, s->pairs_host, 2 * pair_count(s) * sizeof *s->pairs_host);
    CLMC_CL_TRY(clSetKernelArg(s->overlap, 2, sizeof(cl_uint), &slot_arg));
    size_t global[2] = {s->measure_groups * s->measure_wg, pair_count(s)}, local[2] = {s->measure_wg, 1};
    return clmc_enqueue(s->rt, s->overlap, 2, global, local, CLMC_UNTIMED);
}

/* q2 = sum_ab q_ab^2 of pair `pair` in one slot's overlap partials. */
static double pair_q2(const heisenberg_state *s, const cl_long *slot_overlaps, cl_uint pair)
{
    size_t per_pair = (size_t)s->ncomp * s->ncomp * s->measure_groups;
    const cl_long *values = slot_overlaps + pair * per_pair;
    double q2 = 0;
    for (int k = 0; k < s->ncomp * s->ncomp; k++) {
        long long total = 0;
        for (size_t g = 0; g < s->measure_groups; g++) total += values[g * (size_t)(s->ncomp * s->ncomp) + (size_t)k];
        double q = (double)total / FIXED_SCALE / s->n_sites;
        q2 += q * q;
    }
    return q2;
}

/* Tempering rows, one per configuration: its energy per spin and the q2, q4
 * of its pair (both replicas' rows carry the same q). */
static void collect_configurations(const heisenberg_state *s, unsigned slot, const cl_long *slot_overlaps, double *rows)
{
    const cl_uint *pairs = s->slot_pairs + 2 * (size_t)pair_count(s) * slot;
    size_t per_config = 4 * s->measure_groups;
    for (cl_uint p = 0; p < pair_count(s); p++) {
        double q2 = pair_q2(s, slot_overlaps, p);
        for (int member = 0; member < 2; member++) {
            cl_uint c = pairs[2 * p + (cl_uint)member];
            double sums[4];
            clmc_heisenberg_sums(s, s->partials_host + (slot * s->n_configs + c) * per_config, sums);
            rows[3 * c] = -sums[0] / s->n_sites;
            rows[3 * c + 1] = q2;
            rows[3 * c + 2] = q2 * q2;
        }
    }
}

/* Rows (one temperature): disorder averages over the realizations of the
 * energy per spin (mean of the replicas), q2 = sum_ab q_ab^2 with q_ab =
 * sum_i s_i^a(1) s_i^b(2) / N, and q4 = q2^2; tempering: collect_configurations. */
static clmc_status glass_collect(void *state, unsigned n_slots, double *rows)
{
    heisenberg_state *s = state;
    CLMC_TRY(clmc_heisenberg_read_slots(s, 0, n_slots));
    size_t per_slot = (size_t)s->ncomp * s->ncomp * s->measure_groups * pair_count(s);
    CLMC_CL_TRY(clEnqueueReadBuffer(clmc_runtime_queue(s->rt), s->overlaps, CL_TRUE, 0,
                                    n_slots * per_slot * sizeof(cl_long), s->overlaps_host, 0, NULL, NULL));
    size_t per_config = 4 * s->measure_groups;
    for (unsigned slot = 0; slot < n_slots; slot++) {
        if (s->temperatures > 1 || s->independent) {
            collect_configurations(s, slot, s->overlaps_host + slot * per_slot, rows + 3 * (size_t)slot * s->n_configs);
            continue;
        }
        double energy = 0, sums[4], q2 = 0, q4 = 0;
        for (cl_uint c = 0; c < s->n_configs; c++) {
            clmc_heisenberg_sums(s, s->partials_host + (slot * s->n_configs + c) * per_config, sums);
            energy += -sums[0] / s->n_sites / s->n_configs;
        }
        for (cl_uint r = 0; r < s->realizations; r++) {
            double q2_r = pair_q2(s, s->overlaps_host + slot * per_slot, r);
            q2 += q2_r / s->realizations;
            q4 += q2_r * q2_r / s->realizations;
        }
        rows[3 * slot] = energy;
        rows[3 * slot + 1] = q2;
        rows[3 * slot + 2] = q4;
    }
    return CLMC_OK;
}

typedef struct {
    double components; /* n^2 */
} binder_context;

/* ((n^2 + 2) - n^2 <q4>/<q2>^2) / 2: 0 for Gaussian q_ab (high temperature),
 * 1 for a fixed overlap; (11 - 9 <q4>/<q2>^2)/2 for n = 3. */
static double binder_q(const double *means, void *context)
{
    const binder_context *b = context;
    return means[0] > 0 ? 0.5 * (b->components + 2 - b->components * means[1] / (means[0] * means[0])) : 0.0;
}

static double scaled_mean(const double *means, void *context)
{
    return *(const double *)context * means[0];
}

/* energy, q2, q4, binder_q, chi_sg = N <q2> (disorder averages of thermal
 * averages over model.realizations samples; errors from the time series of
 * the averages, so they hold the thermal noise only). */
static clmc_status glass_estimate(void *state, const double *rows, size_t n_rows, double beta, cJSON *observables)
{
    heisenberg_state *s = state;
    (void)beta;
    double *columns = malloc(3 * (n_rows ? n_rows : 1) * sizeof *columns);
    if (!columns) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    double *energy = columns, *q2 = energy + n_rows, *q4 = q2 + n_rows;
    for (size_t i = 0; i < n_rows; i++) {
        energy[i] = rows[3 * i];
        q2[i] = rows[3 * i + 1];
        q4[i] = rows[3 * i + 2];
    }
    clmc_add_estimate(observables, "energy", clmc_estimate_mean(energy, n_rows));
    clmc_add_estimate(observables, "q2", clmc_estimate_mean(q2, n_rows));
    clmc_add_estimate(observables, "q4", clmc_estimate_mean(q4, n_rows));
    const double *moments[] = {q2, q4};
    binder_context b = {(double)(s->ncomp * s->ncomp)};
    clmc_add_estimate(observables, "binder_q", clmc_estimate_derived(moments, 2, n_rows, binder_q, &b));
    double sites = s->n_sites;
    clmc_add_estimate(observables, "chi_sg", clmc_estimate_derived(moments, 1, n_rows, scaled_mean, &sites));
    free(columns);
    return CLMC_OK;
}

/* Tempering: the configurations' betas (one temperature: both replicas at
 * betas[0]) and each temperature's pair, one configuration of each chain. */
static clmc_status glass_set_betas(void *state, const double *betas, const unsigned *temperature_of)
{
    heisenberg_state *s = state;
    if (s->temperatures == 1) {
        double *all = malloc(s->n_configs * sizeof *all);
        if (!all) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
        for (cl_uint c = 0; c < s->n_configs; c++) all[c] = betas[0];
        clmc_status status = clmc_heisenberg_write_betas(s, all);
        free(all);
        return status;
    }
    for (cl_uint c = 0; c < s->n_configs; c++) { /* system = 2 realization + replica */
        cl_uint system = c / s->temperatures;
        s->pairs_host[2 * (system / 2 * s->temperatures + temperature_of[c]) + system % 2] = c;
    }
    CLMC_TRY(clmc_heisenberg_write_betas(s, betas));
    CLMC_CL_TRY(clEnqueueWriteBuffer(clmc_runtime_queue(s->rt), s->pairs, CL_TRUE, 0,
                                     2 * pair_count(s) * sizeof *s->pairs_host, s->pairs_host, 0, NULL, NULL));
    return CLMC_OK;
}

#define WORK_GROUP_AUTOMATIC 128 /* where the device allows; else the driver's choice */

/* algorithm.work_group and sites_per_item only shape the naive layout's launch. */
static clmc_status glass_validate(const clmc_preset *p)
{
    CLMC_TRY(clmc_heisenberg_validate(p));
    if (clmc_preset_systems(p)->independent) {
        if (clmc_preset_systems(p)->copies != 1)
            return clmc_fail(CLMC_ERR_INPUT, "ensemble.copies: heisenberg_glass's systems at each beta are its "
                             "model.realizations; give copies 1, got %u", clmc_preset_systems(p)->copies);
        unsigned long long last = clmc_preset_systems(p)->first_system + (unsigned long long)clmc_preset_int(p, "model.realizations");
        if (2 * last * clmc_preset_betas(p, NULL, 0) > (1ULL << 24))
            return clmc_fail(CLMC_ERR_INPUT, "ensemble.first_system: realizations up to %llu x 2 replicas x %zu "
                             "temperatures exceed the 2^24 configurations that have their own random streams", last,
                             clmc_preset_betas(p, NULL, 0));
    }
    bool naive = strcmp(clmc_preset_string(p, "algorithm.layout"), "naive") == 0;
    long long wg = clmc_preset_int(p, "algorithm.work_group"), sites = clmc_preset_int(p, "algorithm.sites_per_item");
    if (!naive && (wg != 0 || sites != 0))
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.%s: only for layout \"naive\"; got %lld",
                         wg != 0 ? "work_group" : "sites_per_item", wg != 0 ? wg : sites);
    if ((wg & (wg - 1)) != 0)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.work_group: must be a power of two (or 0, automatic); got %lld", wg);
    if (sites == 2 && clmc_preset_int(p, "model.L") % 4 != 0)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.sites_per_item: 2 needs model.L a multiple of 4; got L = %lld",
                         clmc_preset_int(p, "model.L"));
    return CLMC_OK;
}

/* The naive update's shape; automatic: the fastest measured on an H200
 * (benchmarks/results, glass variants): two sites per work-item with two-wide
 * loads where L is a multiple of 4, work-groups of 128 where the device
 * allows.  Colour-1 launches always take their groups in reverse order, and
 * over-relaxation sub-sweeps use their own kernel.  No choice changes the
 * results. */
static clmc_status glass_configure(heisenberg_state *s, clmc_preset *p, clmc_defines *options)
{
    if (s->tiled) return CLMC_OK;
    const clmc_device_info *device = clmc_runtime_device(s->rt);
    long long sites_per_item = clmc_preset_int(p, "algorithm.sites_per_item");
    long long wg = clmc_preset_int(p, "algorithm.work_group");
    if (sites_per_item == 0) sites_per_item = s->edge % 4 == 0 ? 2 : 1;
    if (wg == 0 && device->max_work_group_size >= WORK_GROUP_AUTOMATIC) wg = WORK_GROUP_AUTOMATIC;
    if ((size_t)wg > device->max_work_group_size)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.work_group: %lld exceeds the %zu work-items per group of %s", wg,
                         device->max_work_group_size, device->name);
    clmc_preset_set_int(p, "algorithm.sites_per_item", sites_per_item);
    clmc_preset_set_int(p, "algorithm.work_group", wg);
    clmc_defines_int(options, "SITES_PER_ITEM", sites_per_item);
    s->naive_items = s->n_sites / 2 / (size_t)sites_per_item;
    s->naive_wg = (size_t)wg;
    return CLMC_OK;
}

static const long long work_group_candidates[] = {32, 64, 128, 256, 512, 1024, 0}, sites_candidates[] = {1, 2, 0};
static const clmc_tunable glass_tunables[] = {
    {"algorithm.work_group", 0, work_group_candidates, true, NULL},
    {"algorithm.sites_per_item", 0, sites_candidates, true, NULL},
    {NULL, 0, NULL, false, NULL},
};

static const heisenberg_extension glass_extension = {
    .kernel_file = "heisenberg/heisenberg_glass.cl",
    .series_columns = glass_columns,
    .naive_update = "heisenberg_glass_update",
    .naive_update_or = "heisenberg_glass_update_or",
    .configure = glass_configure,
    .allocate = glass_allocate,
    .measure = glass_measure,
};

static clmc_status glass_create(clmc_runtime *rt, clmc_preset *p, void **state, clmc_model_shape *shape)
{
    return clmc_heisenberg_create(rt, p, &glass_extension, state, shape);
}

static void glass_device_bytes(const clmc_preset *p, uint64_t *total, uint64_t *largest)
{
    clmc_heisenberg_device_bytes(p, true, total, largest);
}

static const clmc_ensemble_hooks glass_ensemble_hooks = {
    .independent = true,
    .independent_units = "model.realizations",
    .units_temper_alone = true,
    .energies = clmc_heisenberg_energies,
    .set_betas = glass_set_betas,
};

const clmc_model_ops clmc_model_heisenberg_glass = {
    .type = "heisenberg_glass",
    .model_fields = clmc_heisenberg_glass_model_fields,
    .algorithm_fields = clmc_heisenberg_glass_algorithm_fields,
    .validate = glass_validate,
    .create = glass_create,
    .destroy = clmc_heisenberg_destroy,
    .sweep = clmc_heisenberg_sweep,
    .measure = clmc_heisenberg_measure,
    .collect = glass_collect,
    .estimate = glass_estimate,
    .ensemble = &glass_ensemble_hooks,
    .guard = clmc_heisenberg_guard,
    .checks = clmc_heisenberg_checks,
    .snapshot = clmc_heisenberg_snapshot,
    .save_state = clmc_heisenberg_save_state,
    .load_state = clmc_heisenberg_load_state,
    .device_bytes = glass_device_bytes,
    .tunables = glass_tunables,
};
