/* Benchmark reports: device selection for bench, the side-by-side table, and
 * the versioned JSON document (schema clmc-bench). */
#ifndef CLMC_BENCH_REPORT_H
#define CLMC_BENCH_REPORT_H

#include <stdio.h>

#include "clmc/engine.h"

#define CLMC_BENCH_SCHEMA "clmc-bench"
#define CLMC_BENCH_FORMAT_VERSION 1

/* "all", NULL (the default device), or comma-separated selectors. */
clmc_status clmc_bench_select_devices(const char *list, clmc_device_info **devices, size_t *count);
void clmc_bench_print_table(FILE *out, const clmc_bench_entry *entries, size_t n);
clmc_status clmc_bench_write_json(const char *path, const clmc_preset *preset, const char *invocation,
                                  const clmc_launch_options *launch, const clmc_bench_entry *entries, size_t n);
/* Prints, for every device of `entries` also found (by name and driver) in
 * the clmc-bench document OLD_PATH, the old and new ns per update and their
 * ratio.  A file that is not a clmc-bench document is an input error. */
clmc_status clmc_bench_compare(FILE *out, const char *old_path, const clmc_preset *preset,
                               const clmc_bench_entry *entries, size_t n);
/* The same check of OLD_PATH alone, before any benchmark runs. */
clmc_status clmc_bench_check_compare_file(const char *old_path);
/* "ok", or "traffic_model_error" for a fraction of the copy bandwidth above 1
 * (the table flags it, the JSON metric carries it as "status"). */
const char *clmc_bench_fraction_status(double fraction);
/* --json PATH checked before any benchmark runs: its directory exists and is
 * writable, and PATH is not a directory. */
clmc_status clmc_bench_check_json_path(const char *path);
/* argv joined by spaces; caller frees. */
char *clmc_join_arguments(int argc, char **argv);

#endif
