/* result.h5 (output.format "hdf5", docs/results.md): the series appended as
 * the run measures, the result metadata and the final configuration, written
 * as DIR/.result.h5.partial and renamed to DIR/result.h5 when complete.
 * Without libhdf5 (meson -Dhdf5) every call fails; the preset layer refuses
 * the key before any run gets here. */
#ifndef CLMC_H5_H
#define CLMC_H5_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clmc/status.h"

typedef enum { CLMC_ARRAY_INT8, CLMC_ARRAY_UINT8, CLMC_ARRAY_UINT32, CLMC_ARRAY_FLOAT32, CLMC_ARRAY_FLOAT64 } clmc_array_type;

#define CLMC_ARRAY_MAX_RANK 5
#define CLMC_ARRAY_MAX_ATTRIBUTES 4

/* A typed n-dimensional array, row-major, e.g. a model's final configuration
 * (model.h snapshot): spins [configuration][site], positions [disk][2]. */
typedef struct clmc_array {
    const char *name;
    clmc_array_type type;
    unsigned rank;
    uint64_t dims[CLMC_ARRAY_MAX_RANK];
    void *data; /* malloc'ed; the array's owner frees it */
    /* Numbers stored as attributes of the dataset (NULL name ends the list). */
    const char *attribute_names[CLMC_ARRAY_MAX_ATTRIBUTES];
    double attribute_values[CLMC_ARRAY_MAX_ATTRIBUTES];
} clmc_array;

typedef struct clmc_h5 clmc_h5;

/* Whether this build has HDF5. */
bool clmc_h5_available(void);
/* Creates (truncating) DIR/.result.h5.partial with the group /series holding
 * one extendible, chunked, compressed 1-D dataset per column: "sweep"
 * (int64), then columns[0 .. n_columns) (int64 where `integer[c]`, else
 * float64); /series carries the column order as the attribute "columns". */
clmc_status clmc_h5_create(const char *dir, const char *const *columns, const bool *integer, size_t n_columns,
                           clmc_h5 **out);
/* Appends n_rows rows: sweeps[r] and rows[r * n_columns + c]. */
clmc_status clmc_h5_append(clmc_h5 *h, const uint64_t *sweeps, const double *rows, size_t n_rows);
/* Rows appended so far. */
uint64_t clmc_h5_rows(const clmc_h5 *h);
/* A string dataset at the root (e.g. "result.json"). */
clmc_status clmc_h5_put_text(clmc_h5 *h, const char *name, const char *text);
/* A compressed dataset /configuration/NAME with the array's attributes. */
clmc_status clmc_h5_put_array(clmc_h5 *h, const clmc_array *a);
/* Closes the file and renames it to DIR/result.h5; frees h in any case. */
clmc_status clmc_h5_finish(clmc_h5 *h);
/* Closes and removes the partial file (a failed run); NULL does nothing. */
void clmc_h5_discard(clmc_h5 *h);

#endif
