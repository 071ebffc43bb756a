/* The energy pass of EA msc tempering: the last colour pass of a sweep that an
 * exchange follows, counting every configuration's satisfied bonds and
 * drawing the next exchange's reaches (built with MSC = 1, ENERGY_PASS = 1);
 * with MEMBER_PASS = 1 the member pass of EA msc population annealing: the
 * last colour pass of a step's sweeps, measuring every member's energy and
 * overlap (ea_msc_member_update); with RESIDENT = 1 as well, population
 * annealing's resident update (ea_msc_resident_update: a step's sweeps in one
 * launch, that pass at its end). */
#include "ea/ea_ising.h"
#include "ensembles/tempering_exchange.h"

/* Levels that hold a work-item's count before the fold (at most
 * NEIGHBOURS ENERGY_SITES satisfied bonds): the higher levels stay zero, so
 * compilers need not keep them in registers during the updates. */
#if MEMBER_PASS
#define ENERGY_ITEM_COUNT (2 * NEIGHBOURS * ENERGY_SITES) /* both replicas in one counter */
#else
#define ENERGY_ITEM_COUNT (NEIGHBOURS * ENERGY_SITES)
#endif
#define ENERGY_ITEM_LEVELS (ENERGY_ITEM_COUNT < 8 ? 3 : ENERGY_ITEM_COUNT < 16 ? 4 : ENERGY_ITEM_COUNT < 32 ? 5 : \
                            ENERGY_ITEM_COUNT < 64 ? 6 : ENERGY_ITEM_COUNT < 128 ? 7 : ENERGY_ITEM_COUNT < 256 ? 8 : \
                            ENERGY_LEVELS)

/* Adds a site's per-lane count of satisfied bonds, (c0, c1, c2) bit-sliced,
 * to a work-item's counter c (ripple carry over ENERGY_ITEM_LEVELS levels). */
inline void add_site_count(word_t *c, word_t c0, word_t c1, word_t c2)
{
    word_t carry = 0;
#pragma unroll
    for (uint level = 0; level < ENERGY_ITEM_LEVELS; level++) {
        word_t bit = level == 0 ? c0 : (level == 1 ? c1 : (level == 2 ? c2 : 0));
        word_t next = (c[level] & bit) | (carry & (c[level] ^ bit));
        c[level] ^= bit ^ carry;
        carry = next;
    }
}

#include "ea/ea_msc_update.h"

#if MEMBER_PASS
/* The group's counters (`counts` of every work-item) folded, and the
 * members of `word` written (group `group` of the word's ENERGY_GROUPS;
 * energy = 0: none); with one group a word, *lowest and *highest take the
 * least and greatest energy the work-item wrote (else left as they are). */
inline void store_members(word_t *counts, __local word_t *fold_buffer, uint word, uint group, __global int *energy,
                          __global int *overlap, int *lowest, int *highest)
{
    uint lid = get_local_id(0);
    fold_tallies(counts, 2, ENERGY_LEVELS, ENERGY_ITEM_LEVELS, ENERGY_FOLD_ROUNDS, ENERGY_WG, fold_buffer, lid);
    if (lid == 0)
        for (uint k = 0; k < 2 * ENERGY_LEVELS; k++) fold_buffer[k] = counts[k];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint lane = lid; energy && lane < WORD_BITS; lane += ENERGY_WG) {
        uint member = WORD_BITS * word + lane, satisfied = 0, agreeing = 0;
        if (member >= REALIZATIONS) continue; /* the last word may hold fewer (nearest_integer's room) */
        for (uint level = 0; level < ENERGY_LEVELS; level++) {
            satisfied |= (uint)((fold_buffer[level] >> lane) & 1u) << level;
            agreeing |= (uint)((fold_buffer[ENERGY_LEVELS + level] >> lane) & 1u) << level;
        }
#if ENERGY_GROUPS == 1
        int e = 2 * DIM * (int)SITES - 2 * (int)satisfied;
        energy[member] = e;
        overlap[member] = 2 * (int)agreeing - (int)SITES;
        *lowest = min(*lowest, e);
        *highest = max(*highest, e);
#else
        atomic_add(&energy[member], (group == 0 ? 2 * DIM * (int)SITES : 0) - 2 * (int)satisfied);
        atomic_add(&overlap[member], 2 * (int)agreeing - (group == 0 ? (int)SITES : 0));
#endif
    }
}

#if RESIDENT
#define LANE_BITS WORD_BITS
/* The fold's local words (fold_tallies, store_members), in the stacks' own
 * local memory where they fit there. */
#define FOLD_WORDS ((ENERGY_WG > 1 ? ENERGY_WG / 2 : 1) * 2 * ENERGY_LEVELS)
#define FOLD_IN_LATTICE (FOLD_WORDS <= 2 * SITES)
typedef word_t lane_t;
#include "ensembles/lane_segments.h"
#include "ensembles/population_source.h"

/* A site of the resident update's pass whose words are not all decided by
 * their first planes waits in the work-group's list: its index, each
 * replica's `less` and `tied` lanes (tied 0: decided and written), and
 * under RNG_LCG_RESEEDED the state of the generator that drew for it, which
 * the work-item that finishes the site hands back to the one that listed it
 * (handback[lid]).  A round (ENERGY_WG sites of the colour) lists at most
 * ENERGY_WG sites. */
typedef struct {
    __local uint *index;
    __local word_t *less, *tied; /* [replica * ENERGY_WG + slot] */
    __local ulong *state, *handback;
} pending_sites;

/* The first step of site number `index` of colour `colour`: each replica's
 * word compares its first FIRST_PLANES planes (compare_first, replica 0
 * first); a decided word is written, and a site with a word still tied goes
 * to the list (*count its length).  Returns whether it was listed. */
inline bool resident_first(__local word_t *lattice, __local const uchar *bond_masks, const uint *t,
                           clmc_philox_key key, uint sweep, uint colour, uint word, uint index,
                           uint first_realization, ulong *lcg, pending_sites list, __local uint *count)
{
    uint site = site_of_colour(index, colour), slot = ENERGY_WG;
    neighbourhood n = neighbours_of(site);
    word_t negative[NEIGHBOURS];
    site_negative(bond_masks, word, site, n, negative);
    for (uint replica = 0; replica < 2; replica++) {
        __local word_t *own = lattice + replica * SITES;
        word_t neighbour[NEIGHBOURS];
        word_t spin = site_words(own, site, n, neighbour);
        lane_comparison c = lane_comparison_start(spin, neighbour, negative);
        compare_first(&c, t, key, site, sweep, lane_stream(first_realization, 2 * word + replica), lcg);
        if (c.tied && slot == ENERGY_WG) {
            slot = atomic_inc(count);
            list.index[slot] = index;
            list.tied[slot] = 0; /* replica 0's, where replica 1 is listed alone */
        }
        if (c.tied) {
            list.less[replica * ENERGY_WG + slot] = c.less;
            list.tied[replica * ENERGY_WG + slot] = c.tied;
        } else {
            own[site] = spin ^ lanes_flipping(&c);
            if (slot < ENERGY_WG) list.tied[replica * ENERGY_WG + slot] = 0;
        }
    }
#ifdef RNG_LCG_RESEEDED
    if (slot < ENERGY_WG) list.state[slot] = *lcg;
#endif
    return slot < ENERGY_WG;
}

/* The second step of listed site `slot`: the remaining planes of each
 * replica's word still tied (compare_rest, replica 0 first), then its new
 * spins. */
inline void resident_finish(__local word_t *lattice, __local const uchar *bond_masks, const uint *t,
                            clmc_philox_key key, uint sweep, uint colour, uint word, uint first_realization,
                            pending_sites list, uint slot)
{
    uint index = list.index[slot], site = site_of_colour(index, colour);
    neighbourhood n = neighbours_of(site);
    word_t negative[NEIGHBOURS];
    site_negative(bond_masks, word, site, n, negative);
    ulong lcg = 0;
#ifdef RNG_LCG_RESEEDED
    lcg = list.state[slot];
#endif
    for (uint replica = 0; replica < 2; replica++) {
        word_t tied = list.tied[replica * ENERGY_WG + slot];
        if (!tied) continue;
        __local word_t *own = lattice + replica * SITES;
        word_t neighbour[NEIGHBOURS];
        word_t spin = site_words(own, site, n, neighbour);
        lane_comparison c = lane_comparison_start(spin, neighbour, negative);
        c.less = list.less[replica * ENERGY_WG + slot];
        c.tied = tied;
        compare_rest(&c, t, key, site, sweep, lane_stream(first_realization, 2 * word + replica), &lcg);
        own[site] = spin ^ lanes_flipping(&c);
    }
#ifdef RNG_LCG_RESEEDED
    list.handback[index % ENERGY_WG] = lcg;
#endif
}

/* The members' counts at site number `index` of colour 1 once its pass is
 * done, as ea_msc_member_update counts them (update_site). */
inline void resident_count(__local const word_t *lattice, __local const uchar *bond_masks, uint word, uint index,
                           word_t *counts)
{
    uint site = site_of_colour(index, 1);
    neighbourhood n = neighbours_of(site);
    word_t negative[NEIGHBOURS], new_spin[2], other_colour[2];
    site_negative(bond_masks, word, site, n, negative);
    for (uint replica = 0; replica < 2; replica++) {
        word_t neighbour[NEIGHBOURS];
        new_spin[replica] = site_words(lattice + replica * SITES, site, n, neighbour);
        count_replica_bonds(counts, new_spin[replica], neighbour, negative);
        other_colour[replica] = other_colour_word(site, neighbour);
    }
    count_agreement(counts, new_spin, other_colour);
}

#ifdef RNG_LCG_RESEEDED
#define ITEM_STREAMS (LCG_STREAMS / ENERGY_WG)
#if LCG_STREAMS % ENERGY_WG != 0
#error "the work-group's size must divide LCG_STREAMS"
#endif
#else
#define ITEM_STREAMS 1
#endif

/* The work-item's ITEM_STREAMS generators turned `turns` times by one:
 * lcg[q] becomes lcg[q + 1], the first the last. */
inline void turn_generators(ulong *lcg, uint turns)
{
    for (uint r = 0; r < turns; r++) {
        ulong first = lcg[0];
        for (uint q = 0; q + 1 < ITEM_STREAMS; q++) lcg[q] = lcg[q + 1];
        lcg[ITEM_STREAMS - 1] = first;
    }
}

/* The resident update (algorithm.resident): one work-group of ENERGY_WG
 * work-items per word (ENERGY_GROUPS 1) holds the word's two stacks in local
 * memory and makes `count` sweeps from first_sweep, each its colour-0 and
 * colour-1 pass.  A pass goes over the colour's sites in ENERGY_SITES rounds,
 * work-item lid taking site k ENERGY_WG + lid of round k, both replicas:
 * every word first compares its FIRST_PLANES planes (resident_first), then
 * the words still tied (a few percent) are shared out over the work-items
 * (resident_finish), so a warp does not wait for the slowest word of its
 * own.  Philox runs draw the numbers of the ordinary launches, so the
 * members are those of ea_msc_member_update bit for bit.  `measure` (1):
 * after the last pass the members are counted as ea_msc_member_update
 * counts them (resident_count), and with `fold_range` their least and
 * greatest energy go into their chunk's pair of chunk_range by atomic_min
 * and atomic_max (population annealing, fold_energy_range: one pair of
 * atomics a work-group).  gather_members > 0: population annealing's
 * bit gather, fused: the word's members are loaded from the old population
 * gather_from, member j from member gather_source[j] (lanes from
 * gather_members on 0), as pa_gather_lanes would have written them, and
 * written to `spins`.  The couplings are read once into a byte per site
 * (bond_masks), the temperature's thresholds (classes 1 .. 3) are an
 * argument (no buffer written at a temperature change), and the fold
 * of the measured pass uses the stacks' local words once they are written
 * back, where it fits there (FOLD_IN_LATTICE).  Every loop around a barrier
 * has the same trip count in every work-item. */
__kernel __attribute__((reqd_work_group_size(ENERGY_WG, 1, 1)))
void ea_msc_resident_update(__global word_t *spins, __global const word_t *negative_bonds,
                            uint4 thresholds, __global const word_t *lanes_below,
                            uint seed_lo, uint seed_hi, uint first_sweep, uint count, uint measure,
                            __global int *energy, __global int *overlap, __global const word_t *gather_from,
                            __global const uint *gather_source, uint gather_members,
                            __global int *chunk_range, uint fold_range,
                            uint first_realization /* ensemble.first_system */)
{
    __local word_t lattice[2 * SITES];
    __local int word_range[2];
    __local uchar bond_masks[SITES];
    /* The lattice is free for the fold once the members are written back. */
    __local word_t fold_words[FOLD_IN_LATTICE ? 1 : FOLD_WORDS];
    __local word_t *fold_buffer = FOLD_IN_LATTICE ? lattice : fold_words;
    __local pa_group_segments segments;
    __local uint list_index[ENERGY_WG], list_count[2];
    __local word_t list_less[2 * ENERGY_WG], list_tied[2 * ENERGY_WG];
#ifdef RNG_LCG_RESEEDED
    __local ulong list_state[ENERGY_WG], handback[ENERGY_WG];
    pending_sites list = {list_index, list_less, list_tied, list_state, handback};
#else
    pending_sites list = {list_index, list_less, list_tied, (__local ulong *)0, (__local ulong *)0};
#endif
    (void)lanes_below;
    uint lid = get_local_id(0), word = get_group_id(0);
    __global word_t *stacks = spins + (size_t)2 * word * SITES; /* T = 1: stacks 2 word and 2 word + 1 */
    /* The segments' barriers outside any branch (PoCL): none without a gather. */
    uint runs = pa_find_segments(gather_source, gather_members, word, &segments, lid, ENERGY_WG);
    for (uint i = lid; i < 2 * SITES; i += ENERGY_WG)
        lattice[i] = gather_members ? pa_gathered_word(gather_from, 2 * SITES, i, runs, &segments) : stacks[i];
    for (uint site = lid; site < SITES; site += ENERGY_WG) {
        neighbourhood n = neighbours_of(site);
        uint mask = 0;
        for (uint d = 0; d < DIM; d++)
            mask |= (negative_bonds[site * DIM + d] != 0 ? 1u : 0u) << (2 * d) |
                    (negative_bonds[n.down[d] * DIM + d] != 0 ? 2u : 0u) << (2 * d);
        bond_masks[site] = (uchar)mask;
    }
    if (lid < 2) list_count[lid] = 0;
    if (lid < 2) word_range[lid] = lid ? INT_MIN : INT_MAX;
    barrier(CLK_LOCAL_MEM_FENCE);
    uint t[3] = {thresholds.x, thresholds.y, thresholds.z};
    clmc_philox_key key = {{seed_lo, seed_hi}};
#ifdef RNG_LCG_RESEEDED
    /* The word's LCG_STREAMS generators for this launch: generator j, drawn
     * from Philox at (j, first_sweep, LCG_SEED_HIT) in the stream of the
     * word's first stack, gives the planes of the sites of index j,
     * j + LCG_STREAMS, ... in that order, whatever the work-group's size: at
     * a site replica 0's first LCG_FIRST_PLANES, replica 1's, then the
     * further planes of replica 0's word if still tied, then replica 1's
     * (resident_first, resident_finish).  The work-item holds generators
     * lid, lid + ENERGY_WG, ... (its site k draws from lcg[k %
     * ITEM_STREAMS]). */
    ulong lcg[ITEM_STREAMS];
    for (uint q = 0; q < ITEM_STREAMS; q++) {
        clmc_philox_ctr seed =
            clmc_random4(key, lid + q * ENERGY_WG, first_sweep, LCG_SEED_HIT, lane_stream(first_realization, 2 * word));
        lcg[q] = (ulong)seed.v[0] | (ulong)seed.v[1] << 32;
    }
#else
    ulong lcg[1] = {0}; /* unused: the Philox draws need no state */
#endif
    uint list_at = 0; /* the list this round fills; the other is cleared for the next */
    for (uint pass = 0; pass < 2 * count; pass++) {
        uint sweep = first_sweep + pass / 2, colour = pass % 2;
        /* Round k draws from lcg[0], then the generators turn by one (a
         * loop of constant trip count: they stay in registers), and after the
         * pass on to a whole turn, so that round k takes generator k %
         * ITEM_STREAMS in every pass.  (This loop is not unrolled: PoCL
         * miscompiles barriers in an unrolled loop.) */
        for (uint k = 0; k < ENERGY_SITES; k++) {
            uint index = k * ENERGY_WG + lid;
            bool listed = index < HALF_SITES && resident_first(lattice, bond_masks, t, key, sweep, colour, word, index,
                                                               first_realization, &lcg[0], list, &list_count[list_at]);
            barrier(CLK_LOCAL_MEM_FENCE);
            if (lid == 0) list_count[list_at ^ 1] = 0;
            for (uint slot = lid; slot < list_count[list_at]; slot += ENERGY_WG) /* no barrier in this loop */
                resident_finish(lattice, bond_masks, t, key, sweep, colour, word, first_realization, list, slot);
            barrier(CLK_LOCAL_MEM_FENCE);
#ifdef RNG_LCG_RESEEDED
            if (listed) lcg[0] = handback[lid];
#else
            (void)listed;
#endif
            turn_generators(lcg, 1);
            list_at ^= 1;
        }
        turn_generators(lcg, (ITEM_STREAMS - ENERGY_SITES % ITEM_STREAMS) % ITEM_STREAMS);
    }
    word_t counts[2 * ENERGY_LEVELS]; /* [satisfied bonds, agreeing sites][level] */
    for (uint k = 0; k < 2 * ENERGY_LEVELS; k++) counts[k] = 0;
    for (uint k = 0; measure && k < ENERGY_SITES; k++) { /* no barrier in this loop */
        uint index = k * ENERGY_WG + lid;
        if (index < HALF_SITES) resident_count(lattice, bond_masks, word, index, counts);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint i = lid; i < 2 * SITES; i += ENERGY_WG) stacks[i] = lattice[i];
    barrier(CLK_LOCAL_MEM_FENCE);
    /* The fold's barriers outside any branch (PoCL); without `measure` the
     * counters are 0 and nothing is stored. */
    int lowest = INT_MAX, highest = INT_MIN;
    store_members(counts, fold_buffer, word, 0, measure ? energy : (__global int *)0, overlap, &lowest, &highest);
    /* fold_range: the members' least and greatest energy into their chunk's
     * pair (population annealing's chunks of 256 members hold whole words) */
    if (measure && fold_range && lowest <= highest) {
        atomic_min(&word_range[0], lowest);
        atomic_max(&word_range[1], highest);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (measure && fold_range && lid == 0 && word_range[0] <= word_range[1])
        pa_fold_range(chunk_range, WORD_BITS * word, word_range[0], word_range[1]);
}
#else
/* Population annealing (T = 1): the same update as the colour-1 pass of a
 * step's last sweep, launched as the energy pass (ENERGY_GROUPS work-groups
 * of ENERGY_WG work-items per word, ENERGY_SITES sites each), which also
 * measures the members of the word: every bond joins a site of each colour,
 * so the satisfied bonds of the updated sites, counted with their new spins,
 * are all of them, and the replicas' agreement at the updated sites and at
 * their other-colour partners (unchanged since the colour-0 pass) covers
 * every site.  Member m = W word + lane gets the integers ea_member_totals
 * gives: energy[m] = -(sum of both replicas' bond sums) = 2 DIM N - 2
 * (satisfied bonds), overlap[m] = 2 (agreeing sites) - N.  One group per
 * word stores them; several add their shares atomically (group 0 adds the
 * constants) into buffers the host zeroed. */
__kernel __attribute__((reqd_work_group_size(ENERGY_WG, 1, 1)))
void ea_msc_member_update(__global word_t *spins, __global const word_t *negative_bonds,
                          __global const uint *thresholds, __global const word_t *lanes_below,
                          uint seed_lo, uint seed_hi, uint sweep, uint colour, __global int *energy,
                          __global int *overlap, uint first_realization /* ensemble.first_system */)
{
    __local word_t fold_buffer[ENERGY_WG / 2 * 2 * ENERGY_LEVELS];
    word_t counts[2 * ENERGY_LEVELS]; /* [satisfied bonds, agreeing sites][level] */
    for (uint k = 0; k < 2 * ENERGY_LEVELS; k++) counts[k] = 0;
    uint lid = get_local_id(0), launched = launch_group(REVERSE_ODD && colour);
    uint group = launched % ENERGY_GROUPS, word = launched / ENERGY_GROUPS;
    clmc_philox_key key = {{seed_lo, seed_hi}};
    for (uint k = 0; k < ENERGY_SITES; k++) {
        uint index = (group * ENERGY_SITES + k) * ENERGY_WG + lid;
        if (index < HALF_SITES)
            update_site(spins, negative_bonds, thresholds, lanes_below, key, sweep, colour, word, 0, index, counts,
                        true, first_realization);
    }
    int lowest = INT_MAX, highest = INT_MIN; /* unused */
    store_members(counts, fold_buffer, word, group, energy, overlap, &lowest, &highest);
}
#endif
#else
/* The same update as the last colour pass of a sweep that an exchange
 * follows (built as a second program): every bond joins a site of each
 * colour, so the satisfied bonds of the updated sites, counted with their new
 * spins, are all the satisfied bonds.  Work-groups of ENERGY_WG work-items,
 * ENERGY_GROUPS per (word, place), each work-item updating ENERGY_SITES
 * sites (ENERGY_WG apart, the last groups partly idle) and counting their
 * satisfied bonds per lane (bit-sliced, one counter per replica); the group
 * folds the counters and adds them to energy_counts[config] atomically (the
 * exchange that reads the counts sets them back to 0). */
__kernel __attribute__((reqd_work_group_size(ENERGY_WG, 1, 1)))
void ea_msc_update(__global word_t *spins, __global const word_t *negative_bonds,
                   __global const uint *thresholds, __global const word_t *lanes_below,
                   uint seed_lo, uint seed_hi, uint sweep, uint colour, __global int *energy_counts,
                   TEMPERING_REACH_ARGUMENTS, uint first_realization /* ensemble.first_system */)
{
    /* The reach pass of the device exchange that follows (none without one:
     * n_systems 0). */
    tempering_reach_draws(get_global_id(0), get_global_size(0), TEMPERING_REACH_NAMES);
    __local word_t fold_buffer[ENERGY_WG / 2 * 2 * ENERGY_LEVELS];
    word_t satisfied[2 * ENERGY_LEVELS]; /* [replica][level] */
    for (uint k = 0; k < 2 * ENERGY_LEVELS; k++) satisfied[k] = 0;
    uint lid = get_local_id(0), launched = launch_group(REVERSE_ODD && colour);
    uint group = launched % ENERGY_GROUPS, pair = launched / ENERGY_GROUPS;
    uint word = pair / TEMPERATURES, place = pair % TEMPERATURES;
    clmc_philox_key key = {{seed_lo, seed_hi}};
    for (uint k = 0; k < ENERGY_SITES; k++) {
        uint index = (group * ENERGY_SITES + k) * ENERGY_WG + lid;
        if (index < HALF_SITES)
            update_site(spins, negative_bonds, thresholds, lanes_below, key, sweep, colour, word, place, index,
                        satisfied, true, first_realization);
    }
    fold_tallies(satisfied, 2, ENERGY_LEVELS, ENERGY_ITEM_LEVELS, ENERGY_FOLD_ROUNDS, ENERGY_WG, fold_buffer, lid);
    if (lid == 0)
        for (uint k = 0; k < 2 * ENERGY_LEVELS; k++) fold_buffer[k] = satisfied[k];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint i = lid; i < 2 * WORD_BITS; i += ENERGY_WG) {
        uint replica = i / WORD_BITS, lane = i % WORD_BITS, count = 0;
        for (uint level = 0; level < ENERGY_LEVELS; level++)
            count |= (uint)((fold_buffer[replica * ENERGY_LEVELS + level] >> lane) & 1u) << level;
        uint config = (2 * (WORD_BITS * word + lane) + replica) * TEMPERATURES + place;
        atomic_add(&energy_counts[config], (int)count);
    }
}
#endif
