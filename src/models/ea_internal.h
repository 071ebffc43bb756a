/* State of the Edwards-Anderson model shared by its host files (ea_ising.c:
 * set-up, sweeps, measurements, tempering; ea_couplings.c: quenched
 * couplings; ea_estimate.c: disorder averages). */
#ifndef CLMC_MODELS_EA_INTERNAL_H
#define CLMC_MODELS_EA_INTERNAL_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdint.h>

#include "models/ea_ising.h"
#include "models/lattice.h"

#define MEASURE_WG_MAX 256
#define MEASURE_BATCH_MAX 256
#define MEASURE_GROUPS_MAX 65536
#define TOTALS_BYTES_MAX (64u << 20)
#define TALLY_LEVELS_MAX 24 /* bit-sliced counter levels of the msc measurement */
#define THRESHOLD_CLASSES CLMC_METROPOLIS_CLASSES
#define COUPLING_FIXED_POINT 16777216.0 /* as in cl/ea_ising.cl */

typedef struct {
    clmc_runtime *rt;
    int dim, edge;
    cl_uint n_sites, realizations, temperatures, configurations, stacks;
    clmc_ea_couplings couplings;
    bool msc, shared_randoms;
    cl_uint word_bits; /* realizations per msc word (32 or 64; also the stacks shared_randoms shares) */
    cl_uint ordered_start, seed_lo, seed_hi;
    uint64_t seed;
    double beta;
    cl_program program;
    cl_kernel init, update, measure, sum_groups;
    cl_mem spins, bonds, thresholds, betas, lanes_below, partners, partials, totals;
    cl_mem partner_lanes; /* msc: [stack][place] lanes whose partner is in that place */
    size_t measure_wg, measure_groups, measure_global;
    unsigned measure_batch, tally_levels, fold_rounds;
    cl_long *totals_host; /* [slot][config][bond sum, overlap, 0] */
    /* Tempering: the ensemble's betas (increasing), and host copies of the
     * uploads that follow the temperature <-> configuration map, kept alive
     * for the non-blocking writes (naive: thresholds and betas per
     * configuration; msc: lanes_below per stack; both: partners). */
    double *temperature_betas;
    cl_uint *thresholds_host, *partners_host, *config_at, *temperature_of;
    cl_float *betas_host;
    void *lanes_below_host, *partner_lanes_host; /* words of word_bits */
    /* Per-realization sums over measurements of e (both replicas), q^2, q^4. */
    double *energy_sum, *q2_sum, *q4_sum;
    size_t measurements;
} ea_state;

/* ea_couplings.c */
size_t ea_bond_count(const ea_state *s);
size_t ea_coupling_bytes(const ea_state *s);
size_t ea_word_bytes(const ea_state *s);
void ea_fill_couplings(const ea_state *s, void *out);

/* ea_checkpoint.c */
clmc_status ea_save_state(void *state, unsigned char **blob, size_t *bytes);
clmc_status ea_load_state(void *state, const unsigned char *blob, size_t bytes);

/* ea_estimate.c */
clmc_status ea_estimate(void *state, const double *rows, size_t n_rows, double beta, cJSON *observables);

#endif
