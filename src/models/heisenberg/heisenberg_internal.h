/* State and shared functions of the O(n) models: heisenberg.c (ferromagnet,
 * kernels, sweeps, checks), used by heisenberg_glass.c (couplings, overlaps,
 * the naive update's launch), which plugs in through heisenberg_extension. */
#ifndef CLMC_MODELS_HEISENBERG_INTERNAL_H
#define CLMC_MODELS_HEISENBERG_INTERNAL_H

#include <stdint.h>

#include "runtime/defines.h"
#include "models/heisenberg/heisenberg.h"
#include "models/rng_streams.h"

#define MEASURE_BATCH 256 /* measurements held on the device, divided among the temperatures */
#define FIXED_SCALE 1073741824.0 /* fixed point of the sums, cl/heisenberg/heisenberg.cl */
/* Spare measurement slots after the batch: the energy when measurements
 * start, at the end, and the tempering energies. */
#define SLOT_DRIFT_START(s) ((s)->batch)
#define SLOT_FINAL(s) ((s)->batch + 1)
#define SLOT_ENERGIES(s) ((s)->batch + 2)
#define MEASURE_SLOTS(s) ((s)->batch + 3)

typedef struct heisenberg_state heisenberg_state;

/* What the spin glass (heisenberg_glass.c) adds to the shared code; the
 * ferromagnet has none (NULL). */
typedef struct heisenberg_extension {
    const char *kernel_file;            /* built instead of heisenberg.cl */
    const char *const *series_columns;
    const char *naive_update;           /* the naive layout's update kernel */
    const char *naive_update_or;        /* the same fixed to over-relaxation, for those sub-sweeps */
    /* Before the build: its defines and the naive layout's launch
     * (naive_items, naive_wg), automatic preset values resolved. */
    clmc_status (*configure)(heisenberg_state *s, clmc_preset *p, clmc_defines *options);
    /* After the shared buffers: its own (couplings, overlaps) and kernels. */
    clmc_status (*allocate)(heisenberg_state *s);
    /* After the shared measurement into slot `slot`. */
    clmc_status (*measure)(heisenberg_state *s, unsigned slot);
} heisenberg_extension;

struct heisenberg_state {
    clmc_runtime *rt;
    const heisenberg_extension *extension;
    bool glass; /* spin glass: couplings, two replicas (configurations) */
    int dim, edge, ncomp, tile, tiles_per_edge;
    cl_uint n_sites, n_configs, seed_lo, seed_hi, ordered;
    unsigned batch; /* measurement slots of the batch: MEASURE_BATCH / (temperatures realizations), at least 1 */
    /* glass: configuration system * temperatures + slot, two systems (replica
     * chains) per realization (disorder sample), system = 2 realization + replica */
    cl_uint temperatures, realizations;
    /* glass, ensemble.type "independent": each realization a system, the
     * run-wide realization first_system + r (couplings, random streams). */
    bool independent;
    cl_uint first_system;
    cl_uint copies; /* ferromagnet, ensemble.type "independent": systems per temperature (configs copy-major) */
    uint64_t seed;
    bool tiled, planes, is_double, fast_math, pure_overrelaxation, bimodal; /* tiled: also for planes */
    bool reproducible; /* algorithm.reproducible: cl/common/repro_math.h */
    cl_uint mc_move, hits, or_steps;
    long long renormalize_every, thermalization;
    double beta;
    size_t tile_items, tile_groups, measure_wg, measure_groups;
    cl_program program;
    cl_kernel init, update, renormalize, measure, overlap;
    cl_mem spins, partials, max_deviation, couplings, overlaps, betas, pairs;
    clmc_rng_streams rng; /* algorithm.rng (ferromagnet); stateful: one stream per naive work-item */
    cl_long *partials_host, *overlaps_host;
    cl_uint *pairs_host, *slot_pairs; /* glass: the replica pair of each (realization, temperature), now and per slot */
    /* The naive layout's update launch: work-items per colour and sample, the
     * work-group size (0: the driver's choice); update_or NULL: update serves
     * every move. */
    size_t naive_items, naive_wg;
    cl_kernel update_or;
    /* The guard and its test-only fault (heisenberg_checkpoint.c). */
    cl_kernel norm_deviation, fault;
    cl_mem guard_deviation;
    uint64_t fault_after; /* CLMC_FAULT_SPIN_AFTER: sweeps after which one spin is doubled; 0: never */
    /* Population annealing (the ferromagnet): the configurations are the
     * members; their energies and |M| (cl_double) from member_totals. */
    bool population;
    cl_kernel member_totals;
    cl_mem member_energy, member_magnetisation;
};

clmc_status clmc_heisenberg_validate(const clmc_preset *p);
/* glass: the spin glass's extension; NULL: the ferromagnet. */
clmc_status clmc_heisenberg_create(clmc_runtime *rt, clmc_preset *p, const heisenberg_extension *glass, void **state,
                                   clmc_model_shape *shape);
void clmc_heisenberg_destroy(void *state);
clmc_status clmc_heisenberg_sweep(void *state, uint64_t sweep_index);
clmc_status clmc_heisenberg_measure(void *state, unsigned slot);
clmc_status clmc_heisenberg_checks(void *state, cJSON *checks);
/* model.h's device_bytes for the ferromagnet (glass false) and the spin glass. */
void clmc_heisenberg_device_bytes(const clmc_preset *p, bool glass, uint64_t *total, uint64_t *largest);
size_t clmc_heisenberg_real_bytes(const heisenberg_state *s);
/* Measurement partial sums per slot (4 per group and configuration). */
size_t clmc_heisenberg_partials_per_slot(const heisenberg_state *s);
clmc_status clmc_heisenberg_buffer(heisenberg_state *s, size_t bytes, void *host, cl_mem *out);
clmc_status clmc_heisenberg_read_slots(heisenberg_state *s, unsigned first, unsigned n);
void clmc_heisenberg_sums(const heisenberg_state *s, const cl_long *slot_partials, double sums[4]);

/* Ensemble hook: H of every configuration (exact fixed-point sums). */
clmc_status clmc_heisenberg_energies(void *state, double *energies);
/* The configurations' inverse temperatures as the kernels' reals. */
clmc_status clmc_heisenberg_write_betas(heisenberg_state *s, const double *betas);

/* Checkpoints, the numerical guard and its fault injection
 * (heisenberg_checkpoint.c): guard_setup after the kernels are built,
 * inject_fault at the end of every sweep. */
clmc_status clmc_heisenberg_guard_setup(heisenberg_state *s);
clmc_status clmc_heisenberg_inject_fault(heisenberg_state *s, uint64_t sweep_index);
clmc_status clmc_heisenberg_guard(void *state);
clmc_status clmc_heisenberg_save_state(void *state, unsigned char **blob, size_t *bytes);
/* result.h5: every configuration's vectors in site order, [config][z][y][x][component],
 * float or double as computed. */
clmc_status clmc_heisenberg_snapshot(void *state, clmc_array *configuration);
clmc_status clmc_heisenberg_load_state(void *state, const unsigned char *blob, size_t bytes);

#endif
