/* Population annealing of members packed into the lanes of words
 * (clmc_ensemble_hooks.member_lanes): the bit-granular copy of the new
 * population (cl/ensembles/population_lanes.cl). */
#ifndef CLMC_POPULATION_LANES_H
#define CLMC_POPULATION_LANES_H

#include <stddef.h>

#include "clmc/runtime.h"
#include "clmc/status.h"

typedef struct {
    unsigned lanes;     /* members per word, 32 or 64; 0: not packed */
    size_t group_bytes; /* bytes of one group of `lanes` members */
    size_t groups;      /* the groups the members buffer holds */
    size_t group_size;  /* work-group size of pa_gather_lanes */
    cl_program program;
    cl_kernel gather;
} clmc_population_lanes;

/* Builds the gather for `capacity` members in groups of group_bytes (lanes
 * 32 or 64; lanes 0: nothing to build). */
clmc_status clmc_population_lanes_open(clmc_runtime *rt, unsigned lanes, size_t group_bytes, size_t capacity,
                                       clmc_population_lanes *out);
/* Bytes of the members buffer (all its groups). */
size_t clmc_population_lanes_bytes(const clmc_population_lanes *l);
/* to = the new population: member j < n_new is member source[j] of `from`,
 * the lanes past n_new 0. */
clmc_status clmc_population_lanes_gather(clmc_runtime *rt, clmc_population_lanes *l, cl_mem from, cl_mem to,
                                         cl_mem source, cl_uint n_new);
void clmc_population_lanes_close(clmc_population_lanes *l);

#endif
