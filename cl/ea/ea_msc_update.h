/* The msc update of one site (both replicas of a stack pair), shared by
 * ea_msc_update in ea_ising.cl and its energy-pass forms in ea_energy_pass.cl
 * (ENERGY_PASS = 1, which defines add_site_count first; with MEMBER_PASS = 1
 * population annealing's member measurement).  Needs ea_ising.h. */
#ifndef CLMC_EA_MSC_UPDATE_H
#define CLMC_EA_MSC_UPDATE_H

/* RESIDENT (1: population annealing's resident update, ea_energy_pass.cl):
 * the spins that site_words reads are the work-group's copy of one word's
 * two stacks in local memory, and update_site (the ordinary launches) is
 * not built. */
#ifndef RESIDENT
#define RESIDENT 0
#endif
#if RESIDENT
#define SPINS_SPACE __local
/* The couplings as the resident update reads them: population annealing's
 * members share one realization, whose "J = -1" words are all lanes or
 * none, so a site's NEIGHBOURS bonds fit in one byte of local memory (bit 2 d:
 * the bond to its +d neighbour, bit 2 d + 1: to its -d neighbour;
 * bond_masks in ea_energy_pass.cl). */
typedef __local const uchar *bonds_ref;
#if !SHARED_DISORDER || !LANE_RANDOMS
#error "RESIDENT is population annealing's update: one realization (SHARED_DISORDER), the lanes' own numbers"
#endif
#else
#define SPINS_SPACE __global
typedef __global const word_t *bonds_ref;
typedef __global const uint *thresholds_ref;
#endif

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

/* Full adder of three lane words: their per-lane sum's two bits. */
inline void add_three(word_t a, word_t b, word_t c, word_t *sum, word_t *carry)
{
    *sum = a ^ b ^ c;
    *carry = (a & b) | (c & (a ^ b));
}

/* Each lane's number of satisfied bonds at a site (0 .. NEIGHBOURS),
 * bit-sliced into c0, c1, c2, by a carry-save tree of full adders.  A bond is
 * satisfied where s_i s_j J_ij = +1, i.e. where the bits of s_i, s_j and
 * "J = -1" have even parity. */
inline void count_satisfied(word_t spin, const word_t *neighbour, const word_t *negative, word_t *c0, word_t *c1,
                            word_t *c2)
{
    word_t x[NEIGHBOURS];
    for (uint k = 0; k < NEIGHBOURS; k++) x[k] = ~(spin ^ neighbour[k] ^ negative[k]);
    word_t sum, carry, low_carry;
    add_three(x[0], x[1], x[2], &sum, &carry);
#if DIM == 3
    word_t sum_b, carry_b;
    add_three(x[3], x[4], x[5], &sum_b, &carry_b);
    *c0 = sum ^ sum_b;
    low_carry = sum & sum_b;
    add_three(carry, carry_b, low_carry, c1, c2);
#else
    *c0 = sum ^ x[3];
    low_carry = sum & x[3];
    *c1 = carry ^ low_carry;
    *c2 = carry & low_carry;
#endif
}

/* Lanes of one stack that flip at a site, given the spin word, its
 * neighbours' words and the "J = -1" words of the bonds to them. */
inline word_t flipping_lanes(word_t spin, const word_t *neighbour, const word_t *negative, uint r,
                             __global const uint *thresholds, __global const word_t *below)
{
    word_t c0, c1, c2;
    count_satisfied(spin, neighbour, negative, &c0, &c1, &c2);
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

#if LANE_RANDOMS
/* Population annealing: the lanes are members, each drawing its own 32-bit
 * number r per site and sweep, compared with its class's threshold
 * floor(exp(-4 k beta) 2^32) bit by bit from the most significant, and
 * drawing stops as soon as no uphill lane is still tied with its threshold,
 * so every decision equals the exact comparison r < t.  Bit plane b holds
 * bit 31 - b of every lane's number.  The first FIRST_PLANES planes are
 * drawn whether or not a lane is still tied (a warp runs them in step; they
 * decide all but a few words), the rest only while one is:
 *   Philox (the default): draw g (counter site, sweep, hit g, `stream`)
 *     gives planes P g .. P g + P - 1 (P = LANE_PLANES = 128 / WORD_BITS: a
 *     plane is one 32-bit value, or two for 64 lanes, v[2q] the low lanes);
 *     the first PHILOX_FIRST_GROUPS draws make the first planes.  Which
 *     draws are made does not change any decision.
 *   RNG_LCG_RESEEDED (algorithm.rng "lcg64_reseeded", the resident update
 *     only): each plane is the next step of the LCG64 *lcg that draws for the
 *     site (lcg_plane), LCG_FIRST_PLANES of them first (compare_first), the
 *     rest later (compare_rest); ea_msc_resident_update orders the steps. */
#define LANE_PLANES (128 / WORD_BITS)
/* 8 planes: with 64 lanes 4 draws ran faster than 3 or 5 (population
 * annealing, 3D L = 8, R = 102400, theta 10, one H200;
 * benchmarks/results/2026-11-28-nvidia-h200-session20.txt, calls 2-3). */
#define PHILOX_FIRST_GROUPS (8 / LANE_PLANES)
#ifdef RNG_LCG_RESEEDED
#include "common/rng_lcg.h"
/* The Philox draw that seeds a generator at a launch's start: hit 32, past
 * the Philox path's draws 0 .. 31. */
#define LCG_SEED_HIT 32u
/* Part of the generator's order of draws (the run's results): 10 ran
 * faster than 6, 8 or 12 at R = 102400 and 262144 (3D L = 8, theta 10, one
 * H200; the same record, calls 5-6). */
#define LCG_FIRST_PLANES 10
#define FIRST_PLANES LCG_FIRST_PLANES

/* The next bit plane: the high word of one LCG64 step, or of two for 64
 * lanes (the low lanes first). */
inline word_t lcg_plane(ulong *lcg)
{
    *lcg = clmc_lcg64_step(*lcg);
#if WORD_BITS == 64
    ulong low = clmc_lcg64_word(*lcg);
    *lcg = clmc_lcg64_step(*lcg);
    return low | (ulong)clmc_lcg64_word(*lcg) << 32;
#else
    return clmc_lcg64_word(*lcg);
#endif
}
#else
#define FIRST_PLANES (PHILOX_FIRST_GROUPS * LANE_PLANES)
#endif

/* Where mask has a 1, when_set, else when_clear. */
inline word_t lane_select(word_t mask, word_t when_set, word_t when_clear)
{
    return when_clear ^ (mask & (when_clear ^ when_set));
}

/* All lanes if bit 31 - b of t is set, else none. */
inline word_t threshold_plane_lanes(uint t, uint b)
{
    return (word_t)0 - (word_t)((t << b) >> 31);
}

/* The comparison of one stack's word at a site: the lanes' counts of
 * satisfied bonds (c0 c1 c2), `less` the uphill lanes already below their
 * threshold, `tied` those still equal to it. */
typedef struct {
    word_t c0, c1, c2, less, tied;
} lane_comparison;

/* Every uphill lane tied: in 3D 4 .. 6 of 6 bonds satisfied, in 2D 3 or 4 of 4. */
inline lane_comparison lane_comparison_start(word_t spin, const word_t *neighbour, const word_t *negative)
{
    lane_comparison c;
    count_satisfied(spin, neighbour, negative, &c.c0, &c.c1, &c.c2);
#if DIM == 3
    c.tied = c.c2;
#else
    c.tied = c.c2 | (c.c1 & c.c0);
#endif
    c.less = 0;
    return c;
}

/* Plane b of the uphill lanes, each against bit 31 - b of its own class's
 * threshold t[k - 1].  The class follows from the count: in 3D, uphill
 * counts are 4 (class 1), 5 (class 2) and 6 (class 3), so c1 marks class 3
 * and c0 class 2; in 2D, 3 (class 1) and 4 (class 2), so c2 marks class 2.
 * What it gives for other lanes does not matter (they are not tied). */
inline void compare_plane(lane_comparison *c, word_t plane, uint b, const uint *t)
{
#if DIM == 3
    word_t t_plane = lane_select(c->c1, threshold_plane_lanes(t[2], b),
                                 lane_select(c->c0, threshold_plane_lanes(t[1], b), threshold_plane_lanes(t[0], b)));
#else
    word_t t_plane = lane_select(c->c2, threshold_plane_lanes(t[1], b), threshold_plane_lanes(t[0], b));
#endif
    c->less |= c->tied & ~plane & t_plane;
    c->tied &= ~(plane ^ t_plane);
}

/* The lanes' Metropolis stream of stack `stack` (T = 1: stack 2 word +
 * replica), run-wide from the word of realization first_system. */
inline uint lane_stream(uint first_system, uint stack)
{
    return CLMC_STREAM(CLMC_PURPOSE_METROPOLIS, INDEPENDENT | (2 * FIRST_WORD(first_system) + stack));
}

/* Philox draw (site, sweep, hit, stream), plane q of its LANE_PLANES. */
inline word_t philox_plane(clmc_philox_ctr r, uint q)
{
#if WORD_BITS == 64
    return (ulong)r.v[2 * q] | (ulong)r.v[2 * q + 1] << 32;
#else
    return r.v[q];
#endif
}

/* The first FIRST_PLANES planes, drawn for the word whether or not a lane is
 * still tied (a plane compares nothing once none is). */
inline void compare_first(lane_comparison *c, const uint *t, clmc_philox_key key, uint site, uint sweep, uint stream,
                          ulong *lcg)
{
#ifdef RNG_LCG_RESEEDED
    (void)key, (void)site, (void)sweep, (void)stream;
#pragma unroll
    for (uint b = 0; b < FIRST_PLANES; b++) compare_plane(c, lcg_plane(lcg), b, t);
#else
    (void)lcg;
#pragma unroll
    for (uint g = 0; g < PHILOX_FIRST_GROUPS; g++) {
        clmc_philox_ctr r = clmc_random4(key, site, sweep, g, stream);
        for (uint q = 0; q < LANE_PLANES; q++) compare_plane(c, philox_plane(r, q), g * LANE_PLANES + q, t);
    }
#endif
}

/* The planes past FIRST_PLANES while a lane is tied (Philox: draws
 * PHILOX_FIRST_GROUPS ..).  A lane still tied after plane 31 has r = t
 * exactly, which rejects. */
inline void compare_rest(lane_comparison *c, const uint *t, clmc_philox_key key, uint site, uint sweep, uint stream,
                         ulong *lcg)
{
#ifdef RNG_LCG_RESEEDED
    (void)key, (void)site, (void)sweep, (void)stream;
    for (uint b = FIRST_PLANES; b < 32 && c->tied; b++) compare_plane(c, lcg_plane(lcg), b, t);
#else
    (void)lcg;
    for (uint g = PHILOX_FIRST_GROUPS; g < 32 / LANE_PLANES && c->tied; g++) {
        clmc_philox_ctr r = clmc_random4(key, site, sweep, g, stream);
        for (uint q = 0; q < LANE_PLANES; q++) compare_plane(c, philox_plane(r, q), g * LANE_PLANES + q, t);
    }
#endif
}

/* The lanes that flip once the comparison is decided: the downhill ones and
 * the uphill ones below their threshold. */
inline word_t lanes_flipping(const lane_comparison *c)
{
#if DIM == 3
    word_t uphill = c->c2;
#else
    word_t uphill = c->c2 | (c->c1 & c->c0);
#endif
    return ~uphill | c->less;
}

/* T = 1, the ordinary launches (Philox): t[k - 1]. */
inline word_t flipping_lanes_own(word_t spin, const word_t *neighbour, const word_t *negative, clmc_philox_key key,
                                 uint site, uint sweep, uint stream, const uint *t)
{
    lane_comparison c = lane_comparison_start(spin, neighbour, negative);
    compare_first(&c, t, key, site, sweep, stream, (ulong *)0);
    compare_rest(&c, t, key, site, sweep, stream, (ulong *)0);
    return lanes_flipping(&c);
}
#endif

/* The "J = -1" words of a site's bonds (negative[2 d]: to its +d neighbour,
 * negative[2 d + 1]: to its -d neighbour), those of word `word`. */
inline void site_negative(bonds_ref negative_bonds, uint word, uint site, neighbourhood n, word_t *negative)
{
#if RESIDENT
    (void)word, (void)n;
    uint mask = negative_bonds[site];
    for (uint k = 0; k < NEIGHBOURS; k++) negative[k] = all_lanes_if((mask >> k) & 1u);
#else
    __global const word_t *bonds = negative_bonds + (size_t)BOND_WORD(word) * SITES * DIM;
    for (uint d = 0; d < DIM; d++) {
        negative[2 * d] = bonds[site * DIM + d];
        negative[2 * d + 1] = bonds[n.down[d] * DIM + d];
    }
#endif
}

/* A stack's word at a site, and its neighbours' words in the order of
 * negative. */
inline word_t site_words(SPINS_SPACE const word_t *own, uint site, neighbourhood n, word_t *neighbour)
{
    for (uint d = 0; d < DIM; d++) {
        neighbour[2 * d] = own[n.up[d]];
        neighbour[2 * d + 1] = own[n.down[d]];
    }
    return own[site];
}

#if MEMBER_PASS
/* Adds a replica's satisfied bonds at a site (its new spin word) to the
 * members' counter satisfied[0 ..] (both replicas into one). */
inline void count_replica_bonds(word_t *satisfied, word_t spin, const word_t *neighbour, const word_t *negative)
{
    word_t c0, c1, c2;
    count_satisfied(spin, neighbour, negative, &c0, &c1, &c2);
    add_site_count(satisfied, c0, c1, c2);
}

/* The site of the other colour at the same index: x differs in its lowest
 * bit only (site_of_colour), so it is neighbour +x (even x) or -x (odd x). */
inline word_t other_colour_word(uint site, const word_t *neighbour)
{
    return neighbour[site & 1u];
}

/* Adds the number of sites where the replicas agree, among a site (words
 * new_spin) and its other-colour partner (other_colour), to the counter
 * satisfied[ENERGY_LEVELS ..]. */
inline void count_agreement(word_t *satisfied, const word_t *new_spin, const word_t *other_colour)
{
    word_t here = ~(new_spin[0] ^ new_spin[1]), there = ~(other_colour[0] ^ other_colour[1]);
    add_site_count(satisfied + ENERGY_LEVELS, here ^ there, here & there, 0);
}
#endif

#if !RESIDENT
/* Updates the words of both replicas' stacks of (word, place) at site number
 * `index` of colour `colour`: they share the couplings and one Philox draw
 * (LANE_RANDOMS: each lane its own numbers, flipping_lanes_own).
 * ENERGY_PASS with `counting`: adds each replica's satisfied bonds at the
 * site, counted with the new spins, to its counter in `satisfied`
 * ([replica][level]); MEMBER_PASS (population annealing's members, colour 1,
 * T = 1): both replicas' satisfied bonds into satisfied[0 ..], and the number
 * of sites among this one and its other-colour partner where the replicas
 * agree into satisfied[ENERGY_LEVELS ..]. */
inline void update_site(__global word_t *spins, bonds_ref negative_bonds, thresholds_ref thresholds,
                        __global const word_t *lanes_below, clmc_philox_key key, uint sweep, uint colour, uint word,
                        uint place, uint index, word_t *satisfied, bool counting, uint first_system)
{
    uint site = site_of_colour(index, colour);
    neighbourhood n = neighbours_of(site);
    word_t negative[NEIGHBOURS];
#if MEMBER_PASS
    word_t new_spin[2], other_colour[2];
#endif
    site_negative(negative_bonds, word, site, n, negative);
#if LANE_RANDOMS
    uint t[3] = {thresholds[0], thresholds[1], DIM == 3 ? thresholds[2] : 0};
#else
    clmc_philox_ctr r = shared_randoms(key, site, sweep, FIRST_WORD(first_system) + word, place);
#endif
    for (uint replica = 0; replica < 2; replica++) {
        uint stack = (2 * word + replica) * TEMPERATURES + place;
        __global word_t *own = spins + (size_t)stack * SITES;
        word_t neighbour[NEIGHBOURS];
        word_t spin = site_words(own, site, n, neighbour);
#if LANE_RANDOMS
        spin ^= flipping_lanes_own(spin, neighbour, negative, key, site, sweep, lane_stream(first_system, stack), t);
#else
        spin ^= flipping_lanes(spin, neighbour, negative, r.v[replica], thresholds,
                               lanes_below + (size_t)stack * (TEMPERATURES + 1));
#endif
        own[site] = spin;
#if ENERGY_PASS
        if (!counting) continue;
#if MEMBER_PASS
        count_replica_bonds(satisfied, spin, neighbour, negative);
        new_spin[replica] = spin;
        other_colour[replica] = other_colour_word(site, neighbour);
#else
        word_t c0, c1, c2;
        count_satisfied(spin, neighbour, negative, &c0, &c1, &c2);
        add_site_count(satisfied + replica * ENERGY_LEVELS, c0, c1, c2);
#endif
#else
        (void)satisfied, (void)counting;
#endif
    }
#if MEMBER_PASS
    if (counting) count_agreement(satisfied, new_spin, other_colour); /* into the second counter */
#endif
}
#endif

#endif
