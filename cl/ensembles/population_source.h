/* Population annealing's work fused into a model's update launches
 * (src/models/ensemble_hooks.h). */
#ifndef CLMC_POPULATION_SOURCE_H
#define CLMC_POPULATION_SOURCE_H

/* The gather in the first launch after resampling (gather_in_sweeps): the
 * slot of the old members buffer that new member j is read from, source[j]
 * (pa_sources) for the n_new resampled members, j itself past them (slots
 * beyond the population keep what they held, as after pa_gather and its
 * tail copy). */
inline uint pa_source_of(uint j, __global const uint *source, uint n_new)
{
    return j < n_new ? source[j] : j;
}

/* The measuring launch's energies into the chunks' ranges
 * (fold_energy_range): energies lo .. hi of configurations in the chunk of
 * 256 that holds `config` folded into its pair of chunk_range by
 * atomic_min and atomic_max. */
#define PA_FOLD_CHUNK 256u
inline void pa_fold_range(__global int *chunk_range, uint config, int lo, int hi)
{
    __global int *pair = chunk_range + 2 * (config / PA_FOLD_CHUNK);
    atomic_min(&pair[0], lo);
    atomic_max(&pair[1], hi);
}

#endif
