/* Preset keys of the O(n) vector spin models (XY, Heisenberg; ferromagnet and
 * spin glass) and their moves. */
#include "models/heisenberg/heisenberg.h"
#include "models/rng_streams.h"

static const char *const algorithm_types[] = {"heatbath", "metropolis", "overrelaxation", NULL};
static const char *const layouts[] = {"naive", "tiled", "planes", NULL};
static const char *const precisions[] = {"float", "double", NULL};
static const char *const starts[] = {"random", "ordered", NULL};
static const char *const couplings[] = {"gaussian", "bimodal", NULL};

const clmc_field clmc_heisenberg_model_fields[] = {
    {"dim", CLMC_FIELD_INT, 2, 3, false, NULL, "2", "lattice dimension: 2 (square) or 3 (simple cubic)"},
    {"L", CLMC_FIELD_INT, 4, 65536, false, NULL, NULL, "edge length (even, L^dim < 2^31), periodic boundaries"},
    {"n", CLMC_FIELD_INT, 2, 3, false, NULL, "3", "spin components: 2 (XY) or 3 (Heisenberg)"},
    {"precision", CLMC_FIELD_STRING, 0, 0, false, precisions, "\"float\"",
     "spins and updates in float, or double (needs a device with fp64)"},
    {"start", CLMC_FIELD_STRING, 0, 0, false, starts, "\"random\"",
     "initial configuration: random directions (hot) or all along +x (cold)"},
    {NULL, 0, 0, 0, false, NULL, NULL, NULL},
};

/* algorithm.reproducible's default for XY, Heisenberg and the glass: the one
 * place that chooses it (docs/reproducibility.md). */
#define CLMC_HEISENBERG_REPRODUCIBLE_DEFAULT "false"

/* The algorithm keys of both models. */
#define CLMC_HEISENBERG_ALGORITHM_FIELDS                                                                                  \
    {"type", CLMC_FIELD_STRING, 0, 0, false, algorithm_types, "\"heatbath\"",                                    \
     "heatbath or metropolis (each followed by overrelaxation_steps), or overrelaxation alone (microcanonical; " \
     "thermalization sweeps are heat-bath)"},                                                                    \
    {"layout", CLMC_FIELD_STRING, 0, 0, false, layouts, "\"tiled\"",                                             \
     "naive: global-memory checkerboard; tiled: double checkerboard in local memory; planes (3D): columns "      \
     "marching along z, two planes at a time in local memory"},                                                  \
    {"tile", CLMC_FIELD_INT, 0, 64, false, NULL, "0",                                                            \
     "tile edge for layouts tiled and planes (even, L / tile even; 0 = per-device default)"},                    \
    {"hits", CLMC_FIELD_INT, 1, 1000000, false, NULL, "1",                                                       \
     "sub-sweeps of the move per sweep (tiled: per tile visit, multi-hit)"},                                     \
    {"overrelaxation_steps", CLMC_FIELD_INT, 0, 1000, false, NULL, "0",                                          \
     "over-relaxation sub-sweeps after the heat-bath or Metropolis ones, per sweep (tile visit)"},               \
    {"renormalize_every", CLMC_FIELD_INT, 0, 1000000000, false, NULL, "100",                                     \
     "sweeps between spin-length renormalisations (0 = never)"},                                                 \
    {"fast_math", CLMC_FIELD_BOOL, 0, 0, false, NULL, "false",                                                   \
     "true: -cl-fast-relaxed-math and native functions (float); false: accurate math"},                       \
    {"reproducible", CLMC_FIELD_BOOL, 0, 0, false, NULL, CLMC_HEISENBERG_REPRODUCIBLE_DEFAULT,                  \
     "true: IEEE-exact float arithmetic and clmc's own functions, the same bits on every OpenCL device "       \
     "(precision float, fast_math false); false: the device's math library"}

const clmc_field clmc_heisenberg_algorithm_fields[] = {
    CLMC_HEISENBERG_ALGORITHM_FIELDS,
    CLMC_RNG_ALGORITHM_FIELDS,
    {NULL, 0, 0, 0, false, NULL, NULL, NULL},
};

/* The naive layout's update launch (heisenberg_glass.c): no key changes the
 * results. */
const clmc_field clmc_heisenberg_glass_algorithm_fields[] = {
    CLMC_HEISENBERG_ALGORITHM_FIELDS,
    {"work_group", CLMC_FIELD_INT, 0, 1024, false, NULL, "0",
     "work-items per group of the naive layout's update (a power of two; 0 = automatic: 128 where the device "
     "allows, else the driver's choice)"},
    {"sites_per_item", CLMC_FIELD_INT, 0, 2, false, NULL, "0",
     "sites of a colour per work-item of the naive layout's update: 1, or 2 with two-wide loads (L a multiple "
     "of 4); 0 = automatic: 2 where L allows, else 1"},
    {NULL, 0, 0, 0, false, NULL, NULL, NULL},
};

const clmc_field clmc_heisenberg_glass_model_fields[] = {
    {"dim", CLMC_FIELD_INT, 2, 3, false, NULL, "3", "lattice dimension: 2 (square) or 3 (simple cubic)"},
    {"L", CLMC_FIELD_INT, 4, 65536, false, NULL, NULL, "edge length (even, L^dim < 2^31), periodic boundaries"},
    {"n", CLMC_FIELD_INT, 3, 3, false, NULL, "3", "spin components: 3 (Heisenberg)"},
    {"couplings", CLMC_FIELD_STRING, 0, 0, false, couplings, "\"gaussian\"",
     "quenched couplings: gaussian (mean 0, variance 1) or bimodal (+-1), drawn from run.seed"},
    {"realizations", CLMC_FIELD_INT, 1, 4096, false, NULL, "1",
     "disorder samples (realizations 0, 1, ... of the EA draw), each with two replicas"},
    {"precision", CLMC_FIELD_STRING, 0, 0, false, precisions, "\"float\"",
     "spins, couplings and updates in float, or double (needs a device with fp64)"},
    {"start", CLMC_FIELD_STRING, 0, 0, false, starts, "\"random\"",
     "initial configuration of both replicas: random directions (hot) or all along +x (cold)"},
    {NULL, 0, 0, 0, false, NULL, NULL, NULL},
};
