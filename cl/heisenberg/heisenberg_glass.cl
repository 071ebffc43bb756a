/* The O(n) spin glass: heisenberg.cl built with GLASS (couplings, tiled
 * kernels, measurements) plus the global-memory (naive layout) update and the
 * replica overlaps.
 *
 * Update defines (the host's choice, src/models/heisenberg/heisenberg_glass.c; every
 * choice gives the same moves, random numbers and arithmetic, so the same
 * results bit for bit; what differs is how the work is spread and read):
 *   SITES_PER_ITEM  1 or 2: two consecutive same-colour sites of a row per
 *                   work-item (EDGE a multiple of 4), whose own spins and
 *                   couplings and y (z) neighbours are adjacent and 8-byte
 *                   aligned, read and written as one two-wide access each;
 * Colour-1 launches take their work-groups last to first (launch_group in
 * common/lattice.h), starting on the sites the colour-0 launch ended with.
 * All loads of a site (every configuration of its sample) are issued before
 * any store.  heisenberg_glass_update_or is the same update with the move
 * fixed to over-relaxation, for the over-relaxation sub-sweeps.  The losing
 * variants measured against these (six couplings per site, strided sites, four
 * sites per item) are in benchmarks/results. */
#ifndef GLASS
#define GLASS
#endif
#include "heisenberg/heisenberg.cl"

#ifndef SITES_PER_ITEM
#define SITES_PER_ITEM 1
#endif

#if SITES_PER_ITEM == 2
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
                              __global const real *restrict couplings, uint first_system)
{
    uint base = launch_item(colour != 0);
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
        __global const real *j = couplings + (size_t)sample * DIM * SITES;
        real2 ju = load2(j, d * SITES + own), jd;
        if (d == 0) jd = (real2)(j[x_down[0]], j[x_down[1]]);
        else jd = load2(j, d * SITES + down[d]);
        j_up[0][d] = ju.s0;
        j_up[1][d] = ju.s1;
        j_down[0][d] = jd.s0;
        j_down[1][d] = jd.s1;
    }
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
            t[k] = update_spin(s[k][c], h[k][c], move, betas[first + c], key, site[k], sweep, hit,
                               RUN_CONFIG(first_system, first + c));
        store_spin_pair(spins + (size_t)c * NCOMP * SITES, own, t[0], t[1]);
    }
}
#else
/* One site of the colour per work-item. */
inline void glass_update_body(__global real *restrict spins, uint seed_lo, uint seed_hi, uint sweep, uint colour,
                              uint move, uint hit, __global const real *restrict betas,
                              __global const real *restrict couplings, uint first_system)
{
    uint item = launch_item(colour != 0);
    if (item >= HALF_SITES) return;
    uint sample = (uint)get_global_id(1), first = sample * CONFIGS, other = (colour ^ 1u) * HALF_SITES;
    spins += (size_t)first * NCOMP * SITES;
    uint site = site_of_colour(item, colour), own = colour * HALF_SITES + item;
    uint up[DIM], down[DIM];
    real j_up[DIM], j_down[DIM];
    __global const real *j = couplings + (size_t)sample * DIM * SITES;
    for (uint d = 0; d < DIM; d++) {
        up[d] = other + lattice_up(site, d) / 2;
        down[d] = other + lattice_down(site, d) / 2;
        j_up[d] = j[d * SITES + own];
        j_down[d] = j[d * SITES + down[d]];
    }
    spin_t s[CONFIGS], h[CONFIGS];
    for (uint c = 0; c < CONFIGS; c++) {
        __global const real *config_spins = spins + (size_t)c * NCOMP * SITES;
        spin_t field = 0;
        for (uint d = 0; d < DIM; d++)
            field += j_up[d] * load_packed(config_spins, up[d]) + j_down[d] * load_packed(config_spins, down[d]);
        h[c] = field;
        s[c] = load_packed(config_spins, own);
    }
    clmc_philox_key key = {{seed_lo, seed_hi}};
    for (uint c = 0; c < CONFIGS; c++)
        store_packed(spins + (size_t)c * NCOMP * SITES, own,
                     update_spin(s[c], h[c], move, betas[first + c], key, site, sweep, hit,
                                 RUN_CONFIG(first_system, first + c)));
}
#endif

/* One sub-sweep of `move` over colour `colour` in every configuration of
 * sample get_global_id(1); `hit` the sub-sweep within the sweep. */
__kernel void heisenberg_glass_update(__global real *restrict spins, uint seed_lo, uint seed_hi, uint sweep,
                                      uint colour, uint move, uint hit, __global const real *restrict betas,
                                      __global const real *restrict couplings, uint first_system)
{
    glass_update_body(spins, seed_lo, seed_hi, sweep, colour, move, hit, betas, couplings, first_system);
}

/* The same with the move fixed to over-relaxation at compile time (no
 * random-number or heat-bath code, fewer registers); `move` is not read. */
__kernel void heisenberg_glass_update_or(__global real *restrict spins, uint seed_lo, uint seed_hi, uint sweep,
                                         uint colour, uint move, uint hit, __global const real *restrict betas,
                                         __global const real *restrict couplings, uint first_system)
{
    (void)move;
    glass_update_body(spins, seed_lo, seed_hi, sweep, colour, MOVE_OVERRELAXATION, hit, betas, couplings,
                      first_system);
}

inline real spin_component(spin_t s, uint c)
{
#if NCOMP == 2
    return c == 0 ? s.x : s.y;
#else
    return c == 0 ? s.x : (c == 1 ? s.y : s.z);
#endif
}

/* Per-work-group sums of the overlap tensor q_ab = sum_i s_i^a s_i^b between
 * the two replicas pairs[2 p], pairs[2 p + 1] of pair p (NDRange dimension 1),
 * in the fixed point of heisenberg_measure, at
 * partials[NCOMP^2 * ((slot * pairs + p) * groups + group) + NCOMP a + b]. */
__kernel __attribute__((reqd_work_group_size(MEASURE_WG, 1, 1)))
void heisenberg_overlap(__global const real *spins, __global long *partials, uint slot, __global const uint *pairs)
{
    uint pair = get_global_id(1);
    __global const real *first = spins + (size_t)pairs[2 * pair] * NCOMP * SITES;
    __global const real *second = spins + (size_t)pairs[2 * pair + 1] * NCOMP * SITES;
    __local long sums[MEASURE_WG];
    long total[NCOMP * NCOMP];
    for (uint k = 0; k < NCOMP * NCOMP; k++) total[k] = 0;
    for (uint site = get_global_id(0); site < SITES; site += get_global_size(0)) {
        spin_t a = load_spin(first, site), b = load_spin(second, site);
        for (uint k = 0; k < NCOMP * NCOMP; k++)
            total[k] += convert_long_rte(spin_component(a, k / NCOMP) * spin_component(b, k % NCOMP) * FIXED_SCALE);
    }
    uint lid = get_local_id(0);
    for (uint k = 0; k < NCOMP * NCOMP; k++) {
        sums[lid] = total[k];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint stride = MEASURE_WG / 2; stride > 0; stride /= 2) {
            if (lid < stride) sums[lid] += sums[lid + stride];
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (lid == 0)
            partials[NCOMP * NCOMP * (((size_t)slot * get_global_size(1) + pair) * get_num_groups(0) + get_group_id(0)) + k] =
                sums[0];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}
