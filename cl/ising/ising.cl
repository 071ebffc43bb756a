/* Ising ferromagnet: single-spin Metropolis on the global checkerboard (naive)
 * and on the double checkerboard with multi-hit tiles in local memory (tiled),
 * plus initialisation and exact integer energy/magnetisation reductions.
 *
 * Several configurations (tempering slots) are stored one after another; the
 * second NDRange dimension is the configuration, which also selects its
 * Metropolis thresholds and its random streams.
 *
 * Defines: DIM (2|3), EDGE (L), MEASURE_WG; for the tiled kernel TILE (tile
 * edge), ITEM_WIDTH (sites per work-item along x: 8, 4 or 2, the largest that
 * divides TILE), TILES_PER_EDGE, TILE_COLOURS (2, or 3 when TILES_PER_EDGE is
 * odd).  Spins in global memory are chars +-1, row-major, x fastest.
 *
 * Domain decomposition over MPI ranks (docs/mpi.md; tiled kernel) defines
 * SLAB and FIRST_LAYER: this rank stores the SLAB layers (rows y in 2D, planes
 * z in 3D) from global layer FIRST_LAYER after one halo layer (global
 * FIRST_LAYER - 1) and before another (FIRST_LAYER + SLAB), which the host
 * refreshes from the neighbouring ranks after every tile colour; the tiles are
 * those of the slab (SLAB a multiple of TILE), random numbers and the start
 * are drawn by global site, so the slab evolves as on one device.  The update
 * kernel then takes the first work-group's tile number (first_group), so that
 * the host can update the slab's two boundary rows of tiles first. */
#include "common/philox.h"
#include "common/reduce.h"

/* algorithm.rng (docs/rng.md): without RNG_* defines the Metropolis numbers come
 * from Philox4x32-10 as below.  RNG_PHILOX7 swaps in the 7-round Philox with the
 * same counters; RNG_STATEFUL (with the generator's defines, common/rng_streams.h)
 * draws one full 32-bit word per site update from streams in device memory:
 * per-stream generators one stream per pair of sites (x, x + 1), x even, in both
 * layouts; lagged Fibonacci one ring per LAGFIB_BATCH work-items (naive) or per
 * tile (tiled).  Initial spins always come from Philox4x32-10. */
#include "ising/ising_rng.h"

#define OCTETS_PER_ROW ((EDGE + 7) / 8)
#if DIM == 2
#define SITES ((uint)EDGE * EDGE)
#define NEIGHBOURS 4
#define LAYER_SITES ((uint)EDGE)
#else
#define SITES ((uint)EDGE * EDGE * EDGE)
#define NEIGHBOURS 6
#define LAYER_SITES ((uint)EDGE * EDGE)
#endif
#ifdef SLAB
#define STORED_SITES (((uint)SLAB + 2) * LAYER_SITES) /* per configuration, halos included */
#define OWNED_SITES ((uint)SLAB * LAYER_SITES)
#define HALO_SITES LAYER_SITES
#else
#define FIRST_LAYER 0
#define STORED_SITES SITES
#define OWNED_SITES SITES
#define HALO_SITES 0u
#endif

/* Random numbers: one Philox draw per octet of eight consecutive x in a row
 * (unit), per sweep and hit; site x takes 16-bit chunk x % 8.  So every site
 * draws the same number whatever the kernel or work-group layout. */
inline uint octet_unit(uint x, uint y, uint z)
{
    return (x >> 3) + OCTETS_PER_ROW * (y + EDGE * z);
}

typedef struct {
    clmc_philox_key key;
    uint sweep, hit, system; /* system: run-wide index (first_system + config) */
    uint thresholds[3]; /* floor(exp(-beta dE) 2^32) for dE = 4, 8, 12 */
    uint high[3];       /* their high halves, in place: thresholds & 0xFFFF0000 */
} metropolis_stream;

/* Metropolis test for a spin with `aligned` of its neighbours parallel to it:
 * dE = 4 (aligned - NEIGHBOURS/2).  The decision equals r32 < threshold for a
 * 32-bit uniform r32 whose high half is `r16`; the low half is drawn (purpose
 * REFINE, indexed by site) only in the rare case the high halves tie.  Integer
 * comparisons keep devices bit-identical. */
inline bool metropolis_accept(uint aligned, uint r16, uint site, const metropolis_stream *m)
{
    if (aligned <= NEIGHBOURS / 2) return true;
    uint excess = aligned - NEIGHBOURS / 2;
    uint threshold = excess == 1 ? m->thresholds[0] : (excess == 2 ? m->thresholds[1] : m->thresholds[2]);
    uint high = threshold >> 16;
    if (r16 != high) return r16 < high;
    clmc_philox_ctr low = METROPOLIS_RANDOM4(m->key, site, m->sweep, m->hit, CLMC_STREAM(CLMC_PURPOSE_REFINE, m->system));
    return (low.v[0] & 0xFFFFu) < (threshold & 0xFFFFu);
}

inline uint wrap(int coordinate)
{
    return (uint)((coordinate + EDGE) % EDGE);
}

/* Stored index of site (x, y, z), x in range: the last axis (y in 2D, z in
 * 3D) periodic on the whole lattice, into the halo layers on a slab. */
inline uint stored_site(uint x, int y, int z)
{
#if DIM == 2
#ifdef SLAB
    return x + EDGE * (uint)(y - FIRST_LAYER + 1);
#else
    return x + EDGE * wrap(y);
#endif
#else
#ifdef SLAB
    return x + EDGE * (wrap(y) + EDGE * (uint)(z - FIRST_LAYER + 1));
#else
    return x + EDGE * (wrap(y) + EDGE * wrap(z));
#endif
#endif
}

/* One step along the last axis from stored coordinate c. */
inline uint step_last(uint c, int step)
{
#ifdef SLAB
    return (uint)((int)c + step);
#else
    return wrap((int)c + step);
#endif
}

/* The stream state for the updates of configuration `config`, whose thresholds are t[0 .. 2]. */
inline metropolis_stream stream_of(uint seed_lo, uint seed_hi, uint sweep, uint config, uint first_system,
                                   __global const uint *t)
{
    metropolis_stream m = {{{seed_lo, seed_hi}}, sweep, 0, first_system + config, {t[0], t[1], t[2]},
                           {t[0] & 0xFFFF0000u, t[1] & 0xFFFF0000u, t[2] & 0xFFFF0000u}};
    return m;
}

#ifdef RNG_STATEFUL
/* Metropolis test with a full 32-bit uniform word from a stateful stream. */
inline bool accept_word(uint aligned, uint word, const metropolis_stream *m)
{
    if (aligned <= NEIGHBOURS / 2) return true;
    uint excess = aligned - NEIGHBOURS / 2;
    return word < (excess == 1 ? m->thresholds[0] : (excess == 2 ? m->thresholds[1] : m->thresholds[2]));
}

/* The naive kernel's word for work-item `item` (site pair item) in the launch of
 * `colour`; items past the last pair only advance lagged Fibonacci rings. */
inline uint naive_draw(__global uint *rng_states, uint item, uint config, uint sweep, uint colour)
{
#ifndef RNG_LAGFIB
    if (item >= RNG_STREAMS) return 0;
#endif
    return rng_draw_unit(rng_states, config, item, 2ul * sweep + colour);
}
#endif

/* run: the counter's hit word (0 but for the independent runs of population
 * annealing, ensemble.runs). */
__kernel void ising_init(__global char *spins, uint seed_lo, uint seed_hi, uint ordered, uint run, uint first_system)
{
    uint site = get_global_id(0), config = get_global_id(1);
    if (site >= STORED_SITES) return;
    spins += (size_t)config * STORED_SITES;
    if (ordered) {
        spins[site] = 1;
        return;
    }
    /* The global row of stored row site / EDGE (halo rows included). */
    uint x = site % EDGE, rows = SITES / EDGE;
    uint row = (site / EDGE + (uint)FIRST_LAYER * (LAYER_SITES / EDGE) + rows - HALO_SITES / EDGE) % rows;
    clmc_philox_key key = {{seed_lo, seed_hi}};
    clmc_philox_ctr r = clmc_random4(key, (x >> 3) + OCTETS_PER_ROW * row, 0, run,
                                     CLMC_STREAM(CLMC_PURPOSE_INIT, first_system + config));
    spins[site] = (clmc_chunk16(r, x & 7) >> 15) ? 1 : -1;
}

/* One work-item per site of fine colour `colour`, global memory only. */
__kernel void ising_naive_update(__global char *spins, uint seed_lo, uint seed_hi, uint sweep,
                                 uint colour, __global const uint *thresholds
#ifdef RNG_STATEFUL
                                 , __global uint *rng_states
#endif
                                 , uint first_system)
{
    uint item = get_global_id(0), config = get_global_id(1);
#ifdef RNG_STATEFUL
    uint word = naive_draw(rng_states, item, config, sweep, colour); /* also by items past the sites */
#endif
    if (item >= SITES / 2) return;
    spins += (size_t)config * SITES;
    uint row = item / (EDGE / 2);
    uint y = row % EDGE, z = row / EDGE;
    uint x = 2 * (item % (EDGE / 2)) + ((y + z + colour) & 1);
    uint site = x + EDGE * row;
    int spin = spins[site];
    int field = spins[wrap((int)x - 1) + EDGE * row] + spins[wrap((int)x + 1) + EDGE * row]
              + spins[x + EDGE * (wrap((int)y - 1) + EDGE * z)]
              + spins[x + EDGE * (wrap((int)y + 1) + EDGE * z)];
#if DIM == 3
    field += spins[x + EDGE * (y + EDGE * wrap((int)z - 1))]
           + spins[x + EDGE * (y + EDGE * wrap((int)z + 1))];
#endif
    metropolis_stream m = stream_of(seed_lo, seed_hi, sweep, config, first_system, thresholds + 3 * config);
#ifdef RNG_STATEFUL
    uint aligned = (uint)(NEIGHBOURS + spin * field) / 2;
    if (accept_word(aligned, word, &m)) spins[site] = (char)-spin;
#else
    clmc_philox_ctr r = METROPOLIS_RANDOM4(m.key, octet_unit(x, y, z), sweep, 0,
                                     CLMC_STREAM(CLMC_PURPOSE_METROPOLIS, first_system + config));
    uint aligned = (uint)(NEIGHBOURS + spin * field) / 2;
    if (metropolis_accept(aligned, clmc_chunk16(r, x & 7), site, &m)) spins[site] = (char)-spin;
#endif
}

/* Four sites of one colour as the lanes of a word (lane i: bits 8i .. 8i+7,
 * 1 = spin up), `up` their counts of up neighbours (lane-wise, below 256, so
 * no carry crosses lanes and nothing depends on byte order): the lanes after
 * their Metropolis tests.  Lane i is site first_site + first_offset + 2i of
 * the octet whose draw r is, and decides on its 16-bit chunk; ties with a
 * threshold's high half are settled afterwards by metropolis_accept, which
 * draws the low half.  The tiled and the resident (planes) updates share it. */
/* Lane-wise: the neighbours parallel to each spin (up counts for up spins,
 * NEIGHBOURS minus them for down spins). */
inline uint aligned_lanes(uint spins, uint up)
{
    uint up_mask = spins * 255u;
    return (up & up_mask) | ((NEIGHBOURS * 0x01010101u - up) & ~up_mask);
}

#ifndef RNG_STATEFUL
inline uint metropolis_word(uint spins, uint up, uint first_offset, clmc_philox_ctr r, uint first_site,
                            const metropolis_stream *m)
{
    uint aligned = aligned_lanes(spins, up);
    /* Site i's chunk is half first_offset of word i; rotate it to the top so
     * that a whole-word comparison with the threshold's high half decides. */
    uint rotation = 16u * (1u - first_offset);
    uint flips = 0;
    bool tie = false;
#pragma unroll
    for (uint i = 0; i < 4; i++) {
        uint a = (aligned >> (8 * i)) & 0xFFu, w = rotate(r.v[i], rotation);
#if DIM == 2
        uint high = a == 3 ? m->high[0] : m->high[1]; /* only read when uphill: a is 3 or 4 */
#else
        uint high = a == 4 ? m->high[0] : (a == 5 ? m->high[1] : m->high[2]);
#endif
        bool uphill = a > NEIGHBOURS / 2;
        flips |= (uint)(!uphill || w < high) << (8 * i);
        tie |= uphill && (w ^ high) < 0x10000u;
    }
    if (tie) {
        flips = 0;
#pragma unroll
        for (uint i = 0; i < 4; i++) {
            uint k = first_offset + 2 * i;
            flips |= (uint)metropolis_accept((aligned >> (8 * i)) & 0xFFu, clmc_chunk16(r, k), first_site + k, m)
                     << (8 * i);
        }
    }
    return spins ^ flips;
}
#endif

#ifdef TILE
/* Local memory holds the tile and its halo as two colour planes (sites of
 * even and odd global parity), one byte per site, 1 = spin up.  Updating one
 * colour reads only the other plane, so no work-item reads a byte another
 * writes in the same phase.  Within a plane row, the site at halo column hx
 * (0 = left halo) sits at byte PLANE_PAD + (hx + 1) / 2; PLANE_PAD aligns each
 * work-item's sites to its lane vector. */
#define HALO_EDGE (TILE + 2)
#define HALF_WIDTH (ITEM_WIDTH / 2)
#define PLANE_PAD 3
#define PLANE_ROW (((PLANE_PAD + TILE / 2 + 2) + 3) / 4 * 4)
#if DIM == 2
#define PLANE_BYTES (PLANE_ROW * HALO_EDGE)
#define TILE_ITEMS (TILE * TILE / ITEM_WIDTH)
#else
#define PLANE_BYTES (PLANE_ROW * HALO_EDGE * HALO_EDGE)
#define TILE_ITEMS (TILE * TILE * TILE / ITEM_WIDTH)
#endif

/* lanes: HALF_WIDTH sites of one colour in one row, as a vector. */
#if HALF_WIDTH == 4
typedef uchar4 lanes;
#define LANE(v, i) ((i) == 0 ? (v).s0 : (i) == 1 ? (v).s1 : (i) == 2 ? (v).s2 : (v).s3)
#define MAKE_LANES(a) ((uchar4)((a)[0], (a)[1], (a)[2], (a)[3]))
#define SHIFT_IN_LOW(v, b) ((uchar4)((b), (v).s0, (v).s1, (v).s2))
#define SHIFT_IN_HIGH(v, b) ((uchar4)((v).s1, (v).s2, (v).s3, (b)))
#define TO_WORD(v) as_uint(v)
#define FROM_WORD(w) as_uchar4(w)
#define LANE_ONES 0x01010101u
#elif HALF_WIDTH == 2
typedef uchar2 lanes;
#define LANE(v, i) ((i) == 0 ? (v).s0 : (v).s1)
#define MAKE_LANES(a) ((uchar2)((a)[0], (a)[1]))
#define SHIFT_IN_LOW(v, b) ((uchar2)((b), (v).s0))
#define SHIFT_IN_HIGH(v, b) ((uchar2)((v).s1, (b)))
#define TO_WORD(v) ((uint)as_ushort(v))
#define FROM_WORD(w) as_uchar2((ushort)(w))
#define LANE_ONES 0x0101u
#else
typedef uchar lanes;
#define LANE(v, i) (v)
#define MAKE_LANES(a) ((a)[0])
#define SHIFT_IN_LOW(v, b) (b)
#define SHIFT_IN_HIGH(v, b) (b)
#define TO_WORD(v) ((uint)(v))
#define FROM_WORD(w) ((uchar)(w))
#define LANE_ONES 0x01u
#endif

/* Colour of a tile coordinate along one ring of TILES_PER_EDGE tiles: 0/1
 * alternating, the last tile of an odd ring 2, so neighbours always differ. */
inline uint ring_colour(uint t)
{
    return (TILES_PER_EDGE % 2 == 1 && t == TILES_PER_EDGE - 1) ? 2u : (t & 1u);
}

/* Tile coordinates of this work-group for tile colour `colour`; false if the
 * group has no tile of that colour (only with three colours). */
inline bool tile_of_group(uint group, uint colour, uint *tx, uint *ty, uint *tz)
{
#if TILE_COLOURS == 2
    uint pairs_per_row = TILES_PER_EDGE / 2;
    uint rest = group / pairs_per_row;
    *ty = rest % TILES_PER_EDGE;
    *tz = rest / TILES_PER_EDGE;
#else
    *tx = group % TILES_PER_EDGE;
    *ty = (group / TILES_PER_EDGE) % TILES_PER_EDGE;
    *tz = group / (TILES_PER_EDGE * TILES_PER_EDGE);
#endif
#ifdef SLAB
    /* The slab's tiles only: the last axis starts at its first tile. */
#if DIM == 2 && TILE_COLOURS == 2
    *ty = rest + FIRST_LAYER / TILE;
#elif DIM == 2
    *ty = group / TILES_PER_EDGE + FIRST_LAYER / TILE;
#else
    *tz += FIRST_LAYER / TILE;
#endif
#endif
#if TILE_COLOURS == 2
    *tx = 2 * (group % pairs_per_row) + ((*ty + *tz + colour) & 1);
    return true;
#else
    return (ring_colour(*tx) + ring_colour(*ty) + ring_colour(*tz)) % 3 == colour;
#endif
}

/* Byte offset of halo site (hx, hy, hz) inside its colour plane, and that colour. */
inline uint plane_offset(uint hx, uint hy, uint hz)
{
    return PLANE_ROW * (hy + HALO_EDGE * hz) + PLANE_PAD + (hx + 1) / 2;
}

inline uint halo_colour(uint hx, uint hy, uint hz)
{
    return (hx + hy + hz + DIM) & 1; /* global parity: tile origins are even */
}

#if ITEM_WIDTH == 8
typedef char8 item_spins;
#elif ITEM_WIDTH == 4
typedef char4 item_spins;
#else
typedef char2 item_spins;
#endif
#define FACE_SITES (DIM == 2 ? TILE : TILE * TILE)
#define HALO_FACE_SITES (2 * DIM * FACE_SITES)

/* Halo site h (0 .. HALO_FACE_SITES-1) on the faces of the tile; corners and
 * edges are never neighbours of interior sites and are not loaded. */
inline void halo_face_site(uint h, uint *hx, uint *hy, uint *hz)
{
    uint face = h / FACE_SITES, pos = h % FACE_SITES;
    uint a = 1 + pos % TILE, b = 1 + pos / TILE, edge = (face & 1) ? TILE + 1 : 0;
    if (face < 2) { *hx = edge; *hy = a; *hz = b; }
    else if (face < 4) { *hx = a; *hy = edge; *hz = b; }
    else { *hx = a; *hy = b; *hz = edge; }
#if DIM == 2
    *hz = 0;
#endif
}

/* Each work-item loads its own ITEM_WIDTH sites with one vector read and
 * splits them into the colour planes; the halo faces are shared out. */
inline void load_tile(__local uchar *planes, __global const char *spins, int ox, int oy, int oz,
                      uint first_stored, uint offset, uint colour0_offset)
{
    char values[ITEM_WIDTH];
    item_spins own = *(__global const item_spins *)(spins + first_stored);
#if ITEM_WIDTH == 8
    vstore8(own, 0, values);
#elif ITEM_WIDTH == 4
    vstore4(own, 0, values);
#else
    vstore2(own, 0, values);
#endif
    uchar even[HALF_WIDTH], odd[HALF_WIDTH];
#pragma unroll
    for (uint i = 0; i < HALF_WIDTH; i++) {
        even[i] = values[2 * i] > 0;
        odd[i] = values[2 * i + 1] > 0;
    }
    *(__local lanes *)(planes + colour0_offset * PLANE_BYTES + offset) = MAKE_LANES(even);
    *(__local lanes *)(planes + (1 - colour0_offset) * PLANE_BYTES + offset) = MAKE_LANES(odd);

    for (uint h = get_local_id(0); h < HALO_FACE_SITES; h += TILE_ITEMS) {
        uint hx, hy, hz;
        halo_face_site(h, &hx, &hy, &hz);
#if DIM == 2
        int gz = 0;
#else
        int gz = oz + (int)hz - 1;
#endif
        char spin = spins[stored_site(wrap(ox + (int)hx - 1), oy + (int)hy - 1, gz)];
        planes[halo_colour(hx, hy, hz) * PLANE_BYTES + plane_offset(hx, hy, hz)] = spin > 0;
    }
}

/* Lane-wise sums and masks below act on whole words: every lane stays below
 * 256, so no carry crosses lanes and the result does not depend on byte order. */

/* Updates this item's sites of one colour: first_offset (0|1) is the position
 * of the first of them among the item's ITEM_WIDTH sites.  Decisions use the
 * 16-bit chunks; ties with a threshold's high half are settled afterwards by
 * metropolis_accept, which draws the low half (metropolis_word in the fast
 * path). */
#if HALF_WIDTH == 4 && defined(__ENDIAN_LITTLE__) && !defined(RNG_STATEFUL)
/* Fast path: four lanes in one little-endian word, neighbour rows shifted with
 * word shifts instead of byte shuffles. */
inline uint up_neighbour_word(__local const uchar *other, uint first_offset)
{
    __local const uint *row = (__local const uint *)other;
    uint left = first_offset ? row[0] : (row[0] << 8) | (row[-1] >> 24);
    uint right = first_offset ? (row[0] >> 8) | (row[1] << 24) : row[0];
    uint count = left + right + *(__local const uint *)(other - PLANE_ROW)
               + *(__local const uint *)(other + PLANE_ROW);
#if DIM == 3
    count += *(__local const uint *)(other - PLANE_ROW * HALO_EDGE)
           + *(__local const uint *)(other + PLANE_ROW * HALO_EDGE);
#endif
    return count;
}

inline void update_colour(__local uchar *own, __local const uchar *other, uint first_offset,
                          clmc_philox_ctr r, uint octet_start, uint first_site,
                          const metropolis_stream *m)
{
    (void)octet_start; /* 0: items of eight sites start octets */
    *(__local uint *)own =
        metropolis_word(*(__local uint *)own, up_neighbour_word(other, first_offset), first_offset, r, first_site, m);
}
#else
/* Generic path: any lane count and byte order, through vector shuffles.
 * Number of up spins among the neighbours of this item's sites of one colour. */
inline uint up_neighbours(__local const uchar *other, uint first_offset)
{
    lanes row = *(__local const lanes *)other;
    lanes left = first_offset ? row : SHIFT_IN_LOW(row, other[-1]);
    lanes right = first_offset ? SHIFT_IN_HIGH(row, other[HALF_WIDTH]) : row;
    uint count = TO_WORD(left) + TO_WORD(right) + TO_WORD(*(__local const lanes *)(other - PLANE_ROW))
               + TO_WORD(*(__local const lanes *)(other + PLANE_ROW));
#if DIM == 3
    count += TO_WORD(*(__local const lanes *)(other - PLANE_ROW * HALO_EDGE))
           + TO_WORD(*(__local const lanes *)(other + PLANE_ROW * HALO_EDGE));
#endif
    return count;
}

#ifdef RNG_STATEFUL
/* Stateful generators: word i decides the item's site of this colour in pair i. */
inline void update_colour(__local uchar *own, __local const uchar *other, uint first_offset,
                          const uint *words, const metropolis_stream *m)
{
    uint spins = TO_WORD(*(__local lanes *)own);
    uint up = up_neighbours(other, first_offset);
    uint up_mask = spins * 255u;
    lanes aligned = FROM_WORD((up & up_mask) | ((NEIGHBOURS * LANE_ONES - up) & ~up_mask));
    uchar flips[HALF_WIDTH];
#pragma unroll
    for (uint i = 0; i < HALF_WIDTH; i++) flips[i] = accept_word(LANE(aligned, i), words[i], m);
    *(__local lanes *)own = FROM_WORD(spins) ^ MAKE_LANES(flips);
}
#else
inline void update_colour(__local uchar *own, __local const uchar *other, uint first_offset,
                          clmc_philox_ctr r, uint octet_start, uint first_site,
                          const metropolis_stream *m)
{
    uint spins = TO_WORD(*(__local lanes *)own);
    uint up = up_neighbours(other, first_offset);
    uint up_mask = spins * 255u;
    lanes aligned = FROM_WORD((up & up_mask) | ((NEIGHBOURS * LANE_ONES - up) & ~up_mask));
    uchar flips[HALF_WIDTH];
#pragma unroll
    for (uint i = 0; i < HALF_WIDTH; i++) {
        uint k = first_offset + 2 * i;
        flips[i] = metropolis_accept(LANE(aligned, i), clmc_chunk16(r, octet_start + k), first_site + k, m);
    }
    *(__local lanes *)own = FROM_WORD(spins) ^ MAKE_LANES(flips);
}
#endif /* RNG_STATEFUL */
#endif

#ifdef RNG_LAGFIB
/* Sites of one colour in a tile: one per pair (x, x + 1), x even. */
#define TILE_PAIRS (TILE_ITEMS * HALF_WIDTH)
#if TILE_PAIRS > LAGFIB_R
#error "a tile's pairs of one colour must fit in the lagged Fibonacci ring"
#endif
/* The group makes the next TILE_PAIRS numbers of the tile's ring at `pos`, in
 * batches (a barrier after each), and the item reads those of its HALF_WIDTH
 * pairs; returns the position after them. */
inline uint tile_lagfib_fill(__local uint *ring, uint pos, uint lid, uint first_pair, uint *words)
{
    for (uint done = 0; done < TILE_PAIRS; done += LAGFIB_BATCH) {
        uint start = (pos + done) % LAGFIB_R, count = min((uint)LAGFIB_BATCH, (uint)TILE_PAIRS - done);
        for (uint t = lid; t < count; t += TILE_ITEMS) rng_lagfib_draw_local(ring, start, t);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (uint i = 0; i < HALF_WIDTH; i++) words[i] = ring[(pos + first_pair + i) % LAGFIB_R];
    return (pos + TILE_PAIRS) % LAGFIB_R;
}
#endif

/* This item's ITEM_WIDTH spins as +-1 chars, interleaved from both planes. */
inline void store_item(__global char *out, __local const uchar *plane0, __local const uchar *plane1,
                       uint colour0_offset)
{
    lanes even = *(__local const lanes *)(colour0_offset ? plane1 : plane0);
    lanes odd = *(__local const lanes *)(colour0_offset ? plane0 : plane1);
    char values[ITEM_WIDTH];
#pragma unroll
    for (uint i = 0; i < HALF_WIDTH; i++) {
        values[2 * i] = LANE(even, i) ? 1 : -1;
        values[2 * i + 1] = LANE(odd, i) ? 1 : -1;
    }
#if ITEM_WIDTH == 8
    *(__global char8 *)out = vload8(0, values);
#elif ITEM_WIDTH == 4
    *(__global char4 *)out = vload4(0, values);
#else
    *(__global char2 *)out = vload2(0, values);
#endif
}

/* Double checkerboard: each work-group loads one tile of the coarse colour
 * plus its halo, updates both fine colours `hits` times, writes the tile back.
 * Halo spins belong to tiles of other colours and stay fixed meanwhile. */
__kernel __attribute__((reqd_work_group_size(TILE_ITEMS, 1, 1)))
void ising_tiled_update(__global char *spins, uint seed_lo, uint seed_hi, uint sweep,
                        uint colour, uint hits, __global const uint *thresholds
#ifdef RNG_STATEFUL
                        , __global uint *rng_states
#endif
#ifdef SLAB
                        , uint first_group /* launches cover runs of the slab's tiles */
#endif
                        , uint first_system)
{
    uint config = get_global_id(1);
    spins += (size_t)config * STORED_SITES;
    __local uchar planes[2 * PLANE_BYTES] __attribute__((aligned(4)));
#ifdef RNG_LAGFIB
    __local uint ring[LAGFIB_R];
#endif
    uint tx, ty, tz;
#ifdef SLAB
    if (!tile_of_group(get_group_id(0) + first_group, colour, &tx, &ty, &tz)) return;
#else
    if (!tile_of_group(get_group_id(0), colour, &tx, &ty, &tz)) return;
#endif
    int ox = (int)(tx * TILE), oy = (int)(ty * TILE), oz = (int)(tz * TILE);
    uint lid = get_local_id(0);
    uint lx0 = (lid % (TILE / ITEM_WIDTH)) * ITEM_WIDTH;
    uint ly = (lid / (TILE / ITEM_WIDTH)) % TILE;
#if DIM == 2
    uint lz = 0, hz = 0;
#else
    uint lz = lid / (TILE / ITEM_WIDTH) / TILE, hz = lz + 1;
#endif
    uint gx0 = (uint)ox + lx0, gy = (uint)oy + ly, gz = (uint)oz + lz;
    uint first_site = gx0 + EDGE * (gy + EDGE * gz); /* global: random numbers */
    uint first_stored = stored_site(gx0, (int)gy, (int)gz);
    uint offset = plane_offset(lx0 + 1, ly + 1, hz);
    /* Position of the first colour-0 site among the item's sites. */
    uint colour0_offset = halo_colour(lx0 + 1, ly + 1, hz);
    load_tile(planes, spins, ox, oy, oz, first_stored, offset, colour0_offset);
    barrier(CLK_LOCAL_MEM_FENCE);
    metropolis_stream m = stream_of(seed_lo, seed_hi, sweep, config, first_system, thresholds + 3 * config);
#if defined(RNG_LAGFIB)
    /* The tile's ring; the pairs of one colour take TILE_PAIRS consecutive numbers
     * per update, pair j (row-major in the tile) number j. */
    __global uint *stored = rng_states + (size_t)(config * RNG_STREAMS + tx + TILES_PER_EDGE * (ty + TILES_PER_EDGE * tz)) * LAGFIB_R;
    for (uint i = lid; i < LAGFIB_R; i += TILE_ITEMS) ring[i] = stored[i];
    barrier(CLK_LOCAL_MEM_FENCE);
    uint first_pair = (lx0 + TILE * (ly + TILE * lz)) / 2;
    uint pos = (uint)(((ulong)sweep * hits * 2 * TILE_PAIRS) % LAGFIB_R);
    for (uint hit = 0; hit < hits; hit++) {
        uint words[HALF_WIDTH];
        pos = tile_lagfib_fill(ring, pos, lid, first_pair, words);
        update_colour(planes + offset, planes + PLANE_BYTES + offset, colour0_offset, words, &m);
        barrier(CLK_LOCAL_MEM_FENCE);
        pos = tile_lagfib_fill(ring, pos, lid, first_pair, words);
        update_colour(planes + PLANE_BYTES + offset, planes + offset, colour0_offset ^ 1, words, &m);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (uint i = lid; i < LAGFIB_R; i += TILE_ITEMS) stored[i] = ring[i];
#elif defined(RNG_STATEFUL)
    /* One stream per pair of sites: the item's HALF_WIDTH pairs, in private memory. */
    rng_state state[HALF_WIDTH];
    uint first_stream = config * RNG_STREAMS + first_site / 2;
    for (uint i = 0; i < HALF_WIDTH; i++) state[i] = rng_load(rng_states, first_stream + i);
    for (uint hit = 0; hit < hits; hit++) {
        uint words[HALF_WIDTH];
        for (uint i = 0; i < HALF_WIDTH; i++) words[i] = rng_next(&state[i]);
        update_colour(planes + offset, planes + PLANE_BYTES + offset, colour0_offset, words, &m);
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint i = 0; i < HALF_WIDTH; i++) words[i] = rng_next(&state[i]);
        update_colour(planes + PLANE_BYTES + offset, planes + offset, colour0_offset ^ 1, words, &m);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (uint i = 0; i < HALF_WIDTH; i++) rng_store(rng_states, first_stream + i, state[i]);
#else
    uint stream = CLMC_STREAM(CLMC_PURPOSE_METROPOLIS, first_system + config);
    uint unit = octet_unit(gx0, gy, gz);

    uint octet_start = ITEM_WIDTH == 8 ? 0 : gx0 & 7;
    clmc_philox_ctr r = METROPOLIS_RANDOM4(m.key, unit, sweep, 0, stream);
    for (uint hit = 0; hit < hits; hit++) {
        m.hit = hit;
        update_colour(planes + offset, planes + PLANE_BYTES + offset, colour0_offset, r, octet_start,
                      first_site, &m);
        /* The next hit's numbers do not depend on the lattice: drawing them
         * here gives the warps independent work while others wait. */
        clmc_philox_ctr next = r;
        if (hit + 1 < hits) next = METROPOLIS_RANDOM4(m.key, unit, sweep, hit + 1, stream);
        barrier(CLK_LOCAL_MEM_FENCE);
        update_colour(planes + PLANE_BYTES + offset, planes + offset, colour0_offset ^ 1, r, octet_start,
                      first_site, &m);
        barrier(CLK_LOCAL_MEM_FENCE);
        r = next;
    }
#endif
    store_item(spins + first_stored, planes + offset, planes + PLANE_BYTES + offset, colour0_offset);
}
#endif

#if defined(RESIDENT) || defined(TEMPORAL_BLOCK)
/* The phases of a sweep in the layout's own order (the resident and the
 * temporally blocked kernels): for each tile colour (naive: one), for each
 * hit, for each site colour, the sites of that colour in tiles of that tile
 * colour. */
#ifdef TILE
#define LAYOUT_TILE_COLOURS TILE_COLOURS
#else
#define LAYOUT_TILE_COLOURS 1
#endif

/* Tile colour of global site (x, y, z) (naive: 0). */
inline uint layout_tile_colour(uint x, uint y, uint z)
{
#ifdef TILE
    uint tx = x / TILE, ty = y / TILE, tz = z / TILE;
#if TILE_COLOURS == 2
    return (tx + ty + tz) & 1u;
#else
    return (ring_colour(tx) + ring_colour(ty) + ring_colour(tz)) % 3;
#endif
#else
    (void)x;
    (void)y;
    (void)z;
    return 0;
#endif
}
#endif

#if defined(RESIDENT_PLANES) || defined(TB_PLANES)
/* Colour planes (the resident and the temporally blocked updates in planes):
 * a word per octet of a row and parity, lane i the octet's i-th site of
 * that parity, 1 = up; built and read lane by lane, so nothing depends on
 * byte order.  The sites at octet positions odd, odd + 2, odd + 4, odd + 6 as lanes. */
inline uint octet_lanes(char8 s, uint odd)
{
    return odd ? (uint)(s.s1 > 0) | (uint)(s.s3 > 0) << 8 | (uint)(s.s5 > 0) << 16 | (uint)(s.s7 > 0) << 24
               : (uint)(s.s0 > 0) | (uint)(s.s2 > 0) << 8 | (uint)(s.s4 > 0) << 16 | (uint)(s.s6 > 0) << 24;
}

/* The octet of +-1 chars from the lanes of its even and odd positions. */
inline char8 lanes_octet(uint even, uint odd)
{
    char8 s;
    s.s0 = (even & 1u) ? 1 : -1;
    s.s1 = (odd & 1u) ? 1 : -1;
    s.s2 = ((even >> 8) & 1u) ? 1 : -1;
    s.s3 = ((odd >> 8) & 1u) ? 1 : -1;
    s.s4 = ((even >> 16) & 1u) ? 1 : -1;
    s.s5 = ((odd >> 16) & 1u) ? 1 : -1;
    s.s6 = ((even >> 24) & 1u) ? 1 : -1;
    s.s7 = ((odd >> 24) & 1u) ? 1 : -1;
    return s;
}
#endif

#ifdef RESIDENT
/* Resident update (algorithm.resident, docs/models/ising.md): one work-group
 * per configuration holds the whole configuration in local memory (one byte
 * per site, +-1) and makes `count` sweeps from `first_sweep` in the order of
 * the layout's own kernels, so the result is bit-identical to them: per sweep,
 * for each tile colour (naive: one), for each hit, for each site colour (parity
 * of x + y + z, 0 first), all such sites of every tile of that tile colour.
 * Sites of one phase are independent (their neighbours have the other parity),
 * so a barrier between phases is all the order needs; every loop around a
 * barrier has the same trip count in every work-item.  A work-item takes one
 * octet of a row (the Philox unit, one draw) and its four sites of the phase's
 * parity, skipping octets with none of the phase's tile colour. */
#define RESIDENT_UNITS (OCTETS_PER_ROW * (SITES / EDGE))

/* The sites of octet `unit` (unit < RESIDENT_UNITS) with parity `colour` in tiles of
 * colour `tile_colour`: bit j for x = 8 (unit % OCTETS_PER_ROW) + parity offset + 2j. */
inline uint resident_mask(uint unit, uint tile_colour, uint colour)
{
    uint row = unit / OCTETS_PER_ROW, y = row % EDGE, z = row / EDGE;
    uint first = 8 * (unit % OCTETS_PER_ROW) + ((y + z + colour) & 1);
    uint mask = 0;
    for (uint j = 0; j < 4; j++) {
        uint x = first + 2 * j;
        mask |= (uint)(x < EDGE && layout_tile_colour(x, y, z) == tile_colour) << j;
    }
    return mask;
}

/* Updates the sites in `mask` of octet `unit` with parity `colour`, drawing
 * from r, the octet's numbers of this sweep and hit. */
inline void resident_sites(__local char *lattice, uint unit, uint colour, uint mask, clmc_philox_ctr r,
                           const metropolis_stream *m)
{
    uint row = unit / OCTETS_PER_ROW, y = row % EDGE, z = row / EDGE;
    uint first = 8 * (unit % OCTETS_PER_ROW) + ((y + z + colour) & 1);
    __local char *line = lattice + EDGE * row;
    __local char *below = lattice + EDGE * (wrap((int)y - 1) + EDGE * z);
    __local char *above = lattice + EDGE * (wrap((int)y + 1) + EDGE * z);
#if DIM == 3
    __local char *behind = lattice + EDGE * (y + EDGE * wrap((int)z - 1));
    __local char *front = lattice + EDGE * (y + EDGE * wrap((int)z + 1));
#endif
    for (uint j = 0; j < 4; j++) {
        if (!((mask >> j) & 1u)) continue;
        uint x = first + 2 * j;
        int spin = line[x];
        int field = line[wrap((int)x - 1)] + line[wrap((int)x + 1)] + below[x] + above[x];
#if DIM == 3
        field += behind[x] + front[x];
#endif
        uint aligned = (uint)(NEIGHBOURS + spin * field) / 2;
        if (metropolis_accept(aligned, clmc_chunk16(r, x & 7), x + EDGE * row, m)) line[x] = (char)-spin;
    }
}

/* One work-group per configuration (group id), any work-group size.  With one
 * octet per work-item (rounds 1) the octet's draw of a hit serves both site
 * colours, kept across the barrier; else each phase draws again.  slot <
 * 0xFFFFFFFF: the launch ends at a measurement, whose exact integer sums
 * (those of ising_measure: bonds to +x, +y(, +z), magnetisation) go to batch
 * slot `slot` of partials as work-group 0's pair of the measurement's
 * `groups` (the others' pairs 0), `configs` configurations per slot.
 * gather_members > 0: the configuration is loaded from gather_from, slot
 * pa_source_of(config, gather_source, gather_members), and written to
 * `spins` (population annealing's gather, fused).  threshold_stride: 3,
 * each configuration its row of thresholds; 0, all the first row.
 * members_out: the measurement goes to member_energy (H = -bonds) and
 * member_magnetisation at the configuration instead (population
 * annealing's member values, which ising_member_totals makes otherwise),
 * and with fold_range its energy into chunk_range (pa_fold_range). */
#include "ensembles/population_source.h"

/* The measurement's sums (after a barrier) as work-group 0's pair of slot
 * `slot` of partials, the other groups' pairs 0 (none for slot 0xFFFFFFFF);
 * or the member values (members_out). */
inline void resident_partials(__global int *partials, uint slot, uint groups, uint configs, uint config,
                              __local const int *sums, __global int *member_energy, __global int *member_magnetisation,
                              uint members_out, __global int *chunk_range, uint fold_range)
{
    if (slot == 0xFFFFFFFFu) return;
    if (members_out) { /* population annealing's member values (ising_member_totals' H = -bonds and M) */
        if (get_local_id(0) == 0) {
            member_energy[config] = -sums[0];
            member_magnetisation[config] = sums[1];
            if (fold_range) pa_fold_range(chunk_range, config, -sums[0], -sums[0]);
        }
        return;
    }
    __global int *out = partials + 2 * ((size_t)slot * configs + config) * groups;
    for (uint g = get_local_id(0); g < groups; g += get_local_size(0)) {
        out[2 * g] = g == 0 ? sums[0] : 0;
        out[2 * g + 1] = g == 0 ? sums[1] : 0;
    }
}

#ifdef RESIDENT_PLANES
/* The resident update in colour planes (RESIDENT_PLANES: EDGE a multiple of 8,
 * layout naive, or tiled with tiles of a multiple of 8 in two tile colours,
 * a Philox generator): the configuration in local memory as two planes of
 * words, the sites of one parity each, a word per octet of a row and parity
 * (lane i: the octet's i-th site of that parity, 1 = up; built and read
 * lane by lane, so nothing depends on byte order).  A phase's work-item
 * updates a word's four sites at once (metropolis_word, the tiled kernel's
 * fast path), the same sites with the same numbers in the same phase order
 * as ising_resident_update below, so the result is bit-identical to it and
 * to the ordinary kernels: the phases take PHASE_WORDS words, all words of a
 * plane (naive) or those in tiles of the phase's tile colour (half of them,
 * every work-item busy).  Work-item k of RESIDENT_ITEMS takes words k, k +
 * RESIDENT_ITEMS, ... of a phase (RESIDENT_ROUNDS rounds, unrolled); with up
 * to 4 rounds it keeps the octets' draws for the second parity. */
#define ROW_WORDS (EDGE / 8)
#define PLANE_WORDS (SITES / 8)
#ifdef TILE
#define TILE_WORDS (TILE / 8)
#define PHASE_WORDS (PLANE_WORDS / 2)
#else
#define PHASE_WORDS PLANE_WORDS
#endif

/* Word k of a phase of tile colour `tile_colour`: its row (y + EDGE z) and
 * its word in the row. */
inline uint phase_word(uint k, uint tile_colour, uint *row)
{
#ifdef TILE
    uint j = k % (ROW_WORDS / 2), y, z;
    *row = k / (ROW_WORDS / 2);
    y = *row % EDGE, z = *row / EDGE;
    uint tx = 2 * (j / TILE_WORDS) + ((tile_colour + y / TILE + z / TILE) & 1u);
    return tx * TILE_WORDS + j % TILE_WORDS;
#else
    (void)tile_colour;
    *row = k / ROW_WORDS;
    return k % ROW_WORDS;
#endif
}

/* Counts of up neighbours (lane-wise) of word w in row `row` of one plane,
 * whose first site sits at first_offset (0|1) of its octet; `other` is the
 * other plane, where the left and right neighbours are the same or the
 * adjacent lanes (across words and the periodic row end), the neighbours
 * along y (and z) the same lanes of the rows beside. */
inline uint plane_up_neighbours(__local const uint *other, uint row, uint w, uint first_offset)
{
    uint y = row % EDGE, z = row / EDGE;
    __local const uint *line = other + ROW_WORDS * row;
    uint here = line[w];
    uint left = first_offset ? here : (here << 8) | (line[(w + ROW_WORDS - 1) % ROW_WORDS] >> 24);
    uint right = first_offset ? (here >> 8) | (line[(w + 1) % ROW_WORDS] << 24) : here;
    uint count = left + right + other[ROW_WORDS * (wrap((int)y - 1) + EDGE * z) + w] +
                 other[ROW_WORDS * (wrap((int)y + 1) + EDGE * z) + w];
#if DIM == 3
    count += other[ROW_WORDS * (y + EDGE * wrap((int)z - 1)) + w] +
             other[ROW_WORDS * (y + EDGE * wrap((int)z + 1)) + w];
#endif
    return count;
}

/* The sum of a word's four lanes (each lane's value below 64). */
inline uint lane_sum(uint word)
{
    return (word * 0x01010101u) >> 24;
}

/* The arguments and the measurement are ising_resident_update's below: the
 * bond sum is the sum over parity-0 sites of s_i times its neighbours' spins
 * (every bond has one parity-0 end: EDGE is even), 2 aligned - NEIGHBOURS
 * per site, and the magnetisation 2 (up spins) - SITES: the integers of
 * ising_measure. */
__kernel __attribute__((reqd_work_group_size(RESIDENT_ITEMS, 1, 1)))
void ising_resident_update(__global char *spins, uint seed_lo, uint seed_hi, uint first_sweep,
                           uint count, uint hits, __global const uint *thresholds,
                           __global int *partials, uint slot, uint groups, uint configs,
                           __global const char *gather_from, __global const uint *gather_source,
                           uint gather_members, uint threshold_stride, __global int *member_energy,
                           __global int *member_magnetisation, uint members_out, __global int *chunk_range,
                           uint fold_range, uint first_system)
{
    __local uint planes[2 * PLANE_WORDS];
    __local int sums[2];
    uint config = get_group_id(0), lid = get_local_id(0), size = get_local_size(0);
    spins += (size_t)config * SITES;
    __global const char *load =
        gather_members ? gather_from + (size_t)pa_source_of(config, gather_source, gather_members) * SITES : spins;
    for (uint k = lid; k < PLANE_WORDS; k += size) {
        uint row = k / ROW_WORDS, odd = (row % EDGE + row / EDGE) & 1u; /* odd: parity 0 at odd positions */
        char8 s = vload8(k, load);
        planes[k] = octet_lanes(s, odd);
        planes[PLANE_WORDS + k] = octet_lanes(s, odd ^ 1u);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    metropolis_stream m = stream_of(seed_lo, seed_hi, first_sweep, config, first_system,
                                    thresholds + threshold_stride * config);
    uint stream = CLMC_STREAM(CLMC_PURPOSE_METROPOLIS, first_system + config);
#if RESIDENT_ROUNDS <= 4
    clmc_philox_ctr kept[RESIDENT_ROUNDS]; /* the octets' draws of this tile colour and hit */
#endif
    for (uint k = 0; k < count; k++) {
        m.sweep = first_sweep + k;
        for (uint tile_colour = 0; tile_colour < LAYOUT_TILE_COLOURS; tile_colour++)
            for (uint hit = 0; hit < hits; hit++) {
                m.hit = hit;
                for (uint colour = 0; colour < 2; colour++) {
#pragma unroll
                    for (uint round = 0; round < RESIDENT_ROUNDS; round++) {
                        uint item = round * RESIDENT_ITEMS + lid, row;
                        if (item >= PHASE_WORDS) continue;
                        uint w = phase_word(item, tile_colour, &row), unit = w + ROW_WORDS * row; /* octet_unit */
#if RESIDENT_ROUNDS <= 4
                        if (colour == 0) kept[round] = METROPOLIS_RANDOM4(m.key, unit, m.sweep, hit, stream);
                        clmc_philox_ctr r = kept[round];
#else
                        clmc_philox_ctr r = METROPOLIS_RANDOM4(m.key, unit, m.sweep, hit, stream);
#endif
                        uint first_offset = (row % EDGE + row / EDGE + colour) & 1u;
                        __local uint *own = planes + colour * PLANE_WORDS + unit;
                        *own = metropolis_word(*own, plane_up_neighbours(planes + (1 - colour) * PLANE_WORDS, row, w,
                                                                         first_offset),
                                               first_offset, r, 8 * unit, &m);
                    }
                    barrier(CLK_LOCAL_MEM_FENCE);
                }
            }
    }
    /* The measurement: barriers outside the (uniform) branch. */
    if (lid == 0) sums[0] = sums[1] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (slot != 0xFFFFFFFFu) {
        int bond_sum = 0, spin_sum = 0;
        for (uint k = lid; k < PLANE_WORDS; k += size) {
            uint row = k / ROW_WORDS, w = k % ROW_WORDS, first_offset = (row % EDGE + row / EDGE) & 1u;
            uint own = planes[k];
            uint aligned = aligned_lanes(own, plane_up_neighbours(planes + PLANE_WORDS, row, w, first_offset));
            bond_sum += 2 * (int)lane_sum(aligned) - 4 * NEIGHBOURS;
            spin_sum += 2 * (int)(lane_sum(own) + lane_sum(planes[PLANE_WORDS + k])) - 8;
        }
        atomic_add(&sums[0], bond_sum);
        atomic_add(&sums[1], spin_sum);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    resident_partials(partials, slot, groups, configs, config, sums, member_energy, member_magnetisation, members_out,
                      chunk_range, fold_range);
    for (uint k = lid; k < PLANE_WORDS; k += size) {
        uint row = k / ROW_WORDS, odd = (row % EDGE + row / EDGE) & 1u;
        uint zero = planes[k], one = planes[PLANE_WORDS + k];
        vstore8(odd ? lanes_octet(one, zero) : lanes_octet(zero, one), k, spins);
    }
}
#else
__kernel void ising_resident_update(__global char *spins, uint seed_lo, uint seed_hi, uint first_sweep,
                                    uint count, uint hits, __global const uint *thresholds,
                                    __global int *partials, uint slot, uint groups, uint configs,
                                    __global const char *gather_from, __global const uint *gather_source,
                                    uint gather_members, uint threshold_stride,
                                    __global int *member_energy, __global int *member_magnetisation,
                                    uint members_out, __global int *chunk_range, uint fold_range, uint first_system)
{
    __local char lattice[SITES];
    __local int sums[2];
    uint config = get_group_id(0), lid = get_local_id(0), size = get_local_size(0);
    spins += (size_t)config * SITES;
    __global const char *load =
        gather_members ? gather_from + (size_t)pa_source_of(config, gather_source, gather_members) * SITES : spins;
    for (uint i = lid; i < SITES; i += size) lattice[i] = load[i];
    barrier(CLK_LOCAL_MEM_FENCE);
    metropolis_stream m = stream_of(seed_lo, seed_hi, first_sweep, config, first_system,
                                    thresholds + threshold_stride * config);
    uint stream = CLMC_STREAM(CLMC_PURPOSE_METROPOLIS, first_system + config);
    uint rounds = (RESIDENT_UNITS + size - 1) / size;
    clmc_philox_ctr kept = {{0, 0, 0, 0}};
    for (uint k = 0; k < count; k++) {
        m.sweep = first_sweep + k;
        for (uint tile_colour = 0; tile_colour < LAYOUT_TILE_COLOURS; tile_colour++)
            for (uint hit = 0; hit < hits; hit++) {
                m.hit = hit;
                for (uint colour = 0; colour < 2; colour++) {
                    if (rounds == 1 && lid < RESIDENT_UNITS) {
                        uint mask = resident_mask(lid, tile_colour, colour);
                        if (colour == 0 && (mask || resident_mask(lid, tile_colour, 1)))
                            kept = METROPOLIS_RANDOM4(m.key, lid, m.sweep, hit, stream);
                        if (mask) resident_sites(lattice, lid, colour, mask, kept, &m);
                    } else if (rounds > 1) {
                        for (uint round = 0; round < rounds; round++) {
                            uint unit = round * size + lid;
                            uint mask = unit < RESIDENT_UNITS ? resident_mask(unit, tile_colour, colour) : 0;
                            if (mask)
                                resident_sites(lattice, unit, colour, mask,
                                               METROPOLIS_RANDOM4(m.key, unit, m.sweep, hit, stream), &m);
                        }
                    }
                    barrier(CLK_LOCAL_MEM_FENCE);
                }
            }
    }
    /* The measurement: barriers outside the (uniform) branch. */
    if (lid == 0) sums[0] = sums[1] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (slot != 0xFFFFFFFFu) {
        int bond_sum = 0, spin_sum = 0;
        for (uint i = lid; i < SITES; i += size) {
            uint x = i % EDGE, row = i / EDGE, y = row % EDGE, z = row / EDGE;
            int neighbours = lattice[wrap((int)x + 1) + EDGE * row] + lattice[x + EDGE * (wrap((int)y + 1) + EDGE * z)];
#if DIM == 3
            neighbours += lattice[x + EDGE * (y + EDGE * wrap((int)z + 1))];
#endif
            bond_sum += lattice[i] * neighbours;
            spin_sum += lattice[i];
        }
        atomic_add(&sums[0], bond_sum);
        atomic_add(&sums[1], spin_sum);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    resident_partials(partials, slot, groups, configs, config, sums, member_energy, member_magnetisation, members_out,
                      chunk_range, fold_range);
    for (uint i = lid; i < SITES; i += size) spins[i] = lattice[i];
}
#endif /* RESIDENT_PLANES */
#endif /* RESIDENT */

#ifdef TEMPORAL_BLOCK
#include "ising/temporal_block.h"
#endif

/* Per-work-group partial sums of the bond sum (sum over +x,+y(,+z) bonds of
 * s_i s_j) and the magnetisation of each configuration, stored at
 * partials[2 * ((slot * configs + config) * groups + g)].  Work-groups take
 * whole rows, their items consecutive x: no division per site.  A row takes
 * MEASURE_ROW_ITEMS items (four sites each where EDGE % 4 == 0), at most the
 * work-group; a work-group takes MEASURE_ROWS rows at once, so the items of a
 * small lattice's group are all busy (L = 64: 16 rows of 16 items, where one
 * row of 16 busy items took a 2D tiled population of 1e6 members 27 ms on an
 * H200).  The sums are integers: the same in any order. */
#if EDGE % 4 == 0
#define MEASURE_ROW_SITES (EDGE / 4)
#else
#define MEASURE_ROW_SITES EDGE
#endif
#define MEASURE_ROW_ITEMS (MEASURE_ROW_SITES < MEASURE_WG ? MEASURE_ROW_SITES : MEASURE_WG)
#define MEASURE_ROWS (MEASURE_WG / MEASURE_ROW_ITEMS)
__kernel __attribute__((reqd_work_group_size(MEASURE_WG, 1, 1)))
void ising_measure(__global const char *spins, __global int *partials, uint slot)
{
    __local int bonds[MEASURE_WG];
    __local int magnetisation[MEASURE_WG];
    spins += (size_t)get_global_id(1) * STORED_SITES;
    int bond_sum = 0, spin_sum = 0;
    uint item = get_local_id(0) % MEASURE_ROW_ITEMS, first = get_local_id(0) / MEASURE_ROW_ITEMS;
    uint rows_at_once = first < MEASURE_ROWS ? MEASURE_ROWS * get_num_groups(0) : 0u; /* 0: an idle item */
    for (uint owned = get_group_id(0) * MEASURE_ROWS + first; rows_at_once && owned < OWNED_SITES / EDGE;
         owned += rows_at_once) {
        uint row = owned + HALO_SITES / EDGE, y = row % EDGE, z = row / EDGE;
        __global const char *line = spins + row * EDGE;
#if DIM == 2
        __global const char *above = spins + step_last(y, 1) * EDGE;
#else
        __global const char *above = spins + (wrap((int)y + 1) + EDGE * z) * EDGE;
        __global const char *behind = spins + (y + EDGE * step_last(z, 1)) * EDGE;
#endif
#if EDGE % 4 == 0
        /* Four sites per step with aligned vector loads. */
        for (uint x = 4 * item; x < EDGE; x += 4 * MEASURE_ROW_ITEMS) {
            int4 s = convert_int4(*(__global const char4 *)(line + x));
            int4 right = (int4)(s.s1, s.s2, s.s3, line[x + 4 == EDGE ? 0 : x + 4]);
            int4 neighbours = right + convert_int4(*(__global const char4 *)(above + x));
#if DIM == 3
            neighbours += convert_int4(*(__global const char4 *)(behind + x));
#endif
            int4 bond = s * neighbours;
            bond_sum += bond.s0 + bond.s1 + bond.s2 + bond.s3;
            spin_sum += s.s0 + s.s1 + s.s2 + s.s3;
        }
#else
        for (uint x = item; x < EDGE; x += MEASURE_ROW_ITEMS) {
            int spin = line[x];
            int neighbours = line[x + 1 == EDGE ? 0 : x + 1] + above[x];
#if DIM == 3
            neighbours += behind[x];
#endif
            bond_sum += spin * neighbours;
            spin_sum += spin;
        }
#endif
    }
    reduce_pair_to(bonds, magnetisation, bond_sum, spin_sum, partials + partial_offset(slot));
}
