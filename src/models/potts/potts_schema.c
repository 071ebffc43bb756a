/* Preset keys of the Potts model and its algorithms. */
#include "models/potts/potts.h"
#include "models/labeling/labeling_options.h"
#include "models/random_site.h"

static const char *const algorithm_types[] = {"swendsen_wang", "few_cluster", "metropolis", "heatbath", NULL};
static const char *const layouts[] = {"checkerboard", "random_site", NULL};
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
     "swendsen_wang: cluster update (bonds, labeling, flips); few_cluster: the same decomposition, but only the "
     "clusters of one random seed per labeling tile change, each with probability flip_probability; metropolis: "
     "single-spin update, checkerboard or random-site; heatbath: the new state from its conditional distribution, "
     "layout random_site only"},
    {"layout", CLMC_FIELD_STRING, 0, 0, false, layouts, "\"checkerboard\"",
     "metropolis: checkerboard (every site once per sweep, two colours) or random_site (random-site dynamics, "
     "algorithm.random_site); cluster updates: checkerboard"},
    CLMC_LABELING_FIELDS,
    CLMC_RANDOM_SITE_ALGORITHM_FIELDS,
    {"flip_probability", CLMC_FIELD_NUMBER, 0, 1, false, NULL, "0.9",
     "few_cluster: probability that a seeded cluster changes state (0 < p < 1; below one for ergodicity)"},
    {NULL, 0, 0, 0, false, NULL, NULL, NULL},
};
