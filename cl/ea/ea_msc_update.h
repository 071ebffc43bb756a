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
#else
#define SPINS_SPACE __global
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

#if LANE_RANDOMS
/* One bit plane of the bit-serial comparison r < t over the lanes, most
 * significant first (as cl/ising/ising_msc.cl): `less` collects the lanes
 * already below t, `equal` those still tied. */
inline void compare_lane_plane(uint threshold, uint bit, word_t random_bits, word_t *less, word_t *equal)
{
    word_t t_mask = all_lanes_if((threshold >> bit) & 1u);
    *less |= *equal & ~random_bits & t_mask;
    *equal &= ~(random_bits ^ t_mask);
}

/* Population annealing: the lanes are members, each drawing its own 32-bit
 * number r per site and sweep, compared with its class's threshold
 * floor(exp(-4 k beta) 2^32) bit by bit from the most significant: draw g
 * (counter site, sweep, hit g, `stream`) gives bit planes 31 - P g ..
 * 31 - P g - P + 1 of every lane (P = 128 / WORD_BITS: a plane is one
 * 32-bit value, or two for 64 lanes, v[2q] the low lanes), and drawing
 * stops as soon as no uphill lane is still tied with its threshold, so every
 * decision equals the exact comparison r < t.  T = 1: thresholds[k - 1]. */
#define LANE_PLANES (128 / WORD_BITS)
inline word_t flipping_lanes_own(word_t spin, const word_t *neighbour, const word_t *negative, clmc_philox_key key,
                                 uint site, uint sweep, uint stream, __global const uint *thresholds)
{
    word_t c0 = 0, c1 = 0, c2 = 0;
    for (uint k = 0; k < NEIGHBOURS; k++) count_word_bit(~(spin ^ neighbour[k] ^ negative[k]), &c0, &c1, &c2);
    word_t class1 = count_word_equals(NEIGHBOURS / 2 + 1, c0, c1, c2);
    word_t class2 = count_word_equals(NEIGHBOURS / 2 + 2, c0, c1, c2);
#if DIM == 3
    word_t class3 = count_word_equals(NEIGHBOURS / 2 + 3, c0, c1, c2);
#else
    word_t class3 = 0;
#endif
    uint t1 = thresholds[0], t2 = thresholds[1], t3 = thresholds[2];
    word_t less1 = 0, less2 = 0, less3 = 0, equal1 = ALL_LANES, equal2 = ALL_LANES, equal3 = ALL_LANES;
    word_t tied = class1 | class2 | class3;
    for (uint g = 0; g < 32 / LANE_PLANES && tied; g++) {
        clmc_philox_ctr r = clmc_random4(key, site, sweep, g, stream);
        for (uint q = 0; q < LANE_PLANES; q++) {
#if WORD_BITS == 64
            word_t plane = (ulong)r.v[2 * q] | (ulong)r.v[2 * q + 1] << 32;
#else
            word_t plane = r.v[q];
#endif
            uint bit = 31 - (LANE_PLANES * g + q);
            compare_lane_plane(t1, bit, plane, &less1, &equal1);
            compare_lane_plane(t2, bit, plane, &less2, &equal2);
#if DIM == 3
            compare_lane_plane(t3, bit, plane, &less3, &equal3);
#endif
        }
        tied = (equal1 & class1) | (equal2 & class2) | (equal3 & class3);
    }
    (void)t3;
    return ~(class1 | class2 | class3) | (less1 & class1) | (less2 & class2) | (less3 & class3);
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
inline void update_site(SPINS_SPACE word_t *spins, __global const word_t *negative_bonds,
                        __global const uint *thresholds, __global const word_t *lanes_below, clmc_philox_key key,
                        uint sweep, uint colour, uint word, uint place, uint index, word_t *satisfied, bool counting,
                        uint first_system)
{
    uint site = site_of_colour(index, colour);
    __global const word_t *bonds = negative_bonds + (size_t)BOND_WORD(word) * SITES * DIM;
    neighbourhood n = neighbours_of(site);
    word_t negative[NEIGHBOURS];
#if MEMBER_PASS
    word_t new_spin[2], other_colour[2];
#endif
    for (uint d = 0; d < DIM; d++) {
        negative[2 * d] = bonds[site * DIM + d];
        negative[2 * d + 1] = bonds[n.down[d] * DIM + d];
    }
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
        spin ^= flipping_lanes_own(spin, neighbour, negative, key, site, sweep, stream, thresholds);
#else
        spin ^= flipping_lanes(spin, neighbour, negative, r.v[replica], thresholds,
                               lanes_below + (size_t)stack * (TEMPERATURES + 1));
#endif
        own[site] = spin;
#if ENERGY_PASS
        if (!counting) continue;
        word_t c0 = 0, c1 = 0, c2 = 0;
        for (uint k = 0; k < NEIGHBOURS; k++) count_word_bit(~(spin ^ neighbour[k] ^ negative[k]), &c0, &c1, &c2);
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
