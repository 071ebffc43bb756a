/* result.h5 through libhdf5: extendible compressed series, text and arrays. */
#include "output/h5.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PARTIAL_NAME ".result.h5.partial"
#define FINAL_NAME "result.h5"

#ifndef CLMC_HAVE_HDF5

static clmc_status no_hdf5(void)
{
    return clmc_fail(CLMC_ERR_INPUT, "output.format: this build of clmc lacks HDF5");
}
bool clmc_h5_available(void) { return false; }
clmc_status clmc_h5_create(const char *dir, const char *const *columns, const bool *integer, size_t n_columns,
                           clmc_h5 **out)
{
    (void)dir, (void)columns, (void)integer, (void)n_columns;
    *out = NULL;
    return no_hdf5();
}
clmc_status clmc_h5_append(clmc_h5 *h, const uint64_t *sweeps, const double *rows, size_t n_rows)
{
    (void)h, (void)sweeps, (void)rows, (void)n_rows;
    return no_hdf5();
}
uint64_t clmc_h5_rows(const clmc_h5 *h) { return (void)h, 0; }
clmc_status clmc_h5_put_text(clmc_h5 *h, const char *name, const char *text)
{
    (void)h, (void)name, (void)text;
    return no_hdf5();
}
clmc_status clmc_h5_put_array(clmc_h5 *h, const clmc_array *a)
{
    (void)h, (void)a;
    return no_hdf5();
}
clmc_status clmc_h5_finish(clmc_h5 *h) { return (void)h, no_hdf5(); }
void clmc_h5_discard(clmc_h5 *h) { (void)h; }

#else

#include <hdf5.h>

/* Rows per chunk of a series dataset: 32 KiB of doubles, compressed alone. */
#define SERIES_CHUNK_ROWS 4096
/* Largest chunk of a configuration array (HDF5 allows < 4 GiB). */
#define ARRAY_CHUNK_BYTES ((uint64_t)1 << 20)
#define DEFLATE_LEVEL 6

struct clmc_h5 {
    char dir[4096], partial[4200];
    hid_t file, configuration;
    size_t n_columns; /* sweep excluded */
    hid_t *datasets;  /* [1 + n_columns]: sweep first */
    bool *integer;    /* [n_columns] */
    uint64_t rows;
    void *buffer; /* one column of an append */
    size_t buffer_rows;
};

/* HDF5 calls return negative on failure; the message names the call. */
#define H5_TRY(h, call)                                                                                        \
    do {                                                                                                       \
        if ((call) < 0) return clmc_fail(CLMC_ERR_OTHER, "HDF5: %s failed for %s", #call, (h)->partial);     \
    } while (0)

bool clmc_h5_available(void) { return true; }

static clmc_status put_string_attribute(clmc_h5 *h, hid_t object, const char *name, const char *text)
{
    hid_t type = H5Tcopy(H5T_C_S1), space = H5Screate(H5S_SCALAR), attribute = -1;
    herr_t ok = type >= 0 && space >= 0 ? H5Tset_size(type, strlen(text) ? strlen(text) : 1) : -1;
    if (ok >= 0) ok = H5Tset_cset(type, H5T_CSET_UTF8);
    if (ok >= 0) ok = attribute = H5Acreate2(object, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    if (ok >= 0) ok = H5Awrite(attribute, type, text);
    if (attribute >= 0) H5Aclose(attribute);
    if (space >= 0) H5Sclose(space);
    if (type >= 0) H5Tclose(type);
    return ok < 0 ? clmc_fail(CLMC_ERR_OTHER, "HDF5: attribute %s failed for %s", name, h->partial) : CLMC_OK;
}

static clmc_status put_number_attribute(clmc_h5 *h, hid_t object, const char *name, double value)
{
    hid_t space = H5Screate(H5S_SCALAR), attribute = -1;
    herr_t ok = space >= 0 ? attribute = H5Acreate2(object, name, H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT)
                           : -1;
    if (ok >= 0) ok = H5Awrite(attribute, H5T_NATIVE_DOUBLE, &value);
    if (attribute >= 0) H5Aclose(attribute);
    if (space >= 0) H5Sclose(space);
    return ok < 0 ? clmc_fail(CLMC_ERR_OTHER, "HDF5: attribute %s failed for %s", name, h->partial) : CLMC_OK;
}

static hid_t create_series_dataset(hid_t group, const char *name, bool integer)
{
    hsize_t zero = 0, unlimited = H5S_UNLIMITED, chunk = SERIES_CHUNK_ROWS;
    hid_t space = H5Screate_simple(1, &zero, &unlimited), properties = H5Pcreate(H5P_DATASET_CREATE), dataset = -1;
    if (space >= 0 && properties >= 0 && H5Pset_chunk(properties, 1, &chunk) >= 0 && H5Pset_shuffle(properties) >= 0 &&
        H5Pset_deflate(properties, DEFLATE_LEVEL) >= 0)
        dataset = H5Dcreate2(group, name, integer ? H5T_STD_I64LE : H5T_IEEE_F64LE, space, H5P_DEFAULT, properties,
                             H5P_DEFAULT);
    if (properties >= 0) H5Pclose(properties);
    if (space >= 0) H5Sclose(space);
    return dataset;
}

static clmc_status create_series(clmc_h5 *h, const char *const *columns)
{
    hid_t group = H5Gcreate2(h->file, "series", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5_TRY(h, group);
    size_t length = sizeof "sweep";
    for (size_t c = 0; c < h->n_columns; c++) length += strlen(columns[c]) + 1;
    char *order = malloc(length);
    clmc_status status = order ? CLMC_OK : clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    if (order) strcpy(order, "sweep");
    for (size_t c = 0; status == CLMC_OK && c <= h->n_columns; c++) {
        const char *name = c == 0 ? "sweep" : columns[c - 1];
        if (c) strcat(strcat(order, ","), name);
        h->datasets[c] = create_series_dataset(group, name, c == 0 || h->integer[c - 1]);
        if (h->datasets[c] < 0) status = clmc_fail(CLMC_ERR_OTHER, "HDF5: dataset series/%s failed for %s", name, h->partial);
    }
    if (status == CLMC_OK) status = put_string_attribute(h, group, "columns", order);
    free(order);
    H5Gclose(group);
    return status;
}

clmc_status clmc_h5_create(const char *dir, const char *const *columns, const bool *integer, size_t n_columns,
                           clmc_h5 **out)
{
    *out = NULL;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* failures are reported as clmc errors */
    clmc_h5 *h = calloc(1, sizeof *h);
    if (!h) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    h->file = h->configuration = -1;
    h->n_columns = n_columns;
    h->datasets = malloc((n_columns + 1) * sizeof *h->datasets);
    h->integer = malloc((n_columns ? n_columns : 1) * sizeof *h->integer);
    snprintf(h->dir, sizeof h->dir, "%s", dir);
    snprintf(h->partial, sizeof h->partial, "%s/" PARTIAL_NAME, dir);
    if (!h->datasets || !h->integer) {
        clmc_h5_discard(h);
        return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    }
    for (size_t c = 0; c <= n_columns; c++) h->datasets[c] = -1;
    if (n_columns) memcpy(h->integer, integer, n_columns * sizeof *integer);
    h->file = H5Fcreate(h->partial, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    clmc_status status = h->file < 0 ? clmc_fail(CLMC_ERR_OTHER, "HDF5: cannot create %s", h->partial) : CLMC_OK;
    if (status == CLMC_OK) status = put_string_attribute(h, h->file, "format", "clmc-result");
    if (status == CLMC_OK) status = put_number_attribute(h, h->file, "format_version", 1);
    if (status == CLMC_OK) status = put_string_attribute(h, h->file, "clmc_version", CLMC_VERSION);
    if (status == CLMC_OK) status = create_series(h, columns);
    if (status != CLMC_OK) {
        clmc_h5_discard(h);
        return status;
    }
    *out = h;
    return CLMC_OK;
}

static clmc_status append_column(clmc_h5 *h, size_t column, const void *values, size_t n_rows)
{
    hsize_t start = h->rows, count = n_rows, extent = h->rows + n_rows;
    hid_t dataset = h->datasets[column];
    H5_TRY(h, H5Dset_extent(dataset, &extent));
    hid_t file_space = H5Dget_space(dataset), memory_space = H5Screate_simple(1, &count, NULL);
    herr_t ok = file_space >= 0 && memory_space >= 0
                    ? H5Sselect_hyperslab(file_space, H5S_SELECT_SET, &start, NULL, &count, NULL) : -1;
    bool integer = column == 0 || h->integer[column - 1];
    if (ok >= 0)
        ok = H5Dwrite(dataset, integer ? H5T_NATIVE_INT64 : H5T_NATIVE_DOUBLE, memory_space, file_space, H5P_DEFAULT,
                      values);
    if (memory_space >= 0) H5Sclose(memory_space);
    if (file_space >= 0) H5Sclose(file_space);
    return ok < 0 ? clmc_fail(CLMC_ERR_OTHER, "HDF5: appending to series column %zu failed for %s", column, h->partial)
                  : CLMC_OK;
}

clmc_status clmc_h5_append(clmc_h5 *h, const uint64_t *sweeps, const double *rows, size_t n_rows)
{
    if (n_rows == 0) return CLMC_OK;
    if (n_rows > h->buffer_rows) {
        void *grown = realloc(h->buffer, n_rows * sizeof(double));
        if (!grown) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
        h->buffer = grown;
        h->buffer_rows = n_rows;
    }
    int64_t *as_integer = h->buffer;
    double *as_double = h->buffer;
    for (size_t r = 0; r < n_rows; r++) as_integer[r] = (int64_t)sweeps[r];
    CLMC_TRY(append_column(h, 0, as_integer, n_rows));
    for (size_t c = 0; c < h->n_columns; c++) {
        for (size_t r = 0; r < n_rows; r++) {
            double value = rows[r * h->n_columns + c];
            if (h->integer[c]) as_integer[r] = (int64_t)value;
            else as_double[r] = value;
        }
        CLMC_TRY(append_column(h, c + 1, h->buffer, n_rows));
    }
    h->rows += n_rows;
    return CLMC_OK;
}

uint64_t clmc_h5_rows(const clmc_h5 *h) { return h->rows; }

clmc_status clmc_h5_put_text(clmc_h5 *h, const char *name, const char *text)
{
    hid_t type = H5Tcopy(H5T_C_S1), space = H5Screate(H5S_SCALAR), dataset = -1;
    herr_t ok = type >= 0 && space >= 0 ? H5Tset_size(type, strlen(text) ? strlen(text) : 1) : -1;
    if (ok >= 0) ok = H5Tset_cset(type, H5T_CSET_UTF8);
    if (ok >= 0) ok = dataset = H5Dcreate2(h->file, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (ok >= 0) ok = H5Dwrite(dataset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, text);
    if (dataset >= 0) H5Dclose(dataset);
    if (space >= 0) H5Sclose(space);
    if (type >= 0) H5Tclose(type);
    return ok < 0 ? clmc_fail(CLMC_ERR_OTHER, "HDF5: dataset %s failed for %s", name, h->partial) : CLMC_OK;
}

static hid_t array_file_type(clmc_array_type type)
{
    return type == CLMC_ARRAY_INT8 ? H5T_STD_I8LE : type == CLMC_ARRAY_UINT8 ? H5T_STD_U8LE
           : type == CLMC_ARRAY_UINT32 ? H5T_STD_U32LE : type == CLMC_ARRAY_FLOAT32 ? H5T_IEEE_F32LE : H5T_IEEE_F64LE;
}

static hid_t array_memory_type(clmc_array_type type)
{
    return type == CLMC_ARRAY_INT8 ? H5T_NATIVE_INT8 : type == CLMC_ARRAY_UINT8 ? H5T_NATIVE_UINT8
           : type == CLMC_ARRAY_UINT32 ? H5T_NATIVE_UINT32 : type == CLMC_ARRAY_FLOAT32 ? H5T_NATIVE_FLOAT
                                                                         : H5T_NATIVE_DOUBLE;
}

static size_t array_item_bytes(clmc_array_type type)
{
    return type == CLMC_ARRAY_FLOAT64 ? 8 : type == CLMC_ARRAY_FLOAT32 || type == CLMC_ARRAY_UINT32 ? 4 : 1;
}

/* Chunks of at most ARRAY_CHUNK_BYTES, cut along the leading dimensions;
 * arrays with a zero dimension are stored contiguous. */
static hid_t array_properties(const clmc_array *a)
{
    hid_t properties = H5Pcreate(H5P_DATASET_CREATE);
    hsize_t chunk[CLMC_ARRAY_MAX_RANK];
    uint64_t bytes = array_item_bytes(a->type);
    for (unsigned d = 0; d < a->rank; d++) {
        if (a->dims[d] == 0) return properties;
        bytes *= a->dims[d];
    }
    bool whole = false; /* the remaining dimensions fit one chunk */
    for (unsigned d = 0; d < a->rank; d++) {
        uint64_t inner = bytes / a->dims[d]; /* bytes of one slice along d */
        if (whole || bytes <= ARRAY_CHUNK_BYTES) chunk[d] = a->dims[d], whole = true;
        else if (inner >= ARRAY_CHUNK_BYTES) chunk[d] = 1;
        else chunk[d] = ARRAY_CHUNK_BYTES / inner, whole = true;
        bytes = inner;
    }
    if (properties >= 0 && (H5Pset_chunk(properties, (int)a->rank, chunk) < 0 || H5Pset_shuffle(properties) < 0 ||
                            H5Pset_deflate(properties, DEFLATE_LEVEL) < 0)) {
        H5Pclose(properties);
        return -1;
    }
    return properties;
}

clmc_status clmc_h5_put_array(clmc_h5 *h, const clmc_array *a)
{
    if (h->configuration < 0) {
        h->configuration = H5Gcreate2(h->file, "configuration", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        H5_TRY(h, h->configuration);
    }
    hsize_t dims[CLMC_ARRAY_MAX_RANK];
    for (unsigned d = 0; d < a->rank; d++) dims[d] = a->dims[d];
    hid_t space = H5Screate_simple((int)a->rank, dims, NULL), properties = array_properties(a), dataset = -1;
    if (space >= 0 && properties >= 0)
        dataset = H5Dcreate2(h->configuration, a->name, array_file_type(a->type), space, H5P_DEFAULT, properties,
                             H5P_DEFAULT);
    herr_t ok = dataset >= 0 ? H5Dwrite(dataset, array_memory_type(a->type), H5S_ALL, H5S_ALL, H5P_DEFAULT, a->data) : -1;
    clmc_status status = ok < 0 ? clmc_fail(CLMC_ERR_OTHER, "HDF5: dataset configuration/%s failed for %s", a->name,
                                            h->partial) : CLMC_OK;
    for (unsigned i = 0; status == CLMC_OK && i < CLMC_ARRAY_MAX_ATTRIBUTES && a->attribute_names[i]; i++)
        status = put_number_attribute(h, dataset, a->attribute_names[i], a->attribute_values[i]);
    if (dataset >= 0) H5Dclose(dataset);
    if (properties >= 0) H5Pclose(properties);
    if (space >= 0) H5Sclose(space);
    return status;
}

static herr_t close_all(clmc_h5 *h)
{
    herr_t ok = 0;
    for (size_t c = 0; h->datasets && c <= h->n_columns; c++)
        if (h->datasets[c] >= 0 && H5Dclose(h->datasets[c]) < 0) ok = -1;
    if (h->configuration >= 0 && H5Gclose(h->configuration) < 0) ok = -1;
    if (h->file >= 0 && H5Fclose(h->file) < 0) ok = -1;
    free(h->datasets);
    free(h->integer);
    free(h->buffer);
    return ok;
}

clmc_status clmc_h5_finish(clmc_h5 *h)
{
    herr_t flushed = H5Fflush(h->file, H5F_SCOPE_GLOBAL);
    bool closed = close_all(h) >= 0 && flushed >= 0;
    char final_path[4200];
    snprintf(final_path, sizeof final_path, "%s/" FINAL_NAME, h->dir);
    int fd = closed ? open(h->partial, O_RDONLY) : -1;
    bool synced = fd >= 0 && fsync(fd) == 0;
    if (fd >= 0) close(fd);
    clmc_status status = CLMC_OK;
    if (!closed || !synced) status = clmc_fail(CLMC_ERR_OTHER, "HDF5: cannot complete %s", h->partial);
    else if (rename(h->partial, final_path) != 0)
        status = clmc_fail(CLMC_ERR_OTHER, "cannot write %s: %s", final_path, strerror(errno));
    if (status != CLMC_OK) unlink(h->partial);
    free(h);
    return status;
}

void clmc_h5_discard(clmc_h5 *h)
{
    if (!h) return;
    close_all(h);
    unlink(h->partial);
    free(h);
}

#endif
