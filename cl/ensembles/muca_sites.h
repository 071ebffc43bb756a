/* The walkers of ensembles/muca_walkers.h kept as one char per site in the
 * walkers' buffer, interleaved across walkers (site i of walker w at
 * i * N_WALKERS + w), read and written there at every update: the walker_t
 * of models without a layout of their own (Potts, EA, 3D Ising, 2D Ising past
 * the bit rows of cl/ising/muca_ising.cl).  The model defines
 * walker_propose on it with walker_site. */
#ifndef CLMC_MUCA_SITES_H
#define CLMC_MUCA_SITES_H

typedef char walker_word;

typedef struct {
    global char *spins;
    uint w;
} walker_t;

inline int walker_site(const walker_t *c, uint site)
{
    return c->spins[(size_t)site * N_WALKERS + c->w];
}

inline void walker_open(walker_t *c, global char *spins, uint w)
{
    c->spins = spins;
    c->w = w;
}

inline void walker_visit(walker_t *c, uint site) {}

inline void walker_set(walker_t *c, uint site, int new_value)
{
    c->spins[(size_t)site * N_WALKERS + c->w] = (char)new_value;
}

inline void walker_close(walker_t *c) {}

#endif
