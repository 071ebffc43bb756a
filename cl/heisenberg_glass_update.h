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
 *   PAIR_LOADS       with SITES_PER_ITEM 2 (not strided, EDGE a multiple
 *                    of 4): the two sites' own spins and couplings and their
 *                    y (z) neighbours are adjacent and 8-byte aligned, read
 *                    as one two-wide load each, stored the same way;
 *   heisenberg_glass_update_or  the same kernel with the move fixed to
 *                    over-relaxation (host part "or": used for the
 *                    over-relaxation sub-sweeps);
 *   J6               the couplings of a site's six bonds stored at the
 *                    site's own packed index (planes j6[(r 2 DIM + k) SITES
 *                    + packed]; k < DIM: the +d bond, k >= DIM: the -d
 *                    bond): six coalesced loads, no neighbour index for J;
 *   REVERSE_ODD      colour-1 launches take their work-groups last to first
 *                    (launch_group in common/lattice.h), starting on the
 *                    sites the colour-0 launch ended with. */
#ifndef REVERSE_ODD
#define REVERSE_ODD 0
#endif
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

#ifdef PAIR_LOADS
#ifdef REAL_DOUBLE
typedef double2 real2;
#else
typedef float2 real2;
#endif

inline real2 load2(__global const real *a, uint p)
{
    return *(__global const real2 *)(a + p);
}

/* The spins at packed indices p and p + 1 (p even). */
inline void load_spin_pair(__global const real *spins, uint p, spin_t out[2])
{
    real2 x = load2(spins, p), y = load2(spins, SITES + p);
#if NCOMP == 2
    out[0] = (spin_t)(x.s0, y.s0);
    out[1] = (spin_t)(x.s1, y.s1);
#else
    real2 z = load2(spins, 2 * SITES + p);
    out[0] = (spin_t)(x.s0, y.s0, z.s0);
    out[1] = (spin_t)(x.s1, y.s1, z.s1);
#endif
}

inline void store_spin_pair(__global real *spins, uint p, spin_t a, spin_t b)
{
    *(__global real2 *)(spins + p) = (real2)(a.x, b.x);
    *(__global real2 *)(spins + SITES + p) = (real2)(a.y, b.y);
#if NCOMP == 3
    *(__global real2 *)(spins + 2 * SITES + p) = (real2)(a.z, b.z);
#endif
}

/* Two consecutive same-colour sites of a row per work-item (items 2 base and
 * 2 base + 1), two-wide loads where the pair's data are adjacent. */
inline void glass_update_body(__global real *restrict spins, uint seed_lo, uint seed_hi, uint sweep, uint colour,
                              uint move, uint hit, __global const real *restrict betas,
                              __global const real *restrict couplings, __global const real *restrict j6)
{
    uint base = launch_item(REVERSE_ODD && colour);
    if (base >= HALF_SITES / 2) return;
    uint sample = (uint)get_global_id(1), first = sample * CONFIGS, other = (colour ^ 1u) * HALF_SITES;
    spins += (size_t)first * NCOMP * SITES;
    uint site[2], own = colour * HALF_SITES + 2 * base;
    uint x_up[2], x_down[2], up[DIM], down[DIM];
    real j_up[2][DIM], j_down[2][DIM];
    for (uint k = 0; k < 2; k++) {
        site[k] = site_of_colour(2 * base + k, colour);
        x_up[k] = other + lattice_up(site[k], 0) / 2;
        x_down[k] = other + lattice_down(site[k], 0) / 2;
    }
    for (uint d = 1; d < DIM; d++) { /* the second site's are the next ones */
        up[d] = other + lattice_up(site[0], d) / 2;
        down[d] = other + lattice_down(site[0], d) / 2;
    }
    for (uint d = 0; d < DIM; d++) {
#ifdef J6
        __global const real *j = j6 + (size_t)sample * 2 * DIM * SITES;
        real2 ju = load2(j, d * SITES + own), jd = load2(j, (DIM + d) * SITES + own);
#else
        __global const real *j = couplings + (size_t)sample * DIM * SITES;
        real2 ju = load2(j, d * SITES + own), jd;
        if (d == 0) jd = (real2)(j[x_down[0]], j[x_down[1]]);
        else jd = load2(j, d * SITES + down[d]);
#endif
        j_up[0][d] = ju.s0;
        j_up[1][d] = ju.s1;
        j_down[0][d] = jd.s0;
        j_down[1][d] = jd.s1;
    }
    (void)couplings;
    (void)j6;
    spin_t s[2][CONFIGS], h[2][CONFIGS];
    for (uint c = 0; c < CONFIGS; c++) {
        __global const real *config_spins = spins + (size_t)c * NCOMP * SITES;
        spin_t n_up[2][DIM], n_down[2][DIM], pair[2];
        for (uint k = 0; k < 2; k++) {
            n_up[k][0] = load_packed(config_spins, x_up[k]);
            n_down[k][0] = load_packed(config_spins, x_down[k]);
        }
        for (uint d = 1; d < DIM; d++) {
            load_spin_pair(config_spins, up[d], pair);
            n_up[0][d] = pair[0];
            n_up[1][d] = pair[1];
            load_spin_pair(config_spins, down[d], pair);
            n_down[0][d] = pair[0];
            n_down[1][d] = pair[1];
        }
        load_spin_pair(config_spins, own, pair);
        for (uint k = 0; k < 2; k++) {
            spin_t field = 0;
            for (uint d = 0; d < DIM; d++) field += j_up[k][d] * n_up[k][d] + j_down[k][d] * n_down[k][d];
            h[k][c] = field;
            s[k][c] = pair[k];
        }
    }
    clmc_philox_key key = {{seed_lo, seed_hi}};
    for (uint c = 0; c < CONFIGS; c++) {
        spin_t t[2];
        for (uint k = 0; k < 2; k++)
            t[k] = update_spin(s[k][c], h[k][c], move, betas[first + c], key, site[k], sweep, hit, first + c);
        store_spin_pair(spins + (size_t)c * NCOMP * SITES, own, t[0], t[1]);
    }
}
#else
inline void glass_update_body(__global real *restrict spins, uint seed_lo, uint seed_hi, uint sweep, uint colour,
                              uint move, uint hit, __global const real *restrict betas,
                              __global const real *restrict couplings, __global const real *restrict j6)
{
    uint base = launch_item(REVERSE_ODD && colour);
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
#endif

__kernel void heisenberg_glass_update(__global real *restrict spins, uint seed_lo, uint seed_hi, uint sweep,
                                      uint colour, uint move, uint hit, __global const real *restrict betas,
                                      __global const real *restrict couplings, __global const real *restrict j6)
{
    glass_update_body(spins, seed_lo, seed_hi, sweep, colour, move, hit, betas, couplings, j6);
}

/* The same with the move fixed to over-relaxation at compile time (no
 * random-number or heat-bath code, fewer registers); `move` is not read. */
__kernel void heisenberg_glass_update_or(__global real *restrict spins, uint seed_lo, uint seed_hi, uint sweep,
                                         uint colour, uint move, uint hit, __global const real *restrict betas,
                                         __global const real *restrict couplings, __global const real *restrict j6)
{
    (void)move;
    glass_update_body(spins, seed_lo, seed_hi, sweep, colour, MOVE_OVERRELAXATION, hit, betas, couplings, j6);
}
