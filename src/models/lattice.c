/* Helpers shared by the hypercubic lattice models. */
#include "models/lattice.h"

#include <math.h>
#include <stdlib.h>

unsigned long long clmc_lattice_sites(int dim, int edge)
{
    unsigned long long n = (unsigned long long)edge * (unsigned long long)edge;
    return dim == 3 ? n * (unsigned long long)edge : n;
}

void clmc_metropolis_thresholds(double beta, cl_uint thresholds[CLMC_METROPOLIS_CLASSES])
{
    for (int k = 0; k < CLMC_METROPOLIS_CLASSES; k++) {
        double scaled = floor(ldexp(exp(-beta * 4.0 * (k + 1)), 32));
        thresholds[k] = scaled >= 4294967295.0 ? 4294967295u : (cl_uint)scaled;
    }
}

size_t clmc_power_of_two_at_most(size_t n)
{
    size_t p = 1;
    while (p * 2 <= n) p *= 2;
    return p;
}

unsigned clmc_measure_slots(unsigned most, unsigned spare, unsigned long long slot_bytes,
                            unsigned long long config_bytes)
{
    unsigned long long budget = config_bytes > CLMC_MEASURE_BUDGET_BYTES ? config_bytes : CLMC_MEASURE_BUDGET_BYTES;
    unsigned long long fit = slot_bytes ? budget / slot_bytes : most + spare;
    if (fit <= spare + 1ULL) return 1;
    return fit - spare < most ? (unsigned)(fit - spare) : most;
}

clmc_array clmc_lattice_array(const char *name, clmc_array_type type, size_t configs, int dim, int edge,
                              unsigned components)
{
    clmc_array a = {.name = name, .type = type, .rank = 1 + (unsigned)dim};
    a.dims[0] = configs;
    for (int d = 1; d <= dim; d++) a.dims[d] = (uint64_t)edge;
    if (components > 1) a.dims[a.rank++] = components;
    size_t bytes = type == CLMC_ARRAY_FLOAT64 ? 8 : type == CLMC_ARRAY_FLOAT32 || type == CLMC_ARRAY_UINT32 ? 4 : 1;
    for (unsigned d = 0; d < a.rank; d++) bytes *= (size_t)a.dims[d];
    a.data = malloc(bytes ? bytes : 1);
    return a;
}

void clmc_describe_resident(cJSON *performance, const char *reason, uint64_t launches, uint64_t sweeps,
                            size_t work_group, const char *unit_name, double unit)
{
    cJSON *r = cJSON_AddObjectToObject(performance, "resident");
    cJSON_AddBoolToObject(r, "used", reason == NULL);
    if (reason) {
        cJSON_AddStringToObject(r, "reason", reason);
        return;
    }
    cJSON_AddNumberToObject(r, "launches", (double)launches);
    cJSON_AddNumberToObject(r, "sweeps_per_launch", launches ? (double)sweeps / (double)launches : 0.0);
    cJSON_AddNumberToObject(r, "work_group", (double)work_group);
    cJSON_AddNumberToObject(r, unit_name, unit);
}
