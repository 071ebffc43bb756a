/* Preset keys of the percolation model. */
#include "models/percolation/percolation.h"
#include "models/labeling/labeling_options.h"

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
    CLMC_LABELING_FIELDS,
    {NULL, 0, 0, 0, false, NULL, NULL, NULL},
};
