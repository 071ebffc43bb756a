/* Population annealing (docs/ensembles.md, "Population annealing"): R
 * systems of the model start at beta_start (0: the model's random start, an
 * exact sample of infinite temperature) and are annealed along the schedule;
 * before each new beta the population is resampled on the device
 * (cl/ensembles/population.cl) and then swept sweeps_per_step times.  A
 * step's sums stay in a device record (RECORD doubles, read once per run);
 * no step waits for the device (nearest_integer: but for the new size).
 * This kind runs its own loop (kind->run) and writes its own observables
 * (kind->results), one entry per temperature step.  Under MPI ranks
 * (docs/mpi.md) each rank holds a share of the members: the sums are
 * gathered and combined on the host in the device's order, members whose
 * copies land on another rank travel (exchange), and every rank holds the
 * run's step records, so the results equal one process's. */
#include "ensemble.h"
#include "population_lanes.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/philox.h"
#include "output/state_blob.h"
#include "runtime/defines.h"
#include "runtime/ranks.h"

#define CHUNK 256 /* PA_CHUNK of cl/ensembles/population.cl */
#define STATS 9   /* values per chunk of pa_member_stats */
#define HISTOGRAM_BINS (1u << 20) /* PA_HISTOGRAM_BINS: wider energy ranges keep no histogram (no overlap) */
#define HISTOGRAM_GROUPS 512 /* pa_histogram's work-groups at most (each with its local bins) */
#define FUSED_CHUNKS 1024 /* the chunks the fused steps take at most (beyond, their repeated sums cost more than the
                            * launches they save) */
#define RECORD_RING 32 /* the fused steps' chunk statistics kept for this many steps, their records made at once */
/* A step's device record, PA_RECORD doubles (cl/ensembles/population.cl). */
enum { RECORD = 12, E_MIN = 0, E_MAX = 1, SUMS = 2, FAMILY_SQUARES = 7, LARGEST = 8, WEIGHT_TOTAL = 9, OVERLAP = 10 };
/* --profile under MPI ranks: the phases of the wall time between the sweeps. */
enum { LAP_MEASURE, LAP_RECORDS_WAIT, LAP_RECORDS, LAP_WEIGHTS_WAIT, LAP_WEIGHTS, LAP_COPIES, LAP_RANGES_WAIT,
       LAP_SLICES_WAIT, LAP_PACK, LAP_MPI_EXCHANGE, LAP_UPLOAD, LAP_GATHER, N_PHASES };
static const char *const phase_names[N_PHASES] = {"measure", "records_wait", "records", "weights_wait", "weights",
    "copies", "ranges_wait", "slices_wait", "pack", "alltoall", "upload", "gather"};

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
    /* Steps room is kept for (the schedule's, or the adaptive max_steps + 1);
     * choosing: the adaptive schedule is still being chosen (run 0), each
     * next beta appended to betas after a step (n_steps grows). */
    unsigned max_steps;
    bool choosing;
    double beta_end, target_overlap;
    cl_uint *histogram_host; /* adaptive: the last step's energy histogram */
    uint64_t theta, sweep;
    double betas[CLMC_ENSEMBLE_MAX_TEMPERATURES];
    cl_uint seed_lo, seed_hi;
    double sites, log_states, ln_z;
    clmc_member_order order; /* what the members' second value is (ensemble_hooks.h) */
    bool exact_start;
    cl_program program;
    cl_kernel stats, weights, scan_d, add_d, copy_numbers, copy_prefix, multinomial, prefix, scan_u, add_u, sources,
        sources_own, gather, gather4, histogram, overlap, step_record_kernel, share_ranges, window_prefix,
        family_edges, energy_range, member_weights, copy_sources;
    /* ensemble.fused_steps: a step's measurement and resampling in the two
     * launches of pa_member_weights and pa_copy_sources after the chunks'
     * energy ranges (fused_why: why not, where not); model_folds: the
     * model's measuring sweeps fold the ranges (fold_energy_range), else
     * pa_energy_range finds them; weights_ready: the step whose weights
     * pa_member_weights left (0: none); overlap_due: the step whose overlap
     * pa_copy_sources is to make (-1: none); records_due: the first of the
     * steps whose statistics wait in their ring slots for pa_step_records
     * (-1: none), records_last the last of them. */
    bool fused, model_folds;
    const char *fused_why;
    unsigned weights_ready;
    long overlap_due, records_due, records_last;
    cl_mem cum, chunk_d, copies, prefix_buf, chunk_u, total_u, source, member_stats, chunk_range, ancestor[2], scratch,
        histogram_buf[2], records;
    size_t member_bytes;
    clmc_population_lanes lanes; /* members packed into lanes (member_lanes): member_bytes per group of them */
    /* MPI ranks (docs/mpi.md): this rank holds the run's members [first,
     * first + local) of n (first = starts[rank], fixed; the last rank's
     * share takes nearest_integer's fluctuation), capacity of them at most
     * (slots[r]: every rank's).  One process: rank 0 of 1, local = n. */
    int rank, ranks;
    unsigned first, local;
    /* ensemble.distribute "runs" under K MPI ranks: this rank anneals runs
     * [first_run, first_run + runs) of runs x run_ranks, all members each
     * (rank and ranks above are then 0 and 1), its sweeps counted from
     * first_run x run_sweeps, as one process counts them. */
    int run_ranks;
    unsigned first_run;
    uint64_t run_sweeps;
    unsigned *starts, *slots;
    cl_mem received, received_ancestor, window, bounds, ranges, edges; /* the members that change rank */
    clmc_pinned staging; /* host copies of them (sent), in pinned memory */
    double *chunk_host, *chunk_all, *stats_all; /* chunk sums of the ranks' members */
    cl_uint *histogram_sum;
    /* MPI ranks: the step whose energy histogram is on its way to
     * histogram_sum (read without waiting, summed over the ranks at the next
     * wait for the device: histogram_flush); -1: none. */
    long histogram_pending;
    cl_uint *in_heads; /* received members' prefix sums and ancestors, and their bytes: the uploads' */
    clmc_pinned in_data; /* host copies (pinned), kept until the next step's first wait */
    size_t in_room;     /* members in_heads and in_data hold room for */
    double between_seconds, mpi_seconds; /* --profile: wall time between the sweeps; in MPI calls */
    /* --profile under MPI ranks: the wall time between the sweeps by phase
     * (each lap: the time since the previous one, the LAP_ phases above). */
    double phase_seconds[N_PHASES], lap_at;
    uint64_t sent_bytes, sent_members;
    uint64_t waits, steps_done; /* --profile: the steps' blocking waits for the device (read-backs, finishes), steps */
    unsigned current; /* which ancestor buffer holds the members' ancestors */
    size_t group; /* work-group size of the one-group kernels (scans, step record, overlap) */
    double *records_host, *betas_host;
    unsigned *temperature_host;
    cl_event beta_written; /* the last set_betas write: its host copy is reused after it */
    /* --profile: device time between the steps' sweeps
     * (clmc_runtime_profile_between), and the anneal's wall time. */
    double outside_ns, wall_seconds;
    /* Restored from a checkpoint: run `run` goes on at step first_step. */
    bool resumed;
    unsigned first_step;
    step_record *steps; /* [run][step] */
} population;

static step_record *record(population *p, unsigned k) { return &p->steps[(size_t)p->run * p->max_steps + k]; }

/* --profile under MPI ranks: the wall time since the last lap into phase `phase`. */
static void lap(population *p, int phase)
{
    if (p->ranks < 2) return;
    double now = clmc_runtime_clock();
    p->phase_seconds[phase] += now - p->lap_at;
    p->lap_at = now;
}

static size_t chunks(size_t n) { return (n + CHUNK - 1) / CHUNK; }

bool clmc_population_share(unsigned target, unsigned capacity, int rank, int ranks, unsigned *first, unsigned *slots)
{
    unsigned long long c = chunks(target), k = (unsigned)ranks, r = (unsigned)rank;
    *first = (unsigned)(CHUNK * (c * r / k));
    unsigned next = rank + 1 < ranks ? (unsigned)(CHUNK * (c * (r + 1) / k)) : capacity;
    *slots = next - *first;
    return c >= k;
}

/* This rank's members when the run has n (the last rank: those past its first; 0 if none). */
static unsigned local_of(const population *p, unsigned n)
{
    if (p->rank + 1 < p->ranks) return p->starts[p->rank + 1] - p->first;
    return n > p->first ? n - p->first : 0;
}

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

static size_t record_at(unsigned k, unsigned field) { return (size_t)k * RECORD + field; }

/* A per-chunk kernel: one work-group of CHUNK work-items per chunk. */
static clmc_status launch_chunks(clmc_runtime *rt, cl_kernel kernel, size_t n_chunks)
{
    size_t global = n_chunks * CHUNK, local = CHUNK;
    if (n_chunks == 0) return CLMC_OK;
    return clmc_enqueue(rt, kernel, 1, &global, &local, CLMC_UNTIMED);
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

/* The chunks' energy ranges ready for the model's fold (fold_energy_range):
 * every pair INT_MAX, INT_MIN, as pa_copy_sources leaves them. */
static clmc_status ranges_ready(const population *p, clmc_runtime *rt)
{
    if (!p->model_folds) return CLMC_OK;
    cl_int empty[2] = {INT_MAX, INT_MIN};
    CLMC_CL_TRY(clEnqueueFillBuffer(clmc_runtime_queue(rt), p->chunk_range, empty, sizeof empty, 0,
                                    sizeof empty * chunks(p->capacity), 0, NULL, NULL));
    return CLMC_OK;
}

/* The kernels for the model's member values (cl_int, or cl_double with
 * real_members) and, where the model computes reproducibly, the
 * device-independent weights (PA_REPRODUCIBLE, cl/ensembles/population.cl). */
static clmc_status build(population *p, clmc_ensemble *e)
{
    clmc_runtime *rt = e->rt;
    const clmc_ensemble_hooks *hooks = e->ops->ensemble;
    clmc_defines options = {0};
    clmc_defines_text(&options, "-cl-std=CL1.2");
    if (hooks->real_members) clmc_defines_flag(&options, "PA_REAL_MEMBERS");
    if (hooks->reproducible && hooks->reproducible(e->state)) clmc_defines_flag(&options, "PA_REPRODUCIBLE");
    CLMC_TRY(clmc_defines_build(rt, "ensembles/population.cl", &options, &p->program));
    struct {
        const char *name;
        cl_kernel *kernel;
    } kernels[] = {{"pa_member_stats", &p->stats},   {"pa_weights", &p->weights},
                   {"pa_scan_double", &p->scan_d},   {"pa_add_double", &p->add_d},
                   {"pa_copy_numbers", &p->copy_numbers}, {"pa_copy_prefix", &p->copy_prefix},
                   {"pa_multinomial", &p->multinomial},
                   {"pa_prefix_chunks", &p->prefix}, {"pa_scan_uint", &p->scan_u},
                   {"pa_add_uint", &p->add_u},       {"pa_sources", &p->sources},
                   {"pa_sources_own", &p->sources_own},
                   {"pa_gather", &p->gather},        {"pa_gather4", &p->gather4},
                   {"pa_histogram", &p->histogram},
                   {"pa_overlap", &p->overlap},    {"pa_step_records", &p->step_record_kernel},
                   {"pa_share_ranges", &p->share_ranges}, {"pa_window_prefix", &p->window_prefix},
                   {"pa_family_edges", &p->family_edges}, {"pa_energy_range", &p->energy_range},
                   {"pa_member_weights", &p->member_weights}, {"pa_copy_sources", &p->copy_sources}};
    for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++)
        CLMC_TRY(clmc_kernel_create(p->program, kernels[i].name, kernels[i].kernel));
    size_t limit = 256;
    if (clmc_runtime_device(rt)->max_work_group_size < limit) limit = clmc_runtime_device(rt)->max_work_group_size;
    cl_kernel one_group[] = {p->overlap, p->scan_d, p->scan_u, p->step_record_kernel};
    for (size_t i = 0; i < sizeof one_group / sizeof one_group[0]; i++) {
        size_t kernel_limit = 0;
        CLMC_TRY(clmc_kernel_group_limit(rt, one_group[i], &kernel_limit));
        if (kernel_limit && kernel_limit < limit) limit = kernel_limit;
    }
    for (p->group = 1; p->group * 2 <= limit;) p->group *= 2;
    return CLMC_OK;
}

/* Whether the step's fused launches can run (ensemble.fused_steps "auto"):
 * one process, systematic resampling, a fixed schedule, at most
 * FUSED_CHUNKS chunks, and work-groups of CHUNK for the one-group sums (so
 * the fused launches repeat their order) and for the fused kernels with
 * their local memory; else *why says which. */
static clmc_status fusable(population *p, clmc_runtime *rt, bool wanted, bool adaptive, const char **why)
{
    *why = !wanted                              ? "ensemble.fused_steps is \"off\""
           : p->ranks > 1                       ? "the members are shared by MPI ranks"
           : p->resampling != 0                 ? "ensemble.resampling is not \"systematic\""
           : adaptive                           ? "the schedule is adaptive"
           : chunks(p->capacity) > FUSED_CHUNKS ? "the population exceeds 1024 chunks of 256 (262144 members), "
                                                  "where the separate kernels are faster"
           : p->group != CHUNK                  ? "the device's work-groups are smaller than 256"
                                                : NULL;
    cl_kernel fused[] = {p->energy_range, p->member_weights, p->copy_sources};
    for (size_t i = 0; !*why && i < sizeof fused / sizeof fused[0]; i++) {
        size_t kernel_limit = 0;
        cl_ulong bytes = 0;
        CLMC_TRY(clmc_kernel_group_limit(rt, fused[i], &kernel_limit));
        CLMC_TRY(clmc_kernel_local_bytes(rt, fused[i], &bytes));
        if ((kernel_limit && kernel_limit < CHUNK) || bytes > clmc_runtime_device(rt)->local_mem_bytes)
            *why = "the fused kernels do not fit the device's work-groups";
    }
    p->fused = !*why;
    return CLMC_OK;
}

static clmc_status allocate(population *p, clmc_runtime *rt, size_t member_bytes)
{
    size_t cap = p->capacity, n_chunks = chunks(cap);
    p->member_bytes = member_bytes;
    struct {
        size_t bytes;
        cl_mem *buffer;
    } buffers[] = {{sizeof(cl_double) * cap, &p->cum},           {sizeof(cl_double) * n_chunks, &p->chunk_d},
                   {sizeof(cl_double) * RECORD * p->max_steps, &p->records}, {sizeof(cl_uint) * cap, &p->copies},
                   {sizeof(cl_uint) * cap, &p->prefix_buf},      {sizeof(cl_uint) * n_chunks, &p->chunk_u},
                   {sizeof(cl_uint), &p->total_u},               {sizeof(cl_uint) * cap, &p->source},
                   {STATS * sizeof(cl_double) * n_chunks * (p->fused ? RECORD_RING : 1), &p->member_stats},
                   {2 * sizeof(cl_double) * n_chunks, &p->chunk_range},
                   {sizeof(cl_uint) * HISTOGRAM_BINS, &p->histogram_buf[0]},
                   {sizeof(cl_uint) * HISTOGRAM_BINS, &p->histogram_buf[1]},
                   {sizeof(cl_uint) * cap, &p->ancestor[0]},     {sizeof(cl_uint) * cap, &p->ancestor[1]},
                   {p->lanes.lanes ? clmc_population_lanes_bytes(&p->lanes) : member_bytes * cap, &p->scratch}};
    for (size_t i = 0; i < sizeof buffers / sizeof buffers[0]; i++)
        CLMC_TRY(clmc_buffer_create(rt, buffers[i].bytes, NULL, "population", buffers[i].buffer));
    /* Fields no step writes (step 0's weight total and overlap, the steps to
     * come) go into checkpoints: zeros, not whatever the device held. */
    CLMC_TRY(zero(rt, p->records, sizeof(cl_double) * RECORD * p->max_steps));
    if (p->ranks > 1) { /* members received from other ranks (at most a share), the window of pa_sources */
        size_t k = (size_t)p->ranks;
        struct {
            size_t bytes;
            cl_mem *buffer;
        } shared[] = {{member_bytes * cap, &p->received},       {sizeof(cl_uint) * cap, &p->received_ancestor},
                      {2 * sizeof(cl_uint) * cap, &p->window}, {2 * sizeof(cl_uint) * k, &p->bounds},
                      {2 * sizeof(cl_uint) * k, &p->ranges},   {4 * sizeof(cl_uint), &p->edges}};
        for (size_t i = 0; i < sizeof shared / sizeof shared[0]; i++)
            CLMC_TRY(clmc_buffer_create(rt, shared[i].bytes, NULL, "population", shared[i].buffer));
        p->chunk_host = malloc(sizeof(double) * STATS * n_chunks);
        p->histogram_sum = malloc(sizeof(cl_uint) * HISTOGRAM_BINS);
        if (!p->chunk_host || !p->histogram_sum) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    }
    p->records_host = malloc(sizeof(double) * RECORD * p->max_steps);
    p->betas_host = malloc(sizeof(double) * cap);
    p->temperature_host = calloc(cap, sizeof(unsigned));
    p->steps = calloc((size_t)p->max_steps * p->runs, sizeof *p->steps);
    if (p->choosing) p->histogram_host = malloc(sizeof(cl_uint) * HISTOGRAM_BINS);
    if (!p->records_host || !p->betas_host || !p->temperature_host || !p->steps || (p->choosing && !p->histogram_host))
        return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    return CLMC_OK;
}

/* A run's beginning: R members, each its own family, ln Z(0) exact. */
static clmc_status begin_run(population *p, clmc_runtime *rt)
{
    cl_uint *identity = malloc(sizeof(cl_uint) * p->capacity);
    if (!identity) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    for (size_t i = 0; i < p->capacity; i++) identity[i] = (cl_uint)(p->first + i); /* the run's numbering */
    cl_int err = clEnqueueWriteBuffer(clmc_runtime_queue(rt), p->ancestor[0], CL_TRUE, 0,
                                      sizeof(cl_uint) * p->capacity, identity, 0, NULL, NULL);
    free(identity);
    CLMC_CL_CHECK(err, "clEnqueueWriteBuffer(ancestors)");
    CLMC_TRY(zero(rt, p->histogram_buf[0], sizeof(cl_uint) * HISTOGRAM_BINS));
    CLMC_TRY(zero(rt, p->histogram_buf[1], sizeof(cl_uint) * HISTOGRAM_BINS));
    CLMC_TRY(ranges_ready(p, rt));
    p->current = 0;
    p->n = p->target;
    p->local = local_of(p, p->n);
    p->ln_z = p->log_states;
    p->histogram_pending = -1;
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
    p->histogram_pending = -1;
    p->rank = clmc_ranks()->rank;
    p->ranks = clmc_ranks()->size;
    p->run_ranks = 1;
    if (settings->runs_over_ranks && p->ranks > 1) { /* src/engine/distribute.c gave this rank its runs */
        p->run_ranks = p->ranks;
        p->first_run = (unsigned)p->rank * settings->runs;
        p->rank = 0;
        p->ranks = 1;
    }
    p->first = settings->first_system;
    p->starts = calloc((size_t)p->ranks + 1, sizeof *p->starts);
    p->slots = calloc((size_t)p->ranks + 1, sizeof *p->slots);
    if (!p->starts || !p->slots) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    /* Real member values (XY/Heisenberg) are not combined across ranks yet:
     * their checks and the joined records were built for integer models. */
    if (p->ranks > 1 && e->ops->ensemble->real_members)
        return clmc_fail(CLMC_ERR_INPUT, "ensemble.type: population annealing of model \"%s\" runs in one process; "
                         "under %d MPI ranks only Ising, Potts and EA members are shared (ensemble.distribute "
                         "\"runs\": each rank anneals whole runs of its own)", e->ops->type, p->ranks);
    for (int r = 0; r < p->ranks; r++) { /* every rank's first member (src/engine/distribute.c set this one's) */
        unsigned slots;
        clmc_population_share(p->target, 0, r, p->ranks, &p->starts[r], &slots);
    }
    p->slots[p->rank] = p->capacity; /* the others': ranks_setup */
    p->local = local_of(p, p->n);
    p->resampling = settings->resampling;
    p->max_steps = settings->n_betas;
    p->n_steps = settings->adaptive ? 1 : settings->n_betas;
    p->choosing = settings->adaptive;
    p->beta_end = settings->beta_end;
    p->target_overlap = settings->target_overlap;
    p->runs = settings->runs ? settings->runs : 1;
    memcpy(p->betas, settings->betas, sizeof(double) * settings->n_betas);
    p->theta = settings->sweeps_per_step;
    /* A fixed schedule's sweeps per run (every step's but beta_start = 0's). */
    p->run_sweeps = (settings->n_betas - (settings->betas[0] == 0)) * p->theta;
    p->sweep = p->first_run * p->run_sweeps;
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
    CLMC_TRY(build(p, e));
    CLMC_TRY(fusable(p, e->rt, settings->fused_steps, settings->adaptive, &p->fused_why));
    p->overlap_due = p->records_due = -1;
    if (e->ops->ensemble->member_lanes) {
        unsigned lanes = e->ops->ensemble->member_lanes(e->state);
        if (lanes && p->ranks > 1) /* members travel between ranks in whole blocks of bytes */
            return clmc_fail(CLMC_ERR_INPUT, "ensemble.type: population annealing of model \"%s\" with %u members per "
                             "word is not shared by %d MPI ranks (ensemble.distribute \"runs\": each rank "
                             "anneals whole runs of its own)", e->ops->type, lanes, p->ranks);
        CLMC_TRY(clmc_population_lanes_open(e->rt, lanes, member_bytes, p->capacity, &p->lanes));
    }
    CLMC_TRY(allocate(p, e->rt, member_bytes));
    /* The fold covers the model's every configuration: the members where
     * their number is fixed (systematic: the fused steps') at the capacity. */
    if (p->fused && e->ops->ensemble->fold_energy_range && !e->ops->ensemble->real_members &&
        p->capacity == p->target)
        CLMC_TRY(e->ops->ensemble->fold_energy_range(e->state, p->chunk_range, &p->model_folds));
    return CLMC_OK;
}

/* The members' observables, family sizes and energy histogram at step k's
 * beta into the step's device record, and the overlap of the histogram with
 * the previous step's (sum_E min(P_k-1(E), P_k(E)), exact in integers). */
/* pa_block of cl/ensembles/population.cl: item id's block of n among size. */
static void block_of(size_t n, size_t id, size_t size, size_t *first, size_t *last)
{
    size_t per = (n + size - 1) / size;
    *first = id * per < n ? id * per : n;
    *last = *first + per < n ? *first + per : n;
}

/* Rank r's members when the run has n. */
static size_t rank_members(const population *p, int r, unsigned n)
{
    if (r + 1 < p->ranks) return p->starts[r + 1] - p->starts[r];
    return n > p->starts[r] ? n - p->starts[r] : 0;
}

/* Byte counts of `per_chunk` doubles per chunk of every rank's members. */
static void chunk_counts(const population *p, size_t per_chunk, size_t *counts)
{
    for (int r = 0; r < p->ranks; r++) counts[r] = sizeof(double) * per_chunk * chunks(rank_members(p, r, p->n));
}

/* MPI ranks: step k's record for the run from every rank's per-chunk member
 * statistics, summed on the host in blocks of chunks per group size (the
 * integer models' sums: exact in any order), and the family
 * statistics: the members are in their ancestors' order, so a family spans
 * consecutive members and only the families at a rank's ends continue on
 * its neighbours; their sizes are added up (exact integers). */
static clmc_status measure_ranks(clmc_ensemble *e, population *p, unsigned k)
{
    cl_command_queue queue = clmc_runtime_queue(e->rt);
    size_t local_chunks = chunks(p->local), all_chunks = chunks(p->n), k_ranks = (size_t)p->ranks;
    ARG(p->family_edges, 0, cl_mem, p->ancestor[p->current]);
    ARG(p->family_edges, 1, cl_uint, p->local);
    ARG(p->family_edges, 2, cl_mem, p->edges);
    CLMC_TRY(launch(e->rt, p->family_edges, 1));
    lap(p, LAP_MEASURE);
    cl_uint edges[4];
    double own[RECORD];
    CLMC_CL_TRY(clEnqueueReadBuffer(queue, p->member_stats, CL_FALSE, 0, sizeof(double) * STATS * local_chunks,
                                    p->chunk_host, 0, NULL, NULL));
    CLMC_CL_TRY(clEnqueueReadBuffer(queue, p->edges, CL_FALSE, 0, sizeof edges, edges, 0, NULL, NULL));
    p->waits++;
    CLMC_CL_TRY(clEnqueueReadBuffer(queue, p->records, CL_TRUE, sizeof(double) * record_at(k, 0),
                                    sizeof(double) * (LARGEST + 1), own, 0, NULL, NULL));
    lap(p, LAP_RECORDS_WAIT);
    size_t *counts = malloc(2 * k_ranks * sizeof *counts);
    double family[6] = {own[FAMILY_SQUARES], own[LARGEST], edges[0], edges[1], edges[2], edges[3]};
    double *families = malloc(6 * k_ranks * sizeof *families);
    if (!counts || !families) {
        free(counts), free(families);
        return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    }
    chunk_counts(p, STATS, counts);
    for (size_t r = 0; r < k_ranks; r++) counts[k_ranks + r] = sizeof family;
    double started = clmc_runtime_clock();
    clmc_status status = clmc_ranks_allgatherv(p->chunk_host, p->stats_all, counts);
    if (status == CLMC_OK) status = clmc_ranks_allgatherv(family, families, counts + k_ranks);
    p->mpi_seconds += clmc_runtime_clock() - started;
    free(counts);
    if (status != CLMC_OK) {
        free(families);
        return status;
    }
    double *record = p->records_host + record_at(k, 0), x[7], total[7] = {INFINITY, -INFINITY, 0, 0, 0, 0, 0};
    for (size_t id = 0; id < p->group; id++) {
        size_t first, last;
        block_of(all_chunks, id, p->group, &first, &last);
        x[0] = INFINITY, x[1] = -INFINITY;
        for (int q = 2; q < 7; q++) x[q] = 0;
        for (size_t c = first; c < last; c++) {
            const double *stats = p->stats_all + STATS * c;
            x[0] = fmin(x[0], stats[0]);
            x[1] = fmax(x[1], stats[6]);
            for (int q = 0; q < 5; q++) x[2 + q] += stats[1 + q];
        }
        if (id == 0) {
            memcpy(total, x, sizeof x);
            continue;
        }
        total[0] = fmin(total[0], x[0]);
        total[1] = fmax(total[1], x[1]);
        for (int q = 2; q < 7; q++) total[q] += x[q];
    }
    /* Families: sum of the ranks' squares, corrected where one continues
     * across ranks (its parts' squares out, its whole size's square in). */
    double squares = 0, largest = 0, id = families[4], size = families[5], parts = size * size;
    for (size_t r = 0; r < k_ranks; r++) {
        squares += families[6 * r];
        largest = fmax(largest, families[6 * r + 1]);
    }
    for (size_t r = 1; r < k_ranks; r++) { /* f: squares, largest, first ancestor and its size, last and its */
        const double *f = families + 6 * r;
        if (f[2] == id) { /* the family goes on here */
            size += f[3];
            parts += f[3] * f[3];
            if (f[2] == f[4]) continue; /* and fills this rank */
        }
        squares += size * size - parts;
        largest = fmax(largest, size);
        id = f[4], size = f[5], parts = size * size;
    }
    squares += size * size - parts;
    largest = fmax(largest, size);
    free(families);
    record[E_MIN] = total[0];
    record[E_MAX] = total[1];
    for (int q = 0; q < 5; q++) record[SUMS + q] = total[2 + q];
    record[FAMILY_SQUARES] = squares;
    record[LARGEST] = largest;
    /* Not waited for: records_host keeps it (the histogram's read-back follows). */
    CLMC_CL_TRY(clEnqueueWriteBuffer(queue, p->records, CL_FALSE, sizeof(double) * record_at(k, 0),
                                     sizeof(double) * (LARGEST + 1), record, 0, NULL, NULL));
    lap(p, LAP_RECORDS);
    return CLMC_OK;
}

/* MPI ranks: step k's energy histogram is read back without waiting
 * (histogram_ranks) and summed over the ranks at the next wait for the device
 * (histogram_flush: the weights' chunk sums of the next step, or before the
 * adaptive schedule, a checkpoint or the run's records need it), so that
 * every rank holds the run's (its overlap, the adaptive schedule); the
 * overlap with step k-1's follows there.  Exact counts. */
static size_t histogram_bins(const population *p, unsigned k)
{
    const double *record = p->records_host + record_at(k, 0);
    double width = floor(record[E_MAX]) - floor(record[E_MIN]) + 1; /* pa_bins */
    return width > HISTOGRAM_BINS ? 0 : (size_t)width;
}

static clmc_status histogram_ranks(clmc_ensemble *e, population *p, unsigned k)
{
    size_t bins = histogram_bins(p, k);
    p->histogram_pending = k;
    if (bins == 0) return CLMC_OK;
    CLMC_CL_TRY(clEnqueueReadBuffer(clmc_runtime_queue(e->rt), p->histogram_buf[k % 2], CL_FALSE, 0,
                                    sizeof(cl_uint) * bins, p->histogram_sum, 0, NULL, NULL));
    return CLMC_OK;
}

static clmc_status overlap(clmc_ensemble *e, population *p, unsigned k);

/* The pending histogram summed and written back, and its overlap enqueued;
 * the device has finished its read-back (a blocking call came between). */
static clmc_status histogram_flush(clmc_ensemble *e, population *p)
{
    if (p->histogram_pending < 0) return CLMC_OK;
    unsigned k = (unsigned)p->histogram_pending;
    size_t bins = histogram_bins(p, k);
    p->histogram_pending = -1;
    if (bins) {
        double started = clmc_runtime_clock();
        clmc_ranks_sum_uint32(p->histogram_sum, bins);
        p->mpi_seconds += clmc_runtime_clock() - started;
        /* Not waited for: histogram_sum stays until the next step's read-back
         * (enqueued after this write). */
        CLMC_CL_TRY(clEnqueueWriteBuffer(clmc_runtime_queue(e->rt), p->histogram_buf[k % 2], CL_FALSE, 0,
                                         sizeof(cl_uint) * bins, p->histogram_sum, 0, NULL, NULL));
    }
    return overlap(e, p, k);
}

/* The pending histogram flushed after a wait for the device (before the
 * adaptive schedule, a checkpoint or the run's records read it). */
static clmc_status histogram_settle(clmc_ensemble *e, population *p)
{
    if (p->histogram_pending < 0) return CLMC_OK;
    p->waits++;
    CLMC_CL_TRY(clFinish(clmc_runtime_queue(e->rt)));
    return histogram_flush(e, p);
}

/* The overlap of step k's histogram with step k-1's into step k's record
 * (pa_overlap, which then clears step k-1's for step k+1). */
static clmc_status overlap(clmc_ensemble *e, population *p, unsigned k)
{
    if (k == 0) return CLMC_OK;
    ARG(p->overlap, 0, cl_mem, p->histogram_buf[k % 2]);
    ARG(p->overlap, 1, cl_mem, p->histogram_buf[1 - k % 2]);
    ARG(p->overlap, 2, cl_mem, p->records);
    ARG(p->overlap, 3, cl_uint, (cl_uint)record_at(k, 0));
    ARG(p->overlap, 4, cl_uint, (cl_uint)record_at(k - 1, 0));
    ARG(p->overlap, 5, cl_ulong, (cl_ulong)record(p, k)->members);
    ARG(p->overlap, 6, cl_ulong, (cl_ulong)record(p, k - 1)->members);
    return clmc_enqueue(e->rt, p->overlap, 1, &p->group, &p->group, CLMC_UNTIMED);
}

/* The records of steps first .. last from their chunk statistics, one
 * work-group each (pa_step_records; one step, ring 1, in the separate
 * kernels). */
static clmc_status step_records(clmc_ensemble *e, population *p, unsigned first, unsigned last)
{
    size_t global = (size_t)(last + 1 - first) * p->group;
    ARG(p->step_record_kernel, 0, cl_mem, p->member_stats);
    ARG(p->step_record_kernel, 1, cl_uint, (cl_uint)chunks(p->local));
    ARG(p->step_record_kernel, 2, cl_uint, p->fused ? RECORD_RING : 1u);
    ARG(p->step_record_kernel, 3, cl_uint, first);
    ARG(p->step_record_kernel, 4, cl_mem, p->records);
    return clmc_enqueue(e->rt, p->step_record_kernel, 1, &global, &p->group, CLMC_UNTIMED);
}

/* The fused measurement: the chunks' energy ranges where the sweeps did
 * not fold them (pa_energy_range), then pa_member_weights: step k's
 * statistics, the record's energy range and histogram and, where a step
 * follows, its weights; the rest of the record waits in the ring of
 * statistics (records_due: pa_step_records makes RECORD_RING steps' records
 * at once), the overlap for the next step's pa_copy_sources (overlap_due). */
static clmc_status measure_fused(clmc_ensemble *e, population *p, cl_mem energy, cl_mem magnetisation, unsigned k,
                                 bool folded)
{
    if (!folded) {
        ARG(p->energy_range, 0, cl_mem, energy);
        ARG(p->energy_range, 1, cl_uint, p->local);
        ARG(p->energy_range, 2, cl_mem, p->chunk_range);
        CLMC_TRY(launch_chunks(e->rt, p->energy_range, chunks(p->local)));
    }
    cl_uint weigh = k + 1 < p->n_steps;
    cl_kernel kernel = p->member_weights;
    ARG(kernel, 0, cl_mem, energy);
    ARG(kernel, 1, cl_mem, magnetisation);
    ARG(kernel, 2, cl_mem, p->ancestor[p->current]);
    ARG(kernel, 3, cl_uint, p->local);
    ARG(kernel, 4, cl_mem, p->chunk_range);
    ARG(kernel, 5, cl_mem, p->member_stats);
    ARG(kernel, 6, cl_uint, (cl_uint)(k % RECORD_RING * STATS * chunks(p->local)));
    ARG(kernel, 7, cl_mem, p->records);
    ARG(kernel, 8, cl_uint, (cl_uint)record_at(k, 0));
    ARG(kernel, 9, cl_mem, p->histogram_buf[k % 2]);
    ARG(kernel, 10, cl_uint, weigh);
    ARG(kernel, 11, cl_double, weigh ? p->betas[k + 1] - p->betas[k] : 0.0);
    ARG(kernel, 12, cl_mem, p->cum);
    ARG(kernel, 13, cl_mem, p->chunk_d);
    CLMC_TRY(launch_chunks(e->rt, kernel, chunks(p->local)));
    p->weights_ready = weigh ? k + 1 : 0;
    p->overlap_due = k > 0 ? (long)k : -1;
    if (p->records_due < 0) p->records_due = (long)k;
    p->records_last = (long)k;
    if (k + 1 - (unsigned)p->records_due < RECORD_RING) return CLMC_OK;
    CLMC_TRY(step_records(e, p, (unsigned)p->records_due, k));
    p->records_due = -1;
    return CLMC_OK;
}

/* The records and overlap the fused launches left due (before a checkpoint
 * or the run's end). */
static clmc_status fused_settle(clmc_ensemble *e, population *p)
{
    if (p->records_due >= 0) CLMC_TRY(step_records(e, p, (unsigned)p->records_due, (unsigned)p->records_last));
    p->records_due = -1;
    if (p->overlap_due < 0) return CLMC_OK;
    unsigned k = (unsigned)p->overlap_due;
    p->overlap_due = -1;
    return overlap(e, p, k);
}

static clmc_status measure(clmc_ensemble *e, population *p, cl_mem energy, cl_mem magnetisation, unsigned k,
                           bool folded)
{
    step_record *r = record(p, k);
    r->beta = p->betas[k];
    r->members = p->n;
    if (p->fused) return measure_fused(e, p, energy, magnetisation, k, folded);
    size_t n_chunks = chunks(p->local);
    ARG(p->stats, 0, cl_mem, energy);
    ARG(p->stats, 1, cl_mem, magnetisation);
    ARG(p->stats, 2, cl_mem, p->ancestor[p->current]);
    ARG(p->stats, 3, cl_uint, p->local);
    ARG(p->stats, 4, cl_mem, p->member_stats);
    CLMC_TRY(launch_chunks(e->rt, p->stats, n_chunks));
    CLMC_TRY(step_records(e, p, k, k));
    if (p->ranks > 1) CLMC_TRY(measure_ranks(e, p, k));
    ARG(p->histogram, 0, cl_mem, energy);
    ARG(p->histogram, 1, cl_uint, p->local);
    ARG(p->histogram, 2, cl_mem, p->records);
    ARG(p->histogram, 3, cl_uint, (cl_uint)record_at(k, 0));
    ARG(p->histogram, 4, cl_mem, p->histogram_buf[k % 2]);
    size_t groups = chunks(p->local) < HISTOGRAM_GROUPS ? chunks(p->local) : HISTOGRAM_GROUPS;
    CLMC_TRY(launch_chunks(e->rt, p->histogram, groups));
    if (p->ranks > 1) return histogram_ranks(e, p, k);
    return overlap(e, p, k);
}

/* The run's step records from the device (once, at its end): the sums, the
 * overlaps, and ln Z(beta_k) = ln Z(beta_k-1) + ln Q - (beta_k - beta_k-1) E_min
 * with ln Q = ln(sum_i exp(-(beta_k - beta_k-1)(E_i - E_min)) / n), E_i and n
 * those of step k-1 (the sums as the steps made them, in the same order). */
static clmc_status read_records(clmc_ensemble *e, population *p)
{
    CLMC_TRY(read_back(e->rt, p->records, sizeof(double) * RECORD * p->n_steps, p->records_host));
    double ln_z = p->log_states;
    for (unsigned k = 0; k < p->n_steps; k++) {
        step_record *r = record(p, k);
        const double *d = p->records_host + record_at(k, 0);
        if (k > 0) {
            const double *before = p->records_host + record_at(k - 1, 0);
            double dbeta = p->betas[k] - p->betas[k - 1];
            ln_z += -dbeta * before[E_MIN] + log(d[WEIGHT_TOTAL] / record(p, k - 1)->members);
        }
        r->ln_z = ln_z;
        r->energy = d[SUMS];
        r->energy2 = d[SUMS + 1];
        r->abs_m = d[SUMS + 2];
        r->m2 = d[SUMS + 3];
        r->m4 = d[SUMS + 4];
        r->family_squares = d[FAMILY_SQUARES];
        r->largest_family = d[LARGEST];
        r->overlap = k == 0 || d[OVERLAP] < 0 ? NAN : d[OVERLAP] / (r->members * record(p, k - 1)->members);
    }
    p->ln_z = ln_z;
    return CLMC_OK;
}

/* Every member's chunk offset added (the prefix sums' last pass). */
static clmc_status add_offsets(clmc_ensemble *e, population *p, cl_kernel add, cl_mem values, cl_mem chunk_sums)
{
    ARG(add, 0, cl_mem, values);
    ARG(add, 1, cl_uint, p->local);
    ARG(add, 2, cl_mem, chunk_sums);
    return launch(e->rt, add, p->local);
}

/* The last two passes of a prefix sum in chunks of 256, after the first
 * pass left each chunk's sum in `chunk_sums`: one work-group scans the chunk
 * sums (their total into `total`), then every element gets its chunk's
 * offset.  Weights (double) and copy numbers (uint) each have their kernels. */
static clmc_status finish_prefix_sums(clmc_ensemble *e, population *p, cl_kernel scan, cl_kernel add, cl_mem values,
                                      cl_mem chunk_sums, cl_mem total, cl_uint total_at)
{
    ARG(scan, 0, cl_mem, chunk_sums);
    ARG(scan, 1, cl_uint, (cl_uint)chunks(p->local));
    ARG(scan, 2, cl_mem, total);
    if (total_at != (cl_uint)-1) ARG(scan, 3, cl_uint, total_at);
    CLMC_TRY(clmc_enqueue(e->rt, scan, 1, &p->group, &p->group, CLMC_UNTIMED));
    return add ? add_offsets(e, p, add, values, chunk_sums) : CLMC_OK;
}

/* In one process, systematic and nearest_integer copy numbers come from the
 * weights' chunk running sums and offsets in the launch that also sums them
 * in chunks (pa_copy_prefix), so the weights get no offsets added. */
static bool copies_fused(const population *p)
{
    return p->ranks == 1 && p->resampling != 1;
}

/* The exclusive scan of n chunk totals t in place, in the order
 * pa_scan_chunks_double takes with work-groups of `size`; returns the total
 * it leaves (bit for bit the device's, with IEEE double additions). */
static double scan_chunks(double *t, size_t n, size_t size)
{
    double part[256], total = 0;
    for (size_t id = 0; id < size; id++) {
        size_t first, last;
        block_of(n, id, size, &first, &last);
        double sum = 0;
        for (size_t c = first; c < last; c++) sum += t[c];
        part[id] = sum;
    }
    for (size_t d = 1; d < size; d *= 2) /* pa_scan_group_double: x[i] += x[i - d], i from the top */
        for (size_t id = size; id-- > d;) part[id] += part[id - d];
    for (size_t id = size; id-- > 0;) part[id] = id ? part[id - 1] : 0.0;
    for (size_t id = 0; id < size; id++) {
        size_t first, last;
        block_of(n, id, size, &first, &last);
        double offset = part[id];
        for (size_t c = first; c < last; c++) {
            double x = t[c];
            t[c] = offset;
            offset += x;
        }
        if (first < last && last == n) total = offset;
    }
    return total;
}

/* MPI ranks: the weights' chunk totals of every rank gathered and scanned on
 * the host as one device would scan them (the chunks are the run's: the
 * shares start at multiples of 256), this rank's offsets and the run's total
 * written back; *cum_before: the run's cumulative weight before this rank's
 * first member, as the device would hold it (offset + total of the chunk
 * before). */
static clmc_status weigh_ranks(clmc_ensemble *e, population *p, unsigned k, double *cum_before)
{
    cl_command_queue queue = clmc_runtime_queue(e->rt);
    size_t local_chunks = chunks(p->local), all_chunks = chunks(p->n), c0 = p->first / CHUNK;
    p->waits++;
    CLMC_CL_TRY(clEnqueueReadBuffer(queue, p->chunk_d, CL_TRUE, 0, sizeof(double) * local_chunks, p->chunk_host, 0,
                                    NULL, NULL));
    lap(p, LAP_WEIGHTS_WAIT);
    CLMC_TRY(histogram_flush(e, p)); /* the last step's histogram came back with this wait */
    size_t *counts = malloc((size_t)p->ranks * sizeof *counts);
    if (!counts) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    chunk_counts(p, 1, counts);
    double started = clmc_runtime_clock();
    clmc_status status = clmc_ranks_allgatherv(p->chunk_host, p->chunk_all, counts);
    p->mpi_seconds += clmc_runtime_clock() - started;
    free(counts);
    CLMC_TRY(status);
    double before = c0 ? p->chunk_all[c0 - 1] : 0;
    double *total = p->records_host + record_at(k, WEIGHT_TOTAL);
    *total = scan_chunks(p->chunk_all, all_chunks, p->group);
    *cum_before = c0 ? p->chunk_all[c0 - 1] + before : 0.0;
    /* Not waited for: the host copies stay until the copy totals' read-back. */
    CLMC_CL_TRY(clEnqueueWriteBuffer(queue, p->chunk_d, CL_FALSE, 0, sizeof(double) * local_chunks,
                                     p->chunk_all + c0, 0, NULL, NULL));
    CLMC_CL_TRY(clEnqueueWriteBuffer(queue, p->records, CL_FALSE, sizeof(double) * record_at(k, WEIGHT_TOTAL),
                                     sizeof(double), total, 0, NULL, NULL));
    CLMC_TRY(add_offsets(e, p, p->add_d, p->cum, p->chunk_d));
    lap(p, LAP_WEIGHTS);
    return CLMC_OK;
}

/* The weights exp(-(beta_k - beta_k-1)(E_i - E_min)) of the members at
 * step k (E_min from step k-1's record), each chunk's running sums and
 * total (pa_weights). */
static clmc_status weights(clmc_ensemble *e, population *p, cl_mem energy, unsigned k)
{
    ARG(p->weights, 0, cl_mem, energy);
    ARG(p->weights, 1, cl_uint, p->local);
    ARG(p->weights, 2, cl_double, p->betas[k] - p->betas[k - 1]);
    ARG(p->weights, 3, cl_mem, p->records);
    ARG(p->weights, 4, cl_uint, (cl_uint)record_at(k - 1, E_MIN));
    ARG(p->weights, 5, cl_mem, p->cum);
    ARG(p->weights, 6, cl_mem, p->chunk_d);
    return launch_chunks(e->rt, p->weights, chunks(p->local));
}

/* Cumulative weights of the members at step k and their sum into step k's record. */
static clmc_status weigh(clmc_ensemble *e, population *p, cl_mem energy, unsigned k, double *cum_before)
{
    CLMC_TRY(weights(e, p, energy, k));
    *cum_before = 0;
    if (p->ranks > 1) return weigh_ranks(e, p, k, cum_before);
    return finish_prefix_sums(e, p, p->scan_d, copies_fused(p) ? NULL : p->add_d, p->cum, p->chunk_d, p->records,
                              (cl_uint)record_at(k, WEIGHT_TOTAL));
}

/* MPI ranks, systematic resampling: the copies of the members before this
 * rank's first, computed on the host as pa_copy_numbers computes them.  Their
 * sum telescopes: sum_i<first floor(x_i + u) - floor(x_i-1 + u) = floor(x + u)
 * - floor(u) with x = target cum_before / total (the same IEEE operations as
 * the device's, so the same bits) and floor(u) = 0; the run's total is
 * target (x = target at the last member, cum = total bit for bit).  So no
 * rank reads its copy total back nor gathers the others'. */
static cl_uint systematic_base(const population *p, unsigned step, double cum_before)
{
    clmc_philox_key key = {{p->seed_lo, p->seed_hi}};
    clmc_philox_ctr r = clmc_random4(key, 0, step, p->first_run + p->run, CLMC_STREAM(CLMC_PURPOSE_RESAMPLE, 0u));
    double u = ((double)(r.v[0] >> 5) * 67108864.0 + (double)(r.v[1] >> 6)) * 0x1.0p-53; /* uniform53 */
    double total = p->records_host[record_at(step, WEIGHT_TOTAL)];
    return (cl_uint)floor(cum_before / total * (double)p->target + u);
}

/* The arguments pa_copy_numbers, pa_copy_prefix and pa_copy_sources share (0 .. 7). */
static clmc_status copy_number_arguments(const population *p, cl_kernel kernel, unsigned step)
{
    ARG(kernel, 0, cl_mem, p->cum);
    ARG(kernel, 1, cl_uint, p->local);
    ARG(kernel, 2, cl_uint, p->target);
    ARG(kernel, 3, cl_uint, p->resampling);
    ARG(kernel, 4, cl_uint, p->seed_lo);
    ARG(kernel, 5, cl_uint, p->seed_hi);
    ARG(kernel, 6, cl_uint, step);
    ARG(kernel, 7, cl_uint, p->first_run + p->run);
    return CLMC_OK;
}

/* Copy numbers by the scheme, then their prefix sums; the new size: R for
 * systematic and multinomial (their copy numbers add up to R), read back for
 * nearest_integer (the one wait for the device in a step).  Under MPI ranks
 * each rank's total is read back and gathered: *base, the copies of the
 * ranks before this one, and the run's new size. */
static clmc_status copy_numbers(clmc_ensemble *e, population *p, unsigned step, double cum_before, cl_uint *n_new,
                                cl_uint *base)
{
    cl_uint total_at = (cl_uint)record_at(step, WEIGHT_TOTAL);
    if (p->resampling == 1) {
        CLMC_TRY(zero(e->rt, p->copies, sizeof(cl_uint) * p->local));
        ARG(p->multinomial, 0, cl_mem, p->cum);
        ARG(p->multinomial, 1, cl_uint, p->local);
        ARG(p->multinomial, 2, cl_uint, p->target);
        ARG(p->multinomial, 3, cl_uint, p->seed_lo);
        ARG(p->multinomial, 4, cl_uint, p->seed_hi);
        ARG(p->multinomial, 5, cl_uint, step);
        ARG(p->multinomial, 6, cl_uint, p->first_run + p->run);
        ARG(p->multinomial, 7, cl_mem, p->copies);
        ARG(p->multinomial, 8, cl_double, cum_before);
        ARG(p->multinomial, 9, cl_uint, p->rank + 1 == p->ranks);
        ARG(p->multinomial, 10, cl_mem, p->records);
        ARG(p->multinomial, 11, cl_uint, total_at);
        CLMC_TRY(launch(e->rt, p->multinomial, p->target));
    } else if (copies_fused(p)) {
        CLMC_TRY(copy_number_arguments(p, p->copy_prefix, step));
        ARG(p->copy_prefix, 8, cl_mem, p->chunk_d);
        ARG(p->copy_prefix, 9, cl_mem, p->records);
        ARG(p->copy_prefix, 10, cl_uint, total_at);
        ARG(p->copy_prefix, 11, cl_mem, p->copies);
        ARG(p->copy_prefix, 12, cl_mem, p->prefix_buf);
        ARG(p->copy_prefix, 13, cl_mem, p->chunk_u);
        CLMC_TRY(launch_chunks(e->rt, p->copy_prefix, chunks(p->local)));
    } else {
        CLMC_TRY(copy_number_arguments(p, p->copy_numbers, step));
        ARG(p->copy_numbers, 8, cl_mem, p->copies);
        ARG(p->copy_numbers, 9, cl_uint, p->first);
        ARG(p->copy_numbers, 10, cl_double, cum_before);
        ARG(p->copy_numbers, 11, cl_mem, p->records);
        ARG(p->copy_numbers, 12, cl_uint, total_at);
        CLMC_TRY(launch(e->rt, p->copy_numbers, p->local));
    }
    if (!copies_fused(p)) {
        ARG(p->prefix, 0, cl_mem, p->copies);
        ARG(p->prefix, 1, cl_uint, p->local);
        ARG(p->prefix, 2, cl_mem, p->prefix_buf);
        ARG(p->prefix, 3, cl_mem, p->chunk_u);
        CLMC_TRY(launch_chunks(e->rt, p->prefix, chunks(p->local)));
    }
    /* In one process pa_sources_own adds the chunk offsets as it searches. */
    CLMC_TRY(finish_prefix_sums(e, p, p->scan_u, p->ranks > 1 ? p->add_u : NULL, p->prefix_buf, p->chunk_u,
                                p->total_u, (cl_uint)-1));
    *base = 0;
    if (p->ranks == 1 && p->resampling != 2) {
        *n_new = p->target;
        return CLMC_OK;
    }
    if (p->resampling == 0) { /* systematic under ranks: no wait (below) */
        *n_new = p->target;
        *base = systematic_base(p, step, cum_before);
        return CLMC_OK;
    }
    p->waits++;
    CLMC_TRY(read_back(e->rt, p->total_u, sizeof(cl_uint), n_new));
    if (p->ranks == 1) return CLMC_OK;
    uint64_t mine = *n_new, *all = calloc((size_t)p->ranks, sizeof *all);
    size_t *counts = calloc((size_t)p->ranks, sizeof *counts);
    clmc_status status = all && counts ? CLMC_OK : clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    for (int r = 0; status == CLMC_OK && r < p->ranks; r++) counts[r] = sizeof mine;
    double started = clmc_runtime_clock();
    if (status == CLMC_OK) status = clmc_ranks_allgatherv(&mine, all, counts);
    p->mpi_seconds += clmc_runtime_clock() - started;
    uint64_t sum = 0;
    for (int r = 0; status == CLMC_OK && r < p->ranks; r++) {
        if (r == p->rank) *base = (cl_uint)sum;
        sum += all[r];
    }
    *n_new = (cl_uint)sum;
    free(all);
    free(counts);
    return status;
}

/* The fused resampling (pa_copy_sources, systematic): the weights where the
 * last measurement did not leave them (a resumed run), the weights' scan,
 * the copy numbers, every new slot's source and ancestor, and the overlap
 * due. */
static clmc_status copy_sources_fused(clmc_ensemble *e, population *p, cl_mem energy, unsigned step)
{
    if (p->weights_ready != step) CLMC_TRY(weights(e, p, energy, step));
    p->weights_ready = 0;
    unsigned k = step - 1; /* the step measured last, whose overlap may be due */
    bool due = p->overlap_due == (long)k;
    cl_kernel kernel = p->copy_sources;
    CLMC_TRY(copy_number_arguments(p, kernel, step));
    ARG(kernel, 8, cl_mem, p->chunk_d);
    ARG(kernel, 9, cl_mem, p->records);
    ARG(kernel, 10, cl_uint, (cl_uint)record_at(step, WEIGHT_TOTAL));
    ARG(kernel, 11, cl_mem, p->source);
    ARG(kernel, 12, cl_mem, p->ancestor[p->current]);
    ARG(kernel, 13, cl_mem, p->ancestor[1 - p->current]);
    ARG(kernel, 14, cl_uint, due);
    ARG(kernel, 15, cl_mem, p->histogram_buf[k % 2]);
    ARG(kernel, 16, cl_mem, p->histogram_buf[1 - k % 2]);
    ARG(kernel, 17, cl_uint, (cl_uint)record_at(k, 0));
    ARG(kernel, 18, cl_uint, (cl_uint)record_at(due ? k - 1 : k, 0));
    ARG(kernel, 19, cl_ulong, (cl_ulong)record(p, k)->members);
    ARG(kernel, 20, cl_ulong, (cl_ulong)record(p, due ? k - 1 : k)->members);
    ARG(kernel, 21, cl_mem, p->chunk_range);
    p->overlap_due = -1;
    return launch_chunks(e->rt, kernel, chunks(p->local) + 1); /* the last group: the overlap */
}

/* to[j] = the window's member source[j] for the new members, `words` words
 * each (pa_gather: own members from `from`, others' from `received`). */
static clmc_status gather(clmc_ensemble *e, population *p, cl_mem from, cl_mem received, cl_mem to, cl_uint words,
                          cl_uint n_new, cl_uint n_lower)
{
    /* Members of whole 16-byte quads whose indices fit 32 bits: pa_gather4. */
    bool quads = words % 4 == 0 && (uint64_t)(words / 4) * n_new < ((uint64_t)1 << 32);
    cl_kernel kernel = quads ? p->gather4 : p->gather;
    cl_uint units = quads ? words / 4 : words;
    ARG(kernel, 0, cl_mem, from);
    ARG(kernel, 1, cl_mem, to);
    ARG(kernel, 2, cl_uint, units);
    ARG(kernel, 3, cl_mem, p->source);
    ARG(kernel, 4, cl_uint, n_new);
    ARG(kernel, 5, cl_mem, received);
    ARG(kernel, 6, cl_uint, n_lower);
    ARG(kernel, 7, cl_uint, p->local);
    return launch(e->rt, kernel, (size_t)units * n_new);
}

/* Writes `bytes` from host memory into `buffer` at `offset`, or reads them;
 * not waited for (the caller finishes the queue before the host memory
 * changes or is read). */
static clmc_status upload(clmc_runtime *rt, cl_mem buffer, size_t offset, size_t bytes, const void *host)
{
    if (bytes == 0) return CLMC_OK;
    CLMC_CL_TRY(clEnqueueWriteBuffer(clmc_runtime_queue(rt), buffer, CL_FALSE, offset, bytes, host, 0, NULL, NULL));
    return CLMC_OK;
}

static clmc_status fetch(clmc_runtime *rt, cl_mem buffer, size_t offset, size_t bytes, void *host)
{
    if (bytes == 0) return CLMC_OK;
    CLMC_CL_TRY(clEnqueueReadBuffer(clmc_runtime_queue(rt), buffer, CL_FALSE, offset, bytes, host, 0, NULL, NULL));
    return CLMC_OK;
}

static clmc_status finish(clmc_runtime *rt)
{
    CLMC_CL_TRY(clFinish(clmc_runtime_queue(rt)));
    return CLMC_OK;
}

/* MPI ranks: the old members whose copies belong to other ranks' new shares
 * travel there.  Rank s's new members are the run's [starts[s], starts[s+1])
 * (the last rank's to n_new); this rank's members i with copies in that
 * range (pa_share_ranges; those with none are left out) go to s as records
 * (the run's inclusive prefix sum of copies, the ancestor, the member's
 * bytes), all ranks' at once (MPI_Alltoallv, staged through host memory).
 * The received members are uploaded (those from lower ranks first, then the
 * higher), and the window of pa_sources is laid out in the run's order:
 * the lower ranks' prefix sums, this rank's own (all its old members), the
 * higher ranks'. */
static clmc_status exchange(clmc_ensemble *e, population *p, cl_mem members, cl_uint base, cl_uint n_new,
                            cl_uint *n_window, cl_uint *n_lower)
{
    size_t k = (size_t)p->ranks, bytes = p->member_bytes, record = 2 * sizeof(cl_uint) + bytes;
    cl_uint *bounds = malloc(4 * k * sizeof *bounds), *ranges = bounds + 2 * k;
    size_t *counts = malloc(2 * k * sizeof *counts), *received = counts + k;
    if (!bounds || !counts) {
        free(bounds), free(counts);
        return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    }
    for (size_t r = 0; r < k; r++) {
        bounds[2 * r] = p->starts[r];
        bounds[2 * r + 1] = r + 1 < k ? p->starts[r + 1] : n_new;
    }
    clmc_status status = upload(e->rt, p->bounds, 0, 2 * k * sizeof *bounds, bounds);
    ARG(p->share_ranges, 0, cl_mem, p->prefix_buf);
    ARG(p->share_ranges, 1, cl_uint, p->local);
    ARG(p->share_ranges, 2, cl_uint, base);
    ARG(p->share_ranges, 3, cl_mem, p->bounds);
    ARG(p->share_ranges, 4, cl_uint, (cl_uint)k);
    ARG(p->share_ranges, 5, cl_mem, p->ranges);
    if (status == CLMC_OK) status = launch(e->rt, p->share_ranges, k);
    if (status == CLMC_OK) status = fetch(e->rt, p->ranges, 0, 2 * k * sizeof *ranges, ranges);
    p->waits++;
    if (status == CLMC_OK) status = finish(e->rt);
    lap(p, LAP_RANGES_WAIT);
    /* Outgoing records, peer by peer, after the slices read back (copies,
     * prefix sums, ancestors, members of each peer's range). */
    size_t slice_total = 0, outgoing = 0;
    for (size_t r = 0; r < k; r++)
        if (r != (size_t)p->rank) slice_total += ranges[2 * r + 1] - ranges[2 * r];
    size_t slice_bytes = slice_total * (3 * sizeof(cl_uint) + bytes);
    if (status == CLMC_OK) status = clmc_pinned_reserve(e->rt, &p->staging, 2 * slice_bytes + 1);
    unsigned char *staging = p->staging.host, *out = staging + slice_bytes; /* records built behind the slices */
    size_t at = 0;
    for (size_t r = 0; status == CLMC_OK && r < k; r++) {
        counts[r] = 0;
        size_t lo = ranges[2 * r], n = ranges[2 * r + 1] - lo;
        if (r == (size_t)p->rank || n == 0) continue;
        cl_uint *copies = (cl_uint *)(staging + at), *prefix = copies + n, *ancestors = prefix + n;
        unsigned char *data = (unsigned char *)(ancestors + n);
        at += n * (3 * sizeof(cl_uint) + bytes);
        status = fetch(e->rt, p->copies, lo * sizeof(cl_uint), n * sizeof(cl_uint), copies);
        if (status == CLMC_OK) status = fetch(e->rt, p->prefix_buf, lo * sizeof(cl_uint), n * sizeof(cl_uint), prefix);
        if (status == CLMC_OK)
            status = fetch(e->rt, p->ancestor[p->current], lo * sizeof(cl_uint), n * sizeof(cl_uint), ancestors);
        if (status == CLMC_OK) status = fetch(e->rt, members, lo * bytes, n * bytes, data);
    }
    p->waits++;
    if (status == CLMC_OK) status = finish(e->rt); /* every peer's slices, read back at once */
    lap(p, LAP_SLICES_WAIT);
    at = 0;
    for (size_t r = 0; status == CLMC_OK && r < k; r++) {
        size_t lo = ranges[2 * r], n = ranges[2 * r + 1] - lo;
        if (r == (size_t)p->rank || n == 0) continue;
        cl_uint *copies = (cl_uint *)(staging + at), *prefix = copies + n, *ancestors = prefix + n;
        unsigned char *data = (unsigned char *)(ancestors + n);
        at += n * (3 * sizeof(cl_uint) + bytes);
        for (size_t i = 0; i < n; i++) {
            if (copies[i] == 0) continue;
            cl_uint head[2] = {base + prefix[i], ancestors[i]};
            memcpy(out + outgoing, head, sizeof head);
            memcpy(out + outgoing + sizeof head, data + i * bytes, bytes);
            outgoing += record;
            counts[r] += record;
        }
    }
    p->sent_bytes += outgoing;
    p->sent_members += outgoing / record;
    lap(p, LAP_PACK);
    double started = clmc_runtime_clock();
    if (status == CLMC_OK) status = clmc_ranks_alltoall_counts(counts, received);
    size_t incoming = 0;
    for (size_t r = 0; r < k; r++) incoming += received[r];
    unsigned char *in = NULL;
    if (status == CLMC_OK) {
        in = malloc(incoming + 1);
        if (!in) status = clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    }
    if (status == CLMC_OK) status = clmc_ranks_alltoallv(out, counts, in, received);
    p->mpi_seconds += clmc_runtime_clock() - started;
    lap(p, LAP_MPI_EXCHANGE);
    /* Unpacked in rank order: [lower ranks' members][higher ranks'], with
     * their prefix sums and ancestors. */
    size_t n_in = incoming / record, lower = 0;
    for (size_t r = 0; r < (size_t)p->rank; r++) lower += received[r] / record;
    if (n_in > p->capacity && status == CLMC_OK)
        status = clmc_fail(CLMC_ERR_OTHER, "population annealing: rank %d received %zu members, room for %u", p->rank,
                           n_in, p->capacity);
    /* Kept until the next exchange (its first wait comes before they change
     * again), so the uploads are not waited for here. */
    if (status == CLMC_OK && n_in > p->in_room) {
        cl_uint *grown_heads = realloc(p->in_heads, 2 * (n_in + 1) * sizeof *grown_heads);
        if (grown_heads) p->in_heads = grown_heads;
        status = grown_heads ? clmc_pinned_reserve(e->rt, &p->in_data, n_in * bytes + 1)
                             : clmc_fail(CLMC_ERR_OTHER, "out of host memory");
        if (status == CLMC_OK) p->in_room = n_in;
    }
    cl_uint *heads = p->in_heads;
    unsigned char *data = p->in_data.host;
    for (size_t i = 0; status == CLMC_OK && i < n_in; i++) {
        memcpy(&heads[i], in + i * record, sizeof(cl_uint));                          /* prefix sums */
        memcpy(&heads[n_in + i], in + i * record + sizeof(cl_uint), sizeof(cl_uint)); /* ancestors */
        memcpy(data + i * bytes, in + i * record + 2 * sizeof(cl_uint), bytes);
    }
    if (status == CLMC_OK) status = upload(e->rt, p->received, 0, n_in * bytes, data);
    if (status == CLMC_OK) status = upload(e->rt, p->received_ancestor, 0, n_in * sizeof(cl_uint), heads + n_in);
    if (status == CLMC_OK) status = upload(e->rt, p->window, 0, lower * sizeof(cl_uint), heads);
    ARG(p->window_prefix, 0, cl_mem, p->prefix_buf);
    ARG(p->window_prefix, 1, cl_uint, p->local);
    ARG(p->window_prefix, 2, cl_uint, base);
    ARG(p->window_prefix, 3, cl_mem, p->window);
    ARG(p->window_prefix, 4, cl_uint, (cl_uint)lower);
    if (status == CLMC_OK) status = launch(e->rt, p->window_prefix, p->local);
    if (status == CLMC_OK)
        status = upload(e->rt, p->window, (lower + p->local) * sizeof(cl_uint), (n_in - lower) * sizeof(cl_uint),
                        heads + lower);
    *n_window = (cl_uint)(n_in + p->local);
    *n_lower = (cl_uint)lower;
    lap(p, LAP_UPLOAD);
    free(in);
    free(bounds);
    free(counts);
    return status;
}

/* The new members' ancestors, after their configurations (in one process
 * pa_sources_own wrote them): the population is n_new, local_new of them
 * here. */
static clmc_status new_ancestors(clmc_ensemble *e, population *p, cl_mem received_ancestor, cl_uint local_new,
                                 cl_uint n_new, cl_uint n_lower)
{
    if (p->ranks > 1)
        CLMC_TRY(gather(e, p, p->ancestor[p->current], received_ancestor, p->ancestor[1 - p->current], 1, local_new,
                        n_lower));
    p->current = 1 - p->current;
    p->n = n_new;
    p->local = local_new;
    return CLMC_OK;
}

/* From beta to beta' = betas[step]: weights, copy numbers, and the new
 * population (configurations and ancestors) written in place.  Under MPI
 * ranks the members whose copies land on another rank travel (exchange). */
static clmc_status resample(clmc_ensemble *e, population *p, cl_mem energy, unsigned step)
{
    double cum_before = 0;
    cl_uint n_new = p->target, base = 0;
    if (p->fused) {
        CLMC_TRY(copy_sources_fused(e, p, energy, step));
    } else {
        CLMC_TRY(weigh(e, p, energy, step, &cum_before));
        CLMC_TRY(copy_numbers(e, p, step, cum_before, &n_new, &base));
    }
    lap(p, LAP_COPIES);
    size_t last = rank_members(p, p->ranks - 1, n_new);
    if (n_new == 0 || last == 0 || last > p->slots[p->ranks - 1]) {
        if (p->ranks == 1)
            return clmc_fail(CLMC_ERR_OTHER, "ensemble.resampling: %u copies at beta %g, room for %u; the population "
                             "cannot go on", n_new, p->betas[step], p->capacity);
        return clmc_fail(CLMC_ERR_OTHER, "ensemble.resampling: %u copies at beta %g leave the last of %d MPI ranks "
                         "%zu members, room for 1 to %u; the population cannot go on", n_new, p->betas[step],
                         p->ranks, last, p->slots[p->ranks - 1]);
    }
    cl_uint local_new = (cl_uint)rank_members(p, p->rank, n_new);
    cl_mem members;
    size_t member_bytes;
    CLMC_TRY(e->ops->ensemble->members_buffer(e->state, &members, &member_bytes));
    cl_mem window = p->prefix_buf, received = members, received_ancestor = p->ancestor[p->current];
    cl_uint n_window = p->local, n_lower = 0;
    if (p->ranks > 1) {
        CLMC_TRY(exchange(e, p, members, base, n_new, &n_window, &n_lower));
        window = p->window, received = p->received, received_ancestor = p->received_ancestor;
    }
    if (p->ranks > 1) {
        ARG(p->sources, 0, cl_mem, window);
        ARG(p->sources, 1, cl_uint, n_window);
        ARG(p->sources, 2, cl_uint, local_new);
        ARG(p->sources, 3, cl_mem, p->source);
        ARG(p->sources, 4, cl_uint, p->first);
        CLMC_TRY(launch(e->rt, p->sources, local_new));
    } else if (!p->fused) { /* the sources and the new ancestors, from the chunks' prefix sums and offsets
                              (the fused launch made them) */
        ARG(p->sources_own, 0, cl_mem, p->prefix_buf);
        ARG(p->sources_own, 1, cl_mem, p->chunk_u);
        ARG(p->sources_own, 2, cl_uint, p->local);
        ARG(p->sources_own, 3, cl_uint, local_new);
        ARG(p->sources_own, 4, cl_mem, p->source);
        ARG(p->sources_own, 5, cl_mem, p->ancestor[p->current]);
        ARG(p->sources_own, 6, cl_mem, p->ancestor[1 - p->current]);
        CLMC_TRY(launch(e->rt, p->sources_own, local_new));
    }
    /* In one process the model may take the gather into the step's sweeps
     * (gather_in_sweeps: the Ising and EA resident updates), which follow at
     * once. */
    if (p->ranks == 1 && e->ops->ensemble->gather_in_sweeps && e->ops->sweeps && p->theta > 0) {
        cl_mem swapped = p->scratch;
        CLMC_TRY(e->ops->ensemble->gather_in_sweeps(e->state, &swapped, p->source, local_new));
        if (swapped != p->scratch) {
            p->scratch = swapped;
            return new_ancestors(e, p, received_ancestor, local_new, n_new, n_lower);
        }
    }
    size_t new_bytes = member_bytes * local_new;
    if (p->lanes.lanes) { /* packed members: a bit gather of every group (lanes past the population zeroed) */
        CLMC_TRY(clmc_population_lanes_gather(e->rt, &p->lanes, members, p->scratch, p->source, local_new));
        new_bytes = clmc_population_lanes_bytes(&p->lanes);
    } else {
        CLMC_TRY(gather(e, p, members, received, p->scratch, (cl_uint)(member_bytes / 4), local_new, n_lower));
    }
    /* Ping-pong: the gathered members become the model's buffer and its old
     * one the next step's scratch; a model that cannot swap gets them copied. */
    cl_mem gathered = p->scratch, swapped = gathered;
    if (e->ops->ensemble->swap_members) CLMC_TRY(e->ops->ensemble->swap_members(e->state, &swapped));
    /* slots past the new members (nearest_integer; packed lanes are gathered whole) */
    size_t tail = p->lanes.lanes ? 0 : (size_t)(p->capacity - local_new) * member_bytes;
    if (swapped != gathered) { /* they keep what they held, as when copied back */
        p->scratch = swapped;
        if (tail)
            CLMC_CL_TRY(clEnqueueCopyBuffer(clmc_runtime_queue(e->rt), swapped, gathered, new_bytes, new_bytes, tail, 0,
                                            NULL, NULL));
    } else
        CLMC_CL_TRY(clEnqueueCopyBuffer(clmc_runtime_queue(e->rt), gathered, members, 0, 0, new_bytes, 0, NULL, NULL));
    return new_ancestors(e, p, received_ancestor, local_new, n_new, n_lower);
}

/* The model's set_betas may write its tables from host memory without
 * waiting (Ising's thresholds): the previous write must be done before the
 * host tables change again, so a marker after each write is waited for
 * before the next (by then long done: the host runs about a step ahead). */
static clmc_status set_beta(clmc_ensemble *e, population *p, double beta)
{
    if (p->beta_written) {
        cl_int err = clWaitForEvents(1, &p->beta_written);
        CLMC_CL_WARN(clReleaseEvent(p->beta_written));
        p->beta_written = NULL;
        CLMC_CL_CHECK(err, "clWaitForEvents(set_betas)");
    }
    if (e->ops->ensemble->set_beta_all) {
        CLMC_TRY(e->ops->ensemble->set_beta_all(e->state, beta));
    } else {
        for (unsigned i = 0; i < p->capacity; i++) p->betas_host[i] = beta;
        CLMC_TRY(e->ops->ensemble->set_betas(e->state, p->betas_host, p->temperature_host));
    }
    /* no marker where nothing was written (it cost the device 1.5 us a step
     * of idling before the sweeps, EA msc on an H200) */
    if (e->ops->ensemble->beta_in_arguments && e->ops->ensemble->beta_in_arguments(e->state)) return CLMC_OK;
    CLMC_CL_TRY(clEnqueueMarkerWithWaitList(clmc_runtime_queue(e->rt), 0, NULL, &p->beta_written));
    return CLMC_OK;
}

static clmc_status anneal(clmc_ensemble *e, population *p, unsigned first, cl_mem *energy_out,
                          cl_mem *magnetisation_out);

/* ensemble.runs independent anneals one after the other: run r starts from
 * the model's random start for run r, and its sweeps continue the count. */
/* MPI ranks, at the run's start (collective; every rank gets here after the
 * engine's agreement that all opened): every rank's member slots, one
 * work-group size for the host's sums (the smallest), the host's room for
 * every rank's chunk sums. */
static clmc_status ranks_setup(population *p)
{
    uint64_t *all = calloc(2 * (size_t)p->ranks, sizeof *all), mine[2] = {p->capacity, 256 - p->group};
    size_t *counts = calloc((size_t)p->ranks, sizeof *counts);
    clmc_status status = all && counts ? CLMC_OK : clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    for (int r = 0; r < p->ranks; r++) counts[r] = sizeof mine;
    if (status == CLMC_OK) status = clmc_ranks_allgatherv(mine, all, counts);
    uint64_t unused = 0;
    for (int r = 0; status == CLMC_OK && r < p->ranks; r++) {
        p->slots[r] = (unsigned)all[2 * r];
        if (all[2 * r + 1] > unused) unused = all[2 * r + 1];
    }
    free(all);
    free(counts);
    CLMC_TRY(status);
    p->group = 256 - (size_t)unused;
    if (p->starts[p->rank] != p->first)
        return clmc_fail(CLMC_ERR_OTHER, "population annealing: rank %d holds members from %u, its share from %u",
                         p->rank, p->first, p->starts[p->rank]);
    size_t all_chunks = chunks((size_t)p->starts[p->ranks - 1] + p->slots[p->ranks - 1]);
    p->chunk_all = malloc(sizeof(double) * all_chunks);
    p->stats_all = malloc(sizeof(double) * STATS * all_chunks);
    if (!p->chunk_all || !p->stats_all) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    return CLMC_OK;
}

static clmc_status pa_run(clmc_ensemble *e)
{
    population *p = e->kind_state;
    cl_mem energy = NULL, magnetisation = NULL;
    if (p->ranks > 1) CLMC_TRY(ranks_setup(p));
    if (clmc_runtime_profiling(e->rt)) { /* programs the first measurement builds are not counted */
        CLMC_TRY(e->ops->ensemble->member_observables(e->state, &energy, &magnetisation));
        CLMC_CL_TRY(clFinish(clmc_runtime_queue(e->rt)));
    }
    double started = clmc_runtime_clock(), between_before = 0, between_after = 0;
    CLMC_TRY(clmc_runtime_profile_between(e->rt, &between_before));
    for (p->run = p->resumed ? p->run : 0; p->run < p->runs; p->run++) {
        unsigned first = 0;
        if (p->resumed) { /* the members' energies at the last step, for its weights */
            if (p->ranks > 1) { /* every rank's checkpoint from the same step boundary */
                uint64_t at[2] = {(uint64_t)p->run << 32 | p->first_step, ~((uint64_t)p->run << 32 | p->first_step)};
                clmc_ranks_max(at, 2);
                if (at[0] != ~at[1])
                    return clmc_fail(CLMC_ERR_INPUT, "checkpoint: the MPI ranks' checkpoints were written at "
                                     "different temperature steps (one rank stopped while writing); the run cannot "
                                     "be resumed from them");
            }
            CLMC_TRY(e->ops->ensemble->member_observables(e->state, &energy, &magnetisation));
            first = p->first_step;
            p->resumed = false;
        } else {
            unsigned run = p->first_run + p->run; /* the run-wide index */
            if (run > 0) CLMC_TRY(e->ops->ensemble->fresh_start(e->state, run));
            CLMC_TRY(begin_run(p, e->rt));
        }
        CLMC_TRY(anneal(e, p, first, &energy, &magnetisation));
        CLMC_TRY(read_records(e, p));
    }
    CLMC_TRY(clmc_runtime_profile_between(e->rt, &between_after));
    p->outside_ns = between_after - between_before;
    p->wall_seconds = clmc_runtime_clock() - started;
    if (clmc_runtime_profiling(e->rt))
        fprintf(stderr, "clmc profile: population annealing: %.6f s wall, %.6f s device outside the sweeps "
                "(resampling, temperature change, measurement, launch gaps): %.2f%% of the wall time; %llu host "
                "waits for the device in %llu steps\n", p->wall_seconds, p->outside_ns * 1e-9,
                100 * p->outside_ns * 1e-9 / p->wall_seconds, (unsigned long long)p->waits,
                (unsigned long long)p->steps_done);
    if (clmc_runtime_profiling(e->rt) && p->ranks > 1)
        fprintf(stderr, "clmc profile: population annealing rank %d of %d: %.6f s wall between the sweeps "
                "(measurement, resampling, transfers): %.2f%% of the wall time; %.6f s in MPI calls; %llu members "
                "(%llu bytes) sent\n", p->rank, p->ranks, p->between_seconds,
                100 * p->between_seconds / p->wall_seconds, p->mpi_seconds, (unsigned long long)p->sent_members,
                (unsigned long long)p->sent_bytes);
    if (clmc_runtime_profiling(e->rt) && p->ranks > 1) {
        fprintf(stderr, "clmc profile: population annealing rank %d: ms per step between the sweeps:", p->rank);
        for (int i = 0; i < N_PHASES; i++)
            fprintf(stderr, " %s %.3f", phase_names[i], 1e3 * p->phase_seconds[i] / (double)(p->steps_done ? p->steps_done : 1));
        fprintf(stderr, "\n");
    }
    return CLMC_OK;
}

/* The overlap sum_E min(P(E), P'(E)) of the histogram h (bins from E_min
 * on) with its reweighting P'(E) ~ h(E) exp(-dbeta (E - E_min)) to
 * beta + dbeta: what the overlap of this step's and the next step's
 * histograms will be if the next population is the reweighted one (it is
 * also 1 minus the fraction of members the resampling culls). */
static double predicted_overlap(const cl_uint *h, cl_uint bins, double dbeta)
{
    double n = 0, w = 0, overlap = 0;
    for (cl_uint b = 0; b < bins; b++) n += h[b], w += h[b] * exp(-dbeta * b);
    for (cl_uint b = 0; b < bins; b++)
        if (h[b]) overlap += fmin(h[b] / n, h[b] * exp(-dbeta * b) / w);
    return overlap;
}

/* The adaptive schedule after step k: beta_end once reached (then the
 * schedule is complete), else the next beta beta_k + dbeta with the
 * predicted overlap at target_overlap: beta_end if even that keeps the
 * target, else the largest dbeta that does, by 64 bisections of
 * (0, beta_end - beta_k] (the predicted overlap falls as dbeta grows).
 * Reads step k's energy range and histogram back (a wait for the device). */
static clmc_status choose_next_beta(clmc_ensemble *e, population *p, unsigned k)
{
    if (p->betas[k] >= p->beta_end) {
        p->choosing = false;
        return CLMC_OK;
    }
    if (k + 1 >= p->max_steps)
        return clmc_fail(CLMC_ERR_INPUT, "ensemble.max_steps: the adaptive schedule reached beta %g after %u steps, "
                         "short of ensemble.beta_end = %g; allow more steps or lower ensemble.target_overlap",
                         p->betas[k], k, p->beta_end);
    CLMC_TRY(histogram_settle(e, p)); /* MPI ranks: the run's histogram */
    double range[2];
    p->waits += 2; /* the range, then the histogram */
    CLMC_CL_TRY(clEnqueueReadBuffer(clmc_runtime_queue(e->rt), p->records, CL_TRUE, sizeof(double) * record_at(k, E_MIN),
                                    sizeof range, range, 0, NULL, NULL));
    double width = floor(range[1]) - floor(range[0]) + 1; /* pa_bins */
    if (width > HISTOGRAM_BINS)
        return clmc_fail(CLMC_ERR_INPUT, "ensemble.schedule: the adaptive schedule needs the energy histogram, and "
                         "the energies at beta %g span %g values, more than %u", p->betas[k], width, HISTOGRAM_BINS);
    cl_uint bins = (cl_uint)width;
    CLMC_TRY(read_back(e->rt, p->histogram_buf[k % 2], sizeof(cl_uint) * bins, p->histogram_host));
    double most = p->beta_end - p->betas[k], next = p->beta_end;
    if (predicted_overlap(p->histogram_host, bins, most) < p->target_overlap) {
        double lo = 0, hi = most;
        for (int i = 0; i < 64; i++) {
            double mid = 0.5 * (lo + hi);
            if (predicted_overlap(p->histogram_host, bins, mid) >= p->target_overlap) lo = mid;
            else hi = mid;
        }
        next = p->betas[k] + (lo > 0 ? lo : hi);
    }
    p->betas[k + 1] = next;
    p->n_steps = k + 2;
    return CLMC_OK;
}

/* Steps first .. n_steps - 1 of the run under way (the adaptive schedule
 * appends each next step while it is chosen); between steps the engine
 * may checkpoint (e->between_steps, pa_save). */
static clmc_status anneal(clmc_ensemble *e, population *p, unsigned first, cl_mem *energy_out,
                          cl_mem *magnetisation_out)
{
    cl_mem energy = *energy_out, magnetisation = *magnetisation_out;
    for (unsigned k = first; k < p->n_steps; k++) {
        if (k > first && e->between_steps) {
            p->first_step = k;
            CLMC_TRY(e->between_steps(e->between_context, p->sweep));
        }
        p->steps_done++;
        double started = p->lap_at = clmc_runtime_clock();
        if (k > 0) CLMC_TRY(resample(e, p, energy, k));
        CLMC_TRY(set_beta(e, p, p->betas[k]));
        if (p->ranks > 1 && clmc_runtime_profiling(e->rt)) { /* the wall time up to the sweeps */
            CLMC_CL_TRY(clFinish(clmc_runtime_queue(e->rt)));
            p->between_seconds += clmc_runtime_clock() - started;
            lap(p, LAP_GATHER);
        }
        /* beta_start = 0: the random start is already an exact sample. */
        bool folded = false; /* the members' energy ranges folded by the sweeps (fold_energy_range) */
        if ((k > 0 || p->betas[0] > 0) && e->ops->sweeps && p->theta > 0) { /* many per launch (Ising resident) */
            bool measured;
            CLMC_TRY(e->ops->sweeps(e->state, p->sweep, p->theta, CLMC_MEASURE_MEMBERS, &measured));
            p->sweep += p->theta;
            folded = p->model_folds && measured;
        }
        for (uint64_t t = 0; (k > 0 || p->betas[0] > 0) && !e->ops->sweeps && t < p->theta; t++)
            CLMC_TRY(e->ops->sweep(e->state, p->sweep++));
        if (p->ranks > 1 && clmc_runtime_profiling(e->rt)) { /* the wall time from the sweeps' end */
            CLMC_CL_TRY(clFinish(clmc_runtime_queue(e->rt)));
            started = p->lap_at = clmc_runtime_clock();
        }
        CLMC_TRY(e->ops->ensemble->member_observables(e->state, &energy, &magnetisation));
        CLMC_TRY(measure(e, p, energy, magnetisation, k, folded));
        if (p->choosing) CLMC_TRY(choose_next_beta(e, p, k));
        if (p->ranks > 1 && clmc_runtime_profiling(e->rt)) {
            CLMC_CL_TRY(clFinish(clmc_runtime_queue(e->rt)));
            p->between_seconds += clmc_runtime_clock() - started;
            lap(p, LAP_MEASURE);
        }
    }
    CLMC_TRY(fused_settle(e, p)); /* the last steps' records and overlap (fused steps) */
    CLMC_TRY(histogram_settle(e, p)); /* the last step's overlap (MPI ranks) */
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
    unsigned runs = p->runs * (unsigned)p->run_ranks;
    double *x = malloc(sizeof(double) * N_OBSERVABLES * runs), *column = malloc(sizeof(double) * runs);
    double *weight = malloc(sizeof(double) * runs), *equal = malloc(sizeof(double) * runs);
    step_record *steps = p->run_ranks > 1 ? malloc(sizeof *steps * p->max_steps * runs) : p->steps;
    clmc_status status = x && column && weight && equal && steps ? CLMC_OK
                                                                : clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    if (p->run_ranks > 1) { /* every rank's runs, in order (collective) */
        size_t *counts = malloc(sizeof *counts * (size_t)p->run_ranks);
        for (int r = 0; counts && r < p->run_ranks; r++) counts[r] = sizeof *steps * p->max_steps * p->runs;
        clmc_status gathered = counts && steps ? clmc_ranks_allgatherv(p->steps, steps, counts)
                                      : clmc_fail(CLMC_ERR_OTHER, "out of host memory");
        if (status == CLMC_OK) status = gathered;
        free(counts);
    }
    if (status != CLMC_OK) {
        free(x), free(column), free(weight), free(equal);
        if (steps != p->steps) free(steps);
        return status;
    }
    cJSON *temperatures = cJSON_AddArrayToObject(observables, "temperatures");
    for (unsigned k = 0; k < p->n_steps; k++) {
        double ln_z_max = -INFINITY, sum = 0, members = 0, families = 0, rho = 0, largest = 0, overlap = 0;
        for (unsigned run = 0; run < runs; run++) ln_z_max = fmax(ln_z_max, steps[(size_t)run * p->max_steps + k].ln_z);
        for (unsigned run = 0; run < runs; run++) {
            const step_record *r = &steps[(size_t)run * p->max_steps + k];
            observables_of(r, p->sites, &p->order, x + N_OBSERVABLES * run);
            sum += weight[run] = exp(r->ln_z - ln_z_max);
            equal[run] = 1.0 / runs;
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
    /* Runs over ranks: the last rank's count, the whole run's. */
    cJSON_AddNumberToObject(observables, "population_sweeps",
                            (double)(p->run_ranks > 1 ? runs * p->run_sweeps : p->sweep));
    cJSON_AddNumberToObject(observables, "runs", runs);
    free(x), free(column), free(weight), free(equal);
    if (steps != p->steps) free(steps);
    return CLMC_OK;
}

/* A checkpoint between steps first_step - 1 and first_step of run `run`
 * (the model's blob holds the members): where the anneal is, the schedule,
 * the records of the steps done (host and device), the members'
 * ancestors and the last step's energy histogram (for the next overlap). */
static clmc_status pa_save(clmc_ensemble *e, unsigned char **blob, size_t *bytes)
{
    population *p = e->kind_state;
    /* MPI ranks: the run's histogram (every rank saves at the same step);
     * fused steps: the last step's record and overlap, into the records
     * saved. */
    CLMC_TRY(histogram_settle(e, p));
    CLMC_TRY(fused_settle(e, p));
    clmc_blob_writer w = {0};
    const uint64_t header[] = {p->run,  p->first_step, p->n,         p->sweep,
                               p->n_steps, p->runs,    p->capacity, p->max_steps, p->choosing};
    for (size_t i = 0; i < sizeof header / sizeof header[0]; i++) clmc_blob_put_u64(&w, header[i]);
    clmc_blob_put_doubles(&w, p->betas, p->n_steps);
    _Static_assert(sizeof(step_record) == 11 * sizeof(double), "step records are doubles");
    clmc_blob_put_doubles(&w, (const double *)p->steps, (size_t)11 * p->max_steps * p->runs);
    clmc_blob_put_buffer(&w, e->rt, p->records);
    clmc_blob_put_buffer(&w, e->rt, p->ancestor[p->current]);
    clmc_blob_put_buffer(&w, e->rt, p->histogram_buf[(p->first_step - 1) % 2]);
    return clmc_blob_finish(&w, blob, bytes);
}

/* Ancestor labels (equal within a family, the families in a row) rewritten
 * as each family's first member. */
static void family_starts(cl_uint *labels, size_t n)
{
    cl_uint previous = 0;
    for (size_t i = 0, first = 0; i < n; i++) {
        cl_uint label = labels[i];
        if (i == 0 || label != previous) first = i;
        previous = label;
        labels[i] = (cl_uint)first;
    }
}

static clmc_status pa_restore(clmc_ensemble *e, const unsigned char *blob, size_t bytes)
{
    population *p = e->kind_state;
    clmc_blob_reader r = clmc_blob_reader_of(blob, bytes);
    uint64_t run = clmc_blob_get_u64(&r, "run"), step = clmc_blob_get_u64(&r, "step");
    uint64_t n = clmc_blob_get_u64(&r, "members"), sweep = clmc_blob_get_u64(&r, "sweeps");
    uint64_t n_steps = clmc_blob_get_u64(&r, "steps"), runs = clmc_blob_get_u64(&r, "runs");
    uint64_t capacity = clmc_blob_get_u64(&r, "capacity"), max_steps = clmc_blob_get_u64(&r, "max_steps");
    uint64_t choosing = clmc_blob_get_u64(&r, "choosing");
    bool adaptive = p->choosing; /* as opened: the schedule is still to be chosen */
    if (r.status == CLMC_OK && (max_steps != p->max_steps || (adaptive ? n_steps > max_steps : n_steps != p->n_steps) ||
                                (choosing && !adaptive) || choosing > 1 || runs != p->runs || capacity != p->capacity ||
                                run >= runs || step == 0 || step >= n_steps || n == 0 || n > (1u << 25) ||
                                local_of(p, (unsigned)n) == 0 || local_of(p, (unsigned)n) > p->capacity))
        return clmc_fail(CLMC_ERR_INPUT, "checkpoint: the population annealing state (run %llu, step %llu of %llu, "
                         "%llu members) does not fit the preset", (unsigned long long)run, (unsigned long long)step,
                         (unsigned long long)n_steps, (unsigned long long)n);
    const unsigned char *betas = clmc_blob_get_doubles(&r, n_steps, "schedule");
    const unsigned char *steps = clmc_blob_get_doubles(&r, (size_t)11 * p->max_steps * p->runs, "step records");
    const unsigned char *records = clmc_blob_get_buffer(&r, sizeof(double) * RECORD * p->max_steps, "device records");
    const unsigned char *ancestors = clmc_blob_get_buffer(&r, sizeof(cl_uint) * p->capacity, "ancestors");
    const unsigned char *histogram = clmc_blob_get_buffer(&r, sizeof(cl_uint) * HISTOGRAM_BINS, "histogram");
    CLMC_TRY(clmc_blob_end(&r));
    double schedule[CLMC_ENSEMBLE_MAX_TEMPERATURES];
    clmc_blob_copy_doubles(betas, schedule, n_steps);
    if (memcmp(schedule, p->betas, sizeof(double) * (adaptive ? 1 : n_steps)) != 0)
        return clmc_fail(CLMC_ERR_INPUT, "checkpoint: its temperature schedule differs from the preset's");
    for (unsigned k = 1; k < n_steps; k++)
        if (!(schedule[k] > schedule[k - 1]))
            return clmc_fail(CLMC_ERR_INPUT, "checkpoint: its adaptive temperature schedule does not increase");
    memcpy(p->betas, schedule, sizeof(double) * n_steps);
    p->n_steps = (unsigned)n_steps;
    p->choosing = choosing != 0;
    clmc_blob_copy_doubles(steps, (double *)p->steps, (size_t)11 * p->max_steps * p->runs);
    CLMC_TRY(clmc_buffer_upload(e->rt, p->records, records, sizeof(double) * RECORD * p->max_steps));
    /* In one process each member is labelled by its family's first member,
     * as the fused steps keep them (the same families; MPI ranks keep the
     * run's labels, which their neighbours compare). */
    cl_uint *labels = malloc(sizeof(cl_uint) * p->capacity);
    if (!labels) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    memcpy(labels, ancestors, sizeof(cl_uint) * p->capacity);
    if (p->ranks == 1) family_starts(labels, p->capacity);
    clmc_status uploaded =
        clmc_buffer_upload(e->rt, p->ancestor[0], (const unsigned char *)labels, sizeof(cl_uint) * p->capacity);
    free(labels);
    CLMC_TRY(uploaded);
    CLMC_TRY(clmc_buffer_upload(e->rt, p->histogram_buf[(step - 1) % 2], histogram, sizeof(cl_uint) * HISTOGRAM_BINS));
    CLMC_TRY(zero(e->rt, p->histogram_buf[step % 2], sizeof(cl_uint) * HISTOGRAM_BINS));
    p->run = (unsigned)run;
    p->first_step = (unsigned)step;
    p->n = (unsigned)n;
    p->local = local_of(p, p->n);
    p->sweep = sweep;
    p->current = 0;
    p->resumed = true;
    return CLMC_OK;
}

static void pa_close(clmc_ensemble *e)
{
    population *p = e->kind_state;
    if (!p) return;
    cl_kernel kernels[] = {p->stats,  p->weights, p->scan_d,  p->add_d,  p->copy_numbers, p->copy_prefix,
                           p->multinomial, p->prefix,
                           p->scan_u, p->add_u,   p->sources, p->sources_own, p->gather, p->gather4,
                           p->histogram, p->overlap, p->step_record_kernel, p->share_ranges, p->window_prefix,
                           p->family_edges, p->energy_range, p->member_weights, p->copy_sources};
    for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++)
        if (kernels[i]) CLMC_CL_WARN(clReleaseKernel(kernels[i]));
    cl_mem buffers[] = {p->cum,    p->chunk_d,      p->records,     p->copies,      p->prefix_buf,
                        p->chunk_u, p->total_u,     p->source,      p->member_stats, p->chunk_range, p->ancestor[0],
                        p->ancestor[1], p->scratch, p->histogram_buf[0],
                        p->histogram_buf[1], p->received, p->received_ancestor, p->window, p->bounds,
                        p->ranges,  p->edges};
    for (size_t i = 0; i < sizeof buffers / sizeof buffers[0]; i++)
        if (buffers[i]) CLMC_CL_WARN(clReleaseMemObject(buffers[i]));
    if (p->in_heads || p->in_data.buffer) CLMC_CL_WARN(clFinish(clmc_runtime_queue(e->rt))); /* uploads from them */
    clmc_pinned_release(e->rt, &p->staging);
    clmc_pinned_release(e->rt, &p->in_data);
    if (p->program) CLMC_CL_WARN(clReleaseProgram(p->program));
    clmc_population_lanes_close(&p->lanes);
    if (p->beta_written) CLMC_CL_WARN(clReleaseEvent(p->beta_written));
    free(p->records_host);
    free(p->histogram_host);
    free(p->betas_host);
    free(p->temperature_host);
    free(p->steps);
    free(p->starts);
    free(p->slots);
    free(p->chunk_host);
    free(p->chunk_all);
    free(p->stats_all);
    free(p->histogram_sum);
    free(p->in_heads);
    free(p);
    e->kind_state = NULL;
}

/* performance.fused_steps: {"used": true} or {"used": false, "reason": ...}. */
static void pa_describe(clmc_ensemble *e, cJSON *performance)
{
    const population *p = e->kind_state;
    cJSON *fused = cJSON_AddObjectToObject(performance, "fused_steps");
    cJSON_AddBoolToObject(fused, "used", p->fused);
    if (!p->fused) cJSON_AddStringToObject(fused, "reason", p->fused_why);
}

const clmc_ensemble_kind clmc_ensemble_population_annealing = {
    .close = pa_close,
    .run = pa_run,
    .results = pa_results,
    .save = pa_save,
    .restore = pa_restore,
    .describe = pa_describe,
};
