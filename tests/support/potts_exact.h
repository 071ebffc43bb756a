/* Exact thermodynamics of the small periodic 2D q-state Potts model (J = 1),
 * H = -sum_<ij> delta(s_i, s_j), from its density of states counted by a
 * row-to-row transfer matrix: the reference for Potts tests. */
#ifndef CLMC_TESTS_POTTS_EXACT_H
#define CLMC_TESTS_POTTS_EXACT_H

/* energy_per_spin = <H>/N, specific_heat_per_spin = beta^2 (<H^2> - <H>^2)/N
 * on the L x L lattice (q^L row states: L = 4, q = 3 takes well below a
 * second).  Either pointer may be NULL. */
void potts2d_exact(int L, int q, double beta, double *energy_per_spin, double *specific_heat_per_spin);

#endif
