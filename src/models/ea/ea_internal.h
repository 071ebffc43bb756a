/* State of the Edwards-Anderson model shared by its host files (ea_ising.c:
 * set-up, sweeps, measurements, tempering; ea_couplings.c: quenched
 * couplings; ea_estimate.c: disorder averages). */
#ifndef CLMC_MODELS_EA_INTERNAL_H
#define CLMC_MODELS_EA_INTERNAL_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdint.h>

#include "models/model.h"
#include "models/disorder.h"
#include "models/lattice.h"

#define MEASURE_WG_MAX 256
#define MEASURE_BATCH_MAX 256
#define MEASURE_GROUPS_MAX 65536
#define TOTALS_BYTES_MAX (64u << 20)
#define TALLY_LEVELS_MAX 24 /* bit-sliced counter levels of the msc measurement */
#define THRESHOLD_CLASSES CLMC_METROPOLIS_CLASSES
#define COUPLING_FIXED_POINT 16777216.0 /* as in cl/ea/ea_ising.cl */

/* Where the tempering energies come from (algorithm.tempering_energies, ea_energy_pass.c). */
typedef enum { EA_ENERGIES_PASS, EA_ENERGIES_MEASURE, EA_ENERGIES_CHECK } ea_energy_mode;

typedef struct {
    clmc_runtime *rt;
    int dim, edge;
    cl_uint n_sites, realizations, temperatures, configurations, stacks;
    /* Population annealing (ensemble_hooks.h): realizations are the R
     * members, each a pair of replicas, all with the couplings of realization
     * 0 (disorders = 1; otherwise disorders = realizations); msc: word_bits
     * members per word (the last word partly, with nearest_integer's room),
     * each drawing its own numbers (LANE_RANDOMS). */
    bool population;
    bool ranks_chained; /* under MPI ranks: a share of one run's members (clmc_systems_settings) */
    cl_uint disorders;
    cl_kernel member_totals;
    cl_mem member_energy, member_overlap;
    clmc_ea_couplings couplings;
    bool msc, shared_randoms;
    /* algorithm.rng "lcg64_reseeded": the resident update's lanes draw from
     * LCG64s per word and launch, each serving fixed sites (RNG_LCG_RESEEDED, docs/rng.md). */
    bool lane_lcg;
    /* ensemble.type "independent": each realization a system, rows per
     * configuration; first_system: the run-wide index of realization 0. */
    bool independent;
    cl_uint first_system;
    cl_uint word_bits; /* realizations per msc word (32 or 64; also the stacks shared_randoms shares) */
    cl_uint ordered_start, seed_lo, seed_hi;
    uint64_t seed;
    double beta;
    cl_program program;
    cl_kernel init, update, measure, sum_groups;
    cl_mem spins, bonds, thresholds, betas, partners, partials, totals;
    cl_mem lane_masks; /* msc: lanes_below, then partner_lanes ([stack][place] lanes whose partner is in that place) */
    size_t measure_wg, measure_groups, measure_global;
    unsigned measure_batch, tally_levels, fold_rounds;
    cl_long *totals_host; /* [slot][config][bond sum, overlap, 0] */
    /* Tempering: the ensemble's betas (increasing), and host copies of the
     * uploads that follow the temperature <-> configuration map, kept alive
     * for the non-blocking writes (naive: thresholds and betas per
     * configuration and partners; msc: lanes_below and partner_lanes per
     * stack, one allocation). */
    double *temperature_betas;
    cl_uint *thresholds_host, *partners_host, *config_at, *temperature_of;
    cl_float *betas_host;
    void *lanes_below_host, *partner_lanes_host; /* words of word_bits */
    /* Per-realization sums over measurements of e (both replicas), q^2, q^4. */
    double *energy_sum, *q2_sum, *q4_sum;
    /* Measurements collected (tempering and independent systems: rows per
     * configuration, from which ea_estimate counts the realizations of the
     * rows it is given); measurements_unknown: resumed from a checkpoint of
     * a build that counted them without tempering only. */
    size_t measurements;
    bool measurements_unknown;
    /* msc tempering: the energy pass (last colour pass that also counts the
     * satisfied bonds) and its per-group counts and energies. */
    ea_energy_mode energy_mode;
    cl_program energy_program;
    cl_kernel energy_update;
    size_t update_wg; /* msc update work-group size (algorithm.update_group); 0: the driver's */
    unsigned energy_sites; /* sites per work-item of the energy pass (algorithm.energy_sites); 0: the default */
    int reverse_odd;  /* msc colour-1 launches take their groups in reverse (algorithm.reverse_odd) */
    cl_program lane_masks_program; /* cl/ea/ea_lane_masks.cl */
    cl_kernel lane_masks_update; /* msc tempering on the device: lane masks from the device maps */
    cl_mem energy_counts; /* cl_int [config]: satisfied bonds, added up by the pass, zeroed by the exchange */
    size_t energy_wg, energy_groups;
    unsigned energy_levels, energy_fold_rounds;
    bool pass_energies_ready;
    cl_int *energy_counts_host;
    bool exchange_fused;   /* ea_msc_exchange fits the device (ea_exchange_fits) */
    cl_program exchange_program; /* cl/ensembles/ea_msc_exchange.cl, built where it fits */
    unsigned exchange_spread; /* its work-items per system (EXCHANGE_SPREAD) */
    unsigned place_bits;      /* bits of a place or temperature (PLACE_BITS) */
    bool exchange_usable;  /* and its work-group fits the kernel's limit */
    cl_kernel exchange;    /* ea_msc_exchange, created when the engine asks for it */
    unsigned long long energies_checked, energy_mismatches; /* tempering_energies "check" */
    char muca_defines[64]; /* clmc_density_walkers.defines (multicanonical and Wang-Landau walkers) */
    /* msc population annealing: the member pass (ea_msc_member_update, the
     * colour-1 pass of a step's last sweep measuring every member) and
     * whether it measured the members that member_observables returns next;
     * tempering_energies "check" then measures them again and counts
     * differences in energies_checked and energy_mismatches. */
    cl_program member_program;
    cl_kernel member_update;
    bool members_measured;
    cl_int *member_check_host; /* "check": [pass energy, pass overlap, energy, overlap][member] */
    /* Population annealing's resident update (algorithm.resident): a step's
     * sweeps in one launch; resident_note says why not.  msc
     * (ea_msc_resident_update, the member pass's file built with RESIDENT =
     * 1): a work-group per word holding its two stacks in local memory,
     * resident_sites sites of a colour per work-item.  naive
     * (ea_naive_resident_update, cl/ea/ea_ising.cl built with RESIDENT_QUADS):
     * resident_groups work-groups of resident_quads quads of configurations. */
    cl_program resident_program;
    cl_kernel resident_update;
    size_t resident_group; /* algorithm.resident_group (msc; 0: automatic) */
    size_t resident_wg, resident_quads, resident_groups;
    unsigned resident_sites;
    bool resident_gathering; /* the next resident launch loads the members resampled (ea_resident_gather) */
    uint64_t resident_launches, resident_sweeps;
    char resident_note[192];
} ea_state;

/* ea_couplings.c */
size_t ea_bond_count(const ea_state *s);
size_t ea_coupling_bytes(const ea_state *s);
size_t ea_word_bytes(const ea_state *s);
size_t ea_coupling_words(const ea_state *s);
void ea_fill_couplings(const ea_state *s, void *out);

/* ea_energy_pass.c: built only for msc tempering unless algorithm.tempering_energies is
 * "measure"; base_options are those of the main program. */
clmc_status ea_energy_pass_create(ea_state *s, const char *base_options);
bool ea_energy_pass_available(const ea_state *s);
/* Enqueues the last colour pass of sweep `sweep` with the energy counts. */
clmc_status ea_energy_pass_enqueue(ea_state *s, cl_uint sweep);
/* Total energies H of all configurations after that pass (blocking read). */
clmc_status ea_energy_pass_read(ea_state *s, double *energies);
void ea_energy_pass_destroy(ea_state *s);
/* msc population annealing's member pass (built unless tempering_energies
 * is "measure"): ea_member_pass_create also makes the member buffers;
 * ea_member_pass_enqueue runs the colour-1 pass of sweep `sweep`, writing
 * every member's energy and overlap into them (as ea_member_totals). */
clmc_status ea_member_pass_create(ea_state *s, const char *base_options);
clmc_status ea_member_pass_enqueue(ea_state *s, cl_uint sweep);
/* The resident update, after the member pass (mode: algorithm.resident),
 * and `count` sweeps from `first` by it, the last one measuring the members
 * into the member pass's buffers where `members`. */
clmc_status ea_resident_create(ea_state *s, const char *base_options, const char *mode);
/* The msc resident update's generators per word under lcg64_reseeded
 * (LCG_STREAMS) for a lattice of `sites` sites: the sites of a colour
 * rounded up to a power of two, at most 256; also the largest work-group
 * (algorithm.resident_group). */
size_t ea_resident_streams(size_t sites);
/* msc population annealing: the resident update's thresholds argument from
 * thresholds_host (ea_energy_pass.c). */
clmc_status ea_resident_thresholds(ea_state *s);
clmc_status ea_resident_sweeps(ea_state *s, uint64_t first, uint64_t count, bool members);
/* Population annealing's bit gather in the next resident launch: new member
 * j from member source[j] of `from`, j < n_new (lanes past them 0). */
clmc_status ea_resident_gather(ea_state *s, cl_mem from, cl_mem source, cl_uint n_new);
/* Population annealing's chunk ranges folded by the msc resident update's
 * measuring launches (NULL: none). */
clmc_status ea_resident_fold(ea_state *s, cl_mem chunk_range);
/* Tempering on the device (clmc_ensemble_hooks energies_device, set_temperatures_device,
 * exchange_kernel); ea_exchange_fits: whether the device can run
 * ea_msc_exchange (cl/ensembles/ea_msc_exchange.cl), also choosing its
 * exchange_spread. */
clmc_status ea_energies_device(void *state, cl_mem *energies, int *scale);
clmc_status ea_set_temperatures_device(void *state, cl_mem config_at, cl_mem temperature_of);
bool ea_exchange_fits(ea_state *s);
clmc_status ea_exchange_kernel(void *state, clmc_exchange_kernels *out);
/* ea_checkpoint.c */
clmc_status ea_save_state(void *state, unsigned char **blob, size_t *bytes);
clmc_status ea_load_state(void *state, const unsigned char *blob, size_t bytes);

/* ea_estimate.c */
clmc_status ea_estimate(void *state, const double *rows, size_t n_rows, double beta, cJSON *observables);

#endif
