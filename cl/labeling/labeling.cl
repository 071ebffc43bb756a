/* Connected components of a bond configuration on the periodic square
 * (DIM 2) or simple cubic (DIM 3) lattice of edge EDGE: self-labeling (or
 * union-find) inside tiles of edge TILE held in local memory, then
 * consolidation across tiles by label relaxation on the tiles' roots or by
 * hierarchical sewing.  The seed's scheme ("Connected component
 * identification and cluster update on GPU", sections II.2.3, II.3.1 and
 * II.3.2), with atomic minima so that every label only decreases and the
 * result does not depend on the order of operations: each site ends with the
 * smallest site index of its cluster.  Labels always point to smaller (or
 * equal) sites, so the forest has no cycles.
 *
 * Defines: DIM, EDGE, TILE (divides EDGE), LABEL_WG (work-group size,
 * dividing TILE^DIM), UNION_FIND (0: self-labeling in tiles; 1: union-find
 * in tiles, the same labels), TILE_WRAPS (1 where one tile holds the
 * whole periodic lattice, TILE == EDGE without LAYERS: label_tiles joins
 * the wrap bonds too and its labels are final, the host launches nothing
 * after it); LAYERS where a slab is labelled (MPI domain
 * decomposition, docs/mpi.md): LAYERS < EDGE layers along the last axis
 * (a multiple of TILE), open there: the bonds out of the last layer along it
 * are left to the host (src/models/potts/potts_slab.c).  Sites are row-major, x fastest; bonds[site] bit d set
 * = the bond from the site to its +d neighbour (periodic) is active.
 *
 * Systems: every kernel's second NDRange dimension counts lattices stored
 * one after another (LABEL_SITES bonds and labels each), each labelled as
 * if alone, so many small systems share one launch per step; labels are
 * site indices within the system.
 *
 * Benign races, by design (each marked "Benign race" below and listed in
 * tests/oclgrind.supp, which the Oclgrind test reads): plain reads of labels
 * race with atomic minima (and, in flatten_labels, with stores of roots) by
 * other work-items.  They are safe because a label only ever decreases and
 * always names a smaller site of the same cluster, so a stale read is an
 * ancestor in the same tree, never a wrong cluster; every hook is an
 * atomic_min whose returned value is acted on, so no union is lost; and each
 * method repeats until a pass changes nothing. */

#include "common/lattice.h"

#if DIM == 2
#define TILE_SITES ((uint)TILE * TILE)
#else
#define TILE_SITES ((uint)TILE * TILE * TILE)
#endif
#define TILES_PER_EDGE (EDGE / TILE)
#ifdef LAYERS
#define LABEL_SITES (SITES / EDGE * LAYERS)
#define LAYERS_OR_EDGE LAYERS
/* The bond along +d from `site` leaves the slab (last axis, last layer). */
#define LEAVES_SLAB(site, d) ((d) == DIM - 1 && (site) / lattice_stride(d) == LAYERS - 1)
#else
#define LABEL_SITES SITES
#define LAYERS_OR_EDGE EDGE
#define LEAVES_SLAB(site, d) false
#endif

/* The tile index of the +d neighbour (stride TILE^d) of tile index i, or
 * TILE_SITES where the bond leaves the tile (none when the tile wraps). */
inline uint tile_up(uint i, uint stride)
{
    if ((i / stride) % TILE != TILE - 1) return i + stride;
    return TILE_WRAPS ? i - (TILE - 1) * stride : TILE_SITES;
}

/* The bonds and labels of system get_global_id(1). */
#define SYSTEM_OFFSET ((size_t)get_global_id(1) * LABEL_SITES)

/* Lattice site of site `i` of tile `tile` (both row-major, x fastest). */
inline uint tile_site(uint tile, uint i)
{
    uint x = (tile % TILES_PER_EDGE) * TILE + i % TILE;
    uint y = (tile / TILES_PER_EDGE % TILES_PER_EDGE) * TILE + i / TILE % TILE;
#if DIM == 3
    uint z = tile / (TILES_PER_EDGE * TILES_PER_EDGE) * TILE + i / (TILE * TILE);
    return x + EDGE * (y + EDGE * z);
#else
    return x + EDGE * y;
#endif
}

/* Root of tile index i in a local union-find forest (parents are smaller).
 * Benign race: parent[] is read while other work-items lower entries with
 * atomic_min in label_tiles; a stale entry is still an ancestor in the same
 * tree (entries only decrease within it), so the walk ends at a root of it. */
inline uint local_root(volatile __local uint *parent, uint i)
{
    uint next = parent[i];
    while (next != i) {
        i = next;
        next = parent[i];
    }
    return i;
}

/* Self-labeling: labels start as site numbers; every pass, each active bond
 * inside the tile lowers both its ends' labels to the smaller of the two,
 * until a pass changes nothing (decided by the whole work-group). */
__kernel __attribute__((reqd_work_group_size(LABEL_WG, 1, 1)))
void label_tiles(__global const uchar *bonds, __global uint *labels)
{
    bonds += SYSTEM_OFFSET;
    labels += SYSTEM_OFFSET;
    __local uint label[TILE_SITES];
    __local uchar bond[TILE_SITES];
    __local int changed; /* self-labeling: a label moved in this pass */
    uint tile = get_group_id(0), lid = get_local_id(0);
    for (uint i = lid; i < TILE_SITES; i += LABEL_WG) {
        uint site = tile_site(tile, i);
        label[i] = UNION_FIND ? i : site;
        bond[i] = bonds[site];
    }
#if UNION_FIND
    /* Union-find on tile indices (which order like the sites): every active
     * bond hooks the larger of its ends' roots under the smaller, retrying
     * when another work-item hooked it first; then each site takes its root. */
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint i = lid; i < TILE_SITES; i += LABEL_WG) {
        uint stride = 1;
        for (uint d = 0; d < DIM; d++, stride *= TILE) {
            uint up = tile_up(i, stride);
            if (!((bond[i] >> d) & 1u) || up == TILE_SITES) continue;
            uint a = local_root(label, i), b = local_root(label, up);
            /* A root found stale was hooked meanwhile: atomic_min returns
             * what it found, and the loop unites from there. */
            while (a != b) {
                uint low = min(a, b), high = max(a, b), before = atomic_min(&label[high], low);
                if (before == high) break;
                a = local_root(label, before);
                b = local_root(label, low);
            }
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint i = lid; i < TILE_SITES; i += LABEL_WG) labels[tile_site(tile, i)] = tile_site(tile, local_root(label, i));
    return;
#else
    for (;;) {
        if (lid == 0) changed = 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint i = lid; i < TILE_SITES; i += LABEL_WG) {
            uint stride = 1;
            for (uint d = 0; d < DIM; d++, stride *= TILE) {
                uint up = tile_up(i, stride);
                if (!((bond[i] >> d) & 1u) || up == TILE_SITES) continue;
                /* Benign race: read while neighbours lower these labels by
                 * atomic_min; a stale (larger) value only delays the change
                 * to the next pass, and the passes go on until none changes. */
                uint a = label[i], b = label[up];
                if (a != b) {
                    uint low = min(a, b);
                    atomic_min(&label[i], low);
                    atomic_min(&label[up], low);
                    changed = 1;
                }
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        int again = changed;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (!again) break;
    }
#endif
    for (uint i = lid; i < TILE_SITES; i += LABEL_WG) labels[tile_site(tile, i)] = label[i];
}

/* Root of a site: labels point to smaller sites or to the site itself.
 * Benign race (relax_tiles, sew_seams, flatten_labels): labels are read while
 * other work-items hook roots (atomic_min) or store roots; a stale label is an
 * ancestor in the same tree, so the walk still ends at a root of the cluster
 * (one that may itself have been hooked meanwhile, caught by the callers). */
inline uint find_root(volatile __global uint *labels, uint site)
{
    uint next = labels[site];
    while (next != site) {
        site = next;
        next = labels[site];
    }
    return site;
}

/* Whether the bond from `site` to its +d neighbour crosses a tile boundary. */
inline bool crosses_tiles(uint site, uint d)
{
    return site / lattice_stride(d) % EDGE % TILE == TILE - 1;
}

/* One relaxation pass over the bonds that cross tile boundaries (periodic
 * wrap bonds included): the larger of the two roots is hooked under the
 * smaller; *changed is set while any such bond still joins two roots. */
__kernel void relax_tiles(__global const uchar *bonds, volatile __global uint *labels, __global int *changed)
{
    uint site = get_global_id(0);
    if (site >= LABEL_SITES) return;
    bonds += SYSTEM_OFFSET;
    labels += SYSTEM_OFFSET;
    uint active = bonds[site];
    for (uint d = 0; d < DIM; d++) {
        if (!((active >> d) & 1u) || !crosses_tiles(site, d) || LEAVES_SLAB(site, d)) continue;
        uint a = find_root(labels, site), b = find_root(labels, lattice_up(site, d));
        if (a != b) {
            /* Benign race with the find_root reads of other work-items; a
             * root read before this hook is hooked in the next pass. */
            atomic_min(&labels[max(a, b)], min(a, b));
            *changed = 1;
        }
    }
}

/* Joins the trees of sites a and b without locks: the larger root is hooked
 * under the smaller by an atomic minimum; if another work-item hooked it
 * first, the trees of the value found there and of the smaller root are
 * joined in turn, so no connection is lost.  Benign race: the atomic_min
 * races with other work-items' find_root reads (see find_root). */
inline void unite(volatile __global uint *labels, uint a, uint b)
{
    a = find_root(labels, a);
    b = find_root(labels, b);
    while (a != b) {
        uint low = min(a, b), high = max(a, b), before = atomic_min(&labels[high], low);
        if (before == high) return;
        a = find_root(labels, before);
        b = find_root(labels, low);
    }
}

/* Hierarchical sewing, one level: the blocks of edge `block` (tiles at the
 * first level, then 2^dim of them merged per level) are sewn into blocks of
 * edge 2 block by inserting the active bonds across their seams, the planes
 * after coordinate (2 j + 1) block - 1 for j < seams in every direction
 * (seams_last along the last axis: a slab's own count, else seams).
 * With block = EDGE and one seam it inserts the periodic wrap bonds, the
 * last step.  One work-item per seam site; the seams of one level are
 * disjoint and the unions lock-free, so all of a level runs at once. */
__kernel void sew_seams(__global const uchar *bonds, volatile __global uint *labels, uint block, uint seams,
                        uint seams_last)
{
    uint plane = LABEL_SITES / EDGE, item = get_global_id(0), first = (DIM - 1) * seams * plane;
    uint d, seam, p;
    bonds += SYSTEM_OFFSET;
    labels += SYSTEM_OFFSET;
    if (item < first) {
        d = item / (seams * plane);
        seam = item / plane % seams;
        p = item % plane;
    } else {
        uint layer = LABEL_SITES / LAYERS_OR_EDGE, rest = item - first;
        if (rest >= seams_last * layer) return;
        d = DIM - 1;
        seam = rest / layer;
        p = rest % layer;
    }
    uint across = (2 * seam + 1) * block - 1, a = p % EDGE, b = p / EDGE;
#if DIM == 2
    uint site = d == 0 ? across + EDGE * a : a + EDGE * across;
#else
    uint site = d == 0 ? across + EDGE * (a + EDGE * b)
              : d == 1 ? a + EDGE * (across + EDGE * b)
                       : a + EDGE * (b + EDGE * across);
#endif
    if ((bonds[site] >> d) & 1u) unite(labels, site, lattice_up(site, d));
}

/* Every site takes its root's label.  Benign race: a store here races with
 * other work-items' find_root reads; it replaces a label by its root, an
 * ancestor in the same tree, and roots are not changed (a root stores itself),
 * so every walk ends at the same root whichever value it reads. */
__kernel void flatten_labels(volatile __global uint *labels)
{
    uint site = get_global_id(0);
    labels += SYSTEM_OFFSET;
    if (site < LABEL_SITES) labels[site] = find_root(labels, site);
}
