/* The msc update of one site (both replicas of a stack pair), shared by
 * ea_msc_update in ea_ising.cl and its energy-pass forms in ea_energy_pass.cl
 * (ENERGY_PASS = 1, which defines add_site_count first; with MEMBER_PASS = 1
 * population annealing's member measurement).  Needs ea_ising.h. */
#ifndef CLMC_EA_MSC_UPDATE_H
#define CLMC_EA_MSC_UPDATE_H

/* RESIDENT (1: population annealing's resident update, ea_energy_pass.cl):
 * the spins update_site reads and writes are the work-group's copy of one
 * word's two stacks in local memory. */
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
/* ... and the three thresholds of the launch's temperature, read once. */
typedef const uint *thresholds_ref;
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
 * so every decision equals the exact comparison r < t.  The planes come from
 * Philox: draw g (counter site, sweep, hit g, `stream`) gives bit planes
 * 31 - P g .. 31 - P g - P + 1 of every lane (P = 128 / WORD_BITS: a plane
 * is one 32-bit value, or two for 64 lanes, v[2q] the low lanes); or, under
 * RNG_LCG_RESEEDED (algorithm.rng "lcg64_reseeded", the resident update
 * only), one plane per step of the LCG64 *lcg that draws for the site (lcg_plane). */
#define LANE_PLANES (128 / WORD_BITS)
#ifdef RNG_LCG_RESEEDED
#include "common/rng_lcg.h"
/* The Philox draw that seeds a work-item's LCG64 at a launch's start: hit
 * 32, past the Philox path's draws 0 .. 31. */
#define LCG_SEED_HIT 32u

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
#endif

/* Where mask has a 1, when_set, else when_clear. */
inline word_t lane_select(word_t mask, word_t when_set, word_t when_clear)
{
    return when_clear ^ (mask & (when_clear ^ when_set));
}

/* All lanes if the top bit of `shifted` is set, else none. */
inline word_t top_bit_lanes(uint shifted)
{
    return (word_t)0 - (word_t)(shifted >> 31);
}

/* The uphill lanes are compared in one pass, each plane against the bit of
 * its own lane's threshold: shifted[k - 1] is the threshold of class k
 * shifted left by the planes compared so far, so its top bit is the
 * current plane's.  The class follows from the satisfied bonds c (the
 * count's bits c0 c1 c2): in 3D, uphill counts are 4 (class 1), 5 (class 2)
 * and 6 (class 3), so c1 marks class 3 and c0 class 2; in 2D, 3 (class 1)
 * and 4 (class 2), so c2 marks class 2.  What it gives for other lanes does
 * not matter (they are not tied).  Then `less` collects the lanes below
 * their threshold, `tied` those still equal to it. */
inline void compare_plane(word_t plane, word_t c0, word_t c1, word_t c2, uint *shifted, word_t *less, word_t *tied)
{
#if DIM == 3
    (void)c2;
    word_t t_plane = lane_select(c1, top_bit_lanes(shifted[2]),
                                 lane_select(c0, top_bit_lanes(shifted[1]), top_bit_lanes(shifted[0])));
#else
    (void)c0, (void)c1;
    word_t t_plane = lane_select(c2, top_bit_lanes(shifted[1]), top_bit_lanes(shifted[0]));
#endif
    for (uint k = 0; k < 3; k++) shifted[k] <<= 1;
    *less |= *tied & ~plane & t_plane;
    *tied &= ~(plane ^ t_plane);
}

/* T = 1: thresholds[k - 1]. */
inline word_t flipping_lanes_own(word_t spin, const word_t *neighbour, const word_t *negative, clmc_philox_key key,
                                 uint site, uint sweep, uint stream, thresholds_ref thresholds, ulong *lcg)
{
    word_t c0, c1, c2;
    count_satisfied(spin, neighbour, negative, &c0, &c1, &c2);
#if DIM == 3
    word_t uphill = c2; /* 4 .. 6 of 6 bonds satisfied */
#else
    word_t uphill = c2 | (c1 & c0); /* 3 or 4 of 4 */
#endif
    uint shifted[3] = {thresholds[0], thresholds[1], DIM == 3 ? thresholds[2] : 0};
    word_t less = 0, tied = uphill;
#ifdef RNG_LCG_RESEEDED
    (void)key, (void)site, (void)sweep, (void)stream;
    for (uint b = 0; b < 32 && tied; b++) compare_plane(lcg_plane(lcg), c0, c1, c2, shifted, &less, &tied);
#else
    (void)lcg;
    for (uint g = 0; g < 32 / LANE_PLANES && tied; g++) {
        clmc_philox_ctr r = clmc_random4(key, site, sweep, g, stream);
        for (uint q = 0; q < LANE_PLANES; q++) {
#if WORD_BITS == 64
            word_t plane = (ulong)r.v[2 * q] | (ulong)r.v[2 * q + 1] << 32;
#else
            word_t plane = r.v[q];
#endif
            compare_plane(plane, c0, c1, c2, shifted, &less, &tied);
        }
    }
#endif
    return ~uphill | less;
}
#endif

/* Updates the words of both replicas' stacks of (word, place) at site number
 * `index` of colour `colour`: they share the couplings and one Philox draw
 * (LANE_RANDOMS: each lane its own numbers, flipping_lanes_own).
 * ENERGY_PASS with `counting`: adds each replica's satisfied bonds at the
 * site, counted with the new spins, to its counter in `satisfied`
 * ([replica][level]); MEMBER_PASS (population annealing's members, colour 1,
 * T = 1): both replicas' satisfied bonds into satisfied[0 ..], and the number
 * of sites among this one and its other-colour partner where the replicas
 * agree into satisfied[ENERGY_LEVELS ..].  RESIDENT: `spins` holds the two
 * stacks of `word` alone. */
inline void update_site(SPINS_SPACE word_t *spins, bonds_ref negative_bonds, thresholds_ref thresholds,
                        __global const word_t *lanes_below, clmc_philox_key key, uint sweep, uint colour, uint word,
                        uint place, uint index, word_t *satisfied, bool counting, uint first_system, ulong *lcg)
{
    uint site = site_of_colour(index, colour);
    neighbourhood n = neighbours_of(site);
    word_t negative[NEIGHBOURS];
#if MEMBER_PASS
    word_t new_spin[2], other_colour[2];
#endif
#if RESIDENT
    uint mask = negative_bonds[site];
    for (uint k = 0; k < NEIGHBOURS; k++) negative[k] = all_lanes_if((mask >> k) & 1u);
#else
    __global const word_t *bonds = negative_bonds + (size_t)BOND_WORD(word) * SITES * DIM;
    for (uint d = 0; d < DIM; d++) {
        negative[2 * d] = bonds[site * DIM + d];
        negative[2 * d + 1] = bonds[n.down[d] * DIM + d];
    }
#endif
#if !LANE_RANDOMS
    clmc_philox_ctr r = shared_randoms(key, site, sweep, FIRST_WORD(first_system) + word, place);
#endif
    for (uint replica = 0; replica < 2; replica++) {
        uint stack = (2 * word + replica) * TEMPERATURES + place;
        SPINS_SPACE word_t *own = spins + (size_t)(RESIDENT ? replica : stack) * SITES;
        word_t neighbour[NEIGHBOURS];
        for (uint d = 0; d < DIM; d++) {
            neighbour[2 * d] = own[n.up[d]];
            neighbour[2 * d + 1] = own[n.down[d]];
        }
        word_t spin = own[site];
#if LANE_RANDOMS
        uint stream = CLMC_STREAM(CLMC_PURPOSE_METROPOLIS, INDEPENDENT | (2 * FIRST_WORD(first_system) + stack));
        spin ^= flipping_lanes_own(spin, neighbour, negative, key, site, sweep, stream, thresholds, lcg);
#else
        spin ^= flipping_lanes(spin, neighbour, negative, r.v[replica], thresholds,
                               lanes_below + (size_t)stack * (TEMPERATURES + 1));
#endif
        own[site] = spin;
#if ENERGY_PASS
        if (!counting) continue;
        word_t c0, c1, c2;
        count_satisfied(spin, neighbour, negative, &c0, &c1, &c2);
#if MEMBER_PASS
        add_site_count(satisfied, c0, c1, c2); /* both replicas into one counter */
        /* The site of the other colour at the same index: x differs in its
         * lowest bit only (site_of_colour), so it is neighbour +x (even x)
         * or -x (odd x), whose word was just loaded. */
        new_spin[replica] = spin;
        other_colour[replica] = neighbour[site & 1u];
#else
        add_site_count(satisfied + replica * ENERGY_LEVELS, c0, c1, c2);
#endif
#else
        (void)satisfied, (void)counting;
#endif
    }
#if MEMBER_PASS
    /* The replicas' agreeing spins at both sites, into the second counter. */
    if (!counting) return;
    word_t here = ~(new_spin[0] ^ new_spin[1]), there = ~(other_colour[0] ^ other_colour[1]);
    add_site_count(satisfied + ENERGY_LEVELS, here ^ there, here & there, 0);
#endif
}

#endif
