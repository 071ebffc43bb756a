/* ensemble.type "multicanonical" (docs/ensembles.md): parallel multicanonical
 * sampling after Gross, Zierenberg, Weigel and Janke (2018; Weigel's 2018
 * review, section 5.2).  W walkers, each a whole system of the model
 * (clmc_density_walkers), run side by side on the device with shared
 * weights ln W(E) and one histogram.  Weight iterations: every walker does
 * ensemble.iteration_sweeps sweeps; the histogram H of all updates gives
 * ln W(E) -= ln H(E) on the energies visited; they end when H is flat
 * (min H >= flatness * mean H over every energy visited so far, none new,
 * the model's lowest and highest energies among them unless the model has
 * edges_unknown, whose unvisited energies take the weight of their nearest
 * visited neighbour).  Production with the
 * weights fixed: run.thermalization sweeps, then run.sweeps sweeps filling
 * the histograms of BLOCKS blocks of walkers (walker w in block w % BLOCKS):
 * ln g(E) = ln H(E) - ln W(E), normalised to the number of states, and the
 * canonical averages at ensemble.betas, with jackknife errors over blocks.
 * A model with units (the EA spin glass's realizations) runs all of this once
 * per unit, one after another (muca_start), and reports each unit and the
 * average over units. */
#include "ensemble.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "density_walkers.h"

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

clmc_status clmc_multicanonical_check(clmc_ensemble *e)
{
    muca m = {.rt = e->rt, .settings = e->density, .walkers = e->density.walkers};
    CLMC_TRY(e->ops->ensemble->density_walkers(e->state, &m.model));
    CLMC_TRY(muca_layout(&m));
    return muca_check(&m);
}


/* Weight iterations until the histogram is flat; *iterations: how many ran. */
static clmc_status muca_iterate(muca *m, bool quiet, unsigned *iterations)
{
    unsigned bins = m->model.n_bins;
    uint64_t sweeps = m->settings.iteration_sweeps;
    long long max_iterations = m->settings.max_iterations;
    double flatness = m->settings.flatness;
    double *hist = malloc((size_t)m->blocks * bins * sizeof *hist), *ln_w = calloc(bins, sizeof *ln_w);
    float *ln_w_device = malloc(bins * sizeof *ln_w_device);
    unsigned char *seen = calloc(bins, 1);
    clmc_status status = hist && ln_w && ln_w_device && seen ? CLMC_OK : clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    bool flat = false;
    for (long long it = 0; status == CLMC_OK && !flat && it < max_iterations; it++) {
        memset(hist, 0, (size_t)m->blocks * bins * sizeof *hist);
        status = muca_sweep(m, sweeps, 1, hist);
        if (status != CLMC_OK) break;
        for (size_t b = 1; b < m->blocks; b++)
            for (unsigned i = 0; i < bins; i++) hist[i] += hist[b * bins + i];
        double sum = 0, low = INFINITY;
        unsigned visited = 0;
        bool discovered = false;
        for (unsigned i = 0; i < bins; i++) {
            if (hist[i] > 0 && !seen[i]) discovered = true, seen[i] = 1;
            if (!seen[i]) continue;
            visited++;
            sum += hist[i];
            low = fmin(low, hist[i]);
        }
        flat = !discovered && (m->model.edges_unknown || (seen[0] && seen[bins - 1])) &&
               low >= flatness * sum / visited;
        *iterations = (unsigned)it + 1;
        if (!quiet)
            fprintf(stderr, "\rclmc: multicanonical iteration %u: %u energies visited, min/mean histogram %.3f   %s",
                    *iterations, visited, low * visited / sum, flat ? "\n" : "");
        if (flat) break;
        /* W(E) / H(E) on the energies visited: the next iteration's histogram flatter. */
        for (unsigned i = 0; i < bins; i++)
            if (hist[i] > 0) ln_w[i] -= log(hist[i]);
        if (m->model.edges_unknown) muca_fill_unseen(ln_w, seen, bins);
        status = muca_set_weights(m, ln_w, ln_w_device);
    }
    if (status == CLMC_OK && !flat) {
        if (!quiet) fprintf(stderr, "\n");
        status = clmc_fail(CLMC_ERR_OTHER, "ensemble.max_iterations: the histogram is not flat after %lld "
                           "iterations; raise ensemble.max_iterations or ensemble.iteration_sweeps", max_iterations);
    }
    free(hist);
    free(ln_w);
    free(ln_w_device);
    free(seen);
    return status;
}

/* ln of sum exp(x[i]) over the n values. */
static double log_sum_exp(const double *x, size_t n)
{
    double top = -INFINITY, sum = 0;
    for (size_t i = 0; i < n; i++) top = fmax(top, x[i]);
    for (size_t i = 0; i < n; i++) sum += exp(x[i] - top);
    return top + log(sum);
}

/* ln g normalised to ln_states from counts and the weights, on the n energies kept. */
static void log_density(const double *counts, const double *ln_w, size_t n, double ln_states, double *ln_g)
{
    for (size_t i = 0; i < n; i++) ln_g[i] = counts[i] > 0 ? log(counts[i]) - ln_w[i] : -INFINITY;
    double norm = log_sum_exp(ln_g, n) - ln_states;
    for (size_t i = 0; i < n; i++) ln_g[i] -= norm;
}

enum { ENERGY, SPECIFIC_HEAT, FREE_ENERGY, ENTROPY, N_THERMO };
static const char *const thermo_names[N_THERMO] = {"energy", "specific_heat", "free_energy", "entropy"};

/* Per site: <E>/N, beta^2 var(E)/N, beta F/N = -ln Z/N, S/N = beta <E>/N + ln Z/N. */
static void thermodynamics(const double *ln_g, const int *energies, size_t n, double sites, double beta, double *x,
                           double *out)
{
    for (size_t i = 0; i < n; i++) x[i] = ln_g[i] - beta * energies[i];
    double ln_z = log_sum_exp(x, n), mean = 0, second = 0;
    for (size_t i = 0; i < n; i++) mean += exp(x[i] - ln_z) * energies[i];
    for (size_t i = 0; i < n; i++) second += exp(x[i] - ln_z) * (energies[i] - mean) * (energies[i] - mean);
    out[ENERGY] = mean / sites;
    out[SPECIFIC_HEAT] = beta * beta * second / sites;
    out[FREE_ENERGY] = -ln_z / sites;
    out[ENTROPY] = beta * mean / sites + ln_z / sites;
}

static double jackknife_error(const double *samples, size_t n)
{
    double mean = 0, sum = 0;
    for (size_t b = 0; b < n; b++) mean += samples[b] / n;
    for (size_t b = 0; b < n; b++) sum += (samples[b] - mean) * (samples[b] - mean);
    return sqrt((double)(n - 1) / n * sum);
}

static cJSON *number_array(const double *values, size_t n)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; i < n; i++)
        cJSON_AddItemToArray(a, isfinite(values[i]) ? cJSON_CreateNumber(values[i]) : cJSON_CreateNull());
    return a;
}

/* density_of_states and observables.temperatures from the production
 * histograms hist [block][bin] and the final weights. */
static clmc_status muca_results(const muca *m, const clmc_preset *preset, const double *hist, cJSON *root)
{
    unsigned bins = m->model.n_bins, blocks = m->blocks;
    float *ln_w_device = malloc(bins * sizeof *ln_w_device);
    size_t per = (size_t)bins;
    double *total = calloc(per, sizeof *total), *ln_w = calloc(per, sizeof *ln_w),
           *counts = calloc(per, sizeof *counts), *ln_g = calloc(per, sizeof *ln_g),
           *samples = calloc(per * blocks, sizeof *samples), *error = calloc(per, sizeof *error),
           *x = calloc(per, sizeof *x), *energy_values = calloc(per, sizeof *energy_values);
    int *energies = calloc(per, sizeof *energies);
    clmc_status status = ln_w_device && total && ln_w && counts && ln_g && samples && error && x && energy_values &&
                                 energies
                             ? CLMC_OK
                             : clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    if (status == CLMC_OK)
        status = muca_cl_status(clEnqueueReadBuffer(clmc_runtime_queue(m->rt), m->ln_w, CL_TRUE, 0, bins * sizeof(float),
                                                  ln_w_device, 0, NULL, NULL),
                              "multicanonical weights");
    size_t n = 0; /* energies kept: visited in production */
    for (unsigned i = 0; status == CLMC_OK && i < bins; i++) {
        double h = 0;
        for (unsigned b = 0; b < blocks; b++) h += hist[(size_t)b * bins + i];
        if (h == 0) continue;
        total[n] = h;
        ln_w[n] = ln_w_device[i];
        energies[n] = m->model.e_min + m->model.e_step * (int)i;
        energy_values[n] = energies[n];
        n++;
    }
    if (status == CLMC_OK) {
        log_density(total, ln_w, n, m->model.log_states, ln_g);
        for (unsigned b = 0; b < blocks; b++) {
            for (size_t k = 0, j = 0; j < bins && k < n; j++)
                if (m->model.e_min + m->model.e_step * (int)j == energies[k]) {
                    counts[k] = total[k] - hist[(size_t)b * bins + j];
                    k++;
                }
            log_density(counts, ln_w, n, m->model.log_states, samples + (size_t)b * per);
        }
        double column[MAX_BLOCKS];
        for (size_t i = 0; i < n; i++) {
            for (unsigned b = 0; b < blocks; b++) column[b] = samples[(size_t)b * per + i];
            error[i] = jackknife_error(column, blocks);
        }
        cJSON *dos = cJSON_AddObjectToObject(root, "density_of_states");
        cJSON_AddItemToObject(dos, "energies", number_array(energy_values, n));
        cJSON_AddItemToObject(dos, "ln_g", number_array(ln_g, n));
        cJSON_AddItemToObject(dos, "error", number_array(error, n));
        cJSON_AddNumberToObject(dos, "blocks", blocks);
        double low = INFINITY, sum = 0;
        for (size_t i = 0; i < n; i++) low = fmin(low, total[i]), sum += total[i];
        cJSON_AddNumberToObject(dos, "production_flatness", n ? low * n / sum : 0);

        double betas[CLMC_ENSEMBLE_MAX_TEMPERATURES];
        size_t n_betas = clmc_preset_betas(preset, betas, CLMC_ENSEMBLE_MAX_TEMPERATURES);
        cJSON *list = cJSON_AddArrayToObject(cJSON_AddObjectToObject(root, "observables"), "temperatures");
        double *scratch = malloc(per * sizeof *scratch), jack[MAX_BLOCKS][N_THERMO], full[N_THERMO];
        if (!scratch) status = clmc_fail(CLMC_ERR_OTHER, "out of host memory");
        for (size_t t = 0; status == CLMC_OK && t < n_betas; t++) {
            thermodynamics(ln_g, energies, n, m->model.sites, betas[t], scratch, full);
            for (unsigned b = 0; b < blocks; b++)
                thermodynamics(samples + (size_t)b * per, energies, n, m->model.sites, betas[t], scratch, jack[b]);
            cJSON *entry = cJSON_CreateObject();
            cJSON_AddNumberToObject(entry, "beta", betas[t]);
            for (int q = 0; q < N_THERMO; q++) {
                double column_q[MAX_BLOCKS];
                for (unsigned b = 0; b < blocks; b++) column_q[b] = jack[b][q];
                cJSON *value = cJSON_AddObjectToObject(entry, thermo_names[q]);
                cJSON_AddNumberToObject(value, "mean", full[q]);
                cJSON_AddNumberToObject(value, "error", jackknife_error(column_q, blocks));
            }
            cJSON_AddItemToArray(list, entry);
        }
        free(scratch);
    }
    free(ln_w_device);
    free(total);
    free(ln_w);
    free(counts);
    free(ln_g);
    free(samples);
    free(error);
    free(x);
    free(energy_values);
    free(energies);
    return status;
}

/* ensemble.production false (Wang-Landau): density_of_states and
 * observables.temperatures from the Wang-Landau ln g [bin] of the bins seen,
 * without errors (null). */
static clmc_status wang_landau_results(const muca *m, const clmc_preset *preset, const double *ln_g_bins,
                                       const unsigned char *seen, cJSON *root)
{
    unsigned bins = m->model.n_bins;
    double *ln_g = malloc(bins * sizeof *ln_g), *energy_values = malloc(bins * sizeof *energy_values);
    double *errors = malloc(bins * sizeof *errors), *scratch = malloc(bins * sizeof *scratch);
    int *energies = malloc(bins * sizeof *energies);
    clmc_status status = ln_g && energy_values && errors && scratch && energies
                             ? CLMC_OK
                             : clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    size_t n = 0;
    for (unsigned i = 0; status == CLMC_OK && i < bins; i++) {
        if (!seen[i]) continue;
        ln_g[n] = ln_g_bins[i];
        energies[n] = m->model.e_min + m->model.e_step * (int)i;
        energy_values[n] = energies[n];
        errors[n] = NAN;
        n++;
    }
    if (status == CLMC_OK) {
        double norm = log_sum_exp(ln_g, n) - m->model.log_states;
        for (size_t i = 0; i < n; i++) ln_g[i] -= norm;
        cJSON *dos = cJSON_AddObjectToObject(root, "density_of_states");
        cJSON_AddItemToObject(dos, "energies", number_array(energy_values, n));
        cJSON_AddItemToObject(dos, "ln_g", number_array(ln_g, n));
        cJSON_AddItemToObject(dos, "error", number_array(errors, n));
        double betas[CLMC_ENSEMBLE_MAX_TEMPERATURES], full[N_THERMO];
        size_t n_betas = clmc_preset_betas(preset, betas, CLMC_ENSEMBLE_MAX_TEMPERATURES);
        cJSON *list = cJSON_AddArrayToObject(cJSON_AddObjectToObject(root, "observables"), "temperatures");
        for (size_t t = 0; t < n_betas; t++) {
            thermodynamics(ln_g, energies, n, m->model.sites, betas[t], scratch, full);
            cJSON *entry = cJSON_CreateObject();
            cJSON_AddNumberToObject(entry, "beta", betas[t]);
            for (int q = 0; q < N_THERMO; q++) {
                cJSON *value = cJSON_AddObjectToObject(entry, thermo_names[q]);
                cJSON_AddNumberToObject(value, "mean", full[q]);
                cJSON_AddNullToObject(value, "error");
            }
            cJSON_AddItemToArray(list, entry);
        }
    }
    free(ln_g);
    free(energy_values);
    free(errors);
    free(scratch);
    free(energies);
    return status;
}

/* One unit's weights, production and results (density_of_states and
 * observables.temperatures) into `target`; hist, wl_ln_g and wl_seen:
 * scratch of blocks x bins, bins and bins. */
static clmc_status run_unit(muca *m, const clmc_preset *preset, bool quiet, cJSON *target, double *hist,
                            double *wl_ln_g, unsigned char *wl_seen)
{
    unsigned iterations = 0;
    memset(hist, 0, (size_t)m->blocks * m->model.n_bins * sizeof *hist);
    bool production = m->settings.production;
    bool wang_landau = m->settings.wang_landau;
    cJSON *report = cJSON_CreateObject();
    clmc_status status = report ? CLMC_OK : clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    if (status == CLMC_OK) status = muca_cl_status(clFinish(clmc_runtime_queue(m->rt)), "clFinish");
    double started = now_seconds();
    if (status == CLMC_OK && wang_landau) status = wang_landau_weights(m, quiet, report, wl_ln_g, wl_seen);
    else if (status == CLMC_OK) status = muca_iterate(m, quiet, &iterations);
    /* Weight phases read every histogram back: finished here. */
    double weights_done = now_seconds(), weights_updates = m->updates;
    if (status == CLMC_OK && production) status = muca_sweep(m, clmc_preset_run(preset)->thermalization, 0, NULL);
    if (status == CLMC_OK && production) status = muca_sweep(m, clmc_preset_run(preset)->sweeps, 1, hist);
    if (status == CLMC_OK) status = muca_cl_status(clFinish(clmc_runtime_queue(m->rt)), "clFinish");
    double production_done = now_seconds();
    if (status == CLMC_OK && production) status = muca_results(m, preset, hist, target);
    else if (status == CLMC_OK) status = wang_landau_results(m, preset, wl_ln_g, wl_seen, target);
    if (status == CLMC_OK) {
        cJSON *dos = cJSON_GetObjectItem(target, "density_of_states");
        cJSON_AddNumberToObject(dos, "walkers", m->walkers);
        /* Wall times: the benchmark's time to converged weights and time per update. */
        cJSON *timing = cJSON_AddObjectToObject(dos, "timing");
        cJSON_AddNumberToObject(timing, "weights_seconds", weights_done - started);
        cJSON_AddNumberToObject(timing, "production_seconds", production_done - weights_done);
        cJSON_AddNumberToObject(timing, "production_updates", m->updates - weights_updates);
        cJSON_AddNumberToObject(timing, "production_ps_per_update",
                                m->updates > weights_updates
                                    ? 1e12 * (production_done - weights_done) / (m->updates - weights_updates)
                                    : 0);
        if (wang_landau) cJSON_AddItemToObject(dos, "wang_landau", report), report = NULL;
        else cJSON_AddNumberToObject(dos, "iterations", iterations);
    }
    cJSON_Delete(report);
    return status;
}

/* observables.temperatures of the realizations' entries (list): per beta and
 * quantity the mean over realizations, with the standard error of that mean
 * (the spread over realizations / sqrt(R); R = 1: the realization's own
 * error, null without production). */
static void disorder_average(const cJSON *list, unsigned units, cJSON *out)
{
    const cJSON *first = cJSON_GetObjectItem(cJSON_GetArrayItem(list, 0), "temperatures"), *entry;
    int t = 0;
    cJSON_ArrayForEach(entry, first) {
        cJSON *average = cJSON_CreateObject();
        cJSON_AddNumberToObject(average, "beta", cJSON_GetObjectItem(entry, "beta")->valuedouble);
        for (int q = 0; q < N_THERMO; q++) {
            double sum = 0, square = 0;
            const cJSON *unit;
            cJSON_ArrayForEach(unit, list) {
                const cJSON *value = cJSON_GetObjectItem(
                    cJSON_GetArrayItem(cJSON_GetObjectItem(unit, "temperatures"), t), thermo_names[q]);
                double x = cJSON_GetObjectItem(value, "mean")->valuedouble;
                sum += x;
                square += x * x;
            }
            double mean = sum / units;
            cJSON *value = cJSON_AddObjectToObject(average, thermo_names[q]);
            cJSON_AddNumberToObject(value, "mean", mean);
            const cJSON *own = cJSON_GetObjectItem(cJSON_GetObjectItem(entry, thermo_names[q]), "error");
            if (units > 1)
                cJSON_AddNumberToObject(value, "error", sqrt(fmax(0, square / units - mean * mean) / (units - 1)));
            else cJSON_AddItemToObject(value, "error", cJSON_Duplicate(own, true));
        }
        cJSON_AddNumberToObject(average, "realizations", units);
        cJSON_AddItemToArray(out, average);
        t++;
    }
}

clmc_status clmc_multicanonical_run(clmc_ensemble *e, const clmc_preset *preset, bool quiet, int (*interrupt_signal)(void),
                                    cJSON *root, double *updates)
{
    muca m = {.rt = e->rt, .settings = e->density, .walkers = e->density.walkers, .interrupt_signal = interrupt_signal};
    CLMC_TRY(e->ops->ensemble->density_walkers(e->state, &m.model));
    CLMC_TRY(muca_layout(&m));
    CLMC_TRY(muca_check(&m));
    double *hist = calloc((size_t)m.blocks * m.model.n_bins, sizeof *hist);
    double *wl_ln_g = calloc(m.model.n_bins, sizeof *wl_ln_g);
    unsigned char *wl_seen = calloc(m.model.n_bins, 1);
    clmc_status status = hist && wl_ln_g && wl_seen ? muca_open(&m, preset)
                                                    : clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    if (status == CLMC_OK && !m.model.units) status = run_unit(&m, preset, quiet, root, hist, wl_ln_g, wl_seen);
    /* Per-unit models (the EA realizations): one unit after another, each
     * result moved into density_of_states.realizations [r] and
     * observables.realizations [r], the disorder average in
     * observables.temperatures. */
    if (status == CLMC_OK && m.model.units) {
        cJSON *dos = cJSON_AddObjectToObject(root, "density_of_states");
        cJSON *observables = cJSON_AddObjectToObject(root, "observables");
        cJSON *dos_list = cJSON_AddArrayToObject(dos, "realizations");
        cJSON *observables_list = cJSON_AddArrayToObject(observables, "realizations");
        double started = now_seconds();
        for (unsigned unit = 0; status == CLMC_OK && unit < m.model.units; unit++) {
            if (!quiet) fprintf(stderr, "clmc: realization %u of %u\n", unit, m.model.units);
            cJSON *target = cJSON_CreateObject();
            if (!target) status = clmc_fail(CLMC_ERR_OTHER, "out of host memory");
            if (status == CLMC_OK && unit > 0) status = muca_start(&m, unit);
            if (status == CLMC_OK) status = run_unit(&m, preset, quiet, target, hist, wl_ln_g, wl_seen);
            if (status == CLMC_OK) {
                cJSON *unit_dos = cJSON_DetachItemFromObject(target, "density_of_states");
                cJSON_AddNumberToObject(unit_dos, "realization", unit);
                cJSON_AddItemToArray(dos_list, unit_dos);
                cJSON *unit_observables = cJSON_DetachItemFromObject(target, "observables");
                cJSON_AddNumberToObject(unit_observables, "realization", unit);
                cJSON_AddItemToArray(observables_list, unit_observables);
            }
            cJSON_Delete(target);
        }
        if (status == CLMC_OK) {
            disorder_average(observables_list, m.model.units, cJSON_AddArrayToObject(observables, "temperatures"));
            cJSON_AddNumberToObject(dos, "walkers", m.walkers);
            cJSON_AddNumberToObject(dos, "seconds", now_seconds() - started);
        }
    }
    *updates = m.updates;
    free(hist);
    free(wl_ln_g);
    free(wl_seen);
    muca_close(&m);
    return status;
}

const clmc_ensemble_kind clmc_ensemble_multicanonical = {0};
