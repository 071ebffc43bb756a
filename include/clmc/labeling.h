/* Connected-component labeling of a bond configuration on the device
 * (cl/labeling/labeling.cl): self-labeling or union-find in tiles, then label
 * relaxation or hierarchical sewing across them.
 * Usable on its own, e.g. for percolation or image segmentation. */
#ifndef CLMC_LABELING_H
#define CLMC_LABELING_H

#include <stdint.h>

#include "clmc/runtime.h"
#include "clmc/status.h"

/* Periodic square (dim 2) or simple cubic (dim 3) lattice of edge `edge`,
 * sites row-major with x fastest; bonds[site] bit d set = the bond from the
 * site to its +d neighbour is active.  `tile` (dividing edge, tile^dim at
 * most CLMC_LABEL_TILE_SITES_MAX) is the edge of the local-memory tiles;
 * 0 picks 64 in 2D and 16 in 3D (halved until it divides the edge). */
#define CLMC_LABEL_TILE_SITES_MAX 4096

typedef enum {
    CLMC_CONSOLIDATE_SEWING = 0,     /* hierarchical sewing: 2^dim blocks per level, wrap bonds last (default:
                                        no host round trip; 0.010 against 0.034 ns per site at L=8192, H100) */
    CLMC_CONSOLIDATE_RELAXATION = 1, /* label relaxation, repeated until no root changes */
} clmc_consolidation;

typedef struct {
    int dim, edge, tile;
    int union_find; /* 0: self-labeling in tiles, 1: union-find in tiles (same labels) */
    clmc_consolidation consolidation; /* across tiles; every method gives the same labels */
    /* 0: the periodic lattice above.  Else a slab (MPI domain decomposition,
     * docs/mpi.md): `layers` (< edge, a multiple of the tile) layers along
     * the last axis, open there (the bonds out of the last layer along it are
     * not joined), periodic in the others; edge^(dim-1) x layers sites. */
    int layers;
} clmc_label_lattice;

typedef struct {
    unsigned relax_passes; /* relaxation passes until no root changed (0 with sewing) */
    unsigned sewing_levels; /* sewing launches, the wrap bonds' included (0 with relaxation) */
    /* both 0 where one tile holds the whole periodic lattice: the tiles'
     * launch joins the wrap bonds, and nothing is left to consolidate */
    int tile;               /* the tile edge used */
} clmc_label_report;

/* labels[site] = the smallest site index in the site's cluster.  The
 * labeler's timed launches count under the runtime phases "local_labeling"
 * and "consolidation" (flattening included).  Host
 * arrays of edge^dim entries; the runtime's device does the work. */
clmc_status clmc_label_bonds(clmc_runtime *rt, clmc_label_lattice lattice, const uint8_t *bonds, uint32_t *labels,
                             clmc_label_report *report);

/* The same on device buffers (uchar bonds, uint labels of edge^dim
 * entries), for models that label every sweep: kernels built once. */
typedef struct clmc_labeler clmc_labeler;
clmc_status clmc_labeler_create(clmc_runtime *rt, clmc_label_lattice lattice, clmc_labeler **out);
clmc_status clmc_labeler_run(clmc_labeler *labeler, cl_mem bonds, cl_mem labels, clmc_label_report *report);
void clmc_labeler_destroy(clmc_labeler *labeler);
/* n_systems lattices one after another in bonds and labels (n_systems x
 * edge^dim entries each), each labelled as if alone (labels are site
 * indices within its system), all in the launches of one lattice (the
 * kernels' second NDRange dimension counts the systems).  Timed as
 * clmc_labeler_run. */
clmc_status clmc_labeler_run_systems(clmc_labeler *labeler, cl_mem bonds, cl_mem labels, size_t n_systems);
/* The tile edge in use (the default resolved). */
int clmc_labeler_tile(const clmc_labeler *labeler);

#endif
