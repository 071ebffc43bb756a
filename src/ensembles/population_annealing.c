/* Population annealing (docs/ensembles.md, "Population annealing"): R
 * systems of the model start at beta_start (0: the model's random start, an
 * exact sample of infinite temperature) and are annealed along the schedule;
 * before each new beta the population is resampled on the device
 * (cl/ensembles/population.cl) and then swept sweeps_per_step times.  Only
 * per-chunk sums (one value per 256 members) and two scalars per step come
 * back to the host.  This kind runs its own loop (kind->run) and writes its
 * own observables (kind->results), one entry per temperature step. */
#include "ensemble.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/defines.h"

#define CHUNK 256 /* PA_CHUNK of cl/ensembles/population.cl */
#define STATS 7   /* values per chunk of pa_member_stats */
#define HISTOGRAM_BINS (1u << 20) /* energy histograms wider than this are not kept (no overlap reported) */

/* What one temperature step leaves for the results. */
typedef struct {
    double beta, members, ln_z;
    double energy, energy2, abs_m, m2, m4; /* sums over the members */
    double family_squares, largest_family;
    double overlap; /* of this step's energy histogram with the previous one's; NAN: none */
} step_record;

typedef struct {
    unsigned target, capacity, n; /* n: members now (nearest_integer: fluctuates, at most capacity) */
    unsigned resampling, n_steps, runs, run; /* run: the independent run under way */
    uint64_t theta, sweep;
    double betas[CLMC_ENSEMBLE_MAX_TEMPERATURES];
    cl_uint seed_lo, seed_hi;
    double sites, log_states, ln_z;
    clmc_member_order order; /* what the members' second value is (ensemble_hooks.h) */
    cl_int e_min;
    bool exact_start;
    cl_program program;
    cl_kernel stats, weights, scan_d, add_d, copy_numbers, multinomial, prefix, scan_u, add_u, sources, gather,
        family_count, family_stats, histogram;
    cl_mem cum, chunk_d, total_d, copies, prefix_buf, chunk_u, total_u, source, member_stats, ancestor[2], counts,
        family_buf, scratch, histogram_buf;
    unsigned current; /* which ancestor buffer holds the members' ancestors */
    double *stats_host, *family_host, *betas_host;
    cl_uint *histogram_host[2]; /* this step's and the previous step's, by step parity */
    cl_int histogram_low[2];
    cl_uint histogram_bins[2];
    unsigned *temperature_host;
    step_record *steps; /* [run][step] */
} population;

static step_record *record(population *p, unsigned k) { return &p->steps[(size_t)p->run * p->n_steps + k]; }

static size_t chunks(size_t n) { return (n + CHUNK - 1) / CHUNK; }

#define ARG(kernel, index, type, value)                                            \
    do {                                                                           \
        type arg_ = (value);                                                       \
        CLMC_CL_TRY(clSetKernelArg((kernel), (index), sizeof arg_, &arg_));        \
    } while (0)

static clmc_status launch(clmc_runtime *rt, cl_kernel kernel, size_t items)
{
    if (items == 0) return CLMC_OK;
    return clmc_enqueue(rt, kernel, 1, &items, NULL, CLMC_UNTIMED);
}

static clmc_status read_back(clmc_runtime *rt, cl_mem buffer, size_t bytes, void *host)
{
    CLMC_CL_TRY(clEnqueueReadBuffer(clmc_runtime_queue(rt), buffer, CL_TRUE, 0, bytes, host, 0, NULL, NULL));
    return CLMC_OK;
}

static clmc_status zero(clmc_runtime *rt, cl_mem buffer, size_t bytes)
{
    cl_uint nothing = 0;
    CLMC_CL_TRY(clEnqueueFillBuffer(clmc_runtime_queue(rt), buffer, &nothing, sizeof nothing, 0, bytes, 0, NULL, NULL));
    return CLMC_OK;
}

static clmc_status build(population *p, clmc_runtime *rt)
{
    clmc_defines options = {0};
    clmc_defines_text(&options, "-cl-std=CL1.2");
    CLMC_TRY(clmc_defines_build(rt, "ensembles/population.cl", &options, &p->program));
    struct {
        const char *name;
        cl_kernel *kernel;
    } kernels[] = {{"pa_member_stats", &p->stats},   {"pa_weights", &p->weights},
                   {"pa_scan_double", &p->scan_d},   {"pa_add_double", &p->add_d},
                   {"pa_copy_numbers", &p->copy_numbers}, {"pa_multinomial", &p->multinomial},
                   {"pa_prefix_chunks", &p->prefix}, {"pa_scan_uint", &p->scan_u},
                   {"pa_add_uint", &p->add_u},       {"pa_sources", &p->sources},
                   {"pa_gather", &p->gather},        {"pa_family_count", &p->family_count},
                   {"pa_family_stats", &p->family_stats}, {"pa_histogram", &p->histogram}};
    for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++)
        CLMC_TRY(clmc_kernel_create(p->program, kernels[i].name, kernels[i].kernel));
    return CLMC_OK;
}

static clmc_status allocate(population *p, clmc_runtime *rt, size_t member_bytes)
{
    size_t cap = p->capacity, n_chunks = chunks(cap);
    struct {
        size_t bytes;
        cl_mem *buffer;
    } buffers[] = {{sizeof(cl_double) * cap, &p->cum},           {sizeof(cl_double) * n_chunks, &p->chunk_d},
                   {sizeof(cl_double), &p->total_d},             {sizeof(cl_uint) * cap, &p->copies},
                   {sizeof(cl_uint) * cap, &p->prefix_buf},      {sizeof(cl_uint) * n_chunks, &p->chunk_u},
                   {sizeof(cl_uint), &p->total_u},               {sizeof(cl_uint) * cap, &p->source},
                   {STATS * sizeof(cl_double) * n_chunks, &p->member_stats},
                   {sizeof(cl_uint) * HISTOGRAM_BINS, &p->histogram_buf},
                   {sizeof(cl_uint) * cap, &p->ancestor[0]},     {sizeof(cl_uint) * cap, &p->ancestor[1]},
                   {sizeof(cl_uint) * cap, &p->counts},          {2 * sizeof(cl_double) * n_chunks, &p->family_buf},
                   {member_bytes * cap, &p->scratch}};
    for (size_t i = 0; i < sizeof buffers / sizeof buffers[0]; i++)
        CLMC_TRY(clmc_buffer_create(rt, buffers[i].bytes, NULL, "population", buffers[i].buffer));
    p->stats_host = malloc(STATS * sizeof(double) * n_chunks);
    p->histogram_host[0] = malloc(sizeof(cl_uint) * HISTOGRAM_BINS);
    p->histogram_host[1] = malloc(sizeof(cl_uint) * HISTOGRAM_BINS);
    p->family_host = malloc(2 * sizeof(double) * n_chunks);
    p->betas_host = malloc(sizeof(double) * cap);
    p->temperature_host = calloc(cap, sizeof(unsigned));
    p->steps = calloc((size_t)p->n_steps * p->runs, sizeof *p->steps);
    if (!p->stats_host || !p->histogram_host[0] || !p->histogram_host[1] || !p->family_host || !p->betas_host || !p->temperature_host || !p->steps)
        return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    return CLMC_OK;
}

/* A run's beginning: R members, each its own family, ln Z(0) exact. */
static clmc_status begin_run(population *p, clmc_runtime *rt)
{
    cl_uint *identity = malloc(sizeof(cl_uint) * p->capacity);
    if (!identity) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    for (size_t i = 0; i < p->capacity; i++) identity[i] = (cl_uint)i;
    cl_int err = clEnqueueWriteBuffer(clmc_runtime_queue(rt), p->ancestor[0], CL_TRUE, 0,
                                      sizeof(cl_uint) * p->capacity, identity, 0, NULL, NULL);
    free(identity);
    CLMC_CL_CHECK(err, "clEnqueueWriteBuffer(ancestors)");
    p->current = 0;
    p->n = p->target;
    p->ln_z = p->log_states;
    return CLMC_OK;
}

static void pa_close(clmc_ensemble *e);

clmc_status clmc_population_open(clmc_ensemble *e, const clmc_ensemble_settings *settings)
{
    population *p = calloc(1, sizeof *p);
    if (!p) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    e->kind_state = p;
    p->target = settings->population;
    p->capacity = e->map.n_configs;
    p->n = p->target;
    p->resampling = settings->resampling;
    p->n_steps = settings->n_betas;
    p->runs = settings->runs ? settings->runs : 1;
    memcpy(p->betas, settings->betas, sizeof(double) * settings->n_betas);
    p->theta = settings->sweeps_per_step;
    p->seed_lo = (cl_uint)(settings->seed & 0xffffffffu);
    p->seed_hi = (cl_uint)(settings->seed >> 32);
    p->exact_start = settings->betas[0] == 0;
    e->ops->ensemble->member_size(e->state, &p->sites, &p->log_states);
    p->ln_z = p->log_states;
    p->order = (clmc_member_order){"abs_magnetization", NULL, NULL, "susceptibility", "binder", p->sites, 1.0};
    if (e->ops->ensemble->member_order) e->ops->ensemble->member_order(e->state, &p->order);
    cl_mem members;
    size_t member_bytes;
    CLMC_TRY(e->ops->ensemble->members_buffer(e->state, &members, &member_bytes));
    if (member_bytes % 4 != 0)
        return clmc_fail(CLMC_ERR_INPUT, "ensemble.type: a system of model \"%s\" takes %zu bytes, not whole 32-bit "
                         "words, which population annealing copies", e->ops->type, member_bytes);
    CLMC_TRY(build(p, e->rt));
    return allocate(p, e->rt, member_bytes);
}

/* The members' energy histogram at step k (one bin per energy value; none
 * when wider than HISTOGRAM_BINS) and its overlap sum_E min(P_k-1(E), P_k(E))
 * with the previous step's. */
static clmc_status histogram_overlap(clmc_ensemble *e, population *p, cl_mem energy, unsigned k, cl_int low,
                                     double width)
{
    unsigned now = k % 2, before = 1 - now;
    record(p, k)->overlap = NAN;
    p->histogram_bins[now] = width <= HISTOGRAM_BINS ? (cl_uint)width : 0;
    p->histogram_low[now] = low;
    cl_uint bins = p->histogram_bins[now];
    if (bins) {
        CLMC_TRY(zero(e->rt, p->histogram_buf, sizeof(cl_uint) * bins));
        ARG(p->histogram, 0, cl_mem, energy);
        ARG(p->histogram, 1, cl_uint, p->n);
        ARG(p->histogram, 2, cl_int, low);
        ARG(p->histogram, 3, cl_uint, bins);
        ARG(p->histogram, 4, cl_mem, p->histogram_buf);
        CLMC_TRY(launch(e->rt, p->histogram, p->n));
        CLMC_TRY(read_back(e->rt, p->histogram_buf, sizeof(cl_uint) * bins, p->histogram_host[now]));
    }
    if (k == 0 || !bins || !p->histogram_bins[before]) return CLMC_OK;
    double overlap = 0, n_now = p->n, n_before = record(p, k - 1)->members;
    for (cl_uint b = 0; b < bins; b++) {
        long long at = (long long)low + b - p->histogram_low[before];
        if (at < 0 || at >= (long long)p->histogram_bins[before]) continue;
        double a = p->histogram_host[now][b] / n_now, c = p->histogram_host[before][at] / n_before;
        overlap += a < c ? a : c;
    }
    record(p, k)->overlap = overlap;
    return CLMC_OK;
}

/* The members' observables and family sizes at step k's beta. */
static clmc_status measure(clmc_ensemble *e, population *p, cl_mem energy, cl_mem magnetisation, unsigned k)
{
    size_t n_chunks = chunks(p->n);
    ARG(p->stats, 0, cl_mem, energy);
    ARG(p->stats, 1, cl_mem, magnetisation);
    ARG(p->stats, 2, cl_uint, p->n);
    ARG(p->stats, 3, cl_mem, p->member_stats);
    CLMC_TRY(launch(e->rt, p->stats, n_chunks));
    CLMC_TRY(zero(e->rt, p->counts, sizeof(cl_uint) * p->capacity));
    ARG(p->family_count, 0, cl_mem, p->ancestor[p->current]);
    ARG(p->family_count, 1, cl_uint, p->n);
    ARG(p->family_count, 2, cl_mem, p->counts);
    CLMC_TRY(launch(e->rt, p->family_count, p->n));
    ARG(p->family_stats, 0, cl_mem, p->counts);
    ARG(p->family_stats, 1, cl_uint, p->target);
    ARG(p->family_stats, 2, cl_mem, p->family_buf);
    CLMC_TRY(launch(e->rt, p->family_stats, chunks(p->target)));
    CLMC_TRY(read_back(e->rt, p->member_stats, STATS * sizeof(double) * n_chunks, p->stats_host));
    CLMC_TRY(read_back(e->rt, p->family_buf, 2 * sizeof(double) * chunks(p->target), p->family_host));
    step_record *r = record(p, k);
    r->beta = p->betas[k];
    r->members = p->n;
    r->ln_z = p->ln_z;
    double e_min = p->stats_host[0], e_max = p->stats_host[6];
    for (size_t c = 0; c < n_chunks; c++) {
        const double *s = p->stats_host + STATS * c;
        e_min = s[0] < e_min ? s[0] : e_min;
        e_max = s[6] > e_max ? s[6] : e_max;
        r->energy += s[1];
        r->energy2 += s[2];
        r->abs_m += s[3];
        r->m2 += s[4];
        r->m4 += s[5];
    }
    p->e_min = (cl_int)e_min;
    CLMC_TRY(histogram_overlap(e, p, energy, k, (cl_int)e_min, e_max - e_min + 1));
    for (size_t c = 0; c < chunks(p->target); c++) {
        r->family_squares += p->family_host[2 * c];
        if (p->family_host[2 * c + 1] > r->largest_family) r->largest_family = p->family_host[2 * c + 1];
    }
    return CLMC_OK;
}

/* Cumulative weights exp(-(beta' - beta)(E_i - E_min)) of the members and
 * their sum: ln Q = ln((1/n) sum exp(-(beta' - beta) E_i)) is added to ln Z. */
/* The last two passes of a prefix sum in chunks of 256, after the first
 * pass left each chunk's sum in `chunk_sums`: one work-item scans the chunk
 * sums (their total into `total`), then every element gets its chunk's
 * offset.  Weights (double) and copy numbers (uint) each have their kernels. */
static clmc_status finish_prefix_sums(clmc_ensemble *e, population *p, cl_kernel scan, cl_kernel add, cl_mem values,
                                      cl_mem chunk_sums, cl_mem total)
{
    ARG(scan, 0, cl_mem, chunk_sums);
    ARG(scan, 1, cl_uint, (cl_uint)chunks(p->n));
    ARG(scan, 2, cl_mem, total);
    CLMC_TRY(launch(e->rt, scan, 1));
    ARG(add, 0, cl_mem, values);
    ARG(add, 1, cl_uint, p->n);
    ARG(add, 2, cl_mem, chunk_sums);
    return launch(e->rt, add, p->n);
}

static clmc_status weigh(clmc_ensemble *e, population *p, cl_mem energy, double dbeta, double *total)
{
    cl_uint n_chunks = (cl_uint)chunks(p->n);
    ARG(p->weights, 0, cl_mem, energy);
    ARG(p->weights, 1, cl_uint, p->n);
    ARG(p->weights, 2, cl_double, dbeta);
    ARG(p->weights, 3, cl_int, p->e_min);
    ARG(p->weights, 4, cl_mem, p->cum);
    ARG(p->weights, 5, cl_mem, p->chunk_d);
    CLMC_TRY(launch(e->rt, p->weights, n_chunks));
    CLMC_TRY(finish_prefix_sums(e, p, p->scan_d, p->add_d, p->cum, p->chunk_d, p->total_d));
    CLMC_TRY(read_back(e->rt, p->total_d, sizeof(double), total));
    p->ln_z += -dbeta * (double)p->e_min + log(*total / p->n);
    return CLMC_OK;
}

/* Copy numbers by the scheme, then their prefix sums; returns the new size. */
static clmc_status copy_numbers(clmc_ensemble *e, population *p, double total, unsigned step, cl_uint *n_new)
{
    if (p->resampling == 1) {
        CLMC_TRY(zero(e->rt, p->copies, sizeof(cl_uint) * p->n));
        ARG(p->multinomial, 0, cl_mem, p->cum);
        ARG(p->multinomial, 1, cl_uint, p->n);
        ARG(p->multinomial, 2, cl_double, total);
        ARG(p->multinomial, 3, cl_uint, p->target);
        ARG(p->multinomial, 4, cl_uint, p->seed_lo);
        ARG(p->multinomial, 5, cl_uint, p->seed_hi);
        ARG(p->multinomial, 6, cl_uint, step);
        ARG(p->multinomial, 7, cl_uint, p->run);
        ARG(p->multinomial, 8, cl_mem, p->copies);
        CLMC_TRY(launch(e->rt, p->multinomial, p->target));
    } else {
        ARG(p->copy_numbers, 0, cl_mem, p->cum);
        ARG(p->copy_numbers, 1, cl_uint, p->n);
        ARG(p->copy_numbers, 2, cl_double, total);
        ARG(p->copy_numbers, 3, cl_uint, p->target);
        ARG(p->copy_numbers, 4, cl_uint, p->resampling);
        ARG(p->copy_numbers, 5, cl_uint, p->seed_lo);
        ARG(p->copy_numbers, 6, cl_uint, p->seed_hi);
        ARG(p->copy_numbers, 7, cl_uint, step);
        ARG(p->copy_numbers, 8, cl_uint, p->run);
        ARG(p->copy_numbers, 9, cl_mem, p->copies);
        CLMC_TRY(launch(e->rt, p->copy_numbers, p->n));
    }
    cl_uint n_chunks = (cl_uint)chunks(p->n);
    ARG(p->prefix, 0, cl_mem, p->copies);
    ARG(p->prefix, 1, cl_uint, p->n);
    ARG(p->prefix, 2, cl_mem, p->prefix_buf);
    ARG(p->prefix, 3, cl_mem, p->chunk_u);
    CLMC_TRY(launch(e->rt, p->prefix, n_chunks));
    CLMC_TRY(finish_prefix_sums(e, p, p->scan_u, p->add_u, p->prefix_buf, p->chunk_u, p->total_u));
    return read_back(e->rt, p->total_u, sizeof(cl_uint), n_new);
}

/* to[j] = from[source[j]] for the new members, `words` words each. */
static clmc_status gather(clmc_ensemble *e, population *p, cl_mem from, cl_mem to, cl_uint words, cl_uint n_new)
{
    ARG(p->gather, 0, cl_mem, from);
    ARG(p->gather, 1, cl_mem, to);
    ARG(p->gather, 2, cl_uint, words);
    ARG(p->gather, 3, cl_mem, p->source);
    ARG(p->gather, 4, cl_uint, n_new);
    size_t global[2] = {words, n_new};
    return clmc_enqueue(e->rt, p->gather, 2, global, NULL, CLMC_UNTIMED);
}

/* From beta to beta' = betas[step]: weights, copy numbers, and the new
 * population (configurations and ancestors) written in place. */
static clmc_status resample(clmc_ensemble *e, population *p, cl_mem energy, unsigned step)
{
    double total;
    CLMC_TRY(weigh(e, p, energy, p->betas[step] - p->betas[step - 1], &total));
    cl_uint n_new;
    CLMC_TRY(copy_numbers(e, p, total, step, &n_new));
    if (n_new == 0 || n_new > p->capacity)
        return clmc_fail(CLMC_ERR_OTHER, "ensemble.resampling: %u copies at beta %g, room for %u; the population "
                         "cannot go on", n_new, p->betas[step], p->capacity);
    ARG(p->sources, 0, cl_mem, p->prefix_buf);
    ARG(p->sources, 1, cl_uint, p->n);
    ARG(p->sources, 2, cl_uint, n_new);
    ARG(p->sources, 3, cl_mem, p->source);
    CLMC_TRY(launch(e->rt, p->sources, n_new));
    cl_mem members;
    size_t member_bytes;
    CLMC_TRY(e->ops->ensemble->members_buffer(e->state, &members, &member_bytes));
    CLMC_TRY(gather(e, p, members, p->scratch, (cl_uint)(member_bytes / 4), n_new));
    CLMC_CL_TRY(clEnqueueCopyBuffer(clmc_runtime_queue(e->rt), p->scratch, members, 0, 0, member_bytes * n_new, 0,
                                    NULL, NULL));
    CLMC_TRY(gather(e, p, p->ancestor[p->current], p->ancestor[1 - p->current], 1, n_new));
    p->current = 1 - p->current;
    p->n = n_new;
    return CLMC_OK;
}

static clmc_status set_beta(clmc_ensemble *e, population *p, double beta)
{
    for (unsigned i = 0; i < p->capacity; i++) p->betas_host[i] = beta;
    return e->ops->ensemble->set_betas(e->state, p->betas_host, p->temperature_host);
}

static clmc_status anneal(clmc_ensemble *e, population *p, cl_mem *energy_out, cl_mem *magnetisation_out);

/* ensemble.runs independent anneals one after the other: run r starts from
 * the model's random start for run r, and its sweeps continue the count. */
static clmc_status pa_run(clmc_ensemble *e)
{
    population *p = e->kind_state;
    cl_mem energy = NULL, magnetisation = NULL;
    for (p->run = 0; p->run < p->runs; p->run++) {
        if (p->run > 0) CLMC_TRY(e->ops->ensemble->fresh_start(e->state, p->run));
        CLMC_TRY(begin_run(p, e->rt));
        CLMC_TRY(anneal(e, p, &energy, &magnetisation));
    }
    return CLMC_OK;
}

static clmc_status anneal(clmc_ensemble *e, population *p, cl_mem *energy_out, cl_mem *magnetisation_out)
{
    cl_mem energy = *energy_out, magnetisation = *magnetisation_out;
    for (unsigned k = 0; k < p->n_steps; k++) {
        if (k > 0) CLMC_TRY(resample(e, p, energy, k));
        CLMC_TRY(set_beta(e, p, p->betas[k]));
        /* beta_start = 0: the random start is already an exact sample. */
        for (uint64_t t = 0; (k > 0 || p->betas[0] > 0) && t < p->theta; t++)
            CLMC_TRY(e->ops->sweep(e->state, p->sweep++));
        CLMC_TRY(e->ops->ensemble->member_observables(e->state, &energy, &magnetisation));
        CLMC_TRY(measure(e, p, energy, magnetisation, k));
    }
    *energy_out = energy;
    *magnetisation_out = magnetisation;
    return CLMC_OK;
}

/* Combines one observable over the runs: the mean weighted by each run's
 * Z(beta) (the weighted average of population annealing, equal weights for
 * one run) and, for several runs, its standard error sqrt(runs / (runs - 1)
 * sum w_r^2 (x_r - mean)^2). */
static void add_combined(cJSON *entry, const char *name, const double *x, const double *weight, unsigned runs)
{
    double mean = 0, squares = 0;
    for (unsigned r = 0; r < runs; r++) mean += weight[r] * x[r];
    for (unsigned r = 0; r < runs; r++) squares += weight[r] * weight[r] * (x[r] - mean) * (x[r] - mean);
    cJSON *item = cJSON_AddObjectToObject(entry, name);
    cJSON_AddNumberToObject(item, "mean", mean);
    if (runs > 1) cJSON_AddNumberToObject(item, "error", sqrt(squares * runs / (runs - 1)));
}

enum { ENERGY, ABS_M, SQUARE_M, FOURTH_M, HEAT, CHI, BINDER, FREE_ENERGY, ENTROPY, N_OBSERVABLES };

/* One run's observables at a step, per site as the model's series are; the
 * order parameter o = m / norm (clmc_member_order). */
static void observables_of(const step_record *r, double sites, const clmc_member_order *order, double *x)
{
    double norm = order->norm;
    double n = r->members, beta = r->beta, energy = r->energy / n, abs_m = r->abs_m / n, m2 = r->m2 / n;
    x[ENERGY] = energy / sites;
    x[ABS_M] = abs_m / norm;
    x[SQUARE_M] = m2 / (norm * norm);
    x[FOURTH_M] = r->m4 / n / (norm * norm * norm * norm);
    x[HEAT] = beta * beta * (r->energy2 / n - energy * energy) / sites;
    x[CHI] = beta * (m2 - abs_m * abs_m) / sites * ((sites / norm) * (sites / norm));
    x[BINDER] = m2 > 0 ? order->binder_scale * (1.0 - r->m4 / n / (3.0 * m2 * m2)) : 0.0;
    x[FREE_ENERGY] = -r->ln_z / sites;
    x[ENTROPY] = (beta * energy + r->ln_z) / sites;
}

/* observables.temperatures[k]: the population's averages at every step
 * (Ising: energy, abs_magnetization, specific_heat, susceptibility, binder;
 * the order parameter's names as the model's member_order gives them),
 * the free energy beta F / N and entropy S / N (from beta_start = 0 only),
 * and the family diagnostics (averaged over runs).  Several runs: each
 * observable weighted by the runs' Z, the free energy from their mean Z,
 * errors from the spread over runs. */
static clmc_status pa_results(clmc_ensemble *e, cJSON *observables)
{
    population *p = e->kind_state;
    const char *const names[N_OBSERVABLES] = {"energy",        p->order.abs_name,
                                              p->order.square_name, p->order.fourth_name,
                                              "specific_heat", p->order.susceptibility_name,
                                              p->order.binder_name, "free_energy",
                                              "entropy"};
    unsigned runs = p->runs;
    double *x = malloc(sizeof(double) * N_OBSERVABLES * runs), *column = malloc(sizeof(double) * runs);
    double *weight = malloc(sizeof(double) * runs), *equal = malloc(sizeof(double) * runs);
    if (!x || !column || !weight || !equal) {
        free(x), free(column), free(weight), free(equal);
        return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    }
    cJSON *temperatures = cJSON_AddArrayToObject(observables, "temperatures");
    for (unsigned k = 0; k < p->n_steps; k++) {
        double ln_z_max = -INFINITY, sum = 0, members = 0, families = 0, rho = 0, largest = 0, overlap = 0;
        for (p->run = 0; p->run < runs; p->run++) ln_z_max = fmax(ln_z_max, record(p, k)->ln_z);
        for (p->run = 0; p->run < runs; p->run++) {
            const step_record *r = record(p, k);
            observables_of(r, p->sites, &p->order, x + N_OBSERVABLES * p->run);
            sum += weight[p->run] = exp(r->ln_z - ln_z_max);
            equal[p->run] = 1.0 / runs;
            members += r->members / runs;
            families += r->members * r->members / r->family_squares / runs;
            rho += r->family_squares / r->members / runs;
            largest += r->largest_family / r->members / runs;
            overlap += r->overlap / runs;
        }
        for (unsigned r = 0; r < runs; r++) weight[r] /= sum;
        cJSON *entry = cJSON_CreateObject();
        cJSON_AddNumberToObject(entry, "beta", p->betas[k]);
        for (int q = 0; q < N_OBSERVABLES; q++) {
            if (q >= FREE_ENERGY && !p->exact_start) break;
            if (!names[q]) continue;
            for (unsigned r = 0; r < runs; r++) column[r] = x[N_OBSERVABLES * r + q];
            add_combined(entry, names[q], column, q == FREE_ENERGY ? equal : weight, runs);
        }
        if (p->exact_start) { /* ln of the runs' mean Z: as one population of runs x R */
            double f = -(ln_z_max + log(sum / runs)) / p->sites;
            cJSON_SetNumberValue(cJSON_GetObjectItem(cJSON_GetObjectItem(entry, "free_energy"), "mean"), f);
        }
        cJSON *population_entry = cJSON_AddObjectToObject(entry, "population");
        cJSON_AddNumberToObject(population_entry, "members", members);
        cJSON_AddNumberToObject(population_entry, "effective_families", families);
        cJSON_AddNumberToObject(population_entry, "rho_t", rho);
        cJSON_AddNumberToObject(population_entry, "largest_family", largest);
        if (!isnan(overlap)) cJSON_AddNumberToObject(population_entry, "histogram_overlap", overlap);
        cJSON_AddItemToArray(temperatures, entry);
    }
    cJSON_AddNumberToObject(observables, "population_sweeps", (double)p->sweep);
    cJSON_AddNumberToObject(observables, "runs", runs);
    free(x), free(column), free(weight), free(equal);
    return CLMC_OK;
}

static void pa_close(clmc_ensemble *e)
{
    population *p = e->kind_state;
    if (!p) return;
    cl_kernel kernels[] = {p->stats,  p->weights, p->scan_d,  p->add_d,  p->copy_numbers, p->multinomial, p->prefix,
                           p->scan_u, p->add_u,   p->sources, p->gather, p->family_count, p->family_stats,
                           p->histogram};
    for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++)
        if (kernels[i]) CLMC_CL_WARN(clReleaseKernel(kernels[i]));
    cl_mem buffers[] = {p->cum,    p->chunk_d,      p->total_d,     p->copies,      p->prefix_buf,
                        p->chunk_u, p->total_u,     p->source,      p->member_stats, p->ancestor[0],
                        p->ancestor[1], p->counts,  p->family_buf,  p->scratch, p->histogram_buf};
    for (size_t i = 0; i < sizeof buffers / sizeof buffers[0]; i++)
        if (buffers[i]) CLMC_CL_WARN(clReleaseMemObject(buffers[i]));
    if (p->program) CLMC_CL_WARN(clReleaseProgram(p->program));
    free(p->stats_host);
    free(p->histogram_host[0]);
    free(p->histogram_host[1]);
    free(p->family_host);
    free(p->betas_host);
    free(p->temperature_host);
    free(p->steps);
    free(p);
    e->kind_state = NULL;
}

const clmc_ensemble_kind clmc_ensemble_population_annealing = {
    .close = pa_close,
    .run = pa_run,
    .results = pa_results,
};
