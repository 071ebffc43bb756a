/* Preset keys shared by the models that label clusters. */
#include "models/labeling/labeling_options.h"

#include <string.h>

const char *const clmc_labeling_methods[] = {"self_labeling", "union_find", NULL};
const char *const clmc_consolidation_methods[] = {"sewing", "relaxation", NULL};

static const long long tile_candidates[] = {8, 16, 32, 64, 0};
/* Labeling tiles of 64^2 were fastest for Swendsen-Wang and pure labeling at
 * L = 8192 on the H100 and H200, 32^2 on PoCL (2-core EPYC); see
 * benchmarks/results/2026-11-22-swendsen-wang-labeling.md. */
static const clmc_tunable_default tile_defaults[] = {
    {2, "GPU", NULL, 64},
    {2, "CPU", NULL, 32},
    {0, NULL, NULL, 0},
};
const clmc_tunable clmc_labeling_tunables[] = {
    {"algorithm.tile", 0, tile_candidates, true, tile_defaults},
    {NULL, 0, NULL, false, NULL},
};

clmc_label_lattice clmc_label_lattice_from_preset(const clmc_preset *preset, int dim, int edge)
{
    clmc_label_lattice lattice = {
        .dim = dim,
        .edge = edge,
        .tile = (int)clmc_preset_int(preset, "algorithm.tile"),
        .union_find = strcmp(clmc_preset_string(preset, "algorithm.labeling"), "union_find") == 0,
        .consolidation = strcmp(clmc_preset_string(preset, "algorithm.consolidation"), "relaxation") == 0
                             ? CLMC_CONSOLIDATE_RELAXATION : CLMC_CONSOLIDATE_SEWING,
    };
    return lattice;
}
