/* Random-site dynamics (algorithm.layout "random_site"), shared by the
 * models that offer it (Ising, Potts): keys, kernels (cl/common/random_site.h
 * plus the model's attempt, e.g. cl/ising/random_site.cl) and launches.  The
 * driver keeps its spin buffer (config-major, one byte per site, initialised,
 * measured and checkpointed as for its other layouts) and hands the updates
 * to this part. */
#ifndef CLMC_MODELS_RANDOM_SITE_H
#define CLMC_MODELS_RANDOM_SITE_H

#include <stdint.h>

#include "models/model.h"

extern const char *const clmc_random_site_variants[];
extern const char *const clmc_site_sequences[];
extern const char *const clmc_rsite_memories[]; /* copies_memory */
extern const char *const clmc_tile_memories[];  /* tile_memory */

/* The keys every model with the layout takes (docs/models/ising.md). */
#define CLMC_RANDOM_SITE_ALGORITHM_FIELDS                                                                          \
    {"random_site", CLMC_FIELD_STRING, 0, 0, false, clmc_random_site_variants, "\"none\"",                         \
     "layout random_site (required there): sequential_reference (one work-item per copy), copies (shared site "    \
     "sequence), double_tiling (tiles of four sub-tiles) or dead_border (tile interiors, shifted origin; these "    \
     "two Ising only); none for the other layouts"},                                                                \
    {"site_sequence", CLMC_FIELD_STRING, 0, 0, false, clmc_site_sequences, "\"auto\"",                             \
     "layout random_site: per_copy or shared site picks (auto: per_copy for sequential_reference, shared for "     \
     "copies)"},                                                                                                    \
    {"substeps", CLMC_FIELD_INT, 1, 1LL << 32, false, NULL, "1",                                                   \
     "layout random_site: steps per sweep; one step (a unit of run.sweeps) makes N / substeps attempts"},           \
    {"copies_memory", CLMC_FIELD_STRING, 0, 0, false, clmc_rsite_memories, "\"auto\"",                            \
     "random_site copies: local (the copies of a work-group packed 32 per word in local memory for a step; Ising "  \
     "only), global (bytes in global memory) or auto (local on a GPU where the lattice fits and the model packs); " \
     "results do not depend on it"},                                                                                \
    {"tile_memory", CLMC_FIELD_STRING, 0, 0, false, clmc_tile_memories, "\"auto\"",                               \
     "random_site double_tiling / dead_border: tiles as bits in private memory, one work-item per tile "          \
     "(private), in local memory (local), in global memory (global) or auto (private on GPUs where the tile's "   \
     "bits fit, else local where a tile fits the device, else global); results do not depend on it"},            \
    {"tile_workers", CLMC_FIELD_INT, 0, 32, false, NULL, "0",                                                     \
     "random_site double_tiling / dead_border in local memory: work-items per tile, 1 (one serial chain of "      \
     "attempts) or 2, 4, 8, 16, 32 (attempts in conflict-free waves); 0 = auto (serial on CPU devices, by the "    \
     "tile's sites on GPUs); results do not depend on it"}

/* What a model gives: its kernel file (defines rs_attempt, includes
 * cl/common/random_site.h), the uints per configuration of its table
 * (RS_TABLE there), the table at a beta, and Q for Potts (0: no such define).
 * `tiles`: the model offers double_tiling and dead_border (keys
 * algorithm.tile and algorithm.shift_every) and their local-memory kernels
 * (RS_LWG); `packed`: its kernel file offers the packed copies kernel
 * (RS_LOCAL, one bit per spin: algorithm.copies_memory "local") and, with
 * `tiles`, the tiles as bits in private memory (RS_PRIVATE:
 * algorithm.tile_memory "private"). */
typedef struct {
    const char *program;
    unsigned table_stride;
    void (*table)(double beta, int dim, int q, bool heatbath, cl_uint *out);
    int q;
    bool tiles, packed;
} clmc_rsite_model;

typedef struct clmc_rsite clmc_rsite;

/* Keys of random-site dynamics; exit 2 naming the key.  `tiles`, `packed`:
 * those of the model's clmc_rsite_model. */
clmc_status clmc_rsite_validate(const clmc_preset *p, bool tiles, bool packed);
bool clmc_rsite_wanted(const clmc_preset *p);
/* Attempts per configuration and step (sites / algorithm.substeps). */
unsigned long long clmc_rsite_attempts(const clmc_preset *p);

/* `spins`: the driver's buffer of n_configs configurations, already
 * initialised; records the double_tiling / dead_border tile edge used in
 * algorithm.tile. */
clmc_status clmc_rsite_create(clmc_runtime *rt, clmc_preset *p, const clmc_rsite_model *model, cl_mem spins,
                              cl_uint n_configs, clmc_rsite **out);
void clmc_rsite_destroy(clmc_rsite *rs);
clmc_status clmc_rsite_step(clmc_rsite *rs, uint64_t step);
clmc_status clmc_rsite_set_betas(clmc_rsite *rs, const double *betas);
/* The same with every configuration at beta (population annealing). */
clmc_status clmc_rsite_set_beta_all(clmc_rsite *rs, double beta);
/* Brings the driver's buffer up to date (before measuring or reading it). */
clmc_status clmc_rsite_sync(clmc_rsite *rs);
/* The driver's buffer was rewritten (checkpoint load): take it over. */
clmc_status clmc_rsite_reload(clmc_rsite *rs);

#endif
