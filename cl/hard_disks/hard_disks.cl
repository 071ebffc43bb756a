/* Hard disks by massively parallel Monte Carlo (Anderson et al. 2013,
 * Algorithms 2-4): particle positions live in the cell list itself, in
 * cell-local coordinates (0, w] x (0, w], at most 4 per cell (w < sqrt 2,
 * diameter 1); empty slots hold a far-away sentinel.
 *
 * Defines: CELLS (cells per side m, even), FUSE_BLOCKS (the tile side of
 * disks_shift_subsweep, in blocks of 2 x 2 cells), SLOTS (4; 8 when disks may stray
 * `margin` beyond their cell: the seed's pitfall 1), MOVES (n_M trial moves
 * per active cell), SHUFFLE_PARTICLES (0 reproduces the seed's pitfall 2),
 * REPRODUCIBLE (IEEE-exact arithmetic and common/repro_math.h's sqrt and
 * sincos: the same bits on every device).
 *
 * Systems (ensemble.type "independent", docs/ensembles.md): every kernel runs
 * over an NDRange whose second dimension is the system s; system s owns the
 * blocks s CELLS^2 SLOTS of the slots and s CELLS^2 of the counts and move
 * tallies (and s bins of the pair histograms), and draws every random number
 * with the purpose word CLMC_STREAM(purpose, first_system + s), so it is
 * the same, bit for bit, as a run of that one system alone with
 * ensemble.first_system = first_system + s (first_system: the last argument
 * of disks_subsweep, the kernel that draws; cl/common/philox.h).
 *
 * Layout (seed's Algorithm 3): slot i of cell (x, y) is at (i m + y) m + q
 * with q = x / 2 for even x and m / 2 + x / 2 for odd x, so the active cells
 * of a sub-sweep (every other x) and the reads of one slot are contiguous.
 *
 * Random numbers: cell unit = y m + x; per sweep one draw for the particle
 * shuffle (CLMC_PURPOSE_DISK_SHUFFLE) and one draw per two trial moves
 * (CLMC_PURPOSE_DISK_MOVE, hit = move / 2).  A cell is active once per sweep,
 * so (cell, sweep, hit, purpose) names every number once.  The sweep's plan
 * (order of the four sets, shift axis, direction and distance) is drawn on
 * the host (units 0, hits 0 and 1 of CLMC_PURPOSE_DISK_SWEEP, per system)
 * for a block of sweeps ahead; plans[slot * systems + s] is system s's plan
 * of the sweep in that slot of the block: x = the order, 2 bits a set
 * (first set lowest), bit 8 the axis, bit 9 set when the disks move towards
 * minus (direction +1); y = the bits of delta, the float displacement. */
#ifdef REPRODUCIBLE
#include "common/repro_math.h" /* first: FP contraction off for everything below */
#endif
#include "common/philox.h"

#define HALF (CELLS / 2)
#define SENTINEL ((float2)(-10.0f, -10.0f))
#define SYSTEM ((uint)get_global_id(1))
#define SYSTEM_CELLS ((size_t)CELLS * CELLS)
#define STREAM(purpose) CLMC_STREAM(purpose, first_system + SYSTEM)

inline uint slot_index(uint x, uint y, uint slot)
{
    uint q = (x & 1u) * HALF + (x >> 1);
    return (slot * CELLS + y) * CELLS + q;
}

inline uint wrap(int c)
{
    return (uint)((c + CELLS) % CELLS);
}

inline float unit_float(uint bits)
{
    return (float)(bits >> 8) * (1.0f / 16777216.0f); /* [0, 1) in 24 bits */
}

/* This work-item's system's plan of the sweep in block slot `slot`. */
inline uint2 plan_of(__global const uint2 *plans, uint slot)
{
    return plans[(size_t)slot * get_global_size(1) + SYSTEM];
}

/* (0, w] x (0, w], widened by margin on every side (margin 0 but for pitfall 1). */
inline bool inside_cell(float2 p, float width, float margin)
{
    return p.x > -margin && p.x <= width + margin && p.y > -margin && p.y <= width + margin;
}

/* p[index] and p[index] = value by unrolled selects, so that the cell's
 * slots stay in registers (a computed index would put them in memory). */
inline float2 slot_get(const float2 *p, uint index)
{
    float2 value = SENTINEL;
    for (uint j = 0; j < SLOTS; j++)
        if (j == index) value = p[j];
    return value;
}

inline void slot_set(float2 *p, uint index, float2 value)
{
    for (uint j = 0; j < SLOTS; j++)
        if (j == index) p[j] = value;
}

/* Fisher-Yates over the first n entries: one 32-bit word per step (a second
 * draw for n > 5, which only pitfall 1's wider cells reach). */
inline void shuffle_particles(float2 *p, uint n, clmc_philox_ctr r, clmc_philox_ctr more)
{
    for (uint k = SLOTS; k > 1; k--) {
        if (k > n) continue;
        uint word = k - 2 < 4 ? r.v[k - 2] : more.v[(k - 2) & 3u];
        uint j = (uint)(((ulong)word * k) >> 32);
        float2 last = p[k - 1];
        p[k - 1] = slot_get(p, j);
        slot_set(p, j, last);
    }
}

/* The 8 neighbouring cells' slots, translated into this cell's coordinates. */
inline void load_neighbours(__global const float2 *disk, uint x, uint y, float width, float2 *neighbour)
{
    uint k = 0;
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
            if (dx == 0 && dy == 0) continue;
            uint nx = wrap((int)x + dx), ny = wrap((int)y + dy);
            float2 shift = (float2)((float)dx * width, (float)dy * width);
            for (uint i = 0; i < SLOTS; i++) neighbour[k++] = disk[slot_index(nx, ny, i)] + shift;
        }
}

/* |r|^2: reproducible mode sums in the written order, products unfused. */
inline float squared_length(float2 r)
{
#ifdef REPRODUCIBLE
    return r.x * r.x + r.y * r.y;
#else
    return dot(r, r);
#endif
}

inline bool overlaps(float2 trial, const float2 *own, uint moving, const float2 *neighbour)
{
    bool hit = false;
    for (uint j = 0; j < SLOTS; j++) {
        float2 r = trial - own[j];
        hit |= j != moving && squared_length(r) < 1.0f;
    }
    for (uint j = 0; j < 8 * SLOTS; j++) {
        float2 r = trial - neighbour[j];
        hit |= squared_length(r) < 1.0f;
    }
    return hit;
}

/* Cell (x, y)'s sub-sweep move (Algorithm 2) on its n disks `own` (n > 0)
 * among the neighbours' slots: the shuffle, then n_M trial moves; returns
 * the accepted ones. */
inline uint update_cell(float2 *own, uint n, const float2 *neighbour, uint x, uint y, float width, float margin,
                        float max_displacement, clmc_philox_key key, uint sweep, uint first_system)
{
    uint unit = y * CELLS + x;
    if (SHUFFLE_PARTICLES)
        shuffle_particles(own, n, clmc_random4(key, unit, sweep, 0, STREAM(CLMC_PURPOSE_DISK_SHUFFLE)),
                          n > 5 ? clmc_random4(key, unit, sweep, 1, STREAM(CLMC_PURPOSE_DISK_SHUFFLE))
                                : (clmc_philox_ctr){{0, 0, 0, 0}});
    uint accepted = 0, moving = 0;
    clmc_philox_ctr r;
    for (uint move = 0; move < MOVES; move++) {
        if ((move & 1u) == 0) r = clmc_random4(key, unit, sweep, move >> 1, STREAM(CLMC_PURPOSE_DISK_MOVE));
        uint pair = (move & 1u) * 2;
#ifdef REPRODUCIBLE
        float radius = max_displacement * repro_sqrt(unit_float(r.v[pair]));
        float cosine, sine = repro_sincos_turns(unit_float(r.v[pair + 1]), &cosine);
#else
        float radius = max_displacement * sqrt(unit_float(r.v[pair]));
        float angle = 6.28318530717958648f * unit_float(r.v[pair + 1]);
        float cosine, sine = sincos(angle, &cosine);
#endif
        float2 trial = slot_get(own, moving) + radius * (float2)(cosine, sine);
        if (inside_cell(trial, width, margin) && !overlaps(trial, own, moving, neighbour)) {
            slot_set(own, moving, trial);
            accepted++;
        }
        moving = moving + 1 == n ? 0 : moving + 1;
    }
    return accepted;
}

/* One sub-sweep (Algorithm 2), the `position`-th set of the sweep's plan:
 * one work-item per cell of the set whose lower-left cell is (set & 1,
 * set >> 1), per system.  move_tally[cell] receives
 * the accepted moves, plus 1 << 16 when the cell made trial moves. */
__kernel void disks_subsweep(__global float2 *disk, __global const uint *count, __global uint *move_tally,
                             float width, float margin, float max_displacement, uint seed_lo, uint seed_hi,
                             uint sweep, uint position, __global const uint2 *plans, uint plan_slot,
                             uint first_system)
{
    uint item = get_global_id(0);
    if (item >= HALF * HALF) return;
    disk += SYSTEM * SYSTEM_CELLS * SLOTS;
    count += SYSTEM * SYSTEM_CELLS;
    move_tally += SYSTEM * SYSTEM_CELLS;
    uint set = (plan_of(plans, plan_slot).x >> (2 * position)) & 3u;
    uint x = 2 * (item % HALF) + (set & 1u), y = 2 * (item / HALF) + (set >> 1);
    uint cell = slot_index(x, y, 0), n = count[cell];
    if (n == 0) {
        move_tally[cell] = 0;
        return;
    }
    clmc_philox_key key = {{seed_lo, seed_hi}};
    float2 own[SLOTS], neighbour[8 * SLOTS];
    for (uint i = 0; i < SLOTS; i++) own[i] = disk[slot_index(x, y, i)];
    load_neighbours(disk, x, y, width, neighbour);
    uint accepted = update_cell(own, n, neighbour, x, y, width, margin, max_displacement, key, sweep, first_system);
    for (uint i = 0; i < SLOTS; i++) disk[slot_index(x, y, i)] = own[i];
    move_tally[cell] = accepted | (1u << 16);
}

inline float along(float2 p, uint axis)
{
    return axis ? p.y : p.x;
}

inline float2 with_along(float2 p, uint axis, float value)
{
    if (axis) p.y = value;
    else p.x = value;
    return p;
}

/* Cell shift (Algorithm 4), per system: every particle moves by the plan's
 * `delta` along its `axis` (the cells move by -delta; direction = the sign
 * of -delta, +1 or -1).
 * New cell (x, y) keeps its own particles that stay and takes those that
 * leave the neighbour in `direction`.  Both work-items decide a particle's
 * membership from the same float sum p + delta and the same predicate, so
 * it lands in exactly one cell; only then is the neighbour's coordinate
 * translation applied.  A disk can only leave through the edge it moves
 * towards, so the predicate looks at that edge alone (for disks inside
 * their cell the same as testing (0, w]; with pitfall 1's margin a disk
 * beyond the other edge stays).  Writes into the second buffer (the first
 * is still being read). */
inline bool stays(float moved, float width, int direction)
{
    return direction > 0 ? moved > 0.0f : moved <= width;
}

/* New cell (x, y) after the shift of the sweep in `plan`, from the old
 * cells: its slots into gathered (the rest the sentinel), its count
 * returned, and the disks that find no slot added to *lost.  Loops of SLOTS
 * steps and slot_set, so that gathered stays in registers (a stored count
 * above SLOTS, the guard's business, reads SLOTS slots). */
inline uint shifted_cell(__global const float2 *disk, __global const uint *count, uint x, uint y, float width,
                         uint2 plan, float2 *gathered, uint *lost)
{
    float delta = as_float(plan.y);
    uint axis = (plan.x >> 8) & 1u;
    int direction = (plan.x >> 9) & 1u ? 1 : -1;
    uint nx = axis ? x : wrap((int)x + direction), ny = axis ? wrap((int)y + direction) : y;
    /* every slot loaded with the counts, not after them (no chain of loads) */
    float2 here[SLOTS], there[SLOTS];
    for (uint i = 0; i < SLOTS; i++) here[i] = disk[slot_index(x, y, i)];
    for (uint i = 0; i < SLOTS; i++) there[i] = disk[slot_index(nx, ny, i)];
    uint n_here = count[slot_index(x, y, 0)], n_there = count[slot_index(nx, ny, 0)];
    for (uint i = 0; i < SLOTS; i++) gathered[i] = SENTINEL;
    uint n_new = 0;
    for (uint i = 0; i < SLOTS; i++) {
        if (i >= n_here) continue;
        float2 p = here[i];
        float moved = along(p, axis) + delta;
        if (stays(moved, width, direction)) slot_set(gathered, n_new++, with_along(p, axis, moved));
    }
    for (uint i = 0; i < SLOTS; i++) {
        if (i >= n_there) continue;
        float2 p = there[i];
        float moved = along(p, axis) + delta;
        if (stays(moved, width, direction)) continue; /* stays in the neighbour */
        if (n_new == SLOTS) {
            ++*lost;
            continue;
        }
        slot_set(gathered, n_new++, with_along(p, axis, moved + (float)direction * width));
    }
    return n_new;
}

__kernel void disks_shift(__global const float2 *disk, __global const uint *count, __global float2 *disk_next,
                          __global uint *count_next, __global uint *overflow, float width,
                          __global const uint2 *plans, uint plan_slot)
{
    uint item = get_global_id(0);
    if (item >= CELLS * CELLS) return;
    disk += SYSTEM * SYSTEM_CELLS * SLOTS;
    count += SYSTEM * SYSTEM_CELLS;
    disk_next += SYSTEM * SYSTEM_CELLS * SLOTS;
    count_next += SYSTEM * SYSTEM_CELLS;
    uint x = item % CELLS, y = item / CELLS, lost = 0;
    float2 gathered[SLOTS];
    uint n_new = shifted_cell(disk, count, x, y, width, plan_of(plans, plan_slot), gathered, &lost);
    for (uint i = 0; i < SLOTS; i++) disk_next[slot_index(x, y, i)] = gathered[i];
    count_next[slot_index(x, y, 0)] = n_new;
    if (lost) atomic_add(overflow, lost);
}

/* The cell shift of one sweep (block slot shift_slot) and the first
 * sub-sweep of the next (`sweep`, block slot plan_slot) in one launch, the
 * same bits as disks_shift, then disks_subsweep at position 0, into the
 * second buffer.  A work-group takes a tile of FUSE_BLOCKS x FUSE_BLOCKS
 * blocks of 2 x 2 cells (work-item l the block l % FUSE_BLOCKS, l /
 * FUSE_BLOCKS of it), each block holding one cell of the sub-sweep's set.
 * First the group makes the new slots of FUSE_SPAN x FUSE_SPAN cells, its
 * tile and the ring of cells around it that the set's cells see, into local
 * memory (shifted_cell, each cell's overflow counted by the tile that owns
 * it); then each work-item moves the disks of its block's set cell among
 * its 8 neighbours there (update_cell, as disks_subsweep) and writes its
 * block's four cells.  Work-items past the last block (HALF not a multiple
 * of FUSE_BLOCKS) make region cells but write nothing. */
#define FUSE_ITEMS (FUSE_BLOCKS * FUSE_BLOCKS)
#define FUSE_SPAN (2u * FUSE_BLOCKS + 1u)
#define FUSE_CELLS (FUSE_SPAN * FUSE_SPAN)
__kernel __attribute__((reqd_work_group_size(FUSE_ITEMS, 1, 1)))
void disks_shift_subsweep(__global const float2 *disk, __global const uint *count, __global float2 *disk_next,
                          __global uint *count_next, __global uint *overflow, __global uint *move_tally, float width,
                          float margin, float max_displacement, uint seed_lo, uint seed_hi, uint sweep,
                          __global const uint2 *plans, uint shift_slot, uint plan_slot, uint first_system)
{
    __local float2 region[FUSE_CELLS * SLOTS];
    __local uint region_count[FUSE_CELLS];
    disk += SYSTEM * SYSTEM_CELLS * SLOTS;
    count += SYSTEM * SYSTEM_CELLS;
    disk_next += SYSTEM * SYSTEM_CELLS * SLOTS;
    count_next += SYSTEM * SYSTEM_CELLS;
    move_tally += SYSTEM * SYSTEM_CELLS;
    uint l = get_local_id(0), tiles = (HALF + FUSE_BLOCKS - 1) / FUSE_BLOCKS, tile = get_group_id(0);
    uint bx0 = tile % tiles * FUSE_BLOCKS, by0 = tile / tiles * FUSE_BLOCKS;
    uint2 shift = plan_of(plans, shift_slot);
    uint set = plan_of(plans, plan_slot).x & 3u, sx = set & 1u, sy = set >> 1;
    /* region cell c is (rx + c % FUSE_SPAN, ry + c / FUSE_SPAN) */
    int rx = (int)(2 * bx0 + sx) - 1, ry = (int)(2 * by0 + sy) - 1;
    int tile_x_end = (int)(2 * min(bx0 + FUSE_BLOCKS, (uint)HALF));
    int tile_y_end = (int)(2 * min(by0 + FUSE_BLOCKS, (uint)HALF));
    uint lost = 0;
#pragma unroll
    for (uint round = 0; round < (FUSE_CELLS + FUSE_ITEMS - 1) / FUSE_ITEMS; round++) { /* no barrier in it */
        uint c = l + round * FUSE_ITEMS;
        if (c >= FUSE_CELLS) continue;
        int cx = rx + (int)(c % FUSE_SPAN), cy = ry + (int)(c / FUSE_SPAN);
        float2 cell[SLOTS];
        uint cell_lost = 0;
        region_count[c] = shifted_cell(disk, count, wrap(cx), wrap(cy), width, shift, cell, &cell_lost);
        for (uint i = 0; i < SLOTS; i++) region[c * SLOTS + i] = cell[i];
        bool owned = cx >= (int)(2 * bx0) && cx < tile_x_end && cy >= (int)(2 * by0) && cy < tile_y_end;
        if (owned) lost += cell_lost;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    uint bx = bx0 + l % FUSE_BLOCKS, by = by0 + l / FUSE_BLOCKS;
    if (bx < HALF && by < HALF) {
        uint ax = 2 * (l % FUSE_BLOCKS) + 1, ay = 2 * (l / FUSE_BLOCKS) + 1, a = ay * FUSE_SPAN + ax;
        uint x = 2 * bx + sx, y = 2 * by + sy, cell = slot_index(x, y, 0), n = region_count[a];
        float2 own[SLOTS];
        for (uint i = 0; i < SLOTS; i++) own[i] = region[a * SLOTS + i];
        if (n > 0) {
            float2 neighbour[8 * SLOTS];
            uint k = 0;
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) {
                    if (dx == 0 && dy == 0) continue;
                    uint b = (uint)((int)a + dy * (int)FUSE_SPAN + dx);
                    float2 translation = (float2)((float)dx * width, (float)dy * width); /* load_neighbours' */
                    for (uint i = 0; i < SLOTS; i++) neighbour[k++] = region[b * SLOTS + i] + translation;
                }
            clmc_philox_key key = {{seed_lo, seed_hi}};
            uint accepted = update_cell(own, n, neighbour, x, y, width, margin, max_displacement, key, sweep,
                                        first_system);
            move_tally[cell] = accepted | (1u << 16);
        } else {
            move_tally[cell] = 0;
        }
        for (uint j = 0; j < 4; j++) { /* the block's cells: region cell (cx - rx, cy - ry) */
            uint ox = j & 1u, oy = j >> 1, cx = 2 * bx + ox, cy = 2 * by + oy;
            uint b = (ay + oy - sy) * FUSE_SPAN + ax + ox - sx;
            bool moved = ox == sx && oy == sy;
            for (uint i = 0; i < SLOTS; i++) disk_next[slot_index(cx, cy, i)] = moved ? own[i] : region[b * SLOTS + i];
            count_next[slot_index(cx, cy, 0)] = region_count[b];
        }
    }
    if (lost) atomic_add(overflow, lost);
}

/* The run's guard: work-item k of a system checks the cells k, k + items,
 * k + 2 items, ... in storage order (count <= SLOTS, positions of the first
 * count slots finite and in their cell, the other slots the sentinel) and
 * adds its disks and its broken slots or cells to the system's totals[2 s]
 * and totals[2 s + 1]: one atomic per item. */
__kernel void disks_guard(__global const float2 *disk, __global const uint *count, float width, float margin,
                          uint items, __global uint *totals)
{
    uint item = get_global_id(0);
    if (item >= items) return;
    disk += SYSTEM * SYSTEM_CELLS * SLOTS;
    count += SYSTEM * SYSTEM_CELLS;
    totals += 2 * SYSTEM;
    uint disks = 0, broken = 0;
    for (uint cell = item; cell < CELLS * CELLS; cell += items) {
        uint n = count[cell];
        broken += n > SLOTS;
        disks += min(n, (uint)SLOTS);
        for (uint i = 0; i < SLOTS; i++) {
            float2 p = disk[i * CELLS * CELLS + cell];
            bool ok = i < n ? isfinite(p.x) && isfinite(p.y) && inside_cell(p, width, margin)
                            : p.x == SENTINEL.x && p.y == SENTINEL.y;
            broken += !ok;
        }
    }
    if (disks) atomic_add(&totals[0], disks);
    if (broken) atomic_add(&totals[1], broken);
}

/* The pressure's pair-distance histogram (hard_disks_pressure.c builds the
 * same one on the host, bit for bit), system s's into histogram + s bins:
 * one work-item per cell, each ordered
 * pair of its disks with the disks of the 9 cells around counted once in
 * bin k, edge2[k] <= r^2 < edge2[k + 1] (squared bin edges, float).  r^2 in
 * float by separate operations (no contraction into fma), as on the host. */
__kernel void disks_pair_histogram(__global const float2 *disk, __global const uint *count, float width,
                                   __global const float *edge2, uint bins, __global uint *histogram)
{
#pragma OPENCL FP_CONTRACT OFF
    uint item = get_global_id(0);
    if (item >= CELLS * CELLS) return;
    disk += SYSTEM * SYSTEM_CELLS * SLOTS;
    count += SYSTEM * SYSTEM_CELLS;
    histogram += SYSTEM * bins;
    /* Counts clamped to SLOTS: a broken count (the guard's business) must not read past the cells. */
    uint x = item % CELLS, y = item / CELLS, n = min(count[slot_index(x, y, 0)], (uint)SLOTS);
    float low = edge2[0], high = edge2[bins];
    for (uint a = 0; a < n; a++) {
        float2 p = disk[slot_index(x, y, a)];
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
                uint nx = wrap((int)x + dx), ny = wrap((int)y + dy), nn = min(count[slot_index(nx, ny, 0)], (uint)SLOTS);
                float shift_x = (float)dx * width, shift_y = (float)dy * width;
                for (uint b = 0; b < nn; b++) {
                    if (dx == 0 && dy == 0 && a == b) continue;
                    float2 q = disk[slot_index(nx, ny, b)];
                    float rx = (q.x + shift_x) - p.x, ry = (q.y + shift_y) - p.y;
                    float xx = rx * rx, yy = ry * ry;
                    float r2 = xx + yy;
                    if (!(r2 >= low && r2 < high)) continue;
                    uint lo = 0, hi = bins; /* edge2[lo] <= r2 < edge2[hi] */
                    while (hi - lo > 1) {
                        uint mid = (lo + hi) / 2;
                        if (r2 >= edge2[mid]) lo = mid;
                        else hi = mid;
                    }
                    atomic_inc(&histogram[lo]);
                }
            }
    }
}
