/* Preset keys of the Edwards-Anderson spin glass and its Metropolis algorithm. */
#include "models/ea/ea_ising.h"

static const char *const algorithm_types[] = {"metropolis", NULL};
static const char *const layouts[] = {"naive", "msc", NULL};
static const char *const coupling_kinds[] = {"bimodal", "gaussian", "uniform", NULL};
static const char *const starts[] = {"random", "ordered", NULL};
static const char *const tempering_energies[] = {"pass", "measure", "check", NULL};
static const char *const resident_modes[] = {"auto", "on", "off", NULL};
static const char *const generators[] = {"philox4x32_10", "lcg64_reseeded", NULL};

const clmc_field clmc_ea_ising_model_fields[] = {
    {"dim", CLMC_FIELD_INT, 2, 3, false, NULL, "3", "lattice dimension: 2 (square) or 3 (simple cubic)"},
    {"L", CLMC_FIELD_INT, 4, 65536, false, NULL, NULL, "edge length (even, L^dim < 2^31), periodic boundaries"},
    {"couplings", CLMC_FIELD_STRING, 0, 0, false, coupling_kinds, "\"bimodal\"",
     "quenched J_ij: bimodal (+-1), gaussian (mean 0, variance 1; exp in float on the device, so not "
     "bit-reproducible across devices), uniform (all +1: the ferromagnet)"},
    {"realizations", CLMC_FIELD_INT, 1, 1 << 24, false, NULL, "1",
     "disorder realizations, each simulated as two real replicas"},
    {"start", CLMC_FIELD_STRING, 0, 0, false, starts, "\"random\"",
     "initial configuration: random (hot) or ordered (all spins +1, cold)"},
    {NULL, 0, 0, 0, false, NULL, NULL, NULL},
};

const clmc_field clmc_ea_ising_algorithm_fields[] = {
    {"type", CLMC_FIELD_STRING, 0, 0, false, algorithm_types, "\"metropolis\"", "update algorithm"},
    {"layout", CLMC_FIELD_STRING, 0, 0, false, layouts, "\"naive\"",
     "naive: one byte per spin, any couplings; msc: asynchronous multi-spin coding, bit b of a word "
     "is realization b (bimodal or uniform couplings, realizations a multiple of word_bits)"},
    {"shared_randoms", CLMC_FIELD_BOOL, 0, 0, false, NULL, "false",
     "naive: one random number per (replica, site, sweep) for the word_bits realizations of a word, "
     "exactly those of msc (msc always shares)"},
    {"word_bits", CLMC_FIELD_INT, 32, 64, false, NULL, "64",
     "32 or 64: realizations per msc word (uint or ulong), and per shared random number with "
     "shared_randoms"},
    {"tempering_energies", CLMC_FIELD_STRING, 0, 0, false, tempering_energies, "\"pass\"",
     "msc tempering: the exchange energies counted by the last colour pass before an exchange (pass), "
     "measured by the measurement kernel (measure), or both, counting differences in "
     "checks.energy_pass_mismatches (check); msc population annealing: the same for the members' energies and "
     "overlaps after each step's sweeps; the same results"},
    {"update_group", CLMC_FIELD_INT, 0, 1024, false, NULL, "0",
     "msc: work-items per work-group of the update, dividing its (realizations / word_bits) x temperatures x "
     "sites / 2 work-items; 0 = the driver's choice; the same results (clmc tune searches it)"},
    {"energy_sites", CLMC_FIELD_INT, 0, 64, false, NULL, "0",
     "msc tempering or population annealing with the energy (member) pass: sites per work-item of that pass; 0 = the model's default (8, "
     "halved while the device would be short of work-items); the same results (clmc tune searches it)"},
    {"resident", CLMC_FIELD_STRING, 0, 0, false, resident_modes, "\"auto\"",
     "population annealing: auto runs a step's sweeps and the members' measurement in one launch, the members "
     "held in local memory (msc: each word's two stacks; naive: quads of configurations, a word per site), where "
     "they fit a device's dedicated local memory; on: also where local memory is emulated (CPUs); off: two "
     "launches per sweep (bit-identical results)"},
    {"resident_group", CLMC_FIELD_INT, 0, 256, false, NULL, "0",
     "msc population annealing on the resident update: work-items per work-group (a power of two, at most the "
     "sites of a colour rounded up to one); 0 = automatic (256, or fewer where the sites of a colour, the "
     "device's limit or its local memory call for fewer); the same results, lcg64_reseeded's included (clmc tune "
     "searches it)"},
    {"rng", CLMC_FIELD_STRING, 0, 0, false, generators, "\"philox4x32_10\"",
     "generator of the Metropolis numbers: philox4x32_10, or lcg64_reseeded, the fast option of msc population "
     "annealing on the resident update (a word's sites draw from LCG64s seeded from Philox at every launch; "
     "docs/rng.md)"},
    {"reverse_odd", CLMC_FIELD_INT, -1, 1, false, NULL, "-1",
     "msc: colour-1 update launches take their work-groups last to first (1) or in order (0); -1 = the "
     "per-device default (built-in table, else 0); the same results (clmc tune searches it)"},
    {NULL, 0, 0, 0, false, NULL, NULL, NULL},
};

static const long long update_group_candidates[] = {64, 128, 256, 512, 0};
static const long long energy_sites_candidates[] = {1, 2, 4, 8, 16, 0};
static const long long resident_group_candidates[] = {64, 128, 256, 0};
static const long long reverse_odd_candidates[] = {0, 1, -1};
/* Colour-1 launches in reverse: on an H200, 0.264 against 0.303 ps per flip
 * at L = 32 with 4096 realizations
 * (benchmarks/results/2026-11-22-ea-msc.md); on CPUs (PoCL) the
 * reverse order was the default before the table. */
static const clmc_tunable_default reverse_odd_defaults[] = {
    {2, "GPU", NULL, 1},
    {3, "GPU", NULL, 1},
    {2, "CPU", NULL, 1},
    {3, "CPU", NULL, 1},
    {0, NULL, NULL, 0},
};
/* None changes a random number or the order of updates within a colour, so
 * every value gives bit-identical results. */
const clmc_tunable clmc_ea_ising_tunables[] = {
    {"algorithm.update_group", 0, update_group_candidates, true, NULL},
    {"algorithm.energy_sites", 0, energy_sites_candidates, true, NULL},
    {"algorithm.resident_group", 0, resident_group_candidates, true, NULL},
    {"algorithm.reverse_odd", -1, reverse_odd_candidates, true, reverse_odd_defaults},
    {NULL, 0, NULL, false, NULL},
};

