/* Temporal blocking (algorithm.sweeps_per_launch, docs/models/ising.md): several
 * sweeps of the naive or tiled layout per launch on a lattice too large for one
 * work-group.  Included by ising.cl with -DTEMPORAL_BLOCK.
 *
 * The lattice is cut into blocks of BLOCK^DIM sites (the last block of an axis
 * shorter when BLOCK does not divide L).  A work-group loads its block plus a
 * halo of BLOCK_HALO sites on every side (a box: BLOCK_ROW bytes per row, the
 * rows starting at a multiple of 8 in x so that octets of the box are the
 * lattice's Philox units; BLOCK_SPAN rows, and planes in 3D) from `src` into
 * local memory, makes the launch's P = count x (phases of a sweep) colour phases
 * there and writes the block's own sites to `dst`; blocks read one buffer and
 * write the other, so no block reads sites another has updated.
 *
 * Each phase invalidates one more layer: a site whose neighbours were all right
 * before the phase is right after it.  So phase p (0 .. P-1) updates, of its
 * colour, only the sites within distance P - 1 - p of the block (distance: the
 * sum over the axes of how far outside the block's range a coordinate lies, the
 * Manhattan distance to the block), which read neighbours within P - p: those
 * the previous phase left right, and the loaded box for p = 0 (BLOCK_HALO >= P).
 * The last phase updates the block alone.  The phases and the random numbers
 * (one draw per octet of a row, sweep and hit; the refinement draw per site) are
 * the ordinary kernels', keyed by global site, so the configurations are
 * bit-identical to them for every number of sweeps per launch and block size.
 *
 * Barriers sit between phases only, in loops whose trip counts (count, tile
 * colours, hits, colours) are the same in every work-item; every work-item of
 * the group reaches them (items loop over the box's octets). */
#define BOX_OCTETS_X (BLOCK_ROW / 8)
#define BLOCK_SPAN (BLOCK + 2 * BLOCK_HALO)
#if DIM == 2
#define BOX_PLANES 1
#else
#define BOX_PLANES BLOCK_SPAN
#endif
#define BOX_SITES (BLOCK_ROW * BLOCK_SPAN * BOX_PLANES)
#define BOX_UNITS (BOX_OCTETS_X * BLOCK_SPAN * BOX_PLANES)

/* Coordinate c (any int) on the periodic lattice. */
inline uint box_wrap(int c)
{
    int r = c % EDGE;
    return (uint)(r < 0 ? r + EDGE : r);
}

/* How far box coordinate l lies outside the block's range [start, start + extent). */
inline uint outside(uint l, uint start, uint extent)
{
    return l < start ? start - l : (l >= start + extent ? l - (start + extent - 1) : 0u);
}

/* The block of a work-group: the box's origin (x0 a multiple of 8, possibly
 * negative), the block's first box coordinate along x (ix; along y and z it is
 * BLOCK_HALO) and its extent along each axis. */
typedef struct {
    int x0, y0, z0;
    uint ix, ex, ey, ez;
} box_frame;

inline box_frame frame_of(uint group)
{
    box_frame f;
    uint bx = BLOCK * (group % BLOCKS_PER_EDGE), by = BLOCK * ((group / BLOCKS_PER_EDGE) % BLOCKS_PER_EDGE);
    int left = (int)bx - BLOCK_HALO;
    f.x0 = left - (((left % 8) + 8) % 8);
    f.y0 = (int)by - BLOCK_HALO;
    f.ix = (uint)((int)bx - f.x0);
    f.ex = min((uint)BLOCK, (uint)EDGE - bx);
    f.ey = min((uint)BLOCK, (uint)EDGE - by);
#if DIM == 3
    uint bz = BLOCK * (group / (BLOCKS_PER_EDGE * BLOCKS_PER_EDGE));
    f.z0 = (int)bz - BLOCK_HALO;
    f.ez = min((uint)BLOCK, (uint)EDGE - bz);
#else
    f.z0 = 0;
    f.ez = 1;
#endif
    return f;
}

/* Octet `unit` of the box: its first box coordinates and the global row. */
typedef struct {
    uint lx, ly, lz, gy, gz;
} box_octet;

inline box_octet octet_of(uint unit, const box_frame *f)
{
    box_octet o;
    o.lx = 8 * (unit % BOX_OCTETS_X);
    o.ly = (unit / BOX_OCTETS_X) % BLOCK_SPAN;
    o.lz = unit / (BOX_OCTETS_X * BLOCK_SPAN);
    o.gy = box_wrap(f->y0 + (int)o.ly);
#if DIM == 3
    o.gz = box_wrap(f->z0 + (int)o.lz);
#else
    o.gz = 0;
#endif
    return o;
}

/* Distance of an octet's row (or plane) from the block along y and z. */
inline uint row_outside(const box_octet *o, const box_frame *f)
{
#if DIM == 3
    return outside(o->ly, BLOCK_HALO, f->ey) + outside(o->lz, BLOCK_HALO, f->ez);
#else
    return outside(o->ly, BLOCK_HALO, f->ey);
#endif
}

inline uint box_index(uint lx, uint ly, uint lz)
{
    return lx + BLOCK_ROW * (ly + BLOCK_SPAN * lz);
}

/* One phase: the sites of parity `colour` in tiles of `tile_colour` within
 * distance `reach` of the block.  A work-item's last draw (unit, sweep, hit) is
 * kept: with one octet per item both colours of a hit use one draw. */
inline void box_phase(__local char *box, const box_frame *f, uint tile_colour, uint colour, uint reach,
                      const metropolis_stream *m, uint stream, uint *drawn_unit, clmc_philox_ctr *drawn)
{
    for (uint unit = get_local_id(0); unit < BOX_UNITS; unit += get_local_size(0)) {
        box_octet o = octet_of(unit, f);
        uint rows_out = row_outside(&o, f);
        if (rows_out > reach) continue;
        uint first_x = box_wrap(f->x0 + (int)o.lx);
        for (uint j = (first_x + o.gy + o.gz + colour) & 1u; j < 8; j += 2) {
            uint lx = o.lx + j;
            if (outside(lx, f->ix, f->ex) + rows_out > reach) continue;
            uint gx = box_wrap(f->x0 + (int)lx);
            if (layout_tile_colour(gx, o.gy, o.gz) != tile_colour) continue;
            uint draw_unit = octet_unit(gx, o.gy, o.gz);
            if (draw_unit != *drawn_unit) {
                *drawn = METROPOLIS_RANDOM4(m->key, draw_unit, m->sweep, m->hit, stream);
                *drawn_unit = draw_unit;
            }
            uint i = box_index(lx, o.ly, o.lz);
            int spin = box[i];
            int field = box[i - 1] + box[i + 1] + box[i - BLOCK_ROW] + box[i + BLOCK_ROW];
#if DIM == 3
            field += box[i - BLOCK_ROW * BLOCK_SPAN] + box[i + BLOCK_ROW * BLOCK_SPAN];
#endif
            uint aligned = (uint)(NEIGHBOURS + spin * field) / 2;
            if (metropolis_accept(aligned, clmc_chunk16(*drawn, gx & 7), gx + EDGE * (o.gy + EDGE * o.gz), m))
                box[i] = (char)-spin;
        }
    }
}

/* `count` sweeps from `first_sweep` (count x phases of a sweep <= BLOCK_HALO,
 * which the host keeps) of configuration get_group_id(1), block get_group_id(0). */
__kernel void ising_blocked_update(__global const char *src, __global char *dst, uint seed_lo, uint seed_hi,
                                   uint first_sweep, uint count, uint hits, __global const uint *thresholds,
                                   uint first_system)
{
    __local char box[BOX_SITES] __attribute__((aligned(8)));
    uint config = get_group_id(1);
    src += (size_t)config * SITES;
    dst += (size_t)config * SITES;
    box_frame f = frame_of(get_group_id(0));
    for (uint unit = get_local_id(0); unit < BOX_UNITS; unit += get_local_size(0)) {
        box_octet o = octet_of(unit, &f);
        __global const char *row = src + EDGE * (o.gy + EDGE * o.gz);
        uint first_x = box_wrap(f.x0 + (int)o.lx), i = box_index(o.lx, o.ly, o.lz);
#if EDGE % 8 == 0
        vstore8(vload8(0, row + first_x), 0, box + i); /* first_x is a multiple of 8 */
#else
        for (uint j = 0; j < 8; j++) box[i + j] = row[box_wrap(f.x0 + (int)(o.lx + j))];
#endif
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    metropolis_stream m = stream_of(seed_lo, seed_hi, first_sweep, config, first_system, thresholds + 3 * config);
    uint stream = CLMC_STREAM(CLMC_PURPOSE_METROPOLIS, first_system + config);
    /* Phase p: colour p % 2, hit p / 2 % hits, tile colour p / (2 hits) % tile colours, then the sweep. */
    uint phases = count * LAYOUT_TILE_COLOURS * hits * 2, drawn_unit = 0xFFFFFFFFu;
    clmc_philox_ctr drawn = {{0, 0, 0, 0}};
    for (uint phase = 0; phase < phases; phase++) {
        uint colour = phase & 1u, pair = phase >> 1, tile_colour = pair / hits % LAYOUT_TILE_COLOURS;
        m.hit = pair % hits;
        m.sweep = first_sweep + pair / (hits * LAYOUT_TILE_COLOURS);
        if (colour == 0) drawn_unit = 0xFFFFFFFFu; /* a new sweep or hit: new numbers */
        box_phase(box, &f, tile_colour, colour, phases - 1 - phase, &m, stream, &drawn_unit, &drawn);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (uint unit = get_local_id(0); unit < BOX_UNITS; unit += get_local_size(0)) {
        box_octet o = octet_of(unit, &f);
        if (row_outside(&o, &f) != 0) continue;
        __global char *row = dst + EDGE * (o.gy + EDGE * o.gz);
        uint first_x = box_wrap(f.x0 + (int)o.lx), i = box_index(o.lx, o.ly, o.lz);
#if EDGE % 8 == 0
        if (o.lx >= f.ix && o.lx + 8 <= f.ix + f.ex) {
            vstore8(vload8(0, box + i), 0, row + first_x);
            continue;
        }
#endif
        for (uint j = 0; j < 8; j++)
            if (outside(o.lx + j, f.ix, f.ex) == 0) row[box_wrap(f.x0 + (int)(o.lx + j))] = box[i + j];
    }
}
