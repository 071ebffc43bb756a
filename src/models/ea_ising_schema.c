/* Preset keys of the Edwards-Anderson spin glass and its Metropolis algorithm. */
#include "models/ea_ising.h"

static const char *const algorithm_types[] = {"metropolis", NULL};
static const char *const layouts[] = {"naive", "msc", NULL};
static const char *const coupling_kinds[] = {"bimodal", "gaussian", "uniform", NULL};
static const char *const starts[] = {"random", "ordered", NULL};

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
    {NULL, 0, 0, 0, false, NULL, NULL, NULL},
};
