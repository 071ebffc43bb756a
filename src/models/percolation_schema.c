/* Preset keys of the percolation model. */
#include "models/percolation.h"

static const char *const labelings[] = {"self_labeling", "union_find", NULL};
static const char *const algorithm_types[] = {"labeling", NULL};
static const char *const kinds[] = {"bond", "site", NULL};

const clmc_field clmc_percolation_model_fields[] = {
    {"dim", CLMC_FIELD_INT, 2, 3, false, NULL, "2", "lattice dimension: 2 (square) or 3 (simple cubic)"},
    {"L", CLMC_FIELD_INT, 4, 65536, false, NULL, NULL, "edge length (L^dim < 2^31), periodic boundaries"},
    {"p", CLMC_FIELD_NUMBER, 0, 1, false, NULL, "0.5", "probability that a bond is open (bond) or a site occupied (site)"},
    {"kind", CLMC_FIELD_STRING, 0, 0, false, kinds, "\"bond\"", "bond or site percolation"},
    {NULL, 0, 0, 0, false, NULL, NULL, NULL},
};

const clmc_field clmc_percolation_algorithm_fields[] = {
    {"type", CLMC_FIELD_STRING, 0, 0, false, algorithm_types, "\"labeling\"",
     "labeling: a fresh sample every sweep, labelled on the device"},
    {"tile", CLMC_FIELD_INT, 0, 64, false, NULL, "0",
     "edge of the labeling tiles in local memory (divides L; 0 = 64 in 2D, 16 in 3D, halved until it divides L)"},
    {"labeling", CLMC_FIELD_STRING, 0, 0, false, labelings, "\"union_find\"",
     "labeling inside tiles: self_labeling (label minima until no change) or union_find; the same labels"},
    {NULL, 0, 0, 0, false, NULL, NULL, NULL},
};
