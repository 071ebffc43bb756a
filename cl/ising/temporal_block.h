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

#ifdef TB_PLANES
/* The box in colour planes (TB_PLANES: EDGE and BLOCK multiples of 8,
 * layout naive, or tiled with tiles of a multiple of 8 in two tile colours,
 * a Philox generator): a word per octet of the box and parity, as the
 * resident update in planes keeps a configuration (octet_lanes), so a
 * phase's work-item updates a word's four sites at once (metropolis_word)
 * with the octet's draw.  The block's x range starts and ends at octet
 * boundaries.  A phase takes the words of rows within its reach; a word of
 * the halo may hold sites beyond the reach (Manhattan distance from the
 * block), which are updated too: a spin there may come out wrong (its
 * neighbours were), but what it changes spreads one site a phase and so
 * stays beyond the block for the phases left (the same holds for the box's
 * outermost sites, whose missing neighbours the words beside stand in for).
 * A phase's words are the box's (naive) or, tiled, those in tiles of the
 * phase's tile colour (a tile's octets share it), listed once per launch in
 * local memory (in any order: the words of a phase are independent).
 * Work-item k of BLOCK_ITEMS takes words k, k + BLOCK_ITEMS, ... of the
 * phase (TB_ROUNDS rounds at most, unrolled; the host bounds a tile colour's
 * words); with up to TB_KEEP rounds it keeps the colour-0 phase's draws for
 * the colour-1 phase of the same sweep and hit, whose words (one reach
 * less) are among them.  Same numbers, same order, so the same bits as the
 * per-site kernel below and the ordinary kernels. */
#ifdef TILE
#define PHASE_WORDS(tile_colour) listed[tile_colour]
#define PHASE_WORD(tile_colour, k) ((uint)words_of[(tile_colour) ? BOX_UNITS - 1 - (k) : (k)])
#else
#define PHASE_WORDS(tile_colour) BOX_UNITS
#define PHASE_WORD(tile_colour, k) (k)
#endif

/* Counts of up neighbours (lane-wise) of word `unit` of the box in the
 * other plane (other), its sites at first_offset (0|1) of their octet.  The
 * words beside a box row's ends stand in for the missing ones: only sites
 * beyond every phase's reach read them. */
inline uint box_up_neighbours(__local const uint *other, uint unit, uint first_offset)
{
    uint wx = unit % BOX_OCTETS_X, here = other[unit];
    uint prev = other[wx > 0 ? unit - 1 : unit], next = other[wx + 1 < BOX_OCTETS_X ? unit + 1 : unit];
    uint left = first_offset ? here : (here << 8) | (prev >> 24);
    uint right = first_offset ? (here >> 8) | (next << 24) : here;
    uint count = left + right + other[unit - BOX_OCTETS_X] + other[unit + BOX_OCTETS_X];
#if DIM == 3
    count += other[unit - BOX_OCTETS_X * BLOCK_SPAN] + other[unit + BOX_OCTETS_X * BLOCK_SPAN];
#endif
    return count;
}

/* Word `unit` of the box: its octet, its rows' distance from the block and
 * its Philox unit; whether the phase of reach `reach` takes it. */
inline bool box_word_place(uint unit, const box_frame *f, uint reach, box_octet *o, uint *rows_out, uint *octet)
{
    *o = octet_of(unit, f);
    *rows_out = row_outside(o, f);
    *octet = octet_unit(box_wrap(f->x0 + (int)o->lx), o->gy, o->gz);
    return *rows_out <= reach;
}

/* The phase's update of word `unit` (plane `colour`) with the octet's draw r. */
inline void box_word(__local uint *planes, const box_octet *o, uint unit, uint colour, uint octet, clmc_philox_ctr r,
                     const metropolis_stream *m)
{
    uint first_offset = (o->gy + o->gz + colour) & 1u;
    __local uint *own = planes + colour * BOX_UNITS + unit;
    *own = metropolis_word(*own, box_up_neighbours(planes + (1 - colour) * BOX_UNITS, unit, first_offset),
                           first_offset, r, 8 * octet, m);
}

__kernel __attribute__((reqd_work_group_size(BLOCK_ITEMS, 1, 1)))
void ising_blocked_update(__global const char *src, __global char *dst, uint seed_lo, uint seed_hi,
                          uint first_sweep, uint count, uint hits, __global const uint *thresholds,
                          uint first_system)
{
    __local uint planes[2 * BOX_UNITS];
#ifdef TILE
    __local ushort words_of[BOX_UNITS]; /* tile colour 0's words from the front, 1's from the back */
    __local uint listed[2];
#endif
    uint config = get_group_id(1), lid = get_local_id(0);
    src += (size_t)config * SITES;
    dst += (size_t)config * SITES;
    box_frame f = frame_of(get_group_id(0));
#ifdef TILE
    if (lid < 2) listed[lid] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
#endif
    for (uint unit = lid; unit < BOX_UNITS; unit += BLOCK_ITEMS) {
        box_octet o = octet_of(unit, &f);
        uint gx = box_wrap(f.x0 + (int)o.lx); /* a multiple of 8 */
        char8 s = vload8(0, src + EDGE * (o.gy + EDGE * o.gz) + gx);
        uint odd = (o.gy + o.gz) & 1u; /* parity 0 at odd positions */
        planes[unit] = octet_lanes(s, odd);
        planes[BOX_UNITS + unit] = octet_lanes(s, odd ^ 1u);
#ifdef TILE
        uint tile_colour = layout_tile_colour(gx, o.gy, o.gz);
        uint k = atomic_inc(&listed[tile_colour]);
        words_of[tile_colour ? BOX_UNITS - 1 - k : k] = (ushort)unit;
#endif
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    metropolis_stream m = stream_of(seed_lo, seed_hi, first_sweep, config, first_system, thresholds + 3 * config);
    uint stream = CLMC_STREAM(CLMC_PURPOSE_METROPOLIS, first_system + config);
    uint phases = count * LAYOUT_TILE_COLOURS * hits * 2;
#if TB_ROUNDS <= TB_KEEP
    clmc_philox_ctr kept[TB_ROUNDS]; /* the words' draws of this sweep, tile colour and hit */
#endif
    for (uint phase = 0; phase < phases; phase++) {
        uint colour = phase & 1u, pair = phase >> 1, tile_colour = pair / hits % LAYOUT_TILE_COLOURS;
        uint reach = phases - 1 - phase;
        m.hit = pair % hits;
        m.sweep = first_sweep + pair / (hits * LAYOUT_TILE_COLOURS);
        uint words = PHASE_WORDS(tile_colour);
        box_octet o;
        uint rows_out, octet;
#pragma unroll
        for (uint round = 0; round < TB_ROUNDS; round++) {
            uint k = round * BLOCK_ITEMS + lid;
            if (k >= words) continue;
            uint unit = PHASE_WORD(tile_colour, k);
            if (!box_word_place(unit, &f, reach, &o, &rows_out, &octet)) continue;
#if TB_ROUNDS <= TB_KEEP
            if (colour == 0) kept[round] = METROPOLIS_RANDOM4(m.key, octet, m.sweep, m.hit, stream);
            clmc_philox_ctr r = kept[round];
#else
            clmc_philox_ctr r = METROPOLIS_RANDOM4(m.key, octet, m.sweep, m.hit, stream);
#endif
            box_word(planes, &o, unit, colour, octet, r, &m);
        }
        /* Words past the host's bound of a tile colour's (none expected), drawn anew. */
        for (uint k = TB_ROUNDS * BLOCK_ITEMS + lid; k < words; k += BLOCK_ITEMS) {
            uint unit = PHASE_WORD(tile_colour, k);
            if (box_word_place(unit, &f, reach, &o, &rows_out, &octet))
                box_word(planes, &o, unit, colour, octet, METROPOLIS_RANDOM4(m.key, octet, m.sweep, m.hit, stream), &m);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (uint unit = lid; unit < BOX_UNITS; unit += BLOCK_ITEMS) {
        box_octet o = octet_of(unit, &f);
        if (row_outside(&o, &f) != 0 || outside(o.lx, f.ix, f.ex) != 0) continue; /* octets wholly in or out */
        uint odd = (o.gy + o.gz) & 1u, zero = planes[unit], one = planes[BOX_UNITS + unit];
        vstore8(odd ? lanes_octet(one, zero) : lanes_octet(zero, one), 0,
                dst + EDGE * (o.gy + EDGE * o.gz) + box_wrap(f.x0 + (int)o.lx));
    }
}
#else
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
#endif /* TB_PLANES */
