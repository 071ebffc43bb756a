/* The walkers of multicanonical and Wang-Landau runs on the device
 * (density_walkers.h): buffers, kernels, sweeps and weights. */
#include "density_walkers.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/defines.h"
#include "runtime/ranks.h"

/* Window k's bins from ensemble.window_energies, or from ensemble.windows
 * equal windows of which neighbours share the fraction ensemble.overlap. */
static clmc_status window_bins(muca *m)
{
    const clmc_density_settings *d = &m->settings;
    unsigned last = m->model.n_bins - 1;
    if (d->n_window_values > 0) {
        if (d->n_window_values % 2 || d->n_window_values > 2 * CLMC_DENSITY_MAX_WINDOWS)
            return clmc_fail(CLMC_ERR_INPUT, "ensemble.window_energies: pairs lo, hi of at most %d windows; got %u "
                             "values", CLMC_DENSITY_MAX_WINDOWS, d->n_window_values);
        m->windows = d->n_window_values / 2;
        for (unsigned k = 0; k < m->windows; k++) {
            double lo = (d->window_energies[2 * k] - m->model.e_min) / m->model.e_step;
            double hi = (d->window_energies[2 * k + 1] - m->model.e_min) / m->model.e_step;
            if (!(hi > lo))
                return clmc_fail(CLMC_ERR_INPUT, "ensemble.window_energies: window %u: lo %g must lie below hi %g", k,
                                 d->window_energies[2 * k], d->window_energies[2 * k + 1]);
            m->window_lo[k] = lo <= 0 ? 0 : lo >= last ? last : (unsigned)ceil(lo);
            m->window_hi[k] = hi <= 0 ? 0 : hi >= last ? last : (unsigned)floor(hi);
        }
    } else {
        m->windows = d->windows;
        if (m->windows > 1 && !(d->overlap > 0 && d->overlap < 1))
            return clmc_fail(CLMC_ERR_INPUT, "ensemble.overlap: windows must overlap: a fraction strictly between 0 "
                             "and 1, got %g", d->overlap);
        double width = m->model.n_bins / (m->windows - (m->windows - 1) * d->overlap);
        for (unsigned k = 0; k < m->windows; k++) {
            m->window_lo[k] = (unsigned)floor(k * width * (1 - d->overlap));
            m->window_hi[k] = k + 1 == m->windows ? last : (unsigned)ceil(k * width * (1 - d->overlap) + width) - 1;
        }
    }
    const char *key = d->n_window_values > 0 ? "ensemble.window_energies" : "ensemble.windows";
    if (m->window_lo[0] > 0 || m->window_hi[m->windows - 1] < last)
        return clmc_fail(CLMC_ERR_INPUT, "%s: the windows cover energies %d .. %d, not all of the model's %d .. %d",
                         key, m->model.e_min + m->model.e_step * (int)m->window_lo[0],
                         m->model.e_min + m->model.e_step * (int)m->window_hi[m->windows - 1], m->model.e_min,
                         m->model.e_min + m->model.e_step * (int)last);
    for (unsigned k = 1; k < m->windows; k++)
        if (m->window_lo[k] <= m->window_lo[k - 1] || m->window_hi[k] <= m->window_hi[k - 1] ||
            m->window_lo[k] + 2 > m->window_hi[k - 1])
            return clmc_fail(CLMC_ERR_INPUT, "%s: windows %u (energies %d .. %d) and %u (%d .. %d) must increase and "
                             "share at least 3 energy bins", key, k - 1,
                             m->model.e_min + m->model.e_step * (int)m->window_lo[k - 1],
                             m->model.e_min + m->model.e_step * (int)m->window_hi[k - 1], k,
                             m->model.e_min + m->model.e_step * (int)m->window_lo[k],
                             m->model.e_min + m->model.e_step * (int)m->window_hi[k]);
    return CLMC_OK;
}

/* Whether a work-group of `group` walkers counts in a histogram in local
 * memory: groups of fewer than 64 walkers (runs of fewer than 2048 walkers:
 * few groups resident) where it takes at most 1/4 of the local memory;
 * others where it takes at most 1/2 of it and (below 256 walkers, the
 * largest groups) at most 1/24 of it per 64 walkers.  Larger shares fill
 * the shared memory an SM splits with its L1 cache, so that the acceptance
 * table no longer stays in L1 (H100, 48 KiB, 2D Ising, 2026-11-27, 540,672
 * walkers: L = 48, 9 KiB per 64 walkers, 10.3 ps per update against 3.22
 * with groups of 128 where the walkers took 48 registers; L = 50, 10 KiB per
 * 64, 10.3 against 3.26 with 128; L = 64, 16 KiB per 64, 10.5 against 2.90
 * with 256).  Smaller shares still gain a little: 1/12 rather than 1/6 took
 * L = 40 from 2.99 to 2.95 and L = 56 from 2.99 to 2.96, 1/24 rather than
 * 1/12 L = 42 from 3.03 to 2.96, L = 40 from 2.90 to 2.88 and L = 32 from
 * 2.72 to 2.70 (L = 24 2.82 both). */
static bool histogram_local(const muca *m, size_t group)
{
    size_t local = m->local_memory ? m->local_memory : clmc_runtime_device(m->rt)->local_mem_bytes;
    size_t bytes = m->model.n_bins * sizeof(cl_uint);
    if (group < 64) return bytes <= local / 4;
    return bytes <= local / 2 && (group >= 256 || bytes * 24 * 64 <= local * group);
}

/* Walkers per work-group: a power of two up to 64, or up to 128 or 256
 * where that lets the group histogram into local memory (histogram_local:
 * 2D Ising L = 24 ... 31 and 32 ... 78 on 48 KiB); every jackknife block
 * keeps at least one group.  (H100, L = 64: 3.19 ps per update with groups
 * of 64 and the histogram in global memory, 2.90 with 256 and local
 * histograms; the weights in 14.1 s against 25.8.) */
static size_t group_limit(const muca *m)
{
    size_t limit = 64;
    while (limit < 256 && !histogram_local(m, limit)) limit *= 2;
    if (!histogram_local(m, limit)) limit = 64;
    size_t device = clmc_runtime_device(m->rt)->max_work_group_size;
    return limit < device ? limit : device;
}

clmc_status muca_layout(muca *m)
{
    if (m->model.max_bin_step == 0)
        return clmc_fail(CLMC_ERR_OTHER, "%s: the model's density walkers give no max_bin_step", m->model.program);
    m->windows = 1;
    m->window_lo[0] = 0;
    m->window_hi[0] = m->model.n_bins - 1;
    m->walkers = m->settings.walkers;
    if (m->settings.wang_landau) CLMC_TRY(window_bins(m));
    if (m->windows > 1) {
        if ((unsigned long long)m->windows * m->settings.walkers_per_window > 16777216)
            return clmc_fail(CLMC_ERR_INPUT, "ensemble.walkers_per_window: %u windows x %u walkers pass 2^24",
                             m->windows, m->settings.walkers_per_window);
        m->walkers = m->windows * m->settings.walkers_per_window;
    }
    m->walkers_per_window = m->walkers / m->windows;
    m->blocks = m->walkers < MAX_BLOCKS ? m->walkers : MAX_BLOCKS;
    m->group = 1;
    size_t limit = group_limit(m);
    while (m->group * 2 <= limit && m->group * 2 * m->blocks <= m->walkers) m->group *= 2;
    return muca_share(m);
}

clmc_status muca_share(muca *m)
{
    size_t groups = (m->walkers + m->group - 1) / m->group;
    unsigned ranks = (unsigned)clmc_ranks()->size, rank = (unsigned)clmc_ranks()->rank;
    if (groups < ranks)
        return clmc_fail(CLMC_ERR_INPUT, "%s: %u walkers run in %zu work-groups of %zu, fewer than the %u MPI ranks "
                         "(each rank runs at least one work-group); raise it or use fewer ranks",
                         m->windows > 1 ? "ensemble.walkers_per_window" : "ensemble.walkers", m->walkers, groups,
                         m->group, ranks);
    m->first_group = groups * rank / ranks;
    m->rank_groups = groups * (rank + 1) / ranks - m->first_group;
    return CLMC_OK;
}

clmc_status muca_read_energies(muca *m, cl_int *energy)
{
    CLMC_CL_TRY(clEnqueueReadBuffer(clmc_runtime_queue(m->rt), m->energy, CL_TRUE, 0, m->walkers * sizeof(cl_int),
                                    energy, 0, NULL, NULL));
    if (!clmc_ranks_many()) return CLMC_OK;
    size_t first = m->first_group * m->group, end = (m->first_group + m->rank_groups) * m->group;
    long long *all = malloc(m->walkers * sizeof *all);
    if (!all) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    for (size_t w = 0; w < m->walkers; w++) all[w] = w >= first && w < end ? energy[w] : 0;
    clmc_ranks_sum_int64(all, (int)m->walkers);
    for (size_t w = 0; w < m->walkers; w++) energy[w] = (cl_int)all[w];
    free(all);
    return CLMC_OK;
}

clmc_status muca_cl_status(cl_int err, const char *what)
{
    return err == CL_SUCCESS ? CLMC_OK : clmc_fail(CLMC_ERR_DEVICE, "%s failed: %s", what, clmc_cl_error_name(err));
}


/* The walkers' configurations must fit one buffer and half the device. */
clmc_status muca_check(const muca *m)
{
    const char *key = m->windows > 1 ? "ensemble.walkers_per_window" : "ensemble.walkers";
    if (m->blocks < 2) return clmc_fail(CLMC_ERR_INPUT, "%s: at least 2 walkers (jackknife blocks)", key);
    double spin_bytes = (double)m->walkers * (double)m->model.walker_bytes;
    const clmc_device_info *device = clmc_runtime_device(m->rt);
    if (spin_bytes > (double)device->max_alloc_bytes || spin_bytes > (double)device->global_mem_bytes / 2)
        return clmc_fail(CLMC_ERR_INPUT, "%s: %u walkers need %.0f bytes of configurations; the device "
                         "has %llu in one buffer and %llu in all (half its memory is the limit)", key, m->walkers, spin_bytes,
                         (unsigned long long)device->max_alloc_bytes,
                         (unsigned long long)device->global_mem_bytes);
    return CLMC_OK;
}

/* Entries of the acceptance table: windows x bins x (2 max_bin_step + 1). */
static size_t table_entries(const muca *m)
{
    return (size_t)m->windows * m->model.n_bins * (2 * m->model.max_bin_step + 1);
}

/* The walkers' program (the model's file with muca_walkers.h) for
 * `windows` energy windows. */
static clmc_status build_walkers(muca *m, unsigned windows, cl_program *program)
{
    clmc_defines options = {0};
    clmc_defines_text(&options, m->model.defines);
    clmc_defines_int(&options, "N_WALKERS", m->walkers);
    clmc_defines_int(&options, "BLOCKS", m->blocks);
    clmc_defines_int(&options, "GROUP", (long long)m->group);
    clmc_defines_int(&options, "WINDOWS", windows);
    clmc_defines_int(&options, "MAX_BIN_STEP", m->model.max_bin_step);
    /* Per-group histograms in local memory where histogram_local allows;
     * otherwise the runs go to the global histogram (and always the
     * Wang-Landau phase's, record 2: ensembles/muca_walkers.h).  The same
     * counts either way. */
    if (!m->global_histogram && histogram_local(m, m->group))
        clmc_defines_flag(&options, "LOCAL_HISTOGRAM");
    clmc_defines_int(&options, "N_BINS", m->model.n_bins);
    clmc_defines_int(&options, "E_MIN", m->model.e_min);
    clmc_defines_int(&options, "E_STEP", m->model.e_step);
    return clmc_defines_build(m->rt, m->model.program, &options, program);
}

/* The arguments of a muca_sweeps kernel that stay for the run. */
static clmc_status set_sweeps_arguments(muca *m, cl_kernel sweeps)
{
    CLMC_CL_TRY(clSetKernelArg(sweeps, 0, sizeof(cl_mem), &m->spins));
    CLMC_CL_TRY(clSetKernelArg(sweeps, 1, sizeof(cl_mem), &m->energy));
    CLMC_CL_TRY(clSetKernelArg(sweeps, 2, sizeof(cl_mem), &m->acceptance));
    CLMC_CL_TRY(clSetKernelArg(sweeps, 3, sizeof(cl_mem), &m->histogram));
    CLMC_CL_TRY(clSetKernelArg(sweeps, 7, sizeof(cl_uint), &m->seed_lo));
    CLMC_CL_TRY(clSetKernelArg(sweeps, 8, sizeof(cl_uint), &m->seed_hi));
    CLMC_CL_TRY(clSetKernelArg(sweeps, 9, sizeof(cl_mem), &m->window_of));
    CLMC_CL_TRY(clSetKernelArg(sweeps, 10, sizeof(cl_mem), &m->window_bounds));
    CLMC_CL_TRY(clSetKernelArg(sweeps, 11, sizeof(cl_mem), &m->model.data));
    return CLMC_OK;
}

clmc_status muca_open(muca *m, const clmc_preset *preset)
{
    size_t spin_bytes = (size_t)m->walkers * m->model.walker_bytes;
    size_t rows = m->blocks > m->windows ? m->blocks : m->windows;
    size_t histogram_bytes = rows * m->model.n_bins * sizeof(cl_uint);
    uint64_t seed = clmc_preset_run(preset)->seed;
    m->seed_lo = (cl_uint)seed;
    m->seed_hi = (cl_uint)(seed >> 32);
    CLMC_TRY(build_walkers(m, m->windows, &m->program));
    CLMC_TRY(clmc_kernel_create(m->program, "muca_init", &m->init));
    CLMC_TRY(clmc_kernel_create(m->program, "muca_sweeps", &m->sweeps));
    CLMC_TRY(clmc_kernel_create(m->program, "muca_acceptance", &m->accept));
    /* With windows, the launches that keep no walker in its window (records
     * 0 and 1: thermalization and production, every window the same
     * weights) run the program of one window: the same decisions and counts
     * without the window code (H100, L = 16: 3.40 against 2.87 ps per
     * update). */
    if (m->windows > 1) {
        CLMC_TRY(build_walkers(m, 1, &m->free_program));
        CLMC_TRY(clmc_kernel_create(m->free_program, "muca_sweeps", &m->free_sweeps));
    }
    m->counts = calloc(rows * m->model.n_bins, sizeof *m->counts);
    if (!m->counts) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    clmc_status status = clmc_buffer_create(m->rt, spin_bytes, NULL, "multicanonical walkers", &m->spins);
    if (status == CLMC_OK)
        status = clmc_buffer_create(m->rt, m->walkers * sizeof(cl_int), NULL, "multicanonical energies", &m->energy);
    if (status == CLMC_OK)
        status = clmc_buffer_create(m->rt, (size_t)m->windows * m->model.n_bins * sizeof(float), NULL,
                                    "multicanonical weights", &m->ln_w);
    if (status == CLMC_OK)
        status = clmc_buffer_create(m->rt, (size_t)m->windows * m->model.n_bins * (2 * m->model.max_bin_step + 1) *
                                               sizeof(cl_uint), NULL, "multicanonical acceptance", &m->acceptance);
    if (status == CLMC_OK)
        status = clmc_buffer_create(m->rt, histogram_bytes, NULL, "multicanonical histogram", &m->histogram);
    if (status == CLMC_OK)
        status = clmc_buffer_create(m->rt, m->walkers * sizeof(cl_uint), NULL, "walker windows", &m->window_of);
    if (status == CLMC_OK)
        status = clmc_buffer_create(m->rt, 2 * m->windows * sizeof(cl_uint), NULL, "window bounds",
                                    &m->window_bounds);
    CLMC_TRY(status);
    CLMC_CL_TRY(clSetKernelArg(m->init, 0, sizeof(cl_mem), &m->spins));
    CLMC_CL_TRY(clSetKernelArg(m->init, 1, sizeof(cl_mem), &m->energy));
    CLMC_CL_TRY(clSetKernelArg(m->init, 2, sizeof(cl_uint), &m->seed_lo));
    CLMC_CL_TRY(clSetKernelArg(m->init, 3, sizeof(cl_uint), &m->seed_hi));
    CLMC_CL_TRY(clSetKernelArg(m->init, 4, sizeof(cl_mem), &m->model.data));
    CLMC_TRY(set_sweeps_arguments(m, m->sweeps));
    if (m->free_sweeps) CLMC_TRY(set_sweeps_arguments(m, m->free_sweeps));
    CLMC_CL_TRY(clSetKernelArg(m->accept, 0, sizeof(cl_mem), &m->ln_w));
    CLMC_CL_TRY(clSetKernelArg(m->accept, 1, sizeof(cl_mem), &m->acceptance));
    return muca_start(m, 0);
}

clmc_status muca_start(muca *m, unsigned unit)
{
    float *zeros = calloc((size_t)m->windows * m->model.n_bins, sizeof *zeros);
    cl_uint *window_of = malloc(m->walkers * sizeof *window_of), bounds[2 * CLMC_DENSITY_MAX_WINDOWS];
    if (!zeros || !window_of) {
        free(zeros);
        free(window_of);
        return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    }
    for (unsigned w = 0; w < m->walkers; w++) window_of[w] = w / m->walkers_per_window;
    for (unsigned k = 0; k < m->windows; k++) bounds[2 * k] = m->window_lo[k], bounds[2 * k + 1] = m->window_hi[k];
    cl_command_queue queue = clmc_runtime_queue(m->rt);
    clmc_status status = muca_set_all_weights(m, zeros);
    if (status == CLMC_OK)
        status = muca_cl_status(clEnqueueWriteBuffer(queue, m->window_of, CL_TRUE, 0, m->walkers * sizeof(cl_uint),
                                                     window_of, 0, NULL, NULL),
                                "walker windows");
    if (status == CLMC_OK)
        status = muca_cl_status(clEnqueueWriteBuffer(queue, m->window_bounds, CL_TRUE, 0,
                                                     2 * m->windows * sizeof(cl_uint), bounds, 0, NULL, NULL),
                                "window bounds");
    free(zeros);
    free(window_of);
    CLMC_TRY(status);
    m->unit = unit;
    m->sweep = 0;
    cl_uint unit_arg = unit;
    CLMC_CL_TRY(clSetKernelArg(m->init, 5, sizeof(cl_uint), &unit_arg));
    CLMC_CL_TRY(clSetKernelArg(m->sweeps, 12, sizeof(cl_uint), &unit_arg));
    if (m->free_sweeps) CLMC_CL_TRY(clSetKernelArg(m->free_sweeps, 12, sizeof(cl_uint), &unit_arg));
    return clmc_enqueue_items(m->rt, m->init, m->walkers, CLMC_UNTIMED);
}

void muca_close(muca *m)
{
    if (m->init) clReleaseKernel(m->init);
    if (m->sweeps) clReleaseKernel(m->sweeps);
    if (m->free_sweeps) clReleaseKernel(m->free_sweeps);
    if (m->free_program) clReleaseProgram(m->free_program);
    if (m->accept) clReleaseKernel(m->accept);
    if (m->program) clReleaseProgram(m->program);
    cl_mem buffers[] = {m->spins, m->energy, m->ln_w, m->acceptance, m->histogram, m->window_of, m->window_bounds};
    for (size_t i = 0; i < sizeof buffers / sizeof buffers[0]; i++)
        if (buffers[i]) clReleaseMemObject(buffers[i]);
    free(m->counts);
    free(m->resume_hist);
}

/* hist += the counts of this launch, summed over the MPI ranks (exactly:
 * integers).  A rank's work-groups count in block (its group number) %
 * BLOCKS; their block in the run is (first_group + that group) % BLOCKS. */
static clmc_status add_counts(muca *m, cl_uint record, double *hist)
{
    unsigned bins = m->model.n_bins, rows = record == 2 ? m->windows : m->blocks;
    size_t entries = (size_t)rows * bins, shift = record == 2 ? 0 : m->first_group % m->blocks;
    long long *sums = malloc(entries * sizeof *sums);
    if (!sums) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    for (unsigned row = 0; row < rows; row++)
        for (unsigned i = 0; i < bins; i++)
            sums[((row + shift) % rows) * bins + i] = m->counts[(size_t)row * bins + i];
    clmc_ranks_sum_int64(sums, (int)entries);
    for (size_t i = 0; i < entries; i++) hist[i] += (double)sums[i];
    free(sums);
    return CLMC_OK;
}

/* `sweeps` sweeps of every walker; with `record`, the block (record 1) or
 * window (record 2) histograms (cleared first) are added to hist [row][bin].
 * Launches are cut so that no 32-bit count can overflow. */
clmc_status muca_sweep(muca *m, uint64_t sweeps, cl_uint record, double *hist)
{
    size_t entries = (size_t)(record == 2 ? m->windows : m->blocks) * m->model.n_bins;
    size_t groups = (m->walkers + m->group - 1) / m->group, global = m->rank_groups * m->group;
    size_t offset = m->first_group * m->group;
    double per_sweep = ceil((double)groups / m->blocks) * (double)m->group * m->model.sites;
    /* No 32-bit count overflows; at most 256 sweeps between polls of the signals. */
    uint64_t chunk = (uint64_t)fmax(1, fmin(256, floor(2e9 / per_sweep)));
    cl_command_queue queue = clmc_runtime_queue(m->rt);
    cl_kernel kernel = record != 2 && m->free_sweeps ? m->free_sweeps : m->sweeps;
    uint64_t done = 0;
    bool continued = m->resume_call; /* the call a checkpoint was taken in */
    if (continued) {
        m->resume_call = false;
        if (m->call_entries != (record ? entries : 0) || m->call_done >= sweeps)
            return clmc_fail(CLMC_ERR_INPUT, "checkpoint: its multicanonical state stopped at sweep %llu of %llu with "
                             "%zu histogram entries; the run there has %zu: it does not fit the preset",
                             (unsigned long long)m->call_done, (unsigned long long)sweeps, m->call_entries,
                             record ? entries : 0);
        if (record) memcpy(hist, m->resume_hist, entries * sizeof *hist);
        done = m->call_done;
    }
    m->call_hist = record ? hist : NULL;
    m->call_entries = record ? entries : 0;
    for (; done < sweeps;) {
        m->call_done = done;
        if (m->between && !continued) CLMC_TRY(m->between(m->between_context, m->sweep));
        continued = false;
        cl_uint n = (cl_uint)(sweeps - done < chunk ? sweeps - done : chunk);
        if ((uint64_t)m->sweep + n >= UINT32_MAX)
            return clmc_fail(CLMC_ERR_INPUT, "run.sweeps: a walker's sweeps pass the 2^32 of its random stream");
        if (record) {
            cl_uint zero = 0;
            CLMC_CL_TRY(clEnqueueFillBuffer(queue, m->histogram, &zero, sizeof zero, 0, entries * sizeof zero, 0,
                                            NULL, NULL));
        }
        CLMC_CL_TRY(clSetKernelArg(kernel, 4, sizeof(cl_uint), &m->sweep));
        CLMC_CL_TRY(clSetKernelArg(kernel, 5, sizeof(cl_uint), &n));
        CLMC_CL_TRY(clSetKernelArg(kernel, 6, sizeof(cl_uint), &record));
        CLMC_TRY(clmc_enqueue_offset(m->rt, kernel, 1, &offset, &global, &m->group, CLMC_TIMED));
        if (record) {
            CLMC_CL_TRY(clEnqueueReadBuffer(queue, m->histogram, CL_TRUE, 0, entries * sizeof(cl_uint), m->counts, 0,
                                            NULL, NULL));
            CLMC_TRY(add_counts(m, record, hist));
        }
        m->sweep += n;
        done += n;
        m->updates += (double)n * m->walkers * m->model.sites;
    }
    m->call_hist = NULL;
    m->call_entries = 0;
    m->call_done = 0;
    return CLMC_OK;
}

clmc_status muca_set_weights(muca *m, const double *ln_w, float *scratch)
{
    double top = -INFINITY;
    for (unsigned i = 0; i < m->model.n_bins; i++) top = fmax(top, ln_w[i]);
    for (unsigned i = 0; i < m->model.n_bins; i++) scratch[i] = (float)(ln_w[i] - top);
    for (unsigned k = 1; k < m->windows; k++)
        memcpy(scratch + (size_t)k * m->model.n_bins, scratch, m->model.n_bins * sizeof *scratch);
    CLMC_TRY(muca_set_all_weights(m, scratch));
    if (m->windows == 1) return CLMC_OK;
    cl_uint open[2 * CLMC_DENSITY_MAX_WINDOWS];
    for (unsigned k = 0; k < m->windows; k++) open[2 * k] = 0, open[2 * k + 1] = m->model.n_bins - 1;
    return muca_cl_status(clEnqueueWriteBuffer(clmc_runtime_queue(m->rt), m->window_bounds, CL_TRUE, 0,
                                               2 * m->windows * sizeof(cl_uint), open, 0, NULL, NULL),
                          "window bounds");
}

/* Outside the window the weights fall per bin away from it by 1 + the
 * steepest rise of ln g (= -ln W) outwards within the window's last few
 * bins, at least by 2, so that a walker outside drifts in against the
 * entropy. */
void muca_window_weights(const muca *m, unsigned k, const double *ln_w, float *scratch)
{
    unsigned lo = m->window_lo[k], hi = m->window_hi[k], reach = 4;
    double top = -INFINITY, rise_low = 0, rise_high = 0;
    for (unsigned i = lo; i <= hi; i++) top = fmax(top, ln_w[i]);
    for (unsigned i = lo; i < hi && i < lo + reach; i++) rise_low = fmax(rise_low, ln_w[i + 1] - ln_w[i]);
    for (unsigned i = hi; i > lo && i + reach > hi; i--) rise_high = fmax(rise_high, ln_w[i - 1] - ln_w[i]);
    rise_low = fmax(1, rise_low);
    rise_high = fmax(1, rise_high);
    for (unsigned i = 0; i < m->model.n_bins; i++)
        scratch[i] = (float)(i < lo   ? ln_w[lo] - top - (1 + rise_low) * (lo - i)
                             : i > hi ? ln_w[hi] - top - (1 + rise_high) * (i - hi)
                                      : ln_w[i] - top);
}

clmc_status muca_set_all_weights(muca *m, const float *values)
{
    CLMC_TRY(muca_cl_status(clEnqueueWriteBuffer(clmc_runtime_queue(m->rt), m->ln_w, CL_TRUE, 0,
                                                 (size_t)m->windows * m->model.n_bins * sizeof(float), values, 0,
                                                 NULL, NULL),
                            "multicanonical weights"));
    return muca_refresh_acceptance(m);
}

clmc_status muca_refresh_acceptance(muca *m)
{
    return clmc_enqueue_items(m->rt, m->accept, table_entries(m), CLMC_UNTIMED);
}

void muca_fill_unseen(double *values, const unsigned char *seen, unsigned n)
{
    unsigned first = 0;
    while (first < n && !seen[first]) first++;
    if (first == n) return;
    for (unsigned i = 0; i < first; i++) values[i] = values[first];
    for (unsigned i = first + 1; i < n; i++)
        if (!seen[i]) values[i] = values[i - 1];
}
