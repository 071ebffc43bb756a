/* Host side of the connected-component labeling (cl/labeling/labeling.cl). */
#include "clmc/labeling.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "runtime/defines.h"

#define RELAX_PASSES_MAX 100000

static int default_tile(int dim, int edge, int layers)
{
    int tile = dim == 2 ? 64 : 16; /* the largest tiles (4096 sites): fastest on the H200 with union-find */
    while (tile > 1 && (edge % tile != 0 || layers % tile != 0)) tile /= 2;
    return tile;
}

/* Sites labelled: the lattice, or the slab. */
static size_t lattice_sites(const clmc_label_lattice *l)
{
    size_t layer = l->dim == 2 ? (size_t)l->edge : (size_t)l->edge * l->edge;
    return layer * (size_t)(l->layers ? l->layers : l->edge);
}

static clmc_status check_lattice(clmc_label_lattice *l)
{
    if (l->dim != 2 && l->dim != 3) return clmc_fail(CLMC_ERR_INPUT, "labeling: dim must be 2 or 3, got %d", l->dim);
    if (l->edge < 2 || (l->dim == 2 ? (long long)l->edge * l->edge : (long long)l->edge * l->edge * l->edge) >= (1LL << 31))
        return clmc_fail(CLMC_ERR_INPUT, "labeling: edge %d out of range (2 .. edge^dim < 2^31)", l->edge);
    if (l->consolidation != CLMC_CONSOLIDATE_RELAXATION && l->consolidation != CLMC_CONSOLIDATE_SEWING)
        return clmc_fail(CLMC_ERR_INPUT, "labeling: unknown consolidation method %d", (int)l->consolidation);
    if (l->layers < 0 || l->layers >= l->edge)
        return clmc_fail(CLMC_ERR_INPUT, "labeling: a slab of %d layers must be thinner than the edge %d", l->layers,
                         l->edge);
    int layers = l->layers ? l->layers : l->edge;
    if (l->tile == 0) l->tile = default_tile(l->dim, l->edge, layers);
    long long tile_sites = l->dim == 2 ? (long long)l->tile * l->tile : (long long)l->tile * l->tile * l->tile;
    if (l->tile < 1 || l->edge % l->tile != 0 || layers % l->tile != 0 || tile_sites > CLMC_LABEL_TILE_SITES_MAX)
        return clmc_fail(CLMC_ERR_INPUT, "labeling: tile %d must divide the edge %d (and a slab's %d layers) with "
                         "tile^%d <= %d", l->tile, l->edge, layers, l->dim, CLMC_LABEL_TILE_SITES_MAX);
    return CLMC_OK;
}

struct clmc_labeler {
    clmc_runtime *rt;
    clmc_label_lattice lattice;
    size_t sites, tile_sites, wg;
    cl_program program;
    cl_kernel tiles, relax, sew, flatten;
    cl_mem changed;
    bool wraps; /* one tile holds the whole periodic lattice: labelled in label_tiles alone (TILE_WRAPS) */
};

void clmc_labeler_destroy(clmc_labeler *w)
{
    if (!w) return;
    if (w->tiles) CLMC_CL_WARN(clReleaseKernel(w->tiles));
    if (w->relax) CLMC_CL_WARN(clReleaseKernel(w->relax));
    if (w->sew) CLMC_CL_WARN(clReleaseKernel(w->sew));
    if (w->flatten) CLMC_CL_WARN(clReleaseKernel(w->flatten));
    if (w->program) CLMC_CL_WARN(clReleaseProgram(w->program));
    if (w->changed) CLMC_CL_WARN(clReleaseMemObject(w->changed));
    free(w);
}

static clmc_status build(clmc_labeler *w)
{
    const clmc_label_lattice *l = &w->lattice;
    w->sites = lattice_sites(l);
    w->tile_sites = l->dim == 2 ? (size_t)l->tile * l->tile : (size_t)l->tile * l->tile * l->tile;
    w->wg = clmc_runtime_device(w->rt)->max_work_group_size;
    w->wg = w->wg > 256 ? 256 : w->wg;
    while (w->wg > 1 && w->tile_sites % w->wg != 0) w->wg /= 2;
    clmc_defines options = {0};
    clmc_defines_text(&options, "-cl-std=CL1.2");
    clmc_defines_int(&options, "DIM", l->dim);
    clmc_defines_int(&options, "EDGE", l->edge);
    clmc_defines_int(&options, "TILE", l->tile);
    clmc_defines_int(&options, "LABEL_WG", (long long)w->wg);
    clmc_defines_int(&options, "UNION_FIND", l->union_find != 0);
    w->wraps = l->tile == l->edge && !l->layers;
    clmc_defines_int(&options, "TILE_WRAPS", w->wraps);
    if (l->layers) clmc_defines_int(&options, "LAYERS", l->layers);
    CLMC_TRY(clmc_defines_build(w->rt, "labeling/labeling.cl", &options, &w->program));
    CLMC_TRY(clmc_kernel_create(w->program, "label_tiles", &w->tiles));
    CLMC_TRY(clmc_kernel_create(w->program, "relax_tiles", &w->relax));
    CLMC_TRY(clmc_kernel_create(w->program, "sew_seams", &w->sew));
    CLMC_TRY(clmc_kernel_create(w->program, "flatten_labels", &w->flatten));
    return clmc_buffer_create(w->rt, sizeof(cl_int), NULL, "labeling flag", &w->changed);
}

/* Local memory of label_tiles (cl/labeling/labeling.cl): a label and a bond byte per
 * tile site, and one flag. */
static size_t tile_local_bytes(const clmc_label_lattice *l)
{
    size_t sites = l->dim == 2 ? (size_t)l->tile * l->tile : (size_t)l->tile * l->tile * l->tile;
    return sites * (sizeof(cl_uint) + 1) + sizeof(cl_int);
}

/* An automatic tile shrinks until the device's local memory holds it; a
 * tile the preset names is refused with both numbers. */
static clmc_status fit_local_memory(clmc_label_lattice *l, bool automatic, const clmc_device_info *d)
{
    while (automatic && l->tile > 2 && tile_local_bytes(l) > d->local_mem_bytes) l->tile /= 2;
    if (tile_local_bytes(l) <= d->local_mem_bytes) return CLMC_OK;
    return clmc_fail(CLMC_ERR_INPUT, "algorithm.tile: labeling tiles of edge %d need %zu bytes of local memory; %s has "
                     "%llu: choose a smaller tile", l->tile, tile_local_bytes(l), d->name,
                     (unsigned long long)d->local_mem_bytes);
}

clmc_status clmc_labeler_create(clmc_runtime *rt, clmc_label_lattice lattice, clmc_labeler **out)
{
    *out = NULL;
    bool automatic = lattice.tile == 0;
    CLMC_TRY(check_lattice(&lattice));
    CLMC_TRY(fit_local_memory(&lattice, automatic, clmc_runtime_device(rt)));
    clmc_labeler *w = calloc(1, sizeof *w);
    if (!w) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    w->rt = rt;
    w->lattice = lattice;
    clmc_status status = build(w);
    if (status != CLMC_OK) {
        clmc_labeler_destroy(w);
        return status;
    }
    *out = w;
    return CLMC_OK;
}

int clmc_labeler_tile(const clmc_labeler *w) { return w->lattice.tile; }

/* Relaxation passes until no bond across tiles joins two roots. */
static clmc_status relax(clmc_labeler *w, size_t n_systems, unsigned *passes)
{
    cl_command_queue queue = clmc_runtime_queue(w->rt);
    for (*passes = 1; *passes <= RELAX_PASSES_MAX; (*passes)++) {
        cl_int changed = 0;
        CLMC_CL_TRY(clEnqueueWriteBuffer(queue, w->changed, CL_FALSE, 0, sizeof changed, &changed, 0, NULL, NULL));
        size_t global[2] = {w->sites, n_systems};
        CLMC_TRY(clmc_enqueue(w->rt, w->relax, 2, global, NULL, CLMC_TIMED));
        CLMC_CL_TRY(clEnqueueReadBuffer(queue, w->changed, CL_TRUE, 0, sizeof changed, &changed, 0, NULL, NULL));
        if (!changed) return CLMC_OK;
    }
    return clmc_fail(CLMC_ERR_DEVICE, "labeling: no convergence after %d relaxation passes", RELAX_PASSES_MAX);
}

/* Hierarchical sewing: blocks of edge `block` (the tiles first) are sewn
 * into blocks of twice the edge, level by level, until one block covers the
 * lattice; then the periodic wrap bonds.  Where the tiles per edge are not
 * a power of two, the last block of a row is smaller; every seam is sewn at
 * exactly one level.  A slab's last axis (`layers`) has its own seams, none
 * once a block spans it, and no wrap. */
static clmc_status sew(clmc_labeler *w, size_t n_systems, unsigned *levels)
{
    cl_uint edge = (cl_uint)w->lattice.edge, plane = (cl_uint)(w->sites / edge);
    cl_uint layers = (cl_uint)(w->lattice.layers ? w->lattice.layers : w->lattice.edge);
    cl_uint layer = (cl_uint)(w->sites / layers);
    *levels = 0;
    for (cl_uint block = (cl_uint)w->lattice.tile;; block *= 2) {
        int wrap = block >= edge;
        cl_uint at = wrap ? edge : block, seams = wrap ? 1 : (edge + block - 1) / block / 2;
        cl_uint seams_last = w->lattice.layers ? (block >= layers ? 0 : (layers + block - 1) / block / 2) : seams;
        size_t items = (size_t)(w->lattice.dim - 1) * seams * plane + (size_t)seams_last * layer;
        CLMC_CL_TRY(clSetKernelArg(w->sew, 2, sizeof(cl_uint), &at));
        CLMC_CL_TRY(clSetKernelArg(w->sew, 3, sizeof(cl_uint), &seams));
        CLMC_CL_TRY(clSetKernelArg(w->sew, 4, sizeof(cl_uint), &seams_last));
        size_t global[2] = {items, n_systems};
        CLMC_TRY(clmc_enqueue(w->rt, w->sew, 2, global, NULL, CLMC_TIMED));
        (*levels)++;
        if (wrap) return CLMC_OK;
    }
}

static clmc_status set_arguments(clmc_labeler *w, cl_mem bonds, cl_mem labels)
{
    CLMC_CL_TRY(clSetKernelArg(w->tiles, 0, sizeof(cl_mem), &bonds));
    CLMC_CL_TRY(clSetKernelArg(w->tiles, 1, sizeof(cl_mem), &labels));
    CLMC_CL_TRY(clSetKernelArg(w->relax, 0, sizeof(cl_mem), &bonds));
    CLMC_CL_TRY(clSetKernelArg(w->relax, 1, sizeof(cl_mem), &labels));
    CLMC_CL_TRY(clSetKernelArg(w->relax, 2, sizeof(cl_mem), &w->changed));
    CLMC_CL_TRY(clSetKernelArg(w->sew, 0, sizeof(cl_mem), &bonds));
    CLMC_CL_TRY(clSetKernelArg(w->sew, 1, sizeof(cl_mem), &labels));
    CLMC_CL_TRY(clSetKernelArg(w->flatten, 0, sizeof(cl_mem), &labels));
    return CLMC_OK;
}

/* Every system's tiles in one launch, then each consolidation step and the
 * flattening for all systems at once: the launches of one lattice.  Where
 * one tile holds the whole periodic lattice, the tiles' launch joins the
 * wrap bonds too and its labels are final (cl/labeling/labeling.cl,
 * TILE_WRAPS): one launch in all. */
static clmc_status label_systems(clmc_labeler *w, cl_mem bonds, cl_mem labels, size_t n_systems,
                                 clmc_label_report *report)
{
    CLMC_TRY(set_arguments(w, bonds, labels));
    size_t global[2] = {w->sites / w->tile_sites * w->wg, n_systems}, local[2] = {w->wg, 1};
    clmc_runtime_set_phase(w->rt, "local_labeling");
    CLMC_TRY(clmc_enqueue(w->rt, w->tiles, 2, global, local, CLMC_TIMED));
    unsigned passes = 0, levels = 0;
    if (!w->wraps) {
        clmc_runtime_set_phase(w->rt, "consolidation");
        if (w->lattice.consolidation == CLMC_CONSOLIDATE_SEWING) CLMC_TRY(sew(w, n_systems, &levels));
        else CLMC_TRY(relax(w, n_systems, &passes));
        size_t sites[2] = {w->sites, n_systems};
        CLMC_TRY(clmc_enqueue(w->rt, w->flatten, 2, sites, NULL, CLMC_TIMED));
    }
    clmc_runtime_set_phase(w->rt, NULL);
    if (report) {
        report->relax_passes = passes;
        report->sewing_levels = levels;
        report->tile = w->lattice.tile;
    }
    return CLMC_OK;
}

clmc_status clmc_labeler_run(clmc_labeler *w, cl_mem bonds, cl_mem labels, clmc_label_report *report)
{
    return label_systems(w, bonds, labels, 1, report);
}

clmc_status clmc_labeler_run_systems(clmc_labeler *w, cl_mem bonds, cl_mem labels, size_t n_systems)
{
    if (n_systems == 0) return CLMC_OK;
    return label_systems(w, bonds, labels, n_systems, NULL);
}

clmc_status clmc_label_bonds(clmc_runtime *rt, clmc_label_lattice lattice, const uint8_t *bonds, uint32_t *labels,
                             clmc_label_report *report)
{
    clmc_labeler *w = NULL;
    CLMC_TRY(clmc_labeler_create(rt, lattice, &w));
    cl_mem bond_buffer = NULL, label_buffer = NULL;
    clmc_status status = clmc_buffer_create(rt, w->sites, bonds, "bonds", &bond_buffer);
    if (status == CLMC_OK) status = clmc_buffer_create(rt, w->sites * sizeof(cl_uint), NULL, "labels", &label_buffer);
    if (status == CLMC_OK) status = clmc_labeler_run(w, bond_buffer, label_buffer, report);
    if (status == CLMC_OK) {
        cl_int err = clEnqueueReadBuffer(clmc_runtime_queue(rt), label_buffer, CL_TRUE, 0, w->sites * sizeof(cl_uint),
                                         labels, 0, NULL, NULL);
        if (err != CL_SUCCESS) status = clmc_fail(CLMC_ERR_DEVICE, "clEnqueueReadBuffer(labels): %s",
                                                  clmc_cl_error_name(err));
    }
    if (bond_buffer) CLMC_CL_WARN(clReleaseMemObject(bond_buffer));
    if (label_buffer) CLMC_CL_WARN(clReleaseMemObject(label_buffer));
    clmc_labeler_destroy(w);
    return status;
}
