/* q-state Potts model: checkerboard Metropolis or Swendsen-Wang cluster
 * updates (host side of cl/potts/potts.cl and cl/labeling/labeling.cl). */
#ifndef CLMC_MODELS_POTTS_H
#define CLMC_MODELS_POTTS_H

#include "models/model.h"

extern const clmc_field clmc_potts_model_fields[];
extern const clmc_field clmc_potts_algorithm_fields[];

#endif
