/* The random-site kernels (common/random_site.h says what they do and
 * draw): included by a model's kernel file after it defines rs_attempt, and
 * for the local-memory variants the hooks below.
 *
 * RS_LOCAL 1 (packed copies, models with two states): the model defines
 *   inline void rs_packed_attempt(__local uint *lattice, uint site, uint lane, uint u, const uint *table)
 * (rs_attempt on packed spins: bit site % 32 of word 32 (site / 32) + lane)
 * and RS_SPIN_BIT(s) (the bit of spin s), RS_BIT_SPIN(b) (the spin of bit b).
 * RS_LWG (tiles in local memory): the model defines
 *   inline uint rs_plan_bits(uint u, const uint *table)
 *   inline void rs_planned_attempt(__local RS_SPIN *box, uint word, uint sy, uint sz)
 * (the decision bits of acceptance word u from bit 24 of a plan word up, and
 * the attempt of a plan word on a box; see PLANNED_ATTEMPTS).
 * RS_PRIVATE (tiles in private memory, common/random_site_private.h; models
 * with two states): the model defines RS_SPIN_BIT, RS_BIT_SPIN and
 *   inline uint rs_bits_flip(uint differ, uint u, const uint *table)
 * (1 where a spin with `differ` antiparallel neighbours flips for the
 * acceptance word u, else 0). */
#ifndef CLMC_RANDOM_SITE_KERNELS_H
#define CLMC_RANDOM_SITE_KERNELS_H

/* Exact serial random-site dynamics, one work-item per configuration. */
__kernel void rsite_sequential(__global RS_SPIN *spins, uint seed_lo, uint seed_hi, uint step_lo, uint step_hi,
                               __global const uint *tables, uint first_system)
{
    uint config = get_global_id(0);
    if (config >= CONFIGS) return;
    spins += (size_t)config * SITES;
    uint table[RS_TABLE];
    load_table(tables, config, table);
    clmc_philox_key key = {{seed_lo, seed_hi}};
    uint sites_stream = site_stream(first_system, config);
    uint accept_stream = CLMC_STREAM(RS_PURPOSE_ACCEPT, first_system + config);
    for (uint a = 0; a < ATTEMPTS; a += 4) {
        clmc_philox_ctr picks = clmc_random4(key, a / 4, step_lo, step_hi, sites_stream);
        clmc_philox_ctr u = clmc_random4(key, a / 4, step_lo, step_hi, accept_stream);
        clmc_philox_ctr w = proposals(key, a / 4, step_lo, step_hi, first_system, config);
        for (uint k = 0; k < 4 && a + k < ATTEMPTS; k++) rs_attempt(spins, pick_site(picks.v[k]), 1, u.v[k], w.v[k], table);
    }
}

#if RS_LOCAL
#define WORDS ((SITES + 31) / 32) /* words per copy of the packed copies kernel */
#endif

/* Many copies, one shared site sequence: the work-group draws a batch of
 * 4 RS_WG site picks into local memory (one draw per work-item), then every
 * work-item applies them in order to its own configuration.
 * RS_LOCAL 0: spins in global memory, copies of a site adjacent (site-major,
 * copy-minor), a work-group per block of RS_WG copies.
 * RS_LOCAL 1 (RS_WG 32): the block's 32 copies packed 32 sites per word
 * (rs_packed_attempt; global: word (block WORDS + w) 32 + lane), held in
 * local memory for the whole launch: each work-item loads its copy's words at
 * the start and stores them at the end, touching no other work-item's words;
 * the 32 work-items reading the words of one site hit 32 banks. */
__kernel __attribute__((reqd_work_group_size(RS_WG, 1, 1)))
#if RS_LOCAL
void rsite_copies(__global uint *spins, uint seed_lo, uint seed_hi, uint step_lo, uint step_hi,
                  __global const uint *tables, uint first_system)
#else
void rsite_copies(__global RS_SPIN *spins, uint seed_lo, uint seed_hi, uint step_lo, uint step_hi,
                  __global const uint *tables, uint first_system)
#endif
{
    __local uint picks[4 * RS_WG];
    uint config = get_global_id(0), lid = get_local_id(0);
    bool active = config < CONFIGS;
    uint table[RS_TABLE];
    load_table(tables, active ? config : 0, table);
    clmc_philox_key key = {{seed_lo, seed_hi}};
    uint accept_stream = CLMC_STREAM(RS_PURPOSE_ACCEPT, first_system + config);
#if RS_LOCAL
    __local uint lattice[32 * WORDS];
    __global uint *block = spins + (size_t)get_group_id(0) * 32 * WORDS;
    for (uint w = 0; w < WORDS; w++) lattice[32 * w + lid] = block[32 * w + lid];
#else
    __global RS_SPIN *mine = spins + config;
#endif
    for (uint batch = 0; batch < ATTEMPTS; batch += 4 * RS_WG) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (batch + 4 * lid < ATTEMPTS) {
            clmc_philox_ctr r = clmc_random4(key, batch / 4 + lid, step_lo, step_hi, site_stream(0u, 0u));
            for (uint k = 0; k < 4; k++) picks[4 * lid + k] = pick_site(r.v[k]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (!active) continue;
        uint end = ATTEMPTS - batch < 4 * RS_WG ? ATTEMPTS - batch : 4 * RS_WG;
        for (uint a = 0; a < end; a += 4) {
            clmc_philox_ctr u = clmc_random4(key, (batch + a) / 4, step_lo, step_hi, accept_stream);
#if RS_LOCAL
            for (uint k = 0; k < 4 && a + k < end; k++) rs_packed_attempt(lattice, picks[a + k], lid, u.v[k], table);
#else
            clmc_philox_ctr w = proposals(key, (batch + a) / 4, step_lo, step_hi, first_system, config);
            for (uint k = 0; k < 4 && a + k < end; k++) rs_attempt(mine, picks[a + k], CONFIGS, u.v[k], w.v[k], table);
#endif
        }
    }
#if RS_LOCAL
    for (uint w = 0; w < WORDS; w++) block[32 * w + lid] = lattice[32 * w + lid];
#endif
}

#if RS_LOCAL
/* Config-major (the drivers' layout, measurements, checkpoints) <-> packed,
 * one work-item per word and configuration (of the blocks: words of
 * configurations past CONFIGS and bits past SITES are 0). */
__kernel void rsite_to_copies(__global const RS_SPIN *by_config, __global uint *packed)
{
    uint w = get_global_id(0), config = get_global_id(1);
    if (w >= WORDS) return;
    uint word = 0;
    for (uint b = 0; b < 32 && 32 * w + b < SITES && config < CONFIGS; b++)
        word |= (uint)RS_SPIN_BIT(by_config[(size_t)config * SITES + 32 * w + b]) << b;
    packed[((size_t)(config / 32) * WORDS + w) * 32 + config % 32] = word;
}

__kernel void rsite_from_copies(__global const uint *packed, __global RS_SPIN *by_config)
{
    uint site = get_global_id(0), config = get_global_id(1);
    if (site < SITES)
        by_config[(size_t)config * SITES + site] =
            RS_BIT_SPIN((packed[((size_t)(config / 32) * WORDS + site / 32) * 32 + config % 32] >> (site % 32)) & 1u);
}
#else
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
 * model's decision bits rs_plan_bits from bit 24 on), the word of attempt a
 * of tile t at plan[a RS_GROUP_TILES + t] (neighbouring items touch
 * neighbouring words: no bank conflicts); then the chunk's attempts run, from
 * their plan words (rs_planned_attempt): RS_WORKERS 1, item i makes tile i's
 * attempts serially; RS_WORKERS > 1, in conflict-free waves (below).  The
 * same draws and decisions as the global-memory kernels.
 *
 * PER_TILE attempts of every tile of the group (starting at tile `first`,
 * boxes of BOX_SPINS in `boxes`, plan words in `plan`), the draws of attempts
 * a .. a + 3 of tile t at counter (UNIT(t, a), LO, HI, purpose), the site's
 * box index INDEX_OF(pick).  Every item runs the chunk loop (a uniform trip
 * count) and reaches its barriers; the first barrier also follows the loads
 * into `boxes`, the last precedes the stores (a global fence too: items store
 * sites that other items loaded). */
#ifndef RS_WORKERS
#define RS_WORKERS 1
#endif

/* The chunk starting at attempt `base`: plan words of every tile of the group. */
#define DRAW_PLAN(base, PER_TILE, UNIT, LO, HI, INDEX_OF)                                                       \
    for (uint j = lid; j < RS_GROUP_TILES * (RS_CHUNK / 4); j += RS_LWG) {                                      \
        uint t = j % RS_GROUP_TILES, a = (base) + 4 * (j / RS_GROUP_TILES), tile = first + t;                   \
        if (tile >= TILE_COUNT || a >= (PER_TILE)) continue;                                                    \
        clmc_philox_ctr picks = clmc_random4(key, UNIT(tile, a), LO, HI, sites_stream);                         \
        clmc_philox_ctr u = clmc_random4(key, UNIT(tile, a), LO, HI, accept_stream);                            \
        for (uint k = 0; k < 4; k++)                                                                            \
            plan[PLAN_INDEX(a - (base) + k, t)] = INDEX_OF(picks.v[k]) | rs_plan_bits(u.v[k], table);          \
    }

#if RS_WORKERS == 1
#define PLAN_INDEX(a, t) ((a) * RS_GROUP_TILES + (t))
#define PLAN_WORDS (RS_GROUP_TILES * RS_CHUNK)
#define RS_WAVE_LOCALS
#define PLANNED_ATTEMPTS(PER_TILE, UNIT, LO, HI, INDEX_OF, BOX_SPINS, SY, SZ)                                  \
    do {                                                                                                        \
        uint table[RS_TABLE];                                                                                   \
        load_table(tables, config, table);                                                                      \
        uint sites_stream = site_stream(first_system, config);                                                  \
        uint accept_stream = CLMC_STREAM(RS_PURPOSE_ACCEPT, first_system + config);                             \
        for (uint base = 0; base < (PER_TILE); base += RS_CHUNK) {                                              \
            barrier(CLK_LOCAL_MEM_FENCE);                                                                       \
            DRAW_PLAN(base, PER_TILE, UNIT, LO, HI, INDEX_OF)                                                   \
            barrier(CLK_LOCAL_MEM_FENCE);                                                                       \
            uint end = (PER_TILE) - base < RS_CHUNK ? (PER_TILE) - base : RS_CHUNK;                             \
            if (lid < RS_GROUP_TILES && first + lid < TILE_COUNT)                                               \
                for (uint a = 0; a < end; a++)                                                                  \
                    rs_planned_attempt(boxes + lid * (BOX_SPINS), plan[PLAN_INDEX(a, lid)], SY, SZ);            \
        }                                                                                                       \
        barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);                                                    \
    } while (0)
#else
/* Waves (RS_WORKERS > 1, RS_LWG = RS_GROUP_TILES RS_WORKERS): tile t of the
 * group has items t RS_WORKERS .. + RS_WORKERS - 1, worker w owning the
 * chunk's attempts RS_WORKERS - 1 - w + k RS_WORKERS (k = 0, 1, ...), their
 * plan words at plan[t (RS_CHUNK + 1) + j] (the workers of a tile read
 * consecutive words, tiles RS_CHUNK + 1 apart: no bank conflicts).  Within a
 * round every item takes its attempts in decreasing k, so a device that runs
 * the items of a round one after another (PoCL) runs them in decreasing
 * order, and two conflicting attempts wrongly put in one wave would run out
 * of the serial order: the bit-identity tests would catch it (their fault
 * guard, RS_FAULT_NO_CONFLICTS, checks that).  Attempt j of a chunk conflicts
 * with an earlier attempt i if i's site is j's or one of its neighbours (j
 * reads what i wrote, or i reads what j would write).  Each attempt sets its
 * bit in the occupancy mask (64 bits) of its site's bucket (box index mod
 * RS_BUCKETS; a bucket of several sites only adds conflicts), and its
 * predecessors are the bits below its own in the buckets of its site and
 * neighbours.  Then rounds, each ended by a barrier: an attempt runs in the
 * first round in which all its predecessors are done, i.e. in wave 1 + the
 * largest wave of its predecessors, so the attempts of one round touch
 * disjoint sites and read nothing another of them writes, and the result is
 * the serial chain's bit for bit.  The done masks are double-buffered by round
 * parity (round r reads finished[r mod 2] = everything done before it and
 * ORs its own and the previous round's new bits into the other), the group
 * leaves the loop when no item had attempts left (busy[r mod 3], reset two
 * rounds ahead): the round count, the largest over the group's tiles, is the
 * same for every item. */
#define WORKER_ATTEMPTS ((RS_CHUNK + RS_WORKERS - 1) / RS_WORKERS)
#define WAVE_ATTEMPT(k) (RS_WORKERS - 1 - worker + RS_WORKERS * (k))
#define PLAN_INDEX(a, t) ((t) * (RS_CHUNK + 1) + (a))
#define PLAN_WORDS (RS_GROUP_TILES * (RS_CHUNK + 1))
#define RS_WAVE_LOCALS                                                                                          \
    __local uint2 occupied[RS_GROUP_TILES * RS_BUCKETS];                                                        \
    __local uint finished[RS_GROUP_TILES * 4];                                                                  \
    __local uint busy[3];

/* Bit j (< 64) of a mask in two words, and the bits below j. */
inline void attempt_bit(uint j, uint *mask)
{
    mask[0] = j < 32 ? 1u << j : 0u;
    mask[1] = j < 32 ? 0u : 1u << (j - 32);
}
inline void bits_below(uint j, uint *mask)
{
    mask[0] = j < 32 ? (1u << j) - 1u : 0xffffffffu;
    mask[1] = j <= 32 ? 0u : (1u << (j - 32)) - 1u;
}

/* Predecessors of attempt j at box index i (its own bit set in `occupied`
 * already; each mask one 64-bit load): pred; *last: no later attempt of the
 * chunk in i's bucket. */
inline void predecessors(__local const uint2 *occupied, uint i, uint j, uint sy, uint sz, uint *pred, bool *last)
{
    uint stencil[2 * DIM] = {i - 1, i + 1, i - sy, i + sy
#if DIM == 3
                             , i - sz, i + sz
#endif
    };
    uint below[2];
    bits_below(j, below);
    uint2 own = occupied[i % RS_BUCKETS], all = own;
    for (uint n = 0; n < 2 * DIM; n++) all |= occupied[stencil[n] % RS_BUCKETS];
    *last = j < 32 ? own.x >> j >> 1 == 0 && own.y == 0 : own.y >> (j - 32) >> 1 == 0;
    pred[0] = all.x & below[0];
    pred[1] = all.y & below[1];
}

#define PLANNED_ATTEMPTS(PER_TILE, UNIT, LO, HI, INDEX_OF, BOX_SPINS, SY, SZ)                                  \
    do {                                                                                                        \
        uint table[RS_TABLE];                                                                                   \
        load_table(tables, config, table);                                                                      \
        uint sites_stream = site_stream(first_system, config);                                                  \
        uint accept_stream = CLMC_STREAM(RS_PURPOSE_ACCEPT, first_system + config);                             \
        uint tl = lid / RS_WORKERS, worker = lid % RS_WORKERS, round = 0;                                       \
        bool real = first + tl < TILE_COUNT;                                                                    \
        __local RS_SPIN *box = boxes + tl * (BOX_SPINS);                                                        \
        __local uint2 *occupancy = occupied + tl * RS_BUCKETS;                                                  \
        __local uint *done = finished + 4 * tl;                                                                 \
        for (uint k = lid; k < 3; k += RS_LWG) busy[k] = 0;                                                     \
        for (uint k = worker; k < 4; k += RS_WORKERS) done[k] = 0;                                              \
        for (uint k = worker; k < RS_BUCKETS; k += RS_WORKERS) occupancy[k] = (uint2)(0u, 0u);                  \
        for (uint base = 0; base < (PER_TILE); base += RS_CHUNK) {                                              \
            barrier(CLK_LOCAL_MEM_FENCE);                                                                       \
            DRAW_PLAN(base, PER_TILE, UNIT, LO, HI, INDEX_OF)                                                   \
            barrier(CLK_LOCAL_MEM_FENCE);                                                                       \
            uint end = (PER_TILE) - base < RS_CHUNK ? (PER_TILE) - base : RS_CHUNK;                             \
            for (uint k = 0; k < WORKER_ATTEMPTS; k++) {                                                        \
                uint j = WAVE_ATTEMPT(k);                                                                       \
                if (real && j < end)                                                                            \
                    atomic_or((__local uint *)(occupancy + (plan[PLAN_INDEX(j, tl)] & 0xffffffu) % RS_BUCKETS)    \
                                  + j / 32,                                                                     \
                              1u << (j % 32));                                                                  \
            }                                                                                                   \
            barrier(CLK_LOCAL_MEM_FENCE);                                                                       \
            uint pred_lo[WORKER_ATTEMPTS], pred_hi[WORKER_ATTEMPTS], pending = 0, clears = 0;                   \
            for (uint k = 0; k < WORKER_ATTEMPTS; k++) {                                                        \
                uint j = WAVE_ATTEMPT(k), pred[2] = {0u, 0u};                                                   \
                bool last = false;                                                                              \
                if (real && j < end) {                                                                          \
                    predecessors(occupancy, plan[PLAN_INDEX(j, tl)] & 0xffffffu, j, SY, SZ, pred, &last);       \
                    pending |= 1u << k;                                                                         \
                }                                                                                               \
                pred_lo[k] = RS_FAULT_PRED(pred[0]);                                                            \
                pred_hi[k] = RS_FAULT_PRED(pred[1]);                                                            \
                clears |= (uint)last << k;                                                                      \
            }                                                                                                   \
            uint previous[2] = {0u, 0u};                                                                        \
            for (;;) {                                                                                          \
                uint parity = round % 2, now[2] = {done[2 * parity], done[2 * parity + 1]}, fresh[2] = {0u, 0u};\
                for (uint k = WORKER_ATTEMPTS; k-- > 0;) {                                                      \
                    if (!(pending >> k & 1u) || (pred_lo[k] & ~now[0]) || (pred_hi[k] & ~now[1])) continue;     \
                    uint j = WAVE_ATTEMPT(k), bit[2];                                                           \
                    rs_planned_attempt(box, plan[PLAN_INDEX(j, tl)], SY, SZ);                                   \
                    pending &= ~(1u << k);                                                                      \
                    attempt_bit(j, bit);                                                                        \
                    fresh[0] |= bit[0];                                                                         \
                    fresh[1] |= bit[1];                                                                         \
                }                                                                                               \
                if (previous[0] | fresh[0]) atomic_or(done + 2 * (1 - parity), previous[0] | fresh[0]);        \
                if (previous[1] | fresh[1]) atomic_or(done + 2 * (1 - parity) + 1, previous[1] | fresh[1]);    \
                previous[0] = fresh[0];                                                                         \
                previous[1] = fresh[1];                                                                         \
                if (pending) atomic_or(busy + round % 3, 1u);                                                   \
                if (lid == 0) busy[(round + 1) % 3] = 0;                                                        \
                barrier(CLK_LOCAL_MEM_FENCE);                                                                   \
                uint more = busy[round % 3];                                                                    \
                round++;                                                                                        \
                if (!more) break;                                                                               \
            }                                                                                                   \
            for (uint k = 0; k < WORKER_ATTEMPTS; k++)                                                          \
                if (clears >> k & 1u) {                                                                         \
                    uint b = (plan[PLAN_INDEX(WAVE_ATTEMPT(k), tl)] & 0xffffffu) % RS_BUCKETS;                  \
                    occupancy[b] = (uint2)(0u, 0u);                                                             \
                }                                                                                               \
            for (uint k = worker; k < 4; k += RS_WORKERS) done[k] = 0;                                          \
        }                                                                                                       \
        barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);                                                    \
    } while (0)

/* Test only (tests/test_random_site.c): RS_FAULT_NO_CONFLICTS runs every
 * attempt of a chunk in the first wave, which must break the equality with
 * the serial chain. */
#ifdef RS_FAULT_NO_CONFLICTS
#define RS_FAULT_PRED(mask) ((mask) & 0u)
#else
#define RS_FAULT_PRED(mask) (mask)
#endif
#endif
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

/* Sub-tile (x half + 2 y half + 4 z half) of phase `phase`: permutation
 * number k = r mod PHASES! of the sweep's draw r, decoded as a Lehmer code
 * (digit p = floor(k / (PHASES - 1 - p)!) mod (PHASES - p) picks among the
 * sub-tiles not yet placed, in increasing order); the bias of r mod PHASES!
 * is below PHASES! / 2^32. */
inline uint subtile_of(clmc_philox_key key, uint sweep_lo, uint sweep_hi, uint phase, uint first_system, uint config)
{
    clmc_philox_ctr r = clmc_random4(key, 0, sweep_lo, sweep_hi, CLMC_STREAM(RS_PURPOSE_ORDER, first_system + config));
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
/* The serial attempts of one tile and phase, as the global-memory and
 * private-memory kernels make them: after the kernel's prologue
 * (DOUBLE_TILING_PROLOGUE: tile, config, key, table, corner of the active
 * sub-tile, streams), ATTEMPT runs for each attempt in the order of its
 * draws with the site (x, y, z) in the sub-tile (0 .. SUB - 1) and the words
 * u.v[k], w.v[k]. */
#define DOUBLE_TILING_PROLOGUE                                                                                  \
    uint tile = get_global_id(0), config = get_global_id(1);                                                    \
    if (tile >= TILE_COUNT) return;                                                                             \
    spins += (size_t)config * SITES;                                                                            \
    uint table[RS_TABLE];                                                                                       \
    load_table(tables, config, table);                                                                          \
    clmc_philox_key key = {{seed_lo, seed_hi}};                                                                 \
    uint corner[3];                                                                                             \
    subtile_corner(tile, subtile_of(key, sweep_lo, sweep_hi, phase, first_system, config), corner);                           \
    uint sites_stream = site_stream(first_system, config), hit = PHASES * sweep_hi + phase;                                   \
    uint accept_stream = CLMC_STREAM(RS_PURPOSE_ACCEPT, first_system + config)
#define DOUBLE_TILING_ATTEMPTS(ATTEMPT)                                                                         \
    for (uint a = 0; a < SUB_SITES; a += 4) {                                                                   \
        uint unit = (tile * SUB_SITES + a) / 4;                                                                 \
        clmc_philox_ctr picks = clmc_random4(key, unit, sweep_lo, hit, sites_stream);                           \
        clmc_philox_ctr u = clmc_random4(key, unit, sweep_lo, hit, accept_stream);                              \
        clmc_philox_ctr w = proposals(key, unit, sweep_lo, hit, first_system, config);                                        \
        _Pragma("unroll") for (uint k = 0; k < 4; k++) {                                                        \
            uint r = mul_hi(picks.v[k], (uint)SUB_SITES);                                                       \
            uint x = r % SUB, y = r / SUB % SUB, z = r / (SUB * SUB);                                           \
            ATTEMPT;                                                                                            \
        }                                                                                                       \
    }

__kernel void rsite_double_tiling(__global RS_SPIN *spins, uint seed_lo, uint seed_hi, uint sweep_lo, uint sweep_hi,
                                  __global const uint *tables, uint phase, uint first_system)
{
    DOUBLE_TILING_PROLOGUE;
    DOUBLE_TILING_ATTEMPTS(rs_attempt(spins, corner[0] + x + EDGE * (corner[1] + y + EDGE * (corner[2] + z)), 1,
                                      u.v[k], w.v[k], table));
}

/* Local and private memory: per tile the active sub-tile and its one-site
 * halo, a box of BOX^DIM sites; only the sub-tile is written back. */
#define BOX (SUB + 2)
#if DIM == 2
#define BOX_SITES (BOX * BOX)
#else
#define BOX_SITES (BOX * BOX * BOX)
#endif

#ifdef RS_LWG
inline uint double_tiling_index(uint pick)
{
    uint r = mul_hi(pick, (uint)SUB_SITES);
    return 1 + r % SUB + BOX * (1 + r / SUB % SUB + BOX * (DIM == 3 ? 1 + r / (SUB * SUB) : 0));
}
#define DOUBLE_TILING_UNIT(tile, a) (((tile) * SUB_SITES + (a)) / 4)

__kernel __attribute__((reqd_work_group_size(RS_LWG, 1, 1)))
void rsite_double_tiling_local(__global RS_SPIN *spins, uint seed_lo, uint seed_hi, uint sweep_lo, uint sweep_hi,
                               __global const uint *tables, uint phase, uint first_system)
{
    __local RS_SPIN boxes[RS_GROUP_TILES * BOX_SITES];
    __local uint plan[PLAN_WORDS];
    RS_WAVE_LOCALS
    uint lid = get_local_id(0), config = get_global_id(1), first = get_group_id(0) * RS_GROUP_TILES;
    spins += (size_t)config * SITES;
    clmc_philox_key key = {{seed_lo, seed_hi}};
    uint q = subtile_of(key, sweep_lo, sweep_hi, phase, first_system, config);
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
#if DIM == 2
#define INNER_SITES (INNER * INNER)
#define TILE_SITES (RS_TILE * RS_TILE)
#else
#define INNER_SITES (INNER * INNER * INNER)
#define TILE_SITES (RS_TILE * RS_TILE * RS_TILE)
#endif

/* The origin of segment g is floor(u RS_TILE / 2^32) of words 0, 1, 2 at
 * (0, g low, g high, purpose ORIGIN). */
inline void segment_origin(clmc_philox_key key, uint segment_lo, uint segment_hi, uint first_system, uint config,
                           uint *origin)
{
    clmc_philox_ctr r = clmc_random4(key, 0, segment_lo, segment_hi,
                                      CLMC_STREAM(RS_PURPOSE_ORIGIN, first_system + config));
    for (uint d = 0; d < 3; d++) origin[d] = mul_hi(r.v[d], (uint)RS_TILE);
}

/* Attempt a of step t draws word a % 4 at counter (tile ceil(TILE_ATTEMPTS /
 * 4) + a / 4, t low, t high, purpose); the site is r = floor(u INNER^DIM /
 * 2^32) of the interior, (1 + r mod INNER, 1 + floor(r / INNER) mod INNER,
 * 1 + floor(r / INNER^2)) from the tile's corner. */
/* The serial attempts of one tile and step, as the global-memory and
 * private-memory kernels make them: after the prologue (DEAD_BORDER_PROLOGUE:
 * tile, config, key, table, the tile's corner, streams), ATTEMPT runs for
 * each attempt in the order of its draws with the site (x, y, z) from the
 * tile's corner (interior: 1 .. INNER) and the words u.v[k], w.v[k]. */
#define DEAD_BORDER_PROLOGUE                                                                                    \
    uint tile = get_global_id(0), config = get_global_id(1);                                                    \
    if (tile >= TILE_COUNT) return;                                                                             \
    spins += (size_t)config * SITES;                                                                            \
    uint table[RS_TABLE];                                                                                       \
    load_table(tables, config, table);                                                                          \
    clmc_philox_key key = {{seed_lo, seed_hi}};                                                                 \
    uint origin[3], corner[3];                                                                                  \
    segment_origin(key, segment_lo, segment_hi, first_system, config, origin);                                                \
    tile_corner(tile, origin, corner);                                                                          \
    uint sites_stream = site_stream(first_system, config);                                                                  \
    uint accept_stream = CLMC_STREAM(RS_PURPOSE_ACCEPT, first_system + config)
#define DEAD_BORDER_ATTEMPTS(ATTEMPT)                                                                           \
    for (uint a = 0; a < TILE_ATTEMPTS; a += 4) {                                                               \
        uint unit = tile * ((TILE_ATTEMPTS + 3) / 4) + a / 4;                                                   \
        clmc_philox_ctr picks = clmc_random4(key, unit, step_lo, step_hi, sites_stream);                        \
        clmc_philox_ctr u = clmc_random4(key, unit, step_lo, step_hi, accept_stream);                           \
        clmc_philox_ctr w = proposals(key, unit, step_lo, step_hi, first_system, config);                                     \
        _Pragma("unroll") for (uint k = 0; k < 4 && a + k < TILE_ATTEMPTS; k++) {                               \
            uint r = mul_hi(picks.v[k], (uint)INNER_SITES);                                                     \
            uint x = 1 + r % INNER, y = 1 + r / INNER % INNER, z = DIM == 3 ? 1 + r / (INNER * INNER) : 0;      \
            ATTEMPT;                                                                                            \
        }                                                                                                       \
    }

__kernel void rsite_dead_border(__global RS_SPIN *spins, uint seed_lo, uint seed_hi, uint step_lo, uint step_hi,
                                __global const uint *tables, uint segment_lo, uint segment_hi, uint first_system)
{
    DEAD_BORDER_PROLOGUE;
    DEAD_BORDER_ATTEMPTS(rs_attempt(spins, wrapped_site(corner, x, y, z), 1, u.v[k], w.v[k], table));
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
void rsite_dead_border_local(__global RS_SPIN *spins, uint seed_lo, uint seed_hi, uint step_lo, uint step_hi,
                             __global const uint *tables, uint segment_lo, uint segment_hi, uint first_system)
{
    __local RS_SPIN boxes[RS_GROUP_TILES * TILE_SITES];
    __local uint plan[PLAN_WORDS];
    RS_WAVE_LOCALS
    uint lid = get_local_id(0), config = get_global_id(1), first = get_group_id(0) * RS_GROUP_TILES;
    spins += (size_t)config * SITES;
    clmc_philox_key key = {{seed_lo, seed_hi}};
    uint origin[3], corner[3];
    segment_origin(key, segment_lo, segment_hi, first_system, config, origin);
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

#ifdef RS_PRIVATE
#include "common/random_site_private.h"
#endif

#endif
