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
    double *spin;            /* sites x 3, unused components zero */
    size_t *neighbour;       /* sites x 2*dim: forward in each direction, then backward */
    const double *couplings; /* J[d * sites + site] of the +d bond, or NULL (J = 1) */
} lattice;

/* J of the k-th bond of `site` (k < dim forward, else backward). */
static double bond_coupling(const lattice *lat, size_t site, int k)
{
    if (!lat->couplings) return 1.0;
    int d = k % lat->dim;
    size_t from = k < lat->dim ? site : lat->neighbour[site * 2 * (size_t)lat->dim + (size_t)k];
    return lat->couplings[(size_t)d * lat->sites + from];
}

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
            for (int c = 0; c < 3; c++) h[c] += bond_coupling(lat, site, k) * lat->spin[3 * nb[k] + c];
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
            for (int c = 0; c < 3; c++) bonds += bond_coupling(lat, site, d) * s[c] * lat->spin[3 * forward[d] + c];
        for (int c = 0; c < 3; c++) m[c] += s[c];
    }
    *energy = -bonds / (double)lat->sites;
    *abs_magnetization = sqrt(m[0] * m[0] + m[1] * m[1] + m[2] * m[2]) / (double)lat->sites;
}

/* q2 = sum_ab q_ab^2, q_ab = sum_i s_i^a(first) s_i^b(second) / N. */
static double overlap_q2(const lattice *first, const lattice *second)
{
    double q2 = 0;
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) {
            double q = 0;
            for (size_t site = 0; site < first->sites; site++) q += first->spin[3 * site + a] * second->spin[3 * site + b];
            q /= (double)first->sites;
            q2 += q * q;
        }
    return q2;
}

void heisenberg_ref_series_free(heisenberg_ref_series *series)
{
    free(series->energy);
    free(series->abs_magnetization);
    free(series->q2);
    *series = (heisenberg_ref_series){NULL, NULL, NULL, 0};
}

static int lattice_init(lattice *lat, int dim, int n, int L, const double *couplings, uint64_t *rng)
{
    *lat = (lattice){dim, n, 1, NULL, NULL, couplings};
    for (int d = 0; d < dim; d++) lat->sites *= (size_t)L;
    lat->spin = calloc(3 * lat->sites, sizeof *lat->spin);
    lat->neighbour = malloc(lat->sites * 2 * (size_t)dim * sizeof *lat->neighbour);
    if (!lat->spin || !lat->neighbour) return -1;
    fill_neighbours(lat, L);
    for (size_t site = 0; site < lat->sites; site++) {
        ball_point(rng, n, lat->spin + 3 * site);
        normalise(lat->spin + 3 * site, n);
    }
    return 0;
}

/* `replicas` (1 or 2) lattices with the same couplings, updated in turn;
 * energy averaged over them, |M|/N of the first, q2 between the two. */
static int run(int dim, int n, int L, double beta, const double *couplings, int replicas, long thermalization,
               long sweeps, uint64_t seed, heisenberg_ref_series *out)
{
    *out = (heisenberg_ref_series){NULL, NULL, NULL, 0};
    if (dim < 2 || dim > 3 || n < 2 || n > 3 || L < 2 || thermalization < 0 || sweeps < 0) return -1;
    size_t count = (size_t)sweeps ? (size_t)sweeps : 1;
    out->energy = malloc(count * sizeof *out->energy);
    out->abs_magnetization = malloc(count * sizeof *out->abs_magnetization);
    out->q2 = replicas == 2 ? malloc(count * sizeof *out->q2) : NULL;
    lattice lat[2] = {{0}, {0}};
    uint64_t rng = seed;
    int status = out->energy && out->abs_magnetization && (replicas == 1 || out->q2) ? 0 : -1;
    for (int r = 0; status == 0 && r < replicas; r++) status = lattice_init(&lat[r], dim, n, L, couplings, &rng);
    for (long sweep = 0; status == 0 && sweep < thermalization; sweep++)
        for (int r = 0; r < replicas; r++) metropolis_sweep(&lat[r], beta, &rng);
    for (size_t i = 0; status == 0 && i < (size_t)sweeps; i++) {
        double energy = 0, e, m, first_m = 0;
        for (int r = 0; r < replicas; r++) {
            metropolis_sweep(&lat[r], beta, &rng);
            measure(&lat[r], &e, &m);
            energy += e / replicas;
            if (r == 0) first_m = m;
        }
        out->energy[i] = energy;
        out->abs_magnetization[i] = first_m;
        if (replicas == 2) out->q2[i] = overlap_q2(&lat[0], &lat[1]);
    }
    for (int r = 0; r < 2; r++) {
        free(lat[r].spin);
        free(lat[r].neighbour);
    }
    if (status == 0) out->n = (size_t)sweeps;
    else heisenberg_ref_series_free(out);
    return status;
}

int heisenberg_ref_run(int dim, int n, int L, double beta, long thermalization, long sweeps, uint64_t seed,
                       heisenberg_ref_series *out)
{
    return run(dim, n, L, beta, NULL, 1, thermalization, sweeps, seed, out);
}

int heisenberg_ref_glass_run(int dim, int n, int L, double beta, const double *couplings, long thermalization,
                             long sweeps, uint64_t seed, heisenberg_ref_series *out)
{
    return run(dim, n, L, beta, couplings, 2, thermalization, sweeps, seed, out);
}
