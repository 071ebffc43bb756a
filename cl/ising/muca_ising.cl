/* Multicanonical and Wang-Landau walkers of the Ising model
 * (src/ensembles/density_walkers.c): the model's part of
 * ensembles/muca_walkers.h, which holds the kernels.  A proposal flips the
 * spin; energies are H = -sum over bonds of s_i s_j, binned as (E - E_MIN) /
 * E_STEP.  The start draws one word per site (hit = site / 4). */
#include "common/philox.h"

#if DIM == 2
#define N_SITES (EDGE * EDGE)
#else
#define N_SITES (EDGE * EDGE * EDGE)
#endif
#define WORDS_PER_SITE 1

inline int spin_at(global const char *spins, uint site, uint w)
{
    return spins[(size_t)site * N_WALKERS + w];
}

/* Sum of the 2 DIM neighbours of `site`; with forward_only, of the DIM
 * forward ones (each bond counted once for the energy). */
inline int neighbour_sum(global const char *spins, uint site, uint w, int forward_only)
{
    uint x = site % EDGE, y = (site / EDGE) % EDGE, row = site - x, plane = site - x - y * EDGE;
    int sum = spin_at(spins, row + (x + 1) % EDGE, w) + spin_at(spins, plane + ((y + 1) % EDGE) * EDGE + x, w);
    if (!forward_only)
        sum += spin_at(spins, row + (x + EDGE - 1) % EDGE, w) +
               spin_at(spins, plane + ((y + EDGE - 1) % EDGE) * EDGE + x, w);
#if DIM == 3
    uint z = site / (EDGE * EDGE), in_plane = site - z * EDGE * EDGE;
    sum += spin_at(spins, ((z + 1) % EDGE) * EDGE * EDGE + in_plane, w);
    if (!forward_only) sum += spin_at(spins, ((z + EDGE - 1) % EDGE) * EDGE * EDGE + in_plane, w);
#endif
    return sum;
}

inline void walker_start(global char *spins, uint w, clmc_philox_key key)
{
    for (uint i = 0; i < N_SITES; i += 4) {
        clmc_philox_ctr r = clmc_random4(key, w, 0, i / 4, CLMC_STREAM(CLMC_PURPOSE_MULTICANONICAL, 1));
        for (uint q = 0; q < 4 && i + q < N_SITES; q++)
            spins[(size_t)(i + q) * N_WALKERS + w] = (r.v[q] >> 31) ? 1 : -1;
    }
}

inline int walker_energy(global const char *spins, uint w)
{
    int e = 0;
    for (uint i = 0; i < N_SITES; i++) e -= spin_at(spins, i, w) * neighbour_sum(spins, i, w, 1);
    return e;
}

inline int walker_propose(global const char *spins, uint site, uint w, uint choice, int *new_value)
{
    int s = spin_at(spins, site, w);
    *new_value = -s;
    return 2 * s * neighbour_sum(spins, site, w, 0);
}

inline void walker_set(global char *spins, uint site, uint w, int new_value)
{
    spins[(size_t)site * N_WALKERS + w] = (char)new_value;
}

#include "ensembles/muca_walkers.h"
