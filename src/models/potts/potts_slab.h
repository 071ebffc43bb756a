/* Swendsen-Wang on a slab of one lattice cut over MPI ranks (docs/mpi.md):
 * the halo layer of spins each rank reads above its slab, and the merge of
 * the clusters that cross slab boundaries, after each rank labelled its slab
 * (cl/labeling/labeling.cl with LAYERS) and before the flips. */
#ifndef CLMC_MODELS_POTTS_SLAB_H
#define CLMC_MODELS_POTTS_SLAB_H

#include <stdint.h>

#include "clmc/runtime.h"

typedef struct {
    clmc_runtime *rt;
    int dim, slab, rank, ranks; /* this rank holds layers [rank slab, (rank + 1) slab) */
    size_t layer;               /* sites per layer */
    cl_kernel mark_top_parts, boundary_record, merge_roots; /* of cl/potts/potts.cl */
    cl_mem record;              /* this rank's boundary record on the device */
    cl_mem roots;               /* (local root, merged label) pairs for the device */
    cl_uint *all;               /* every rank's boundary record, rank after rank (this rank's read into its place) */
    cl_uint *parent, *smallest; /* host union-find over the records' positions; a set's smallest global label */
    cl_uint *stamp, epoch;      /* positions in the union-find this merge: stamp == epoch (one per merge) */
    cl_uint *touched, touched_count, own; /* those of this rank (its record from position `own`) */
    cl_uint *bonded;                      /* the last layer's positions with an active bond, one boundary's */
    cl_uint *pairs;
    unsigned char *bytes; /* two layers of spins: read back, received */
    /* host wall time: merge (MPI, union-find, upload) and halo exchange; the
     * merge's pieces: allgather, union-find, upload */
    double merge_seconds, halo_seconds, allgather_seconds, union_find_seconds, upload_seconds;
    uint64_t merged_roots; /* roots relabelled across ranks, summed over sweeps */
} potts_slab;

clmc_status potts_slab_create(clmc_runtime *rt, cl_program program, int dim, int edge, potts_slab *h);
void potts_slab_release(potts_slab *h);
/* Writes the rank above's first layer of `spins` into this slab's halo
 * layer (after layer slab - 1). Collective. */
clmc_status potts_slab_halo(potts_slab *h, cl_mem spins);
/* After the slab's labels (local smallest sites) and bonds are final: every
 * cluster that crosses a slab boundary gets, at its local root, ROOT_MERGED
 * | its global smallest site, the label one device gives it. Collective. */
clmc_status potts_slab_merge(potts_slab *h, cl_mem bonds, cl_mem labels);

#endif
