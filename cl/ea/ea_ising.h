/* Definitions every EA Ising program shares (ea_ising.cl, ea_energy_pass.cl,
 * ea_lane_masks.cl, ensembles/ea_msc_exchange.cl), and their layouts.
 *
 * Edwards-Anderson Ising spin glass: checkerboard Metropolis updates of many
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
 * ENERGY_LEVELS, ENERGY_FOLD_ROUNDS size its work-groups and counters;
 * MEMBER_PASS (0|1, with ENERGY_PASS, population annealing's msc members):
 * the pass measures every member's energy and overlap instead),
 * REVERSE_ODD (0|1: the msc update's colour-1 launches take their work-groups
 * in reverse order, launch_group in common/lattice.h; results unchanged),
 * and for ensembles/ea_msc_exchange.cl (built where its maps fit local memory)
 * EXCHANGE_SPREAD work-items per system and PLACE_BITS, the bits of a place or
 * temperature 0 .. TEMPERATURES - 1; SHARED_DISORDER (0|1): population
 * annealing, whose REALIZATIONS members (replica pairs) all take the
 * couplings of realization 0 (msc: one word per bond, all lanes alike);
 * LANE_RANDOMS (0|1, msc with SHARED_DISORDER): every lane (member) draws
 * its own Metropolis numbers (ea_msc_update.h, flipping_lanes_own);
 * RESIDENT (0|1, with MEMBER_PASS): the resident update of
 * ea_energy_pass.cl, whose update_site works on a word's stacks in local
 * memory (ea_msc_update.h).
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
 *   initial spins          (site, place, run, STREAM(INIT, 2 (realization / 32) + replica)).v[0],
 *                          bit realization % 32, whatever WORD_BITS (a 64-bit word
 *                          joins the draws of its two halves); run: population
 *                          annealing's independent run, else 0
 *   shared Metropolis      (site, sweep, 0, STREAM(METROPOLIS, word TEMPERATURES + place))
 *                          .v[replica], one number for the W configurations of a
 *                          stack (the msc kernel's, which updates both replicas of a
 *                          word at once); word run-wide (FIRST_WORD, below)
 *   per-lane Metropolis    (site, sweep, g, STREAM(METROPOLIS, INDEPENDENT | run-wide stack)):
 *                          LANE_RANDOMS, bit planes of every lane's own number, draw g
 *                          (flipping_lanes_own)
 *   per-lane LCG seed      (work-item, the launch's first sweep, 32, the same stream of the
 *                          word's replica-0 stack): RNG_LCG_RESEEDED, the resident update's
 *                          LCG64 per work-item (.v[0], .v[1]), whose steps replace the draws g
 *   independent Metropolis (site, sweep, 0, STREAM(METROPOLIS, INDEPENDENT | config / 4))
 *                          .v[config % 4]: one draw serves four configurations
 *                          (config run-wide: FIRST_CONFIG + config, below);
 *                          the INDEPENDENT bit keeps these apart from the stacks
 * The initial spins are the same for both layouts, so msc and naive runs with
 * shared random numbers give identical configurations, with or without
 * tempering. */
#ifndef CLMC_EA_ISING_H
#define CLMC_EA_ISING_H

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
/* ensemble.type "independent" (naive, no shared random numbers): realization
 * r is run-wide realization first_system + r in its couplings, initial
 * spins and Metropolis draws, whose configurations are then numbered from
 * FIRST_CONFIG(first_system) (2 or 0 mod 4: the chains of a realization are
 * 2 T configurations).  first_system (ensemble.first_system): the last
 * argument of every kernel that draws (cl/common/philox.h). */
#define FIRST_CONFIG(first_system) (2u * TEMPERATURES * (first_system))
/* With shared random numbers (msc, or naive with SHARED_RANDOMS) realization
 * r draws the shared numbers of its run-wide word (first_system + r) /
 * WORD_BITS; msc needs first_system to be a multiple of WORD_BITS (the host
 * validates), so that word w of the run is run-wide word
 * FIRST_WORD(first_system) + w and holds run-wide realizations
 * W (FIRST_WORD(first_system) + w) .. + W - 1. */
#define FIRST_WORD(first_system) ((first_system) / WORD_BITS)
/* Gaussian bond energies are summed exactly as fixed point J 2^24. */
#define COUPLING_FIXED_POINT 16777216.0f
#ifndef SHARED_DISORDER
#define SHARED_DISORDER 0
#endif
#ifndef LANE_RANDOMS
#define LANE_RANDOMS 0
#endif
#ifndef MEMBER_PASS
#define MEMBER_PASS 0
#endif
/* The couplings (naive) of configuration `config`: its realization's, or
 * realization 0's for population annealing's members. */
#define DISORDER_OF(config) (SHARED_DISORDER ? 0u : (config) / (2u * TEMPERATURES))
/* msc: the coupling words of word `word`, and how many there are (one set
 * for population annealing's members). */
#define BOND_WORD(word) (SHARED_DISORDER ? 0u : (word))
#define COUPLING_WORDS (SHARED_DISORDER ? 1u : WORDS)

#if WORD_BITS == 64
typedef ulong word_t;
#define count_word_equals count_equals_ulong
#elif WORD_BITS == 32
typedef uint word_t;
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
inline uint initial_bits32(clmc_philox_key key, uint site, uint place, uint part, uint replica, uint ordered, uint run)
{
    return ordered ? 0xFFFFFFFFu
                   : clmc_random4(key, site, place, run, CLMC_STREAM(CLMC_PURPOSE_INIT, 2 * part + replica)).v[0];
}

/* The shared numbers of both replicas' stacks of (word, place) at one site. */
inline clmc_philox_ctr shared_randoms(clmc_philox_key key, uint site, uint sweep, uint word, uint place)
{
    return clmc_random4(key, site, sweep, 0, CLMC_STREAM(CLMC_PURPOSE_METROPOLIS, word * TEMPERATURES + place));
}

#if MSC
inline word_t all_lanes_if(bool condition)
{
    return condition ? ALL_LANES : (word_t)0;
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
#endif

#if MSC && TEMPERATURES > 1
/* Writes the masks of work-item (stack, j) (ea_msc_lane_masks). */
inline void store_lane_masks(__global word_t *restrict lane_masks, uint stack, uint j, word_t below, word_t partner)
{
    lane_masks[(size_t)stack * (TEMPERATURES + 1) + j] = below;
    if (j < TEMPERATURES) lane_masks[(size_t)STACKS * (TEMPERATURES + 1) + (size_t)stack * TEMPERATURES + j] = partner;
}
#endif

#endif
