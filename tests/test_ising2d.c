/* 2D Ising Metropolis (naive, tiled with hits 1, 2 and 4, multi-spin coded) against the exact
 * finite-lattice energy and specific heat (Kaufman / Ferdinand-Fisher). */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <string.h>

#include "ising_exact.h"
#include "physics.h"
#include "testenv.h"

/* Statistics are chosen so that the energy error is below 0.4% of |e| and
 * the specific-heat error below 6% of C: a 4-sigma band then excludes a
 * wrong acceptance rule or a broken update order, which shift e by percents. */
#define TOLERANCE_SIGMA 4.0
#define MAX_ENERGY_ERROR 0.006
#define MAX_HEAT_RELATIVE_ERROR 0.06 /* 0.04 is typical; L = 64 at beta_c reaches 0.05 */

typedef struct {
    int L;
    double beta;
    char layout[8]; /* inline: parameters cross a process boundary */
    int hits, tile;
} ising_case;

static const double betas[] = {0.3, 0.4406868, 0.6};

static ising_case make_case(int L, double beta, const char *layout, int hits, int tile)
{
    ising_case c = {.L = L, .beta = beta, .hits = hits, .tile = tile};
    snprintf(c.layout, sizeof c.layout, "%s", layout);
    return c;
}

ParameterizedTestParameters(ising2d, exact)
{
    static ising_case cases[24];
    const char *layouts[] = {"naive", "tiled", "tiled"};
    const int hits[] = {1, 1, 4};
    int n = 0;
    /* Tile edges differ between hits 1 and 4 so that two tile sizes per L run;
     * L = 32 repeats L = 16's paths (CLMC_LONG_TESTS=1). */
    int largest = test_long_enabled() ? 32 : 16;
    for (int l = 0; l < 3; l++)
        for (int size = 16; size <= largest; size *= 2)
            for (int b = 0; b < 3; b++)
                cases[n++] = make_case(size, betas[b], layouts[l], hits[l], l == 0 ? 0 : size / (l == 1 ? 4 : 2));
    /* Three tile colours (odd tiles per edge) and two-site work-items (tile % 4 != 0). */
    cases[n++] = make_case(24, betas[1], "tiled", 1, 8);
    cases[n++] = make_case(20, betas[1], "tiled", 2, 10);
    cases[n++] = make_case(30, betas[1], "tiled", 1, 6);
    /* Multi-spin coding: 32 sites per word, L a multiple of 64. */
    for (int b = 0; b < 3; b++) cases[n++] = make_case(64, betas[b], "msc", 1, 0);
    return cr_make_param_array(ising_case, cases, (size_t)n);
}

ParameterizedTest(ising_case *c, ising2d, exact, .timeout = 600)
{
    char preset[1024];
    /* Ordered start below T_c avoids long-lived stripe states from a random start. */
    snprintf(preset, sizeof preset,
             "{\"model\": {\"type\": \"ising\", \"dim\": 2, \"L\": %d, \"start\": \"%s\"},"
             " \"algorithm\": {\"layout\": \"%s\", \"hits\": %d, \"tile\": %d},"
             " \"ensemble\": {\"beta\": %.10g},"
             " \"run\": {\"thermalization\": 2000, \"sweeps\": 40000, \"seed\": %d}}",
             c->L, c->beta > 0.5 ? "ordered" : "random", c->layout, c->hits, c->tile, c->beta, 1000 + c->L + (int)(c->beta * 100));
    cJSON *result = physics_run(preset, "ising2d");
    double exact_energy, exact_heat;
    ising2d_exact(c->L, c->beta, &exact_energy, &exact_heat);
    char what[128];
    snprintf(what, sizeof what, "L=%d beta=%.7g %s tile=%d hits=%d energy", c->L, c->beta, c->layout, c->tile, c->hits);
    double e = test_observable(result, "energy", "mean"), de = test_observable(result, "energy", "error");
    double z_energy = physics_compare(what, e, de, exact_energy);
    snprintf(what, sizeof what, "L=%d beta=%.7g %s tile=%d hits=%d C", c->L, c->beta, c->layout, c->tile, c->hits);
    double h = test_observable(result, "specific_heat", "mean"), dh = test_observable(result, "specific_heat", "error");
    double z_heat = physics_compare(what, h, dh, exact_heat);
    cr_expect_lt(z_energy, TOLERANCE_SIGMA, "energy off by %.2f sigma", z_energy);
    cr_expect_lt(z_heat, TOLERANCE_SIGMA, "specific heat off by %.2f sigma", z_heat);
    cr_expect_lt(de, MAX_ENERGY_ERROR, "energy error %.5f too large to mean something", de);
    cr_expect_lt(dh / exact_heat, MAX_HEAT_RELATIVE_ERROR, "specific heat error %.3f%% too large", 100 * dh / exact_heat);
    cr_expect_gt(de, 0.0, "an error of zero means no fluctuations were measured");
    cJSON_Delete(result);
}
