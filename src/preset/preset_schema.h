/* What the preset validator needs to know of the models (their schema), given
 * to it by the layer above the models (src/engine/schema.c): the preset layer itself
 * names no model. */
#ifndef CLMC_PRESET_SCHEMA_H
#define CLMC_PRESET_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>

#include "clmc/preset.h"

/* One model as the preset sees it. */
typedef struct clmc_preset_model {
    const char *type;                   /* value of model.type */
    bool athermal;                      /* no temperature: "ensemble" is optional and empty */
    bool picture;                       /* draws a picture: output.picture may be true */
    bool checkpoints;                   /* saves and loads its state: run.checkpoint_every may be set */
    bool independent;                   /* holds several systems: ensemble.type "independent" */
    bool population;                    /* offers population annealing's member hooks */
    const clmc_field *model_fields;     /* keys of "model" other than "type" */
    const clmc_field *algorithm_fields; /* keys of "algorithm", "type" included */
    /* Cross-field checks run after the schema's (optional). */
    clmc_status (*validate)(const clmc_preset *preset);
} clmc_preset_model;

/* clmc_preset_parse and clmc_preset_load (clmc/preset.h) for the `n_models`
 * models given; model.type accepts exactly their types. */
clmc_status clmc_preset_parse_for(const clmc_preset_model *models, size_t n_models, const char *text, size_t length,
                                  const char *source_name, const char *const *overrides, size_t n_overrides,
                                  clmc_preset **out);
clmc_status clmc_preset_load_for(const clmc_preset_model *models, size_t n_models, const char *path,
                                 const char *const *overrides, size_t n_overrides, clmc_preset **out);

#endif
