/* ensemble.type "wang_landau" (docs/ensembles.md): the weights of the
 * multicanonical production (multicanonical.c) from a parallel Wang-Landau
 * run instead of the W/H iterations.  All walkers share one ln g(E) with
 * delayed updates: they sweep ensemble.iteration_sweeps sweeps with the
 * weights ln W = -ln g fixed on the device, then ln g(E) += ln f H(E) / W
 * from the histogram H of those sweeps (each walker's visit adds ln f / W,
 * so time runs per walker).  ln f starts at 1 and halves whenever the
 * histogram since the last change is flat (min H >= flatness * mean H over
 * every energy visited so far, the lowest and highest among them) until it
 * falls below 1/t, t = updates per walker / energies visited; from then on
 * ln f = 1/t (Belardinelli and Pereyra 2007), until ln f < final_ln_f. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "density_walkers.h"

clmc_status wang_landau_weights(muca *m, bool quiet, cJSON *report)
{
    unsigned bins = m->model.n_bins;
    uint64_t batch = m->settings.iteration_sweeps;
    long long max_iterations = m->settings.max_iterations;
    double flatness = m->settings.flatness, final_ln_f = m->settings.final_ln_f;
    double *hist = malloc((size_t)m->blocks * bins * sizeof *hist), *ln_g = calloc(bins, sizeof *ln_g);
    double *stage = calloc(bins, sizeof *stage);
    float *scratch = malloc(bins * sizeof *scratch);
    unsigned char *seen = calloc(bins, 1);
    clmc_status status = hist && ln_g && stage && scratch && seen ? CLMC_OK
                                                                  : clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    double ln_f = 1, sweeps = 0, switched_at = -1;
    unsigned halvings = 0;
    long long iteration = 0;
    for (; status == CLMC_OK && ln_f >= final_ln_f; iteration++) {
        if (iteration == max_iterations) {
            status = clmc_fail(CLMC_ERR_OTHER, "ensemble.max_iterations: ln f = %g after %lld updates of ln g, "
                               "not yet below ensemble.final_ln_f = %g; raise ensemble.max_iterations",
                               ln_f, max_iterations, final_ln_f);
            break;
        }
        memset(hist, 0, (size_t)m->blocks * bins * sizeof *hist);
        status = muca_sweep(m, batch, 1, hist);
        if (status != CLMC_OK) break;
        sweeps += (double)batch;
        for (size_t b = 1; b < m->blocks; b++)
            for (unsigned i = 0; i < bins; i++) hist[i] += hist[b * bins + i];
        unsigned visited = 0;
        double sum = 0, low = INFINITY;
        for (unsigned i = 0; i < bins; i++) {
            if (hist[i] > 0) seen[i] = 1;
            ln_g[i] += ln_f * hist[i] / m->walkers;
            stage[i] += hist[i];
            if (!seen[i]) continue;
            visited++;
            sum += stage[i];
            low = fmin(low, stage[i]);
        }
        double t = sweeps * m->model.sites / visited;
        if (switched_at >= 0) ln_f = 1 / t;
        else if (seen[0] && seen[bins - 1] && low >= flatness * sum / visited) {
            ln_f /= 2;
            halvings++;
            memset(stage, 0, bins * sizeof *stage);
            if (!quiet)
                fprintf(stderr, "clmc: Wang-Landau: flat after %.0f sweeps, ln f = %g\n", sweeps, ln_f);
            if (ln_f < 1 / t) {
                ln_f = 1 / t;
                switched_at = sweeps;
                if (!quiet) fprintf(stderr, "clmc: Wang-Landau: ln f = 1/t from sweep %.0f on\n", sweeps);
            }
        }
        double *ln_w = hist; /* reused: -ln g */
        for (unsigned i = 0; i < bins; i++) ln_w[i] = -ln_g[i];
        status = muca_set_weights(m, ln_w, scratch);
    }
    if (status == CLMC_OK) {
        cJSON_AddNumberToObject(report, "final_ln_f", ln_f);
        cJSON_AddNumberToObject(report, "halvings", halvings);
        cJSON_AddNumberToObject(report, "sweeps", sweeps);
        cJSON_AddNumberToObject(report, "one_over_t_from_sweep", switched_at);
        cJSON_AddNumberToObject(report, "ln_g_updates", (double)iteration);
    }
    free(hist);
    free(ln_g);
    free(stage);
    free(scratch);
    free(seen);
    return status;
}
