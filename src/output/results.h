/* Result files: atomic writes, result.json pieces and series.csv. */
#ifndef CLMC_RESULTS_H
#define CLMC_RESULTS_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "clmc/runtime.h"
#include "clmc/status.h"

/* The whole file as NUL-terminated text, or NULL with *error set (errno, or
 * EFBIG past max_bytes); caller frees. */
char *clmc_read_text_file(const char *path, size_t max_bytes, int *error);
/* mkdir -p */
clmc_status clmc_make_directory(const char *path);
/* Writes DIR/NAME through a temporary file, fsync and rename. */
clmc_status clmc_write_file_atomic(const char *dir, const char *name, const char *data, size_t length);
/* Removes DIR/NAME if it exists. */
clmc_status clmc_remove_file(const char *dir, const char *name);
cJSON *clmc_device_json(const clmc_device_info *device);
/* The launch options as recorded in results: {"profile": bool, "tuning": "on"|"off"}. */
cJSON *clmc_launch_options_json(const clmc_launch_options *launch);
/* CSV text: "sweep,<columns>" then one row per measurement; caller frees. */
char *clmc_series_csv(const char *const *columns, size_t n_columns, const uint64_t *sweeps,
                      const double *rows, size_t n_rows);

#endif
