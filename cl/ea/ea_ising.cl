/* Edwards-Anderson Ising spin glass, the model's own program: couplings,
 * initial spins, checkerboard Metropolis updates and measurements (layouts,
 * defines and random numbers: ea_ising.h). */
#include "ea/ea_ising.h"

/* Bimodal couplings as the host's clmc_ea_coupling draws them: counter (site,
 * realization, direction, COUPLINGS), J = +1 where bit 31 of v[0] is set.
 * Integer arithmetic, so every device builds the same disorder; Gaussian
 * couplings are drawn on the host.  UNIFORM: all J = +1. */
inline bool negative_coupling(clmc_philox_key key, uint realization, uint bond)
{
#if UNIFORM
    (void)key, (void)realization, (void)bond;
    return false;
#else
    return (clmc_random4(key, bond / DIM, realization, bond % DIM, CLMC_PURPOSE_COUPLINGS).v[0] >> 31) == 0;
#endif
}

#if MSC
/* One work-item per (word, bond): bit b for realization W word + b (run-wide
 * first_system + W word + b); population annealing (SHARED_DISORDER): one
 * word per bond, realization 0's coupling in every lane. */
__kernel void ea_couplings(__global word_t *negative_bonds, uint seed_lo, uint seed_hi, uint first_system)
{
    uint item = get_global_id(0);
    if (item >= COUPLING_WORDS * SITES * DIM) return;
    clmc_philox_key key = {{seed_lo, seed_hi}};
    uint word = item / (SITES * DIM), bond = item % (SITES * DIM);
    word_t negative = 0;
#if SHARED_DISORDER
    (void)word, (void)first_system;
    negative = all_lanes_if(negative_coupling(key, 0, bond));
#else
    for (uint lane = 0; lane < WORD_BITS; lane++)
        if (negative_coupling(key, first_system + WORD_BITS * word + lane, bond)) negative |= (word_t)1 << lane;
#endif
    negative_bonds[item] = negative;
}
#elif !GAUSSIAN
/* One work-item per (realization, bond). */
__kernel void ea_couplings(__global char *couplings, uint seed_lo, uint seed_hi, uint first_system)
{
    uint item = get_global_id(0);
    if (item >= REALIZATIONS * SITES * DIM) return;
    clmc_philox_key key = {{seed_lo, seed_hi}};
    /* Population annealing: realization 0 whichever members this device holds. */
    uint first = SHARED_DISORDER ? 0u : first_system;
    couplings[item] = negative_coupling(key, first + item / (SITES * DIM), item % (SITES * DIM)) ? -1 : 1;
}
#endif

#if !MSC
#if GAUSSIAN
typedef float coupling;
typedef float local_field;
#else
typedef char coupling;
typedef int local_field;
#endif

/* Random numbers of configurations 4 quad .. 4 quad + 3 at one site: one
 * independent draw, or the shared number of each configuration's stack
 * (without tempering: realizations 2 quad and 2 quad + 1, which lie in one
 * word where first_system is even, replicas 0 and 1, so one draw). */
inline clmc_philox_ctr metropolis_randoms(clmc_philox_key key, uint site, uint sweep, uint quad, uint first_system)
{
#if SHARED_RANDOMS
    if (TEMPERATURES == 1 && first_system % 2 == 0) {
        clmc_philox_ctr shared = shared_randoms(key, site, sweep, (first_system + 2 * quad) / WORD_BITS, 0);
        clmc_philox_ctr r = {{shared.v[0], shared.v[1], shared.v[0], shared.v[1]}};
        return r;
    }
    clmc_philox_ctr r;
    for (uint c = 0; c < 4; c++) {
        uint config = 4 * quad + c, chain = config / TEMPERATURES;
        uint word = (first_system + chain / 2) / WORD_BITS; /* run-wide */
        r.v[c] = shared_randoms(key, site, sweep, word, config % TEMPERATURES).v[chain % 2];
    }
    return r;
#else
    uint first_quad = FIRST_CONFIG(first_system) / 4;
    if (FIRST_CONFIG(first_system) % 4 == 0)
        return clmc_random4(key, site, sweep, 0, CLMC_STREAM(CLMC_PURPOSE_METROPOLIS, INDEPENDENT | (first_quad + quad)));
    /* Configurations 4 quad .. 4 quad + 3 are run-wide 4 quad + FIRST_CONFIG
     * .., two past a multiple of four: the upper half of one draw and the
     * lower half of the next. */
    clmc_philox_ctr low = clmc_random4(key, site, sweep, 0,
                                       CLMC_STREAM(CLMC_PURPOSE_METROPOLIS, INDEPENDENT | (first_quad + quad)));
    clmc_philox_ctr high = clmc_random4(key, site, sweep, 0,
                                        CLMC_STREAM(CLMC_PURPOSE_METROPOLIS, INDEPENDENT | (first_quad + quad + 1)));
    clmc_philox_ctr r = {{low.v[2], low.v[3], high.v[0], high.v[1]}};
    return r;
#endif
}

/* Metropolis decision for a spin with local field h = sum_j J_ij s_j.
 * Integer couplings: satisfied bonds n give dE = 4 (n - NEIGHBOURS/2), and
 * r < threshold is an exact integer test.  Gaussian couplings: exp in float,
 * so results may differ between devices in the last bits. */
inline bool metropolis_accept(int spin, local_field field, uint r, __global const uint *thresholds, float beta)
{
#if GAUSSIAN
    float energy_change = 2.0f * (float)spin * field;
    return energy_change <= 0.0f || (float)(r >> 8) * 0x1.0p-24f < exp(-beta * energy_change);
#else
    (void)beta;
    uint satisfied = (uint)(NEIGHBOURS + spin * field) / 2;
    return satisfied <= NEIGHBOURS / 2 || r < thresholds[satisfied - NEIGHBOURS / 2 - 1];
#endif
}

__kernel void ea_naive_init(__global char *spins, uint seed_lo, uint seed_hi, uint ordered, uint run,
                            uint first_system)
{
    uint item = get_global_id(0);
    if (item >= CONFIGURATIONS * SITES) return;
    uint config = item / SITES, site = item % SITES, chain = config / TEMPERATURES;
    uint realization = first_system + chain / 2; /* run-wide */
    clmc_philox_key key = {{seed_lo, seed_hi}};
    uint bits = initial_bits32(key, site, config % TEMPERATURES, realization / 32, chain % 2, ordered, run);
    spins[item] = (bits >> (realization % 32)) & 1u ? 1 : -1;
}

inline void update_spin(__global char *own, __global const coupling *bonds, uint site, const neighbourhood *n,
                        uint r, __global const uint *thresholds, float beta)
{
    local_field field = 0;
    for (uint d = 0; d < DIM; d++)
        field += bonds[site * DIM + d] * own[n->up[d]] + bonds[n->down[d] * DIM + d] * own[n->down[d]];
    int spin = own[site];
    if (metropolis_accept(spin, field, r, thresholds, beta)) own[site] = (char)-spin;
}

/* One work-item per (quad of four configurations, site of colour `colour`):
 * the four share one Philox draw.  per_config 1: configuration c's
 * thresholds and beta are row c; 0: every configuration's are row 0
 * (population annealing, one beta for all members). */
__kernel void ea_naive_update(__global char *spins, __global const coupling *couplings,
                              __global const uint *thresholds, __global const float *betas,
                              uint seed_lo, uint seed_hi, uint sweep, uint colour, uint per_config,
                              uint first_system)
{
    uint item = get_global_id(0);
    if (item >= QUADS * HALF_SITES) return;
    uint quad = item / HALF_SITES;
    uint site = site_of_colour(item % HALF_SITES, colour);
    neighbourhood n = neighbours_of(site);
    clmc_philox_key key = {{seed_lo, seed_hi}};
    clmc_philox_ctr r = metropolis_randoms(key, site, sweep, quad, first_system);
#pragma unroll
    for (uint c = 0; c < 4; c++) {
        uint config = 4 * quad + c;
        if (config < CONFIGURATIONS)
            update_spin(spins + (size_t)config * SITES,
                        couplings + (size_t)DISORDER_OF(config) * SITES * DIM, site, &n,
                        r.v[c], thresholds + 3 * config * per_config, betas[config * per_config]);
    }
}
#else
/* run: population annealing's independent run (as ea_naive_init), else 0. */
__kernel void ea_msc_init(__global word_t *spins, uint seed_lo, uint seed_hi, uint ordered, uint run,
                          uint first_system)
{
    uint item = get_global_id(0);
    if (item >= STACKS * SITES) return;
    clmc_philox_key key = {{seed_lo, seed_hi}};
    uint site = item % SITES, stack = item / SITES, place = stack % TEMPERATURES;
    uint word = stack / (2 * TEMPERATURES), replica = (stack / TEMPERATURES) % 2;
#if WORD_BITS == 64
    uint part = 2 * word + first_system / 32; /* run-wide; first_system % WORD_BITS == 0 */
    spins[item] = (ulong)initial_bits32(key, site, place, part, replica, ordered, run)
                | (ulong)initial_bits32(key, site, place, part + 1, replica, ordered, run) << 32;
#else
    spins[item] = initial_bits32(key, site, place, word + first_system / 32, replica, ordered, run);
#endif
}

#include "ea/ea_msc_update.h"

/* One work-item per (word, place, site of colour `colour`). */
__kernel void ea_msc_update(__global word_t *spins, __global const word_t *negative_bonds,
                            __global const uint *thresholds, __global const word_t *lanes_below,
                            uint seed_lo, uint seed_hi, uint sweep, uint colour, uint first_system)
{
    uint item = launch_item(REVERSE_ODD && colour);
    if (item >= STACKS / 2 * HALF_SITES) return;
    clmc_philox_key key = {{seed_lo, seed_hi}};
    uint pair = item / HALF_SITES;
    update_site(spins, negative_bonds, thresholds, lanes_below, key, sweep, colour, pair / TEMPERATURES,
                pair % TEMPERATURES, item % HALF_SITES, (word_t *)0, false, first_system);
}
#endif

#if !MSC
/* Sums sums[k * MEASURE_WG + lid] (k = 0, 1, 2) over lids equal modulo
 * `keep`, leaving the results in lids 0 .. keep - 1. */
inline void reduce_sums(__local long *sums, uint lid, uint keep)
{
    for (uint stride = MEASURE_WG / 2; stride >= keep; stride /= 2) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid < stride)
            for (uint k = 0; k < 3; k++) sums[k * MEASURE_WG + lid] += sums[k * MEASURE_WG + lid + stride];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}

/* Partials of configuration c from work-group g: its bond sum
 * sum_<ij> J_ij s_i s_j, its overlap sum_i s_i s'_i with its partner, and 0;
 * ea_sum_groups adds those of the groups. */
inline void store_partials(__global long *partials, uint config, uint group, __local const long *sums, uint lid)
{
    __global long *out = partials + 3 * ((size_t)config * MEASURE_GROUPS + group);
    for (uint k = 0; k < 3; k++) out[k] = sums[k * MEASURE_WG + lid];
}

/* Bond weight as an exact integer: J itself, or J 2^24 rounded for Gaussian J. */
inline long bond_weight(coupling j)
{
#if GAUSSIAN
    return convert_long_rte(j * COUPLING_FIXED_POINT);
#else
    return (long)j;
#endif
}

/* Work-group (configuration, g) sums sites g WG + lid, stepping by the groups. */
__kernel __attribute__((reqd_work_group_size(MEASURE_WG, 1, 1)))
void ea_naive_measure(__global const char *spins, __global const coupling *couplings,
                      __global const uint *partners, __global long *partials, uint with_overlap)
{
    __local long sums[3 * MEASURE_WG];
    uint lid = get_local_id(0), config = get_group_id(0) / MEASURE_GROUPS;
    uint group = get_group_id(0) % MEASURE_GROUPS;
    __global const char *own = spins + (size_t)config * SITES, *partner = spins + (size_t)partners[config] * SITES;
    __global const coupling *bonds = couplings + (size_t)DISORDER_OF(config) * SITES * DIM;
    long bond_sum = 0, overlap = 0;
    for (uint site = group * MEASURE_WG + lid; site < SITES; site += MEASURE_GROUPS * MEASURE_WG) {
        int s = own[site];
        neighbourhood n = neighbours_of(site);
        for (uint d = 0; d < DIM; d++) bond_sum += bond_weight(bonds[site * DIM + d]) * (s * own[n.up[d]]);
        if (with_overlap) overlap += s * partner[site];
    }
    sums[lid] = bond_sum;
    sums[MEASURE_WG + lid] = overlap;
    sums[2 * MEASURE_WG + lid] = 0;
    reduce_sums(sums, lid, 1);
    if (lid == 0) store_partials(partials, config, group, sums, lid);
}
#else
/* Bit-sliced per-lane counters: c[k] holds bit k of every lane's count;
 * TALLY_LEVELS (from the host) covers the largest count of a work-item. */

/* Adds carry << level to every lane's count. */
inline void tally_at(word_t *c, word_t carry, uint level)
{
#pragma unroll
    for (uint k = 0; k < TALLY_LEVELS; k++) {
        if (k < level) continue;
        word_t next = c[k] & carry;
        c[k] ^= carry;
        carry = next;
        if (!carry) break;
    }
}

/* Count of lane `lane` in a bit-sliced counter. */
inline uint tally_of(const word_t *c, uint lane)
{
    uint count = 0;
#pragma unroll
    for (uint k = 0; k < TALLY_LEVELS; k++) count |= (uint)((c[k] >> lane) & 1u) << k;
    return count;
}

/* Work-group (stack, g) sums sites g WG + lid, stepping by the groups, one
 * word (W configurations) at a time into bit-sliced counters of satisfied
 * bonds and of spins agreeing with the partner (the host keeps a work-item's
 * counts below 2^TALLY_LEVELS after folding 2^FOLD_ROUNDS of them, and a
 * group's below 2^32); then the folded work-items add their lanes' counts
 * into the group's local sums, lanes in a staggered order so that few
 * work-items hit one address at a time.  The
 * partners of a stack's lanes lie in the other replica's stacks of the same
 * word: partner_lanes[stack][p] marks the lanes whose partner is in place p
 * (in lane_masks after lanes_below).
 * with_overlap = 0 (tempering energies) skips the overlaps. */
__kernel __attribute__((reqd_work_group_size(MEASURE_WG, 1, 1)))
void ea_msc_measure(__global const word_t *spins, __global const word_t *negative_bonds,
                    __global const word_t *lane_masks, __global long *partials, uint with_overlap)
{
    __local uint lane_sums[2 * WORD_BITS], group_sites;
    __local word_t fold_buffer[MEASURE_WG / 2 * TALLY_LEVELS];
    uint lid = get_local_id(0);
    uint stack = get_group_id(0) / MEASURE_GROUPS, group = get_group_id(0) % MEASURE_GROUPS;
    uint word = stack / (2 * TEMPERATURES), replica = (stack / TEMPERATURES) % 2;
    for (uint i = lid; i < 2 * WORD_BITS; i += MEASURE_WG) lane_sums[i] = 0;
    if (lid == 0) group_sites = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    __global const word_t *own = spins + (size_t)stack * SITES;
    __global const word_t *others = spins + (size_t)(2 * word + 1 - replica) * TEMPERATURES * SITES;
    __global const word_t *partner_lanes = lane_masks + (size_t)STACKS * (TEMPERATURES + 1);
    __global const word_t *partner_mask = partner_lanes + (size_t)stack * TEMPERATURES;
    __global const word_t *bonds = negative_bonds + (size_t)BOND_WORD(word) * SITES * DIM;
    word_t satisfied[TALLY_LEVELS], agreeing[TALLY_LEVELS];
    for (uint k = 0; k < TALLY_LEVELS; k++) satisfied[k] = agreeing[k] = 0;
    uint sites = 0;
    for (uint site = group * MEASURE_WG + lid; site < SITES; site += MEASURE_GROUPS * MEASURE_WG) {
        word_t s = own[site];
        neighbourhood n = neighbours_of(site);
        /* The site's satisfied bonds up to DIM = 3 as a 2-bit number (sum, high). */
        word_t sum = 0, high = 0;
        for (uint d = 0; d < DIM; d++) {
            word_t bond = ~(s ^ own[n.up[d]] ^ bonds[site * DIM + d]);
            high |= sum & bond;
            sum ^= bond;
        }
        tally_at(satisfied, sum, 0);
        tally_at(satisfied, high, 1);
        if (with_overlap) {
            word_t agree = 0;
            for (uint place = 0; place < TEMPERATURES; place++) {
                word_t lanes = partner_mask[place];
                if (lanes) agree |= ~(s ^ others[(size_t)place * SITES + site]) & lanes;
            }
            tally_at(agreeing, agree, 0);
        }
        sites++;
    }
    atomic_add(&group_sites, sites);
    fold_tallies(satisfied, 1, TALLY_LEVELS, TALLY_LEVELS, FOLD_ROUNDS, MEASURE_WG, fold_buffer, lid);
    if (with_overlap) fold_tallies(agreeing, 1, TALLY_LEVELS, TALLY_LEVELS, FOLD_ROUNDS, MEASURE_WG, fold_buffer, lid);
    if (lid < (MEASURE_WG >> FOLD_ROUNDS))
        for (uint step = 0; step < WORD_BITS; step++) {
            uint lane = (lid + step) % WORD_BITS;
            atomic_add(&lane_sums[lane], tally_of(satisfied, lane));
            if (with_overlap) atomic_add(&lane_sums[WORD_BITS + lane], tally_of(agreeing, lane));
        }
    barrier(CLK_LOCAL_MEM_FENCE);
    /* Population annealing's last word may hold fewer members (nearest_integer's room). */
    for (uint lane = lid; lane < WORD_BITS && WORD_BITS * word + lane < REALIZATIONS; lane += MEASURE_WG) {
        uint config = (2 * (WORD_BITS * word + lane) + replica) * TEMPERATURES + stack % TEMPERATURES;
        __global long *out = partials + 3 * ((size_t)config * MEASURE_GROUPS + group);
        out[0] = 2 * (long)lane_sums[lane] - DIM * (long)group_sites;
        out[1] = with_overlap ? 2 * (long)lane_sums[WORD_BITS + lane] - (long)group_sites : 0;
        out[2] = 0;
    }
}
#endif

#if TEMPERATURES == 1
/* Population annealing: member r is the replica pair (2 r, 2 r + 1); from
 * one slot of totals, its H = -(both bond sums) and overlap sum_i s_i s'_i. */
__kernel void ea_member_totals(__global const long *totals, uint slot, __global int *energy, __global int *overlap)
{
    uint member = get_global_id(0);
    if (member >= REALIZATIONS) return;
    __global const long *t = totals + ((size_t)slot * CONFIGURATIONS + 2 * (size_t)member) * 3;
    energy[member] = -(int)(t[0] + t[3]);
    overlap[member] = (int)t[1];
}
#endif

/* totals[batch][config][k] = sum over the work-groups g of partials[config][g][k]:
 * one measurement's results, kept on the device until the batch is read. */
__kernel void ea_sum_groups(__global const long *partials, __global long *totals, uint batch)
{
    uint item = get_global_id(0);
    if (item >= 3 * CONFIGURATIONS) return;
    uint config = item / 3, k = item % 3;
    __global const long *p = partials + 3 * (size_t)config * MEASURE_GROUPS + k;
    long sum = 0;
    for (uint g = 0; g < MEASURE_GROUPS; g++) sum += p[3 * g];
    totals[(size_t)batch * 3 * CONFIGURATIONS + item] = sum;
}

#if !MSC && !GAUSSIAN && defined(RESIDENT_QUADS)
/* Population annealing's resident update of the naive layout (built with
 * RESIDENT_QUADS, RESIDENT_ITEMS and RESIDENT_ROUNDS from the host;
 * SHARED_DISORDER, one temperature, every member at row 0 of the
 * thresholds): a work-group holds RESIDENT_QUADS
 * quads of configurations (a quad: members 2 q and 2 q + 1, both replicas
 * each) in local memory, a word per site and quad whose byte c is 1 where
 * configuration 4 q + c has spin +1, and makes `count` sweeps from
 * first_sweep in one launch.  Each phase (colour 0, then 1, as
 * ea_naive_update) updates a quad's site with the same Philox draw
 * (metropolis_randoms) and the same integer test, so the members are
 * bit-identical to the ordinary kernels'.  measure != 0: every member's H
 * (both replicas) and overlap, the integers of ea_member_totals, go to
 * energy and overlap.  gather_members > 0: member j is loaded from member
 * pa_source_of(j, gather_source, gather_members) of gather_from (population
 * annealing's gather, fused) and written to spins.  Every work-item reaches
 * every barrier (loops of the same trip count in all). */
#include "ensembles/population_source.h"

/* A phase's tasks (a site of a quad each), RESIDENT_ROUNDS rounds of
 * RESIDENT_ITEMS work-items. */
#define RESIDENT_TASKS (RESIDENT_QUADS * HALF_SITES)
#define LANE_ONES 0x01010101u

/* Lane-wise count of the unsatisfied bonds of a site (its word `spins`) to
 * its +d neighbours, and to its -d ones where `down` (bit 2 d of bond_mask:
 * the +d bond is negative, bit 2 d + 1: the -d bond). */
inline uint unsatisfied_lanes(__local const uint *quad, uint spins, const neighbourhood *n, uint bond_mask, bool down)
{
    uint count = 0;
    for (uint d = 0; d < DIM; d++) {
        count += spins ^ quad[n->up[d]] ^ (((bond_mask >> (2 * d)) & 1u) * LANE_ONES);
        if (down) count += spins ^ quad[n->down[d]] ^ (((bond_mask >> (2 * d + 1)) & 1u) * LANE_ONES);
    }
    return count;
}

/* A work-item's site of a phase: the site, its neighbours and bond mask. */
typedef struct {
    uint site, bond_mask;
    neighbourhood n;
} resident_place;

inline resident_place resident_place_of(uint index, uint colour, __local const uchar *bond_masks)
{
    resident_place p;
    p.site = site_of_colour(index, colour);
    p.bond_mask = bond_masks[p.site];
    p.n = neighbours_of(p.site);
    return p;
}

/* One site of a quad: configuration c flips where metropolis_accept would,
 * with number r.v[c] (satisfied bonds NEIGHBOURS minus lane c's count). */
inline void resident_quad_site(__local uint *quad, const resident_place *p, clmc_philox_ctr r, const uint *threshold)
{
    uint spins = quad[p->site], unsatisfied = unsatisfied_lanes(quad, spins, &p->n, p->bond_mask, true), flips = 0;
#pragma unroll
    for (uint c = 0; c < 4; c++) {
        uint satisfied = NEIGHBOURS - ((unsatisfied >> (8 * c)) & 0xFFu);
        bool accept = satisfied <= NEIGHBOURS / 2 || r.v[c] < threshold[satisfied - NEIGHBOURS / 2 - 1];
        flips |= (uint)accept << (8 * c);
    }
    quad[p->site] = spins ^ flips;
}

__kernel __attribute__((reqd_work_group_size(RESIDENT_ITEMS, 1, 1)))
void ea_naive_resident_update(__global char *spins, __global const coupling *couplings,
                              __global const uint *thresholds, __global const float *betas,
                              uint seed_lo, uint seed_hi, uint first_sweep, uint count, uint measure,
                              __global int *energy, __global int *overlap, __global const char *gather_from,
                              __global const uint *gather_source, uint gather_members, uint first_system)
{
    __local uint lattice[RESIDENT_QUADS * SITES];
    __local uchar bond_masks[SITES];
    __local int sums[RESIDENT_QUADS * 6]; /* per quad: four bond sums' unsatisfied counts, two overlaps' agreements */
    uint lid = get_local_id(0), first_quad = get_group_id(0) * RESIDENT_QUADS;
    (void)betas;
    __global const char *load = gather_members ? gather_from : spins;
    for (uint i = lid; i < RESIDENT_QUADS * SITES; i += RESIDENT_ITEMS) {
        uint quad = first_quad + i / SITES, site = i % SITES, lanes = 0;
        for (uint c = 0; c < 4; c++) {
            uint config = 4 * quad + c;
            if (config >= CONFIGURATIONS) continue;
            uint member = pa_source_of(config / 2, gather_source, gather_members);
            lanes |= (uint)(load[(size_t)(2 * member + config % 2) * SITES + site] > 0) << (8 * c);
        }
        lattice[i] = lanes;
    }
    for (uint site = lid; site < SITES; site += RESIDENT_ITEMS) {
        neighbourhood n = neighbours_of(site);
        uint mask = 0;
        for (uint d = 0; d < DIM; d++)
            mask |= (couplings[site * DIM + d] < 0 ? 1u : 0u) << (2 * d) |
                    (couplings[n.down[d] * DIM + d] < 0 ? 2u : 0u) << (2 * d);
        bond_masks[site] = (uchar)mask;
    }
    for (uint i = lid; i < RESIDENT_QUADS * 6; i += RESIDENT_ITEMS) sums[i] = 0;
    uint threshold[NEIGHBOURS / 2];
    for (uint k = 0; k < NEIGHBOURS / 2; k++) threshold[k] = thresholds[k];
    clmc_philox_key key = {{seed_lo, seed_hi}};
    barrier(CLK_LOCAL_MEM_FENCE);
#if RESIDENT_ROUNDS == 1
    /* One task a phase (the usual case): its two places found once. */
    uint slot = lid / HALF_SITES, own_quad = first_quad + slot; /* the group's quad slot, the quad */
    bool busy = lid < RESIDENT_TASKS && own_quad < QUADS;
    resident_place places[2] = {resident_place_of(lid % HALF_SITES, 0, bond_masks),
                                resident_place_of(lid % HALF_SITES, 1, bond_masks)};
#endif
    for (uint t = 0; t < count; t++)
        for (uint colour = 0; colour < 2; colour++) {
#if RESIDENT_ROUNDS == 1
            if (busy)
                resident_quad_site(lattice + slot * SITES, &places[colour],
                                   metropolis_randoms(key, places[colour].site, first_sweep + t, own_quad, first_system),
                                   threshold);
#else
#pragma unroll
            for (uint round = 0; round < RESIDENT_ROUNDS; round++) {
                uint task = round * RESIDENT_ITEMS + lid, q = task / HALF_SITES, quad = first_quad + q;
                if (task >= RESIDENT_TASKS || quad >= QUADS) continue;
                resident_place place = resident_place_of(task % HALF_SITES, colour, bond_masks);
                resident_quad_site(lattice + q * SITES, &place,
                                   metropolis_randoms(key, place.site, first_sweep + t, quad, first_system), threshold);
            }
#endif
            barrier(CLK_LOCAL_MEM_FENCE);
        }
    /* The measurement: bonds to +x, +y(, +z) once each, and the replicas'
     * agreement (lanes 0 and 1, 2 and 3); barriers outside the (uniform)
     * branch. */
    if (measure)
        for (uint q = 0; q < RESIDENT_QUADS; q++) {
            __local const uint *quad = lattice + q * SITES;
            int unsatisfied[4] = {0, 0, 0, 0}, agreeing[2] = {0, 0};
            for (uint site = lid; site < SITES; site += RESIDENT_ITEMS) {
                neighbourhood n = neighbours_of(site);
                uint s = quad[site], lanes = unsatisfied_lanes(quad, s, &n, bond_masks[site], false);
                uint agree = ~(s ^ (s >> 8)) & 0x00010001u;
                for (uint c = 0; c < 4; c++) unsatisfied[c] += (int)((lanes >> (8 * c)) & 0xFFu);
                agreeing[0] += (int)(agree & 1u);
                agreeing[1] += (int)(agree >> 16);
            }
            for (uint c = 0; c < 4; c++) atomic_add(&sums[6 * q + c], unsatisfied[c]);
            atomic_add(&sums[6 * q + 4], agreeing[0]);
            atomic_add(&sums[6 * q + 5], agreeing[1]);
        }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (measure && lid < 2 * RESIDENT_QUADS) {
        uint q = lid / 2, m = lid % 2, member = 2 * (first_quad + q) + m;
        if (member < REALIZATIONS) { /* H = -(bond sums), a bond sum DIM N - 2 (unsatisfied) */
            __local const int *quad_sums = sums + 6 * q;
            energy[member] = 2 * (quad_sums[2 * m] + quad_sums[2 * m + 1]) - 2 * DIM * (int)SITES;
            overlap[member] = 2 * quad_sums[4 + m] - (int)SITES;
        }
    }
    for (uint i = lid; i < RESIDENT_QUADS * SITES; i += RESIDENT_ITEMS) {
        uint quad = first_quad + i / SITES, site = i % SITES, lanes = lattice[i];
        for (uint c = 0; c < 4; c++) {
            uint config = 4 * quad + c;
            if (config < CONFIGURATIONS) spins[(size_t)config * SITES + site] = ((lanes >> (8 * c)) & 1u) ? 1 : -1;
        }
    }
}
#endif
