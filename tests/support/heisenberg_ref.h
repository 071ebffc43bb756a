/* Sequential host Metropolis simulation of the O(n) vector spin model (n = 2, 3; ferromagnet or spin glass), an independent check on the device kernels. */
#ifndef CLMC_TESTS_HEISENBERG_REF_H
#define CLMC_TESTS_HEISENBERG_REF_H

#include <stddef.h>
#include <stdint.h>

/* One entry per sweep: energy = H/N (H = -sum over bonds of J_ij s_i . s_j),
 * |M|/N and, for two replicas, q2 = sum_ab q_ab^2 (else NULL). */
typedef struct {
    double *energy;
    double *abs_magnetization;
    double *q2;
    size_t n;
} heisenberg_ref_series;

/* dim 2 or 3, n 2 or 3, periodic edge L >= 2, random start, typewriter sweeps
 * of Metropolis moves s -> (s + delta r)/|s + delta r| (r uniform in the unit
 * ball: a symmetric proposal), in double with splitmix64 random numbers; one
 * measurement per sweep after `thermalization` sweeps.  Returns 0, or -1 for
 * bad arguments or out of memory (then *out is empty). */
int heisenberg_ref_run(int dim, int n, int L, double beta, long thermalization, long sweeps, uint64_t seed,
                       heisenberg_ref_series *out);
/* The spin glass: couplings[d * L^dim + site] of the bond from site to its +d
 * neighbour; two replicas, energy averaged over both, q2 between them. */
int heisenberg_ref_glass_run(int dim, int n, int L, double beta, const double *couplings, long thermalization,
                             long sweeps, uint64_t seed, heisenberg_ref_series *out);
void heisenberg_ref_series_free(heisenberg_ref_series *series);

#endif
