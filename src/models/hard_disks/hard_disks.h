/* Hard disks by massively parallel Monte Carlo (cl/hard_disks/hard_disks.cl): the state
 * shared by the host files of the model (driver, geometry, analysis). */
#ifndef CLMC_MODELS_HARD_DISKS_H
#define CLMC_MODELS_HARD_DISKS_H

#include <stdbool.h>
#include <stdint.h>

#include "models/model.h"

#define DISK_SLOTS 4      /* at most 4 disk centres in a cell of width < sqrt 2 */
#define DISK_EXIT_SLOTS 8 /* cells whose disks may stray beyond their edges */
#define DISK_SENTINEL (-10.0f)
#define DISK_CLOSE_PACKING 0.90689968211710892 /* pi / (2 sqrt 3) */
#define DISK_PI 3.14159265358979323846

extern const clmc_field clmc_hard_disks_model_fields[];
extern const clmc_field clmc_hard_disks_algorithm_fields[];

/* The box and its cell list: m x m cells of width w (a float, so that the
 * kernels and the host agree on the box m w exactly). */
typedef struct {
    uint32_t n_disks, cells; /* N, m */
    uint32_t slots;          /* disks a cell can store */
    float width;             /* w */
    float margin;            /* how far a disk may stray beyond its cell (0 unless algorithm.cell_exit) */
    double box;              /* m w */
} disk_geometry;

/* Positions as the device stores them: slot-major (cl/hard_disks/hard_disks.cl). */
typedef struct {
    disk_geometry g;
    float *xy;       /* 2 floats per slot, cells^2 * slots slots */
    uint32_t *count; /* per cell, same cell order as slot 0 */
} disk_cells;

/* The cell geometry for N disks at packing fraction phi: m = the smallest
 * even number above L / sqrt 2.  With cell_exit, disks may stray
 * (w - 1 - contact_range) / 2 beyond their cell: disks of cells two apart
 * stay further apart than 1 + contact_range.  Input errors name the JSON path. */
clmc_status disk_geometry_for(uint32_t n_disks, double packing_fraction, double contact_range, bool cell_exit,
                              disk_geometry *g);
size_t disk_slot_index(uint32_t cells, uint32_t x, uint32_t y, uint32_t slot);
/* Cell and local coordinate in (0, w] of a box coordinate in [0, box). */
void disk_locate(double coordinate, const disk_geometry *g, uint32_t *cell, float *local);
/* Empties the cell list (counts 0, every slot the sentinel). */
void disk_cells_clear(disk_cells *c);
/* Puts a disk at box position (x, y) into the next free slot of its cell;
 * fails, naming the `start` ("lattice", "compressed"), when the cell is full. */
clmc_status disk_cells_insert(disk_cells *c, double x, double y, const char *start);
/* A staggered-row lattice start, vacancies spread evenly; fails with an
 * input error if its nearest neighbours would be closer than a diameter. */
clmc_status disk_lattice_start(disk_cells *c);
/* Lattice rows and columns for the start (validation uses it without cells). */
clmc_status disk_lattice_shape(uint32_t n_disks, double box, uint32_t *rows, uint32_t *columns);

/* The compressed start (hard_disks_start.c): random disks at packing
 * fraction 0.3 compressed to the target without overlaps; random numbers
 * from the run's seed, stream of run-wide system `system` (0 for a run of
 * one system).  Fails (CLMC_ERR_OTHER) if the overlaps cannot be removed,
 * which happens only near jamming. */
#define DISK_COMPRESS_MAX_PHI 0.8
clmc_status disk_compress_start(disk_cells *c, uint64_t seed, uint32_t system);

/* Invariants of a configuration: disks stored, pairs closer than
 * 1 - tolerance, disks whose local coordinates leave (-margin, w + margin]. */
typedef struct {
    uint64_t disks, overlaps, outside;
} disk_invariants;
disk_invariants disk_check(const disk_cells *c, double tolerance);

/* Extrapolation of g(r) to contact (seed, section 4): histogram bins of
 * width bin in [1, 1 + range), sampled at R_i, polynomial of `degree`. */
typedef struct {
    size_t bins;
    double bin, range;
    double *weight; /* g(1) = sum_i weight[i] g(R_i) */
    uint64_t *histogram;
    float *edge2;   /* bins + 1 squared bin edges (1 + k bin)^2 as floats: bin k is edge2[k] <= r^2 < edge2[k + 1] */
} disk_pressure;
clmc_status disk_pressure_init(disk_pressure *p, double bin, double range, int degree);
void disk_pressure_free(disk_pressure *p);
/* The pair histogram of one configuration into p->histogram, on the host
 * (each ordered pair once; the same counts as the kernel's). */
void disk_pair_histogram(disk_pressure *p, const disk_cells *c);
/* beta P sigma^2 from p->histogram (Eq. 4 with g(1) extrapolated). */
double disk_pressure_of_histogram(const disk_pressure *p, const disk_geometry *g);
/* Both: beta P sigma^2 of one configuration. */
double disk_pressure_of(disk_pressure *p, const disk_cells *c);

/* configuration.csv (x,y,cell_x,cell_y) and, for N <= 65536,
 * configuration.svg, written atomically into dir. */
clmc_status disk_write_configuration(const disk_cells *c, const char *dir);
/* Disk centres in units of sigma, [disk][x, y] in configuration.csv's order
 * (cell by cell), with the box length as attribute "box_length" (result.h5). */
clmc_status disk_positions_array(const disk_cells *c, clmc_array *positions);

/* The model's run state (hard_disks.c drives it; hard_disks_checkpoint.c
 * saves, restores and guards it).  ensemble.type "independent": n_systems
 * systems (ensemble.copies), each a whole box, stored one after another in
 * every buffer (cl/hard_disks/hard_disks.cl); one system otherwise. */
typedef struct {
    clmc_runtime *rt;
    disk_cells host; /* the configurations as last read back (measurements, checks): n_systems blocks */
    cl_uint n_systems, first_system;
    disk_pressure pressure;
    uint32_t moves;
    float max_displacement;
    bool shuffle_sets, write_configuration, compress_start;
    bool fuse_shift;    /* algorithm.fuse_shift, where the device runs disks_shift_subsweep */
    const char *fuse_shift_off; /* why not, where algorithm.fuse_shift is true: NULL or a reason */
    bool shift_pending; /* the last sweep's shift is not made yet (its plan in block slot shift_slot) */
    cl_uint shift_slot;
    cl_uint seed_lo, seed_hi;
    uint64_t fault_after; /* CLMC_FAULT_DISK_AFTER (tests): break the state after this sweep; 0: never */
    bool fault_nan;       /* ...=SWEEP:nan: a NaN position instead of a removed disk */
    char *output_dir;
    cl_program program;
    cl_kernel subsweep, shift, shift_subsweep, guard, histogram;
    cl_mem disk[2], count[2], tally, overflow, guard_totals, edge2, pairs;
    cl_mem plans;          /* sweep plans of plan_block sweeps x n_systems (cl/hard_disks/hard_disks.cl) */
    uint32_t *plans_host;  /* the same, 2 words a plan */
    uint32_t plan_block;   /* sweeps a block of plans covers */
    uint64_t plan_first;   /* the first sweep of the block on the device; UINT64_MAX: none yet */
    int current; /* which of the double buffers holds the configuration */
    uint32_t *tally_host, *pairs_host; /* move tallies and pair histograms (all systems) as last read */
} disks_state;

/* System k's configuration in s->host as a cell list of its own (pointers
 * into the host arrays). */
disk_cells disks_system_view(const disks_state *s, uint32_t k);
/* Enqueues `kernel` on `items` work-items per system (dimension 1: the
 * system), in work-groups of at most 256. */
clmc_status disks_enqueue_systems(disks_state *s, cl_kernel kernel, size_t items, clmc_timing timing);

/* disks_shift_subsweep's tiles: DISK_FUSE_BLOCKS^2 blocks of 2 x 2 cells, a
 * work-item each (cl/hard_disks/hard_disks.cl). */
#define DISK_FUSE_BLOCKS 8u
/* algorithm.fuse_shift "auto" fuses up to this many cells in all systems:
 * above, the fused launch costs more device time than the launch it saves
 * (H200: 87 us against 28 + 26 for N = 65536 x 32 systems, 1.2 M cells,
 * and 180 against 145 us a sweep; record
 * 2026-11-28-nvidia-h200-session22.txt, call 9). */
#define DISK_FUSE_AUTO_CELLS 131072u

/* `kernel`'s first four arguments: the current disk and count buffers
 * (read) and the others (written): disks_shift, disks_shift_subsweep. */
clmc_status disks_set_buffer_pair(disks_state *s, cl_kernel kernel);
/* Makes the last sweep's cell shift where algorithm.fuse_shift left it for
 * the next sweep's first launch (disks_shift alone, the same bits): before
 * anything reads or replaces the configuration. */
clmc_status disks_settle_shift(disks_state *s);

/* Checkpoints (model.h): the current cell lists as stored (all systems),
 * which double buffer holds them, the move tallies and the overflow counter. */
clmc_status disks_save_state(void *state, unsigned char **blob, size_t *bytes);
clmc_status disks_load_state(void *state, const unsigned char *blob, size_t bytes);
/* The guard (model.h): disks on the device = N in every system, every stored
 * position finite and in its cell, every unused slot the sentinel; one
 * reduction kernel. */
clmc_status disks_guard(void *state);
/* Test-only fault (CLMC_FAULT_DISK_AFTER=SWEEP or SWEEP:nan): drops the
 * last disk of the first non-empty cell of the current configuration (the
 * first system's), or
 * makes its x coordinate NaN. */
clmc_status disks_inject_fault(disks_state *s);

#endif
