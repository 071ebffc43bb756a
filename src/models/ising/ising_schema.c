/* Preset keys of the Ising model and its Metropolis algorithm. */
#include "models/ising/ising.h"
#include "models/rng_streams.h"

static const char *const algorithm_types[] = {"metropolis", "heatbath", NULL};
static const char *const layouts[] = {"naive", "tiled", "msc", "random_site", NULL};
static const char *const random_site_variants[] = {"none", "sequential_reference", "copies", "double_tiling", "dead_border", NULL};
static const char *const copies_memories[] = {"auto", "local", "global", NULL};
static const char *const site_sequences[] = {"auto", "per_copy", "shared", NULL};
static const char *const tile_memories[] = {"auto", "local", "global", NULL};
static const char *const starts[] = {"random", "ordered", NULL};

const clmc_field clmc_ising_model_fields[] = {
    {"dim", CLMC_FIELD_INT, 2, 3, false, NULL, "2", "lattice dimension: 2 (square) or 3 (simple cubic)"},
    {"L", CLMC_FIELD_INT, 4, 262144, false, NULL, NULL, "edge length, periodic boundaries"},
    {"start", CLMC_FIELD_STRING, 0, 0, false, starts, "\"random\"",
     "initial configuration: random (hot) or ordered (all spins +1, cold)"},
    {NULL, 0, 0, 0, false, NULL, NULL, NULL},
};

const clmc_field clmc_ising_algorithm_fields[] = {
    {"type", CLMC_FIELD_STRING, 0, 0, false, algorithm_types, "\"metropolis\"",
     "update algorithm; heatbath (Glauber) with layout random_site only"},
    {"layout", CLMC_FIELD_STRING, 0, 0, false, layouts, "\"tiled\"",
     "naive: global-memory checkerboard; tiled: double checkerboard in local memory; "
     "msc: multi-spin coded, 32 sites per word; random_site: random-site dynamics (algorithm.random_site)"},
    {"tile", CLMC_FIELD_INT, 0, 64, false, NULL, "0",
     "tile edge for layout tiled and random_site double_tiling / dead_border (0 = default)"},
    {"item_width", CLMC_FIELD_INT, 0, 8, false, NULL, "0",
     "tiled: sites per work-item along x, 2, 4 or 8 dividing the tile (0 = the largest that divides it); "
     "results do not depend on it"},
    {"hits", CLMC_FIELD_INT, 1, 1000000, false, NULL, "1",
     "updates of each tile per visit (multi-hit); 1 for layout naive"},
    CLMC_RNG_ALGORITHM_FIELDS,
    {"random_site", CLMC_FIELD_STRING, 0, 0, false, random_site_variants, "\"none\"",
     "layout random_site (required there): sequential_reference (one work-item per copy), copies (shared site "
     "sequence), double_tiling (tiles of four sub-tiles) or dead_border (tile interiors, shifted origin); none for "
     "the other layouts"},
    {"site_sequence", CLMC_FIELD_STRING, 0, 0, false, site_sequences, "\"auto\"",
     "layout random_site: per_copy or shared site picks (auto: per_copy for sequential_reference, shared for copies)"},
    {"copies_memory", CLMC_FIELD_STRING, 0, 0, false, copies_memories, "\"auto\"",
     "random_site copies: local (the copies of a work-group packed 32 per word in local memory for a step), global "
     "(bytes in global memory) or auto (local on a GPU where the lattice fits); results do not depend on it"},
    {"shift_every", CLMC_FIELD_INT, 1, 1e9, false, NULL, "1",
     "random_site dead_border: sweeps between random shifts of the tiling's origin"},
    {"tile_memory", CLMC_FIELD_STRING, 0, 0, false, tile_memories, "\"auto\"",
     "random_site double_tiling / dead_border: tiles in local memory (local), global memory (global) or local where "
     "a tile fits the device (auto); results do not depend on it"},
    {"substeps", CLMC_FIELD_INT, 1, 1LL << 32, false, NULL, "1",
     "layout random_site: steps per sweep; one step (a unit of run.sweeps) makes N / substeps attempts"},
    {NULL, 0, 0, 0, false, NULL, NULL, NULL},
};
