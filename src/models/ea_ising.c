/* Host side of the Edwards-Anderson Ising spin glass: validation, quenched
 * couplings, kernel set-up and launches (cl/ea_ising.cl), replica energies and
 * overlaps, and disorder averages with errors over realizations. */
#include "models/ea_ising.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/philox.h"
#include "measure.h"
#include "models/lattice.h"

#define MEASURE_WG_MAX 256
#define MEASURE_BATCH_MAX 256
#define MEASURE_GROUPS_MAX 65536
#define PARTIALS_BYTES_MAX (64u << 20)
#define THRESHOLD_CLASSES CLMC_METROPOLIS_CLASSES
#define COUPLING_FIXED_POINT 16777216.0 /* as in cl/ea_ising.cl */

static const char *const series_columns[] = {"energy", "q2", "q4", NULL};

typedef struct {
    clmc_runtime *rt;
    int dim, edge;
    cl_uint n_sites, realizations, configurations, stacks;
    clmc_ea_couplings couplings;
    bool msc, shared_randoms;
    cl_uint ordered_start, seed_lo, seed_hi;
    uint64_t seed;
    double beta;
    cl_program program;
    cl_kernel init, update, measure;
    cl_mem spins, bonds, thresholds, betas, partials;
    size_t measure_wg, measure_groups, measure_global;
    unsigned measure_batch;
    cl_long *partials_host;
    /* Per-realization sums over measurements of e (both replicas), q^2, q^4. */
    double *energy_sum, *q2_sum, *q4_sum;
    size_t measurements;
} ea_state;

/* ---- Validation ---------------------------------------------------------- */

static clmc_status ea_validate(const clmc_preset *p)
{
    int dim = (int)clmc_preset_int(p, "model.dim"), edge = (int)clmc_preset_int(p, "model.L");
    long long realizations = clmc_preset_int(p, "model.realizations");
    const char *couplings = clmc_preset_string(p, "model.couplings");
    bool msc = strcmp(clmc_preset_string(p, "algorithm.layout"), "msc") == 0;
    unsigned long long sites = clmc_lattice_sites(dim, edge);
    if (clmc_preset_betas(p, NULL, 0) != 1)
        return clmc_fail(CLMC_ERR_INPUT, "ensemble.betas: parallel tempering is not implemented for ea_ising yet; "
                         "give a single ensemble.beta");
    if (edge % 2 != 0)
        return clmc_fail(CLMC_ERR_INPUT, "model.L: must be even for the checkerboard update, got %d", edge);
    if (sites >= (1ULL << 31))
        return clmc_fail(CLMC_ERR_INPUT, "model.L: %d^%d sites exceed the 2^31 - 1 the kernels index", edge, dim);
    if (msc && strcmp(couplings, "gaussian") == 0)
        return clmc_fail(CLMC_ERR_INPUT, "model.couplings: bimodal couplings required for msc "
                         "(algorithm.layout \"msc\" packs one bit per coupling); got \"%s\"", couplings);
    if (msc && realizations % 32 != 0)
        return clmc_fail(CLMC_ERR_INPUT, "model.realizations: layout \"msc\" packs 32 realizations per word "
                         "and needs a multiple of 32, got %lld", realizations);
    if ((unsigned long long)realizations * sites * (unsigned long long)(dim > 2 ? dim : 2) >= (1ULL << 32))
        return clmc_fail(CLMC_ERR_INPUT, "model.realizations: %lld realizations of %llu sites exceed the "
                         "2^32 spins and couplings the kernels index", realizations, sites);
    return CLMC_OK;
}

/* ---- Quenched couplings --------------------------------------------------- */

/* Box-Muller from two 32-bit words: u1 in (0, 1] keeps the logarithm finite. */
static float gaussian_from_words(uint32_t a, uint32_t b)
{
    const double two_pi = 6.283185307179586476925286766559;
    double u1 = ((double)a + 1.0) / 4294967296.0, u2 = (double)b / 4294967296.0;
    return (float)(sqrt(-2.0 * log(u1)) * cos(two_pi * u2));
}

double clmc_ea_coupling(clmc_ea_couplings kind, uint64_t seed, uint32_t realization, uint32_t site,
                        unsigned direction)
{
    if (kind == CLMC_EA_UNIFORM) return 1.0;
    clmc_philox_key key = {{(uint32_t)seed, (uint32_t)(seed >> 32)}};
    clmc_philox_ctr r = clmc_random4(key, site, realization, direction, CLMC_PURPOSE_COUPLINGS);
    if (kind == CLMC_EA_BIMODAL) return (r.v[0] >> 31) ? 1.0 : -1.0;
    return gaussian_from_words(r.v[0], r.v[1]);
}

static size_t bond_count(const ea_state *s)
{
    return (size_t)s->n_sites * (size_t)s->dim;
}

/* Coupling buffer as the kernels read it: naive [realization][site][d] as
 * char or float, msc [word][site][d] with bit b set where J = -1. */
static size_t coupling_bytes(const ea_state *s)
{
    if (s->msc) return (size_t)(s->realizations / 32) * bond_count(s) * sizeof(cl_uint);
    size_t element = s->couplings == CLMC_EA_GAUSSIAN ? sizeof(cl_float) : 1;
    return (size_t)s->realizations * bond_count(s) * element;
}

static void fill_couplings(const ea_state *s, void *out)
{
    size_t bonds = bond_count(s);
    for (cl_uint r = 0; r < s->realizations; r++)
        for (size_t b = 0; b < bonds; b++) {
            double j = clmc_ea_coupling(s->couplings, s->seed, r, (uint32_t)(b / (size_t)s->dim),
                                        (unsigned)(b % (size_t)s->dim));
            if (s->msc) ((cl_uint *)out)[(r / 32) * bonds + b] |= (cl_uint)(j < 0) << (r % 32);
            else if (s->couplings == CLMC_EA_GAUSSIAN) ((cl_float *)out)[r * bonds + b] = (cl_float)j;
            else ((cl_char *)out)[r * bonds + b] = (cl_char)j;
        }
}

/* ---- Device set-up ---------------------------------------------------------- */

/* Work-groups per realization (naive) or per word (msc) of the measurement:
 * enough to keep a device busy on large lattices, one on small ones, and no
 * more than MEASURE_GROUPS_MAX in all. */
static void plan_measurement(ea_state *s)
{
    const clmc_device_info *d = clmc_runtime_device(s->rt);
    size_t limit = d->max_work_group_size < MEASURE_WG_MAX ? d->max_work_group_size : MEASURE_WG_MAX;
    s->measure_wg = clmc_power_of_two_at_most(limit);
    size_t sites_per_step = s->msc ? s->measure_wg / 32 : s->measure_wg;
    size_t units = s->msc ? s->realizations / 32 : s->realizations;
    size_t groups = s->n_sites / (sites_per_step * 16);
    groups = groups < 1 ? 1 : (groups > 64 ? 64 : groups);
    while (groups > 1 && units * groups > MEASURE_GROUPS_MAX) groups /= 2;
    s->measure_groups = groups;
    s->measure_global = units * s->measure_groups * s->measure_wg;
    size_t slot_bytes = 3 * s->realizations * s->measure_groups * sizeof(cl_long);
    size_t batch = PARTIALS_BYTES_MAX / slot_bytes;
    s->measure_batch = batch < 1 ? 1 : (batch > MEASURE_BATCH_MAX ? MEASURE_BATCH_MAX : (unsigned)batch);
}

static clmc_status build_kernels(ea_state *s)
{
    if (s->msc && s->measure_wg < 32)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.layout: msc needs work-groups of 32; %s allows %zu",
                         clmc_runtime_device(s->rt)->name, s->measure_wg);
    char options[512];
    snprintf(options, sizeof options,
             "-cl-std=CL1.2 -DDIM=%d -DEDGE=%d -DREALIZATIONS=%u -DMSC=%d -DGAUSSIAN=%d -DSHARED_RANDOMS=%d "
             "-DMEASURE_WG=%zu -DMEASURE_GROUPS=%zu",
             s->dim, s->edge, s->realizations, s->msc, s->couplings == CLMC_EA_GAUSSIAN, s->shared_randoms,
             s->measure_wg, s->measure_groups);
    CLMC_TRY(clmc_program_build(s->rt, "ea_ising.cl", options, &s->program));
    CLMC_TRY(clmc_kernel_create(s->program, s->msc ? "ea_msc_init" : "ea_naive_init", &s->init));
    CLMC_TRY(clmc_kernel_create(s->program, s->msc ? "ea_msc_update" : "ea_naive_update", &s->update));
    return clmc_kernel_create(s->program, s->msc ? "ea_msc_measure" : "ea_naive_measure", &s->measure);
}

static size_t spin_bytes(const ea_state *s)
{
    return s->msc ? (size_t)s->stacks * s->n_sites * sizeof(cl_uint) : (size_t)s->configurations * s->n_sites;
}

static clmc_status create_buffer(ea_state *s, size_t bytes, void *host, cl_mem *out, const char *what)
{
    const clmc_device_info *d = clmc_runtime_device(s->rt);
    if (bytes > d->max_alloc_bytes)
        return clmc_fail(CLMC_ERR_INPUT, "model.realizations: the %s need %zu bytes in one buffer; %s allows %llu",
                         what, bytes, d->name, (unsigned long long)d->max_alloc_bytes);
    cl_int err;
    cl_mem_flags flags = CL_MEM_READ_WRITE | (host ? CL_MEM_COPY_HOST_PTR : 0);
    *out = clCreateBuffer(clmc_runtime_context(s->rt), flags, bytes, host, &err);
    return err == CL_SUCCESS ? CLMC_OK
                             : clmc_fail(CLMC_ERR_DEVICE, "clCreateBuffer(%s) failed: %s", what, clmc_cl_error_name(err));
}

static clmc_status upload_couplings(ea_state *s)
{
    void *host = calloc(1, coupling_bytes(s));
    if (!host) return clmc_fail(CLMC_ERR_OTHER, "out of host memory for the couplings");
    fill_couplings(s, host);
    clmc_status status = create_buffer(s, coupling_bytes(s), host, &s->bonds, "couplings");
    free(host);
    return status;
}

/* Per-configuration acceptance parameters, so that each configuration may
 * later run at its own temperature (the msc kernel reads those of the first
 * realization of each word). */
static clmc_status upload_temperatures(ea_state *s)
{
    cl_uint *thresholds = malloc((size_t)s->configurations * THRESHOLD_CLASSES * sizeof *thresholds);
    cl_float *betas = malloc((size_t)s->configurations * sizeof *betas);
    clmc_status status = thresholds && betas ? CLMC_OK : clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    for (cl_uint c = 0; status == CLMC_OK && c < s->configurations; c++) {
        clmc_metropolis_thresholds(s->beta, thresholds + THRESHOLD_CLASSES * c);
        betas[c] = (cl_float)s->beta;
    }
    if (status == CLMC_OK)
        status = create_buffer(s, (size_t)s->configurations * THRESHOLD_CLASSES * sizeof *thresholds, thresholds,
                               &s->thresholds, "Metropolis thresholds");
    if (status == CLMC_OK)
        status = create_buffer(s, (size_t)s->configurations * sizeof *betas, betas, &s->betas, "betas");
    free(thresholds);
    free(betas);
    return status;
}

static clmc_status allocate_buffers(ea_state *s)
{
    CLMC_TRY(create_buffer(s, spin_bytes(s), NULL, &s->spins, "spins"));
    CLMC_TRY(upload_couplings(s));
    CLMC_TRY(upload_temperatures(s));
    size_t partial_count = 3 * (size_t)s->measure_batch * s->realizations * s->measure_groups;
    CLMC_TRY(create_buffer(s, partial_count * sizeof(cl_long), NULL, &s->partials, "measurement partials"));
    s->partials_host = malloc(partial_count * sizeof(cl_long));
    s->energy_sum = calloc(3 * (size_t)s->realizations, sizeof(double));
    if (!s->partials_host || !s->energy_sum) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    s->q2_sum = s->energy_sum + s->realizations;
    s->q4_sum = s->q2_sum + s->realizations;
    return CLMC_OK;
}

static clmc_status set_kernel_arguments(ea_state *s)
{
    CLMC_CL_TRY(clSetKernelArg(s->init, 0, sizeof(cl_mem), &s->spins));
    CLMC_CL_TRY(clSetKernelArg(s->init, 1, sizeof(cl_uint), &s->seed_lo));
    CLMC_CL_TRY(clSetKernelArg(s->init, 2, sizeof(cl_uint), &s->seed_hi));
    CLMC_CL_TRY(clSetKernelArg(s->init, 3, sizeof(cl_uint), &s->ordered_start));
    cl_uint arg = 0;
    CLMC_CL_TRY(clSetKernelArg(s->update, arg++, sizeof(cl_mem), &s->spins));
    CLMC_CL_TRY(clSetKernelArg(s->update, arg++, sizeof(cl_mem), &s->bonds));
    CLMC_CL_TRY(clSetKernelArg(s->update, arg++, sizeof(cl_mem), &s->thresholds));
    if (!s->msc) CLMC_CL_TRY(clSetKernelArg(s->update, arg++, sizeof(cl_mem), &s->betas));
    CLMC_CL_TRY(clSetKernelArg(s->update, arg++, sizeof(cl_uint), &s->seed_lo));
    CLMC_CL_TRY(clSetKernelArg(s->update, arg++, sizeof(cl_uint), &s->seed_hi));
    CLMC_CL_TRY(clSetKernelArg(s->measure, 0, sizeof(cl_mem), &s->spins));
    CLMC_CL_TRY(clSetKernelArg(s->measure, 1, sizeof(cl_mem), &s->bonds));
    CLMC_CL_TRY(clSetKernelArg(s->measure, 2, sizeof(cl_mem), &s->partials));
    return CLMC_OK;
}

static clmc_status initialise_spins(ea_state *s)
{
    size_t global = s->msc ? (size_t)s->stacks * s->n_sites : (size_t)s->configurations * s->n_sites;
    return clmc_enqueue(s->rt, s->init, 1, &global, NULL, CLMC_UNTIMED);
}

static void read_preset(ea_state *s, const clmc_preset *p)
{
    s->dim = (int)clmc_preset_int(p, "model.dim");
    s->edge = (int)clmc_preset_int(p, "model.L");
    s->n_sites = (cl_uint)clmc_lattice_sites(s->dim, s->edge);
    s->realizations = (cl_uint)clmc_preset_int(p, "model.realizations");
    s->configurations = 2 * s->realizations;
    s->stacks = 2 * ((s->realizations + 31) / 32);
    s->couplings = clmc_ea_couplings_from_name(clmc_preset_string(p, "model.couplings"));
    s->msc = strcmp(clmc_preset_string(p, "algorithm.layout"), "msc") == 0;
    s->shared_randoms = s->msc || clmc_preset_bool(p, "algorithm.shared_randoms");
    s->ordered_start = strcmp(clmc_preset_string(p, "model.start"), "ordered") == 0;
    clmc_preset_betas(p, &s->beta, 1); /* validated: exactly one */
    s->seed = (uint64_t)clmc_preset_int(p, "run.seed");
    s->seed_lo = (cl_uint)(s->seed & 0xffffffffu);
    s->seed_hi = (cl_uint)(s->seed >> 32);
}

static void ea_destroy(void *state);

static clmc_status ea_setup(ea_state *s, const clmc_preset *p)
{
    read_preset(s, p);
    plan_measurement(s);
    CLMC_TRY(build_kernels(s));
    CLMC_TRY(allocate_buffers(s));
    CLMC_TRY(set_kernel_arguments(s));
    return initialise_spins(s);
}

static clmc_status ea_create(clmc_runtime *rt, clmc_preset *p, void **state, clmc_model_shape *shape)
{
    ea_state *s = calloc(1, sizeof *s);
    if (!s) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    s->rt = rt;
    clmc_status status = ea_setup(s, p);
    if (status != CLMC_OK) {
        ea_destroy(s);
        return status;
    }
    /* Compulsory traffic per spin update, neighbours and repeated couplings
     * coming from caches: the spin is read, written and read again as a
     * neighbour in the other colour's pass; the dim couplings of a site are
     * read in both passes and serve both replicas.  msc: per word of 32. */
    double coupling_size = s->msc ? 4.0 : (s->couplings == CLMC_EA_GAUSSIAN ? 4.0 : 1.0);
    double bytes_per_word = 3.0 * (s->msc ? 4.0 : 1.0) + s->dim * coupling_size;
    double bytes_per_update = s->msc ? bytes_per_word / 32.0 : bytes_per_word;
    shape->series_columns = series_columns;
    shape->measure_batch = s->measure_batch;
    shape->updates_per_sweep = (double)s->configurations * s->n_sites;
    shape->bytes_per_sweep = shape->updates_per_sweep * bytes_per_update;
    shape->n_systems = 1; /* series rows are disorder averages */
    shape->n_temperatures = 1;
    *state = s;
    return CLMC_OK;
}

static void ea_destroy(void *state)
{
    ea_state *s = state;
    if (!s) return;
    if (s->init) CLMC_CL_WARN(clReleaseKernel(s->init));
    if (s->update) CLMC_CL_WARN(clReleaseKernel(s->update));
    if (s->measure) CLMC_CL_WARN(clReleaseKernel(s->measure));
    if (s->program) CLMC_CL_WARN(clReleaseProgram(s->program));
    cl_mem buffers[] = {s->spins, s->bonds, s->thresholds, s->betas, s->partials};
    for (size_t i = 0; i < sizeof buffers / sizeof buffers[0]; i++)
        if (buffers[i]) CLMC_CL_WARN(clReleaseMemObject(buffers[i]));
    free(s->partials_host);
    free(s->energy_sum);
    free(s);
}

/* ---- Sweeps and measurements ----------------------------------------------- */

static clmc_status ea_sweep(void *state, uint64_t sweep_index)
{
    ea_state *s = state;
    cl_uint sweep = (cl_uint)sweep_index, first_loop_arg = s->msc ? 5 : 6;
    CLMC_CL_TRY(clSetKernelArg(s->update, first_loop_arg, sizeof(cl_uint), &sweep));
    size_t quads = (s->configurations + 3) / 4; /* naive: four configurations per work-item */
    size_t global = (s->msc ? (size_t)s->stacks : quads) * (s->n_sites / 2);
    for (cl_uint colour = 0; colour < 2; colour++) {
        CLMC_CL_TRY(clSetKernelArg(s->update, first_loop_arg + 1, sizeof(cl_uint), &colour));
        CLMC_TRY(clmc_enqueue(s->rt, s->update, 1, &global, NULL, CLMC_TIMED));
    }
    return CLMC_OK;
}

static clmc_status ea_measure(void *state, unsigned slot)
{
    ea_state *s = state;
    cl_uint slot_arg = slot;
    CLMC_CL_TRY(clSetKernelArg(s->measure, 3, sizeof(cl_uint), &slot_arg));
    return clmc_enqueue(s->rt, s->measure, 1, &s->measure_global, &s->measure_wg, CLMC_UNTIMED);
}

typedef struct {
    double energy; /* per spin, mean of both replicas */
    double overlap;
} realization_sample;

static realization_sample sum_partials(const ea_state *s, const cl_long *p)
{
    cl_long bonds0 = 0, bonds1 = 0, overlap = 0;
    for (size_t g = 0; g < s->measure_groups; g++) {
        bonds0 += p[3 * g];
        bonds1 += p[3 * g + 1];
        overlap += p[3 * g + 2];
    }
    double scale = s->couplings == CLMC_EA_GAUSSIAN ? COUPLING_FIXED_POINT : 1.0;
    realization_sample sample = {-((double)bonds0 + (double)bonds1) / (2.0 * scale * s->n_sites),
                                 (double)overlap / s->n_sites};
    return sample;
}

/* Row of one measurement: means over realizations; the per-realization
 * time sums are updated on the way. */
static void collect_slot(ea_state *s, const cl_long *slot_partials, double *row)
{
    double energy = 0, q2 = 0, q4 = 0;
    for (cl_uint r = 0; r < s->realizations; r++) {
        realization_sample sample = sum_partials(s, slot_partials + 3 * (size_t)r * s->measure_groups);
        double square = sample.overlap * sample.overlap;
        s->energy_sum[r] += sample.energy;
        s->q2_sum[r] += square;
        s->q4_sum[r] += square * square;
        energy += sample.energy;
        q2 += square;
        q4 += square * square;
    }
    row[0] = energy / s->realizations;
    row[1] = q2 / s->realizations;
    row[2] = q4 / s->realizations;
    s->measurements++;
}

static clmc_status ea_collect(void *state, unsigned n_slots, double *rows)
{
    ea_state *s = state;
    size_t slot_count = 3 * (size_t)s->realizations * s->measure_groups;
    CLMC_CL_TRY(clEnqueueReadBuffer(clmc_runtime_queue(s->rt), s->partials, CL_TRUE, 0,
                                    n_slots * slot_count * sizeof(cl_long), s->partials_host, 0, NULL, NULL));
    for (unsigned slot = 0; slot < n_slots; slot++)
        collect_slot(s, s->partials_host + slot * slot_count, rows + 3 * (size_t)slot);
    return CLMC_OK;
}

/* ---- Disorder averages ------------------------------------------------------- */

/* Binder parameter of the overlap, (3 - <q^4>/<q^2>^2) / 2, from means {q2, q4}. */
static double binder_q(const double *means, void *context)
{
    (void)context;
    return means[0] > 0 ? 0.5 * (3.0 - means[1] / (means[0] * means[0])) : 0.0;
}

static clmc_estimate scaled(clmc_estimate e, double factor)
{
    e.mean *= factor;
    e.error *= factor;
    return e;
}

static clmc_estimate with_tau(clmc_estimate e, double tau_int)
{
    e.tau_int = tau_int;
    return e;
}

static double first_mean(const double *means, void *context)
{
    (void)context;
    return means[0];
}

static double column_tau(const double *rows, size_t n_rows, size_t column, double *scratch)
{
    for (size_t i = 0; i < n_rows; i++) scratch[i] = rows[3 * i + column];
    return clmc_tau_int(scratch, n_rows);
}

/* Several realizations: errors over realizations; tau_int of the
 * disorder-averaged series, as an indicator of equilibration. */
static clmc_status estimate_over_realizations(ea_state *s, const double *rows, size_t n_rows, cJSON *observables)
{
    size_t n = s->realizations;
    double *averages = malloc((3 * n + n_rows + 1) * sizeof *averages), *scratch = averages + 3 * n;
    if (!averages) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    double count = s->measurements ? (double)s->measurements : 1.0;
    for (size_t r = 0; r < n; r++) {
        averages[r] = s->energy_sum[r] / count;
        averages[n + r] = s->q2_sum[r] / count;
        averages[2 * n + r] = s->q4_sum[r] / count;
    }
    const double *energy[] = {averages}, *moments[] = {averages + n, averages + 2 * n};
    double tau_q2 = column_tau(rows, n_rows, 1, scratch), tau_q4 = column_tau(rows, n_rows, 2, scratch);
    clmc_estimate q2 = with_tau(clmc_estimate_over_samples(moments, 1, n, first_mean, NULL), tau_q2);
    clmc_add_estimate(observables, "energy", with_tau(clmc_estimate_over_samples(energy, 1, n, first_mean, NULL), column_tau(rows, n_rows, 0, scratch)));
    clmc_add_estimate(observables, "q2", q2);
    clmc_add_estimate(observables, "q4", with_tau(clmc_estimate_over_samples(moments + 1, 1, n, first_mean, NULL), tau_q4));
    clmc_add_estimate(observables, "binder_q", with_tau(clmc_estimate_over_samples(moments, 2, n, binder_q, NULL), fmax(tau_q2, tau_q4)));
    clmc_add_estimate(observables, "chi_sg", scaled(q2, s->n_sites));
    free(averages);
    return CLMC_OK;
}

/* One realization: errors from the time series (binning jackknife). */
static clmc_status estimate_one_realization(ea_state *s, const double *rows, size_t n_rows, cJSON *observables)
{
    double *columns = malloc((3 * n_rows + 1) * sizeof *columns);
    if (!columns) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    for (size_t i = 0; i < n_rows; i++)
        for (size_t c = 0; c < 3; c++) columns[c * n_rows + i] = rows[3 * i + c];
    const double *moments[] = {columns + n_rows, columns + 2 * n_rows};
    clmc_estimate q2 = clmc_estimate_mean(moments[0], n_rows);
    clmc_add_estimate(observables, "energy", clmc_estimate_mean(columns, n_rows));
    clmc_add_estimate(observables, "q2", q2);
    clmc_add_estimate(observables, "q4", clmc_estimate_mean(moments[1], n_rows));
    clmc_add_estimate(observables, "binder_q", clmc_estimate_derived(moments, 2, n_rows, binder_q, NULL));
    clmc_add_estimate(observables, "chi_sg", scaled(q2, s->n_sites));
    free(columns);
    return CLMC_OK;
}

static clmc_status ea_estimate(void *state, const double *rows, size_t n_rows, double beta, cJSON *observables)
{
    ea_state *s = state;
    (void)beta; /* one temperature: the model's own ensemble.beta */
    cJSON_AddNumberToObject(observables, "realizations", s->realizations);
    return s->realizations > 1 ? estimate_over_realizations(s, rows, n_rows, observables)
                               : estimate_one_realization(s, rows, n_rows, observables);
}

/* ---- Checks ---------------------------------------------------------------- */

/* All configurations as +-1 bytes in the canonical order (realization,
 * replica, site), whatever the layout. */
static clmc_status read_configurations(ea_state *s, signed char *spins)
{
    cl_command_queue queue = clmc_runtime_queue(s->rt);
    if (!s->msc) {
        CLMC_CL_TRY(clEnqueueReadBuffer(queue, s->spins, CL_TRUE, 0, spin_bytes(s), spins, 0, NULL, NULL));
        return CLMC_OK;
    }
    cl_uint *words = malloc(spin_bytes(s));
    if (!words) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    cl_int err = clEnqueueReadBuffer(queue, s->spins, CL_TRUE, 0, spin_bytes(s), words, 0, NULL, NULL);
    for (size_t i = 0; err == CL_SUCCESS && i < (size_t)s->configurations * s->n_sites; i++) {
        size_t config = i / s->n_sites, site = i % s->n_sites, realization = config / 2;
        size_t stack = 2 * (realization / 32) + config % 2;
        spins[i] = (words[stack * s->n_sites + site] >> (realization % 32)) & 1u ? 1 : -1;
    }
    free(words);
    CLMC_CL_CHECK(err, "clEnqueueReadBuffer(spins)");
    return CLMC_OK;
}

/* FNV-1a over all configurations lets naive and msc runs, and devices, be
 * compared bit for bit; every spin must be +-1. */
static clmc_status ea_checks(void *state, cJSON *checks)
{
    ea_state *s = state;
    size_t n = (size_t)s->configurations * s->n_sites;
    signed char *spins = malloc(n);
    if (!spins) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    clmc_status status = read_configurations(s, spins);
    unsigned long long hash = 0xcbf29ce484222325ULL, invalid = 0;
    for (size_t i = 0; status == CLMC_OK && i < n; i++) {
        invalid += spins[i] != 1 && spins[i] != -1;
        hash = (hash ^ (unsigned char)spins[i]) * 0x100000001b3ULL;
    }
    free(spins);
    CLMC_TRY(status);
    char text[32];
    snprintf(text, sizeof text, "%016llx", hash);
    cJSON_AddStringToObject(checks, "configuration_fnv1a", text);
    cJSON_AddNumberToObject(checks, "invalid_spins", (double)invalid);
    return invalid ? clmc_fail(CLMC_ERR_OTHER, "%llu spins are not +-1", invalid) : CLMC_OK;
}

const clmc_model_ops clmc_model_ea_ising = {
    .type = "ea_ising",
    .model_fields = clmc_ea_ising_model_fields,
    .algorithm_fields = clmc_ea_ising_algorithm_fields,
    .validate = ea_validate,
    .create = ea_create,
    .destroy = ea_destroy,
    .sweep = ea_sweep,
    .measure = ea_measure,
    .collect = ea_collect,
    .estimate = ea_estimate,
    .checks = ea_checks,
};
