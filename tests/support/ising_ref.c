/* Sequential host Metropolis simulation of the 2D/3D Ising model with its own RNG
 * (xoshiro256**, deliberately not the device's Philox), used as an independent reference. */
#include "ising_ref.h"

#include <math.h>
#include <stdlib.h>

typedef struct {
    uint64_t state[4];
} xoshiro256ss;

static uint64_t splitmix64_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static uint64_t rotate_left(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static xoshiro256ss xoshiro_seeded(uint64_t seed)
{
    xoshiro256ss rng;
    for (int i = 0; i < 4; i++) rng.state[i] = splitmix64_next(&seed);
    return rng;
}

static uint64_t xoshiro_next(xoshiro256ss *rng)
{
    uint64_t *s = rng->state;
    uint64_t result = rotate_left(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotate_left(s[3], 45);
    return result;
}

static double uniform_unit(xoshiro256ss *rng)
{
    return (double)(xoshiro_next(rng) >> 11) * 0x1.0p-53;
}

enum { MAX_DIM = 3 };

typedef struct {
    int dim;
    size_t sites;
    signed char *spin;
    size_t *neighbour; /* sites x 2*dim: forward in each direction first, then backward */
    double accept[MAX_DIM + 1]; /* exp(-4 beta k) for s_i h_i = 2k > 0 */
} lattice;

static void fill_neighbours(lattice *lat, int L)
{
    size_t dim = (size_t)lat->dim, edge = (size_t)L;
    for (size_t site = 0; site < lat->sites; site++) {
        size_t *nb = lat->neighbour + site * 2 * dim, stride = 1;
        for (size_t d = 0; d < dim; d++) {
            size_t coordinate = (site / stride) % edge;
            size_t base = site - coordinate * stride;
            nb[d] = base + ((coordinate + 1) % edge) * stride;
            nb[dim + d] = base + ((coordinate + edge - 1) % edge) * stride;
            stride *= edge;
        }
    }
}

static int lattice_init(lattice *lat, int dim, int L, double beta, xoshiro256ss *rng)
{
    lat->dim = dim;
    lat->sites = 1;
    for (int d = 0; d < dim; d++) lat->sites *= (size_t)L;
    lat->spin = malloc(lat->sites);
    lat->neighbour = malloc(lat->sites * 2 * (size_t)dim * sizeof *lat->neighbour);
    if (lat->spin == NULL || lat->neighbour == NULL) return -1;
    fill_neighbours(lat, L);
    for (size_t site = 0; site < lat->sites; site++) lat->spin[site] = (xoshiro_next(rng) >> 63) ? 1 : -1;
    for (int k = 0; k <= dim; k++) lat->accept[k] = exp(-4.0 * beta * k);
    return 0;
}

static void lattice_free(lattice *lat)
{
    free(lat->spin);
    free(lat->neighbour);
}

static int local_field(const lattice *lat, size_t site)
{
    const size_t *nb = lat->neighbour + site * 2 * (size_t)lat->dim;
    int field = 0;
    for (int k = 0; k < 2 * lat->dim; k++) field += lat->spin[nb[k]];
    return field;
}

static void metropolis_sweep(lattice *lat, xoshiro256ss *rng)
{
    for (size_t site = 0; site < lat->sites; site++) {
        int alignment = lat->spin[site] * local_field(lat, site);
        if (alignment <= 0 || uniform_unit(rng) < lat->accept[alignment / 2]) lat->spin[site] = -lat->spin[site];
    }
}

static void measure(const lattice *lat, double *energy, double *magnetization)
{
    long bond_sum = 0, spin_sum = 0;
    for (size_t site = 0; site < lat->sites; site++) {
        const size_t *forward = lat->neighbour + site * 2 * (size_t)lat->dim;
        int forward_field = 0;
        for (int d = 0; d < lat->dim; d++) forward_field += lat->spin[forward[d]];
        bond_sum += lat->spin[site] * forward_field;
        spin_sum += lat->spin[site];
    }
    *energy = -(double)bond_sum / (double)lat->sites;
    *magnetization = (double)spin_sum / (double)lat->sites;
}

void ising_ref_series_free(ising_ref_series *series)
{
    free(series->energy);
    free(series->magnetization);
    *series = (ising_ref_series){NULL, NULL, 0};
}

int ising_ref_run(int dim, int L, double beta, long thermalization, long sweeps, uint64_t seed,
                  ising_ref_series *out)
{
    *out = (ising_ref_series){NULL, NULL, 0};
    if (dim < 2 || dim > MAX_DIM || L < 2 || thermalization < 0 || sweeps < 0) return -1;
    xoshiro256ss rng = xoshiro_seeded(seed);
    lattice lat = {0};
    size_t count = (size_t)sweeps;
    out->energy = malloc((count ? count : 1) * sizeof *out->energy);
    out->magnetization = malloc((count ? count : 1) * sizeof *out->magnetization);
    if (out->energy == NULL || out->magnetization == NULL || lattice_init(&lat, dim, L, beta, &rng) != 0) {
        lattice_free(&lat);
        ising_ref_series_free(out);
        return -1;
    }
    for (long sweep = 0; sweep < thermalization; sweep++) metropolis_sweep(&lat, &rng);
    for (size_t i = 0; i < count; i++) {
        metropolis_sweep(&lat, &rng);
        measure(&lat, &out->energy[i], &out->magnetization[i]);
    }
    out->n = count;
    lattice_free(&lat);
    return 0;
}
