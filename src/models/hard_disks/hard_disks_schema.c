/* Preset keys of the hard-disk model and the MPMC algorithm. */
#include "models/hard_disks/hard_disks.h"

static const char *const algorithm_types[] = {"mpmc", NULL};

/* algorithm.reproducible's default for hard disks: the one place that chooses
 * it (docs/reproducibility.md). */
#define DISK_REPRODUCIBLE_DEFAULT "false"
static const char *const start_types[] = {"lattice", "compress", NULL};
static const char *const fuse_modes[] = {"auto", "on", "off", NULL};

const clmc_field clmc_hard_disks_model_fields[] = {
    {"N", CLMC_FIELD_INT, 16, 268435456, false, NULL, NULL, "number of disks (diameter sigma = 1) in a square periodic box"},
    {"packing_fraction", CLMC_FIELD_NUMBER, 0, DISK_CLOSE_PACKING, true, NULL, NULL,
     "phi = N pi / (4 box^2), below close packing pi / (2 sqrt 3)"},
    {"start", CLMC_FIELD_STRING, 0, 0, false, start_types, "\"lattice\"",
     "lattice: staggered rows at the target, melted by the run; compress: random disks at phi = 0.3 compressed to "
     "the target without overlaps (host, once; phi <= 0.8)"},
    {"write_configuration", CLMC_FIELD_BOOL, 0, 0, false, NULL, "true",
     "write configuration.csv (and configuration.svg for N <= 65536) at the end of a run"},
    {NULL, 0, 0, 0, false, NULL, NULL, NULL},
};

const clmc_field clmc_hard_disks_algorithm_fields[] = {
    {"type", CLMC_FIELD_STRING, 0, 0, false, algorithm_types, "\"mpmc\"",
     "mpmc: checkerboard cell updates with cell shifts (Anderson et al. 2013)"},
    {"moves_per_cell", CLMC_FIELD_INT, 1, 64, false, NULL, "4", "n_M: trial moves per active cell and sub-sweep"},
    {"max_displacement", CLMC_FIELD_NUMBER, 0, 1, true, NULL, "0.16",
     "d: trial moves uniform in a disk of this radius (units of sigma)"},
    {"shuffle_particles", CLMC_FIELD_BOOL, 0, 0, false, NULL, "true",
     "shuffle each cell's disks before its moves; false is WRONG (seed pitfall 2, Table 1)"},
    {"shuffle_sets", CLMC_FIELD_BOOL, 0, 0, false, NULL, "true",
     "random order of the four checkerboard sets; false (fixed order) breaks detailed balance, the seed finds no bias"},
    {"cell_exit", CLMC_FIELD_BOOL, 0, 0, false, NULL, "false",
     "let moves carry a disk up to (w - 1 - pressure_range) / 2 beyond its cell (it stays in its cell's list until a "
     "shift); WRONG: seed pitfall 1, membership is no longer a function of the positions"},
    {"fuse_shift", CLMC_FIELD_STRING, 0, 0, false, fuse_modes, "\"auto\"",
     "on: make each sweep's cell shift in one launch with the next sweep's first sub-sweep (4 launches a sweep "
     "instead of 5, the same results bit for bit); off: the shift in a launch of its own; auto: on where all systems "
     "together have at most 131072 cells (launch-bound), off above"},
    {"pressure_bin", CLMC_FIELD_NUMBER, 0, 0.01, true, NULL, "0.0001", "width of the pair-distance histogram bins"},
    {"pressure_range", CLMC_FIELD_NUMBER, 0, 0.2, true, NULL, "0.02",
     "g(r) is fitted on (1, 1 + range] and extrapolated to contact"},
    {"pressure_degree", CLMC_FIELD_INT, 0, 8, false, NULL, "5", "degree of the fitted polynomial"},
    {"reproducible", CLMC_FIELD_BOOL, 0, 0, false, NULL, DISK_REPRODUCIBLE_DEFAULT,
     "true: IEEE-exact float arithmetic and clmc's own sqrt and sincos, the same bits on every OpenCL device; "
     "false: the device's math library"},
    {NULL, 0, 0, 0, false, NULL, NULL, NULL},
};
