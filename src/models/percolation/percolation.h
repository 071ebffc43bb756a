/* Bond and site percolation: samples drawn and labelled on the device, cluster
 * statistics and wrapping on the host (cl/percolation/percolation.cl, cl/labeling/labeling.cl). */
#ifndef CLMC_MODELS_PERCOLATION_H
#define CLMC_MODELS_PERCOLATION_H

#include "models/model.h"

extern const clmc_field clmc_percolation_model_fields[];
extern const clmc_field clmc_percolation_algorithm_fields[];

#endif
