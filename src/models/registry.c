/* The list of models the engine knows; adding a model adds one line here. */
#include <string.h>

#include "models/model.h"

extern const clmc_model_ops clmc_model_ising;
extern const clmc_model_ops clmc_model_ea_ising;
extern const clmc_model_ops clmc_model_potts;
extern const clmc_model_ops clmc_model_percolation;
extern const clmc_model_ops clmc_model_hard_disks;
extern const clmc_model_ops clmc_model_heisenberg;
extern const clmc_model_ops clmc_model_heisenberg_glass;

const clmc_model_ops *const clmc_models[] = {
    &clmc_model_ising,
    &clmc_model_ea_ising,
    &clmc_model_potts,
    &clmc_model_percolation,
    &clmc_model_hard_disks,
    &clmc_model_heisenberg,
    &clmc_model_heisenberg_glass,
    NULL,
};

const clmc_model_ops *clmc_model_find(const char *type)
{
    for (size_t i = 0; clmc_models[i]; i++)
        if (strcmp(clmc_models[i]->type, type) == 0) return clmc_models[i];
    return NULL;
}
