/* Edwards-Anderson Ising spin glass (host side of cl/ea/ea_ising.cl): preset keys;
 * its quenched couplings are the shared ones of models/disorder.h. */
#ifndef CLMC_MODELS_EA_ISING_H
#define CLMC_MODELS_EA_ISING_H

#include "models/model.h"
#include "models/disorder.h"

extern const clmc_field clmc_ea_ising_model_fields[];
extern const clmc_field clmc_ea_ising_algorithm_fields[];
extern const clmc_tunable clmc_ea_ising_tunables[];

#endif
