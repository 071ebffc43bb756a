/* State and shared functions of the O(n) models: heisenberg.c (ferromagnet,
 * kernels, sweeps, checks) and heisenberg_glass.c (couplings, overlaps). */
#ifndef CLMC_MODELS_HEISENBERG_INTERNAL_H
#define CLMC_MODELS_HEISENBERG_INTERNAL_H

#include <stdint.h>

#include "models/heisenberg.h"

#define MEASURE_BATCH 256 /* measurements held on the device, divided among the temperatures */
#define FIXED_SCALE 1073741824.0 /* fixed point of the sums, cl/heisenberg.cl */
/* Spare measurement slots after the batch: the energy when measurements
 * start, at the end, and the tempering energies. */
#define SLOT_DRIFT_START(s) ((s)->batch)
#define SLOT_FINAL(s) ((s)->batch + 1)
#define SLOT_ENERGIES(s) ((s)->batch + 2)
#define MEASURE_SLOTS(s) ((s)->batch + 3)

/* Benchmarking variant of the glass's naive update (CLMC_GLASS_VARIANT,
 * heisenberg_glass_variant.c); all zero but sites_per_item 1 by default. */
typedef struct {
    bool kernel; /* heisenberg_glass_update instead of heisenberg_naive_update */
    bool strided, j6, pair_loads, or_kernel, reverse_odd;
    unsigned sites_per_item, work_group; /* work_group 0: the driver's choice */
    cl_mem six; /* j6: the six couplings of each site */
    cl_kernel update_or; /* or_kernel: heisenberg_glass_update_or, for the over-relaxation sub-sweeps */
} heisenberg_glass_variant;

typedef struct {
    clmc_runtime *rt;
    bool glass; /* spin glass: couplings, two replicas (configurations) */
    int dim, edge, ncomp, tile, tiles_per_edge;
    cl_uint n_sites, n_configs, seed_lo, seed_hi, ordered;
    unsigned batch; /* measurement slots of the batch: MEASURE_BATCH / (temperatures realizations), at least 1 */
    /* glass: configuration system * temperatures + slot, two systems (replica
     * chains) per realization (disorder sample), system = 2 realization + replica */
    cl_uint temperatures, realizations;
    uint64_t seed;
    bool tiled, planes, is_double, fast_math, pure_overrelaxation, bimodal; /* tiled: also for planes */
    cl_uint mc_move, hits, or_steps;
    long long renormalize_every, thermalization;
    double beta;
    size_t tile_items, tile_groups, measure_wg, measure_groups;
    cl_program program;
    cl_kernel init, update, renormalize, measure, overlap;
    cl_mem spins, partials, max_deviation, couplings, overlaps, betas, pairs;
    cl_long *partials_host, *overlaps_host;
    cl_uint *pairs_host, *slot_pairs; /* glass: the replica pair of each (realization, temperature), now and per slot */
    heisenberg_glass_variant variant;
    /* The guard and its test-only fault (heisenberg_checkpoint.c). */
    cl_kernel norm_deviation, fault;
    cl_mem guard_deviation;
    uint64_t fault_after; /* CLMC_FAULT_SPIN_AFTER: sweeps after which one spin is doubled; 0: never */
} heisenberg_state;

extern const char *const clmc_heisenberg_glass_columns[];

clmc_status clmc_heisenberg_validate(const clmc_preset *p);
clmc_status clmc_heisenberg_create(clmc_runtime *rt, clmc_preset *p, bool glass, void **state, clmc_model_shape *shape);
void clmc_heisenberg_destroy(void *state);
clmc_status clmc_heisenberg_sweep(void *state, uint64_t sweep_index);
clmc_status clmc_heisenberg_measure(void *state, unsigned slot);
clmc_status clmc_heisenberg_checks(void *state, cJSON *checks);
size_t clmc_heisenberg_real_bytes(const heisenberg_state *s);
clmc_status clmc_heisenberg_buffer(heisenberg_state *s, size_t bytes, void *host, cl_mem *out);
clmc_status clmc_heisenberg_read_slots(heisenberg_state *s, unsigned first, unsigned n);
void clmc_heisenberg_sums(const heisenberg_state *s, const cl_long *slot_partials, double sums[4]);

/* Glass: couplings (from clmc_ea_coupling, so the host can rebuild them) and
 * overlap buffers; the overlap measurement of batch slot `slot`. */
clmc_status clmc_heisenberg_glass_allocate(heisenberg_state *s);
clmc_status clmc_heisenberg_glass_measure(heisenberg_state *s, unsigned slot);
/* Place of a site in the colour-split arrays: colour N / 2 + site / 2. */
size_t clmc_heisenberg_packed_site(const heisenberg_state *s, size_t site);
/* Benchmarking variants (heisenberg_glass_variant.c): CLMC_GLASS_VARIANT read
 * into s->variant, the kernel's extra build options, the six-coupling buffer
 * (after the kernels are built), and the naive update's NDRange. */
clmc_status clmc_heisenberg_glass_variant(heisenberg_state *s);
int clmc_heisenberg_glass_variant_options(const heisenberg_state *s, char *out, size_t size);
clmc_status clmc_heisenberg_glass_variant_allocate(heisenberg_state *s);
/* The naive update kernel for `move` (the or variant's own kernel for over-relaxation). */
cl_kernel clmc_heisenberg_glass_variant_kernel(const heisenberg_state *s, cl_uint move);
void clmc_heisenberg_glass_variant_launch(const heisenberg_state *s, size_t global[2], size_t local[2], bool *has_local);
/* The configurations' inverse temperatures as the kernels' reals. */
clmc_status clmc_heisenberg_write_betas(heisenberg_state *s, const double *betas);

/* Checkpoints, the numerical guard and its fault injection
 * (heisenberg_checkpoint.c): guard_setup after the kernels are built,
 * inject_fault at the end of every sweep. */
clmc_status clmc_heisenberg_guard_setup(heisenberg_state *s);
clmc_status clmc_heisenberg_inject_fault(heisenberg_state *s, uint64_t sweep_index);
clmc_status clmc_heisenberg_guard(void *state);
clmc_status clmc_heisenberg_save_state(void *state, unsigned char **blob, size_t *bytes);
clmc_status clmc_heisenberg_load_state(void *state, const unsigned char *blob, size_t bytes);

#endif
