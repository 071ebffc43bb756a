/* ensemble.type "wang_landau" (docs/ensembles.md): the weights of the
 * multicanonical production (multicanonical.c) from a parallel Wang-Landau
 * run instead of the W/H iterations (Weigel's 2018 review, section 5.3;
 * Vogel, Li, Wust and Landau 2013 for the windows).  The energy bins are cut
 * into windows (one by default), each with its own ln g(E) and its own
 * walkers, which stay inside it (density_walkers.h).  The walkers of a window
 * share its ln g with delayed updates: they sweep ensemble.iteration_sweeps
 * sweeps with the weights ln W = -ln g fixed on the device, then ln g(E) +=
 * ln f H(E) / W from the window's histogram H of those sweeps (each walker's
 * visit adds ln f / W, so time runs per walker).  ln f starts at 1 and
 * halves whenever the window's histogram since the last change is flat (min
 * H >= flatness * mean H over every energy of the window visited so far, its
 * edges reached) until it falls below 1/t, t = updates per walker / energies
 * visited; from then on ln f = 1/t (Belardinelli and Pereyra 2007), until
 * ln f < final_ln_f, where the window stops.  After every update, walkers of
 * neighbouring windows whose energies both lie in the overlap swap windows
 * with probability min(1, g_i(E_a) g_j(E_b) / (g_i(E_b) g_j(E_a))).  At
 * the end the windows' ln g are joined into one: each next window shifted
 * by the least-squares offset over the overlap, taken over from the energy
 * where the two slopes agree best. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/philox.h"
#include "density_walkers.h"

typedef struct {
    double ln_f, switched_at;
    unsigned halvings;
    bool done;
} wl_window;

typedef struct {
    muca *m;
    unsigned bins;
    double *ln_g, *stage, *hist; /* [window][bin] */
    unsigned char *seen;         /* [window][bin] */
    wl_window window[CLMC_DENSITY_MAX_WINDOWS];
    double accepted[CLMC_DENSITY_MAX_WINDOWS], attempts[CLMC_DENSITY_MAX_WINDOWS]; /* pair k: windows k, k + 1 */
    cl_uint *window_of;
    cl_int *energy;
    uint64_t exchanges;
    long long iteration; /* updates of ln g done */
    double sweeps;       /* per walker */
} wl_state;

/* For a checkpoint (density_walkers.h): inside the sweeps of update `iteration`. */
static void save_wang_landau(const void *state, clmc_blob_writer *w)
{
    const wl_state *s = state;
    const muca *m = s->m;
    size_t cells = (size_t)m->windows * s->bins;
    clmc_blob_put_u64(w, (uint64_t)s->iteration);
    clmc_blob_put_u64(w, s->exchanges);
    clmc_blob_put_doubles(w, &s->sweeps, 1);
    for (unsigned k = 0; k < m->windows; k++) {
        const double window[4] = {s->window[k].ln_f, s->window[k].switched_at, s->window[k].halvings,
                                  s->window[k].done};
        clmc_blob_put_doubles(w, window, 4);
    }
    clmc_blob_put_doubles(w, s->accepted, m->windows);
    clmc_blob_put_doubles(w, s->attempts, m->windows);
    clmc_blob_put_doubles(w, s->ln_g, cells);
    clmc_blob_put_doubles(w, s->stage, cells);
    muca_put_bytes(w, s->seen, cells);
    muca_put_bytes(w, s->window_of, m->walkers * sizeof *s->window_of);
}

static clmc_status restore_wang_landau(wl_state *s)
{
    muca *m = s->m;
    clmc_blob_reader *r = m->resume;
    m->resume = NULL;
    size_t cells = (size_t)m->windows * s->bins;
    uint64_t iteration = clmc_blob_get_u64(r, "ln g updates"), exchanges = clmc_blob_get_u64(r, "exchanges");
    const unsigned char *sweeps = clmc_blob_get_doubles(r, 1, "sweeps");
    const unsigned char *windows[CLMC_DENSITY_MAX_WINDOWS];
    for (unsigned k = 0; k < m->windows; k++) windows[k] = clmc_blob_get_doubles(r, 4, "window");
    const unsigned char *accepted = clmc_blob_get_doubles(r, m->windows, "exchanges accepted");
    const unsigned char *attempts = clmc_blob_get_doubles(r, m->windows, "exchanges attempted");
    const unsigned char *ln_g = clmc_blob_get_doubles(r, cells, "ln g");
    const unsigned char *stage = clmc_blob_get_doubles(r, cells, "histograms since the last halving");
    const unsigned char *seen = muca_get_bytes(r, cells, "energies seen");
    const unsigned char *window_of = muca_get_bytes(r, m->walkers * sizeof *s->window_of, "walker windows");
    CLMC_TRY(clmc_blob_end(r));
    if (iteration >= (uint64_t)m->settings.max_iterations)
        return clmc_fail(CLMC_ERR_INPUT, "checkpoint: ln g update %llu, beyond ensemble.max_iterations",
                         (unsigned long long)iteration);
    s->iteration = (long long)iteration;
    s->exchanges = exchanges;
    clmc_blob_copy_doubles(sweeps, &s->sweeps, 1);
    for (unsigned k = 0; k < m->windows; k++) {
        double window[4];
        clmc_blob_copy_doubles(windows[k], window, 4);
        if (!(window[0] > 0 && window[0] <= 1) || !(window[2] >= 0 && window[2] < 1100))
            return clmc_fail(CLMC_ERR_INPUT, "checkpoint: window %u has ln f %g after %g halvings", k, window[0],
                             window[2]);
        s->window[k] = (wl_window){.ln_f = window[0], .switched_at = window[1], .halvings = (unsigned)window[2],
                                   .done = window[3] != 0};
    }
    clmc_blob_copy_doubles(accepted, s->accepted, m->windows);
    clmc_blob_copy_doubles(attempts, s->attempts, m->windows);
    clmc_blob_copy_doubles(ln_g, s->ln_g, cells);
    clmc_blob_copy_doubles(stage, s->stage, cells);
    memcpy(s->seen, seen, cells);
    unsigned count[CLMC_DENSITY_MAX_WINDOWS] = {0};
    for (unsigned w = 0; w < m->walkers; w++) {
        s->window_of[w] = clmc_le_u32(window_of + 4 * (size_t)w);
        if (s->window_of[w] >= m->windows || ++count[s->window_of[w]] > m->walkers_per_window)
            return clmc_fail(CLMC_ERR_INPUT, "checkpoint: the walkers' windows are not %u walkers in each of %u "
                             "windows", m->walkers_per_window, m->windows);
    }
    for (size_t i = 0; i < cells; i++)
        if (!isfinite(s->ln_g[i]) || s->seen[i] > 1)
            return clmc_fail(CLMC_ERR_INPUT, "checkpoint: ln g of cell %zu is %g (seen %u)", i, s->ln_g[i], s->seen[i]);
    return CLMC_OK;
}

/* The window's histogram since its last halving is flat, its edges reached
 * (the model's extreme energies exactly unless edges_unknown, inner edges
 * within 3 bins). */
static bool window_flat(const wl_state *s, unsigned k, double flatness)
{
    const muca *m = s->m;
    unsigned lo = m->window_lo[k], hi = m->window_hi[k];
    const unsigned char *seen = s->seen + (size_t)k * s->bins;
    const double *stage = s->stage + (size_t)k * s->bins;
    unsigned visited = 0, first = s->bins, last = 0;
    double sum = 0, low = INFINITY;
    for (unsigned i = lo; i <= hi; i++) {
        if (!seen[i]) continue;
        visited++;
        sum += stage[i];
        low = fmin(low, stage[i]);
        if (first == s->bins) first = i;
        last = i;
    }
    if (!visited) return false;
    bool unknown = m->model.edges_unknown; /* the model's extreme energies may be unreachable */
    bool low_edge = lo == 0 ? unknown || first == 0 : first <= lo + 3;
    bool high_edge = hi == s->bins - 1 ? unknown || last == hi : last + 3 >= hi;
    return low_edge && high_edge && low >= flatness * sum / visited;
}

/* One update of every window's ln g from hist [window][bin]. */
static void update_windows(wl_state *s, double sweeps, bool quiet)
{
    const muca *m = s->m;
    for (unsigned k = 0; k < m->windows; k++) {
        wl_window *win = &s->window[k];
        if (win->done) continue;
        size_t row = (size_t)k * s->bins;
        unsigned visited = 0;
        bool discovered = false;
        for (unsigned i = m->window_lo[k]; i <= m->window_hi[k]; i++) {
            double h = s->hist[row + i];
            if (h > 0 && !s->seen[row + i]) discovered = true;
            if (h > 0) s->seen[row + i] = 1;
            s->ln_g[row + i] += win->ln_f * h / m->walkers_per_window;
            s->stage[row + i] += h;
            visited += s->seen[row + i];
        }
        double t = sweeps * m->model.sites / (visited ? visited : 1);
        if (win->switched_at >= 0) win->ln_f = 1 / t;
        else if (!(discovered && m->model.edges_unknown) && window_flat(s, k, m->settings.flatness)) {
            win->ln_f /= 2;
            win->halvings++;
            memset(s->stage + row, 0, s->bins * sizeof *s->stage);
            if (!quiet)
                fprintf(stderr, "clmc: Wang-Landau window %u: flat after %.0f sweeps, ln f = %g\n", k, sweeps,
                        win->ln_f);
            if (win->ln_f < 1 / t) {
                win->ln_f = 1 / t;
                win->switched_at = sweeps;
                if (!quiet) fprintf(stderr, "clmc: Wang-Landau window %u: ln f = 1/t from sweep %.0f on\n", k, sweeps);
            }
        }
        if (win->ln_f < m->settings.final_ln_f) win->done = true;
        /* Energies not yet seen start from their nearest seen neighbour's ln g (muca_fill_unseen). */
        if (m->model.edges_unknown)
            muca_fill_unseen(s->ln_g + row + m->window_lo[k], s->seen + row + m->window_lo[k],
                             m->window_hi[k] - m->window_lo[k] + 1);
    }
}

/* Replica exchange between neighbouring windows (pairs of one parity per
 * round, alternating): the i-th walker of window k (in walker order) with
 * the i-th of window k + 1, both energies inside both windows; the uniform
 * of pair (k, i) of exchange round x from word 0 of the draw (unit k *
 * walkers_per_window + i, sweep x, purpose MULTICANONICAL, config 2).
 * Walkers swap their windows, not their configurations, so under several
 * MPI ranks they stay where they are: every rank gathers all energies and
 * takes the same decisions with the same draws. */
static clmc_status exchange_windows(wl_state *s)
{
    muca *m = s->m;
    cl_command_queue queue = clmc_runtime_queue(m->rt);
    CLMC_TRY(muca_read_energies(m, s->energy));
    unsigned per = m->walkers_per_window, parity = (unsigned)(s->exchanges % 2);
    unsigned *members = malloc((size_t)m->walkers * sizeof *members), *count = calloc(m->windows, sizeof *count);
    if (!members || !count) {
        free(members);
        free(count);
        return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    }
    for (unsigned w = 0; w < m->walkers; w++) {
        unsigned k = s->window_of[w];
        members[(size_t)k * per + count[k]++] = w;
    }
    clmc_philox_key key = {{m->seed_lo, m->seed_hi}};
    for (unsigned k = parity; k + 1 < m->windows; k += 2) {
        unsigned lo = m->window_lo[k + 1], hi = m->window_hi[k];
        const double *g_i = s->ln_g + (size_t)k * s->bins, *g_j = s->ln_g + (size_t)(k + 1) * s->bins;
        for (unsigned i = 0; i < per; i++) {
            unsigned a = members[(size_t)k * per + i], b = members[(size_t)(k + 1) * per + i];
            unsigned bin_a = (unsigned)((s->energy[a] - m->model.e_min) / m->model.e_step);
            unsigned bin_b = (unsigned)((s->energy[b] - m->model.e_min) / m->model.e_step);
            if (bin_a < lo || bin_a > hi || bin_b < lo || bin_b > hi) continue;
            s->attempts[k]++;
            double log_ratio = g_i[bin_a] + g_j[bin_b] - g_i[bin_b] - g_j[bin_a];
            clmc_philox_ctr r = clmc_random4(key, m->unit * m->walkers + k * per + i, (clmc_u32)s->exchanges, 0,
                                             CLMC_STREAM(CLMC_PURPOSE_MULTICANONICAL, 2));
            if (log_ratio >= 0 || log(((double)r.v[0] + 0.5) * 0x1p-32) < log_ratio) {
                s->window_of[a] = k + 1;
                s->window_of[b] = k;
                s->accepted[k]++;
            }
        }
    }
    free(members);
    free(count);
    s->exchanges++;
    return muca_cl_status(clEnqueueWriteBuffer(queue, m->window_of, CL_TRUE, 0, m->walkers * sizeof(cl_uint),
                                               s->window_of, 0, NULL, NULL),
                          "walker windows");
}

/* joined [bin]: the windows' ln g in one (0 where no window saw the bin). */
static clmc_status join_windows(const wl_state *s, double *joined, cJSON *report)
{
    const muca *m = s->m;
    unsigned bins = s->bins;
    for (unsigned i = 0; i < bins; i++) joined[i] = s->seen[i] ? s->ln_g[i] : 0;
    cJSON *joins = m->windows > 1 ? cJSON_AddArrayToObject(report, "joined_at") : NULL;
    for (unsigned k = 1; k < m->windows; k++) {
        const double *g = s->ln_g + (size_t)k * bins;
        const unsigned char *seen_k = s->seen + (size_t)k * bins, *seen_prev = s->seen + (size_t)(k - 1) * bins;
        unsigned lo = m->window_lo[k], hi = m->window_hi[k - 1], shared = 0;
        double offset = 0;
        for (unsigned i = lo; i <= hi; i++)
            if (seen_k[i] && seen_prev[i]) offset += joined[i] - g[i], shared++;
        if (shared < 2)
            return clmc_fail(CLMC_ERR_OTHER, "ensemble.overlap: windows %u and %u share %u visited energies, too few "
                             "to join them; raise ensemble.overlap", k - 1, k, shared);
        offset /= shared;
        /* The join: the shared energy, followed by another, where the slopes differ least. */
        unsigned at = lo;
        double best = INFINITY;
        for (unsigned i = lo; i <= hi; i++) {
            if (!seen_k[i] || !seen_prev[i]) continue;
            unsigned next = i + 1;
            while (next <= hi && !(seen_k[next] && seen_prev[next])) next++;
            if (next > hi) break;
            double mismatch = fabs((joined[next] - joined[i]) - (g[next] - g[i]));
            if (mismatch < best) best = mismatch, at = i;
        }
        for (unsigned i = at; i < bins; i++) joined[i] = seen_k[i] ? g[i] + offset : 0;
        cJSON_AddItemToArray(joins, cJSON_CreateNumber(m->model.e_min + m->model.e_step * (int)at));
    }
    return CLMC_OK;
}

static void add_window_report(const wl_state *s, double sweeps, cJSON *report)
{
    const muca *m = s->m;
    double ln_f = 0, switched_at = -1;
    unsigned halvings = 0;
    for (unsigned k = 0; k < m->windows; k++) {
        ln_f = fmax(ln_f, s->window[k].ln_f);
        halvings += s->window[k].halvings;
        switched_at = fmax(switched_at, s->window[k].switched_at);
    }
    cJSON_AddNumberToObject(report, "final_ln_f", ln_f);
    cJSON_AddNumberToObject(report, "halvings", halvings);
    cJSON_AddNumberToObject(report, "sweeps", sweeps);
    cJSON_AddNumberToObject(report, "one_over_t_from_sweep", switched_at);
    if (m->windows == 1) return;
    cJSON *list = cJSON_AddArrayToObject(report, "windows");
    for (unsigned k = 0; k < m->windows; k++) {
        cJSON *entry = cJSON_CreateObject();
        cJSON_AddNumberToObject(entry, "energy_min", m->model.e_min + m->model.e_step * (int)m->window_lo[k]);
        cJSON_AddNumberToObject(entry, "energy_max", m->model.e_min + m->model.e_step * (int)m->window_hi[k]);
        cJSON_AddNumberToObject(entry, "final_ln_f", s->window[k].ln_f);
        cJSON_AddNumberToObject(entry, "halvings", s->window[k].halvings);
        cJSON_AddNumberToObject(entry, "one_over_t_from_sweep", s->window[k].switched_at);
        cJSON_AddItemToArray(list, entry);
    }
    cJSON *acceptance = cJSON_AddArrayToObject(report, "exchange_acceptance");
    cJSON *attempts = cJSON_AddArrayToObject(report, "exchange_attempts");
    for (unsigned k = 0; k + 1 < m->windows; k++) {
        cJSON_AddItemToArray(acceptance, s->attempts[k] > 0 ? cJSON_CreateNumber(s->accepted[k] / s->attempts[k])
                                                            : cJSON_CreateNull());
        cJSON_AddItemToArray(attempts, cJSON_CreateNumber(s->attempts[k]));
    }
}

clmc_status wang_landau_weights(muca *m, bool quiet, cJSON *report, double *ln_g, unsigned char *seen)
{
    unsigned bins = m->model.n_bins, windows = m->windows;
    size_t rows = m->blocks > windows ? m->blocks : windows, cells = (size_t)windows * bins;
    uint64_t batch = m->settings.iteration_sweeps;
    long long max_iterations = m->settings.max_iterations;
    wl_state s = {.m = m, .bins = bins};
    s.ln_g = calloc(cells, sizeof *s.ln_g);
    s.stage = calloc(cells, sizeof *s.stage);
    s.hist = malloc(rows * bins * sizeof *s.hist);
    s.seen = calloc(cells, 1);
    s.window_of = malloc(m->walkers * sizeof *s.window_of);
    s.energy = malloc(m->walkers * sizeof *s.energy);
    double *weights = malloc(bins * sizeof *weights);
    float *scratch = malloc(cells * sizeof *scratch); /* [window][bin] */
    clmc_status status = s.ln_g && s.stage && s.hist && s.seen && s.window_of && s.energy && weights && scratch
                             ? CLMC_OK
                             : clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    for (unsigned k = 0; k < windows; k++) s.window[k] = (wl_window){.ln_f = 1, .switched_at = -1};
    for (unsigned w = 0; status == CLMC_OK && w < m->walkers; w++) s.window_of[w] = w / m->walkers_per_window;
    if (status == CLMC_OK && m->resume) status = restore_wang_landau(&s); /* the device's weights restored */
    else if (status == CLMC_OK && windows > 1) { /* the ramps into the windows */
        for (unsigned k = 0; k < windows; k++) muca_window_weights(m, k, s.ln_g + (size_t)k * bins, scratch + (size_t)k * bins);
        status = muca_set_all_weights(m, scratch);
    }
    m->save_phase = save_wang_landau;
    m->phase_state = &s;
    for (bool all_done = false; status == CLMC_OK && !all_done; s.iteration++) {
        if (s.iteration == max_iterations) {
            double ln_f = 0;
            for (unsigned k = 0; k < windows; k++) ln_f = fmax(ln_f, s.window[k].ln_f);
            status = clmc_fail(CLMC_ERR_OTHER, "ensemble.max_iterations: ln f = %g after %lld updates of ln g, "
                               "not yet below ensemble.final_ln_f = %g; raise ensemble.max_iterations",
                               ln_f, max_iterations, m->settings.final_ln_f);
            break;
        }
        memset(s.hist, 0, rows * bins * sizeof *s.hist);
        status = muca_sweep(m, batch, windows > 1 ? 2 : 1, s.hist);
        if (status != CLMC_OK) break;
        s.sweeps += (double)batch;
        if (windows == 1) /* the blocks' histograms, summed */
            for (size_t b = 1; b < m->blocks; b++)
                for (unsigned i = 0; i < bins; i++) s.hist[i] += s.hist[b * bins + i];
        update_windows(&s, s.sweeps, quiet);
        all_done = true;
        for (unsigned k = 0; k < windows; k++) all_done = all_done && s.window[k].done;
        for (unsigned k = 0; k < windows; k++) {
            for (unsigned i = 0; i < bins; i++) weights[i] = -s.ln_g[(size_t)k * bins + i];
            if (windows > 1) muca_window_weights(m, k, weights, scratch + (size_t)k * bins);
        }
        if (status == CLMC_OK)
            status = windows == 1 ? muca_set_weights(m, weights, scratch) : muca_set_all_weights(m, scratch);
        if (status == CLMC_OK && windows > 1 && !all_done) status = exchange_windows(&s);
    }
    m->save_phase = NULL;
    m->phase_state = NULL;
    if (status == CLMC_OK && windows > 1) {
        double *joined = s.stage; /* reused */
        status = join_windows(&s, joined, report);
        if (status == CLMC_OK && m->model.edges_unknown) { /* the production's weights of energies not seen */
            for (unsigned i = 0; i < bins; i++) {
                seen[i] = 0;
                for (unsigned k = 0; k < windows; k++) seen[i] |= s.seen[(size_t)k * bins + i];
            }
            muca_fill_unseen(joined, seen, bins);
        }
        for (unsigned i = 0; status == CLMC_OK && i < bins; i++) weights[i] = -joined[i];
        if (status == CLMC_OK) status = muca_set_weights(m, weights, scratch);
    }
    for (unsigned i = 0; status == CLMC_OK && i < bins; i++) {
        ln_g[i] = -weights[i];
        seen[i] = 0;
        for (unsigned k = 0; k < windows; k++) seen[i] |= s.seen[(size_t)k * bins + i];
    }
    if (status == CLMC_OK) {
        add_window_report(&s, s.sweeps, report);
        cJSON_AddNumberToObject(report, "ln_g_updates", (double)s.iteration);
    }
    free(s.ln_g);
    free(s.stage);
    free(s.hist);
    free(s.seen);
    free(s.window_of);
    free(s.energy);
    free(weights);
    free(scratch);
    return status;
}
