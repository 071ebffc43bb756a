/* O(n) vector spin models, n = 2 (XY) and 3 (Heisenberg), ferromagnets and
 * spin glasses: Metropolis, heat-bath and over-relaxation (host side of
 * cl/heisenberg/heisenberg.cl). */
#ifndef CLMC_MODELS_HEISENBERG_H
#define CLMC_MODELS_HEISENBERG_H

#include <stdbool.h>

#include "models/model.h"

extern const clmc_field clmc_heisenberg_model_fields[];
extern const clmc_field clmc_heisenberg_algorithm_fields[];
extern const clmc_field clmc_heisenberg_glass_model_fields[];
extern const clmc_field clmc_heisenberg_glass_algorithm_fields[];

/* CLMC_ERR_INPUT naming model.precision and the device if double precision
 * is asked of a device without fp64; CLMC_OK otherwise. */
clmc_status clmc_heisenberg_check_precision(bool want_double, bool device_has_fp64, const char *device_name);

#endif
