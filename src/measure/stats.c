/* Autocorrelation-aware estimates for Monte Carlo time series: jackknife over bins and tau_int. */
#include "clmc/stats.h"

#include <math.h>
#include <stdlib.h>

enum { MAX_JACKKNIFE_BINS = 64, MIN_BIN_LENGTH = 2 };

static const double SOKAL_WINDOW_FACTOR = 6.0;

size_t clmc_jackknife_bins(size_t n)
{
    size_t bins = n / MIN_BIN_LENGTH;
    return bins < MAX_JACKKNIFE_BINS ? bins : MAX_JACKKNIFE_BINS;
}

/* Summing offsets from x[0] makes a constant series come out exact, so its
 * variance is exactly zero rather than a rounding residue that looks like a
 * perfectly correlated signal. */
static double series_mean(const double *x, size_t n)
{
    if (n == 0) return 0.0;
    double offset_sum = 0.0;
    for (size_t i = 0; i < n; i++) offset_sum += x[i] - x[0];
    return x[0] + offset_sum / (double)n;
}

enum { LAG_BLOCK = 8 };

/* Autocovariances for lags first_lag .. first_lag + count - 1 (count <= LAG_BLOCK)
 * in one pass: for long series the pass over memory, not the arithmetic, is
 * the cost.  The main loop always sums LAG_BLOCK lags, so it has no branch;
 * sums for lags past `count` are simply not used. */
static void autocovariance_block(const double *x, size_t n, double mean, size_t first_lag, size_t count,
                                 double *covariance)
{
    double sums[LAG_BLOCK] = {0.0};
    size_t last_lag = first_lag + LAG_BLOCK - 1;
    size_t common = n > last_lag ? n - last_lag : 0;
    for (size_t i = 0; i < common; i++) {
        double centred = x[i] - mean;
        const double *ahead = x + i + first_lag;
        for (size_t j = 0; j < LAG_BLOCK; j++) sums[j] += centred * (ahead[j] - mean);
    }
    for (size_t j = 0; j < count; j++) {
        size_t lag = first_lag + j;
        for (size_t k = common; k + lag < n; k++) sums[j] += (x[k] - mean) * (x[k + lag] - mean);
        covariance[j] = sums[j] / (double)(n - lag);
    }
}

/* O(n W): the sum stops at Sokal's window W.  The window may not exceed a
 * quarter of the series; beyond that the estimate is noise, and for very
 * short series it is meaningless, so those report 0.5. */
double clmc_tau_int(const double *x, size_t n)
{
    size_t max_window = n / 4;
    if (max_window < 1) return 0.5;
    double mean = series_mean(x, n), variance;
    autocovariance_block(x, n, mean, 0, 1, &variance);
    if (!(variance > 0.0)) return 0.5;
    double tau = 0.5, covariance[LAG_BLOCK];
    for (size_t first = 1; first <= max_window; first += LAG_BLOCK) {
        size_t count = max_window - first + 1 < LAG_BLOCK ? max_window - first + 1 : LAG_BLOCK;
        autocovariance_block(x, n, mean, first, count, covariance);
        for (size_t j = 0; j < count; j++) {
            tau += covariance[j] / variance;
            if ((double)(first + j) >= SOKAL_WINDOW_FACTOR * tau) return tau;
        }
    }
    return tau;
}

/* Variance of jackknife samples, taken relative to the first sample so that
 * identical samples give exactly zero. */
static double jackknife_error_from_samples(const double *samples, size_t bins)
{
    double shift_sum = 0.0;
    for (size_t b = 0; b < bins; b++) shift_sum += samples[b] - samples[0];
    double shift_mean = shift_sum / (double)bins;
    double squares = 0.0;
    for (size_t b = 0; b < bins; b++) {
        double deviation = samples[b] - samples[0] - shift_mean;
        squares += deviation * deviation;
    }
    return sqrt(squares * (double)(bins - 1) / (double)bins);
}

/* Bins cover the newest bins * bin_length entries; the remainder is dropped
 * from the start.  Sums are of offsets from the mean of those entries, so that
 * removing one bin from the total does not cancel digits. */
static double jackknife_error(const double *const *series, size_t n_series, size_t n, clmc_derived_fn f,
                              void *context)
{
    size_t bins = clmc_jackknife_bins(n);
    if (bins < 2) return 0.0;
    size_t bin_length = n / bins;
    size_t skipped = n - bins * bin_length;
    size_t kept_without_one_bin = (bins - 1) * bin_length;

    double *bin_sums = calloc(n_series * (bins + 3) + 1, sizeof *bin_sums);
    if (bin_sums == NULL) return NAN;
    double *kept_means = bin_sums + n_series * bins;
    double *totals = kept_means + n_series;
    double *leave_one_out_means = totals + n_series;

    for (size_t k = 0; k < n_series; k++) {
        const double *x = series[k] + skipped;
        kept_means[k] = series_mean(x, bins * bin_length);
        for (size_t b = 0; b < bins; b++) {
            double sum = 0.0;
            for (size_t i = b * bin_length; i < (b + 1) * bin_length; i++) sum += x[i] - kept_means[k];
            bin_sums[k * bins + b] = sum;
            totals[k] += sum;
        }
    }

    double samples[MAX_JACKKNIFE_BINS];
    for (size_t b = 0; b < bins; b++) {
        for (size_t k = 0; k < n_series; k++)
            leave_one_out_means[k] =
                kept_means[k] + (totals[k] - bin_sums[k * bins + b]) / (double)kept_without_one_bin;
        samples[b] = f(leave_one_out_means, context);
    }
    free(bin_sums);
    return jackknife_error_from_samples(samples, bins);
}

/* The central value uses every measurement; only the error drops the remainder.
 * Allocation failure is reported as a NaN error. */
clmc_estimate clmc_estimate_derived(const double *const *series, size_t n_series, size_t n,
                                    clmc_derived_fn f, void *context)
{
    clmc_estimate estimate = {0.0, 0.0, 0.5};
    double *means = calloc(n_series > 0 ? n_series : 1, sizeof *means);
    if (means == NULL) {
        estimate.mean = NAN;
        estimate.error = NAN;
        return estimate;
    }
    for (size_t k = 0; k < n_series; k++) {
        means[k] = series_mean(series[k], n);
        double tau = clmc_tau_int(series[k], n);
        if (k == 0 || tau > estimate.tau_int) estimate.tau_int = tau;
    }
    estimate.mean = f(means, context);
    estimate.error = jackknife_error(series, n_series, n, f, context);
    free(means);
    return estimate;
}

static double first_mean(const double *means, void *context)
{
    (void)context;
    return means[0];
}

clmc_estimate clmc_estimate_mean(const double *x, size_t n)
{
    const double *series[1] = {x};
    return clmc_estimate_derived(series, 1, n, first_mean, NULL);
}

#define MAX_SAMPLE_QUANTITIES 8

/* f of the means with sample `left` removed (left == n: none removed). */
static double mean_without(const double *const *values, size_t n_values, size_t n, const double *totals,
                           size_t left, clmc_derived_fn f, void *context)
{
    double means[MAX_SAMPLE_QUANTITIES];
    double count = left < n ? (double)(n - 1) : (double)n;
    for (size_t k = 0; k < n_values; k++) means[k] = (totals[k] - (left < n ? values[k][left] : 0.0)) / count;
    return f(means, context);
}

clmc_estimate clmc_estimate_over_samples(const double *const *values, size_t n_values, size_t n,
                                         clmc_derived_fn f, void *context)
{
    clmc_estimate e = {0.0, 0.0, 0.5};
    if (n == 0 || n_values == 0 || n_values > MAX_SAMPLE_QUANTITIES) return e;
    double totals[MAX_SAMPLE_QUANTITIES] = {0};
    for (size_t k = 0; k < n_values; k++)
        for (size_t i = 0; i < n; i++) totals[k] += values[k][i];
    e.mean = mean_without(values, n_values, n, totals, n, f, context);
    if (n < 2) return e;
    double sum = 0, squares = 0;
    for (size_t i = 0; i < n; i++) sum += mean_without(values, n_values, n, totals, i, f, context);
    double average = sum / (double)n;
    for (size_t i = 0; i < n; i++) {
        double deviation = mean_without(values, n_values, n, totals, i, f, context) - average;
        squares += deviation * deviation;
    }
    e.error = sqrt(squares * (double)(n - 1) / (double)n);
    return e;
}
