/* The random-site kernels (common/random_site.h says what they do and
 * draw): included by a model's kernel file after it defines rs_attempt. */
#ifndef CLMC_RANDOM_SITE_KERNELS_H
#define CLMC_RANDOM_SITE_KERNELS_H

/* Exact serial random-site dynamics, one work-item per configuration. */
__kernel void rsite_sequential(__global RS_SPIN *spins, uint seed_lo, uint seed_hi, uint step_lo, uint step_hi,
                               __global const uint *tables)
{
    uint config = get_global_id(0);
    if (config >= CONFIGS) return;
    spins += (size_t)config * SITES;
    uint table[RS_TABLE];
    load_table(tables, config, table);
    clmc_philox_key key = {{seed_lo, seed_hi}};
    uint sites_stream = site_stream(config);
    uint accept_stream = CLMC_STREAM(RS_PURPOSE_ACCEPT, CLMC_FIRST_SYSTEM + config);
    for (uint a = 0; a < ATTEMPTS; a += 4) {
        clmc_philox_ctr picks = clmc_random4(key, a / 4, step_lo, step_hi, sites_stream);
        clmc_philox_ctr u = clmc_random4(key, a / 4, step_lo, step_hi, accept_stream);
        clmc_philox_ctr w = proposals(key, a / 4, step_lo, step_hi, config);
        for (uint k = 0; k < 4 && a + k < ATTEMPTS; k++) rs_attempt(spins, pick_site(picks.v[k]), 1, u.v[k], w.v[k], table);
    }
}

/* Many copies, one shared site sequence: the work-group draws a batch of
 * 4 RS_WG site picks into local memory (one draw per work-item), then every
 * work-item applies them in order to its own configuration, copies of a site
 * adjacent in memory. */
__kernel __attribute__((reqd_work_group_size(RS_WG, 1, 1)))
void rsite_copies(__global RS_SPIN *spins, uint seed_lo, uint seed_hi, uint step_lo, uint step_hi,
                  __global const uint *tables)
{
    __local uint picks[4 * RS_WG];
    uint config = get_global_id(0), lid = get_local_id(0);
    bool active = config < CONFIGS;
    uint table[RS_TABLE];
    load_table(tables, active ? config : 0, table);
    clmc_philox_key key = {{seed_lo, seed_hi}};
    uint accept_stream = CLMC_STREAM(RS_PURPOSE_ACCEPT, CLMC_FIRST_SYSTEM + config);
    __global RS_SPIN *mine = spins + config;
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
            clmc_philox_ctr w = proposals(key, (batch + a) / 4, step_lo, step_hi, config);
            for (uint k = 0; k < 4 && a + k < end; k++) rs_attempt(mine, picks[a + k], CONFIGS, u.v[k], w.v[k], table);
        }
    }
}

/* Config-major (the drivers' layout, measurements, checkpoints) <-> copy-minor. */
__kernel void rsite_to_copies(__global const RS_SPIN *by_config, __global RS_SPIN *by_site)
{
    uint site = get_global_id(0), config = get_global_id(1);
    if (site < SITES) by_site[(size_t)site * CONFIGS + config] = by_config[(size_t)config * SITES + site];
}

__kernel void rsite_from_copies(__global const RS_SPIN *by_site, __global RS_SPIN *by_config)
{
    uint site = get_global_id(0), config = get_global_id(1);
    if (site < SITES) by_config[(size_t)config * SITES + site] = by_site[(size_t)site * CONFIGS + config];
}

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
__kernel void rsite_double_tiling(__global RS_SPIN *spins, uint seed_lo, uint seed_hi, uint sweep_lo, uint sweep_hi,
                                  __global const uint *tables, uint phase)
{
    uint tile = get_global_id(0), config = get_global_id(1);
    if (tile >= TILES_PER_EDGE * TILES_PER_EDGE) return;
    spins += (size_t)config * SITES;
    uint table[RS_TABLE];
    load_table(tables, config, table);
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
        clmc_philox_ctr w = proposals(key, unit, sweep_lo, hit, config);
        for (uint k = 0; k < 4; k++) {
            uint r = mul_hi(picks.v[k], (uint)SUB_SITES);
            rs_attempt(spins, x0 + r % SUB + EDGE * (y0 + r / SUB), 1, u.v[k], w.v[k], table);
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
__kernel void rsite_dead_border(__global RS_SPIN *spins, uint seed_lo, uint seed_hi, uint step_lo, uint step_hi,
                                __global const uint *tables, uint segment_lo, uint segment_hi)
{
    uint tile = get_global_id(0), config = get_global_id(1);
    if (tile >= TILE_COUNT) return;
    spins += (size_t)config * SITES;
    uint table[RS_TABLE];
    load_table(tables, config, table);
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
        clmc_philox_ctr w = proposals(key, unit, step_lo, step_hi, config);
        for (uint k = 0; k < 4 && a + k < TILE_ATTEMPTS; k++) {
            uint r = mul_hi(picks.v[k], (uint)INNER_SITES);
            uint x = (bx + r % INNER) % EDGE, y = (by + r / INNER % INNER) % EDGE;
#if DIM == 3
            uint z = (bz + r / (INNER * INNER)) % EDGE;
#else
            uint z = 0;
#endif
            rs_attempt(spins, x + EDGE * (y + EDGE * z), 1, u.v[k], w.v[k], table);
        }
    }
}
#endif

#endif
