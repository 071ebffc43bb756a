/* 3D Ising Metropolis on the device (naive, tiled, multi-spin coded) against an independent
 * sequential host simulation (tests/support/ising_ref.c). */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "clmc/stats.h"
#include "ising_ref.h"
#include "physics.h"
#include "testenv.h"

#define TOLERANCE_SIGMA 4.0
/* Sweeps scale down with the volume: 30000 at L = 8, 4000 at L = 64. */
#define SWEEPS(L) ((L) <= 8 ? 30000 : 2500)
#define THERMALIZATION(L) ((L) <= 8 ? 2000 : 500)

typedef struct {
    double beta;
    char layout[8]; /* inline: parameters cross a process boundary */
    int hits, tile, L;
} ising3d_case;

ParameterizedTestParameters(ising3d, host_reference)
{
    /* Each layout and both tile sizes once by default; the first four repeat
     * those paths at other betas or hits (CLMC_LONG_TESTS=1). */
    static ising3d_case cases[] = {
        {0.2, "naive", 1, 0, 8},       {0.2216546, "tiled", 3, 4, 8}, {0.26, "tiled", 1, 4, 8},
        {0.21, "msc", 1, 0, 64}, /* off-critical: short runs, small tau */
        {0.2216546, "naive", 1, 0, 8}, {0.2216546, "tiled", 1, 4, 8}, {0.2216546, "tiled", 2, 2, 8},
        {0.2, "msc", 1, 0, 64},
    };
    size_t n = sizeof cases / sizeof cases[0], long_only = 4;
    return cr_make_param_array(ising3d_case, test_long_enabled() ? cases : cases + long_only,
                               test_long_enabled() ? n : n - long_only);
}

typedef struct { double scale; } heat_context;

static double fluctuation(const double *means, void *context)
{
    return ((heat_context *)context)->scale * (means[1] - means[0] * means[0]);
}

ParameterizedTest(ising3d_case *c, ising3d, host_reference, .timeout = 600)
{
    const int L = c->L;
    char preset[1024];
    snprintf(preset, sizeof preset,
             "{\"model\": {\"type\": \"ising\", \"dim\": 3, \"L\": %d},"
             " \"algorithm\": {\"layout\": \"%s\", \"hits\": %d, \"tile\": %d},"
             " \"ensemble\": {\"beta\": %.10g},"
             " \"run\": {\"thermalization\": %d, \"sweeps\": %d, \"seed\": 7}}",
             L, c->layout, c->hits, c->tile, c->beta, THERMALIZATION(L), SWEEPS(L));
    cJSON *result = physics_run(preset, "ising3d");

    ising_ref_series host;
    cr_assert_eq(ising_ref_run(3, L, c->beta, THERMALIZATION(L), SWEEPS(L), 99, &host), 0);
    double *e2 = malloc(host.n * sizeof *e2);
    for (size_t i = 0; i < host.n; i++) e2[i] = host.energy[i] * host.energy[i];
    clmc_estimate host_energy = clmc_estimate_mean(host.energy, host.n);
    const double *pair[] = {host.energy, e2};
    heat_context heat = {c->beta * c->beta * L * L * L};
    clmc_estimate host_heat = clmc_estimate_derived(pair, 2, host.n, fluctuation, &heat);

    double e = test_observable(result, "energy", "mean"), de = test_observable(result, "energy", "error");
    double h = test_observable(result, "specific_heat", "mean"), dh = test_observable(result, "specific_heat", "error");
    char what[160];
    snprintf(what, sizeof what, "3D L=%d beta=%.7g %s tile=%d hits=%d energy", L, c->beta, c->layout, c->tile, c->hits);
    double z_energy = physics_compare(what, e, hypot(de, host_energy.error), host_energy.mean);
    snprintf(what, sizeof what, "3D L=%d beta=%.7g %s tile=%d hits=%d C", L, c->beta, c->layout, c->tile, c->hits);
    double z_heat = physics_compare(what, h, hypot(dh, host_heat.error), host_heat.mean);
    printf("  (host reference errors: energy %.6f, C %.5f; combined errors used above)\n", host_energy.error, host_heat.error);
    cr_expect_lt(z_energy, TOLERANCE_SIGMA);
    cr_expect_lt(z_heat, TOLERANCE_SIGMA);
    cr_expect_lt(de, 0.01 * fabs(host_energy.mean), "energy error above 1%%: test too weak");
    free(e2);
    ising_ref_series_free(&host);
    cJSON_Delete(result);
}
