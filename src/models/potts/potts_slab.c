/* Swendsen-Wang across MPI ranks (potts_slab.h, docs/mpi.md).
 *
 * The merge: each rank sends every rank its boundary record, the labels of
 * its first and last layer (global = local + rank x slab sites) and the bonds
 * out of its last layer along the last axis (bit 31 of the last layer's
 * labels; sites number below 2^30).  Every rank then runs the same host
 * union-find over the distinct boundary labels, joining the last layer of
 * rank r with the first of rank r + 1 (mod K) where the bond is active, the
 * smaller label always the root, so each set's root is the smallest global
 * site of its cluster: the label one device gives it (a cluster's smallest
 * site lies in a slab where the cluster's part has it as its local root).
 * Each rank writes the merged label into its own roots whose set has a
 * smaller root elsewhere. */
#include "models/potts/potts_slab.h"

#include <stdlib.h>
#include <string.h>

#include "runtime/ranks.h"

#define EMPTY 0xffffffffu
#define BOND_BIT 0x80000000u
#define ROOT_MERGED 0x80000000u
#define HALO_TAG 71

clmc_status potts_slab_create(clmc_runtime *rt, cl_program program, int dim, int edge, potts_slab *h)
{
    const clmc_ranks_info *ranks = clmc_ranks();
    *h = (potts_slab){.rt = rt, .dim = dim, .slab = edge / ranks->size, .rank = ranks->rank, .ranks = ranks->size};
    h->layer = (size_t)edge * (dim == 3 ? (size_t)edge : 1);
    size_t record = 2 * h->layer, nodes = record * (size_t)h->ranks;
    for (h->capacity = 16; h->capacity < 2 * nodes; h->capacity *= 2) {}
    h->edges = malloc(record * sizeof *h->edges);
    h->all = malloc(nodes * sizeof *h->all);
    h->bytes = malloc(2 * h->layer);
    h->keys = malloc(h->capacity * sizeof *h->keys);
    h->parent = malloc(h->capacity * sizeof *h->parent);
    h->emitted = malloc(h->capacity);
    h->pairs = malloc(2 * record * sizeof *h->pairs);
    if (!h->edges || !h->all || !h->bytes || !h->keys || !h->parent || !h->emitted || !h->pairs)
        return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    CLMC_TRY(clmc_kernel_create(program, "potts_merge_roots", &h->merge_roots));
    return clmc_buffer_create(rt, 2 * record * sizeof(cl_uint), NULL, "potts slab roots", &h->roots);
}

void potts_slab_release(potts_slab *h)
{
    if (h->merge_roots) CLMC_CL_WARN(clReleaseKernel(h->merge_roots));
    if (h->roots) CLMC_CL_WARN(clReleaseMemObject(h->roots));
    free(h->edges);
    free(h->all);
    free(h->bytes);
    free(h->keys);
    free(h->parent);
    free(h->emitted);
    free(h->pairs);
    *h = (potts_slab){0};
}

clmc_status potts_slab_halo(potts_slab *h, cl_mem spins)
{
    cl_command_queue queue = clmc_runtime_queue(h->rt);
    CLMC_CL_TRY(clFinish(queue)); /* the flips: device time, not the exchange's */
    double start = clmc_runtime_clock();
    unsigned char *received = h->bytes + h->layer;
    cl_int err = clEnqueueReadBuffer(queue, spins, CL_TRUE, 0, h->layer, h->bytes, 0, NULL, NULL);
    clmc_status status = err == CL_SUCCESS ? CLMC_OK : clmc_fail(CLMC_ERR_DEVICE, "clEnqueueReadBuffer(first layer): "
                                                                 "%s", clmc_cl_error_name(err));
    int below = (h->rank + h->ranks - 1) % h->ranks, above = (h->rank + 1) % h->ranks;
    if (status == CLMC_OK) status = clmc_ranks_exchange(h->bytes, below, received, above, h->layer, HALO_TAG);
    if (status == CLMC_OK) {
        err = clEnqueueWriteBuffer(queue, spins, CL_TRUE, (size_t)h->slab * h->layer, h->layer, received, 0, NULL,
                                   NULL);
        if (err != CL_SUCCESS)
            status = clmc_fail(CLMC_ERR_DEVICE, "clEnqueueWriteBuffer(halo layer): %s", clmc_cl_error_name(err));
    }
    h->halo_seconds += clmc_runtime_clock() - start;
    return status;
}

/* The slot of global label `key`, inserted as its own set where new. */
static size_t node_of(potts_slab *h, cl_uint key)
{
    size_t mask = h->capacity - 1, slot = ((size_t)key * 2654435761u) & mask;
    while (h->keys[slot] != EMPTY && h->keys[slot] != key) slot = (slot + 1) & mask;
    if (h->keys[slot] == EMPTY) {
        h->keys[slot] = key;
        h->parent[slot] = (cl_uint)slot;
        h->emitted[slot] = 0;
    }
    return slot;
}

static size_t root_of(potts_slab *h, size_t slot)
{
    while (h->parent[slot] != slot) {
        h->parent[slot] = h->parent[h->parent[slot]]; /* path halving */
        slot = h->parent[slot];
    }
    return slot;
}

/* The set with the larger smallest label goes under the other. */
static void unite(potts_slab *h, size_t a, size_t b)
{
    a = root_of(h, a);
    b = root_of(h, b);
    if (a == b) return;
    if (h->keys[a] < h->keys[b]) h->parent[b] = (cl_uint)a;
    else h->parent[a] = (cl_uint)b;
}

clmc_status potts_slab_merge(potts_slab *h, cl_mem bonds, cl_mem labels)
{
    cl_command_queue queue = clmc_runtime_queue(h->rt);
    CLMC_CL_TRY(clFinish(queue)); /* the labeling: device time, not the merge's */
    double start = clmc_runtime_clock();
    size_t n = h->layer, top = (size_t)(h->slab - 1) * n, slab_sites = (size_t)h->slab * n;
    cl_uint *bottom_labels = h->edges, *top_labels = h->edges + n;
    cl_int err = clEnqueueReadBuffer(queue, labels, CL_FALSE, 0, n * sizeof(cl_uint), bottom_labels, 0, NULL, NULL);
    if (err == CL_SUCCESS)
        err = clEnqueueReadBuffer(queue, labels, CL_FALSE, top * sizeof(cl_uint), n * sizeof(cl_uint), top_labels, 0,
                                  NULL, NULL);
    if (err == CL_SUCCESS) err = clEnqueueReadBuffer(queue, bonds, CL_TRUE, top, n, h->bytes, 0, NULL, NULL);
    if (err != CL_SUCCESS)
        return clmc_fail(CLMC_ERR_DEVICE, "clEnqueueReadBuffer(boundary labels): %s", clmc_cl_error_name(err));
    for (size_t x = 0; x < n; x++)
        if ((h->bytes[x] >> (h->dim - 1)) & 1u) top_labels[x] |= BOND_BIT;
    CLMC_TRY(clmc_ranks_allgather(h->edges, 2 * n * sizeof(cl_uint), h->all));

    memset(h->keys, 0xff, h->capacity * sizeof *h->keys);
    for (int r = 0; r < h->ranks; r++) {
        const cl_uint *last = h->all + 2 * n * (size_t)r + n;
        const cl_uint *next = h->all + 2 * n * (size_t)((r + 1) % h->ranks);
        cl_uint offset = (cl_uint)(slab_sites * (size_t)r);
        cl_uint next_offset = (cl_uint)(slab_sites * (size_t)((r + 1) % h->ranks));
        for (size_t x = 0; x < n; x++) {
            size_t own = node_of(h, (last[x] & ~BOND_BIT) + offset);
            if (last[x] & BOND_BIT) unite(h, own, node_of(h, next[x] + next_offset));
        }
    }
    /* This rank's roots whose set's smallest label is another. */
    cl_uint offset = (cl_uint)(slab_sites * (size_t)h->rank), count = 0;
    for (size_t i = 0; i < 2 * n; i++) {
        cl_uint local = h->edges[i] & ~BOND_BIT;
        size_t slot = node_of(h, local + offset);
        if (h->emitted[slot]) continue;
        h->emitted[slot] = 1;
        cl_uint smallest = h->keys[root_of(h, slot)];
        if (smallest == local + offset) continue;
        h->pairs[2 * count] = local;
        h->pairs[2 * count + 1] = ROOT_MERGED | smallest;
        count++;
    }
    h->merged_roots += count;
    if (count) {
        CLMC_CL_TRY(clEnqueueWriteBuffer(queue, h->roots, CL_TRUE, 0, 2 * count * sizeof(cl_uint), h->pairs, 0, NULL,
                                         NULL));
        CLMC_CL_TRY(clSetKernelArg(h->merge_roots, 0, sizeof(cl_mem), &labels));
        CLMC_CL_TRY(clSetKernelArg(h->merge_roots, 1, sizeof(cl_mem), &h->roots));
        CLMC_CL_TRY(clSetKernelArg(h->merge_roots, 2, sizeof(cl_uint), &count));
        size_t items = count;
        CLMC_TRY(clmc_enqueue(h->rt, h->merge_roots, 1, &items, NULL, CLMC_TIMED));
    }
    h->merge_seconds += clmc_runtime_clock() - start;
    return CLMC_OK;
}
