/* Halo exchange of a slab (domain decomposition, docs/mpi.md): a slab's two
 * boundary layers read back on a second command queue into pinned host
 * memory while the interior updates on the model's queue, swapped with the
 * neighbouring ranks, and written back as the halo layers; the model's queue
 * waits for those writes before its next command. */
#ifndef CLMC_MODELS_ISING_HALO_H
#define CLMC_MODELS_ISING_HALO_H

#include "clmc/runtime.h"

typedef struct {
    cl_command_queue compute, copy; /* the model's queue; the transfers' own queue */
    cl_mem pinned;                  /* 4 layers: sent low, sent high, received low, received high */
    unsigned char *host;            /* pinned, mapped for the halo's lifetime */
    size_t layer_bytes;
    int below, above;               /* neighbouring ranks (periodic ring) */
    cl_event read;                  /* the boundary layers' read-back in flight, or NULL */
} ising_halo;

clmc_status ising_halo_create(clmc_runtime *rt, size_t layer_bytes, int below, int above, ising_halo *h);
void ising_halo_release(ising_halo *h);
/* After the boundary layers' updates are enqueued on the model's queue: their
 * read-back (bytes `low` and `high` of `buffer`) on the copy queue. */
clmc_status ising_halo_read(ising_halo *h, cl_mem buffer, size_t low, size_t high);
/* After the interior's update is enqueued: waits for the read-back, swaps the
 * layers with the neighbours (messages tag, tag + 1) and writes the layers
 * received at `halo_low` and `halo_high`; later commands of the model's queue
 * wait for them. */
clmc_status ising_halo_swap(ising_halo *h, cl_mem buffer, size_t halo_low, size_t halo_high, int tag);

#endif
