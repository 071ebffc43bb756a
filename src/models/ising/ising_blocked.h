/* Temporal blocking of the Ising naive and tiled layouts (algorithm.sweeps_per_launch,
 * algorithm.block; cl/ising/temporal_block.h, docs/models/ising.md): several sweeps
 * per launch on lattices too large for one work-group, bit-identical to the
 * ordinary kernels. */
#ifndef CLMC_MODELS_ISING_BLOCKED_H
#define CLMC_MODELS_ISING_BLOCKED_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>
#include "clmc/preset.h"
#include "clmc/runtime.h"
#include "runtime/defines.h"

typedef struct {
    bool used;
    int sweeps;          /* k: sweeps per launch at most */
    int block, halo;     /* block edge B and halo depth h = k x phases of a sweep */
    int row, span;       /* the box in local memory: bytes per row, rows (and planes) */
    int blocks_per_edge; /* ceil(L / B) */
    size_t box_bytes, groups, work_group;
    cl_kernel kernel;
    cl_mem spare;        /* the buffer the blocks write, swapped with the spins after each launch */
    uint64_t launches, swept;
} ising_tblock;

/* The keys alone (ising_validate): exit 2 naming the key. */
clmc_status ising_tblock_validate(const clmc_preset *p);
/* Whether the preset asks for temporal blocking (algorithm.sweeps_per_launch >= 1). */
bool ising_tblock_wanted(const clmc_preset *p);
/* With the device: block edge (the default written into the preset), halo
 * and box; refuses a box beyond the device's local memory.  phases: colour
 * phases of one sweep (2 x tile colours x hits).  t->used: whether it runs. */
clmc_status ising_tblock_plan(ising_tblock *t, clmc_preset *p, const clmc_device_info *d, int dim, int edge,
                              int phases);
/* The kernel's defines (none unless t->used). */
void ising_tblock_defines(const ising_tblock *t, clmc_defines *options);
/* The kernel from the built program and the spare spin buffer (`spin_bytes` for
 * all configurations); the launch-independent arguments (first_system: the
 * run-wide index of the first configuration, the kernel's last argument). */
clmc_status ising_tblock_create(ising_tblock *t, clmc_runtime *rt, cl_program program, size_t spin_bytes,
                                cl_uint seed_lo, cl_uint seed_hi, cl_uint hits, cl_mem thresholds,
                                cl_uint first_system);
/* Sweeps [first, first + count), count <= t->sweeps, in one launch from *spins
 * into the spare buffer, which then becomes *spins. */
clmc_status ising_tblock_launch(ising_tblock *t, clmc_runtime *rt, cl_mem *spins, uint64_t first, uint64_t count,
                                cl_uint configs);
/* performance.temporal_blocking (docs/results.md). */
void ising_tblock_describe(const ising_tblock *t, cJSON *performance);
void ising_tblock_release(ising_tblock *t);

#endif
