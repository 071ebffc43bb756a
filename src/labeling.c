/* Host side of the connected-component labeling (cl/labeling.cl). */
#include "clmc/labeling.h"

#include <stdio.h>

#define RELAX_PASSES_MAX 100000

static int default_tile(int dim, int edge)
{
    int tile = dim == 2 ? 16 : 8;
    while (tile > 1 && edge % tile != 0) tile /= 2;
    return tile;
}

static clmc_status check_lattice(clmc_label_lattice *l)
{
    if (l->dim != 2 && l->dim != 3) return clmc_fail(CLMC_ERR_INPUT, "labeling: dim must be 2 or 3, got %d", l->dim);
    if (l->edge < 2 || (l->dim == 2 ? (long long)l->edge * l->edge : (long long)l->edge * l->edge * l->edge) >= (1LL << 31))
        return clmc_fail(CLMC_ERR_INPUT, "labeling: edge %d out of range (2 .. edge^dim < 2^31)", l->edge);
    if (l->tile == 0) l->tile = default_tile(l->dim, l->edge);
    long long tile_sites = l->dim == 2 ? (long long)l->tile * l->tile : (long long)l->tile * l->tile * l->tile;
    if (l->tile < 1 || l->edge % l->tile != 0 || tile_sites > CLMC_LABEL_TILE_SITES_MAX)
        return clmc_fail(CLMC_ERR_INPUT, "labeling: tile %d must divide the edge %d with tile^%d <= %d", l->tile,
                         l->edge, l->dim, CLMC_LABEL_TILE_SITES_MAX);
    return CLMC_OK;
}

typedef struct {
    cl_program program;
    cl_kernel tiles, relax, flatten;
    cl_mem bonds, labels, changed;
} labeling;

static void release(labeling *w)
{
    if (w->tiles) CLMC_CL_WARN(clReleaseKernel(w->tiles));
    if (w->relax) CLMC_CL_WARN(clReleaseKernel(w->relax));
    if (w->flatten) CLMC_CL_WARN(clReleaseKernel(w->flatten));
    if (w->program) CLMC_CL_WARN(clReleaseProgram(w->program));
    cl_mem buffers[] = {w->bonds, w->labels, w->changed};
    for (size_t i = 0; i < sizeof buffers / sizeof buffers[0]; i++)
        if (buffers[i]) CLMC_CL_WARN(clReleaseMemObject(buffers[i]));
}

static clmc_status create_buffer(clmc_runtime *rt, cl_mem_flags flags, size_t bytes, void *host, cl_mem *out)
{
    cl_int err;
    *out = clCreateBuffer(clmc_runtime_context(rt), flags, bytes, host, &err);
    CLMC_CL_CHECK(err, "clCreateBuffer(labeling)");
    return CLMC_OK;
}

/* Relaxation passes until no bond across tiles joins two roots. */
static clmc_status relax(clmc_runtime *rt, labeling *w, size_t sites, unsigned *passes)
{
    cl_command_queue queue = clmc_runtime_queue(rt);
    for (*passes = 1; *passes <= RELAX_PASSES_MAX; (*passes)++) {
        cl_int changed = 0;
        CLMC_CL_TRY(clEnqueueWriteBuffer(queue, w->changed, CL_FALSE, 0, sizeof changed, &changed, 0, NULL, NULL));
        CLMC_TRY(clmc_enqueue(rt, w->relax, 1, &sites, NULL, CLMC_UNTIMED));
        CLMC_CL_TRY(clEnqueueReadBuffer(queue, w->changed, CL_TRUE, 0, sizeof changed, &changed, 0, NULL, NULL));
        if (!changed) return CLMC_OK;
    }
    return clmc_fail(CLMC_ERR_DEVICE, "labeling: no convergence after %d relaxation passes", RELAX_PASSES_MAX);
}

static clmc_status run(clmc_runtime *rt, const clmc_label_lattice *l, const uint8_t *bonds, uint32_t *labels,
                       clmc_label_report *report, labeling *w)
{
    size_t sites = l->dim == 2 ? (size_t)l->edge * l->edge : (size_t)l->edge * l->edge * l->edge;
    size_t tile_sites = l->dim == 2 ? (size_t)l->tile * l->tile : (size_t)l->tile * l->tile * l->tile;
    size_t wg = clmc_runtime_device(rt)->max_work_group_size;
    wg = wg > 256 ? 256 : wg;
    while (wg > 1 && tile_sites % wg != 0) wg /= 2;
    char options[256];
    snprintf(options, sizeof options, "-cl-std=CL1.2 -DDIM=%d -DEDGE=%d -DTILE=%d -DLABEL_WG=%zu", l->dim, l->edge,
             l->tile, wg);
    CLMC_TRY(clmc_program_build(rt, "labeling.cl", options, &w->program));
    CLMC_TRY(clmc_kernel_create(w->program, "label_tiles", &w->tiles));
    CLMC_TRY(clmc_kernel_create(w->program, "relax_tiles", &w->relax));
    CLMC_TRY(clmc_kernel_create(w->program, "flatten_labels", &w->flatten));
    CLMC_TRY(create_buffer(rt, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sites, (void *)bonds, &w->bonds));
    CLMC_TRY(create_buffer(rt, CL_MEM_READ_WRITE, sites * sizeof(cl_uint), NULL, &w->labels));
    CLMC_TRY(create_buffer(rt, CL_MEM_READ_WRITE, sizeof(cl_int), NULL, &w->changed));
    CLMC_CL_TRY(clSetKernelArg(w->tiles, 0, sizeof(cl_mem), &w->bonds));
    CLMC_CL_TRY(clSetKernelArg(w->tiles, 1, sizeof(cl_mem), &w->labels));
    CLMC_CL_TRY(clSetKernelArg(w->relax, 0, sizeof(cl_mem), &w->bonds));
    CLMC_CL_TRY(clSetKernelArg(w->relax, 1, sizeof(cl_mem), &w->labels));
    CLMC_CL_TRY(clSetKernelArg(w->relax, 2, sizeof(cl_mem), &w->changed));
    CLMC_CL_TRY(clSetKernelArg(w->flatten, 0, sizeof(cl_mem), &w->labels));
    size_t global = sites / tile_sites * wg;
    CLMC_TRY(clmc_enqueue(rt, w->tiles, 1, &global, &wg, CLMC_UNTIMED));
    unsigned passes = 0;
    CLMC_TRY(relax(rt, w, sites, &passes));
    CLMC_TRY(clmc_enqueue(rt, w->flatten, 1, &sites, NULL, CLMC_UNTIMED));
    CLMC_CL_TRY(clEnqueueReadBuffer(clmc_runtime_queue(rt), w->labels, CL_TRUE, 0, sites * sizeof(cl_uint), labels, 0,
                                    NULL, NULL));
    if (report) {
        report->relax_passes = passes;
        report->tile = l->tile;
    }
    return CLMC_OK;
}

clmc_status clmc_label_bonds(clmc_runtime *rt, clmc_label_lattice lattice, const uint8_t *bonds, uint32_t *labels,
                             clmc_label_report *report)
{
    CLMC_TRY(check_lattice(&lattice));
    labeling w = {0};
    clmc_status status = run(rt, &lattice, bonds, labels, report, &w);
    release(&w);
    return status;
}
