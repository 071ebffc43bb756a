/* Hard disks (hard_disks.c) across interruptions: the checkpoint blob of the
 * cell list, the guard that stops a run which lost a disk, and the test-only
 * fault that makes it lose one. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/hard_disks/hard_disks.h"
#include "output/state_blob.h"

/* Items of the guard kernel: each checks about 64 cells. */
#define GUARD_CELLS_PER_ITEM 64u

static size_t cells_of(const disks_state *s)
{
    return (size_t)s->host.g.cells * s->host.g.cells;
}

/* Blob: u64 current buffer (0 or 1), the current disk and count buffers
 * (every system's, one after another), the move tallies of the last sweep
 * and the overflow counter. */
clmc_status disks_save_state(void *state, unsigned char **blob, size_t *bytes)
{
    disks_state *s = state;
    CLMC_TRY(disks_settle_shift(s));
    clmc_blob_writer w = {0};
    clmc_blob_put_u64(&w, (uint64_t)s->current);
    clmc_blob_put_buffer(&w, s->rt, s->disk[s->current]);
    clmc_blob_put_buffer(&w, s->rt, s->count[s->current]);
    clmc_blob_put_buffer(&w, s->rt, s->tally);
    clmc_blob_put_buffer(&w, s->rt, s->overflow);
    return clmc_blob_finish(&w, blob, bytes);
}

/* The stored cell list is a configuration the kernels can run on: counts
 * at most the slots and N in all, the used slots finite and in their cell,
 * the others the sentinel. */
static clmc_status check_stored_cells(const disk_geometry *g, const unsigned char *disk_bytes,
                                      const unsigned char *count_bytes)
{
    size_t cells = (size_t)g->cells * g->cells;
    uint64_t disks = 0;
    float low = -g->margin, high = g->width + g->margin;
    for (size_t cell = 0; cell < cells; cell++) {
        uint32_t n;
        memcpy(&n, count_bytes + 4 * cell, sizeof n);
        if (n > g->slots)
            return clmc_fail(CLMC_ERR_INPUT, "checkpoint: hard-disk cell %zu holds %u disks, at most %u fit", cell, n,
                             g->slots);
        disks += n;
        for (uint32_t i = 0; i < g->slots; i++) {
            float p[2];
            memcpy(p, disk_bytes + 8 * ((size_t)i * cells + cell), sizeof p);
            bool ok = i < n ? isfinite(p[0]) && isfinite(p[1]) && p[0] > low && p[0] <= high && p[1] > low &&
                                  p[1] <= high
                            : p[0] == DISK_SENTINEL && p[1] == DISK_SENTINEL;
            if (!ok)
                return clmc_fail(CLMC_ERR_INPUT, "checkpoint: hard-disk cell %zu slot %u holds (%g, %g), %s", cell, i,
                                 (double)p[0], (double)p[1],
                                 i < n ? "not a position inside the cell" : "not the empty-slot sentinel");
        }
    }
    if (disks != g->n_disks)
        return clmc_fail(CLMC_ERR_INPUT, "checkpoint: %llu disks stored, the preset has model.N = %u",
                         (unsigned long long)disks, g->n_disks);
    return CLMC_OK;
}

clmc_status disks_load_state(void *state, const unsigned char *blob, size_t bytes)
{
    disks_state *s = state;
    size_t disk_bytes, count_bytes, tally_bytes, overflow_bytes;
    CLMC_TRY(clmc_buffer_size(s->disk[0], &disk_bytes));
    CLMC_TRY(clmc_buffer_size(s->count[0], &count_bytes));
    CLMC_TRY(clmc_buffer_size(s->tally, &tally_bytes));
    CLMC_TRY(clmc_buffer_size(s->overflow, &overflow_bytes));
    clmc_blob_reader r = clmc_blob_reader_of(blob, bytes);
    uint64_t current = clmc_blob_get_u64(&r, "the current hard-disk buffer");
    const unsigned char *disk = clmc_blob_get_buffer(&r, disk_bytes, "the hard-disk positions");
    const unsigned char *count = clmc_blob_get_buffer(&r, count_bytes, "the hard-disk cell counts");
    const unsigned char *tally = clmc_blob_get_buffer(&r, tally_bytes, "the hard-disk move tallies");
    const unsigned char *overflow = clmc_blob_get_buffer(&r, overflow_bytes, "the hard-disk overflow counter");
    CLMC_TRY(clmc_blob_end(&r));
    if (current > 1) return clmc_fail(CLMC_ERR_INPUT, "checkpoint: hard-disk buffer %llu, not 0 or 1",
                                      (unsigned long long)current);
    size_t cells = cells_of(s);
    for (uint32_t k = 0; k < s->n_systems; k++)
        CLMC_TRY(check_stored_cells(&s->host.g, disk + (size_t)k * cells * s->host.g.slots * 8, count + (size_t)k * cells * 4));
    s->current = (int)current;
    s->shift_pending = false; /* the stored configuration is shifted (disks_save_state) */
    CLMC_TRY(clmc_buffer_upload(s->rt, s->disk[s->current], disk, disk_bytes));
    CLMC_TRY(clmc_buffer_upload(s->rt, s->count[s->current], count, count_bytes));
    CLMC_TRY(clmc_buffer_upload(s->rt, s->tally, tally, tally_bytes));
    return clmc_buffer_upload(s->rt, s->overflow, overflow, overflow_bytes);
}

clmc_status disks_guard(void *state)
{
    disks_state *s = state;
    CLMC_TRY(disks_settle_shift(s));
    cl_command_queue queue = clmc_runtime_queue(s->rt);
    cl_uint items = (cl_uint)((cells_of(s) + GUARD_CELLS_PER_ITEM - 1) / GUARD_CELLS_PER_ITEM), zero = 0;
    size_t bytes = 2 * s->n_systems * sizeof(cl_uint);
    cl_uint *totals = malloc(bytes);
    if (!totals) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    cl_int err = clEnqueueFillBuffer(queue, s->guard_totals, &zero, sizeof zero, 0, bytes, 0, NULL, NULL);
    if (err != CL_SUCCESS) free(totals);
    CLMC_CL_CHECK(err, "clEnqueueFillBuffer(hard-disk guard totals)");
    CLMC_CL_TRY(clSetKernelArg(s->guard, 0, sizeof(cl_mem), &s->disk[s->current]));
    CLMC_CL_TRY(clSetKernelArg(s->guard, 1, sizeof(cl_mem), &s->count[s->current]));
    CLMC_CL_TRY(clSetKernelArg(s->guard, 2, sizeof(float), &s->host.g.width));
    CLMC_CL_TRY(clSetKernelArg(s->guard, 3, sizeof(float), &s->host.g.margin));
    CLMC_CL_TRY(clSetKernelArg(s->guard, 4, sizeof(cl_uint), &items));
    CLMC_CL_TRY(clSetKernelArg(s->guard, 5, sizeof(cl_mem), &s->guard_totals));
    clmc_status status = disks_enqueue_systems(s, s->guard, items, CLMC_UNTIMED);
    if (status == CLMC_OK) {
        err = clEnqueueReadBuffer(queue, s->guard_totals, CL_TRUE, 0, bytes, totals, 0, NULL, NULL);
        if (err != CL_SUCCESS) status = clmc_fail(CLMC_ERR_DEVICE, "clEnqueueReadBuffer(hard-disk guard totals): %s",
                                                  clmc_cl_error_name(err));
    }
    for (uint32_t k = 0; k < s->n_systems && status == CLMC_OK; k++) {
        cl_uint disks = totals[2 * k], broken = totals[2 * k + 1];
        if (disks == s->host.g.n_disks && broken == 0) continue;
        const char *balance = disks < s->host.g.n_disks   ? "disks lost"
                              : disks > s->host.g.n_disks ? "disks added"
                                                          : "none lost";
        char which[48] = "";
        if (s->n_systems > 1) snprintf(which, sizeof which, " (system %u)", s->first_system + k);
        status = clmc_fail(CLMC_ERR_OTHER, "hard disks%s: %u of %u disks on the device (%s), %u cells or slots broken "
                           "(a count above %u, a position not finite or outside its cell, or a used empty slot)",
                           which, disks, s->host.g.n_disks, balance, broken, s->host.g.slots);
    }
    free(totals);
    return status;
}

clmc_status disks_inject_fault(disks_state *s)
{
    CLMC_TRY(disks_settle_shift(s));
    cl_command_queue queue = clmc_runtime_queue(s->rt);
    size_t cells = cells_of(s);
    uint32_t *count = malloc(cells * sizeof *count);
    if (!count) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    cl_int err = clEnqueueReadBuffer(queue, s->count[s->current], CL_TRUE, 0, cells * sizeof *count, count, 0, NULL,
                                     NULL);
    size_t cell = 0;
    while (err == CL_SUCCESS && cell < cells && count[cell] == 0) cell++;
    cl_uint n = cell < cells ? count[cell] - 1 : 0; /* the last disk's slot, and the count without it */
    float broken[2] = {s->fault_nan ? NAN : DISK_SENTINEL, DISK_SENTINEL};
    free(count);
    CLMC_CL_CHECK(err, "clEnqueueReadBuffer(hard-disk counts)");
    if (cell == cells) return CLMC_OK;
    if (!s->fault_nan)
        CLMC_CL_TRY(clEnqueueWriteBuffer(queue, s->count[s->current], CL_TRUE, cell * sizeof n, sizeof n, &n, 0, NULL,
                                         NULL));
    CLMC_CL_TRY(clEnqueueWriteBuffer(queue, s->disk[s->current], CL_TRUE, ((size_t)n * cells + cell) * sizeof broken,
                                     s->fault_nan ? sizeof(float) : sizeof broken, broken, 0, NULL, NULL));
    return CLMC_OK;
}
