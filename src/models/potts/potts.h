/* q-state Potts model: checkerboard Metropolis, Swendsen-Wang cluster
 * updates or random-site dynamics (host side of cl/potts/potts.cl,
 * cl/potts/random_site.cl and cl/labeling/labeling.cl). */
#ifndef CLMC_MODELS_POTTS_H
#define CLMC_MODELS_POTTS_H

#include "models/model.h"

extern const clmc_field clmc_potts_model_fields[];
extern const clmc_field clmc_potts_algorithm_fields[];

#endif
