/* Multicanonical and Wang-Landau walkers of the q-state Potts model
 * (src/ensembles/density_walkers.c): the model's part of
 * ensembles/muca_walkers.h, which holds the kernels.  A proposal sets the
 * site to one of the Q - 1 other states, drawn uniformly from the word
 * `choice` (multiply-shift of its top 24 bits); energies are E = -(number of
 * satisfied bonds), binned as E - E_MIN.  The start draws one word per site
 * (hit = site / 4). */
#include "common/lattice.h"
#include "common/philox.h"
#include "ensembles/muca_sites.h"

#define N_SITES SITES
#define WORDS_PER_SITE 2

inline int state_at(global const char *spins, uint site, uint w)
{
    return spins[(size_t)site * N_WALKERS + w];
}

/* Forward neighbours of `site` (each bond counted once) in state `value`. */
inline int forward_neighbours_in(global const char *spins, uint site, uint w, int value)
{
    int count = 0;
    for (uint d = 0; d < DIM; d++) count += state_at(spins, lattice_up(site, d), w) == value;
    return count;
}

inline void walker_start(global char *spins, uint w, clmc_philox_key key)
{
    for (uint i = 0; i < N_SITES; i += 4) {
        clmc_philox_ctr r = clmc_random4(key, w, 0, i / 4, CLMC_STREAM(CLMC_PURPOSE_MULTICANONICAL, 1));
        for (uint q = 0; q < 4 && i + q < N_SITES; q++)
            spins[(size_t)(i + q) * N_WALKERS + w] = (char)(((r.v[q] >> 8) * (uint)Q) >> 24);
    }
}

inline int walker_energy(global const char *spins, uint w)
{
    int e = 0;
    for (uint i = 0; i < N_SITES; i++) e -= forward_neighbours_in(spins, i, w, state_at(spins, i, w));
    return e;
}

inline int walker_propose(const walker_t *c, uint site, uint choice, int *new_value)
{
    int s = walker_site(c, site);
    int value = (s + 1 + (int)(((choice >> 8) * (uint)(Q - 1)) >> 24)) % Q, change = 0;
    *new_value = value;
    for (uint d = 0; d < DIM; d++) {
        int up = walker_site(c, lattice_up(site, d)), down = walker_site(c, lattice_down(site, d));
        change += (up == s) + (down == s) - (up == value) - (down == value);
    }
    return change;
}

#include "ensembles/muca_walkers.h"
