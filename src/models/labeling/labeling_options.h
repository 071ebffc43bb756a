/* Preset keys shared by the models that label clusters (Potts cluster
 * updates, percolation): the tile edge, the labeling inside tiles and the
 * consolidation across them (src/models/labeling/labeling.c does the work). */
#ifndef CLMC_MODELS_LABELING_OPTIONS_H
#define CLMC_MODELS_LABELING_OPTIONS_H

#include "clmc/labeling.h"
#include "models/model.h"

extern const char *const clmc_labeling_methods[];
extern const char *const clmc_consolidation_methods[];

/* The three entries of an algorithm field table. */
#define CLMC_LABELING_FIELDS                                                                                       \
    {"tile", CLMC_FIELD_INT, 0, 64, false, NULL, "0",                                                              \
     "edge of the labeling tiles in local memory (divides L; 0 = 64 in 2D, 16 in 3D, halved until it divides L)"}, \
    {"labeling", CLMC_FIELD_STRING, 0, 0, false, clmc_labeling_methods, "\"union_find\"",                        \
     "labeling inside tiles: self_labeling (label minima until no change) or union_find; the same labels"},       \
    {"consolidation", CLMC_FIELD_STRING, 0, 0, false, clmc_consolidation_methods, "\"sewing\"",               \
     "across tiles: sewing (hierarchical, 2^dim blocks per level, wrap bonds last) or relaxation (repeated "      \
     "until no root changes); the same labels"}

/* `clmc tune` may search the labeling tile edge: every edge gives the same
 * labels, so the same run. */
extern const clmc_tunable clmc_labeling_tunables[];

/* The labeling set-up a preset asks for (tile 0: the labeler's default). */
clmc_label_lattice clmc_label_lattice_from_preset(const clmc_preset *preset, int dim, int edge);

#endif
