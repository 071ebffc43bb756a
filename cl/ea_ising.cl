/* Edwards-Anderson Ising spin glass: checkerboard Metropolis updates of many
 * disorder realizations with two replicas each, single-spin coded (naive) or
 * asynchronously multi-spin coded (msc: bit b of a word is realization b),
 * plus exact integer reductions of replica energies and overlaps.
 *
 * Defines: DIM (2|3), EDGE (L), REALIZATIONS, TEMPERATURES (of the tempering
 * ensemble, 1 without), MSC (0|1), GAUSSIAN (0|1, naive only), UNIFORM (0|1),
 * SHARED_RANDOMS (0|1, naive only; msc always shares), WORD_BITS (32|64:
 * realizations per msc word, word_t uint or ulong; also the realizations
 * whose random numbers naive shares), MEASURE_WG (power of two, >= WORD_BITS
 * for msc), MEASURE_GROUPS (work-groups per configuration (naive) or per
 * stack (msc)), TALLY_LEVELS and FOLD_ROUNDS (msc measurement counters),
 * ENERGY_PASS (0|1: ea_msc_update also counts the satisfied bonds, for the
 * tempering energies; then ENERGY_WG, ENERGY_GROUPS, ENERGY_SITES,
 * ENERGY_LEVELS, ENERGY_FOLD_ROUNDS size its work-groups and counters),
 * REVERSE_ODD (0|1: the msc update's colour-1 launches take their work-groups
 * in reverse order, launch_group in common/lattice.h; results unchanged),
 * EXCHANGE_FUSED (0|1: build ea_msc_exchange, tempering exchanges and lane
 * masks in one kernel, with EXCHANGE_SPREAD work-items per system and
 * PLACE_BITS, the bits of a place or temperature 0 .. TEMPERATURES - 1).
 *
 * Configurations: config = chain TEMPERATURES + place, chain = 2 realization
 * + replica (place: the configuration's slot in its chain's tempering
 * ensemble, 0 without tempering).  msc stacks: stack = (2 word + replica)
 * TEMPERATURES + place holds the configurations (realization, replica, place)
 * of realizations W word .. W word + W - 1 (W = WORD_BITS), one per bit.
 * Sites are row-major, x fastest; bond (site, d) joins site and its +d
 * neighbour.  Buffers: naive spins [config][site] as chars +-1; msc spins
 * [stack][site] as words, bit set = spin up.  Couplings: naive
 * [realization][site][d] as char +-1 or float; msc [word][site][d], bit b set
 * = J = -1 in realization W word + b.  Metropolis thresholds
 * floor(exp(-4 k beta) 2^32), k = 1 .. 3: naive [config][k - 1]; msc
 * [k - 1][temperature] (betas increasing, so each row is non-increasing).
 * naive betas [config]; msc lanes_below [stack][j], j = 0 .. TEMPERATURES:
 * the bits of the stack whose configurations sit at temperatures below j,
 * followed in the same buffer by partner_lanes [stack][place] (below).
 * naive partners [config]: the other replica's configuration at the same
 * temperature.
 *
 * Random numbers (Philox counter: unit, sweep, hit, CLMC_STREAM(purpose, stream)):
 *   initial spins          (site, place, 0, STREAM(INIT, 2 (realization / 32) + replica)).v[0],
 *                          bit realization % 32, whatever WORD_BITS (a 64-bit word
 *                          joins the draws of its two halves)
 *   shared Metropolis      (site, sweep, 0, STREAM(METROPOLIS, word TEMPERATURES + place))
 *                          .v[replica], one number for the W configurations of a
 *                          stack (the msc kernel's, which updates both replicas of a
 *                          word at once)
 *   independent Metropolis (site, sweep, 0, STREAM(METROPOLIS, INDEPENDENT | config / 4))
 *                          .v[config % 4]: one draw serves four configurations;
 *                          the INDEPENDENT bit keeps these apart from the stacks
 * The initial spins are the same for both layouts, so msc and naive runs with
 * shared random numbers give identical configurations, with or without
 * tempering. */
#include "common/bitslice.h"
#include "common/lattice.h"
#include "common/philox.h"

#define NEIGHBOURS (2 * DIM)
#define CONFIGURATIONS (2u * REALIZATIONS * TEMPERATURES)
#define WORDS ((REALIZATIONS + WORD_BITS - 1) / WORD_BITS)
#define STACKS (2u * WORDS * TEMPERATURES)
#define QUADS ((CONFIGURATIONS + 3) / 4)
/* Stream numbers have 24 bits; stacks and quads of configurations stay below
 * 2^23 (the host validates REALIZATIONS TEMPERATURES < 2^24). */
#define INDEPENDENT 0x800000u
/* Gaussian bond energies are summed exactly as fixed point J 2^24. */
#define COUPLING_FIXED_POINT 16777216.0f

#if WORD_BITS == 64
typedef ulong word_t;
#define count_word_bit count_bit_ulong
#define count_word_equals count_equals_ulong
#elif WORD_BITS == 32
typedef uint word_t;
#define count_word_bit count_bit
#define count_word_equals count_equals
#else
#error "WORD_BITS must be 32 or 64"
#endif
#define ALL_LANES (~(word_t)0)

/* Neighbours of a site along each direction, with periodic wrap-around.
 * Divisions are by constants, which compilers turn into multiplications. */
typedef struct {
    uint up[DIM], down[DIM];
} neighbourhood;

inline uint wrap_step(uint site, uint coordinate, uint stride, int step)
{
    if (step > 0) return coordinate == EDGE - 1 ? site - (EDGE - 1) * stride : site + stride;
    return coordinate == 0 ? site + (EDGE - 1) * stride : site - stride;
}

inline neighbourhood neighbours_of(uint site)
{
    neighbourhood n;
    uint x = site % EDGE, y = (site / EDGE) % EDGE;
    n.up[0] = wrap_step(site, x, 1, 1);
    n.down[0] = wrap_step(site, x, 1, -1);
    n.up[1] = wrap_step(site, y, EDGE, 1);
    n.down[1] = wrap_step(site, y, EDGE, -1);
#if DIM == 3
    uint z = site / (EDGE * EDGE);
    n.up[2] = wrap_step(site, z, EDGE * EDGE, 1);
    n.down[2] = wrap_step(site, z, EDGE * EDGE, -1);
#endif
    return n;
}


inline uint stack_of(uint realization, uint replica, uint place)
{
    return (2 * (realization / WORD_BITS) + replica) * TEMPERATURES + place;
}

inline uint stack_of_config(uint config)
{
    uint chain = config / TEMPERATURES;
    return stack_of(chain / 2, chain % 2, config % TEMPERATURES);
}

/* Initial spins of realizations 32 part .. 32 part + 31 of one replica at one
 * site, in tempering place `place`. */
inline uint initial_bits32(clmc_philox_key key, uint site, uint place, uint part, uint replica, uint ordered)
{
    return ordered ? 0xFFFFFFFFu
                   : clmc_random4(key, site, place, 0, CLMC_STREAM(CLMC_PURPOSE_INIT, 2 * part + replica)).v[0];
}

/* The shared numbers of both replicas' stacks of (word, place) at one site. */
inline clmc_philox_ctr shared_randoms(clmc_philox_key key, uint site, uint sweep, uint word, uint place)
{
    return clmc_random4(key, site, sweep, 0, CLMC_STREAM(CLMC_PURPOSE_METROPOLIS, word * TEMPERATURES + place));
}

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
/* One work-item per (word, bond): bit b for realization W word + b. */
__kernel void ea_couplings(__global word_t *negative_bonds, uint seed_lo, uint seed_hi)
{
    uint item = get_global_id(0);
    if (item >= WORDS * SITES * DIM) return;
    clmc_philox_key key = {{seed_lo, seed_hi}};
    uint word = item / (SITES * DIM), bond = item % (SITES * DIM);
    word_t negative = 0;
    for (uint lane = 0; lane < WORD_BITS; lane++)
        if (negative_coupling(key, WORD_BITS * word + lane, bond)) negative |= (word_t)1 << lane;
    negative_bonds[item] = negative;
}
#elif !GAUSSIAN
/* One work-item per (realization, bond). */
__kernel void ea_couplings(__global char *couplings, uint seed_lo, uint seed_hi)
{
    uint item = get_global_id(0);
    if (item >= REALIZATIONS * SITES * DIM) return;
    clmc_philox_key key = {{seed_lo, seed_hi}};
    couplings[item] = negative_coupling(key, item / (SITES * DIM), item % (SITES * DIM)) ? -1 : 1;
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
 * word, replicas 0 and 1, so one draw). */
inline clmc_philox_ctr metropolis_randoms(clmc_philox_key key, uint site, uint sweep, uint quad)
{
#if SHARED_RANDOMS && TEMPERATURES == 1
    clmc_philox_ctr shared = shared_randoms(key, site, sweep, 2 * quad / WORD_BITS, 0);
    clmc_philox_ctr r = {{shared.v[0], shared.v[1], shared.v[0], shared.v[1]}};
    return r;
#elif SHARED_RANDOMS
    clmc_philox_ctr r;
    for (uint c = 0; c < 4; c++) {
        uint config = 4 * quad + c, chain = config / TEMPERATURES;
        r.v[c] = shared_randoms(key, site, sweep, chain / 2 / WORD_BITS, config % TEMPERATURES).v[chain % 2];
    }
    return r;
#else
    return clmc_random4(key, site, sweep, 0, CLMC_STREAM(CLMC_PURPOSE_METROPOLIS, INDEPENDENT | quad));
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

__kernel void ea_naive_init(__global char *spins, uint seed_lo, uint seed_hi, uint ordered)
{
    uint item = get_global_id(0);
    if (item >= CONFIGURATIONS * SITES) return;
    uint config = item / SITES, site = item % SITES, chain = config / TEMPERATURES, realization = chain / 2;
    clmc_philox_key key = {{seed_lo, seed_hi}};
    uint bits = initial_bits32(key, site, config % TEMPERATURES, realization / 32, chain % 2, ordered);
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
 * the four share one Philox draw. */
__kernel void ea_naive_update(__global char *spins, __global const coupling *couplings,
                              __global const uint *thresholds, __global const float *betas,
                              uint seed_lo, uint seed_hi, uint sweep, uint colour)
{
    uint item = get_global_id(0);
    if (item >= QUADS * HALF_SITES) return;
    uint quad = item / HALF_SITES;
    uint site = site_of_colour(item % HALF_SITES, colour);
    neighbourhood n = neighbours_of(site);
    clmc_philox_key key = {{seed_lo, seed_hi}};
    clmc_philox_ctr r = metropolis_randoms(key, site, sweep, quad);
#pragma unroll
    for (uint c = 0; c < 4; c++) {
        uint config = 4 * quad + c;
        if (config < CONFIGURATIONS)
            update_spin(spins + (size_t)config * SITES,
                        couplings + (size_t)(config / (2 * TEMPERATURES)) * SITES * DIM, site, &n,
                        r.v[c], thresholds + 3 * config, betas[config]);
    }
}
#else
__kernel void ea_msc_init(__global word_t *spins, uint seed_lo, uint seed_hi, uint ordered)
{
    uint item = get_global_id(0);
    if (item >= STACKS * SITES) return;
    clmc_philox_key key = {{seed_lo, seed_hi}};
    uint site = item % SITES, stack = item / SITES, place = stack % TEMPERATURES;
    uint word = stack / (2 * TEMPERATURES), replica = (stack / TEMPERATURES) % 2;
#if WORD_BITS == 64
    spins[item] = (ulong)initial_bits32(key, site, place, 2 * word, replica, ordered)
                | (ulong)initial_bits32(key, site, place, 2 * word + 1, replica, ordered) << 32;
#else
    spins[item] = initial_bits32(key, site, place, word, replica, ordered);
#endif
}

inline word_t all_lanes_if(bool condition)
{
    return condition ? ALL_LANES : (word_t)0;
}

#if TEMPERATURES > 1
/* Number of temperatures j with r < row[j]: the row is non-increasing, so
 * these are 0 .. n - 1, found by binary search. */
inline uint temperatures_accepting(uint r, __global const uint *row)
{
    uint top = 1;
    while (2 * top <= TEMPERATURES) top *= 2;
    uint n = 0;
    for (uint step = top; step > 0; step /= 2)
        if (n + step <= TEMPERATURES && r < row[n + step - 1]) n += step;
    return n;
}
#endif

/* Lanes of the stack that accept a move of class k (dE = 4 k) for random
 * number r: all or none without tempering, else those whose temperature's
 * threshold exceeds r, i.e. the lanes below the first temperature that
 * rejects. */
inline word_t lanes_accepting(uint r, __global const uint *thresholds, __global const word_t *below, uint k)
{
#if TEMPERATURES == 1
    (void)below;
    return all_lanes_if(r < thresholds[k]);
#else
    return below[temperatures_accepting(r, thresholds + k * TEMPERATURES)];
#endif
}

/* Lanes of one stack that flip at a site, given the spin word, its
 * neighbours' words and the "J = -1" words of the bonds to them.  A bond is
 * satisfied where s_i s_j J_ij = +1, i.e. where the bits of s_i, s_j and
 * "J = -1" have even parity. */
inline word_t flipping_lanes(word_t spin, const word_t *neighbour, const word_t *negative, uint r,
                             __global const uint *thresholds, __global const word_t *below)
{
    word_t c0 = 0, c1 = 0, c2 = 0;
    for (uint k = 0; k < NEIGHBOURS; k++) count_word_bit(~(spin ^ neighbour[k] ^ negative[k]), &c0, &c1, &c2);
    word_t class1 = count_word_equals(NEIGHBOURS / 2 + 1, c0, c1, c2);
    word_t class2 = count_word_equals(NEIGHBOURS / 2 + 2, c0, c1, c2);
    word_t flips = (class1 & lanes_accepting(r, thresholds, below, 0)) | (class2 & lanes_accepting(r, thresholds, below, 1));
#if DIM == 3
    word_t class3 = count_word_equals(NEIGHBOURS / 2 + 3, c0, c1, c2);
    flips |= class3 & lanes_accepting(r, thresholds, below, 2);
#else
    word_t class3 = 0;
#endif
    return flips | ~(class1 | class2 | class3);
}

/* Bit-sliced per-lane counters: c[k] holds bit k of every lane's count. */

/* Adds the counters (`counters` of `levels` words each) of work-items lid and
 * lid + stride for `rounds` rounds (stride wg / 2, wg / 4, ...), leaving the
 * sums of 2^rounds work-items in lids 0 .. wg / 2^rounds - 1: bit-sliced
 * additions, so far fewer lanes have to be unpacked one by one afterwards.
 * The caller keeps every sum below 2^levels. */
inline void fold_tallies(word_t *c, uint counters, uint levels, uint item_levels, uint rounds, uint wg,
                         __local word_t *buffer, uint lid)
{
    uint words = counters * levels;
    for (uint fold = 0, stride = wg / 2; fold < rounds; fold++, stride /= 2) {
        /* Before this round each counter fits in `used` levels, after it in one more. */
        uint used = min(levels, item_levels + fold), grown = min(levels, used + 1);
        if (lid >= stride && lid < 2 * stride)
            for (uint counter = 0; counter < counters; counter++)
                for (uint level = 0; level < used; level++)
                    buffer[(lid - stride) * words + counter * levels + level] = c[counter * levels + level];
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid < stride)
            for (uint counter = 0; counter < counters; counter++) {
                word_t carry = 0;
                for (uint level = 0; level < grown; level++) {
                    uint k = counter * levels + level;
                    word_t other = level < used ? buffer[lid * words + k] : 0, odd = c[k] ^ other;
                    word_t next = (c[k] & other) | (carry & odd);
                    c[k] = odd ^ carry;
                    carry = next;
                }
            }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

#if ENERGY_PASS
#include "ensembles/tempering_exchange.h"

/* Levels that hold a work-item's count before the fold (at most
 * NEIGHBOURS ENERGY_SITES satisfied bonds): the higher levels stay zero, so
 * compilers need not keep them in registers during the updates. */
#define ENERGY_ITEM_COUNT (NEIGHBOURS * ENERGY_SITES)
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
#endif

/* Updates the words of both replicas' stacks of (word, place) at site number
 * `index` of colour `colour`: they share the couplings and one Philox draw.
 * ENERGY_PASS: adds each replica's satisfied bonds at the site, counted with
 * the new spins, to its counter in `satisfied` ([replica][level]). */
inline void update_site(__global word_t *spins, __global const word_t *negative_bonds,
                        __global const uint *thresholds, __global const word_t *lanes_below, clmc_philox_key key,
                        uint sweep, uint colour, uint word, uint place, uint index, word_t *satisfied)
{
    uint site = site_of_colour(index, colour);
    __global const word_t *bonds = negative_bonds + (size_t)word * SITES * DIM;
    neighbourhood n = neighbours_of(site);
    word_t negative[NEIGHBOURS];
    for (uint d = 0; d < DIM; d++) {
        negative[2 * d] = bonds[site * DIM + d];
        negative[2 * d + 1] = bonds[n.down[d] * DIM + d];
    }
    clmc_philox_ctr r = shared_randoms(key, site, sweep, word, place);
    for (uint replica = 0; replica < 2; replica++) {
        uint stack = (2 * word + replica) * TEMPERATURES + place;
        __global word_t *own = spins + (size_t)stack * SITES;
        word_t neighbour[NEIGHBOURS];
        for (uint d = 0; d < DIM; d++) {
            neighbour[2 * d] = own[n.up[d]];
            neighbour[2 * d + 1] = own[n.down[d]];
        }
        word_t spin = own[site];
        spin ^= flipping_lanes(spin, neighbour, negative, r.v[replica], thresholds,
                               lanes_below + (size_t)stack * (TEMPERATURES + 1));
        own[site] = spin;
#if ENERGY_PASS
        word_t c0 = 0, c1 = 0, c2 = 0;
        for (uint k = 0; k < NEIGHBOURS; k++) count_word_bit(~(spin ^ neighbour[k] ^ negative[k]), &c0, &c1, &c2);
        add_site_count(satisfied + replica * ENERGY_LEVELS, c0, c1, c2);
#else
        (void)satisfied;
#endif
    }
}

#if !ENERGY_PASS
/* One work-item per (word, place, site of colour `colour`). */
__kernel void ea_msc_update(__global word_t *spins, __global const word_t *negative_bonds,
                            __global const uint *thresholds, __global const word_t *lanes_below,
                            uint seed_lo, uint seed_hi, uint sweep, uint colour)
{
    uint item = launch_item(REVERSE_ODD && colour);
    if (item >= STACKS / 2 * HALF_SITES) return;
    clmc_philox_key key = {{seed_lo, seed_hi}};
    uint pair = item / HALF_SITES;
    update_site(spins, negative_bonds, thresholds, lanes_below, key, sweep, colour, pair / TEMPERATURES,
                pair % TEMPERATURES, item % HALF_SITES, (word_t *)0);
}
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
                   TEMPERING_REACH_ARGUMENTS)
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
                        satisfied);
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
    __global const coupling *bonds = couplings + (size_t)(config / (2 * TEMPERATURES)) * SITES * DIM;
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
    __global const word_t *bonds = negative_bonds + (size_t)word * SITES * DIM;
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
    for (uint lane = lid; lane < WORD_BITS; lane += MEASURE_WG) {
        uint config = (2 * (WORD_BITS * word + lane) + replica) * TEMPERATURES + stack % TEMPERATURES;
        __global long *out = partials + 3 * ((size_t)config * MEASURE_GROUPS + group);
        out[0] = 2 * (long)lane_sums[lane] - DIM * (long)group_sites;
        out[1] = with_overlap ? 2 * (long)lane_sums[WORD_BITS + lane] - (long)group_sites : 0;
        out[2] = 0;
    }
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

#if MSC && TEMPERATURES > 1 && !ENERGY_PASS
/* Adds lane `lane`, whose configuration sits at temperature t and whose
 * partner has place partner_place, to the masks of (stack, j). */
inline void add_lane(word_t *below, word_t *partner, uint lane, uint j, uint t, uint partner_place)
{
    word_t bit = (word_t)1 << lane;
    *below |= t < j ? bit : (word_t)0;
    *partner |= partner_place == j ? bit : (word_t)0;
}

/* Writes the masks of work-item (stack, j) (ea_msc_lane_masks). */
inline void store_lane_masks(__global word_t *restrict lane_masks, uint stack, uint j, word_t below, word_t partner)
{
    lane_masks[(size_t)stack * (TEMPERATURES + 1) + j] = below;
    if (j < TEMPERATURES) lane_masks[(size_t)STACKS * (TEMPERATURES + 1) + (size_t)stack * TEMPERATURES + j] = partner;
}

/* Tempering on the device: what map_stack (src/models/ea_ising.c) builds on
 * the host, from the engine's device maps config_at [chain][temperature] and
 * temperature_of [config].  One work-item per (stack, j), j = 0 ..
 * TEMPERATURES, writes lanes_below[stack][j] (the lanes whose configuration
 * sits below temperature j) and, for j < TEMPERATURES, partner_lanes[stack][j]
 * (the lanes whose partner, the other replica's configuration at the same
 * temperature, has place j); the lanes' reads are independent, so they
 * overlap, and each mask is built in a register and stored once. */
__kernel void ea_msc_lane_masks(__global const uint *restrict config_at, __global const uint *restrict temperature_of,
                                __global word_t *restrict lane_masks)
{
    uint item = get_global_id(0);
    if (item >= STACKS * (TEMPERATURES + 1)) return;
    uint stack = item / (TEMPERATURES + 1), j = item % (TEMPERATURES + 1);
    uint word = stack / (2 * TEMPERATURES), replica = stack / TEMPERATURES % 2, place = stack % TEMPERATURES;
    word_t below = 0, partner = 0;
    for (uint lane = 0; lane < WORD_BITS; lane++) {
        uint chain = 2 * (WORD_BITS * word + lane) + replica, other = chain ^ 1u;
        uint t = temperature_of[chain * TEMPERATURES + place];
        add_lane(&below, &partner, lane, j, t, config_at[other * TEMPERATURES + t] - other * TEMPERATURES);
    }
    store_lane_masks(lane_masks, stack, j, below, partner);
}
#endif

#if MSC && TEMPERATURES > 1 && !ENERGY_PASS && EXCHANGE_FUSED
#include "ensembles/tempering_exchange.h"

#define EXCHANGE_SYSTEMS (2 * WORD_BITS) /* the chains of one realization word, both replicas */
#define EXCHANGE_GROUP (EXCHANGE_SYSTEMS * EXCHANGE_SPREAD)
#define EXCHANGE_STRIDE (TEMPERATURES + 1) /* local rows padded: a row per work-item, no bank conflicts */
#define EXCHANGE_PAIRS (TEMPERATURES - 1)  /* odd-length rows of reaches, no bank conflicts either */
/* Elements each work-item moves of a block of TEMPERATURES per system. */
#define EXCHANGE_PER_ITEM ((TEMPERATURES + EXCHANGE_SPREAD - 1) / EXCHANGE_SPREAD)
#if TEMPERATURES <= 256
typedef uchar place_t; /* a place among the temperatures (ea_exchange_fits counts on the same size) */
#else
typedef ushort place_t;
#endif

/* An exchange (cl/ensembles/tempering_exchange.h) and then the lane masks of
 * ea_msc_lane_masks in one launch.  Work-group `word` (EXCHANGE_SPREAD
 * work-items per system) holds the chains 2 (W word + lane) + replica, whose
 * maps, energies, reaches and accepted counts are adjacent blocks in global
 * memory:
 *   1. the whole group loads the maps, energies and reaches (found by the
 *      energy pass, tempering_reach_draws) in coalesced passes into local
 *      memory (place_at: the place at each temperature, kept[s][place]: the
 *      energy counts, reach_of[s][pair]), then clears the energies;
 *   2. one work-item per chain makes the decisions from local memory and
 *      writes its new row, kept[s][place] = its temperature, and
 *      reach_of[s][pair] = whether pair exchanged;
 *   3. the group stores the maps and adds the accepted counts in coalesced
 *      passes, and one work-item per (stack of the word, bit) gathers that
 *      bit of its lanes' temperatures or partners' places (planes);
 *   4. one work-item per mask stores lanes_below and partner_lanes from them.
 * temperature_of is not written: only set_temperatures_device reads it.
 * n_systems is a multiple of EXCHANGE_SYSTEMS (realizations are a multiple of
 * W), so no work-item returns early. */
__kernel __attribute__((reqd_work_group_size(EXCHANGE_GROUP, 1, 1)))
void ea_msc_exchange(TEMPERING_EXCHANGE_ARGUMENTS, __global const uint *restrict reaches,
                     __global word_t *restrict lane_masks)
{
    __local place_t place_at[EXCHANGE_SYSTEMS * EXCHANGE_STRIDE]; /* [system in group][temperature] */
    __local int kept[EXCHANGE_SYSTEMS * EXCHANGE_STRIDE];         /* [system in group][place] */
    __local uint reach_of[EXCHANGE_SYSTEMS * EXCHANGE_PAIRS];     /* [system in group][pair] */
    __local word_t planes[2 * TEMPERATURES][2 * PLACE_BITS];      /* [stack in word][bit] */
    uint lid = get_local_id(0), word = get_group_id(0), base = word * EXCHANGE_SYSTEMS;
    size_t block = (size_t)base * TEMPERATURES;

    /* 1. All loads first (the accepted counts too, kept until the
     * decisions are known), then the local stores: one round trip. */
    uint row_part[EXCHANGE_PER_ITEM], reach_part[EXCHANGE_PER_ITEM];
    int energy_part[EXCHANGE_PER_ITEM];
    ulong count[EXCHANGE_PER_ITEM];
    __global ulong *group_accepted = accepted + (size_t)base * EXCHANGE_PAIRS;
    __global const uint *group_reaches = reaches + (size_t)base * EXCHANGE_PAIRS;
    for (uint k = 0; k < EXCHANGE_PER_ITEM; k++) {
        uint i = lid + k * EXCHANGE_GROUP;
        if (i < EXCHANGE_SYSTEMS * TEMPERATURES) {
            row_part[k] = config_at[block + i];
            energy_part[k] = energies[block + i];
        }
        if (i < EXCHANGE_SYSTEMS * EXCHANGE_PAIRS) {
            count[k] = group_accepted[i];
            reach_part[k] = group_reaches[i];
        }
    }
    for (uint k = 0; k < EXCHANGE_PER_ITEM; k++) {
        uint i = lid + k * EXCHANGE_GROUP, s = i / TEMPERATURES, t = i % TEMPERATURES;
        if (i < EXCHANGE_SYSTEMS * TEMPERATURES) {
            place_at[s * EXCHANGE_STRIDE + t] = (place_t)(row_part[k] - (base + s) * TEMPERATURES);
            kept[s * EXCHANGE_STRIDE + t] = energy_part[k];
        }
        if (i < EXCHANGE_SYSTEMS * EXCHANGE_PAIRS) reach_of[i] = reach_part[k];
    }
    for (uint k = 0; k < EXCHANGE_PER_ITEM; k++) {
        uint i = lid + k * EXCHANGE_GROUP;
        if (i < EXCHANGE_SYSTEMS * TEMPERATURES) energies[block + i] = 0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    /* 2. The decisions, one work-item per chain. */
    if (lid < EXCHANGE_SYSTEMS) {
        __local place_t *places = place_at + lid * EXCHANGE_STRIDE;
        __local int *own = kept + lid * EXCHANGE_STRIDE;
        __local uint *row_reach = reach_of + lid * EXCHANGE_PAIRS;
        uint at[TEMPERATURES], reach[EXCHANGE_PAIRS];
        int value[TEMPERATURES];
        uchar decided[EXCHANGE_PAIRS];
        for (uint t = 0; t < EXCHANGE_PAIRS; t++) reach[t] = row_reach[t];
        for (uint t = 0; t < TEMPERATURES; t++) at[t] = places[t];
        for (uint t = 0; t < TEMPERATURES; t++) value[t] = own[at[t]];
        exchange_decisions(at, value, reach, energy_scale, decided);
        for (uint t = 0; t < EXCHANGE_PAIRS; t++) row_reach[t] = decided[t];
        for (uint t = 0; t < TEMPERATURES; t++) {
            places[t] = (place_t)at[t];
            own[at[t]] = (int)t;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    /* 3. The headings of the configurations now at the ends (their reads
     * overlap the planes), maps and accepted counts back, coalesced; the
     * planes. */
    uint chain = lid % EXCHANGE_SYSTEMS, system = base + chain, first_config = system * TEMPERATURES;
    uint hot = first_config + place_at[chain * EXCHANGE_STRIDE];
    uint cold = first_config + place_at[chain * EXCHANGE_STRIDE + TEMPERATURES - 1];
    int hot_heading = 0, cold_heading = 0;
    ulong trip_count = 0;
    if (lid < EXCHANGE_SYSTEMS) {
        hot_heading = heading[hot];
        cold_heading = heading[cold];
        trip_count = trips[system];
    }
    for (uint k = 0; k < EXCHANGE_PER_ITEM; k++) {
        uint i = lid + k * EXCHANGE_GROUP, s = i / TEMPERATURES, t = i % TEMPERATURES;
        if (i < EXCHANGE_SYSTEMS * TEMPERATURES)
            config_at[block + i] = (base + s) * TEMPERATURES + place_at[s * EXCHANGE_STRIDE + t];
    }
    for (uint k = 0; k < EXCHANGE_PER_ITEM; k++) {
        uint i = lid + k * EXCHANGE_GROUP;
        if (i < EXCHANGE_SYSTEMS * EXCHANGE_PAIRS) group_accepted[i] = count[k] + reach_of[i];
    }
    /* Plane b < PLACE_BITS of a stack: bit b of each lane's temperature;
     * plane PLACE_BITS + b: bit b of its partner's place there.  Gathered in
     * 32-bit halves, the lanes unrolled so that their reads overlap. */
    for (uint task = lid; task < 2 * TEMPERATURES * 2 * PLACE_BITS; task += EXCHANGE_GROUP) {
        uint b = task % (2 * PLACE_BITS), stack_in_word = task / (2 * PLACE_BITS);
        uint replica = stack_in_word / TEMPERATURES, place = stack_in_word % TEMPERATURES;
        bool of_partner = b >= PLACE_BITS;
        uint bit = of_partner ? b - PLACE_BITS : b, halves[WORD_BITS / 32];
        for (uint h = 0; h < WORD_BITS / 32; h++) {
            uint gathered = 0;
#pragma unroll
            for (uint k = 0; k < 32; k++) {
                uint lane = 32 * h + k, t = (uint)kept[(2 * lane + replica) * EXCHANGE_STRIDE + place];
                uint value = of_partner ? place_at[(2 * lane + (replica ^ 1u)) * EXCHANGE_STRIDE + t] : t;
                gathered |= ((value >> bit) & 1u) << k;
            }
            halves[h] = gathered;
        }
#if WORD_BITS == 64
        planes[stack_in_word][b] = (word_t)halves[0] | (word_t)halves[1] << 32;
#else
        planes[stack_in_word][b] = halves[0];
#endif
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    /* 4. Mask (stack, j): the lanes whose temperature is below j (compared
     * bit-sliced, top bit first) and, for j < TEMPERATURES, those whose
     * partner has place j; adjacent work-items store adjacent masks. */
    for (uint task = lid; task < 2 * TEMPERATURES * (TEMPERATURES + 1); task += EXCHANGE_GROUP) {
        uint j = task % (TEMPERATURES + 1), stack_in_word = task / (TEMPERATURES + 1);
        word_t below = 0, equal = ALL_LANES, partner = ALL_LANES;
        for (uint b = PLACE_BITS; b-- > 0;) {
            word_t bit = all_lanes_if((j >> b) & 1u), temperature = planes[stack_in_word][b];
            below |= equal & bit & ~temperature;
            equal &= ~(bit ^ temperature);
            partner &= ~(bit ^ planes[stack_in_word][PLACE_BITS + b]);
        }
        uint stack = 2 * word * TEMPERATURES + stack_in_word;
        store_lane_masks(lane_masks, stack, j, j < TEMPERATURES ? below : ALL_LANES, partner);
    }
    if (lid < EXCHANGE_SYSTEMS)
        trips[system] = trip_count + update_headings(hot, cold, hot_heading, cold_heading, heading);
}
#endif
