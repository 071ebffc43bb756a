/* Exact 2D Potts thermodynamics by counting states per energy with a
 * transfer matrix over rows (potts_exact.h). */
#include "potts_exact.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* State of site x in row configuration r (base q digits). */
static int digit(int r, int x, int q)
{
    for (int i = 0; i < x; i++) r /= q;
    return r % q;
}

/* Equal bonds inside row r (periodic) and between rows a and b. */
static int row_bonds(int r, int L, int q)
{
    int bonds = 0;
    for (int x = 0; x < L; x++) bonds += digit(r, x, q) == digit(r, (x + 1) % L, q);
    return bonds;
}

static int column_bonds(int a, int b, int L, int q)
{
    int bonds = 0;
    for (int x = 0; x < L; x++) bonds += digit(a, x, q) == digit(b, x, q);
    return bonds;
}

/* counts[b] = number of configurations with b equal bonds, b = 0 .. 2 L^2. */
static void density_of_states(int L, int q, double *counts)
{
    int rows = 1, max_bonds = 2 * L * L;
    for (int i = 0; i < L; i++) rows *= q;
    int *inside = malloc(sizeof(int) * rows), *between = malloc(sizeof(int) * rows * rows);
    for (int a = 0; a < rows; a++) {
        inside[a] = row_bonds(a, L, q);
        for (int b = 0; b < rows; b++) between[a * rows + b] = column_bonds(a, b, L, q);
    }
    size_t width = (size_t)max_bonds + 1;
    double *now = malloc(sizeof(double) * rows * width), *next = malloc(sizeof(double) * rows * width);
    memset(counts, 0, sizeof(double) * width);
    for (int first = 0; first < rows; first++) {
        /* now[r][b]: rows 0 .. y with row 0 = first, row y = r, b bonds inside rows and between them. */
        memset(now, 0, sizeof(double) * rows * width);
        now[(size_t)first * width + inside[first]] = 1;
        for (int y = 1; y < L; y++) {
            memset(next, 0, sizeof(double) * rows * width);
            for (int a = 0; a < rows; a++)
                for (size_t b = 0; b < width; b++) {
                    double c = now[a * width + b];
                    if (c == 0) continue;
                    for (int r = 0; r < rows; r++) next[r * width + b + inside[r] + between[a * rows + r]] += c;
                }
            double *swap = now;
            now = next;
            next = swap;
        }
        for (int last = 0; last < rows; last++)
            for (size_t b = 0; b < width; b++) {
                double c = now[last * width + b];
                if (c != 0) counts[b + between[last * rows + first]] += c;
            }
    }
    free(inside);
    free(between);
    free(now);
    free(next);
}

void potts2d_exact(int L, int q, double beta, double *energy_per_spin, double *specific_heat_per_spin)
{
    int max_bonds = 2 * L * L;
    double *counts = malloc(sizeof(double) * (max_bonds + 1));
    density_of_states(L, q, counts);
    /* Weights relative to the ground state's (b = max_bonds) against overflow. */
    double z = 0, h = 0, h2 = 0;
    for (int b = 0; b <= max_bonds; b++) {
        double w = counts[b] * exp(beta * (b - max_bonds));
        z += w;
        h += w * -b;
        h2 += w * (double)b * b;
    }
    free(counts);
    double mean = h / z, n = (double)L * L;
    if (energy_per_spin) *energy_per_spin = mean / n;
    if (specific_heat_per_spin) *specific_heat_per_spin = beta * beta * (h2 / z - mean * mean) / n;
}
