/* Sequential host Metropolis simulation of the hypercubic Ising model, an independent check on the device kernels. */
#ifndef CLMC_TESTS_ISING_REF_H
#define CLMC_TESTS_ISING_REF_H

#include <stddef.h>
#include <stdint.h>

/* One entry per sweep: energy = H/N (H = -sum over bonds of s_i s_j, J = 1)
 * and signed magnetization M/N. */
typedef struct {
    double *energy;
    double *magnetization;
    size_t n;
} ising_ref_series;

/* dim 2 or 3, periodic edge L >= 2, random start, typewriter Metropolis sweeps;
 * `sweeps` measurements after `thermalization` sweeps.  Returns 0, or -1 for
 * bad arguments or out of memory (then *out is empty). */
int ising_ref_run(int dim, int L, double beta, long thermalization, long sweeps, uint64_t seed,
                  ising_ref_series *out);
void ising_ref_series_free(ising_ref_series *series);

#endif
