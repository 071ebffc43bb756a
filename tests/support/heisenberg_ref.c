/* Sequential host Metropolis simulation of the XY and Heisenberg models, in
 * double with its own generator (splitmix64, not the device's Philox) and its
 * own proposal (a bounded random step, not the device's uniform direction). */
#include "heisenberg_ref.h"

#include <math.h>
#include <stdlib.h>

#define STEP 1.0 /* delta of the proposal */

static double uniform(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return (double)((z ^ (z >> 31)) >> 11) * 0x1.0p-53;
}

typedef struct {
    int dim, n;
    size_t sites;
    double *spin;      /* sites x 3, unused components zero */
    size_t *neighbour; /* sites x 2*dim: forward in each direction, then backward */
} lattice;

static void fill_neighbours(lattice *lat, int L)
{
    size_t dim = (size_t)lat->dim, edge = (size_t)L;
    for (size_t site = 0; site < lat->sites; site++) {
        size_t *nb = lat->neighbour + site * 2 * dim, stride = 1;
        for (size_t d = 0; d < dim; d++) {
            size_t coordinate = (site / stride) % edge, base = site - coordinate * stride;
            nb[d] = base + ((coordinate + 1) % edge) * stride;
            nb[dim + d] = base + ((coordinate + edge - 1) % edge) * stride;
            stride *= edge;
        }
    }
}

static void normalise(double *v, int n)
{
    double norm = 0;
    for (int c = 0; c < n; c++) norm += v[c] * v[c];
    norm = sqrt(norm);
    for (int c = 0; c < n; c++) v[c] /= norm;
}

/* A point uniform in the unit ball of dimension n, by rejection. */
static void ball_point(uint64_t *rng, int n, double *r)
{
    double norm2;
    do {
        norm2 = 0;
        for (int c = 0; c < n; c++) {
            r[c] = 2 * uniform(rng) - 1;
            norm2 += r[c] * r[c];
        }
    } while (norm2 > 1);
}

static void metropolis_sweep(lattice *lat, double beta, uint64_t *rng)
{
    for (size_t site = 0; site < lat->sites; site++) {
        double *s = lat->spin + 3 * site, h[3] = {0, 0, 0}, trial[3] = {0, 0, 0}, r[3];
        const size_t *nb = lat->neighbour + site * 2 * (size_t)lat->dim;
        for (int k = 0; k < 2 * lat->dim; k++)
            for (int c = 0; c < 3; c++) h[c] += lat->spin[3 * nb[k] + c];
        do {
            ball_point(rng, lat->n, r);
            for (int c = 0; c < lat->n; c++) trial[c] = s[c] + STEP * r[c];
        } while (trial[0] == 0 && trial[1] == 0 && trial[2] == 0);
        normalise(trial, lat->n);
        double gain = 0;
        for (int c = 0; c < 3; c++) gain += (trial[c] - s[c]) * h[c];
        if (gain >= 0 || uniform(rng) < exp(beta * gain))
            for (int c = 0; c < 3; c++) s[c] = trial[c];
    }
}

static void measure(const lattice *lat, double *energy, double *abs_magnetization)
{
    double bonds = 0, m[3] = {0, 0, 0};
    for (size_t site = 0; site < lat->sites; site++) {
        const double *s = lat->spin + 3 * site;
        const size_t *forward = lat->neighbour + site * 2 * (size_t)lat->dim;
        for (int d = 0; d < lat->dim; d++)
            for (int c = 0; c < 3; c++) bonds += s[c] * lat->spin[3 * forward[d] + c];
        for (int c = 0; c < 3; c++) m[c] += s[c];
    }
    *energy = -bonds / (double)lat->sites;
    *abs_magnetization = sqrt(m[0] * m[0] + m[1] * m[1] + m[2] * m[2]) / (double)lat->sites;
}

void heisenberg_ref_series_free(heisenberg_ref_series *series)
{
    free(series->energy);
    free(series->abs_magnetization);
    *series = (heisenberg_ref_series){NULL, NULL, 0};
}

int heisenberg_ref_run(int dim, int n, int L, double beta, long thermalization, long sweeps, uint64_t seed,
                       heisenberg_ref_series *out)
{
    *out = (heisenberg_ref_series){NULL, NULL, 0};
    if (dim < 2 || dim > 3 || n < 2 || n > 3 || L < 2 || thermalization < 0 || sweeps < 0) return -1;
    lattice lat = {dim, n, 1, NULL, NULL};
    for (int d = 0; d < dim; d++) lat.sites *= (size_t)L;
    size_t count = (size_t)sweeps;
    out->energy = malloc((count ? count : 1) * sizeof *out->energy);
    out->abs_magnetization = malloc((count ? count : 1) * sizeof *out->abs_magnetization);
    lat.spin = calloc(3 * lat.sites, sizeof *lat.spin);
    lat.neighbour = malloc(lat.sites * 2 * (size_t)dim * sizeof *lat.neighbour);
    int status = out->energy && out->abs_magnetization && lat.spin && lat.neighbour ? 0 : -1;
    if (status == 0) {
        fill_neighbours(&lat, L);
        uint64_t rng = seed;
        for (size_t site = 0; site < lat.sites; site++) {
            ball_point(&rng, n, lat.spin + 3 * site);
            normalise(lat.spin + 3 * site, n);
        }
        for (long sweep = 0; sweep < thermalization; sweep++) metropolis_sweep(&lat, beta, &rng);
        for (size_t i = 0; i < count; i++) {
            metropolis_sweep(&lat, beta, &rng);
            measure(&lat, &out->energy[i], &out->abs_magnetization[i]);
        }
        out->n = count;
    } else {
        heisenberg_ref_series_free(out);
    }
    free(lat.spin);
    free(lat.neighbour);
    return status;
}
