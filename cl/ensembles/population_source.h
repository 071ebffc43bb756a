/* Population annealing's gather fused into a model's first update launch
 * after resampling (clmc_ensemble_hooks.gather_in_sweeps in
 * src/models/ensemble_hooks.h): the slot of the old members buffer that new
 * member j is read from, source[j] (pa_sources) for the n_new resampled
 * members, j itself past them (slots beyond the population keep what they
 * held, as after pa_gather and its tail copy). */
#ifndef CLMC_POPULATION_SOURCE_H
#define CLMC_POPULATION_SOURCE_H

inline uint pa_source_of(uint j, __global const uint *source, uint n_new)
{
    return j < n_new ? source[j] : j;
}

#endif
