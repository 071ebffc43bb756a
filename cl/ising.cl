/* Ising ferromagnet: single-spin Metropolis on the global checkerboard (naive)
 * and on the double checkerboard with multi-hit tiles in local memory (tiled),
 * plus initialisation and exact integer energy/magnetisation reductions.
 *
 * Defines: DIM (2|3), EDGE (L), and for the tiled kernel TILE (tile edge),
 * ITEM_WIDTH (sites per work-item along x: 4, or 2 when TILE % 4 != 0),
 * TILES_PER_EDGE, TILE_COLOURS (2, or 3 when TILES_PER_EDGE is odd);
 * MEASURE_WG for the reduction.  Spins are chars +-1, row-major, x fastest. */
#include "common/philox.h"

#define QUADS_PER_ROW ((EDGE + 3) / 4)
#if DIM == 2
#define SITES ((uint)EDGE * EDGE)
#else
#define SITES ((uint)EDGE * EDGE * EDGE)
#endif

/* Random numbers come in quads of four consecutive x in one row: the unit
 * index names the quad, the word the site inside it, so every site draws the
 * same number whatever the kernel or work-group layout. */
inline uint quad_unit(uint x, uint y, uint z)
{
    return (x >> 2) + QUADS_PER_ROW * (y + EDGE * z);
}

/* Thresholds are floor(exp(-beta dE) 2^32) for dE = 4, 8, 12: integer
 * comparisons keep devices bit-identical. */
inline bool metropolis_accept(int spin_times_field, uint r, uint t4, uint t8, uint t12)
{
    uint threshold = spin_times_field == 2 ? t4 : (spin_times_field == 4 ? t8 : t12);
    return spin_times_field <= 0 || r < threshold;
}

inline uint wrap(int coordinate)
{
    return (uint)((coordinate + EDGE) % EDGE);
}

__kernel void ising_init(__global char *spins, uint seed_lo, uint seed_hi, uint ordered)
{
    uint site = get_global_id(0);
    if (site >= SITES) return;
    if (ordered) {
        spins[site] = 1;
        return;
    }
    uint x = site % EDGE, row = site / EDGE;
    clmc_philox_key key = {{seed_lo, seed_hi}};
    clmc_philox_ctr r = clmc_random4(key, (x >> 2) + QUADS_PER_ROW * row, 0, 0, CLMC_PURPOSE_INIT);
    spins[site] = (r.v[x & 3] >> 31) ? 1 : -1;
}

/* One work-item per site of fine colour `colour`, global memory only. */
__kernel void ising_naive_update(__global char *spins, uint seed_lo, uint seed_hi, uint sweep,
                                 uint colour, uint t4, uint t8, uint t12)
{
    uint item = get_global_id(0);
    if (item >= SITES / 2) return;
    uint row = item / (EDGE / 2);
    uint y = row % EDGE, z = row / EDGE;
    uint x = 2 * (item % (EDGE / 2)) + ((y + z + colour) & 1);
    uint site = x + EDGE * row;
    int field = spins[wrap((int)x - 1) + EDGE * row] + spins[wrap((int)x + 1) + EDGE * row]
              + spins[x + EDGE * (wrap((int)y - 1) + EDGE * z)]
              + spins[x + EDGE * (wrap((int)y + 1) + EDGE * z)];
#if DIM == 3
    field += spins[x + EDGE * (y + EDGE * wrap((int)z - 1))]
           + spins[x + EDGE * (y + EDGE * wrap((int)z + 1))];
#endif
    int spin = spins[site];
    clmc_philox_key key = {{seed_lo, seed_hi}};
    clmc_philox_ctr r = clmc_random4(key, quad_unit(x, y, z), sweep, 0, CLMC_PURPOSE_METROPOLIS);
    if (metropolis_accept(spin * field, r.v[x & 3], t4, t8, t12)) spins[site] = (char)-spin;
}

#ifdef TILE
#define HALO_EDGE (TILE + 2)
#if DIM == 2
#define HALO_SITES (HALO_EDGE * HALO_EDGE)
#define TILE_ITEMS (TILE * TILE / ITEM_WIDTH)
#else
#define HALO_SITES (HALO_EDGE * HALO_EDGE * HALO_EDGE)
#define TILE_ITEMS (TILE * TILE * TILE / ITEM_WIDTH)
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
    *tx = 2 * (group % pairs_per_row) + ((*ty + *tz + colour) & 1);
    return true;
#else
    *tx = group % TILES_PER_EDGE;
    *ty = (group / TILES_PER_EDGE) % TILES_PER_EDGE;
    *tz = group / (TILES_PER_EDGE * TILES_PER_EDGE);
    return (ring_colour(*tx) + ring_colour(*ty) + ring_colour(*tz)) % 3 == colour;
#endif
}

inline uint halo_index(uint hx, uint hy, uint hz)
{
    return hx + HALO_EDGE * (hy + HALO_EDGE * hz);
}

inline int local_field(__local const char *tile, uint h)
{
    int field = tile[h - 1] + tile[h + 1] + tile[h - HALO_EDGE] + tile[h + HALO_EDGE];
#if DIM == 3
    field += tile[h - HALO_EDGE * HALO_EDGE] + tile[h + HALO_EDGE * HALO_EDGE];
#endif
    return field;
}

/* Random word for site x of a work-item whose first site is x0. */
inline uint item_word(clmc_philox_ctr r, uint x0, uint k)
{
#if ITEM_WIDTH == 4
    return r.v[k];
#else
    return (x0 & 2) ? r.v[2 + k] : r.v[k];
#endif
}

/* Double checkerboard: each work-group loads one tile of the coarse colour
 * plus its halo, updates both fine colours `hits` times, writes the tile back.
 * Halo spins belong to tiles of other colours and stay fixed meanwhile. */
__kernel __attribute__((reqd_work_group_size(TILE_ITEMS, 1, 1)))
void ising_tiled_update(__global char *spins, uint seed_lo, uint seed_hi, uint sweep,
                        uint colour, uint hits, uint t4, uint t8, uint t12)
{
    __local char tile[HALO_SITES];
    uint tx, ty, tz;
    if (!tile_of_group(get_group_id(0), colour, &tx, &ty, &tz)) return;
    int ox = (int)(tx * TILE), oy = (int)(ty * TILE), oz = (int)(tz * TILE);
    uint lid = get_local_id(0);

    for (uint i = lid; i < HALO_SITES; i += TILE_ITEMS) {
        uint hx = i % HALO_EDGE, hy = (i / HALO_EDGE) % HALO_EDGE;
#if DIM == 2
        uint gz = 0;
#else
        uint gz = wrap(oz + (int)(i / (HALO_EDGE * HALO_EDGE)) - 1);
#endif
        tile[i] = spins[wrap(ox + (int)hx - 1) + EDGE * (wrap(oy + (int)hy - 1) + EDGE * gz)];
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    uint lx0 = (lid % (TILE / ITEM_WIDTH)) * ITEM_WIDTH;
    uint ly = (lid / (TILE / ITEM_WIDTH)) % TILE;
#if DIM == 2
    uint lz = 0, hz = 0;
#else
    uint lz = lid / (TILE / ITEM_WIDTH) / TILE, hz = lz + 1;
#endif
    uint gx0 = (uint)ox + lx0, gy = (uint)oy + ly, gz = (uint)oz + lz;
    uint h0 = halo_index(lx0 + 1, ly + 1, hz);
    uint unit = quad_unit(gx0, gy, gz);
    clmc_philox_key key = {{seed_lo, seed_hi}};

    for (uint hit = 0; hit < hits; hit++) {
        clmc_philox_ctr r = clmc_random4(key, unit, sweep, hit, CLMC_PURPOSE_METROPOLIS);
        for (uint fine = 0; fine < 2; fine++) {
#pragma unroll
            for (uint k = 0; k < ITEM_WIDTH; k++) {
                if (((gx0 + k + gy + gz) & 1) != fine) continue;
                int spin = tile[h0 + k];
                if (metropolis_accept(spin * local_field(tile, h0 + k), item_word(r, gx0, k), t4, t8, t12))
                    tile[h0 + k] = (char)-spin;
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
    }

    for (uint k = 0; k < ITEM_WIDTH; k++)
        spins[gx0 + k + EDGE * (gy + EDGE * gz)] = tile[h0 + k];
}
#endif

/* Per-work-group partial sums of the bond sum (sum over +x,+y(,+z) bonds of
 * s_i s_j) and the magnetisation, stored at partials[2 * (slot * groups + g)]. */
__kernel __attribute__((reqd_work_group_size(MEASURE_WG, 1, 1)))
void ising_measure(__global const char *spins, __global int *partials, uint slot)
{
    __local int bonds[MEASURE_WG];
    __local int magnetisation[MEASURE_WG];
    int bond_sum = 0, spin_sum = 0;
    for (uint site = get_global_id(0); site < SITES; site += get_global_size(0)) {
        uint x = site % EDGE, y = (site / EDGE) % EDGE, z = site / EDGE / EDGE;
        int spin = spins[site];
        int right = spins[wrap((int)x + 1) + EDGE * (y + EDGE * z)];
        int up = spins[x + EDGE * (wrap((int)y + 1) + EDGE * z)];
#if DIM == 3
        up += spins[x + EDGE * (y + EDGE * wrap((int)z + 1))];
#endif
        bond_sum += spin * (right + up);
        spin_sum += spin;
    }
    uint lid = get_local_id(0);
    bonds[lid] = bond_sum;
    magnetisation[lid] = spin_sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint stride = MEASURE_WG / 2; stride > 0; stride /= 2) {
        if (lid < stride) {
            bonds[lid] += bonds[lid + stride];
            magnetisation[lid] += magnetisation[lid + stride];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) {
        uint out = 2 * (slot * get_num_groups(0) + get_group_id(0));
        partials[out] = bonds[0];
        partials[out + 1] = magnetisation[0];
    }
}
