/* clmc scan: a grid of runs over devices, resumable, summarised (docs/scan.md). */
#ifndef CLMC_CLI_SCAN_H
#define CLMC_CLI_SCAN_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "clmc/status.h"

/* One scanned preset path and its values, in the job's order. */
typedef struct {
    const char *path; /* owned by the job's tree */
    cJSON *values;    /* an array, owned */
} scan_axis;

typedef struct {
    cJSON *job;        /* the job file as given */
    char *preset_text; /* the base preset, a name filled in when it had none */
    scan_axis *axes;
    size_t n_axes, n_tasks;
} scan_job;

/* Reads and checks JOB.json: the preset (an object, or a file relative to
 * the job file) and a non-empty grid of non-empty lists or ranges. */
clmc_status scan_job_load(const char *path, scan_job *job);
void scan_job_free(scan_job *job);
/* Task `task`'s value on axis `axis` (the first axis varies slowest). */
const cJSON *scan_task_value(const scan_job *job, size_t task, size_t axis);
/* "PATH=VALUE" overrides of task `task`, then "output.dir=DIR": n_axes + 1
 * strings, freed with scan_free_overrides. */
char **scan_task_overrides(const scan_job *job, size_t task, const char *task_dir);
void scan_free_overrides(char **overrides, size_t n);

/* `clmc scan JOB.json [--out DIR] [--devices SEL,...|all] [--jobs N] [--quiet]`. */
int clmc_scan_command(int argc, char **argv);

#endif
