/* Benchmarking variants of the spin glass's global-memory (naive) update,
 * included by heisenberg.cl when GLASS_VARIANT is defined (the host sets it
 * from the hidden CLMC_GLASS_VARIANT, src/models/heisenberg.c).  Same moves,
 * same random numbers and the same arithmetic in the same order as
 * heisenberg_naive_update, so the results are those of the default kernel;
 * what differs is how the work is spread and the memory is read:
 *   every variant    all loads of a site (both replicas) are issued before
 *                    any store, restrict pointers, 32-bit index math;
 *   SITES_PER_ITEM   K sites of the colour per work-item (1, 2, 4), K
 *                    consecutive same-colour sites along x (SITES_STRIDED:
 *                    item, item + HALF_SITES / K, ... instead);
 *   J6               the couplings of a site's six bonds stored at the
 *                    site's own packed index (planes j6[(r 2 DIM + k) SITES
 *                    + packed]; k < DIM: the +d bond, k >= DIM: the -d
 *                    bond): six coalesced loads, no neighbour index for J. */
#ifndef SITES_PER_ITEM
#define SITES_PER_ITEM 1
#endif
#define ITEMS_PER_COLOUR (HALF_SITES / SITES_PER_ITEM)

inline uint variant_item(uint base, uint k)
{
#ifdef SITES_STRIDED
    return base + k * ITEMS_PER_COLOUR;
#else
    return base * SITES_PER_ITEM + k;
#endif
}

__kernel void heisenberg_glass_update(__global real *restrict spins, uint seed_lo, uint seed_hi, uint sweep,
                                      uint colour, uint move, uint hit, __global const real *restrict betas,
                                      __global const real *restrict couplings, __global const real *restrict j6)
{
    uint base = get_global_id(0);
    if (base >= ITEMS_PER_COLOUR) return;
    uint sample = (uint)get_global_id(1), first = sample * CONFIGS, other = (colour ^ 1u) * HALF_SITES;
    spins += (size_t)first * NCOMP * SITES;
    uint site[SITES_PER_ITEM], own[SITES_PER_ITEM];
    spin_t s[SITES_PER_ITEM][CONFIGS], h[SITES_PER_ITEM][CONFIGS];
    for (uint k = 0; k < SITES_PER_ITEM; k++) {
        uint item = variant_item(base, k);
        site[k] = site_of_colour(item, colour);
        own[k] = colour * HALF_SITES + item;
        uint up[DIM], down[DIM];
        real j_up[DIM], j_down[DIM];
        for (uint d = 0; d < DIM; d++) {
            up[d] = other + lattice_up(site[k], d) / 2;
            down[d] = other + lattice_down(site[k], d) / 2;
#ifdef J6
            __global const real *j = j6 + (size_t)sample * 2 * DIM * SITES;
            j_up[d] = j[d * SITES + own[k]];
            j_down[d] = j[(DIM + d) * SITES + own[k]];
#else
            __global const real *j = couplings + (size_t)sample * DIM * SITES;
            j_up[d] = j[d * SITES + own[k]];
            j_down[d] = j[d * SITES + down[d]];
#endif
        }
        for (uint c = 0; c < CONFIGS; c++) {
            __global const real *config_spins = spins + (size_t)c * NCOMP * SITES;
            spin_t field = 0;
            for (uint d = 0; d < DIM; d++)
                field += j_up[d] * load_packed(config_spins, up[d]) + j_down[d] * load_packed(config_spins, down[d]);
            h[k][c] = field;
            s[k][c] = load_packed(config_spins, own[k]);
        }
    }
    (void)couplings;
    (void)j6;
    clmc_philox_key key = {{seed_lo, seed_hi}};
    for (uint k = 0; k < SITES_PER_ITEM; k++)
        for (uint c = 0; c < CONFIGS; c++) {
            spin_t t = update_spin(s[k][c], h[k][c], move, betas[first + c], key, site[k], sweep, hit, first + c);
            store_packed(spins + (size_t)c * NCOMP * SITES, own[k], t);
        }
}
