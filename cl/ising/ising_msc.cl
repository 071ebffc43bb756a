/* Ising ferromagnet with synchronous multi-spin coding: each 32-bit word holds
 * 32 spins of one checkerboard colour, updated together with bitwise logic;
 * every spin gets its own random number, compared bit-serially.
 *
 * Defines: DIM (2|3), EDGE (L, a multiple of 64), MEASURE_WG.  As in ising.cl,
 * the second NDRange dimension is the configuration (tempering slot).
 * Storage: two colour planes (global parity (x + y + z) & 1) of EDGE^(DIM-1)
 * rows of EDGE/64 words; site x of row r is bit (x/2) % 32 of word (x/2) / 32
 * in its colour's plane; bit set = spin up.
 *
 * Domain decomposition over MPI ranks (docs/mpi.md) defines SLAB and
 * FIRST_LAYER: this rank holds the SLAB layers (rows y in 2D, planes z in 3D)
 * from global layer FIRST_LAYER, and in each colour plane one halo layer
 * below (stored layer 0: global FIRST_LAYER - 1) and one above (SLAB + 1),
 * which the host refreshes from the neighbouring ranks after every colour
 * pass.  Random numbers and the start are drawn by GLOBAL word, so a slab
 * evolves exactly as the same layers of the whole lattice on one device.
 * The update kernel then takes the first word it updates (first_item), so
 * that the host can update the boundary layers first and the interior while
 * it exchanges them. */
#include "common/bitslice.h"
#include "common/philox.h"
#include "common/reduce.h"

/* algorithm.rng (docs/rng.md), as in ising.cl: RNG_PHILOX7 the same counters with
 * 7 rounds; RNG_STATEFUL one 32-bit word per site from the stream of its pair of
 * sites (x, x + 1), x even, numbered as in ising.cl's naive kernel, which this
 * kernel then equals decision for decision. */
#include "ising/ising_rng.h"

#define WORDS_PER_ROW (EDGE / 64)
#if DIM == 2
#define ROWS ((uint)EDGE)
#define NEIGHBOURS 4
#define LAYER_WORDS ((uint)WORDS_PER_ROW)
#else
#define ROWS ((uint)EDGE * EDGE)
#define NEIGHBOURS 6
#define LAYER_WORDS ((uint)EDGE * WORDS_PER_ROW)
#endif
/* Words of one colour in the whole lattice (random-number units). */
#define LATTICE_PLANE_WORDS (ROWS * WORDS_PER_ROW)
#ifdef SLAB
/* Stored per colour: the slab and a halo layer on each side. */
#define PLANE_WORDS (((uint)SLAB + 2) * LAYER_WORDS)
#define UPDATE_WORDS ((uint)SLAB * LAYER_WORDS)
#define HALO_WORDS LAYER_WORDS
/* Global layer = stored layer + FIRST_LAYER - 1; parity shift (FIRST_LAYER - 1) & 1. */
#define LAYER_PARITY (((uint)FIRST_LAYER + 1) & 1)
#else
#define FIRST_LAYER 0
#define PLANE_WORDS LATTICE_PLANE_WORDS
#define UPDATE_WORDS PLANE_WORDS
#define HALO_WORDS 0u
#define LAYER_PARITY 0u
#endif

inline uint wrap(int coordinate)
{
    return (uint)((coordinate + EDGE) % EDGE);
}

/* A step along the last axis (y in 2D, z in 3D): periodic on the whole
 * lattice, into the halo layers on a slab. */
inline uint step_last(uint coordinate, int step)
{
#ifdef SLAB
    return (uint)((int)coordinate + step);
#else
    return wrap((int)coordinate + step);
#endif
}

/* Word index (within a plane) of the row at (y, z), word w. */
inline uint word_at(uint y, uint z, uint w)
{
    return (y + EDGE * z) * WORDS_PER_ROW + w;
}

__kernel void ising_msc_init(__global uint *planes, uint seed_lo, uint seed_hi, uint ordered, uint run,
                             uint first_system)
{
    uint word = get_global_id(0), config = get_global_id(1);
    if (word >= 2 * PLANE_WORDS) return;
    /* The global word this stored word holds (halo layers included). */
    uint colour = word / PLANE_WORDS, stored = word % PLANE_WORDS;
    uint layer = ((stored / LAYER_WORDS) + (uint)FIRST_LAYER + EDGE - (HALO_WORDS ? 1u : 0u)) % EDGE;
    uint global_word = colour * LATTICE_PLANE_WORDS + layer * LAYER_WORDS + stored % LAYER_WORDS;
    clmc_philox_key key = {{seed_lo, seed_hi}};
    planes[(size_t)config * 2 * PLANE_WORDS + word] =
        ordered ? 0xFFFFFFFFu : clmc_random4(key, global_word, 0, run, CLMC_STREAM(CLMC_PURPOSE_INIT, first_system + config)).v[0];
}

/* Neighbours along x in the other plane: one of them is the aligned word, the
 * other is shifted by one site, taking a bit from the next or previous word. */
inline void row_neighbours(__global const uint *other, uint y, uint z, uint w, uint first_in_pair,
                           uint *left, uint *right)
{
    uint mid = other[word_at(y, z, w)];
    if (first_in_pair) {
        uint previous = other[word_at(y, z, (w + WORDS_PER_ROW - 1) % WORDS_PER_ROW)];
        *left = (mid << 1) | (previous >> 31);
        *right = mid;
    } else {
        uint next = other[word_at(y, z, (w + 1) % WORDS_PER_ROW)];
        *left = mid;
        *right = (mid >> 1) | (next << 31);
    }
}

/* One bit plane of the bit-serial comparison r < t, most significant first:
 * `less` collects lanes already below t, `equal` those still tied. */
inline void compare_plane(uint threshold, uint bit, uint random_bits, uint *less, uint *equal)
{
    uint t_mask = ((threshold >> bit) & 1u) ? 0xFFFFFFFFu : 0u;
    *less |= *equal & ~random_bits & t_mask;
    *equal &= ~(random_bits ^ t_mask);
}

/* One work-item per word of colour `colour`.  The random number of each lane
 * is read 4 bits at a time from draws (unit = word, sweep, hit = bit group g);
 * drawing stops as soon as no uphill lane is still tied with its threshold,
 * so each decision equals the exact 32-bit comparison r < t. */
__kernel void ising_msc_update(__global uint *planes, uint seed_lo, uint seed_hi, uint sweep,
                               uint colour, __global const uint *thresholds
#ifdef RNG_STATEFUL
                               , __global uint *rng_states
#endif
#ifdef SLAB
                               , uint first_item
#endif
                               , uint first_system)
{
    uint item = get_global_id(0), config = get_global_id(1);
#ifdef SLAB
    item += first_item;
#endif
    if (item >= UPDATE_WORDS) return;
    planes += (size_t)config * 2 * PLANE_WORDS;
    uint t4 = thresholds[3 * config], t8 = thresholds[3 * config + 1], t12 = thresholds[3 * config + 2];
    uint stream = CLMC_STREAM(CLMC_PURPOSE_METROPOLIS, first_system + config);
    uint stored = item + HALO_WORDS;
    uint row = stored / WORDS_PER_ROW, w = stored % WORDS_PER_ROW;
    uint y = row % EDGE, z = row / EDGE;
    __global uint *own = planes + colour * PLANE_WORDS;
    __global const uint *other = planes + (1 - colour) * PLANE_WORDS;
    uint spins = own[stored];
    /* Site x = 2j + first: the colour's site comes first in its pair when x is even. */
    uint first_in_pair = ((y + z + colour + LAYER_PARITY) & 1) == 0;
    uint left, right;
    row_neighbours(other, y, z, w, first_in_pair, &left, &right);
    uint c0 = 0, c1 = 0, c2 = 0;
    count_bit(~(spins ^ left), &c0, &c1, &c2);
    count_bit(~(spins ^ right), &c0, &c1, &c2);
#if DIM == 2
    count_bit(~(spins ^ other[word_at(step_last(y, -1), z, w)]), &c0, &c1, &c2);
    count_bit(~(spins ^ other[word_at(step_last(y, 1), z, w)]), &c0, &c1, &c2);
#else
    count_bit(~(spins ^ other[word_at(wrap((int)y - 1), z, w)]), &c0, &c1, &c2);
    count_bit(~(spins ^ other[word_at(wrap((int)y + 1), z, w)]), &c0, &c1, &c2);
    count_bit(~(spins ^ other[word_at(y, step_last(z, -1), w)]), &c0, &c1, &c2);
    count_bit(~(spins ^ other[word_at(y, step_last(z, 1), w)]), &c0, &c1, &c2);
#endif
    /* Uphill classes: aligned = NEIGHBOURS/2 + k costs dE = 4k. */
    uint class1 = count_equals(NEIGHBOURS / 2 + 1, c0, c1, c2);
    uint class2 = count_equals(NEIGHBOURS / 2 + 2, c0, c1, c2);
    uint class3 = DIM == 3 ? count_equals(NEIGHBOURS / 2 + 3, c0, c1, c2) : 0u;
    uint downhill = ~(class1 | class2 | class3);

#ifdef RNG_STATEFUL
    /* Lane j is pair 32 w + j of the row; every pair draws, uphill or not. */
    ulong launch = 2ul * sweep + colour;
    uint first_pair = row * (EDGE / 2) + 32 * w, flips = downhill;
    for (uint lane = 0; lane < 32; lane++) {
        uint word = rng_draw_unit(rng_states, config, first_pair + lane, launch), bit = 1u << lane;
        uint threshold = (class1 & bit) ? t4 : ((class2 & bit) ? t8 : t12);
        if (!(downhill & bit) && word < threshold) flips |= bit;
    }
#ifdef RNG_LAGFIB
    /* The last ring's batch has units past the last pair: they draw too. */
    if (item == PLANE_WORDS - 1)
        for (uint unit = ROWS * (EDGE / 2); unit < (uint)RNG_STREAMS * LAGFIB_BATCH; unit++)
            rng_draw_unit(rng_states, config, unit, launch);
#endif
    own[stored] = spins ^ flips;
#else
    clmc_philox_key key = {{seed_lo, seed_hi}};
    uint unit = colour * LATTICE_PLANE_WORDS + (uint)FIRST_LAYER * LAYER_WORDS + item;
    uint less1 = 0, less2 = 0, less3 = 0, equal1 = ~0u, equal2 = ~0u, equal3 = ~0u;
    uint tied = ~downhill;
    for (uint g = 0; g < 8 && tied; g++) {
        clmc_philox_ctr r = METROPOLIS_RANDOM4(key, unit, sweep, g, stream);
        for (uint q = 0; q < 4; q++) {
            uint bit = 31 - (4 * g + q);
            compare_plane(t4, bit, r.v[q], &less1, &equal1);
            compare_plane(t8, bit, r.v[q], &less2, &equal2);
#if DIM == 3
            compare_plane(t12, bit, r.v[q], &less3, &equal3);
#endif
        }
        tied = (equal1 & class1) | (equal2 & class2) | (equal3 & class3);
    }
    own[stored] = spins ^ (downhill | (less1 & class1) | (less2 & class2) | (less3 & class3));
#endif
}

/* Per-work-group partial sums of the bond sum (+x, +y(, +z) bonds) and the
 * magnetisation, stored at partials[2 * (slot * groups + g)], as in ising.cl. */
__kernel __attribute__((reqd_work_group_size(MEASURE_WG, 1, 1)))
void ising_msc_measure(__global const uint *planes, __global int *partials, uint slot)
{
    planes += (size_t)get_global_id(1) * 2 * PLANE_WORDS;
    __local int bonds[MEASURE_WG];
    __local int magnetisation[MEASURE_WG];
    int bond_sum = 0, spin_sum = 0;
    for (uint word = get_global_id(0); word < 2 * UPDATE_WORDS; word += get_global_size(0)) {
        uint colour = word / UPDATE_WORDS, stored = word % UPDATE_WORDS + HALO_WORDS;
        uint row = stored / WORDS_PER_ROW, w = stored % WORDS_PER_ROW;
        uint y = row % EDGE, z = row / EDGE;
        __global const uint *other = planes + (1 - colour) * PLANE_WORDS;
        uint spins = planes[colour * PLANE_WORDS + stored], left, right;
        row_neighbours(other, y, z, w, ((y + z + colour + LAYER_PARITY) & 1) == 0, &left, &right);
        int bonds_counted = 64;
#if DIM == 2
        int aligned = popcount(~(spins ^ right)) + popcount(~(spins ^ other[word_at(step_last(y, 1), z, w)]));
#else
        int aligned = popcount(~(spins ^ right)) + popcount(~(spins ^ other[word_at(wrap((int)y + 1), z, w)]));
        aligned += popcount(~(spins ^ other[word_at(y, step_last(z, 1), w)]));
        bonds_counted = 96;
#endif
        bond_sum += 2 * aligned - bonds_counted;
        spin_sum += 2 * (int)popcount(spins) - 32;
    }
    reduce_pair_to(bonds, magnetisation, bond_sum, spin_sum, partials + partial_offset(slot));
}
