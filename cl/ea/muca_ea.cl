/* Multicanonical and Wang-Landau walkers of the Edwards-Anderson spin glass
 * (src/ensembles/density_walkers.c): the model's part of
 * ensembles/muca_walkers.h, which holds the kernels.  The walkers of one
 * launch all simulate disorder realization `unit` (the kernels' last
 * argument), whose integer couplings J (+-1, char) are model_data [unit]
 * [site][d], the bond between `site` and its +d neighbour, exactly the
 * naive layout's buffer of cl/ea/ea_ising.cl.  Energies H = -sum over bonds
 * of J s_i s_j, binned as (E - E_MIN) / E_STEP; a proposal flips the spin
 * (dE = 2 s_i h_i, h_i = sum_j J_ij s_j).  The start draws one word per site
 * (hit = site / 4) from Philox unit unit N_WALKERS + w. */
#include "common/lattice.h"
#include "common/philox.h"
#include "ensembles/muca_sites.h"

#define N_SITES SITES
#define WORDS_PER_SITE 1

/* The couplings of the launch's realization (model_data and unit: the kernels' arguments). */
#define EA_COUPLINGS (model_data + (size_t)unit * (SITES * DIM))

inline int ea_spin(global const char *spins, uint site, uint w)
{
    return spins[(size_t)site * N_WALKERS + w];
}

/* h_i = sum over the 2 DIM neighbours j of J_ij s_j. */
inline int ea_field(global const char *spins, global const char *couplings, uint site, uint w)
{
    int h = 0;
    for (uint d = 0; d < DIM; d++) {
        uint down = lattice_down(site, d);
        h += couplings[site * DIM + d] * ea_spin(spins, lattice_up(site, d), w) +
             couplings[down * DIM + d] * ea_spin(spins, down, w);
    }
    return h;
}

inline void ea_walker_start(global char *spins, uint w, clmc_philox_key key, uint unit)
{
    for (uint i = 0; i < N_SITES; i += 4) {
        clmc_philox_ctr r =
            clmc_random4(key, unit * N_WALKERS + w, 0, i / 4, CLMC_STREAM(CLMC_PURPOSE_MULTICANONICAL, 1));
        for (uint q = 0; q < 4 && i + q < N_SITES; q++)
            spins[(size_t)(i + q) * N_WALKERS + w] = (r.v[q] >> 31) ? 1 : -1;
    }
}

/* Each bond once: the DIM forward ones of every site. */
inline int ea_walker_energy(global const char *spins, global const char *couplings, uint w)
{
    int e = 0;
    for (uint i = 0; i < N_SITES; i++)
        for (uint d = 0; d < DIM; d++)
            e -= couplings[i * DIM + d] * ea_spin(spins, i, w) * ea_spin(spins, lattice_up(i, d), w);
    return e;
}

inline int ea_walker_propose(global const char *spins, global const char *couplings, uint site, uint w,
                             int *new_value)
{
    int s = ea_spin(spins, site, w);
    *new_value = -s;
    return 2 * s * ea_field(spins, couplings, site, w);
}

#define walker_start(spins, w, key) ea_walker_start(spins, w, key, unit)
#define walker_energy(spins, w) ea_walker_energy(spins, EA_COUPLINGS, w)
#define walker_propose(c, site, choice, new_value) ea_walker_propose((c)->spins, EA_COUPLINGS, site, (c)->w, new_value)

#include "ensembles/muca_walkers.h"
