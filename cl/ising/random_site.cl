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
 * RS_WG and RS_LOCAL (0|1) (copies kernel), CLMC_FIRST_SYSTEM (if not 0);
 * tiled variants RS_TILE, TILE_ATTEMPTS (dead_border), RS_LWG, RS_GROUP_TILES
 * and RS_CHUNK (local-memory kernels). */
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
/* Tiled variants.  Both have a global-memory kernel (one work-item per tile)
 * and a local-memory one, chosen by algorithm.tile_memory on the host; they
 * make the same decisions, bit for bit.  The local-memory kernels put
 * RS_GROUP_TILES tiles in a work-group of RS_LWG >= RS_GROUP_TILES items: all
 * items copy the tiles' sites into local memory, item i < RS_GROUP_TILES
 * makes tile i's serial attempts there, all items copy them back.  Every item
 * reaches both barriers (padding tiles past the last included). */
#define TILES_PER_EDGE (EDGE / RS_TILE)
#if DIM == 2
#define TILE_COUNT (TILES_PER_EDGE * TILES_PER_EDGE)
#else
#define TILE_COUNT (TILES_PER_EDGE * TILES_PER_EDGE * TILES_PER_EDGE)
#endif

/* Lattice index of the point `offset` + (x, y, z), periodically wrapped. */
inline uint wrapped_site(const uint *offset, uint x, uint y, uint z)
{
    x = (offset[0] + x) % EDGE;
    y = (offset[1] + y) % EDGE;
#if DIM == 3
    z = (offset[2] + z) % EDGE;
#else
    z = 0;
#endif
    return x + EDGE * (y + EDGE * z);
}

/* Corner of tile `tile` (x fastest) shifted by `shift`, per component. */
inline void tile_corner(uint tile, const uint *shift, uint *corner)
{
    corner[0] = shift[0] + tile % TILES_PER_EDGE * RS_TILE;
    corner[1] = shift[1] + tile / TILES_PER_EDGE % TILES_PER_EDGE * RS_TILE;
    corner[2] = DIM == 3 ? shift[2] + tile / (TILES_PER_EDGE * TILES_PER_EDGE) * RS_TILE : 0;
}

#ifdef RS_LWG
/* Local-memory kernels, in chunks of RS_CHUNK attempts per tile: all items
 * draw the chunk's random numbers of every tile of the group in parallel and
 * store them as plan words (the site's index in its box in bits 0 .. 23, the
 * flip decision for each count of aligned neighbours from bit 24 on), the
 * word of attempt a of tile t at plan[a RS_GROUP_TILES + t] (neighbouring
 * items touch neighbouring words: no bank conflicts); then item i makes tile
 * i's attempts of the chunk serially from its plan words.
 * The same draws and decisions as the global-memory kernels. */
inline uint accept_mask(uint u, const uint *threshold)
{
    uint mask = 0;
    for (uint a = 0; a <= NEIGHBOURS; a++) mask |= (uint)accept_flip(a, u, threshold) << a;
    return mask << 24;
}

/* The attempt of plan word `word` in a box with row stride sy and plane
 * stride sz; the site's neighbours are inside the box. */
inline void planned_attempt(__local char *box, uint word, uint sy, uint sz)
{
    uint i = word & 0xffffffu;
    int s = box[i];
    int field = box[i - 1] + box[i + 1] + box[i - sy] + box[i + sy];
#if DIM == 3
    field += box[i - sz] + box[i + sz];
#endif
    uint aligned = (uint)(NEIGHBOURS + s * field) / 2;
    if (word >> (24 + aligned) & 1u) box[i] = (char)-s;
}

/* PER_TILE attempts of every tile of the group (starting at tile `first`,
 * boxes of BOX_BYTES in `boxes`, plan words in `plan`), the draws of attempts
 * a .. a + 3 of tile t at counter (UNIT(t, a), LO, HI, purpose), the site's
 * box index INDEX_OF(pick).  Every item runs the chunk loop (a uniform trip
 * count) and reaches its barriers; the first barrier also follows the loads
 * into `boxes`, the last precedes the stores (a global fence too: items store
 * sites that other items loaded). */
#define PLANNED_ATTEMPTS(PER_TILE, UNIT, LO, HI, INDEX_OF, BOX_BYTES, SY, SZ)                                  \
    do {                                                                                                        \
        uint threshold[NEIGHBOURS + 1];                                                                         \
        load_thresholds(thresholds, config, threshold);                                                         \
        uint sites_stream = site_stream(config);                                                                \
        uint accept_stream = CLMC_STREAM(RS_PURPOSE_ACCEPT, CLMC_FIRST_SYSTEM + config);                        \
        for (uint base = 0; base < (PER_TILE); base += RS_CHUNK) {                                              \
            barrier(CLK_LOCAL_MEM_FENCE);                                                                       \
            for (uint j = lid; j < RS_GROUP_TILES * (RS_CHUNK / 4); j += RS_LWG) {                              \
                uint t = j % RS_GROUP_TILES, a = base + 4 * (j / RS_GROUP_TILES), tile = first + t;             \
                if (tile >= TILE_COUNT || a >= (PER_TILE)) continue;                                            \
                clmc_philox_ctr picks = clmc_random4(key, UNIT(tile, a), LO, HI, sites_stream);                 \
                clmc_philox_ctr u = clmc_random4(key, UNIT(tile, a), LO, HI, accept_stream);                    \
                for (uint k = 0; k < 4; k++)                                                                    \
                    plan[(a - base + k) * RS_GROUP_TILES + t] = INDEX_OF(picks.v[k]) | accept_mask(u.v[k], threshold); \
            }                                                                                                   \
            barrier(CLK_LOCAL_MEM_FENCE);                                                                       \
            uint end = (PER_TILE) - base < RS_CHUNK ? (PER_TILE) - base : RS_CHUNK;                             \
            if (lid < RS_GROUP_TILES && first + lid < TILE_COUNT)                                               \
                for (uint a = 0; a < end; a++)                                                                  \
                    planned_attempt(boxes + lid * (BOX_BYTES), plan[a * RS_GROUP_TILES + lid], SY, SZ);         \
        }                                                                                                       \
        barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);                                                    \
    } while (0)
#endif
#endif

#if defined(RS_TILE) && !defined(TILE_ATTEMPTS)
/* double_tiling (2D and 3D): tiles of RS_TILE^DIM sites, each split into
 * PHASES = 2^DIM sub-tiles of SUB^DIM (quadrants, octants); a sweep is PHASES
 * phases, one launch each, and in phase p every tile of a configuration makes
 * SUB^DIM random-site attempts in the same sub-tile, order[p] of a random
 * order drawn per sweep and configuration.  Active sub-tiles of neighbouring
 * tiles are SUB sites apart, so each tile updates its sub-tile serially while
 * the spins it reads around it stay fixed. */
#define SUB (RS_TILE / 2)
#define PHASES (1u << DIM)
#if DIM == 2
#define SUB_SITES (SUB * SUB)
#define PERMUTATIONS 24u /* 4! */
#else
#define SUB_SITES (SUB * SUB * SUB)
#define PERMUTATIONS 40320u /* 8! */
#endif
#define RS_PURPOSE_ORDER 22u

/* Sub-tile (x half + 2 y half + 4 z half) of phase `phase`: permutation
 * number k = r mod PHASES! of the sweep's draw r, decoded as a Lehmer code
 * (digit p = floor(k / (PHASES - 1 - p)!) mod (PHASES - p) picks among the
 * sub-tiles not yet placed, in increasing order); the bias of r mod PHASES!
 * is below PHASES! / 2^32. */
inline uint subtile_of(clmc_philox_key key, uint sweep_lo, uint sweep_hi, uint phase, uint config)
{
    clmc_philox_ctr r = clmc_random4(key, 0, sweep_lo, sweep_hi, CLMC_STREAM(RS_PURPOSE_ORDER, CLMC_FIRST_SYSTEM + config));
    uint k = r.v[0] % PERMUTATIONS, order[PHASES], weight = PERMUTATIONS / PHASES;
    for (uint p = 0; p < PHASES; p++) order[p] = p;
    for (uint p = 0; p + 1 < PHASES; p++) {
        uint j = p + k / weight % (PHASES - p), chosen = order[j];
        for (uint m = j; m > p; m--) order[m] = order[m - 1];
        order[p] = chosen;
        weight /= PHASES - 1 - p;
    }
    return order[phase];
}

/* Corner of the active sub-tile q of tile `tile`. */
inline void subtile_corner(uint tile, uint q, uint *corner)
{
    uint shift[3] = {(q & 1u) * SUB, (q >> 1 & 1u) * SUB, (q >> 2) * SUB};
    tile_corner(tile, shift, corner);
}

/* Attempt a of phase p in sweep t draws word a % 4 at counter
 * ((tile SUB^DIM + a) / 4, t low, PHASES t high + p, purpose) (SUB^DIM is a
 * multiple of 4); the site is r = floor(u SUB^DIM / 2^32) of the sub-tile,
 * (r mod SUB, floor(r / SUB) mod SUB, floor(r / SUB^2)). */
#define DOUBLE_TILING_ATTEMPTS(SITE_OF_R, ATTEMPT)                                                    \
    do {                                                                                              \
        uint sites_stream = site_stream(config), hit = PHASES * sweep_hi + phase;                    \
        uint accept_stream = CLMC_STREAM(RS_PURPOSE_ACCEPT, CLMC_FIRST_SYSTEM + config);              \
        for (uint a = 0; a < SUB_SITES; a += 4) {                                                     \
            uint unit = (tile * SUB_SITES + a) / 4;                                                   \
            clmc_philox_ctr picks = clmc_random4(key, unit, sweep_lo, hit, sites_stream);             \
            clmc_philox_ctr u = clmc_random4(key, unit, sweep_lo, hit, accept_stream);                \
            for (uint k = 0; k < 4; k++) {                                                            \
                uint r = mul_hi(picks.v[k], (uint)SUB_SITES);                                         \
                uint rx = r % SUB, ry = r / SUB % SUB, rz = r / (SUB * SUB);                          \
                ATTEMPT(SITE_OF_R, u.v[k]);                                                           \
            }                                                                                         \
        }                                                                                             \
    } while (0)

#define GLOBAL_ATTEMPT(site, u) attempt(spins, site, 1, u, threshold)
__kernel void rsite_double_tiling(__global char *spins, uint seed_lo, uint seed_hi, uint sweep_lo, uint sweep_hi,
                                  __global const uint *thresholds, uint phase)
{
    uint tile = get_global_id(0), config = get_global_id(1);
    if (tile >= TILE_COUNT) return;
    spins += (size_t)config * SITES;
    uint threshold[NEIGHBOURS + 1];
    load_thresholds(thresholds, config, threshold);
    clmc_philox_key key = {{seed_lo, seed_hi}};
    uint corner[3];
    subtile_corner(tile, subtile_of(key, sweep_lo, sweep_hi, phase, config), corner);
    DOUBLE_TILING_ATTEMPTS(corner[0] + rx + EDGE * (corner[1] + ry + EDGE * (corner[2] + rz)), GLOBAL_ATTEMPT);
}

#ifdef RS_LWG
/* Local memory: per tile the active sub-tile and its one-site halo, a box of
 * BOX^DIM sites; only the sub-tile is written back. */
#define BOX (SUB + 2)
#if DIM == 2
#define BOX_SITES (BOX * BOX)
#else
#define BOX_SITES (BOX * BOX * BOX)
#endif
inline uint double_tiling_index(uint pick)
{
    uint r = mul_hi(pick, (uint)SUB_SITES);
    return 1 + r % SUB + BOX * (1 + r / SUB % SUB + BOX * (DIM == 3 ? 1 + r / (SUB * SUB) : 0));
}
#define DOUBLE_TILING_UNIT(tile, a) (((tile) * SUB_SITES + (a)) / 4)

__kernel __attribute__((reqd_work_group_size(RS_LWG, 1, 1)))
void rsite_double_tiling_local(__global char *spins, uint seed_lo, uint seed_hi, uint sweep_lo, uint sweep_hi,
                               __global const uint *thresholds, uint phase)
{
    __local char boxes[RS_GROUP_TILES * BOX_SITES];
    __local uint plan[RS_GROUP_TILES * RS_CHUNK];
    uint lid = get_local_id(0), config = get_global_id(1), first = get_group_id(0) * RS_GROUP_TILES;
    spins += (size_t)config * SITES;
    clmc_philox_key key = {{seed_lo, seed_hi}};
    uint q = subtile_of(key, sweep_lo, sweep_hi, phase, config);
    for (uint i = lid; i < RS_GROUP_TILES * BOX_SITES; i += RS_LWG) {
        uint t = first + i / BOX_SITES, s = i % BOX_SITES, corner[3];
        if (t >= TILE_COUNT) continue;
        subtile_corner(t, q, corner);
        corner[0] += EDGE - 1;
        corner[1] += EDGE - 1;
        corner[2] += EDGE - 1;
        boxes[i] = spins[wrapped_site(corner, s % BOX, s / BOX % BOX, s / (BOX * BOX))];
    }
    PLANNED_ATTEMPTS(SUB_SITES, DOUBLE_TILING_UNIT, sweep_lo, PHASES * sweep_hi + phase, double_tiling_index,
                     BOX_SITES, BOX, BOX * BOX);
    for (uint i = lid; i < RS_GROUP_TILES * SUB_SITES; i += RS_LWG) {
        uint t = first + i / SUB_SITES, s = i % SUB_SITES, corner[3];
        if (t >= TILE_COUNT) continue;
        subtile_corner(t, q, corner);
        uint x = s % SUB, y = s / SUB % SUB, z = s / (SUB * SUB);
        spins[corner[0] + x + EDGE * (corner[1] + y + EDGE * (corner[2] + z))] =
            boxes[i / SUB_SITES * BOX_SITES + 1 + x + BOX * (1 + y + BOX * (DIM == 3 ? 1 + z : 0))];
    }
}
#endif
#endif

#if defined(RS_TILE) && defined(TILE_ATTEMPTS)
/* dead_border (2D and 3D): the lattice is cut into tiles of RS_TILE^DIM sites
 * whose origin is shifted by a random offset in [0, RS_TILE)^DIM every
 * shift_every sweeps (segment); each tile makes TILE_ATTEMPTS random-site
 * attempts per step on its interior, the (RS_TILE - 2)^DIM sites off its
 * one-site border.  Borders are never updated while the origin stays, so
 * interiors of different tiles never touch. */
#define INNER (RS_TILE - 2)
#define RS_PURPOSE_ORIGIN 23u
#if DIM == 2
#define INNER_SITES (INNER * INNER)
#define TILE_SITES (RS_TILE * RS_TILE)
#else
#define INNER_SITES (INNER * INNER * INNER)
#define TILE_SITES (RS_TILE * RS_TILE * RS_TILE)
#endif

/* The origin of segment g is floor(u RS_TILE / 2^32) of words 0, 1, 2 at
 * (0, g low, g high, purpose 23). */
inline void segment_origin(clmc_philox_key key, uint segment_lo, uint segment_hi, uint config, uint *origin)
{
    clmc_philox_ctr r = clmc_random4(key, 0, segment_lo, segment_hi,
                                      CLMC_STREAM(RS_PURPOSE_ORIGIN, CLMC_FIRST_SYSTEM + config));
    for (uint d = 0; d < 3; d++) origin[d] = mul_hi(r.v[d], (uint)RS_TILE);
}

/* Attempt a of step t draws word a % 4 at counter (tile ceil(TILE_ATTEMPTS /
 * 4) + a / 4, t low, t high, purpose); the site is r = floor(u INNER^DIM /
 * 2^32) of the interior, (1 + r mod INNER, 1 + floor(r / INNER) mod INNER,
 * 1 + floor(r / INNER^2)) from the tile's corner. */
#define DEAD_BORDER_ATTEMPTS(ATTEMPT)                                                                 \
    do {                                                                                              \
        uint sites_stream = site_stream(config);                                                      \
        uint accept_stream = CLMC_STREAM(RS_PURPOSE_ACCEPT, CLMC_FIRST_SYSTEM + config);              \
        for (uint a = 0; a < TILE_ATTEMPTS; a += 4) {                                                 \
            uint unit = tile * ((TILE_ATTEMPTS + 3) / 4) + a / 4;                                     \
            clmc_philox_ctr picks = clmc_random4(key, unit, step_lo, step_hi, sites_stream);          \
            clmc_philox_ctr u = clmc_random4(key, unit, step_lo, step_hi, accept_stream);             \
            for (uint k = 0; k < 4 && a + k < TILE_ATTEMPTS; k++) {                                   \
                uint r = mul_hi(picks.v[k], (uint)INNER_SITES);                                       \
                uint rx = 1 + r % INNER, ry = 1 + r / INNER % INNER, rz = DIM == 3 ? 1 + r / (INNER * INNER) : 0; \
                ATTEMPT(rx, ry, rz, u.v[k]);                                                          \
            }                                                                                         \
        }                                                                                             \
    } while (0)

#define DEAD_BORDER_GLOBAL(x, y, z, u) attempt(spins, wrapped_site(corner, x, y, z), 1, u, threshold)
__kernel void rsite_dead_border(__global char *spins, uint seed_lo, uint seed_hi, uint step_lo, uint step_hi,
                                __global const uint *thresholds, uint segment_lo, uint segment_hi)
{
    uint tile = get_global_id(0), config = get_global_id(1);
    if (tile >= TILE_COUNT) return;
    spins += (size_t)config * SITES;
    uint threshold[NEIGHBOURS + 1];
    load_thresholds(thresholds, config, threshold);
    clmc_philox_key key = {{seed_lo, seed_hi}};
    uint origin[3], corner[3];
    segment_origin(key, segment_lo, segment_hi, config, origin);
    tile_corner(tile, origin, corner);
    DEAD_BORDER_ATTEMPTS(DEAD_BORDER_GLOBAL);
}

#ifdef RS_LWG
/* Local memory: the whole tile (its interior's neighbours are all in it). */
inline uint dead_border_index(uint pick)
{
    uint r = mul_hi(pick, (uint)INNER_SITES);
    return 1 + r % INNER + RS_TILE * (1 + r / INNER % INNER + RS_TILE * (DIM == 3 ? 1 + r / (INNER * INNER) : 0));
}
#define DEAD_BORDER_UNIT(tile, a) ((tile) * ((TILE_ATTEMPTS + 3) / 4) + (a) / 4)

__kernel __attribute__((reqd_work_group_size(RS_LWG, 1, 1)))
void rsite_dead_border_local(__global char *spins, uint seed_lo, uint seed_hi, uint step_lo, uint step_hi,
                             __global const uint *thresholds, uint segment_lo, uint segment_hi)
{
    __local char boxes[RS_GROUP_TILES * TILE_SITES];
    __local uint plan[RS_GROUP_TILES * RS_CHUNK];
    uint lid = get_local_id(0), config = get_global_id(1), first = get_group_id(0) * RS_GROUP_TILES;
    spins += (size_t)config * SITES;
    clmc_philox_key key = {{seed_lo, seed_hi}};
    uint origin[3], corner[3];
    segment_origin(key, segment_lo, segment_hi, config, origin);
    for (uint i = lid; i < RS_GROUP_TILES * TILE_SITES; i += RS_LWG) {
        uint t = first + i / TILE_SITES, s = i % TILE_SITES;
        if (t >= TILE_COUNT) continue;
        tile_corner(t, origin, corner);
        boxes[i] = spins[wrapped_site(corner, s % RS_TILE, s / RS_TILE % RS_TILE, s / (RS_TILE * RS_TILE))];
    }
    PLANNED_ATTEMPTS(TILE_ATTEMPTS, DEAD_BORDER_UNIT, step_lo, step_hi, dead_border_index, TILE_SITES, RS_TILE,
                     RS_TILE * RS_TILE);
    for (uint i = lid; i < RS_GROUP_TILES * TILE_SITES; i += RS_LWG) {
        uint t = first + i / TILE_SITES, s = i % TILE_SITES;
        if (t >= TILE_COUNT) continue;
        tile_corner(t, origin, corner);
        spins[wrapped_site(corner, s % RS_TILE, s / RS_TILE % RS_TILE, s / (RS_TILE * RS_TILE))] = boxes[i];
    }
}
#endif
#endif
