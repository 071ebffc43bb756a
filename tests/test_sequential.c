/* The sequential CPU reference (src/reference/): exact 2D values and the tests'
 * independent 3D host simulation within 4 standard errors, every generator name runs,
 * and one stream per generator is reproducible. */
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clmc/stats.h"
#include "ising_exact.h"
#include "ising_ref.h"
#include "reference/ising_sequential.h"

static const double MAX_DEVIATION = 4.0;

static double observable(cJSON *observables, const char *name, const char *field)
{
    return cJSON_GetObjectItem(cJSON_GetObjectItem(observables, name), field)->valuedouble;
}

static void expect_exact(clmc_rng_kind rng, int L, double beta, uint64_t sweeps)
{
    clmc_sequential_settings s = {.dim = 2, .L = L, .beta = beta, .sweeps = sweeps, .thermalization = 2000,
                                  .seed = 7, .rng = rng};
    cJSON *observables = cJSON_CreateObject();
    double seconds;
    cr_assert_eq(clmc_ising_sequential_run(&s, observables, &seconds), CLMC_OK, "%s", clmc_error_message());
    double energy, heat;
    ising2d_exact(L, beta, &energy, &heat);
    double e = observable(observables, "energy", "mean"), de = observable(observables, "energy", "error");
    double c = observable(observables, "specific_heat", "mean"), dc = observable(observables, "specific_heat", "error");
    printf("%s L=%d beta=%g: e %.6f(%.6f) exact %.6f (%.2f sigma), C %.5f(%.5f) exact %.5f (%.2f sigma)\n",
           clmc_rng_names[rng], L, beta, e, de, energy, (e - energy) / de, c, dc, heat, (c - heat) / dc);
    cr_expect(de > 0 && dc > 0);
    cr_expect(fabs(e - energy) < MAX_DEVIATION * de, "%s: energy %g +- %g, exact %g", clmc_rng_names[rng], e, de, energy);
    cr_expect(fabs(c - heat) < MAX_DEVIATION * dc, "%s: specific heat %g +- %g, exact %g", clmc_rng_names[rng], c, dc,
              heat);
    cJSON_Delete(observables);
}

Test(sequential, philox_matches_exact_2d)
{
    expect_exact(CLMC_RNG_PHILOX4X32_10, 8, 0.4, 200000);
    expect_exact(CLMC_RNG_PHILOX4X32_10, 6, 0.4406868, 200000);
}

Test(sequential, lagged_fibonacci_1279_matches_exact_2d)
{
    expect_exact(CLMC_RNG_LAGFIB_1279, 8, 0.4, 200000);
}

static double heat_of_means(const double *means, void *context)
{
    return *(const double *)context * (means[1] - means[0] * means[0]);
}

/* 3D has no exact values: against the tests' independent sequential simulation
 * (tests/support/ising_ref.c, its own generator), within 4 combined errors. */
Test(sequential, matches_independent_host_simulation_3d)
{
    const int L = 4;
    const double beta = 0.2;
    const long sweeps = 100000;
    clmc_sequential_settings s = {.dim = 3, .L = L, .beta = beta, .sweeps = (uint64_t)sweeps, .thermalization = 2000,
                                  .seed = 11, .rng = CLMC_RNG_PHILOX4X32_10};
    cJSON *observables = cJSON_CreateObject();
    double seconds;
    cr_assert_eq(clmc_ising_sequential_run(&s, observables, &seconds), CLMC_OK);
    ising_ref_series ref;
    cr_assert_eq(ising_ref_run(3, L, beta, 2000, sweeps, 5, &ref), 0);
    double *e2 = malloc(ref.n * sizeof *e2);
    cr_assert_not_null(e2);
    for (size_t i = 0; i < ref.n; i++) e2[i] = ref.energy[i] * ref.energy[i];
    const double *pair[] = {ref.energy, e2};
    double scale = beta * beta * L * L * L;
    clmc_estimate e_ref = clmc_estimate_mean(ref.energy, ref.n);
    clmc_estimate c_ref = clmc_estimate_derived(pair, 2, ref.n, heat_of_means, &scale);
    double e = observable(observables, "energy", "mean"), de = observable(observables, "energy", "error");
    double c = observable(observables, "specific_heat", "mean"), dc = observable(observables, "specific_heat", "error");
    double ze = (e - e_ref.mean) / hypot(de, e_ref.error), zc = (c - c_ref.mean) / hypot(dc, c_ref.error);
    printf("3D L=%d beta=%g: e %.6f(%.6f) vs %.6f(%.6f) (%.2f sigma), C %.5f(%.5f) vs %.5f(%.5f) (%.2f sigma)\n", L,
           beta, e, de, e_ref.mean, e_ref.error, ze, c, dc, c_ref.mean, c_ref.error, zc);
    cr_expect(fabs(ze) < MAX_DEVIATION && fabs(zc) < MAX_DEVIATION);
    free(e2);
    ising_ref_series_free(&ref);
    cJSON_Delete(observables);
}

Test(sequential, every_generator_runs_and_repeats)
{
    for (int k = 0; k < CLMC_RNG_COUNT; k++) {
        clmc_sequential_settings s = {.dim = k % 2 ? 3 : 2, .L = 4, .beta = 0.3, .sweeps = 200, .thermalization = 10,
                                      .seed = 3, .rng = (clmc_rng_kind)k, .random_start = true};
        cJSON *a = cJSON_CreateObject(), *b = cJSON_CreateObject();
        double seconds;
        cr_assert_eq(clmc_ising_sequential_run(&s, a, &seconds), CLMC_OK);
        cr_assert_eq(clmc_ising_sequential_run(&s, b, &seconds), CLMC_OK);
        double e = observable(a, "energy", "mean");
        cr_expect(e >= -s.dim && e <= s.dim, "%s: energy %g", clmc_rng_names[k], e);
        cr_expect_eq(e, observable(b, "energy", "mean"), "%s repeats", clmc_rng_names[k]);
        cJSON_Delete(a);
        cJSON_Delete(b);
    }
}

Test(sequential, generator_names)
{
    clmc_rng_kind kind;
    for (int k = 0; k < CLMC_RNG_COUNT; k++) {
        cr_expect_eq(clmc_rng_kind_from_name(clmc_rng_names[k], "--rng", &kind), CLMC_OK);
        cr_expect_eq((int)kind, k);
    }
    cr_expect_eq(clmc_rng_kind_from_name("mt19937", "algorithm.rng", &kind), CLMC_ERR_INPUT);
    cr_expect(strstr(clmc_error_message(), "algorithm.rng") && strstr(clmc_error_message(), "mt19937") &&
              strstr(clmc_error_message(), "lagged_fibonacci_1279_418"), "%s", clmc_error_message());
}
