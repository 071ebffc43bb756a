/* Swendsen-Wang across MPI ranks (potts_slab.h, docs/mpi.md).
 *
 * The merge: each rank's device writes its boundary record
 * (potts_boundary_record of cl/potts/potts.cl), one entry per site of its
 * first and last layer: every part of a cluster in the slab that touches
 * them is represented by one position, which holds the part's local root,
 * the others pointing to it; bit 31 of a last-layer entry is its bond to the
 * rank above.  One read, one MPI_Allgather, and every rank runs the same
 * union-find over the K records (flat arrays, no hashing: a record is a
 * forest of depth one), joining the last layer of rank r with the first of
 * rank r + 1 (mod K) where the bond is active: only the representatives of
 * parts so bonded enter it, made sets at their first touch (per-position
 * stamps, nothing reset per sweep), the set with the
 * smaller global label (local root + the rank's first site) always the root,
 * so each set's root is the smallest global site of its cluster: the label
 * one device gives it (a cluster's smallest site lies in a slab where the
 * cluster's part has it as its local root).  Each rank writes the merged
 * label into its own touched roots whose set has a smaller root elsewhere. */
#include "models/potts/potts_slab.h"

#include <stdlib.h>
#include <string.h>

#include "runtime/ranks.h"

#define BOND_BIT 0x80000000u
#define PART_MARK 0x40000000u
#define ROOT_MERGED 0x80000000u
#define HALO_TAG 71

clmc_status potts_slab_create(clmc_runtime *rt, cl_program program, int dim, int edge, potts_slab *h)
{
    const clmc_ranks_info *ranks = clmc_ranks();
    *h = (potts_slab){.rt = rt, .dim = dim, .slab = edge / ranks->size, .rank = ranks->rank, .ranks = ranks->size};
    h->layer = (size_t)edge * (dim == 3 ? (size_t)edge : 1);
    size_t record = 2 * h->layer, nodes = record * (size_t)h->ranks;
    h->all = malloc(nodes * sizeof *h->all);
    h->parent = malloc(nodes * sizeof *h->parent);
    h->smallest = malloc(nodes * sizeof *h->smallest);
    h->stamp = calloc(nodes, sizeof *h->stamp);
    h->touched = malloc(record * sizeof *h->touched);
    h->bonded = malloc(h->layer * sizeof *h->bonded);
    h->own = (cl_uint)(record * (size_t)h->rank);
    h->pairs = malloc(2 * record * sizeof *h->pairs);
    h->bytes = malloc(2 * h->layer);
    if (!h->all || !h->parent || !h->smallest || !h->stamp || !h->touched || !h->bonded || !h->pairs || !h->bytes)
        return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    CLMC_TRY(clmc_kernel_create(program, "potts_mark_top_parts", &h->mark_top_parts));
    CLMC_TRY(clmc_kernel_create(program, "potts_boundary_record", &h->boundary_record));
    CLMC_TRY(clmc_kernel_create(program, "potts_merge_roots", &h->merge_roots));
    CLMC_TRY(clmc_buffer_create(rt, record * sizeof(cl_uint), NULL, "potts slab boundary record", &h->record));
    return clmc_buffer_create(rt, 2 * record * sizeof(cl_uint), NULL, "potts slab roots", &h->roots);
}

void potts_slab_release(potts_slab *h)
{
    if (h->rt && h->roots) CLMC_CL_WARN(clFinish(clmc_runtime_queue(h->rt))); /* the unwaited uploads from host memory */
    if (h->mark_top_parts) CLMC_CL_WARN(clReleaseKernel(h->mark_top_parts));
    if (h->boundary_record) CLMC_CL_WARN(clReleaseKernel(h->boundary_record));
    if (h->merge_roots) CLMC_CL_WARN(clReleaseKernel(h->merge_roots));
    if (h->record) CLMC_CL_WARN(clReleaseMemObject(h->record));
    if (h->roots) CLMC_CL_WARN(clReleaseMemObject(h->roots));
    free(h->all);
    free(h->parent);
    free(h->smallest);
    free(h->stamp);
    free(h->touched);
    free(h->bonded);
    free(h->pairs);
    free(h->bytes);
    *h = (potts_slab){0};
}

clmc_status potts_slab_halo(potts_slab *h, cl_mem spins)
{
    cl_command_queue queue = clmc_runtime_queue(h->rt);
    unsigned char *received = h->bytes + h->layer;
    cl_event read;
    CLMC_CL_TRY(clEnqueueReadBuffer(queue, spins, CL_FALSE, 0, h->layer, h->bytes, 0, NULL, &read));
    cl_int err = clWaitForEvents(1, &read); /* after the flips: device time, not the exchange's */
    CLMC_CL_WARN(clReleaseEvent(read));
    CLMC_CL_CHECK(err, "clWaitForEvents(first layer)");
    double start = clmc_runtime_clock();
    int below = (h->rank + h->ranks - 1) % h->ranks, above = (h->rank + 1) % h->ranks;
    clmc_status status = clmc_ranks_exchange(h->bytes, below, received, above, h->layer, HALO_TAG);
    /* Not waited for: the queue runs it before the next sweep's bonds, and
     * `received` is next written after the next halo read, behind it. */
    if (status == CLMC_OK) {
        err = clEnqueueWriteBuffer(queue, spins, CL_FALSE, (size_t)h->slab * h->layer, h->layer, received, 0, NULL,
                                   NULL);
        if (err != CL_SUCCESS)
            status = clmc_fail(CLMC_ERR_DEVICE, "clEnqueueWriteBuffer(halo layer): %s", clmc_cl_error_name(err));
    }
    h->halo_seconds += clmc_runtime_clock() - start;
    return status;
}

static cl_uint root_of(cl_uint *parent, cl_uint node)
{
    while (parent[node] != node) {
        parent[node] = parent[parent[node]]; /* path halving */
        node = parent[node];
    }
    return node;
}

/* A representative's set, made a set of its own at its first touch this
 * merge (stamp != epoch; this rank's own listed in `touched`): nothing over
 * all K x 2 L^(d-1) positions is reset per sweep.  `label`: its part's global
 * label, local root + the rank's first site. */
static cl_uint touch(potts_slab *h, cl_uint node, cl_uint label)
{
    if (h->stamp[node] != h->epoch) {
        h->stamp[node] = h->epoch;
        h->parent[node] = node;
        h->smallest[node] = label;
        if (node - h->own < 2 * h->layer) h->touched[h->touched_count++] = node;
        return node;
    }
    return root_of(h->parent, node);
}

/* The position representing position `at`'s part (records are forests of
 * depth one). */
static cl_uint representative(const cl_uint *all, cl_uint base, cl_uint at)
{
    cl_uint entry = all[base + at];
    return entry & PART_MARK ? base + (entry & ~(BOND_BIT | PART_MARK)) : base + at;
}

/* Device: the record of this rank's boundary, read into its place in `all`
 * (the read waited for: the labeling's device time, not the merge's). */
static clmc_status read_record(potts_slab *h, cl_mem bonds, cl_mem labels)
{
    size_t n = h->layer, items[2] = {n, 2 * n};
    CLMC_CL_TRY(clSetKernelArg(h->mark_top_parts, 0, sizeof(cl_mem), &labels));
    CLMC_TRY(clmc_enqueue(h->rt, h->mark_top_parts, 1, &items[0], NULL, CLMC_TIMED));
    CLMC_CL_TRY(clSetKernelArg(h->boundary_record, 0, sizeof(cl_mem), &labels));
    CLMC_CL_TRY(clSetKernelArg(h->boundary_record, 1, sizeof(cl_mem), &bonds));
    CLMC_CL_TRY(clSetKernelArg(h->boundary_record, 2, sizeof(cl_mem), &h->record));
    CLMC_TRY(clmc_enqueue(h->rt, h->boundary_record, 1, &items[1], NULL, CLMC_TIMED));
    cl_event read;
    cl_uint *mine = h->all + 2 * n * (size_t)h->rank;
    CLMC_CL_TRY(clEnqueueReadBuffer(clmc_runtime_queue(h->rt), h->record, CL_FALSE, 0, 2 * n * sizeof(cl_uint), mine,
                                    0, NULL, &read));
    cl_int err = clWaitForEvents(1, &read);
    CLMC_CL_WARN(clReleaseEvent(read));
    CLMC_CL_CHECK(err, "clWaitForEvents(boundary record)");
    return CLMC_OK;
}

/* The K records' parts joined across the slab boundaries where the bond is
 * active: only the representatives of parts with such a bond enter the
 * union-find (the bonded positions listed first, without branches), each
 * pair once per run of equal pairs along the boundary (the neighbouring
 * sites of one part pair mostly share it), the set with the larger smallest
 * label going under the other. */
static void union_find(potts_slab *h)
{
    size_t n = h->layer, record = 2 * n, slab_sites = (size_t)h->slab * n;
    if (++h->epoch == 0) { /* wrapped: every stamp could read as current */
        memset(h->stamp, 0, record * (size_t)h->ranks * sizeof *h->stamp);
        h->epoch = 1;
    }
    h->touched_count = 0;
    const cl_uint *all = h->all;
    cl_uint *bonded = h->bonded;
    for (int r = 0; r < h->ranks; r++) {
        int up = (r + 1) % h->ranks;
        cl_uint below = (cl_uint)(record * (size_t)r), above = (cl_uint)(record * (size_t)up);
        cl_uint offset_below = (cl_uint)(slab_sites * (size_t)r), offset_above = (cl_uint)(slab_sites * (size_t)up);
        const cl_uint *last = all + below + n;
        size_t count = 0;
        for (cl_uint x = 0; x < n; x++) {
            bonded[count] = x;
            count += last[x] >> 31; /* BOND_BIT */
        }
        cl_uint last_a = UINT32_MAX, last_b = UINT32_MAX;
        for (size_t k = 0; k < count; k++) {
            cl_uint x = bonded[k];
            cl_uint a = representative(all, below, (cl_uint)n + x), b = representative(all, above, x);
            if (a == last_a && b == last_b) continue;
            last_a = a;
            last_b = b;
            a = touch(h, a, (all[a] & ~BOND_BIT) + offset_below);
            b = touch(h, b, (all[b] & ~BOND_BIT) + offset_above);
            if (a == b) continue;
            if (h->smallest[a] < h->smallest[b]) h->parent[b] = a;
            else h->parent[a] = b;
        }
    }
}

clmc_status potts_slab_merge(potts_slab *h, cl_mem bonds, cl_mem labels)
{
    CLMC_TRY(read_record(h, bonds, labels));
    double start = clmc_runtime_clock();
    size_t n = h->layer, record = 2 * n;
    cl_uint *mine = h->all + record * (size_t)h->rank;
    CLMC_TRY(clmc_ranks_allgather(mine, record * sizeof(cl_uint), h->all));
    double gathered = clmc_runtime_clock();
    union_find(h);
    /* This rank's representatives whose set's smallest label is another
     * (those untouched are sets of their own). */
    cl_uint count = 0;
    for (cl_uint k = 0; k < h->touched_count; k++) {
        cl_uint node = h->touched[k], smallest = h->smallest[root_of(h->parent, node)];
        if (smallest == h->smallest[node]) continue;
        h->pairs[2 * count] = h->all[node] & ~(BOND_BIT | PART_MARK);
        h->pairs[2 * count + 1] = ROOT_MERGED | smallest;
        count++;
    }
    h->merged_roots += count;
    double found = clmc_runtime_clock();
    if (count) { /* not waited for: `pairs` is next written after the next record's read, behind it */
        CLMC_CL_TRY(clEnqueueWriteBuffer(clmc_runtime_queue(h->rt), h->roots, CL_FALSE, 0,
                                         2 * count * sizeof(cl_uint), h->pairs, 0, NULL, NULL));
        CLMC_CL_TRY(clSetKernelArg(h->merge_roots, 0, sizeof(cl_mem), &labels));
        CLMC_CL_TRY(clSetKernelArg(h->merge_roots, 1, sizeof(cl_mem), &h->roots));
        CLMC_CL_TRY(clSetKernelArg(h->merge_roots, 2, sizeof(cl_uint), &count));
        size_t items = count;
        CLMC_TRY(clmc_enqueue(h->rt, h->merge_roots, 1, &items, NULL, CLMC_TIMED));
    }
    double end = clmc_runtime_clock();
    h->allgather_seconds += gathered - start;
    h->union_find_seconds += found - gathered;
    h->upload_seconds += end - found;
    h->merge_seconds += end - start;
    return CLMC_OK;
}
