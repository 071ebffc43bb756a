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
/* RNG_LCG_RESEEDED (algorithm.rng "lcg64_reseeded", the resident update
 * only): each word of a launch draws its bit planes from an LCG64 of its
 * own (the high word per step), seeded from Philox at the launch's start. */
#ifdef RNG_LCG_RESEEDED
#include "common/rng_lcg.h"
#endif

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
 * other is shifted by one site, taking a bit from the next or previous word.
 * Defined for global memory (the ordinary kernels) and local memory (the
 * resident update). */
#define MSC_ROW_NEIGHBOURS(name, space)                                                                   \
    inline void name(space const uint *other, uint y, uint z, uint w, uint first_in_pair, uint *left,      \
                     uint *right)                                                                          \
    {                                                                                                      \
        uint mid = other[word_at(y, z, w)];                                                                \
        if (first_in_pair) {                                                                               \
            uint previous = other[word_at(y, z, (w + WORDS_PER_ROW - 1) % WORDS_PER_ROW)];                 \
            *left = (mid << 1) | (previous >> 31);                                                         \
            *right = mid;                                                                                  \
        } else {                                                                                           \
            uint next = other[word_at(y, z, (w + 1) % WORDS_PER_ROW)];                                     \
            *left = mid;                                                                                   \
            *right = (mid >> 1) | (next << 31);                                                            \
        }                                                                                                  \
    }
MSC_ROW_NEIGHBOURS(row_neighbours, __global)
#if defined(RESIDENT) || defined(TEMPORAL_BLOCK)
MSC_ROW_NEIGHBOURS(row_neighbours_local, __local)
#endif

/* The uphill lanes of a word by cost, from its neighbour words (along x, then
 * the other axes; 2D ignores the last two): class k, aligned = NEIGHBOURS/2 +
 * k, costs dE = 4k. */
inline void msc_uphill_classes(uint spins, uint left, uint right, uint down, uint up, uint back, uint front,
                               uint *class1, uint *class2, uint *class3)
{
    uint c0 = 0, c1 = 0, c2 = 0;
    count_bit(~(spins ^ left), &c0, &c1, &c2);
    count_bit(~(spins ^ right), &c0, &c1, &c2);
    count_bit(~(spins ^ down), &c0, &c1, &c2);
    count_bit(~(spins ^ up), &c0, &c1, &c2);
#if DIM == 3
    count_bit(~(spins ^ back), &c0, &c1, &c2);
    count_bit(~(spins ^ front), &c0, &c1, &c2);
#else
    (void)back;
    (void)front;
#endif
    *class1 = count_equals(NEIGHBOURS / 2 + 1, c0, c1, c2);
    *class2 = count_equals(NEIGHBOURS / 2 + 2, c0, c1, c2);
    *class3 = DIM == 3 ? count_equals(NEIGHBOURS / 2 + 3, c0, c1, c2) : 0u;
}

/* All lanes where bit `bit` of threshold t is set, else none. */
inline uint threshold_bit_lanes(uint t, uint bit)
{
    return 0u - ((t >> bit) & 1u);
}

/* The state of the bit-serial comparisons of a word's uphill lanes, each
 * lane's random number r against the threshold t_k of its class k: `less`
 * the lanes already below it, `tied` those still equal to it so far.  Every
 * uphill lane starts tied; the others take no part. */
typedef struct {
    uint less, tied;
} msc_comparison;

inline msc_comparison msc_comparison_start(uint class1, uint class2, uint class3)
{
    msc_comparison c = {0u, class1 | class2 | class3};
    return c;
}

/* One bit plane of the comparisons, most significant first: random_bits
 * holds bit `bit` of every lane's r, each lane compared with the same bit of
 * its own class's threshold (t4, t8, t12 for classes 1, 2, 3). */
inline void compare_plane(msc_comparison *c, uint bit, uint random_bits, uint class1, uint class2, uint class3,
                          uint t4, uint t8, uint t12)
{
    uint t_bits = (class1 & threshold_bit_lanes(t4, bit)) | (class2 & threshold_bit_lanes(t8, bit));
#if DIM == 3
    t_bits |= class3 & threshold_bit_lanes(t12, bit);
#else
    (void)class3, (void)t12;
#endif
    c->less |= c->tied & ~random_bits & t_bits;
    c->tied &= ~(random_bits ^ t_bits);
}

/* Bit groups g = first .. end - 1 of the comparison (draw g: unit, sweep,
 * hit = g, stream; 4 bits of every lane's random number, most significant
 * first), stopping once no uphill lane is tied with its threshold; returns
 * the lanes still tied. */
inline uint msc_compare_groups(msc_comparison *c, uint class1, uint class2, uint class3, uint t4, uint t8,
                               uint t12, clmc_philox_key key, uint unit, uint sweep, uint stream, uint first,
                               uint end)
{
    for (uint g = first; g < end && c->tied; g++) {
        clmc_philox_ctr r = METROPOLIS_RANDOM4(key, unit, sweep, g, stream);
        for (uint q = 0; q < 4; q++) compare_plane(c, 31 - (4 * g + q), r.v[q], class1, class2, class3, t4, t8, t12);
    }
    return c->tied;
}

#ifdef RNG_LCG_RESEEDED
/* Bit planes first .. end - 1 of the comparison, each the high word of the
 * next step of the word's LCG64 *state (plane b: bit 31 - b of every lane's
 * random number), stopping once no uphill lane is tied; returns the lanes
 * still tied. */
inline uint msc_compare_lcg(msc_comparison *c, uint class1, uint class2, uint class3, uint t4, uint t8, uint t12,
                            ulong *state, uint first, uint end)
{
    for (uint b = first; b < end && c->tied; b++) {
        *state = clmc_lcg64_step(*state);
        compare_plane(c, 31 - b, clmc_lcg64_word(*state), class1, class2, class3, t4, t8, t12);
    }
    return c->tied;
}
#endif

/* The new word once the comparison is decided: downhill lanes flip, an
 * uphill lane where its random number is below its class's threshold. */
inline uint msc_flipped(uint spins, uint class1, uint class2, uint class3, const msc_comparison *c)
{
    return spins ^ (~(class1 | class2 | class3) | c->less);
}

/* The Philox path's new word: all 8 bit groups as needed, so each decision
 * equals the exact 32-bit comparison r < t. */
inline uint msc_philox_flip(uint spins, uint class1, uint class2, uint class3, uint t4, uint t8, uint t12,
                            clmc_philox_key key, uint unit, uint sweep, uint stream)
{
    msc_comparison c = msc_comparison_start(class1, class2, class3);
    msc_compare_groups(&c, class1, class2, class3, t4, t8, t12, key, unit, sweep, stream, 0, 8);
    return msc_flipped(spins, class1, class2, class3, &c);
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
                               , uint first_item, uint end_item, uint split, uint gap
#endif
                               , uint first_system)
{
    uint item = get_global_id(0), config = get_global_id(1);
#ifdef SLAB
    /* Words [first_item, end_item), items from `split` on `gap` words further
     * (one launch for a slab's first and last layers). */
    item += first_item + (item >= split ? gap : 0u);
    if (item >= end_item) return; /* a launch's global size may be rounded up (algorithm.update_group) */
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
#if DIM == 2
    uint down = other[word_at(step_last(y, -1), z, w)], up = other[word_at(step_last(y, 1), z, w)];
    uint back = 0, front = 0;
#else
    uint down = other[word_at(wrap((int)y - 1), z, w)], up = other[word_at(wrap((int)y + 1), z, w)];
    uint back = other[word_at(y, step_last(z, -1), w)], front = other[word_at(y, step_last(z, 1), w)];
#endif
    uint class1, class2, class3;
    msc_uphill_classes(spins, left, right, down, up, back, front, &class1, &class2, &class3);

#ifdef RNG_STATEFUL
    /* Lane j is pair 32 w + j of the row; every pair draws, uphill or not. */
    ulong launch = 2ul * sweep + colour;
    uint downhill = ~(class1 | class2 | class3);
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
    own[stored] = msc_philox_flip(spins, class1, class2, class3, t4, t8, t12, key, unit, sweep, stream);
#endif
}

/* The bond sum (bonds to +x, +y(, +z)) and magnetisation of stored word
 * `stored` of colour `colour`, added to the two sums; for global memory (the
 * measurement kernel) and local memory (the resident update). */
#if DIM == 2
#define ABOVE_Y(y) step_last(y, 1)
#else
#define ABOVE_Y(y) wrap((int)(y) + 1) /* the slab's halo layers are along z */
#endif
#define MSC_WORD_SUMS(name, space, neighbours)                                                             \
    inline void name(space const uint *planes, uint colour, uint stored, int *bond_sum, int *spin_sum)      \
    {                                                                                                       \
        uint row = stored / WORDS_PER_ROW, w = stored % WORDS_PER_ROW;                                      \
        uint y = row % EDGE, z = row / EDGE;                                                                \
        space const uint *other = planes + (1 - colour) * PLANE_WORDS;                                      \
        uint spins = planes[colour * PLANE_WORDS + stored], left, right;                                    \
        neighbours(other, y, z, w, ((y + z + colour + LAYER_PARITY) & 1) == 0, &left, &right);              \
        int aligned = popcount(~(spins ^ right)) + popcount(~(spins ^ other[word_at(ABOVE_Y(y), z, w)]));   \
        if (DIM == 3) aligned += popcount(~(spins ^ other[word_at(y, step_last(z, 1), w)]));                \
        *bond_sum += 2 * aligned - 32 * DIM;                                                                \
        *spin_sum += 2 * (int)popcount(spins) - 32;                                                         \
    }
MSC_WORD_SUMS(word_sums, __global, row_neighbours)
#ifdef RESIDENT
MSC_WORD_SUMS(word_sums_local, __local, row_neighbours_local)
#endif

/* Per-work-group partial sums of the bond sum (+x, +y(, +z) bonds) and the
 * magnetisation, stored at partials[2 * (slot * groups + g)], as in ising.cl. */
__kernel __attribute__((reqd_work_group_size(MEASURE_WG, 1, 1)))
void ising_msc_measure(__global const uint *planes, __global int *partials, uint slot)
{
    planes += (size_t)get_global_id(1) * 2 * PLANE_WORDS;
    __local int bonds[MEASURE_WG];
    __local int magnetisation[MEASURE_WG];
    int bond_sum = 0, spin_sum = 0;
    for (uint word = get_global_id(0); word < 2 * UPDATE_WORDS; word += get_global_size(0))
        word_sums(planes, word / UPDATE_WORDS, word % UPDATE_WORDS + HALO_WORDS, &bond_sum, &spin_sum);
    reduce_pair_to(bonds, magnetisation, bond_sum, spin_sum, partials + partial_offset(slot));
}

#if defined(RESIDENT) || defined(TEMPORAL_BLOCK)
/* Passes over words held in local memory: the resident update (RESIDENT) and
 * temporal blocking (TEMPORAL_BLOCK), with the ordinary kernel's Philox
 * counters and bit-serial comparison, so their results are bit-identical to
 * it.  A pass (one colour) reads only the other colour's plane, so it goes
 * over its words in rounds of LIST_ITEMS, one word per work-item.
 *
 * A word is decided after the first FIRST_GROUPS bit groups unless one of its
 * uphill lanes is still tied (about 6 % of the words); those go to a list in
 * local memory with their comparison state and a second step finishes them,
 * one per work-item, after every FLUSH_ROUNDS rounds and at a pass's end.
 * So a warp runs its 32 words' first groups in step and not the slowest
 * word's 3 or 4 (the chance that one of 32 words needs a third group is above
 * 80 %).  Under RNG_LCG_RESEEDED (the resident update only) the steps count
 * single bit planes of the word's LCG64 (FIRST_END, then the rest); a listed
 * word's generator state travels with it and comes back. */
#ifdef RESIDENT
#define LIST_ITEMS RESIDENT_ITEMS
#else
#define LIST_ITEMS BLOCK_ITEMS
#endif
/* The list is finished after every FLUSH_ROUNDS rounds and at the end of a
 * pass (one barrier pair per FLUSH_ROUNDS rounds), so it holds up to
 * LIST_SLOTS words. */
#ifndef FLUSH_ROUNDS
#define FLUSH_ROUNDS 1
#endif
#define LIST_SLOTS (FLUSH_ROUNDS * LIST_ITEMS)
#define FIRST_GROUPS 2
/* A pending word: its item and comparison state (less, tied), and under
 * RNG_LCG_RESEEDED its generator state (two words). */
#define COMPARISON_FIELDS 3
/* A round's first step draws bit groups (planes) [0, FIRST_END), the second
 * the rest, up to LAST_END. */
#ifdef RNG_LCG_RESEEDED
#define PENDING_FIELDS (COMPARISON_FIELDS + 2)
#define HANDBACK_ITEMS LIST_ITEMS
#if FLUSH_ROUNDS != 1
#error "RNG_LCG_RESEEDED hands a listed word's state back in the round that listed it (FLUSH_ROUNDS 1)"
#endif
/* bit planes, one per LCG64 step: 8 ran 4.9 % faster than 6 (population
 * annealing, 2D L = 64, R = 1e6, theta = 10, one H100; 10 and 12 as slow as 6,
 * 16 and 32 as fast as 8) */
#define FIRST_END 8u
#define LAST_END 32u
/* The Philox draw that seeds a word's LCG64: bit group 8, past the 8 of the
 * Philox path's comparison. */
#define LCG_SEED_GROUP 8u
#else
#define PENDING_FIELDS COMPARISON_FIELDS
#define HANDBACK_ITEMS 1
#define FIRST_END FIRST_GROUPS /* groups of 4 bit planes, one per Philox draw */
#define LAST_END 8u
#endif

/* Where the words of a pass lie: RESIDENT, word i % PLANE_WORDS of
 * configuration i / PLANE_WORDS (the frame unused); TEMPORAL_BLOCK, the box's
 * words from box row first_row on, box row r holding global row y0 + r. */
typedef struct {
    uint first_row;
    int y0;
} local_frame;

/* Word `item` of a pass in local memory: own word, the other colour's plane,
 * its row (y, z) and word w in that plane, whether its colour's site comes
 * first in its pair, its Philox unit and its configuration in the group. */
typedef struct {
    uint own, other, y, z, w, first_in_pair, unit, member;
} local_place;

#ifdef RESIDENT
#define MEMBER_WORDS (2 * PLANE_WORDS)
/* Neighbour rows: the configuration is periodic. */
#define LOCAL_STEP_Y(y, step) wrap((int)(y) + (step))

inline local_place place_of(uint item, uint colour, local_frame frame)
{
    (void)frame;
    local_place at;
    uint word = item % PLANE_WORDS, row = word / WORDS_PER_ROW;
    at.member = item / PLANE_WORDS;
    at.own = at.member * MEMBER_WORDS + colour * PLANE_WORDS + word;
    at.other = at.member * MEMBER_WORDS + (1 - colour) * PLANE_WORDS;
    at.y = row % EDGE;
    at.z = row / EDGE;
    at.w = word % WORDS_PER_ROW;
    at.first_in_pair = ((at.y + at.z + colour) & 1) == 0;
    at.unit = colour * PLANE_WORDS + word;
    return at;
}
#else
/* The box: BOX_ROWS whole rows of each colour (2D). */
#define BOX_ROWS ((uint)BLOCK + 2 * BLOCK_HALO)
#define BOX_PLANE_WORDS (BOX_ROWS * WORDS_PER_ROW)

/* The global row of box row `row` (the halo may be deeper than L). */
inline uint box_row_global(int y0, uint row)
{
    int r = (y0 + (int)row) % EDGE;
    return (uint)(r < 0 ? r + EDGE : r);
}
/* Neighbour rows within the box: a pass never reaches its first or last row. */
#define LOCAL_STEP_Y(y, step) ((uint)((int)(y) + (step)))

inline local_place place_of(uint item, uint colour, local_frame frame)
{
    local_place at;
    uint row = frame.first_row + item / WORDS_PER_ROW;
    uint global_row = box_row_global(frame.y0, row);
    at.member = 0;
    at.y = row;
    at.z = 0;
    at.w = item % WORDS_PER_ROW;
    at.own = colour * BOX_PLANE_WORDS + row * WORDS_PER_ROW + at.w;
    at.other = (1 - colour) * BOX_PLANE_WORDS;
    at.first_in_pair = ((global_row + colour) & 1) == 0;
    at.unit = colour * LATTICE_PLANE_WORDS + global_row * WORDS_PER_ROW + at.w;
    return at;
}
#endif

/* The word's spins and uphill classes. */
inline uint local_classes(__local const uint *lattice, local_place at, uint *class1, uint *class2, uint *class3)
{
    __local const uint *other = lattice + at.other;
    uint left, right;
    row_neighbours_local(other, at.y, at.z, at.w, at.first_in_pair, &left, &right);
#if DIM == 2
    uint back = 0, front = 0;
#else
    uint back = other[word_at(at.y, wrap((int)at.z - 1), at.w)];
    uint front = other[word_at(at.y, wrap((int)at.z + 1), at.w)];
#endif
    uint spins = lattice[at.own];
    msc_uphill_classes(spins, left, right, other[word_at(LOCAL_STEP_Y(at.y, -1), at.z, at.w)],
                       other[word_at(LOCAL_STEP_Y(at.y, 1), at.z, at.w)], back, front, class1, class2, class3);
    return spins;
}

/* Bit groups [first, end) of word `item` (RNG_LCG_RESEEDED: bit planes from
 * the word's *state; else Philox draws), the comparison *c started here
 * where first is 0; returns whether it is still tied,
 * else stores its new spins.  After the last group (end = LAST_END) it is
 * decided: a lane still tied has r = t exactly, which rejects, as in
 * msc_philox_flip. */
inline bool local_word_at(__local uint *lattice, local_place at, uint t4, uint t8, uint t12, uint sweep,
                          clmc_philox_key key, uint stream_base, ulong *state, msc_comparison *c, uint first, uint end)
{
    uint class1, class2, class3;
    uint spins = local_classes(lattice, at, &class1, &class2, &class3);
    if (first == 0) *c = msc_comparison_start(class1, class2, class3);
#ifdef RNG_LCG_RESEEDED
    (void)sweep, (void)key, (void)stream_base;
    uint tied = msc_compare_lcg(c, class1, class2, class3, t4, t8, t12, state, first, end);
#else
    (void)state;
    uint tied = msc_compare_groups(c, class1, class2, class3, t4, t8, t12, key, at.unit, sweep,
                                   CLMC_STREAM(CLMC_PURPOSE_METROPOLIS, stream_base + at.member), first, end);
#endif
    if (tied && end < LAST_END) return true;
    lattice[at.own] = msc_flipped(spins, class1, class2, class3, c);
    return false;
}

/* local_word_at for word `item` of a pass, its thresholds those of its
 * configuration in `limits`. */
inline bool local_word(__local uint *lattice, __local const uint *limits, uint item, uint colour, local_frame frame,
                       uint sweep, clmc_philox_key key, uint stream_base, ulong *state, msc_comparison *c, uint first,
                       uint end)
{
    local_place at = place_of(item, colour, frame);
    return local_word_at(lattice, at, limits[3 * at.member], limits[3 * at.member + 1], limits[3 * at.member + 2],
                         sweep, key, stream_base, state, c, first, end);
}

#ifdef RNG_LCG_RESEEDED
inline void pending_store_state(__local uint *pending, uint slot, ulong state)
{
    pending[COMPARISON_FIELDS * LIST_SLOTS + slot] = (uint)state;
    pending[(COMPARISON_FIELDS + 1) * LIST_SLOTS + slot] = (uint)(state >> 32);
}

inline ulong pending_load_state(__local const uint *pending, uint slot)
{
    return (ulong)pending[COMPARISON_FIELDS * LIST_SLOTS + slot] |
           (ulong)pending[(COMPARISON_FIELDS + 1) * LIST_SLOTS + slot] << 32;
}
#endif

inline void pending_store(__local uint *pending, uint slot, uint item, const msc_comparison *c)
{
    pending[slot] = item;
    pending[LIST_SLOTS + slot] = c->less;
    pending[2 * LIST_SLOTS + slot] = c->tied;
}

inline uint pending_load(__local const uint *pending, uint slot, msc_comparison *c)
{
    c->less = pending[LIST_SLOTS + slot];
    c->tied = pending[2 * LIST_SLOTS + slot];
    return pending[slot];
}

/* The first step of a round: this work-item's word `item` (if `active`),
 * at `place` with thresholds t (t4, t8, t12), takes the first FIRST_END groups;
 * returns whether it is still tied, and then lists it in list *list. */
inline bool local_first(__local uint *lattice, local_place place, const uint *t, __local uint *pending,
                        __local uint *pending_count, uint item, bool active, uint sweep, clmc_philox_key key,
                        uint stream_base, ulong *state, uint list)
{
    msc_comparison c;
    if (!active || !local_word_at(lattice, place, t[0], t[1], t[2], sweep, key, stream_base, state, &c, 0, FIRST_END))
        return false;
    uint at = atomic_inc(&pending_count[list]);
    pending_store(pending, at, item, &c);
#ifdef RNG_LCG_RESEEDED
    pending_store_state(pending, at, *state);
#endif
    return true;
}

/* The second step: the listed words finished, one per work-item (in turns
 * of LIST_ITEMS).  Every work-item of the group calls it (two barriers); the
 * two lists alternate (*list), the one the previous step read being cleared
 * for the next.  RNG_LCG_RESEEDED (FLUSH_ROUNDS 1): a word finished by
 * another work-item hands its state back through `handback`, indexed by its
 * owner, to *state where `listed`. */
inline void local_finish(__local uint *lattice, __local const uint *limits, __local uint *pending,
                         __local uint *pending_count, __local ulong *handback, bool listed, uint colour,
                         local_frame frame, uint sweep, clmc_philox_key key, uint stream_base, ulong *state,
                         uint *list)
{
    uint lid = get_local_id(0);
    if (lid == 0) pending_count[*list ^ 1] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    uint listed_words = pending_count[*list];
    /* The two forms as measured fastest for each generator (population
     * annealing, 2D L = 64, R = 1e6, one H200: the LCG path 4.5 % slower with
     * the loop, the Philox path 2.5 % slower with the `if`). */
#ifdef RNG_LCG_RESEEDED
    if (lid < listed_words) { /* FLUSH_ROUNDS 1: one listed word at most per work-item */
        uint slot = lid;
#else
    for (uint slot = lid; slot < listed_words; slot += LIST_ITEMS) { /* no barrier in this loop */
#endif
        msc_comparison c;
        uint tied = pending_load(pending, slot, &c);
        ulong tied_state = 0;
#ifdef RNG_LCG_RESEEDED
        tied_state = pending_load_state(pending, slot);
#endif
        local_word(lattice, limits, tied, colour, frame, sweep, key, stream_base, &tied_state, &c, FIRST_END,
                   LAST_END);
#ifdef RNG_LCG_RESEEDED
        handback[tied % LIST_ITEMS] = tied_state;
#endif
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#ifdef RNG_LCG_RESEEDED
    if (listed) *state = handback[get_local_id(0)];
#else
    (void)handback, (void)listed, (void)state;
#endif
    *list ^= 1;
}
#endif

#ifdef RESIDENT
/* Resident update (algorithm.resident, docs/models/ising.md): a work-group of
 * RESIDENT_ITEMS work-items holds CONFIGS_PER_GROUP whole configurations (both
 * colour planes, in the layout of global memory) in local memory and makes
 * `count` sweeps from `first_sweep`, each its two colour passes, colour 0
 * first, as the ordinary kernel's launches.  A pass goes over the words of
 * the colour in rounds of RESIDENT_ITEMS (word i % PLANE_WORDS of
 * configuration i / PLANE_WORDS; unit = colour * PLANE_WORDS + word, the
 * stream of the configuration).  Every loop around a barrier has the same
 * trip count in every work-item.  The last group may hold fewer
 * configurations; its spare items only meet the barriers.
 *
 * slot < 0xFFFFFFFF: the launch ends at a measurement, whose exact sums
 * (those of ising_msc_measure) go to batch slot `slot` of partials as the
 * first of the measurement's `groups` pairs of each configuration (the
 * others 0), `configs` configurations in all.  `hits` (1) keeps the
 * argument list of ising.cl's resident kernel.  gather_members > 0: the
 * launch loads its configurations from gather_from, configuration j from
 * slot pa_source_of(j, gather_source, gather_members), and writes them to
 * `planes` (population annealing's gather, fused).  threshold_stride: 3,
 * each configuration its row of thresholds; 0, all the first row.
 * members_out: the measurement goes to member_energy and
 * member_magnetisation instead, and with fold_range the energies into
 * chunk_range (as ising.cl's resident kernel). */
#include "ensembles/population_source.h"
#define RESIDENT_ROUNDS ((CONFIGS_PER_GROUP * PLANE_WORDS + RESIDENT_ITEMS - 1) / RESIDENT_ITEMS)

/* The measurement's sums of the group's configurations into sums[2 member]
 * (bonds) and sums[2 member + 1] (spins); an item's words run through the
 * members in order, one atomic per member it meets. */
inline void resident_measure(__local const uint *lattice, __local int *sums, uint members)
{
    uint lid = get_local_id(0);
    int bond_sum = 0, spin_sum = 0;
    uint member = lid / MEMBER_WORDS;
    for (uint item = lid; item < members * MEMBER_WORDS; item += RESIDENT_ITEMS) {
        if (item / MEMBER_WORDS != member) {
            atomic_add(&sums[2 * member], bond_sum);
            atomic_add(&sums[2 * member + 1], spin_sum);
            bond_sum = spin_sum = 0;
            member = item / MEMBER_WORDS;
        }
        uint word = item % MEMBER_WORDS;
        word_sums_local(lattice + member * MEMBER_WORDS, word / PLANE_WORDS, word % PLANE_WORDS, &bond_sum, &spin_sum);
    }
    if (member < members) {
        atomic_add(&sums[2 * member], bond_sum);
        atomic_add(&sums[2 * member + 1], spin_sum);
    }
}

__kernel __attribute__((reqd_work_group_size(RESIDENT_ITEMS, 1, 1)))
void ising_msc_resident_update(__global uint *planes, uint seed_lo, uint seed_hi, uint first_sweep, uint count,
                               uint hits, __global const uint *thresholds, __global int *partials, uint slot,
                               uint groups, uint configs, __global const uint *gather_from,
                               __global const uint *gather_source, uint gather_members, uint threshold_stride,
                               __global int *member_energy, __global int *member_magnetisation, uint members_out,
                               __global int *chunk_range, uint fold_range, uint first_system)
{
    __local uint lattice[CONFIGS_PER_GROUP * MEMBER_WORDS];
    __local uint pending[PENDING_FIELDS * RESIDENT_ITEMS];
    __local uint limits[3 * CONFIGS_PER_GROUP];
    __local int sums[2 * CONFIGS_PER_GROUP];
    __local uint pending_count[2];
    /* A word finished by another work-item hands its LCG64 state back here
     * (indexed by the owner; RNG_LCG_RESEEDED). */
    __local ulong handback[HANDBACK_ITEMS];
    (void)hits;
    uint lid = get_local_id(0);
    uint first_config = get_group_id(0) * CONFIGS_PER_GROUP;
    uint members = configs - first_config < CONFIGS_PER_GROUP ? configs - first_config : CONFIGS_PER_GROUP;
    __global uint *group_planes = planes + (size_t)first_config * MEMBER_WORDS;
    for (uint i = lid; i < members * MEMBER_WORDS; i += RESIDENT_ITEMS) {
        uint member = first_config + i / MEMBER_WORDS;
        lattice[i] = gather_members ? gather_from[(size_t)pa_source_of(member, gather_source, gather_members) *
                                                      MEMBER_WORDS + i % MEMBER_WORDS]
                                    : group_planes[i];
    }
    for (uint i = lid; i < 3 * members; i += RESIDENT_ITEMS)
        limits[i] = thresholds[threshold_stride * (first_config + i / 3) + i % 3];
    for (uint i = lid; i < 2 * CONFIGS_PER_GROUP; i += RESIDENT_ITEMS) sums[i] = 0;
    if (lid < 2) pending_count[lid] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    clmc_philox_key key = {{seed_lo, seed_hi}};
    uint stream_base = first_system + first_config, list = 0;
    local_frame frame = {0, 0};
#ifdef RNG_LCG_RESEEDED
    /* Each word's LCG64 (colour, round), seeded from the Philox draw of its
     * unit at first_sweep. */
    ulong states[2 * RESIDENT_ROUNDS];
    for (uint colour = 0; colour < 2; colour++)
        for (uint round = 0; round < RESIDENT_ROUNDS; round++) {
            uint item = round * RESIDENT_ITEMS + lid, member = item / PLANE_WORDS;
            uint stream = CLMC_STREAM(CLMC_PURPOSE_METROPOLIS, stream_base + member);
            clmc_philox_ctr r = clmc_random4(key, colour * PLANE_WORDS + item % PLANE_WORDS, first_sweep,
                                             LCG_SEED_GROUP, stream);
            states[colour * RESIDENT_ROUNDS + round] = (ulong)r.v[0] | (ulong)r.v[1] << 32;
        }
#else
    ulong states[1] = {0}; /* unused: the Philox draws need no state */
#endif
    /* One round (the usual case): a work-item's two places and its
     * configuration's thresholds found once. */
    local_place places[2] = {place_of(lid, 0, frame), place_of(lid, 1, frame)};
    uint own[3] = {0, 0, 0};
    for (uint i = 0; i < 3 && lid < members * PLANE_WORDS; i++) own[i] = limits[3 * places[0].member + i];
    for (uint k = 0; k < count; k++)
        for (uint colour = 0; colour < 2; colour++)
            for (uint round = 0; round < RESIDENT_ROUNDS; round++) {
                uint item = round * RESIDENT_ITEMS + lid;
#ifdef RNG_LCG_RESEEDED
                ulong *state = &states[colour * RESIDENT_ROUNDS + round];
#else
                ulong *state = &states[0];
#endif
                local_place at = RESIDENT_ROUNDS == 1 ? places[colour] : place_of(item, colour, frame);
                uint t[3] = {own[0], own[1], own[2]};
                for (uint i = 0; RESIDENT_ROUNDS > 1 && i < 3 && item < members * PLANE_WORDS; i++)
                    t[i] = limits[3 * at.member + i];
                bool listed = local_first(lattice, at, t, pending, pending_count, item, item < members * PLANE_WORDS,
                                          first_sweep + k, key, stream_base, state, list);
                local_finish(lattice, limits, pending, pending_count, handback, listed, colour, frame, first_sweep + k,
                             key, stream_base, state, &list);
            }
    if (slot != 0xFFFFFFFFu) resident_measure(lattice, sums, members);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (slot != 0xFFFFFFFFu && members_out) /* population annealing's member values (as ising_member_totals) */
        for (uint member = lid; member < members; member += RESIDENT_ITEMS) {
            member_energy[first_config + member] = -sums[2 * member];
            member_magnetisation[first_config + member] = sums[2 * member + 1];
            if (fold_range) pa_fold_range(chunk_range, first_config + member, -sums[2 * member], -sums[2 * member]);
        }
    else if (slot != 0xFFFFFFFFu)
        for (uint i = lid; i < members * groups; i += RESIDENT_ITEMS) {
            uint member = i / groups, g = i % groups;
            __global int *out = partials + 2 * (((size_t)slot * configs + first_config + member) * groups + g);
            out[0] = g == 0 ? sums[2 * member] : 0;
            out[1] = g == 0 ? sums[2 * member + 1] : 0;
        }
    for (uint i = lid; i < members * MEMBER_WORDS; i += RESIDENT_ITEMS) group_planes[i] = lattice[i];
}
#endif

#ifdef TEMPORAL_BLOCK
/* Temporal blocking of the msc layout (algorithm.sweeps_per_launch,
 * docs/models/ising.md; 2D): the lattice is cut into bands of BLOCK whole
 * rows (the last band shorter where BLOCK does not divide L).  A work-group of
 * BLOCK_ITEMS work-items per band and configuration loads its band with
 * BLOCK_HALO = 2 x (sweeps per launch) rows above and below (the box, both
 * colour planes) from `src`, makes the launch's P = 2 count colour passes
 * there and writes the band's own rows to `dst` (the host swaps the buffers).
 * Rows are whole, so only the rows next to the box's edges go wrong: pass p
 * updates the rows within P - 1 - p of the band, whose neighbour rows the
 * previous pass left right, and the last pass the band alone.  Each word
 * draws the ordinary kernel's numbers (unit = its global word, sweep, bit
 * group, the configuration's stream), so the result is bit-identical to the
 * ordinary kernels for every count and band.  Every loop around a barrier has
 * the same trip count in every work-item.  `hits` (1) keeps the argument list
 * of ising.cl's blocked kernel. */
__kernel __attribute__((reqd_work_group_size(BLOCK_ITEMS, 1, 1)))
void ising_blocked_update(__global const uint *src, __global uint *dst, uint seed_lo, uint seed_hi, uint first_sweep,
                          uint count, uint hits, __global const uint *thresholds, uint first_system)
{
    __local uint lattice[2 * BOX_PLANE_WORDS];
    __local uint pending[PENDING_FIELDS * LIST_SLOTS];
    __local uint limits[3];
    __local uint pending_count[2];
    __local ulong handback[HANDBACK_ITEMS];
    (void)hits;
    uint lid = get_local_id(0), band = get_group_id(0), config = get_global_id(1);
    src += (size_t)config * 2 * PLANE_WORDS;
    dst += (size_t)config * 2 * PLANE_WORDS;
    uint first = band * BLOCK, rows = min((uint)BLOCK, (uint)EDGE - first);
    local_frame frame = {0, (int)first - BLOCK_HALO};
    for (uint i = lid; i < 2 * BOX_PLANE_WORDS; i += BLOCK_ITEMS) {
        uint colour = i / BOX_PLANE_WORDS, at = i % BOX_PLANE_WORDS;
        lattice[i] = src[colour * PLANE_WORDS + box_row_global(frame.y0, at / WORDS_PER_ROW) * WORDS_PER_ROW +
                         at % WORDS_PER_ROW];
    }
    if (lid < 3) limits[lid] = thresholds[3 * config + lid];
    if (lid < 2) pending_count[lid] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    clmc_philox_key key = {{seed_lo, seed_hi}};
    uint list = 0, passes = 2 * count;
    ulong state = 0; /* unused: the Philox draws need no state */
    for (uint p = 0; p < passes; p++) {
        uint reach = passes - 1 - p, words = (rows + 2 * reach) * WORDS_PER_ROW;
        frame.first_row = BLOCK_HALO - reach;
        for (uint round = 0, rounds = (words + BLOCK_ITEMS - 1) / BLOCK_ITEMS; round < rounds; round++) {
            uint item = round * BLOCK_ITEMS + lid, t[3] = {limits[0], limits[1], limits[2]};
            local_first(lattice, place_of(item, p & 1, frame), t, pending, pending_count, item, item < words,
                        first_sweep + p / 2, key, first_system + config, &state, list);
            if ((round + 1) % FLUSH_ROUNDS == 0 || round + 1 == rounds)
                local_finish(lattice, limits, pending, pending_count, handback, false, p & 1, frame,
                             first_sweep + p / 2, key, first_system + config, &state, &list);
        }
    }
    for (uint i = lid; i < 2 * rows * WORDS_PER_ROW; i += BLOCK_ITEMS) {
        uint colour = i / (rows * WORDS_PER_ROW), at = i % (rows * WORDS_PER_ROW);
        dst[colour * PLANE_WORDS + first * WORDS_PER_ROW + at] =
            lattice[colour * BOX_PLANE_WORDS + BLOCK_HALO * WORDS_PER_ROW + at];
    }
}
#endif
