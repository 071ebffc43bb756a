/* Edwards-Anderson Ising spin glass: checkerboard Metropolis updates of many
 * disorder realizations with two replicas each, single-spin coded (naive) or
 * asynchronously multi-spin coded (msc: bit b of a word is realization b),
 * plus exact integer reductions of replica energies and overlaps.
 *
 * Defines: DIM (2|3), EDGE (L), REALIZATIONS, TEMPERATURES (naive; 1 for
 * msc), MSC (0|1), GAUSSIAN (0|1,
 * naive only), SHARED_RANDOMS (0|1, naive only; msc always shares),
 * WORD_BITS (32|64: realizations per msc word, word_t uint or ulong; also
 * the stacks whose random numbers naive shares), MEASURE_WG (power of two,
 * >= WORD_BITS for msc), MEASURE_GROUPS (work-groups per realization
 * (naive) or per word of WORD_BITS realizations (msc)).
 *
 * Configurations: config = chain TEMPERATURES + slot, chain = 2 realization +
 * replica (slot: the configuration's place in its chain's tempering ensemble;
 * TEMPERATURES = 1 without tempering, so config = 2 realization + replica).  msc stacks: stack =
 * 2 word + replica holds realizations W word .. W word + W - 1 of that replica
 * (W = WORD_BITS).
 * Sites are row-major, x fastest; bond (site, d) joins site and its +d
 * neighbour.  Buffers: naive spins [config][site] as chars +-1; msc spins
 * [stack][site] as words, bit set = spin up.  Couplings: naive
 * [realization][site][d] as char +-1 or float; msc [word][site][d], bit b set
 * = J = -1 in realization W word + b.  Metropolis thresholds
 * [config][k] = floor(exp(-4 (k+1) beta_config) 2^32); betas [config].
 *
 * Random numbers (Philox counter: unit, sweep, hit, CLMC_STREAM(purpose, stream)):
 *   initial spins          (site, slot, 0, STREAM(INIT, 2 (realization / 32) + replica)).v[0],
 *                          bit realization % 32, whatever WORD_BITS (a 64-bit word
 *                          joins the draws of its two halves)
 *   shared Metropolis      (site, sweep, 0, STREAM(METROPOLIS, stack)).v[0], one
 *                          number for the W realizations of a word (the msc kernel's)
 *   independent Metropolis (site, sweep, 0, STREAM(METROPOLIS, INDEPENDENT | config / 4))
 *                          .v[config % 4]: one draw serves four configurations;
 *                          the INDEPENDENT bit keeps these apart from the stacks
 * The initial spins are the same for both layouts, so msc and naive runs with
 * shared random numbers give identical configurations. */
#include "common/bitslice.h"
#include "common/philox.h"

#if DIM == 2
#define SITES ((uint)EDGE * EDGE)
#else
#define SITES ((uint)EDGE * EDGE * EDGE)
#endif
#define HALF_SITES (SITES / 2)
#define NEIGHBOURS (2 * DIM)
#define CONFIGURATIONS (2u * REALIZATIONS * TEMPERATURES)
#define STACKS (2u * ((REALIZATIONS + WORD_BITS - 1) / WORD_BITS))
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

/* Site number `index` among the sites of colour `colour` (parity of x + y + z). */
inline uint site_of_colour(uint index, uint colour)
{
    uint row = index / (EDGE / 2);
    uint y = row % EDGE, z = row / EDGE;
    uint x = 2 * (index % (EDGE / 2)) + ((y + z + colour) & 1);
    return x + EDGE * row;
}

inline uint stack_of(uint realization, uint replica)
{
    return 2 * (realization / WORD_BITS) + replica;
}

/* Initial spins of realizations 32 part .. 32 part + 31 of one replica at one
 * site, for tempering slot `slot` (0 without tempering). */
inline uint initial_bits32(clmc_philox_key key, uint site, uint slot, uint part, uint replica, uint ordered)
{
    return ordered ? 0xFFFFFFFFu
                   : clmc_random4(key, site, slot, 0, CLMC_STREAM(CLMC_PURPOSE_INIT, 2 * part + replica)).v[0];
}

inline uint shared_random(clmc_philox_key key, uint site, uint sweep, uint stack)
{
    return clmc_random4(key, site, sweep, 0, CLMC_STREAM(CLMC_PURPOSE_METROPOLIS, stack)).v[0];
}

#if !MSC
#if GAUSSIAN
typedef float coupling;
typedef float local_field;
#else
typedef char coupling;
typedef int local_field;
#endif

/* Random numbers of configurations 4 quad .. 4 quad + 3 (realizations
 * 2 quad, 2 quad + 1, replicas 0, 1) at one site: one independent draw, or
 * the shared number of each replica's stack (both realizations lie in one word). */
inline clmc_philox_ctr metropolis_randoms(clmc_philox_key key, uint site, uint sweep, uint quad)
{
#if SHARED_RANDOMS
    uint first_stack = stack_of(2 * quad, 0);
    clmc_philox_ctr r;
    r.v[0] = r.v[2] = shared_random(key, site, sweep, first_stack);
    r.v[1] = r.v[3] = shared_random(key, site, sweep, first_stack + 1);
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
    uint site = item % SITES, stack = item / SITES, word = stack / 2, replica = stack % 2;
#if WORD_BITS == 64
    spins[item] = (ulong)initial_bits32(key, site, 0, 2 * word, replica, ordered)
                | (ulong)initial_bits32(key, site, 0, 2 * word + 1, replica, ordered) << 32;
#else
    spins[item] = initial_bits32(key, site, 0, word, replica, ordered);
#endif
}

inline word_t all_lanes_if(bool condition)
{
    return condition ? ALL_LANES : (word_t)0;
}

/* One work-item per (stack, site of colour `colour`): W realizations at once.
 * A bond is satisfied where s_i s_j J_ij = +1, i.e. where the bits of s_i,
 * s_j and "J = -1" have even parity.  One random number serves the word; the
 * realizations of a word share their beta, so the thresholds of its first
 * realization decide every class of dE = 4k. */
__kernel void ea_msc_update(__global word_t *spins, __global const word_t *negative_bonds,
                            __global const uint *thresholds, uint seed_lo, uint seed_hi, uint sweep,
                            uint colour)
{
    uint item = get_global_id(0);
    if (item >= STACKS * HALF_SITES) return;
    uint stack = item / HALF_SITES, word = stack / 2;
    uint site = site_of_colour(item % HALF_SITES, colour);
    __global word_t *own = spins + (size_t)stack * SITES;
    __global const word_t *bonds = negative_bonds + (size_t)word * SITES * DIM;
    neighbourhood n = neighbours_of(site);
    word_t spin = own[site], c0 = 0, c1 = 0, c2 = 0;
    for (uint d = 0; d < DIM; d++) {
        count_word_bit(~(spin ^ own[n.up[d]] ^ bonds[site * DIM + d]), &c0, &c1, &c2);
        count_word_bit(~(spin ^ own[n.down[d]] ^ bonds[n.down[d] * DIM + d]), &c0, &c1, &c2);
    }
    word_t class1 = count_word_equals(NEIGHBOURS / 2 + 1, c0, c1, c2);
    word_t class2 = count_word_equals(NEIGHBOURS / 2 + 2, c0, c1, c2);
    word_t class3 = DIM == 3 ? count_word_equals(NEIGHBOURS / 2 + 3, c0, c1, c2) : (word_t)0;
    word_t downhill = ~(class1 | class2 | class3);
    clmc_philox_key key = {{seed_lo, seed_hi}};
    uint r = shared_random(key, site, sweep, stack);
    __global const uint *t = thresholds + 3 * (2 * (WORD_BITS * word) + stack % 2);
    word_t flips = downhill | (class1 & all_lanes_if(r < t[0])) | (class2 & all_lanes_if(r < t[1]))
               | (class3 & all_lanes_if(r < t[2]));
    own[site] = spin ^ flips;
}
#endif

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

/* msc partials of realization r, group g, in batch slot `slot`: bond sums
 * sum_<ij> J_ij s_i s_j of replicas 0 and 1, overlap sum_i s_i^(0) s_i^(1).
 * naive partials of configuration c, group g: its bond sum, its overlap with
 * partners[c] (the other replica of its realization at the same temperature)
 * and 0. */
inline void store_partials(__global long *partials, uint slot, uint unit, uint units, uint group,
                           __local const long *sums, uint lid)
{
    __global long *out = partials + 3 * (((size_t)slot * units + unit) * MEASURE_GROUPS + group);
    for (uint k = 0; k < 3; k++) out[k] = sums[k * MEASURE_WG + lid];
}

#if !MSC
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
                      __global const uint *partners, __global long *partials, uint slot)
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
        overlap += s * partner[site];
    }
    sums[lid] = bond_sum;
    sums[MEASURE_WG + lid] = overlap;
    sums[2 * MEASURE_WG + lid] = 0;
    reduce_sums(sums, lid, 1);
    if (lid == 0) store_partials(partials, slot, config, CONFIGURATIONS, group, sums, lid);
}
#else
/* Work-group (word, g): lane lid % W is the realization bit, lid / W picks
 * the site, so the W lanes reading one word read the same address. */
__kernel __attribute__((reqd_work_group_size(MEASURE_WG, 1, 1)))
void ea_msc_measure(__global const word_t *spins, __global const word_t *negative_bonds,
                    __global long *partials, uint slot)
{
    __local long sums[3 * MEASURE_WG];
    uint lid = get_local_id(0), lane = lid % WORD_BITS, rows = MEASURE_WG / WORD_BITS;
    uint word = get_group_id(0) / MEASURE_GROUPS, group = get_group_id(0) % MEASURE_GROUPS;
    __global const word_t *first = spins + (size_t)(2 * word) * SITES, *second = first + SITES;
    __global const word_t *bonds = negative_bonds + (size_t)word * SITES * DIM;
    long satisfied0 = 0, satisfied1 = 0, agreeing = 0, sites = 0;
    for (uint site = group * rows + lid / WORD_BITS; site < SITES; site += MEASURE_GROUPS * rows) {
        word_t s0 = first[site], s1 = second[site];
        neighbourhood n = neighbours_of(site);
        for (uint d = 0; d < DIM; d++) {
            uint up = n.up[d];
            word_t negative = bonds[site * DIM + d];
            satisfied0 += (long)((~(s0 ^ first[up] ^ negative) >> lane) & 1u);
            satisfied1 += (long)((~(s1 ^ second[up] ^ negative) >> lane) & 1u);
        }
        agreeing += (long)((~(s0 ^ s1) >> lane) & 1u);
        sites++;
    }
    sums[lid] = 2 * satisfied0 - DIM * sites;
    sums[MEASURE_WG + lid] = 2 * satisfied1 - DIM * sites;
    sums[2 * MEASURE_WG + lid] = 2 * agreeing - sites;
    reduce_sums(sums, lid, WORD_BITS);
    if (lid < WORD_BITS && WORD_BITS * word + lid < REALIZATIONS)
        store_partials(partials, slot, WORD_BITS * word + lid, REALIZATIONS, group, sums, lid);
}
#endif
