/* The msc update of one site (both replicas of a stack pair), shared by
 * ea_msc_update in ea_ising.cl and its energy-pass form in ea_energy_pass.cl
 * (ENERGY_PASS = 1, which defines add_site_count first).  Needs ea_ising.h. */
#ifndef CLMC_EA_MSC_UPDATE_H
#define CLMC_EA_MSC_UPDATE_H

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

/* Updates the words of both replicas' stacks of (word, place) at site number
 * `index` of colour `colour`: they share the couplings and one Philox draw.
 * ENERGY_PASS: adds each replica's satisfied bonds at the site, counted with
 * the new spins, to its counter in `satisfied` ([replica][level]). */
inline void update_site(__global word_t *spins, __global const word_t *negative_bonds,
                        __global const uint *thresholds, __global const word_t *lanes_below, clmc_philox_key key,
                        uint sweep, uint colour, uint word, uint place, uint index, word_t *satisfied,
                        uint first_system)
{
    uint site = site_of_colour(index, colour);
    __global const word_t *bonds = negative_bonds + (size_t)word * SITES * DIM;
    neighbourhood n = neighbours_of(site);
    word_t negative[NEIGHBOURS];
    for (uint d = 0; d < DIM; d++) {
        negative[2 * d] = bonds[site * DIM + d];
        negative[2 * d + 1] = bonds[n.down[d] * DIM + d];
    }
    clmc_philox_ctr r = shared_randoms(key, site, sweep, FIRST_WORD(first_system) + word, place);
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

#endif
