/* Preset keys of the Potts model and its algorithms. */
#include "models/potts.h"

static const char *const labelings[] = {"self_labeling", "union_find", NULL};
static const char *const algorithm_types[] = {"swendsen_wang", "metropolis", NULL};
static const char *const starts[] = {"random", "ordered", NULL};

const clmc_field clmc_potts_model_fields[] = {
    {"dim", CLMC_FIELD_INT, 2, 3, false, NULL, "2", "lattice dimension: 2 (square) or 3 (simple cubic)"},
    {"L", CLMC_FIELD_INT, 4, 65536, false, NULL, NULL, "edge length (even, L^dim < 2^30), periodic boundaries"},
    {"q", CLMC_FIELD_INT, 2, 255, false, NULL, "3", "number of states (q = 2: the Ising model at beta_Ising = beta / 2)"},
    {"start", CLMC_FIELD_STRING, 0, 0, false, starts, "\"random\"",
     "initial configuration: random (hot) or ordered (all in state 0, cold)"},
    {NULL, 0, 0, 0, false, NULL, NULL, NULL},
};

const clmc_field clmc_potts_algorithm_fields[] = {
    {"type", CLMC_FIELD_STRING, 0, 0, false, algorithm_types, "\"swendsen_wang\"",
     "swendsen_wang: cluster update (bonds, labeling, flips); metropolis: checkerboard single-spin update"},
    {"tile", CLMC_FIELD_INT, 0, 64, false, NULL, "0",
     "swendsen_wang: edge of the labeling tiles in local memory (divides L; 0 = 64 in 2D, 16 in 3D, halved until it divides L)"},
    {"labeling", CLMC_FIELD_STRING, 0, 0, false, labelings, "\"union_find\"",
     "labeling inside tiles: self_labeling (label minima until no change) or union_find; the same labels"},
    {NULL, 0, 0, 0, false, NULL, NULL, NULL},
};
