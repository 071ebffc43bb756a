/* Model checkpoint blobs: see state_blob.h. */
#include "output/state_blob.h"

#include <stdlib.h>
#include <string.h>

static unsigned char *reserve(clmc_blob_writer *w, size_t n)
{
    if (w->status != CLMC_OK) return NULL;
    if (w->used + n > w->capacity) {
        size_t capacity = w->capacity ? w->capacity : 256;
        while (capacity < w->used + n) capacity *= 2;
        unsigned char *grown = realloc(w->bytes, capacity);
        if (!grown) {
            w->status = clmc_fail(CLMC_ERR_OTHER, "out of host memory for a checkpoint of %zu bytes", w->used + n);
            return NULL;
        }
        w->bytes = grown;
        w->capacity = capacity;
    }
    unsigned char *at = w->bytes + w->used;
    w->used += n;
    return at;
}

static void store_le(unsigned char *at, uint64_t x, int n)
{
    for (int i = 0; i < n; i++) at[i] = (unsigned char)(x >> (8 * i));
}

static uint64_t load_le(const unsigned char *at, int n)
{
    uint64_t x = 0;
    for (int i = 0; i < n; i++) x |= (uint64_t)at[i] << (8 * i);
    return x;
}

uint32_t clmc_le_u32(const unsigned char *at) { return (uint32_t)load_le(at, 4); }
uint64_t clmc_le_u64(const unsigned char *at) { return load_le(at, 8); }

void clmc_blob_put_bytes(clmc_blob_writer *w, const void *bytes, size_t n)
{
    unsigned char *at = reserve(w, n);
    if (at && n) memcpy(at, bytes, n);
}

void clmc_blob_put_u32(clmc_blob_writer *w, uint32_t x)
{
    unsigned char *at = reserve(w, 4);
    if (at) store_le(at, x, 4);
}

void clmc_blob_put_u64(clmc_blob_writer *w, uint64_t x)
{
    unsigned char *at = reserve(w, 8);
    if (at) store_le(at, x, 8);
}

void clmc_blob_put_doubles(clmc_blob_writer *w, const double *x, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t bits;
        memcpy(&bits, &x[i], sizeof bits);
        clmc_blob_put_u64(w, bits);
    }
}

clmc_status clmc_buffer_size(cl_mem buffer, size_t *bytes)
{
    CLMC_CL_TRY(clGetMemObjectInfo(buffer, CL_MEM_SIZE, sizeof *bytes, bytes, NULL));
    return CLMC_OK;
}

void clmc_blob_put_buffer(clmc_blob_writer *w, clmc_runtime *rt, cl_mem buffer)
{
    size_t bytes = 0;
    if (w->status == CLMC_OK) w->status = clmc_buffer_size(buffer, &bytes);
    clmc_blob_put_u64(w, bytes);
    unsigned char *at = reserve(w, bytes);
    if (!at) return;
    cl_int err = clEnqueueReadBuffer(clmc_runtime_queue(rt), buffer, CL_TRUE, 0, bytes, at, 0, NULL, NULL);
    if (err != CL_SUCCESS)
        w->status = clmc_fail(CLMC_ERR_DEVICE, "clEnqueueReadBuffer of a checkpoint buffer failed: %s",
                              clmc_cl_error_name(err));
}

clmc_status clmc_blob_finish(clmc_blob_writer *w, unsigned char **blob, size_t *bytes)
{
    if (w->status != CLMC_OK) {
        free(w->bytes);
        *blob = NULL;
        *bytes = 0;
        return w->status;
    }
    *blob = w->bytes ? w->bytes : malloc(1);
    *bytes = w->used;
    return *blob ? CLMC_OK : clmc_fail(CLMC_ERR_OTHER, "out of host memory");
}

clmc_blob_reader clmc_blob_reader_of(const unsigned char *blob, size_t bytes)
{
    return (clmc_blob_reader){.at = blob, .left = bytes, .status = CLMC_OK};
}

static const unsigned char *take(clmc_blob_reader *r, size_t n, const char *what)
{
    if (r->status != CLMC_OK) return NULL;
    if (n > r->left) {
        r->status = clmc_fail(CLMC_ERR_INPUT, "checkpoint: the model state ends inside %s (%zu bytes left, %zu needed)",
                              what, r->left, n);
        return NULL;
    }
    const unsigned char *at = r->at;
    r->at += n;
    r->left -= n;
    return at;
}

uint64_t clmc_blob_get_u64(clmc_blob_reader *r, const char *what)
{
    const unsigned char *at = take(r, 8, what);
    return at ? clmc_le_u64(at) : 0;
}

const unsigned char *clmc_blob_get_doubles(clmc_blob_reader *r, size_t n, const char *what)
{
    return take(r, 8 * n, what);
}

void clmc_blob_copy_doubles(const unsigned char *stored, double *x, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t bits = clmc_le_u64(stored + 8 * i);
        memcpy(&x[i], &bits, sizeof bits);
    }
}

const unsigned char *clmc_blob_get_buffer(clmc_blob_reader *r, size_t bytes, const char *what)
{
    uint64_t stored = clmc_blob_get_u64(r, what);
    if (r->status == CLMC_OK && stored > r->left)
        r->status = clmc_fail(CLMC_ERR_INPUT, "checkpoint: the size of %s is damaged (more than the %zu bytes left in "
                              "the checkpoint); the preset makes %zu bytes", what, r->left, bytes);
    else if (r->status == CLMC_OK && stored != bytes)
        r->status = clmc_fail(CLMC_ERR_INPUT, "checkpoint: %s has %llu bytes; the preset makes %zu", what,
                              (unsigned long long)stored, bytes);
    return take(r, bytes, what);
}

clmc_status clmc_blob_end(const clmc_blob_reader *r)
{
    if (r->status != CLMC_OK) return r->status;
    if (r->left) return clmc_fail(CLMC_ERR_INPUT, "checkpoint: %zu unexpected bytes after the model state", r->left);
    return CLMC_OK;
}

clmc_status clmc_buffer_upload(clmc_runtime *rt, cl_mem buffer, const unsigned char *bytes, size_t n)
{
    CLMC_CL_TRY(clEnqueueWriteBuffer(clmc_runtime_queue(rt), buffer, CL_TRUE, 0, n, bytes, 0, NULL, NULL));
    return CLMC_OK;
}
