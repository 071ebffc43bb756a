/* Typewriter-order Metropolis on one host stream, measured every sweep into bins. */
#include "reference/ising_sequential.h"

#include <math.h>
#include <stdlib.h>
#include <time.h>

#include "measure/measure.h"

enum { MAX_BINS = 1 << 16 };

typedef struct {
    int8_t *spin;
    int32_t *neighbour;  /* 2 dim per site */
    size_t sites;
    int degree;
    uint64_t accept[13]; /* index dE: accept when the draw is below it */
    long long energy, magnetization; /* sum over bonds of -s s, sum of s */
} lattice;

static clmc_status lattice_build(const clmc_sequential_settings *s, lattice *lat)
{
    int L = s->L;
    lat->degree = 2 * s->dim;
    lat->sites = (size_t)L * L * (s->dim == 3 ? L : 1);
    lat->spin = malloc(lat->sites);
    lat->neighbour = malloc(lat->sites * lat->degree * sizeof *lat->neighbour);
    if (!lat->spin || !lat->neighbour) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    for (size_t i = 0; i < lat->sites; i++) {
        int x = (int)(i % L), y = (int)(i / L % L), z = (int)(i / ((size_t)L * L));
        int32_t *n = lat->neighbour + i * lat->degree;
        size_t plane = (size_t)L * L, base = i - x;
        n[0] = (int32_t)(base + (x + 1) % L);
        n[1] = (int32_t)(base + (x + L - 1) % L);
        n[2] = (int32_t)(z * plane + (size_t)((y + 1) % L) * L + x);
        n[3] = (int32_t)(z * plane + (size_t)((y + L - 1) % L) * L + x);
        if (s->dim == 3) {
            n[4] = (int32_t)(((z + 1) % L) * plane + (size_t)y * L + x);
            n[5] = (int32_t)(((z + L - 1) % L) * plane + (size_t)y * L + x);
        }
    }
    /* Accept with probability exp(-beta dE): a uniform 32-bit draw below
     * exp(-beta dE) 2^32 (dE <= 0 always: a threshold of 2^32). */
    for (int dE = 0; dE <= 12; dE++) {
        double p = exp(-s->beta * dE);
        lat->accept[dE] = dE == 0 ? (1ull << 32) : (uint64_t)(p * 4294967296.0);
    }
    return CLMC_OK;
}

static void lattice_start(const clmc_sequential_settings *s, lattice *lat, clmc_host_rng *rng)
{
    for (size_t i = 0; i < lat->sites; i++) lat->spin[i] = s->random_start ? ((clmc_host_rng_next(rng) >> 31) ? 1 : -1) : 1;
    lat->energy = lat->magnetization = 0;
    for (size_t i = 0; i < lat->sites; i++) {
        lat->magnetization += lat->spin[i];
        for (int k = 0; k < lat->degree; k += 2) lat->energy -= lat->spin[i] * lat->spin[lat->neighbour[i * lat->degree + k]];
    }
}

static void sweep(lattice *lat, clmc_host_rng *rng)
{
    for (size_t i = 0; i < lat->sites; i++) {
        const int32_t *n = lat->neighbour + i * lat->degree;
        int h = 0;
        for (int k = 0; k < lat->degree; k++) h += lat->spin[n[k]];
        int s = lat->spin[i], dE = 2 * s * h;
        uint32_t draw = clmc_host_rng_next(rng);
        if (dE <= 0 || draw < lat->accept[dE]) {
            lat->spin[i] = (int8_t)-s;
            lat->energy += dE;
            lat->magnetization -= 2 * s;
        }
    }
}

typedef struct { double scale; } fluctuation_context;

static double fluctuation(const double *means, void *context)
{
    const fluctuation_context *c = context;
    return c->scale * (means[1] - means[0] * means[0]);
}

clmc_status clmc_ising_sequential_run(const clmc_sequential_settings *s, cJSON *observables, double *seconds)
{
    lattice lat = {0};
    clmc_host_rng rng;
    clmc_status status = clmc_host_rng_init(&rng, s->rng, s->seed);
    if (status == CLMC_OK) status = lattice_build(s, &lat);
    uint64_t bin_length = (s->sweeps + MAX_BINS - 1) / MAX_BINS;
    size_t bins = bin_length ? (size_t)(s->sweeps / bin_length) : 0;
    double *series = status == CLMC_OK ? calloc(4 * (bins ? bins : 1), sizeof *series) : NULL;
    if (status == CLMC_OK && !series) status = clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    if (status != CLMC_OK) goto done;

    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    lattice_start(s, &lat, &rng);
    for (uint64_t t = 0; t < s->thermalization; t++) sweep(&lat, &rng);
    /* Bin means of e, e^2, |m|, m^2: the derived estimates need only the means. */
    double *e = series, *e2 = e + bins, *m = e2 + bins, *m2 = m + bins, n = (double)lat.sites;
    for (size_t b = 0; b < bins; b++) {
        for (uint64_t t = 0; t < bin_length; t++) {
            sweep(&lat, &rng);
            double ei = (double)lat.energy / n, mi = fabs((double)lat.magnetization) / n;
            e[b] += ei;
            e2[b] += ei * ei;
            m[b] += mi;
            m2[b] += mi * mi;
        }
        e[b] /= (double)bin_length;
        e2[b] /= (double)bin_length;
        m[b] /= (double)bin_length;
        m2[b] /= (double)bin_length;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    *seconds = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);

    clmc_add_estimate(observables, "energy", clmc_estimate_mean(e, bins));
    clmc_add_estimate(observables, "abs_magnetization", clmc_estimate_mean(m, bins));
    const double *energy_pair[] = {e, e2}, *magnet_pair[] = {m, m2};
    fluctuation_context heat = {s->beta * s->beta * n}, chi = {s->beta * n};
    clmc_add_estimate(observables, "specific_heat", clmc_estimate_derived(energy_pair, 2, bins, fluctuation, &heat));
    clmc_add_estimate(observables, "susceptibility", clmc_estimate_derived(magnet_pair, 2, bins, fluctuation, &chi));
    cJSON_AddNumberToObject(observables, "measurements", (double)(bins * bin_length));
    cJSON_AddNumberToObject(observables, "bin_length", (double)bin_length);
done:
    free(series);
    free(lat.spin);
    free(lat.neighbour);
    clmc_host_rng_free(&rng);
    return status;
}
