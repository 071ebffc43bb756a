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
#ifdef RESIDENT
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

/* One bit plane of the bit-serial comparison r < t, most significant first:
 * `less` collects lanes already below t, `equal` those still tied. */
inline void compare_plane(uint threshold, uint bit, uint random_bits, uint *less, uint *equal)
{
    uint t_mask = ((threshold >> bit) & 1u) ? 0xFFFFFFFFu : 0u;
    *less |= *equal & ~random_bits & t_mask;
    *equal &= ~(random_bits ^ t_mask);
}

/* The state of the bit-serial comparisons of a word's uphill lanes (class
 * k against t_k): `less` lanes already below t_k, `equal` lanes still tied. */
typedef struct {
    uint less1, less2, less3, equal1, equal2, equal3;
} msc_comparison;

inline msc_comparison msc_comparison_start(void)
{
    msc_comparison c = {0, 0, 0, ~0u, ~0u, ~0u};
    return c;
}

/* Bit groups g = first .. end - 1 of the comparison (draw g: unit, sweep,
 * hit = g, stream; 4 bits of every lane's random number, most significant
 * first), stopping once no uphill lane is tied with its threshold; returns
 * the lanes still tied. */
inline uint msc_compare_groups(msc_comparison *c, uint class1, uint class2, uint class3, uint t4, uint t8,
                               uint t12, clmc_philox_key key, uint unit, uint sweep, uint stream, uint first,
                               uint end)
{
    uint tied = (c->equal1 & class1) | (c->equal2 & class2) | (c->equal3 & class3);
    for (uint g = first; g < end && tied; g++) {
        clmc_philox_ctr r = METROPOLIS_RANDOM4(key, unit, sweep, g, stream);
        for (uint q = 0; q < 4; q++) {
            uint bit = 31 - (4 * g + q);
            compare_plane(t4, bit, r.v[q], &c->less1, &c->equal1);
            compare_plane(t8, bit, r.v[q], &c->less2, &c->equal2);
#if DIM == 3
            compare_plane(t12, bit, r.v[q], &c->less3, &c->equal3);
#endif
        }
        tied = (c->equal1 & class1) | (c->equal2 & class2) | (c->equal3 & class3);
    }
    return tied;
}

#ifdef RNG_LCG_RESEEDED
/* Bit planes first .. end - 1 of the comparison, each the high word of the
 * next step of the word's LCG64 *state (plane b: bit 31 - b of every lane's
 * random number), stopping once no uphill lane is tied; returns the lanes
 * still tied. */
inline uint msc_compare_lcg(msc_comparison *c, uint class1, uint class2, uint class3, uint t4, uint t8, uint t12,
                            ulong *state, uint first, uint end)
{
    uint tied = (c->equal1 & class1) | (c->equal2 & class2) | (c->equal3 & class3);
    for (uint b = first; b < end && tied; b++) {
        *state = clmc_lcg64_step(*state);
        uint bits = clmc_lcg64_word(*state);
        compare_plane(t4, 31 - b, bits, &c->less1, &c->equal1);
        compare_plane(t8, 31 - b, bits, &c->less2, &c->equal2);
#if DIM == 3
        compare_plane(t12, 31 - b, bits, &c->less3, &c->equal3);
#else
        (void)t12;
#endif
        tied = (c->equal1 & class1) | (c->equal2 & class2) | (c->equal3 & class3);
    }
    return tied;
}
#endif

/* The new word once the comparison is decided: downhill lanes flip, an
 * uphill lane of class k where its random number is below t_k. */
inline uint msc_flipped(uint spins, uint class1, uint class2, uint class3, const msc_comparison *c)
{
    uint downhill = ~(class1 | class2 | class3);
    return spins ^ (downhill | (c->less1 & class1) | (c->less2 & class2) | (c->less3 & class3));
}

/* The Philox path's new word: all 8 bit groups as needed, so each decision
 * equals the exact 32-bit comparison r < t. */
inline uint msc_philox_flip(uint spins, uint class1, uint class2, uint class3, uint t4, uint t8, uint t12,
                            clmc_philox_key key, uint unit, uint sweep, uint stream)
{
    msc_comparison c = msc_comparison_start();
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

#ifdef RESIDENT
/* Resident update (algorithm.resident, docs/models/ising.md): a work-group of
 * RESIDENT_ITEMS work-items holds CONFIGS_PER_GROUP whole configurations (both
 * colour planes, in the layout of global memory) in local memory and makes
 * `count` sweeps from `first_sweep`, each its two colour passes, colour 0
 * first, as the ordinary kernel's launches.  A pass goes over the words of
 * the colour in rounds of RESIDENT_ITEMS (word i % PLANE_WORDS of
 * configuration i / PLANE_WORDS), with the ordinary kernel's Philox counters
 * (unit = colour * PLANE_WORDS + word, sweep, bit group, stream of the
 * configuration) and bit-serial comparison, so the result is bit-identical
 * to it.  A pass reads only the other colour's plane, so barriers between
 * rounds keep the order; every loop around a barrier has the same trip count
 * in every work-item.  The last group may hold fewer configurations; its
 * spare items only meet the barriers.
 *
 * A word is decided after the first FIRST_GROUPS bit groups unless one of its
 * uphill lanes is still tied (about 6 % of the words); those go to a list in
 * local memory with their comparison state and a second step of the round
 * finishes them, one per work-item.  So a warp runs its 32 words' first
 * groups in step and not the slowest word's 3 or 4 (the chance that one of
 * 32 words needs a third group is above 80 %).  Under RNG_LCG_RESEEDED the
 * steps count single bit planes of the word's LCG64 (FIRST_END, then the
 * rest); a listed word's generator state travels with it and comes back.
 *
 * slot < 0xFFFFFFFF: the launch ends at a measurement, whose exact sums
 * (those of ising_msc_measure) go to batch slot `slot` of partials as the
 * first of the measurement's `groups` pairs of each configuration (the
 * others 0), `configs` configurations in all.  `hits` (1) keeps the
 * argument list of ising.cl's resident kernel. */
#define MEMBER_WORDS (2 * PLANE_WORDS)
#define RESIDENT_ROUNDS ((CONFIGS_PER_GROUP * PLANE_WORDS + RESIDENT_ITEMS - 1) / RESIDENT_ITEMS)
#define FIRST_GROUPS 2
/* A pending word: its item and comparison state (2D: two classes), and
 * under RNG_LCG_RESEEDED its generator state (two words). */
#if DIM == 2
#define COMPARISON_FIELDS 5
#else
#define COMPARISON_FIELDS 7
#endif
/* A round's first step draws bit groups (planes) [0, FIRST_END), the second
 * the rest, up to LAST_END. */
#ifdef RNG_LCG_RESEEDED
#define PENDING_FIELDS (COMPARISON_FIELDS + 2)
#define FIRST_END 6u /* bit planes, one per LCG64 step */
#define LAST_END 32u
/* The Philox draw that seeds a word's LCG64: bit group 8, past the 8 of the
 * Philox path's comparison. */
#define LCG_SEED_GROUP 8u
#else
#define PENDING_FIELDS COMPARISON_FIELDS
#define FIRST_END FIRST_GROUPS /* groups of 4 bit planes, one per Philox draw */
#define LAST_END 8u
#endif

/* Word `item` (< CONFIGS_PER_GROUP * PLANE_WORDS) of colour `colour`: its
 * spins and uphill classes. */
inline uint resident_classes(__local const uint *lattice, uint item, uint colour, uint *class1, uint *class2,
                             uint *class3)
{
    uint member = item / PLANE_WORDS, word = item % PLANE_WORDS;
    __local const uint *other = lattice + member * MEMBER_WORDS + (1 - colour) * PLANE_WORDS;
    uint row = word / WORDS_PER_ROW, w = word % WORDS_PER_ROW, y = row % EDGE, z = row / EDGE;
    uint spins = lattice[member * MEMBER_WORDS + colour * PLANE_WORDS + word], left, right;
    row_neighbours_local(other, y, z, w, ((y + z + colour) & 1) == 0, &left, &right);
#if DIM == 2
    uint back = 0, front = 0;
#else
    uint back = other[word_at(y, wrap((int)z - 1), w)], front = other[word_at(y, wrap((int)z + 1), w)];
#endif
    msc_uphill_classes(spins, left, right, other[word_at(wrap((int)y - 1), z, w)],
                       other[word_at(wrap((int)y + 1), z, w)], back, front, class1, class2, class3);
    return spins;
}

/* Bit groups [first, end) of word `item` (RNG_LCG_RESEEDED: bit planes from
 * the word's *state; else Philox draws); returns whether it is still tied,
 * else stores its new spins. */
inline bool resident_word(__local uint *lattice, __local const uint *limits, uint item, uint colour, uint sweep,
                          clmc_philox_key key, uint stream_base, ulong *state, msc_comparison *c, uint first, uint end)
{
    uint class1, class2, class3, member = item / PLANE_WORDS, word = item % PLANE_WORDS;
    uint spins = resident_classes(lattice, item, colour, &class1, &class2, &class3);
    uint t4 = limits[3 * member], t8 = limits[3 * member + 1], t12 = limits[3 * member + 2];
#ifdef RNG_LCG_RESEEDED
    (void)sweep, (void)key, (void)stream_base;
    uint tied = msc_compare_lcg(c, class1, class2, class3, t4, t8, t12, state, first, end);
#else
    (void)state;
    uint tied = msc_compare_groups(c, class1, class2, class3, t4, t8, t12, key, colour * PLANE_WORDS + word, sweep,
                                   CLMC_STREAM(CLMC_PURPOSE_METROPOLIS, stream_base + member), first, end);
#endif
    if (tied) return true;
    lattice[member * MEMBER_WORDS + colour * PLANE_WORDS + word] = msc_flipped(spins, class1, class2, class3, c);
    return false;
}

#ifdef RNG_LCG_RESEEDED
inline void pending_store_state(__local uint *pending, uint slot, ulong state)
{
    pending[COMPARISON_FIELDS * RESIDENT_ITEMS + slot] = (uint)state;
    pending[(COMPARISON_FIELDS + 1) * RESIDENT_ITEMS + slot] = (uint)(state >> 32);
}

inline ulong pending_load_state(__local const uint *pending, uint slot)
{
    return (ulong)pending[COMPARISON_FIELDS * RESIDENT_ITEMS + slot] |
           (ulong)pending[(COMPARISON_FIELDS + 1) * RESIDENT_ITEMS + slot] << 32;
}
#endif

inline void pending_store(__local uint *pending, uint slot, uint item, const msc_comparison *c)
{
    pending[slot] = item;
    pending[RESIDENT_ITEMS + slot] = c->less1;
    pending[2 * RESIDENT_ITEMS + slot] = c->less2;
    pending[3 * RESIDENT_ITEMS + slot] = c->equal1;
    pending[4 * RESIDENT_ITEMS + slot] = c->equal2;
#if DIM == 3
    pending[5 * RESIDENT_ITEMS + slot] = c->less3;
    pending[6 * RESIDENT_ITEMS + slot] = c->equal3;
#endif
}

inline uint pending_load(__local const uint *pending, uint slot, msc_comparison *c)
{
    *c = msc_comparison_start();
    c->less1 = pending[RESIDENT_ITEMS + slot];
    c->less2 = pending[2 * RESIDENT_ITEMS + slot];
    c->equal1 = pending[3 * RESIDENT_ITEMS + slot];
    c->equal2 = pending[4 * RESIDENT_ITEMS + slot];
#if DIM == 3
    c->less3 = pending[5 * RESIDENT_ITEMS + slot];
    c->equal3 = pending[6 * RESIDENT_ITEMS + slot];
#endif
    return pending[slot];
}

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
                               uint groups, uint configs, uint first_system)
{
    __local uint lattice[CONFIGS_PER_GROUP * MEMBER_WORDS];
    __local uint pending[PENDING_FIELDS * RESIDENT_ITEMS];
    __local uint limits[3 * CONFIGS_PER_GROUP];
    __local int sums[2 * CONFIGS_PER_GROUP];
    __local uint pending_count[2];
    (void)hits;
    uint lid = get_local_id(0);
    uint first_config = get_group_id(0) * CONFIGS_PER_GROUP;
    uint members = configs - first_config < CONFIGS_PER_GROUP ? configs - first_config : CONFIGS_PER_GROUP;
    __global uint *group_planes = planes + (size_t)first_config * MEMBER_WORDS;
    for (uint i = lid; i < members * MEMBER_WORDS; i += RESIDENT_ITEMS) lattice[i] = group_planes[i];
    for (uint i = lid; i < 3 * members; i += RESIDENT_ITEMS) limits[i] = thresholds[3 * first_config + i];
    for (uint i = lid; i < 2 * CONFIGS_PER_GROUP; i += RESIDENT_ITEMS) sums[i] = 0;
    if (lid < 2) pending_count[lid] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    clmc_philox_key key = {{seed_lo, seed_hi}};
    uint stream_base = first_system + first_config, list = 0;
#ifdef RNG_LCG_RESEEDED
    /* Each word's LCG64 (colour, round), seeded from the Philox draw of its
     * unit at first_sweep; a word finished by another work-item hands its
     * state back through `handback` (indexed by the owner). */
    __local ulong handback[RESIDENT_ITEMS];
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
    for (uint k = 0; k < count; k++)
        for (uint colour = 0; colour < 2; colour++)
            for (uint round = 0; round < RESIDENT_ROUNDS; round++) {
                /* The two lists alternate: the one the previous round read is cleared for the next. */
                uint item = round * RESIDENT_ITEMS + lid, sweep = first_sweep + k;
#ifdef RNG_LCG_RESEEDED
                ulong *state = &states[colour * RESIDENT_ROUNDS + round];
#else
                ulong *state = &states[0];
#endif
                msc_comparison c = msc_comparison_start();
                bool listed = item < members * PLANE_WORDS &&
                              resident_word(lattice, limits, item, colour, sweep, key, stream_base, state, &c, 0,
                                            FIRST_END);
                if (listed) {
                    uint at = atomic_inc(&pending_count[list]);
                    pending_store(pending, at, item, &c);
#ifdef RNG_LCG_RESEEDED
                    pending_store_state(pending, at, *state);
#endif
                }
                if (lid == 0) pending_count[list ^ 1] = 0;
                barrier(CLK_LOCAL_MEM_FENCE);
                if (lid < pending_count[list]) {
                    uint tied = pending_load(pending, lid, &c);
                    ulong tied_state = 0;
#ifdef RNG_LCG_RESEEDED
                    tied_state = pending_load_state(pending, lid);
#endif
                    resident_word(lattice, limits, tied, colour, sweep, key, stream_base, &tied_state, &c, FIRST_END,
                                  LAST_END);
#ifdef RNG_LCG_RESEEDED
                    handback[tied % RESIDENT_ITEMS] = tied_state;
#endif
                }
                barrier(CLK_LOCAL_MEM_FENCE);
#ifdef RNG_LCG_RESEEDED
                if (listed) *state = handback[lid];
#endif
                list ^= 1;
            }
    if (slot != 0xFFFFFFFFu) resident_measure(lattice, sums, members);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (slot != 0xFFFFFFFFu)
        for (uint i = lid; i < members * groups; i += RESIDENT_ITEMS) {
            uint member = i / groups, g = i % groups;
            __global int *out = partials + 2 * (((size_t)slot * configs + first_config + member) * groups + g);
            out[0] = g == 0 ? sums[2 * member] : 0;
            out[1] = g == 0 ? sums[2 * member + 1] : 0;
        }
    for (uint i = lid; i < members * MEMBER_WORDS; i += RESIDENT_ITEMS) group_planes[i] = lattice[i];
}
#endif
