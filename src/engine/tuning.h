/* Tuned launch and tiling parameters: the per-user cache file that `clmc
 * tune` writes and runs read, and the built-in defaults per device type and
 * vendor (one table, src/engine/tuning.c).  Tuned values are valid only for the same
 * device name, driver version and kernel sources, so those key every entry
 * (STYLE.md: QUDA's tune cache, FFTW's wisdom). */
#ifndef CLMC_TUNING_H
#define CLMC_TUNING_H

#include <cjson/cJSON.h>
#include <stdbool.h>

#include "clmc/preset.h"
#include "clmc/runtime.h"
#include "models/model.h"

#define CLMC_TUNING_FORMAT_VERSION 1
#define CLMC_TUNING_MAX_VALUES 4

typedef struct {
    size_t n;
    char paths[CLMC_TUNING_MAX_VALUES][64];
    long long values[CLMC_TUNING_MAX_VALUES];
    double ns_per_update; /* measured by clmc tune */
} clmc_tuning;

/* The cache file: $CLMC_TUNING_FILE, else tuning.txt in the program cache
 * folder ($CLMC_CACHE_DIR, $XDG_CACHE_HOME/clmc, ~/.cache/clmc).  False if
 * no location can be named. */
bool clmc_tuning_file(char *out, size_t n);

/* The entry key: device name, driver, kernel-source hash and the preset's
 * model and algorithm sections without the tunable keys, plus the number of
 * temperatures; tab-separated, one line.  Caller frees. */
clmc_status clmc_tuning_key(const clmc_preset *preset, const clmc_model_ops *ops, const clmc_device_info *device,
                            char **key);

/* Finds `key` in the cache file; a missing file is no entry.  A file with
 * another format version or no header is an input error that says how to
 * fix it. */
clmc_status clmc_tuning_lookup(const char *file, const char *key, clmc_tuning *tuning, bool *found);
/* Adds or replaces the entry, rewriting the file atomically (only when it
 * changes). */
clmc_status clmc_tuning_store(const char *file, const char *key, const clmc_tuning *tuning);

/* Before a model is created: every tunable key the preset leaves automatic
 * takes the tuned value for this device (cache), else the built-in default
 * for its type and vendor, else stays for the model to choose.  Describes
 * what it did in `report` (source, file, values).  The engine skips it
 * under --no-tuning (clmc_launch_options).  An unreadable cache is reported
 * and skipped. */
void clmc_tuning_apply(clmc_preset *preset, const clmc_model_ops *ops, const clmc_device_info *device,
                       cJSON *report);

#endif
