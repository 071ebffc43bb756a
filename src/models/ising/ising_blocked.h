/* Temporal blocking of the Ising naive, tiled and msc (2D) layouts
 * (algorithm.sweeps_per_launch, algorithm.block; cl/ising/temporal_block.h,
 * cl/ising/ising_msc.cl, docs/models/ising.md): several sweeps per launch on
 * lattices too large for one work-group, bit-identical to the ordinary
 * kernels. */
#ifndef CLMC_MODELS_ISING_BLOCKED_H
#define CLMC_MODELS_ISING_BLOCKED_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>
#include "clmc/preset.h"
#include "clmc/runtime.h"
#include "runtime/defines.h"

/* Work-items of a work-group at most for the updates in colour planes (the
 * resident update, RESIDENT_PLANES, and temporal blocking, TB_PLANES; more
 * words of a phase take rounds): on an H200 1024 left the resident kernel
 * no room (it allows 256 there), and 256 ran 2D L = 128 at 1.77 ps per
 * update against 1.98 with one round of 1024. */
#define ISING_PLANES_ITEMS 256

typedef struct {
    bool used, msc;      /* msc: bands of whole rows (cl/ising/ising_msc.cl) */
    bool automatic;      /* chosen by ising_tblock_choose, not the preset */
    int sweeps;          /* k: sweeps per launch at most */
    int block, halo;     /* block edge B (msc: rows per band) and halo depth h = k x phases of a sweep */
    int row, span;       /* the box in local memory: bytes per row, rows (and planes) */
    int blocks_per_edge; /* ceil(L / B) */
    int flush_rounds;    /* msc: rounds between the steps that finish the list of tied words */
    bool planes;         /* naive and tiled: the box in colour planes (TB_PLANES), `rounds` of work_group words */
    int rounds;
    size_t box_bytes, groups, work_group;
    cl_kernel kernel;
    cl_mem spare;        /* the buffer the blocks write, swapped with the spins after each launch */
    uint64_t launches, swept;
} ising_tblock;

/* The keys alone (ising_validate): exit 2 naming the key. */
clmc_status ising_tblock_validate(const clmc_preset *p);
/* Whether the preset asks for temporal blocking (algorithm.sweeps_per_launch >= 1). */
bool ising_tblock_wanted(const clmc_preset *p);
/* algorithm.sweeps_per_launch 0 (the caller has checked: 2D, a Philox
 * generator, one process, no resident update; msc, or naive or tiled (tile
 * edge `tile`, `hits`) in colour planes): on a device with dedicated local
 * memory, with algorithm.resident "auto" and block 0, a lattice whose spins
 * (`spin_bytes`, all configurations) take at most an eighth of the device's
 * memory is blocked where it pays (msc: L = 256 ... 16384, naive: L = 1024
 * ... 16384, tiled with one hit: L = 1024 and 2048): writes the sweeps per
 * launch and the block into the preset, t->automatic
 * (docs/models/ising.md#temporal-blocking-several-sweeps-per-launch). */
void ising_tblock_choose(ising_tblock *t, clmc_preset *p, const clmc_device_info *d, uint64_t spin_bytes, bool msc,
                         int tile, int hits);
/* With the device (t zeroed before, or as ising_tblock_choose left it):
 * block edge (the default written into the preset), halo and box; refuses a
 * box beyond the device's local memory (an automatic choice falls back to
 * the ordinary kernels instead).  phases: colour phases of one sweep (2 x
 * tile colours x hits; msc 2).  msc: bands of whole rows, `items` work-items
 * per band (algorithm.update_group, 0 = automatic).  planes: naive or
 * tiled whose update can run in colour planes (L a multiple of 8; tiles of a
 * multiple of 8 in two tile colours), taken where the block is a multiple of
 * 8 too; tile: the tile edge (0: naive).  t->used: whether it runs. */
clmc_status ising_tblock_plan(ising_tblock *t, clmc_preset *p, const clmc_device_info *d, int dim, int edge,
                              int phases, bool msc, bool planes, int tile, size_t items);
/* The kernel's defines (none unless t->used). */
void ising_tblock_defines(const ising_tblock *t, clmc_defines *options);
/* The kernel from the built program and the spare spin buffer (`spin_bytes` for
 * all configurations); the launch-independent arguments (first_system: the
 * run-wide index of the first configuration, the kernel's last argument).  An
 * automatic choice whose kernel needs more local memory or work-items than
 * the device gives it is dropped (t->used false, the preset's keys back to 0). */
clmc_status ising_tblock_create(ising_tblock *t, clmc_runtime *rt, clmc_preset *p, cl_program program,
                                size_t spin_bytes, cl_uint seed_lo, cl_uint seed_hi, cl_uint hits, cl_mem thresholds,
                                cl_uint first_system);
/* Sweeps [first, first + count), count <= t->sweeps, in one launch from *spins
 * into the spare buffer, which then becomes *spins. */
clmc_status ising_tblock_launch(ising_tblock *t, clmc_runtime *rt, cl_mem *spins, uint64_t first, uint64_t count,
                                cl_uint configs);
/* performance.temporal_blocking (docs/results.md). */
void ising_tblock_describe(const ising_tblock *t, cJSON *performance);
void ising_tblock_release(ising_tblock *t);

#endif
