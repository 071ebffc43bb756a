/* Parallel tempering by swapping temperatures, not configurations: the
 * temperature <-> configuration map is kept on the host and each
 * configuration's beta is handed to the model after every exchange. */
#include "tempering.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/philox.h"
#include "runtime/ranks.h"

/* The exchange uniforms u = (v + 0.5) / 2^32 fall into 2^UNIFORM_BUCKET_BITS
 * buckets by the top bits of v; log u at the bucket edges decides most
 * exchanges without calling log.  LOG_MARGIN covers the rounding of log (an
 * ulp is below 4e-15 for |log u| < 23). */
#define UNIFORM_BUCKET_BITS 12
#define LOG_MARGIN 1e-12

static double log_uniform(uint64_t v)
{
    return log(((double)v + 0.5) / 4294967296.0);
}

double clmc_tempering_log_uniform(uint64_t v)
{
    return log_uniform(v);
}

clmc_status clmc_tempering_init(clmc_tempering *pt, const double *betas, size_t n, uint64_t exchange_every,
                                uint64_t seed, const clmc_model_shape *shape, unsigned share_first,
                                unsigned share_count)
{
    memset(pt, 0, sizeof *pt);
    unsigned held = share_count ? share_count : (unsigned)n;
    if (held != shape->n_temperatures || (share_count && (shape->n_systems != 1 || share_first + share_count > n)))
        return clmc_fail(CLMC_ERR_OTHER, "model holds %u temperatures of %u systems, ensemble has %u (of %zu)",
                         shape->n_temperatures, shape->n_systems, held, n);
    pt->share_first = share_first;
    pt->share_count = share_count;
    pt->n_systems = shape->n_systems;
    pt->n_temperatures = (unsigned)n;
    pt->n_configs = pt->n_systems * pt->n_temperatures;
    pt->exchange_every = exchange_every;
    pt->seed_lo = (uint32_t)seed;
    pt->seed_hi = (uint32_t)(seed >> 32);
    pt->betas = malloc(n * sizeof *pt->betas);
    pt->config_at = malloc(pt->n_configs * sizeof *pt->config_at);
    pt->heading = calloc(pt->n_configs, sizeof *pt->heading);
    pt->accepted = calloc(n, sizeof *pt->accepted);
    pt->attempted = calloc(n, sizeof *pt->attempted);
    pt->config_betas = malloc(pt->n_configs * sizeof *pt->config_betas);
    pt->temperature_of = malloc(pt->n_configs * sizeof *pt->temperature_of);
    pt->energies = malloc(pt->n_configs * sizeof *pt->energies);
    pt->log_uniform_edges = malloc(((1u << UNIFORM_BUCKET_BITS) + 1) * sizeof *pt->log_uniform_edges);
    if (!pt->betas || !pt->config_at || !pt->heading || !pt->accepted || !pt->attempted ||
        !pt->config_betas || !pt->temperature_of || !pt->energies || !pt->log_uniform_edges)
        return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    for (uint64_t j = 0; j <= 1u << UNIFORM_BUCKET_BITS; j++)
        pt->log_uniform_edges[j] = log_uniform(j << (32 - UNIFORM_BUCKET_BITS));
    memcpy(pt->betas, betas, n * sizeof *betas);
    for (unsigned c = 0; c < pt->n_configs; c++) pt->config_at[c] = c;
    return CLMC_OK;
}

void clmc_tempering_free(clmc_tempering *pt)
{
    free(pt->betas);
    free(pt->config_at);
    free(pt->heading);
    free(pt->accepted);
    free(pt->attempted);
    free(pt->config_betas);
    free(pt->temperature_of);
    free(pt->energies);
    free(pt->log_uniform_edges);
    memset(pt, 0, sizeof *pt);
}

/* Loops over systems or configurations run in parallel (OpenMP, when the
 * build has it) above this many iterations; every iteration writes its own
 * entries, so the results do not depend on the threads. */
#define PARALLEL_ABOVE 256

clmc_status clmc_tempering_apply(clmc_tempering *pt, const clmc_model_ops *ops, void *state)
{
    const clmc_ensemble_hooks *hooks = ops->ensemble;
    if (!hooks || !hooks->set_betas || !hooks->energies) {
        if (pt->n_temperatures == 1) return CLMC_OK; /* the model took ensemble.beta itself */
        return clmc_fail(CLMC_ERR_INPUT, "ensemble: model \"%s\" does not support parallel tempering", ops->type);
    }
    long systems = (long)pt->n_systems;
    /* A few nanoseconds per configuration: threads only for large ensembles. */
#pragma omp parallel for schedule(static) if (pt->n_configs > 64 * PARALLEL_ABOVE)
    for (long system = 0; system < systems; system++) {
        const unsigned *at = pt->config_at + (size_t)system * pt->n_temperatures;
        for (unsigned t = 0; t < pt->n_temperatures; t++) {
            pt->config_betas[at[t]] = pt->betas[t];
            pt->temperature_of[at[t]] = t;
        }
    }
    return hooks->set_betas(state, pt->config_betas + pt->share_first, pt->temperature_of + pt->share_first);
}

/* Across MPI ranks: every rank's share of the energies, so that every rank
 * holds them all (rank r's share at its configurations). */
static clmc_status gather_energies(clmc_tempering *pt)
{
    const clmc_ranks_info *ranks = clmc_ranks();
    size_t *counts = malloc((size_t)ranks->size * sizeof *counts);
    double *mine = malloc(((size_t)pt->share_count + 1) * sizeof *mine);
    clmc_status status = counts && mine ? CLMC_OK : clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    for (int r = 0; status == CLMC_OK && r < ranks->size; r++)
        counts[r] = (clmc_ranks_share_start(pt->n_configs, r + 1) - clmc_ranks_share_start(pt->n_configs, r)) *
                    sizeof *pt->energies;
    if (status == CLMC_OK) {
        memcpy(mine, pt->energies + pt->share_first, pt->share_count * sizeof *mine);
        status = clmc_ranks_allgatherv(mine, pt->energies, counts);
    }
    free(counts);
    free(mine);
    return status;
}

/* The uniform u = (v + 0.5) / 2^32 in (0, 1) for the exchange of pair t of
 * `system` comes from word t % 4 of the draw at counter (system T + t - t %
 * 4, exchange number, purpose EXCHANGE), so one draw serves four pairs;
 * reproducible on any host.  The draws of pairs first .. first + 4
 * DRAWS_AT_ONCE - 1 are computed together, their rounds interleaved, which
 * takes about the time of one (some may go unused). */
#define DRAWS_AT_ONCE 4
#define PAIRS_PER_BATCH (4 * DRAWS_AT_ONCE)

static void exchange_draws(const clmc_tempering *pt, unsigned system, unsigned first,
                           clmc_philox_ctr draws[DRAWS_AT_ONCE])
{
    clmc_philox_key key = {{pt->seed_lo, pt->seed_hi}};
    for (unsigned i = 0; i < DRAWS_AT_ONCE; i++) {
        draws[i].v[0] = (pt->exchange_first + system) * pt->n_temperatures + first + 4 * i; /* the run-wide system */
        draws[i].v[1] = (uint32_t)pt->exchanges;
        draws[i].v[2] = (uint32_t)(pt->exchanges >> 32);
        draws[i].v[3] = CLMC_PURPOSE_EXCHANGE;
    }
    for (int round = 0; round < 10; round++) {
        if (round > 0) {
            key.v[0] += CLMC_PHILOX_W0;
            key.v[1] += CLMC_PHILOX_W1;
        }
        for (unsigned i = 0; i < DRAWS_AT_ONCE; i++) draws[i] = clmc_philox_round(draws[i], key);
    }
}

/* The Metropolis rule log_ratio >= 0 or log u < log_ratio, with log u as
 * log() computes it: decided without log where log u at both edges of v's
 * bucket lies clearly on one side.  Bitwise rather than short-circuit
 * operators, so that the random outcome costs no mispredicted branch. */
static bool exchange_accepted(const clmc_tempering *pt, uint32_t v, double log_ratio)
{
    unsigned bucket = v >> (32 - UNIFORM_BUCKET_BITS);
    bool accept = (log_ratio >= 0) | (pt->log_uniform_edges[bucket + 1] < log_ratio - LOG_MARGIN);
    bool undecided = !accept & !(pt->log_uniform_edges[bucket] > log_ratio + LOG_MARGIN);
    if (undecided) accept = log_uniform(v) < log_ratio;
    return accept;
}

bool clmc_tempering_accepts(const clmc_tempering *pt, uint32_t v, double log_ratio)
{
    return exchange_accepted(pt, v, log_ratio);
}

/* One system's exchanges, pairs (0, 1), (1, 2), ... in turn; counts accepted
 * swaps per pair and returns the round trips it completed.  A configuration
 * heads up (+1) after touching the hottest end (t = 0) and down (-1) after
 * then touching the coldest; a trip completes when it is back at t = 0
 * heading down. */
static unsigned exchange_system(clmc_tempering *pt, unsigned system, uint64_t *accepted)
{
    unsigned *at = pt->config_at + system * pt->n_temperatures, top = pt->n_temperatures - 1;
    clmc_philox_ctr draws[DRAWS_AT_ONCE];
    /* The configuration at t when pair t's turn comes, a, and its energy are
     * carried from pair to pair (the one dependency between pairs); b, its
     * energy and the bucket bounds do not depend on earlier pairs. */
    unsigned a = at[0];
    double energy_a = pt->energies[a];
    for (unsigned t = 0; t < top; t++) {
        if (t % PAIRS_PER_BATCH == 0) exchange_draws(pt, system, t, draws);
        /* Swapping the temperatures of a (at beta_t) and b (at beta_t+1). */
        unsigned b = at[t + 1];
        double energy_b = pt->energies[b];
        double log_ratio = (pt->betas[t + 1] - pt->betas[t]) * (energy_b - energy_a);
        bool accept = exchange_accepted(pt, draws[t % PAIRS_PER_BATCH / 4].v[t % 4], log_ratio);
        at[t] = accept ? b : a;
        a = accept ? a : b;
        energy_a = accept ? energy_a : energy_b;
        accepted[t] += accept;
    }
    at[top] = a;
    unsigned trips = pt->heading[at[0]] == -1;
    pt->heading[at[0]] = +1;
    if (pt->heading[at[top]] == +1) pt->heading[at[top]] = -1;
    return trips;
}

clmc_status clmc_tempering_exchange(clmc_tempering *pt, const clmc_model_ops *ops, void *state)
{
    if (pt->n_temperatures < 2) return CLMC_OK;
    CLMC_TRY(ops->ensemble->energies(state, pt->energies + pt->share_first));
    if (pt->share_count) CLMC_TRY(gather_energies(pt));
    unsigned pairs = pt->n_temperatures - 1;
    uint64_t trips = 0, *accepted = pt->accepted;
    long systems = (long)pt->n_systems;
#pragma omp parallel for schedule(static) reduction(+ : trips, accepted[:pairs]) if (systems > PARALLEL_ABOVE)
    for (long system = 0; system < systems; system++) trips += exchange_system(pt, (unsigned)system, accepted);
    pt->round_trips += trips;
    for (unsigned t = 0; t < pairs; t++) pt->attempted[t] += pt->n_systems;
    pt->exchanges++;
    return clmc_tempering_apply(pt, ops, state);
}

void clmc_tempering_report(const clmc_tempering *pt, cJSON *observables)
{
    if (pt->n_temperatures < 2 || pt->independent) return;
    cJSON *report = cJSON_AddObjectToObject(observables, "tempering");
    cJSON_AddNumberToObject(report, "exchange_every", (double)pt->exchange_every);
    cJSON_AddNumberToObject(report, "exchanges", (double)pt->exchanges);
    cJSON_AddNumberToObject(report, "round_trips", (double)pt->round_trips);
    cJSON *acceptance = cJSON_AddArrayToObject(report, "acceptance");
    for (unsigned t = 0; t + 1 < pt->n_temperatures; t++)
        cJSON_AddItemToArray(acceptance, cJSON_CreateNumber(pt->attempted[t] ? (double)pt->accepted[t] / (double)pt->attempted[t] : 0));
    cJSON *map = cJSON_AddArrayToObject(report, "final_configuration_at_temperature");
    for (unsigned c = 0; c < pt->n_configs; c++) cJSON_AddItemToArray(map, cJSON_CreateNumber(pt->config_at[c]));
}
