/* Ising ferromagnet with single-spin Metropolis updates (host side of cl/ising/ising.cl). */
#ifndef CLMC_MODELS_ISING_H
#define CLMC_MODELS_ISING_H

#include "models/model.h"

extern const clmc_field clmc_ising_model_fields[];
extern const clmc_field clmc_ising_algorithm_fields[];

#endif
