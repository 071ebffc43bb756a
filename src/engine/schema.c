/* The schema step above the models: clmc_preset_parse and clmc_preset_load
 * hand the preset validator the registry's models (field tables, checks), so
 * the preset layer below the models names none of them. */
#include <stdlib.h>

#include "models/model.h"
#include "preset/preset_schema.h"

/* The registry as the preset sees it; caller frees. */
static clmc_preset_model *preset_models(size_t *n)
{
    *n = 0;
    while (clmc_models[*n]) (*n)++;
    clmc_preset_model *models = calloc(*n ? *n : 1, sizeof *models);
    for (size_t i = 0; models && i < *n; i++) {
        const clmc_model_ops *ops = clmc_models[i];
        models[i] = (clmc_preset_model){.type = ops->type, .athermal = ops->athermal, .picture = ops->picture != NULL,
                                        .checkpoints = ops->save_state && ops->load_state,
                                        .independent = ops->ensemble && ops->ensemble->independent,
                                        .population = ops->ensemble && ops->ensemble->member_observables,
                                        .model_fields = ops->model_fields, .algorithm_fields = ops->algorithm_fields,
                                        .validate = ops->validate};
    }
    return models;
}

clmc_status clmc_preset_parse(const char *text, size_t length, const char *source_name,
                              const char *const *overrides, size_t n_overrides, clmc_preset **out)
{
    size_t n = 0;
    clmc_preset_model *models = preset_models(&n);
    clmc_status status = models ? clmc_preset_parse_for(models, n, text, length, source_name, overrides, n_overrides, out)
                                : clmc_fail(CLMC_ERR_OTHER, "preset: out of memory");
    free(models);
    return status;
}

clmc_status clmc_preset_load(const char *path, const char *const *overrides, size_t n_overrides,
                             clmc_preset **out)
{
    size_t n = 0;
    clmc_preset_model *models = preset_models(&n);
    clmc_status status = models ? clmc_preset_load_for(models, n, path, overrides, n_overrides, out)
                                : clmc_fail(CLMC_ERR_OTHER, "preset: out of memory");
    free(models);
    return status;
}
