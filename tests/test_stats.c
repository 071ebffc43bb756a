/* Checks the time-series estimators on data with known statistics and the host reference Ising simulation against the exact result. */
#include <criterion/criterion.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "clmc/stats.h"
#include "ising_exact.h"
#include "ising_ref.h"

enum { SERIES_LENGTH = 1 << 17, REPLICAS = 16 };

/* A self-contained Gaussian source (splitmix64 + Box-Muller) so the test depends on nothing it tests. */
typedef struct {
    uint64_t state;
    double spare;
    int has_spare;
} gaussian_source;

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* In (0, 1], so the logarithm below stays finite. */
static double uniform_open_zero(uint64_t *state)
{
    return (double)((splitmix64(state) >> 11) + 1) * 0x1.0p-53;
}

static double next_gaussian(gaussian_source *source)
{
    if (source->has_spare) {
        source->has_spare = 0;
        return source->spare;
    }
    double radius = sqrt(-2.0 * log(uniform_open_zero(&source->state)));
    double angle = 6.283185307179586 * uniform_open_zero(&source->state);
    source->spare = radius * sin(angle);
    source->has_spare = 1;
    return radius * cos(angle);
}

/* Stationary AR(1) with unit variance: x_t = rho x_{t-1} + sqrt(1 - rho^2) eta_t. */
static void fill_ar1(double *x, size_t n, double rho, gaussian_source *source)
{
    double innovation_scale = sqrt(1.0 - rho * rho);
    x[0] = next_gaussian(source);
    for (size_t i = 1; i < n; i++) x[i] = rho * x[i - 1] + innovation_scale * next_gaussian(source);
}

static double *alloc_series(size_t n)
{
    double *x = malloc(n * sizeof *x);
    cr_assert_not_null(x);
    return x;
}

/* A single error estimate from 64 bins scatters by about 9%, so error checks
 * use the root mean square over independent replicas (about 2% scatter). */
static void check_estimator_on_ar1(double rho, double tau_tolerance, double error_tolerance, uint64_t seed)
{
    double exact_tau = (1.0 + rho) / (2.0 * (1.0 - rho));
    double exact_error = sqrt(2.0 * exact_tau / SERIES_LENGTH);
    double *x = alloc_series(SERIES_LENGTH), error_squares = 0.0;
    gaussian_source source = {seed, 0.0, 0};
    for (int r = 0; r < REPLICAS; r++) {
        fill_ar1(x, SERIES_LENGTH, rho, &source);
        clmc_estimate estimate = clmc_estimate_mean(x, SERIES_LENGTH);
        cr_expect(fabs(estimate.tau_int - exact_tau) <= tau_tolerance * exact_tau,
                  "rho=%g replica %d: tau_int %.4f, exact %.4f", rho, r, estimate.tau_int, exact_tau);
        error_squares += estimate.error * estimate.error;
        printf("rho=%g replica %2d: mean %+.5f error %.6f tau_int %.4f (exact tau %.4f, error %.6f)\n", rho, r,
               estimate.mean, estimate.error, estimate.tau_int, exact_tau, exact_error);
    }
    double rms_error = sqrt(error_squares / REPLICAS);
    printf("rho=%g: rms jackknife error %.6f vs exact %.6f\n", rho, rms_error, exact_error);
    cr_expect(fabs(rms_error - exact_error) <= error_tolerance * exact_error,
              "rho=%g: rms error %.6f, exact %.6f", rho, rms_error, exact_error);
    free(x);
}

Test(stats, iid_gaussian_tau_and_error) { check_estimator_on_ar1(0.0, 0.2, 0.10, 12345); }

Test(stats, ar1_tau_and_error) { check_estimator_on_ar1(0.9, 0.15, 0.20, 67890); }

static double variance_from_moments(const double *means, void *context)
{
    (void)context;
    return means[1] - means[0] * means[0];
}

Test(stats, derived_variance_matches_sample_variance)
{
    double *x = alloc_series(SERIES_LENGTH), *x_squared = alloc_series(SERIES_LENGTH);
    gaussian_source source = {2024, 0.0, 0};
    double sum = 0.0;
    for (size_t i = 0; i < SERIES_LENGTH; i++) {
        x[i] = 3.0 + 2.0 * next_gaussian(&source);
        x_squared[i] = x[i] * x[i];
        sum += x[i];
    }
    double mean = sum / SERIES_LENGTH, squares = 0.0;
    for (size_t i = 0; i < SERIES_LENGTH; i++) squares += (x[i] - mean) * (x[i] - mean);
    double sample_variance = squares / SERIES_LENGTH;
    /* Var(s^2) = 2 sigma^4 / n for Gaussian data, sigma^2 = 4. */
    double expected_error = 4.0 * sqrt(2.0 / SERIES_LENGTH);

    const double *series[2] = {x, x_squared};
    clmc_estimate estimate = clmc_estimate_derived(series, 2, SERIES_LENGTH, variance_from_moments, NULL);
    printf("variance: derived %.12f +- %.6f (tau %.3f), sample %.12f, expected error %.6f\n", estimate.mean,
           estimate.error, estimate.tau_int, sample_variance, expected_error);
    cr_expect(fabs(estimate.mean - sample_variance) <= 1e-10 * sample_variance);
    cr_expect(fabs(estimate.error - expected_error) <= 0.3 * expected_error);
    cr_expect(estimate.tau_int >= 0.4 && estimate.tau_int <= 0.6);
    free(x);
    free(x_squared);
}

Test(stats, bin_count_limits)
{
    cr_expect_eq(clmc_jackknife_bins(0), 0);
    cr_expect_eq(clmc_jackknife_bins(3), 1);
    cr_expect_eq(clmc_jackknife_bins(4), 2);
    cr_expect_eq(clmc_jackknife_bins(101), 50);
    cr_expect_eq(clmc_jackknife_bins(128), 64);
    cr_expect_eq(clmc_jackknife_bins(1000000), 64);
}

/* 129 entries make 64 bins of 2 with one left over: that one must be the oldest. */
Test(stats, remainder_dropped_from_start)
{
    double x[129];
    gaussian_source source = {7, 0.0, 0};
    for (int i = 0; i < 129; i++) x[i] = next_gaussian(&source);
    x[0] = 1e6;
    clmc_estimate with_outlier = clmc_estimate_mean(x, 129), without = clmc_estimate_mean(x + 1, 128);
    cr_expect(fabs(with_outlier.error - without.error) <= 1e-12 * without.error,
              "error %.15g with the dropped outlier, %.15g without it", with_outlier.error, without.error);
}

static void expect_degenerate_estimate(const double *x, size_t n, double expected_mean)
{
    clmc_estimate estimate = clmc_estimate_mean(x, n);
    cr_expect(isfinite(estimate.mean) && isfinite(estimate.error) && isfinite(estimate.tau_int), "n=%zu", n);
    cr_expect(estimate.mean == expected_mean, "n=%zu: mean %.17g, expected %.17g", n, estimate.mean, expected_mean);
    cr_expect(estimate.error == 0.0, "n=%zu: error %g", n, estimate.error);
    cr_expect(estimate.tau_int == 0.5, "n=%zu: tau_int %g", n, estimate.tau_int);
    cr_expect(clmc_tau_int(x, n) == 0.5, "n=%zu", n);
}

Test(stats, short_and_constant_series_are_finite)
{
    double pair[2] = {1.0, 2.0}, constant[1000];
    for (int i = 0; i < 1000; i++) constant[i] = 0.1;
    expect_degenerate_estimate(NULL, 0, 0.0);
    expect_degenerate_estimate(pair, 1, 1.0);
    expect_degenerate_estimate(pair, 2, 1.5);
    expect_degenerate_estimate(constant, 1000, 0.1);
}

static double specific_heat_from_energy_moments(const double *means, void *context)
{
    const double *beta_squared_sites = context;
    return *beta_squared_sites * (means[1] - means[0] * means[0]);
}

/* The host reference must reproduce Kaufman's energy and specific heat within
 * 4 standard errors before it can stand in for exact results elsewhere. */
Test(stats, reference_simulation_matches_exact_2d_ising)
{
    const int L = 8;
    const double beta = 0.3;
    ising_ref_series series;
    cr_assert_eq(ising_ref_run(2, L, beta, 2000, SERIES_LENGTH, 42, &series), 0);
    double *energy_squared = alloc_series(series.n);
    for (size_t i = 0; i < series.n; i++) energy_squared[i] = series.energy[i] * series.energy[i];

    double exact_energy, exact_heat, beta_squared_sites = beta * beta * L * L;
    ising2d_exact(L, beta, &exact_energy, &exact_heat);
    clmc_estimate energy = clmc_estimate_mean(series.energy, series.n);
    clmc_estimate magnetization = clmc_estimate_mean(series.magnetization, series.n);
    const double *moments[2] = {series.energy, energy_squared};
    clmc_estimate heat =
        clmc_estimate_derived(moments, 2, series.n, specific_heat_from_energy_moments, &beta_squared_sites);

    printf("L=%d beta=%g reference: energy %.6f +- %.6f (tau %.2f), exact %.6f\n", L, beta, energy.mean,
           energy.error, energy.tau_int, exact_energy);
    printf("L=%d beta=%g reference: specific heat %.5f +- %.5f, exact %.5f; magnetization %.5f +- %.5f\n", L, beta,
           heat.mean, heat.error, exact_heat, magnetization.mean, magnetization.error);
    cr_expect(fabs(energy.mean - exact_energy) <= 4.0 * energy.error, "energy %.6f +- %.6f, exact %.6f",
              energy.mean, energy.error, exact_energy);
    cr_expect(fabs(heat.mean - exact_heat) <= 4.0 * heat.error, "specific heat %.5f +- %.5f, exact %.5f", heat.mean,
              heat.error, exact_heat);
    cr_expect(fabs(magnetization.mean) <= 4.0 * magnetization.error, "magnetization %.5f +- %.5f",
              magnetization.mean, magnetization.error);
    free(energy_squared);
    ising_ref_series_free(&series);
}

static double plain_mean(const double *means, void *context)
{
    (void)context;
    return means[0];
}

/* For the plain mean the jackknife over samples equals the textbook standard
 * error s / sqrt(n) exactly. */
Test(stats, over_samples_mean_error_is_the_standard_error)
{
    const double samples[] = {1.0, 2.5, -0.5, 4.0, 3.0, 0.25, 2.0};
    const size_t n = sizeof samples / sizeof samples[0];
    double mean = 0, squares = 0;
    for (size_t i = 0; i < n; i++) mean += samples[i] / (double)n;
    for (size_t i = 0; i < n; i++) squares += (samples[i] - mean) * (samples[i] - mean);
    double standard_error = sqrt(squares / (double)(n - 1) / (double)n);
    const double *values[] = {samples};
    clmc_estimate e = clmc_estimate_over_samples(values, 1, n, plain_mean, NULL);
    printf("over samples: %.12f +- %.12f, direct %.12f +- %.12f\n", e.mean, e.error, mean, standard_error);
    cr_expect_float_eq(e.mean, mean, 1e-12);
    cr_expect_float_eq(e.error, standard_error, 1e-12);
}
