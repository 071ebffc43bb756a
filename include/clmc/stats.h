/* Time-series statistics: binning/jackknife errors and integrated autocorrelation times. */
#ifndef CLMC_STATS_H
#define CLMC_STATS_H

#include <stddef.h>

typedef struct {
    double mean;
    double error;    /* standard error accounting for autocorrelation */
    double tau_int;  /* integrated autocorrelation time, in measurements */
} clmc_estimate;

/* Plain mean of a series: error from jackknife over bins, tau_int from the
 * normalised autocorrelation function with automatic windowing (Sokal, c = 6). */
clmc_estimate clmc_estimate_mean(const double *x, size_t n);

/* A function of the means of several series, f(<x_0>, <x_1>, ...), with a
 * jackknife error over bins.  `series[k]` has n entries.  tau_int is the
 * largest tau_int among the series (a conservative indicator). */
typedef double (*clmc_derived_fn)(const double *means, void *context);
clmc_estimate clmc_estimate_derived(const double *const *series, size_t n_series, size_t n,
                                    clmc_derived_fn f, void *context);

/* f of the means over n independent samples (e.g. disorder realizations):
 * values[k][i] is quantity k of sample i (n_values <= 8).  The error is the
 * jackknife error leaving one sample out at a time; tau_int is 0.5. */
clmc_estimate clmc_estimate_over_samples(const double *const *values, size_t n_values, size_t n,
                                         clmc_derived_fn f, void *context);

/* Integrated autocorrelation time alone (automatic windowing, c = 6). */
double clmc_tau_int(const double *x, size_t n);

/* Number of jackknife bins used for n measurements (at most 64, at least 2
 * measurements per bin; fewer bins for short series). */
size_t clmc_jackknife_bins(size_t n);

#endif
