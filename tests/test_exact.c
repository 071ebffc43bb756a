/* Checks the exact 2D Ising reference (Kaufman) against brute-force enumeration and a row transfer matrix. */
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "ising_dos.h"
#include "ising_exact.h"

static const double BETAS[] = {0.2, 0.3, 0.4406868, 0.6, 0.9};
enum { BETA_COUNT = sizeof BETAS / sizeof BETAS[0] };

static const double ENERGY_TOLERANCE = 1e-9;
static const double HEAT_TOLERANCE = 1e-8;
static const double LOG_Z_TOLERANCE = 1e-12;

typedef struct {
    double log_z, energy_per_spin, specific_heat_per_spin;
} thermo;

static double relative_difference(double a, double b)
{
    return fabs(a - b) / fabs(b);
}

static void expect_matches_kaufman(int L, double beta, thermo reference, const char *method)
{
    thermo exact;
    exact.log_z = ising2d_exact_log_z(L, beta);
    ising2d_exact(L, beta, &exact.energy_per_spin, &exact.specific_heat_per_spin);
    printf("L=%d beta=%.7f %s: lnZ %.15g vs %.15g, u %.15f vs %.15f (rel %.1e), c %.15f vs %.15f (rel %.1e)\n",
           L, beta, method, reference.log_z, exact.log_z, reference.energy_per_spin, exact.energy_per_spin,
           relative_difference(exact.energy_per_spin, reference.energy_per_spin),
           reference.specific_heat_per_spin, exact.specific_heat_per_spin,
           relative_difference(exact.specific_heat_per_spin, reference.specific_heat_per_spin));
    cr_expect(relative_difference(exact.log_z, reference.log_z) < LOG_Z_TOLERANCE,
              "L=%d beta=%g: lnZ %.15g, %s %.15g", L, beta, exact.log_z, method, reference.log_z);
    cr_expect(relative_difference(exact.energy_per_spin, reference.energy_per_spin) < ENERGY_TOLERANCE,
              "L=%d beta=%g: energy %.15g, %s %.15g", L, beta, exact.energy_per_spin, method,
              reference.energy_per_spin);
    cr_expect(relative_difference(exact.specific_heat_per_spin, reference.specific_heat_per_spin) < HEAT_TOLERANCE,
              "L=%d beta=%g: specific heat %.15g, %s %.15g", L, beta, exact.specific_heat_per_spin, method,
              reference.specific_heat_per_spin);
}

/* ---- Brute force: density of states of the 4 x 4 torus by enumeration. ---- */

enum { SMALL_EDGE = 4, SMALL_SITES = SMALL_EDGE * SMALL_EDGE, SMALL_MAX_BONDS = 2 * SMALL_SITES };

static int spin_at(unsigned config, int x, int y, int L)
{
    return (config >> (((y + L) % L) * L + (x + L) % L)) & 1u ? 1 : -1;
}

static int small_lattice_energy(unsigned config)
{
    int energy = 0;
    for (int y = 0; y < SMALL_EDGE; y++)
        for (int x = 0; x < SMALL_EDGE; x++) {
            int s = spin_at(config, x, y, SMALL_EDGE);
            energy -= s * (spin_at(config, x + 1, y, SMALL_EDGE) + spin_at(config, x, y + 1, SMALL_EDGE));
        }
    return energy;
}

/* Moments about the mean, weights relative to the ground state: no overflow, no cancellation. */
static thermo thermo_from_density_of_states(const double *count, int max_bonds, int sites, double beta)
{
    long double z = 0, first = 0, second = 0;
    for (int e = -max_bonds; e <= max_bonds; e++) {
        long double weight = count[e + max_bonds] * expl(-(long double)beta * (e + max_bonds));
        z += weight;
        first += weight * e;
    }
    long double mean = first / z;
    for (int e = -max_bonds; e <= max_bonds; e++)
        second += count[e + max_bonds] * expl(-(long double)beta * (e + max_bonds)) * (e - mean) * (e - mean);
    return (thermo){(double)(logl(z) + (long double)beta * max_bonds), (double)(mean / sites),
                    (double)((long double)beta * beta * second / z / sites)};
}

Test(exact, matches_enumeration_of_4x4)
{
    double count[2 * SMALL_MAX_BONDS + 1] = {0};
    for (unsigned config = 0; config < (1u << SMALL_SITES); config++)
        count[small_lattice_energy(config) + SMALL_MAX_BONDS] += 1;
    for (int b = 0; b < BETA_COUNT; b++)
        expect_matches_kaufman(SMALL_EDGE, BETAS[b],
                               thermo_from_density_of_states(count, SMALL_MAX_BONDS, SMALL_SITES, BETAS[b]),
                               "enumeration");
}

/* ---- Row-to-row transfer matrix with its first two beta-derivatives. ---- */

/* A matrix and its first two derivatives in beta, long double, row-major. */
typedef struct {
    int size;
    long double *value, *d1, *d2;
} matrix_jet;

static int matrix_jet_alloc(matrix_jet *m, int size)
{
    size_t entries = (size_t)size * size;
    m->size = size;
    m->value = calloc(3 * entries, sizeof *m->value);
    m->d1 = m->value ? m->value + entries : NULL;
    m->d2 = m->value ? m->value + 2 * entries : NULL;
    return m->value != NULL;
}

static int row_energy(unsigned row, int L)
{
    int energy = 0;
    for (int x = 0; x < L; x++) energy -= spin_at(row, x, 0, L) * spin_at(row, x + 1, 0, L);
    return energy;
}

static int inter_row_energy(unsigned lower, unsigned upper, int L)
{
    int energy = 0;
    for (int x = 0; x < L; x++) energy -= spin_at(lower, x, 0, L) * spin_at(upper, x, 0, L);
    return energy;
}

/* Symmetric T: each row's own bonds split half to either side. */
static void fill_transfer_matrix(matrix_jet *t, int L, double beta)
{
    int size = t->size;
    for (int a = 0; a < size; a++)
        for (int b = 0; b < size; b++) {
            long double e = 0.5L * (row_energy((unsigned)a, L) + row_energy((unsigned)b, L)) +
                            inter_row_energy((unsigned)a, (unsigned)b, L);
            long double w = expl(-(long double)beta * e);
            size_t i = (size_t)a * size + b;
            t->value[i] = w;
            t->d1[i] = -e * w;
            t->d2[i] = e * e * w;
        }
}

/* product = left * right, with (AB)' = A'B + AB' and (AB)'' = A''B + 2A'B' + AB''. */
static void multiply_matrix_jets(const matrix_jet *left, const matrix_jet *right, matrix_jet *product)
{
    int size = left->size;
    size_t entries = (size_t)size * size;
    for (size_t i = 0; i < 3 * entries; i++) product->value[i] = 0;
    for (int i = 0; i < size; i++)
        for (int k = 0; k < size; k++) {
            size_t ik = (size_t)i * size + k;
            long double l0 = left->value[ik], l1 = left->d1[ik], l2 = left->d2[ik];
            const long double *r0 = right->value + (size_t)k * size, *r1 = right->d1 + (size_t)k * size,
                              *r2 = right->d2 + (size_t)k * size;
            long double *p0 = product->value + (size_t)i * size, *p1 = product->d1 + (size_t)i * size,
                        *p2 = product->d2 + (size_t)i * size;
            for (int j = 0; j < size; j++) {
                p0[j] += l0 * r0[j];
                p1[j] += l1 * r0[j] + l0 * r1[j];
                p2[j] += l2 * r0[j] + 2 * l1 * r1[j] + l0 * r2[j];
            }
        }
}

/* T^exponent by square-and-multiply; scratch must be allocated like t. */
static void power_matrix_jet(const matrix_jet *t, int exponent, matrix_jet *result, matrix_jet *scratch)
{
    size_t entries = (size_t)t->size * t->size;
    for (size_t i = 0; i < 3 * entries; i++) result->value[i] = t->value[i];
    int top_bit = 0;
    while ((exponent >> (top_bit + 1)) > 0) top_bit++;
    for (int bit = top_bit - 1; bit >= 0; bit--) {
        multiply_matrix_jets(result, result, scratch);
        if ((exponent >> bit) & 1)
            multiply_matrix_jets(scratch, t, result);
        else
            for (size_t i = 0; i < 3 * entries; i++) result->value[i] = scratch->value[i];
    }
}

/* Tr(AB) with derivatives, O(size^2): the last multiplication is only needed on the diagonal. */
static void trace_of_product(const matrix_jet *a, const matrix_jet *b, long double trace[3])
{
    trace[0] = trace[1] = trace[2] = 0;
    for (int i = 0; i < a->size; i++)
        for (int k = 0; k < a->size; k++) {
            size_t ik = (size_t)i * a->size + k, ki = (size_t)k * a->size + i;
            trace[0] += a->value[ik] * b->value[ki];
            trace[1] += a->d1[ik] * b->value[ki] + a->value[ik] * b->d1[ki];
            trace[2] += a->d2[ik] * b->value[ki] + 2 * a->d1[ik] * b->d1[ki] + a->value[ik] * b->d2[ki];
        }
}

/* Z = Tr T^L = Tr(T^(L/2) T^(L - L/2)), with Z' and Z'' carried along. */
static thermo thermo_from_transfer_matrix(int L, double beta)
{
    matrix_jet t, half, other, scratch;
    int allocated = matrix_jet_alloc(&t, 1 << L) + matrix_jet_alloc(&half, 1 << L) +
                    matrix_jet_alloc(&other, 1 << L) + matrix_jet_alloc(&scratch, 1 << L);
    cr_assert(allocated == 4, "out of memory for the %d x %d transfer matrix", 1 << L, 1 << L);
    fill_transfer_matrix(&t, L, beta);
    power_matrix_jet(&t, L / 2, &half, &scratch);
    if (L % 2 == 1)
        multiply_matrix_jets(&half, &t, &other);
    else
        for (size_t i = 0; i < 3 * (size_t)t.size * t.size; i++) other.value[i] = half.value[i];
    long double z[3];
    trace_of_product(&half, &other, z);
    free(t.value);
    free(half.value);
    free(other.value);
    free(scratch.value);
    long double sites = (long double)L * L, mean = -z[1] / z[0], variance = z[2] / z[0] - mean * mean;
    return (thermo){(double)logl(z[0]), (double)(mean / sites), (double)((long double)beta * beta * variance / sites)};
}

static void expect_transfer_matrix_agrees(int L)
{
    for (int b = 0; b < BETA_COUNT; b++)
        expect_matches_kaufman(L, BETAS[b], thermo_from_transfer_matrix(L, BETAS[b]), "transfer matrix");
}

Test(exact, matches_transfer_matrix_6x6) { expect_transfer_matrix_agrees(6); }

Test(exact, matches_transfer_matrix_8x8, .timeout = 120) { expect_transfer_matrix_agrees(8); }

Test(exact, large_lattice_energy_approaches_onsager_at_critical_point)
{
    double beta_c = 0.5 * log(1 + sqrt(2.0)), energy, heat;
    ising2d_exact(128, beta_c, &energy, &heat);
    printf("L=128 beta_c: u = %.10f (infinite lattice -sqrt(2) = %.10f), c = %.6f\n", energy, -sqrt(2.0), heat);
    cr_expect(fabs(energy + sqrt(2.0)) < 0.01, "L=128 energy per spin at beta_c: %.10f", energy);
    cr_expect(isfinite(heat) && heat > 0, "L=128 specific heat at beta_c: %g", heat);
}

/* ---- The exact density of states (tools/exact_dos.py, tests/data). ---- */

enum { DOS_CAPACITY = 2 * 16 * 16 + 1 };

/* ln Z, u and c from ln g(E), weights relative to the largest: no overflow. */
static thermo thermo_from_log_dos(const int *energies, const double *ln_g, int n, int sites, double beta)
{
    long double top = -INFINITY, z = 0, first = 0, second = 0;
    for (int i = 0; i < n; i++) top = fmaxl(top, ln_g[i] - (long double)beta * energies[i]);
    for (int i = 0; i < n; i++) {
        long double w = expl(ln_g[i] - (long double)beta * energies[i] - top);
        z += w;
        first += w * energies[i];
    }
    long double mean = first / z;
    for (int i = 0; i < n; i++)
        second += expl(ln_g[i] - (long double)beta * energies[i] - top) * (energies[i] - mean) * (energies[i] - mean);
    return (thermo){(double)(logl(z) + top), (double)(mean / sites), (double)((long double)beta * beta * second / z / sites)};
}

Test(exact, density_of_states_data_matches_kaufman)
{
    static const int EDGES[] = {4, 6, 8, 16};
    for (unsigned l = 0; l < sizeof EDGES / sizeof EDGES[0]; l++) {
        int L = EDGES[l], sites = L * L, energies[DOS_CAPACITY];
        double ln_g[DOS_CAPACITY];
        int n = ising2d_exact_dos(L, energies, ln_g, DOS_CAPACITY);
        cr_assert(n > 0, "L=%d: no density of states in $CLMC_TEST_DATA/ising2d_dos.txt", L);
        /* Sum g = 2^N: ln Z at beta = 0 is N ln 2. */
        double log_states = thermo_from_log_dos(energies, ln_g, n, sites, 0).log_z;
        printf("L=%d: %d energies, ln sum g = %.15g vs N ln 2 = %.15g, g(E_min = %d) = %.0f\n", L, n, log_states,
               sites * log(2.0), energies[0], exp(ln_g[0]));
        cr_expect(relative_difference(log_states, sites * log(2.0)) < 1e-14, "L=%d: ln sum g %.15g", L, log_states);
        cr_expect(energies[0] == -2 * sites && fabs(exp(ln_g[0]) - 2) < 1e-12, "L=%d: ground state", L);
        for (int b = 0; b < BETA_COUNT; b++)
            expect_matches_kaufman(L, BETAS[b], thermo_from_log_dos(energies, ln_g, n, sites, BETAS[b]),
                                   "density of states");
    }
}
