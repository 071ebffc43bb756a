/* Preset keys of the Ising model and its Metropolis algorithm. */
#include "models/ising/ising.h"
#include "models/random_site.h"
#include "models/rng_streams.h"

static const char *const algorithm_types[] = {"metropolis", "heatbath", NULL};
static const char *const layouts[] = {"naive", "tiled", "msc", "random_site", NULL};
static const char *const starts[] = {"random", "ordered", NULL};
static const char *const resident_modes[] = {"auto", "on", "off", NULL};

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
    {"resident", CLMC_FIELD_STRING, 0, 0, false, resident_modes, "\"auto\"",
     "naive, tiled and msc: auto runs many sweeps per launch, whole configurations held in local memory, "
     "where a configuration fits a device's dedicated local memory; on: also where local memory is emulated (CPUs); "
     "off: one launch per colour per sweep, and no automatic temporal blocking (bit-identical results)"},
    {"resident_configs", CLMC_FIELD_INT, 0, 64, false, NULL, "0",
     "msc with the resident update: configurations per work-group (0 = automatic); results do not depend on it"},
    {"update_group", CLMC_FIELD_INT, 0, 1024, false, NULL, "0",
     "msc: work-items per work-group of the ordinary update launches, the global size rounded up to a multiple "
     "(0 = 128 in a slab under MPI ranks, elsewhere the OpenCL implementation chooses), and per band of temporal "
     "blocking (0 = up to 256); results do not depend on it"},
    {"sweeps_per_launch", CLMC_FIELD_INT, 0, 65536, false, NULL, "0",
     "naive, tiled and msc (2D): 0 (auto) keeps the ordinary or resident update (msc on a GPU, L = 256 ... 16384: "
     "chooses temporal blocking); k >= 1: temporal blocking, blocks of algorithm.block sites (msc: bands of "
     "algorithm.block rows) with a halo make up to k sweeps per launch in local memory (bit-identical results)"},
    {"block", CLMC_FIELD_INT, 0, 262144, false, NULL, "0",
     "temporal blocking: block edge in sites (msc: rows per band), 2 .. model.L (0 = 64 in 2D, 16 in 3D, msc 8; "
     "at most L); results do not depend on it"},
    CLMC_RNG_ALGORITHM_FIELDS,
    CLMC_RANDOM_SITE_ALGORITHM_FIELDS,
    {"shift_every", CLMC_FIELD_INT, 1, 1e9, false, NULL, "1",
     "random_site dead_border: sweeps between random shifts of the tiling's origin"},
    {NULL, 0, 0, 0, false, NULL, NULL, NULL},
};
