/* Helpers shared by the hypercubic lattice models (Ising, EA spin glass). */
#ifndef CLMC_MODELS_LATTICE_H
#define CLMC_MODELS_LATTICE_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "clmc/runtime.h"
#include "output/h5.h"

/* Metropolis classes: uphill moves cost dE = 4, 8, 12 for +-1 couplings. */
#define CLMC_METROPOLIS_CLASSES 3

/* L^dim. */
unsigned long long clmc_lattice_sites(int dim, int edge);
/* floor(exp(-beta dE) 2^32) for dE = 4, 8, 12: integer acceptance thresholds
 * that keep devices bit-identical. */
void clmc_metropolis_thresholds(double beta, cl_uint thresholds[CLMC_METROPOLIS_CLASSES]);
/* A configuration array of `configs` lattices, [config][z][y][x] (2D:
 * [config][y][x]), one `item_bytes` value per site (times `components`
 * values per site where components > 1, then a last dimension); data
 * allocated here, NULL on failure. */
clmc_array clmc_lattice_array(const char *name, clmc_array_type type, size_t configs, int dim, int edge,
                              unsigned components);
/* The largest power of two not above n (n >= 1), e.g. for reduction work-groups. */
size_t clmc_power_of_two_at_most(size_t n);

/* Device memory the measurement slots of a batch may take (with the spare
 * slots): at most the larger of this and the configurations' own bytes. */
#define CLMC_MEASURE_BUDGET_BYTES (256ULL << 20)
/* Measurement batch slots for a buffer of `slot_bytes` per slot (all
 * configurations) and `spare` slots after the batch: `most`, or fewer (at
 * least 1) so that (slots + spare) slot_bytes stays within
 * max(CLMC_MEASURE_BUDGET_BYTES, config_bytes).  Many configurations thus get
 * shorter batches: the host reads the measurements more often, their values
 * do not change. */
unsigned clmc_measure_slots(unsigned most, unsigned spare, unsigned long long slot_bytes,
                            unsigned long long config_bytes);

/* result.json performance.resident (docs/results.md) of a resident update
 * (many sweeps per launch): reason != NULL, {"used": false, "reason"};
 * else used, launches, sweeps_per_launch (sweeps / launches) and
 * work_group, then unit_name = unit (Ising configs_per_group, EA
 * sites_per_item). */
void clmc_describe_resident(cJSON *performance, const char *reason, uint64_t launches, uint64_t sweeps,
                            size_t work_group, const char *unit_name, double unit);

#endif
