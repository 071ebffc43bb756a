/* The exact density of states of the L x L periodic 2D Ising model (J = 1) from
 * tests/data/ising2d_dos.txt (tools/exact_dos.py: exact integers for L = 4, 6, 8, 16)
 * and tests/data/ising2d_dos_L32.txt (L = 32). */
#ifndef CLMC_TESTS_ISING_DOS_H
#define CLMC_TESTS_ISING_DOS_H

/* Fills energies[i] (total energy, increasing) and ln_g[i] (natural log of the
 * count) for the energies with a non-zero count, at most `capacity` of them;
 * returns their number, or 0 when the file lacks L or cannot be read. */
int ising2d_exact_dos(int L, int *energies, double *ln_g, int capacity);

#endif
