/* Checkpoints of multicanonical and Wang-Landau runs (density_walkers.h,
 * docs/checkpoints.md): the part every phase shares -- the settings the run
 * was started with, where it is, and the walkers on the device. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "density_walkers.h"

#define MUCA_BLOB_VERSION 1

enum { N_SETTINGS = 13 };

/* The preset keys a saved state depends on, in a fixed order. */
static void settings_of(const muca *m, const clmc_preset *preset, double *value, const char **key)
{
    const clmc_density_settings *d = &m->settings;
    const clmc_run_settings *run = clmc_preset_run(preset);
    double bounds = 0; /* the windows' bins, folded into one number */
    for (unsigned k = 0; k < m->windows; k++) bounds = bounds * 1.37 + m->window_lo[k] + 1e-3 * m->window_hi[k];
    const char *names[N_SETTINGS] = {"ensemble.type", "ensemble.windows", "ensemble.walkers_per_window",
                                     "ensemble.walkers", "ensemble.window_energies (or ensemble.overlap)",
                                     "ensemble.flatness", "ensemble.iteration_sweeps", "ensemble.max_iterations",
                                     "ensemble.final_ln_f", "ensemble.production", "run.seed",
                                     "run.thermalization and run.sweeps", "model (its energies and size)"};
    /* The walkers in all (ensemble.walkers is unused with windows, whose
     * walkers_per_window is compared first). */
    double values[N_SETTINGS] = {d->wang_landau, m->windows, m->windows > 1 ? m->walkers_per_window : 0, m->walkers,
                                 bounds,
                                 d->flatness, (double)d->iteration_sweeps, (double)d->max_iterations, d->final_ln_f,
                                 d->production, (double)run->seed,
                                 (double)run->thermalization * 0x1p32 + (double)run->sweeps,
                                 m->model.n_bins * 1e6 + m->model.e_min * 1e3 + m->model.sites + m->model.walker_bytes};
    memcpy(value, values, sizeof values);
    memcpy(key, names, sizeof names);
}

void muca_put_bytes(clmc_blob_writer *w, const void *bytes, size_t n)
{
    clmc_blob_put_u64(w, n); /* the length, then what clmc_blob_get_buffer reads: length and bytes */
    clmc_blob_put_u64(w, n);
    clmc_blob_put_bytes(w, bytes, n);
}

const unsigned char *muca_get_bytes(clmc_blob_reader *r, size_t n, const char *what)
{
    uint64_t stored = clmc_blob_get_u64(r, what);
    if (r->status == CLMC_OK && stored != n) {
        r->status = clmc_fail(CLMC_ERR_INPUT, "checkpoint: %s holds %llu bytes, the run has %zu", what,
                              (unsigned long long)stored, n);
        return NULL;
    }
    return clmc_blob_get_buffer(r, n, what);
}

clmc_status muca_save(const muca *m, unsigned char **blob, size_t *bytes)
{
    clmc_blob_writer w = {0};
    double settings[N_SETTINGS];
    const char *keys[N_SETTINGS];
    settings_of(m, m->preset, settings, keys);
    clmc_blob_put_u64(&w, MUCA_BLOB_VERSION);
    clmc_blob_put_doubles(&w, settings, N_SETTINGS);
    const uint64_t header[] = {m->phase, m->sweep, m->call_done, m->call_entries};
    for (size_t i = 0; i < sizeof header / sizeof header[0]; i++) clmc_blob_put_u64(&w, header[i]);
    clmc_blob_put_doubles(&w, &m->updates, 1);
    clmc_blob_put_doubles(&w, m->call_hist, m->call_entries);
    cl_mem buffers[] = {m->spins, m->energy, m->ln_w, m->window_of, m->window_bounds};
    for (size_t i = 0; i < sizeof buffers / sizeof buffers[0]; i++) clmc_blob_put_buffer(&w, m->rt, buffers[i]);
    if (m->save_phase) m->save_phase(m->phase_state, &w);
    return clmc_blob_finish(&w, blob, bytes);
}

clmc_status muca_restore(muca *m, const clmc_preset *preset, clmc_blob_reader *r)
{
    double settings[N_SETTINGS], saved[N_SETTINGS];
    const char *keys[N_SETTINGS];
    settings_of(m, preset, settings, keys);
    uint64_t version = clmc_blob_get_u64(r, "multicanonical state version");
    const unsigned char *stored = clmc_blob_get_doubles(r, N_SETTINGS, "multicanonical settings");
    if (r->status == CLMC_OK && version != MUCA_BLOB_VERSION)
        return clmc_fail(CLMC_ERR_INPUT, "checkpoint: multicanonical state of version %llu, not %d",
                         (unsigned long long)version, MUCA_BLOB_VERSION);
    CLMC_TRY(r->status);
    clmc_blob_copy_doubles(stored, saved, N_SETTINGS);
    for (int i = 0; i < N_SETTINGS; i++) {
        if (memcmp(&saved[i], &settings[i], sizeof saved[i]) == 0) continue;
        char now[40], then[40]; /* the shortest of 15 or 17 digits that shows the difference */
        snprintf(now, sizeof now, "%.15g", settings[i]);
        snprintf(then, sizeof then, "%.15g", saved[i]);
        if (strcmp(now, then) == 0) {
            snprintf(now, sizeof now, "%.17g", settings[i]);
            snprintf(then, sizeof then, "%.17g", saved[i]);
        }
        return clmc_fail(CLMC_ERR_INPUT, "checkpoint: %s differs between the preset (%s) and the state the run saved "
                         "(%s); a run resumes only with the preset it started with; refused", keys[i], now, then);
    }
    uint64_t phase = clmc_blob_get_u64(r, "phase"), sweep = clmc_blob_get_u64(r, "sweep");
    uint64_t call_done = clmc_blob_get_u64(r, "sweeps of the call"), entries = clmc_blob_get_u64(r, "entries");
    const unsigned char *updates = clmc_blob_get_doubles(r, 1, "updates");
    size_t rows = m->blocks > m->windows ? m->blocks : m->windows, most = rows * m->model.n_bins;
    if (r->status == CLMC_OK && (phase > MUCA_PRODUCTION || sweep >= UINT32_MAX || entries > most))
        return clmc_fail(CLMC_ERR_INPUT, "checkpoint: the multicanonical state (phase %llu, sweep %llu, %llu "
                         "histogram entries) does not fit the preset", (unsigned long long)phase,
                         (unsigned long long)sweep, (unsigned long long)entries);
    const unsigned char *hist = clmc_blob_get_doubles(r, r->status == CLMC_OK ? entries : 0, "histograms");
    size_t spin_bytes = (size_t)m->walkers * m->model.walker_bytes;
    size_t sizes[] = {spin_bytes, m->walkers * sizeof(cl_int), (size_t)m->windows * m->model.n_bins * sizeof(float),
                      m->walkers * sizeof(cl_uint), 2 * m->windows * sizeof(cl_uint)};
    const char *names[] = {"walkers", "energies", "weights", "walker windows", "window bounds"};
    cl_mem buffers[] = {m->spins, m->energy, m->ln_w, m->window_of, m->window_bounds};
    const unsigned char *contents[5];
    for (int i = 0; i < 5; i++) contents[i] = clmc_blob_get_buffer(r, sizes[i], names[i]);
    CLMC_TRY(r->status);
    for (unsigned w = 0; w < m->walkers; w++) { /* the kernels index with these */
        int32_t e = (int32_t)clmc_le_u32(contents[1] + 4 * (size_t)w);
        uint32_t window = clmc_le_u32(contents[3] + 4 * (size_t)w);
        int bin = (e - m->model.e_min) / m->model.e_step;
        if (e < m->model.e_min || (e - m->model.e_min) % m->model.e_step || bin >= (int)m->model.n_bins ||
            window >= m->windows)
            return clmc_fail(CLMC_ERR_INPUT, "checkpoint: walker %u has energy %d in window %u, outside the model's "
                             "energies or the windows", w, e, window);
    }
    for (unsigned i = 0; i < 2 * m->windows; i++)
        if (clmc_le_u32(contents[4] + 4 * (size_t)i) >= m->model.n_bins)
            return clmc_fail(CLMC_ERR_INPUT, "checkpoint: a window bound lies outside the model's energies");
    m->resume_hist = malloc((entries ? entries : 1) * sizeof *m->resume_hist);
    if (!m->resume_hist) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    clmc_blob_copy_doubles(hist, m->resume_hist, entries);
    for (uint64_t i = 0; i < entries; i++)
        if (!(m->resume_hist[i] >= 0) || m->resume_hist[i] != floor(m->resume_hist[i]))
            return clmc_fail(CLMC_ERR_INPUT, "checkpoint: histogram entry %llu is %g, not a count",
                             (unsigned long long)i, m->resume_hist[i]);
    for (int i = 0; i < 5; i++) CLMC_TRY(clmc_buffer_upload(m->rt, buffers[i], contents[i], sizes[i]));
    CLMC_TRY(muca_refresh_acceptance(m)); /* the sweeps read the weights through their table */
    clmc_blob_copy_doubles(updates, &m->updates, 1);
    m->phase = (unsigned)phase;
    m->sweep = (cl_uint)sweep;
    m->call_done = call_done;
    m->call_entries = (size_t)entries;
    m->resume_call = true;
    m->resume = r;
    return CLMC_OK;
}
