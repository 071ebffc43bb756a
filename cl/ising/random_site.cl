/* Ising ferromagnet, random-site dynamics (algorithm.layout "random_site",
 * docs/models/ising.md): each attempt picks a site uniformly at random and
 * flips it with the Metropolis or heat-bath (Glauber) probability.  One step
 * makes ATTEMPTS attempts per configuration (SITES / algorithm.substeps).
 *
 * sequential_reference: one work-item per configuration, spins config-major
 * (the layout of cl/ising/ising.cl).  copies: spins site-major, copy-minor
 * (the CONFIGS copies of a site adjacent), a work-group per block of RS_WG
 * configurations, or (RS_LOCAL) packed in local memory, 32 copies per
 * work-group; every configuration follows the one shared site sequence.
 *
 * Random numbers (Philox, keyed by the seed): attempt a of step t takes word
 * a % 4 of the draw at counter (a / 4, t low, t high, purpose): purpose
 * SITE_PICK for the site, ACCEPT for the acceptance.  The site stream is that
 * of the configuration's run-wide system (per-copy sequences) or of system 0
 * (the shared sequence); acceptance always that of the configuration's system.
 * So configuration c makes the same decisions in either kernel when both use
 * the shared sequence.
 *
 * Defines: DIM, EDGE, CONFIGS, ATTEMPTS, SHARED_SITES (0|1), HEATBATH (0|1),
 * RS_WG and RS_LOCAL (0|1) (copies kernel), CLMC_FIRST_SYSTEM (if not 0). */
#include "common/philox.h"

/* Purposes of this file's streams (after the list in common/philox.h). */
#define RS_PURPOSE_SITE_PICK 20u
#define RS_PURPOSE_ACCEPT 21u

#if DIM == 2
#define SITES ((uint)EDGE * EDGE)
#define NEIGHBOURS 4
#else
#define SITES ((uint)EDGE * EDGE * EDGE)
#define NEIGHBOURS 6
#endif
#ifndef RS_LOCAL
#define RS_LOCAL 0
#endif
#define THRESHOLD_STRIDE 8 /* per configuration: one threshold per count of aligned neighbours */

inline uint site_stream(uint config)
{
    return CLMC_STREAM(RS_PURPOSE_SITE_PICK, SHARED_SITES ? 0u : CLMC_FIRST_SYSTEM + config);
}

/* Uniform site from a 32-bit uniform: floor(r SITES / 2^32); the bias is at
 * most SITES / 2^32 relative. */
inline uint pick_site(uint r)
{
    return mul_hi(r, SITES);
}

/* The NEIGHBOURS sites next to `site` (periodic). */
inline void neighbour_sites(uint site, uint *next)
{
    uint x = site % EDGE, row = site / EDGE, y = row % EDGE, z = row / EDGE;
    uint left = x == 0 ? EDGE - 1 : x - 1, right = x == EDGE - 1 ? 0 : x + 1;
    uint down = y == 0 ? EDGE - 1 : y - 1, up = y == EDGE - 1 ? 0 : y + 1;
    next[0] = left + EDGE * row;
    next[1] = right + EDGE * row;
    next[2] = x + EDGE * (down + EDGE * z);
    next[3] = x + EDGE * (up + EDGE * z);
#if DIM == 3
    uint back = z == 0 ? EDGE - 1 : z - 1, front = z == EDGE - 1 ? 0 : z + 1;
    next[4] = x + EDGE * (y + EDGE * back);
    next[5] = x + EDGE * (y + EDGE * front);
#endif
}

/* Neighbours of `site` in configuration storage with stride `stride` between
 * sites (1 config-major, CONFIGS copy-minor). */
inline int neighbour_sum(__global const char *spins, uint site, uint stride)
{
    uint next[NEIGHBOURS];
    neighbour_sites(site, next);
    int field = 0;
    for (uint i = 0; i < NEIGHBOURS; i++) field += spins[(size_t)next[i] * stride];
    return field;
}

/* Flip decision for a spin with `aligned` parallel neighbours and a 32-bit
 * uniform u: u < threshold[aligned] (Metropolis accepts downhill and flat
 * moves outright).  Integer comparisons: bit-identical on every device.  The
 * threshold is selected with constant indices, which keeps the array in
 * registers (a variable index puts it in per-work-item memory on GPUs). */
inline bool accept_flip(uint aligned, uint u, const uint *threshold)
{
#if !HEATBATH
    if (aligned <= NEIGHBOURS / 2) return true;
#endif
    uint chosen = threshold[0];
    for (uint a = 1; a <= NEIGHBOURS; a++) chosen = aligned == a ? threshold[a] : chosen;
    return u < chosen;
}

inline void attempt(__global char *spins, uint site, uint stride, uint u, const uint *threshold)
{
    __global char *spin = spins + (size_t)site * stride;
    int s = *spin;
    uint aligned = (uint)(NEIGHBOURS + s * neighbour_sum(spins, site, stride)) / 2;
    if (accept_flip(aligned, u, threshold)) *spin = (char)-s;
}

inline void load_thresholds(__global const uint *thresholds, uint config, uint *threshold)
{
    for (uint a = 0; a <= NEIGHBOURS; a++) threshold[a] = thresholds[THRESHOLD_STRIDE * config + a];
}

/* Exact serial random-site dynamics, one work-item per configuration. */
__kernel void rsite_sequential(__global char *spins, uint seed_lo, uint seed_hi, uint step_lo, uint step_hi,
                               __global const uint *thresholds)
{
    uint config = get_global_id(0);
    if (config >= CONFIGS) return;
    spins += (size_t)config * SITES;
    uint threshold[NEIGHBOURS + 1];
    load_thresholds(thresholds, config, threshold);
    clmc_philox_key key = {{seed_lo, seed_hi}};
    uint sites_stream = site_stream(config);
    uint accept_stream = CLMC_STREAM(RS_PURPOSE_ACCEPT, CLMC_FIRST_SYSTEM + config);
    for (uint a = 0; a < ATTEMPTS; a += 4) {
        clmc_philox_ctr picks = clmc_random4(key, a / 4, step_lo, step_hi, sites_stream);
        clmc_philox_ctr u = clmc_random4(key, a / 4, step_lo, step_hi, accept_stream);
        for (uint k = 0; k < 4 && a + k < ATTEMPTS; k++) attempt(spins, pick_site(picks.v[k]), 1, u.v[k], threshold);
    }
}

#if RS_LOCAL
/* Packed copies (RS_LOCAL): 32 sites of one copy per word; bit site % 32 of
 * word 32 (site / 32) + lane is the spin (1 up) of copy `lane` of the
 * work-group's block of 32 at `site`.  Every word belongs to one work-item,
 * and the 32 work-items reading the words of one site hit 32 banks. */
#define WORDS ((SITES + 31) / 32) /* words per copy */

/* One attempt of copy `lane` at `site`: attempt() on packed spins. */
inline void packed_attempt(__local uint *lattice, uint site, uint lane, uint u, const uint *threshold)
{
    uint next[NEIGHBOURS];
    neighbour_sites(site, next);
    __local uint *own = lattice + 32 * (site / 32) + lane;
    uint word = *own, spin = (word >> (site % 32)) & 1u, differ = 0;
    for (uint i = 0; i < NEIGHBOURS; i++) differ += ((lattice[32 * (next[i] / 32) + lane] >> (next[i] % 32)) & 1u) ^ spin;
    if (accept_flip(NEIGHBOURS - differ, u, threshold)) *own = word ^ (1u << (site % 32));
}
#endif

/* Many copies, one shared site sequence: the work-group draws a batch of
 * 4 RS_WG site picks into local memory (one draw per work-item), then every
 * work-item applies them in order to its own configuration.
 * RS_LOCAL 0: spins as bytes in global memory, copies of a site adjacent
 * (site-major, copy-minor), a work-group per block of RS_WG copies.
 * RS_LOCAL 1 (RS_WG 32): the block's 32 copies packed 32 sites per word
 * (packed_attempt; global: word (block WORDS + w) 32 + lane), held in local
 * memory for the whole launch: each work-item loads its copy's words at the
 * start and stores them at the end, touching no other work-item's words. */
__kernel __attribute__((reqd_work_group_size(RS_WG, 1, 1)))
#if RS_LOCAL
void rsite_copies(__global uint *spins, uint seed_lo, uint seed_hi, uint step_lo, uint step_hi,
                  __global const uint *thresholds)
#else
void rsite_copies(__global char *spins, uint seed_lo, uint seed_hi, uint step_lo, uint step_hi,
                  __global const uint *thresholds)
#endif
{
    __local uint picks[4 * RS_WG];
    uint config = get_global_id(0), lid = get_local_id(0);
    bool active = config < CONFIGS;
    uint threshold[NEIGHBOURS + 1];
    load_thresholds(thresholds, active ? config : 0, threshold);
    clmc_philox_key key = {{seed_lo, seed_hi}};
    uint accept_stream = CLMC_STREAM(RS_PURPOSE_ACCEPT, CLMC_FIRST_SYSTEM + config);
#if RS_LOCAL
    __local uint lattice[32 * WORDS];
    __global uint *block = spins + (size_t)get_group_id(0) * 32 * WORDS;
    for (uint w = 0; w < WORDS; w++) lattice[32 * w + lid] = block[32 * w + lid];
#else
    __global char *mine = spins + config;
#endif
    for (uint batch = 0; batch < ATTEMPTS; batch += 4 * RS_WG) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (batch + 4 * lid < ATTEMPTS) {
            clmc_philox_ctr r = clmc_random4(key, batch / 4 + lid, step_lo, step_hi, site_stream(0));
            for (uint k = 0; k < 4; k++) picks[4 * lid + k] = pick_site(r.v[k]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (!active) continue;
        uint end = ATTEMPTS - batch < 4 * RS_WG ? ATTEMPTS - batch : 4 * RS_WG;
        for (uint a = 0; a < end; a += 4) {
            clmc_philox_ctr u = clmc_random4(key, (batch + a) / 4, step_lo, step_hi, accept_stream);
            for (uint k = 0; k < 4 && a + k < end; k++) {
#if RS_LOCAL
                packed_attempt(lattice, picks[a + k], lid, u.v[k], threshold);
#else
                attempt(mine, picks[a + k], CONFIGS, u.v[k], threshold);
#endif
            }
        }
    }
#if RS_LOCAL
    for (uint w = 0; w < WORDS; w++) block[32 * w + lid] = lattice[32 * w + lid];
#endif
}

#if RS_LOCAL
/* Config-major (cl/ising/ising.cl, measurements, checkpoints) <-> packed
 * (RS_LOCAL), one work-item per word and configuration (of the blocks:
 * words of configurations past CONFIGS and bits past SITES are 0). */
__kernel void rsite_to_copies(__global const char *by_config, __global uint *packed)
{
    uint w = get_global_id(0), config = get_global_id(1);
    if (w >= WORDS) return;
    uint word = 0;
    for (uint b = 0; b < 32 && 32 * w + b < SITES && config < CONFIGS; b++)
        word |= (uint)(by_config[(size_t)config * SITES + 32 * w + b] > 0) << b;
    packed[((size_t)(config / 32) * WORDS + w) * 32 + config % 32] = word;
}

__kernel void rsite_from_copies(__global const uint *packed, __global char *by_config)
{
    uint site = get_global_id(0), config = get_global_id(1);
    if (site < SITES)
        by_config[(size_t)config * SITES + site] =
            (packed[((size_t)(config / 32) * WORDS + site / 32) * 32 + config % 32] >> (site % 32)) & 1u ? 1 : -1;
}
#else
/* Config-major (cl/ising/ising.cl, measurements, checkpoints) <-> copy-minor. */
__kernel void rsite_to_copies(__global const char *by_config, __global char *by_site)
{
    uint site = get_global_id(0), config = get_global_id(1);
    if (site < SITES) by_site[(size_t)site * CONFIGS + config] = by_config[(size_t)config * SITES + site];
}

__kernel void rsite_from_copies(__global const char *by_site, __global char *by_config)
{
    uint site = get_global_id(0), config = get_global_id(1);
    if (site < SITES) by_config[(size_t)config * SITES + site] = by_site[(size_t)site * CONFIGS + config];
}
#endif

#ifdef RS_TILE
/* double_tiling (2D): tiles of RS_TILE^2 sites, each split into four
 * sub-tiles of SUB^2; a sweep is four phases, one launch each, and in phase p
 * every tile of a configuration makes SUB^2 random-site attempts in the same
 * sub-tile, order[p] of a random order drawn per sweep and configuration.
 * Active sub-tiles of neighbouring tiles are SUB sites apart, so each
 * work-item (one per tile) updates its sub-tile serially in global memory
 * while the spins it reads around it stay fixed. */
#define SUB (RS_TILE / 2)
#define SUB_SITES (SUB * SUB)
#define TILES_PER_EDGE (EDGE / RS_TILE)
#define RS_PURPOSE_ORDER 22u

/* Sub-tile (0..3: x half + 2 y half) of phase `phase`: permutation number
 * r mod 24 (Lehmer code) of the sweep's draw; the bias of r mod 24 is below
 * 24 / 2^32. */
inline uint subtile_of(clmc_philox_key key, uint sweep_lo, uint sweep_hi, uint phase, uint config)
{
    clmc_philox_ctr r = clmc_random4(key, 0, sweep_lo, sweep_hi, CLMC_STREAM(RS_PURPOSE_ORDER, CLMC_FIRST_SYSTEM + config));
    uint k = r.v[0] % 24u;
    uint order[4] = {0, 1, 2, 3}, digits[3] = {k / 6, (k / 2) % 3, k % 2};
    for (uint p = 0; p < 3; p++) {
        uint j = p + digits[p], chosen = order[j];
        for (uint m = j; m > p; m--) order[m] = order[m - 1];
        order[p] = chosen;
    }
    return order[phase];
}

/* Attempt a of phase p in sweep t draws word a % 4 at counter
 * ((tile SUB^2 + a) / 4, t low, 4 t high + p, purpose) (SUB^2 is a multiple of 4). */
__kernel void rsite_double_tiling(__global char *spins, uint seed_lo, uint seed_hi, uint sweep_lo, uint sweep_hi,
                                  __global const uint *thresholds, uint phase)
{
    uint tile = get_global_id(0), config = get_global_id(1);
    if (tile >= TILES_PER_EDGE * TILES_PER_EDGE) return;
    spins += (size_t)config * SITES;
    uint threshold[NEIGHBOURS + 1];
    load_thresholds(thresholds, config, threshold);
    clmc_philox_key key = {{seed_lo, seed_hi}};
    uint q = subtile_of(key, sweep_lo, sweep_hi, phase, config);
    uint x0 = (tile % TILES_PER_EDGE) * RS_TILE + (q & 1u) * SUB, y0 = (tile / TILES_PER_EDGE) * RS_TILE + (q >> 1) * SUB;
    uint sites_stream = site_stream(config);
    uint accept_stream = CLMC_STREAM(RS_PURPOSE_ACCEPT, CLMC_FIRST_SYSTEM + config);
    uint hit = 4 * sweep_hi + phase;
    for (uint a = 0; a < SUB_SITES; a += 4) {
        uint unit = (tile * SUB_SITES + a) / 4;
        clmc_philox_ctr picks = clmc_random4(key, unit, sweep_lo, hit, sites_stream);
        clmc_philox_ctr u = clmc_random4(key, unit, sweep_lo, hit, accept_stream);
        for (uint k = 0; k < 4; k++) {
            uint r = mul_hi(picks.v[k], (uint)SUB_SITES);
            attempt(spins, x0 + r % SUB + EDGE * (y0 + r / SUB), 1, u.v[k], threshold);
        }
    }
}
#endif

#if defined(RS_TILE) && defined(TILE_ATTEMPTS)
/* dead_border (2D and 3D): the lattice is cut into tiles of RS_TILE^DIM sites
 * whose origin is shifted by a random offset in [0, RS_TILE)^DIM every
 * shift_every sweeps (segment); one work-item per tile makes TILE_ATTEMPTS
 * random-site attempts per step on the tile's interior, the (RS_TILE - 2)^DIM
 * sites off its one-site border.  Borders are never updated while the origin
 * stays, so interiors of different tiles never touch. */
#define INNER (RS_TILE - 2)
#define RS_PURPOSE_ORIGIN 23u
#if DIM == 2
#define INNER_SITES (INNER * INNER)
#define TILE_COUNT (TILES_PER_EDGE * TILES_PER_EDGE)
#else
#define INNER_SITES (INNER * INNER * INNER)
#define TILE_COUNT (TILES_PER_EDGE * TILES_PER_EDGE * TILES_PER_EDGE)
#endif

/* Attempt a of step t draws word a % 4 at counter (tile ceil(TILE_ATTEMPTS /
 * 4) + a / 4, t low, t high, purpose); the origin of segment g is
 * floor(u RS_TILE / 2^32) of words 0, 1, 2 at (0, g low, g high, purpose 23). */
__kernel void rsite_dead_border(__global char *spins, uint seed_lo, uint seed_hi, uint step_lo, uint step_hi,
                                __global const uint *thresholds, uint segment_lo, uint segment_hi)
{
    uint tile = get_global_id(0), config = get_global_id(1);
    if (tile >= TILE_COUNT) return;
    spins += (size_t)config * SITES;
    uint threshold[NEIGHBOURS + 1];
    load_thresholds(thresholds, config, threshold);
    clmc_philox_key key = {{seed_lo, seed_hi}};
    clmc_philox_ctr origin = clmc_random4(key, 0, segment_lo, segment_hi,
                                          CLMC_STREAM(RS_PURPOSE_ORIGIN, CLMC_FIRST_SYSTEM + config));
    uint bx = mul_hi(origin.v[0], (uint)RS_TILE) + (tile % TILES_PER_EDGE) * RS_TILE + 1;
    uint by = mul_hi(origin.v[1], (uint)RS_TILE) + (tile / TILES_PER_EDGE % TILES_PER_EDGE) * RS_TILE + 1;
#if DIM == 3
    uint bz = mul_hi(origin.v[2], (uint)RS_TILE) + tile / (TILES_PER_EDGE * TILES_PER_EDGE) * RS_TILE + 1;
#endif
    uint sites_stream = site_stream(config);
    uint accept_stream = CLMC_STREAM(RS_PURPOSE_ACCEPT, CLMC_FIRST_SYSTEM + config);
    for (uint a = 0; a < TILE_ATTEMPTS; a += 4) {
        uint unit = tile * ((TILE_ATTEMPTS + 3) / 4) + a / 4;
        clmc_philox_ctr picks = clmc_random4(key, unit, step_lo, step_hi, sites_stream);
        clmc_philox_ctr u = clmc_random4(key, unit, step_lo, step_hi, accept_stream);
        for (uint k = 0; k < 4 && a + k < TILE_ATTEMPTS; k++) {
            uint r = mul_hi(picks.v[k], (uint)INNER_SITES);
            uint x = (bx + r % INNER) % EDGE, y = (by + r / INNER % INNER) % EDGE;
#if DIM == 3
            uint z = (bz + r / (INNER * INNER)) % EDGE;
#else
            uint z = 0;
#endif
            attempt(spins, x + EDGE * (y + EDGE * z), 1, u.v[k], threshold);
        }
    }
}
#endif
