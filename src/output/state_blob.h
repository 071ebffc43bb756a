/* Model checkpoint blobs (model.h save_state/load_state): little-endian
 * numbers and whole device buffers appended in a fixed order, read back with
 * size checks, so a blob of the wrong shape is refused before anything of it
 * reaches the model (never half-loaded).  The writer also builds the
 * checkpoint file itself (checkpoint_format.c). */
#ifndef CLMC_STATE_BLOB_H
#define CLMC_STATE_BLOB_H

#include <stddef.h>
#include <stdint.h>

#include "clmc/runtime.h"
#include "clmc/status.h"

/* Appends; the first failure sticks in `status` and later calls do nothing. */
typedef struct {
    unsigned char *bytes;
    size_t used, capacity;
    clmc_status status;
} clmc_blob_writer;

void clmc_blob_put_bytes(clmc_blob_writer *w, const void *bytes, size_t n);
void clmc_blob_put_u32(clmc_blob_writer *w, uint32_t x);
void clmc_blob_put_u64(clmc_blob_writer *w, uint64_t x);
void clmc_blob_put_doubles(clmc_blob_writer *w, const double *x, size_t n);
/* The buffer's size (u64) then its bytes, read from the device (blocking). */
void clmc_blob_put_buffer(clmc_blob_writer *w, clmc_runtime *rt, cl_mem buffer);
/* Hands the bytes to the caller (who frees them) or frees them on failure. */
clmc_status clmc_blob_finish(clmc_blob_writer *w, unsigned char **blob, size_t *bytes);

/* Reads in the writer's order; `what` names the item in error messages.  The
 * first failure sticks; getters then return zeros or NULL. */
typedef struct {
    const unsigned char *at;
    size_t left;
    clmc_status status;
} clmc_blob_reader;

clmc_blob_reader clmc_blob_reader_of(const unsigned char *blob, size_t bytes);
uint64_t clmc_blob_get_u64(clmc_blob_reader *r, const char *what);
/* n doubles written by clmc_blob_put_doubles: a pointer into the blob, to be
 * decoded by clmc_blob_copy_doubles once clmc_blob_end has passed. */
const unsigned char *clmc_blob_get_doubles(clmc_blob_reader *r, size_t n, const char *what);
void clmc_blob_copy_doubles(const unsigned char *stored, double *x, size_t n);
/* A buffer written by clmc_blob_put_buffer that must hold exactly `bytes`
 * bytes (the size of the model's device buffer): a pointer into the blob. */
const unsigned char *clmc_blob_get_buffer(clmc_blob_reader *r, size_t bytes, const char *what);
/* CLMC_OK when everything was read and nothing is left over. */
clmc_status clmc_blob_end(const clmc_blob_reader *r);

/* Little-endian numbers at `at` (the checkpoint file's and the blobs' order). */
uint32_t clmc_le_u32(const unsigned char *at);
uint64_t clmc_le_u64(const unsigned char *at);

/* Size of a device buffer (CL_MEM_SIZE). */
clmc_status clmc_buffer_size(cl_mem buffer, size_t *bytes);
/* Writes `bytes` bytes of a blob item into a device buffer (blocking). */
clmc_status clmc_buffer_upload(clmc_runtime *rt, cl_mem buffer, const unsigned char *bytes, size_t n);

#endif
