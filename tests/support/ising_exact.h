/* Exact finite-lattice thermodynamics of the L x L periodic 2D Ising model (J = 1), the reference for Ising tests. */
#ifndef CLMC_TESTS_ISING_EXACT_H
#define CLMC_TESTS_ISING_EXACT_H

/* ln Z for H = -sum over the 2N nearest-neighbour bonds of s_i s_j, N = L^2. */
double ising2d_exact_log_z(int L, double beta);

/* energy_per_spin = <H>/N; specific_heat_per_spin = beta^2 (<H^2> - <H>^2)/N.
 * Either pointer may be NULL. */
void ising2d_exact(int L, double beta, double *energy_per_spin, double *specific_heat_per_spin);

#endif
