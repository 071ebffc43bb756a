/* The walkers of multicanonical and Wang-Landau runs on the device
 * (density_walkers.h): buffers, kernels, sweeps and weights. */
#include "density_walkers.h"

#include <math.h>
#include <stdlib.h>

#include "runtime/defines.h"

void muca_layout(muca *m)
{
    m->blocks = m->walkers < MAX_BLOCKS ? m->walkers : MAX_BLOCKS;
    m->group = 1;
    while (m->group * 2 <= 64 && m->group * 2 * m->blocks <= m->walkers) m->group *= 2;
}

clmc_status muca_cl_status(cl_int err, const char *what)
{
    return err == CL_SUCCESS ? CLMC_OK : clmc_fail(CLMC_ERR_DEVICE, "%s failed: %s", what, clmc_cl_error_name(err));
}


/* The walkers' configurations must fit one buffer and half the device. */
clmc_status muca_check(const muca *m)
{
    if (m->blocks < 2) return clmc_fail(CLMC_ERR_INPUT, "ensemble.walkers: at least 2 walkers (jackknife blocks)");
    double spin_bytes = (double)m->walkers * (double)m->model.walker_bytes;
    const clmc_device_info *device = clmc_runtime_device(m->rt);
    if (spin_bytes > (double)device->max_alloc_bytes || spin_bytes > (double)device->global_mem_bytes / 2)
        return clmc_fail(CLMC_ERR_INPUT, "ensemble.walkers: %u walkers need %.0f bytes of configurations; the device "
                         "has %llu in one buffer and %llu in all (half its memory is the limit)", m->walkers, spin_bytes,
                         (unsigned long long)device->max_alloc_bytes,
                         (unsigned long long)device->global_mem_bytes);
    return CLMC_OK;
}

clmc_status muca_open(muca *m, const clmc_preset *preset)
{
    size_t spin_bytes = (size_t)m->walkers * m->model.walker_bytes;
    size_t histogram_bytes = (size_t)m->blocks * m->model.n_bins * sizeof(cl_uint);
    uint64_t seed = clmc_preset_run(preset)->seed;
    m->seed_lo = (cl_uint)seed;
    m->seed_hi = (cl_uint)(seed >> 32);
    clmc_defines options = {0};
    clmc_defines_text(&options, m->model.defines);
    clmc_defines_int(&options, "N_WALKERS", m->walkers);
    clmc_defines_int(&options, "BLOCKS", m->blocks);
    clmc_defines_int(&options, "GROUP", (long long)m->group);
    /* Per-group histograms and a copy of the weights in local memory where
     * both fit in 3/4 of it (2D Ising up to L = 64 on 48 KiB); the same
     * counts either way. */
    if (m->model.n_bins * (sizeof(cl_uint) + sizeof(float)) <= clmc_runtime_device(m->rt)->local_mem_bytes / 4 * 3)
        clmc_defines_flag(&options, "LOCAL_HISTOGRAM");
    clmc_defines_int(&options, "N_BINS", m->model.n_bins);
    clmc_defines_int(&options, "E_MIN", m->model.e_min);
    clmc_defines_int(&options, "E_STEP", m->model.e_step);
    CLMC_TRY(clmc_defines_build(m->rt, m->model.program, &options, &m->program));
    CLMC_TRY(clmc_kernel_create(m->program, "muca_init", &m->init));
    CLMC_TRY(clmc_kernel_create(m->program, "muca_sweeps", &m->sweeps));
    float *zeros = calloc(m->model.n_bins, sizeof *zeros);
    m->counts = calloc((size_t)m->blocks * m->model.n_bins, sizeof *m->counts);
    if (!zeros || !m->counts) {
        free(zeros);
        return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    }
    clmc_status status = clmc_buffer_create(m->rt, spin_bytes, NULL, "multicanonical walkers", &m->spins);
    if (status == CLMC_OK)
        status = clmc_buffer_create(m->rt, m->walkers * sizeof(cl_int), NULL, "multicanonical energies", &m->energy);
    if (status == CLMC_OK)
        status = clmc_buffer_create(m->rt, m->model.n_bins * sizeof(float), zeros, "multicanonical weights", &m->ln_w);
    if (status == CLMC_OK)
        status = clmc_buffer_create(m->rt, histogram_bytes, NULL, "multicanonical histogram", &m->histogram);
    free(zeros);
    CLMC_TRY(status);
    CLMC_CL_TRY(clSetKernelArg(m->init, 0, sizeof(cl_mem), &m->spins));
    CLMC_CL_TRY(clSetKernelArg(m->init, 1, sizeof(cl_mem), &m->energy));
    CLMC_CL_TRY(clSetKernelArg(m->init, 2, sizeof(cl_uint), &m->seed_lo));
    CLMC_CL_TRY(clSetKernelArg(m->init, 3, sizeof(cl_uint), &m->seed_hi));
    CLMC_CL_TRY(clSetKernelArg(m->sweeps, 0, sizeof(cl_mem), &m->spins));
    CLMC_CL_TRY(clSetKernelArg(m->sweeps, 1, sizeof(cl_mem), &m->energy));
    CLMC_CL_TRY(clSetKernelArg(m->sweeps, 2, sizeof(cl_mem), &m->ln_w));
    CLMC_CL_TRY(clSetKernelArg(m->sweeps, 3, sizeof(cl_mem), &m->histogram));
    CLMC_CL_TRY(clSetKernelArg(m->sweeps, 7, sizeof(cl_uint), &m->seed_lo));
    CLMC_CL_TRY(clSetKernelArg(m->sweeps, 8, sizeof(cl_uint), &m->seed_hi));
    return clmc_enqueue_items(m->rt, m->init, m->walkers, CLMC_UNTIMED);
}

void muca_close(muca *m)
{
    if (m->init) clReleaseKernel(m->init);
    if (m->sweeps) clReleaseKernel(m->sweeps);
    if (m->program) clReleaseProgram(m->program);
    cl_mem buffers[] = {m->spins, m->energy, m->ln_w, m->histogram};
    for (size_t i = 0; i < sizeof buffers / sizeof buffers[0]; i++)
        if (buffers[i]) clReleaseMemObject(buffers[i]);
    free(m->counts);
}

/* `sweeps` sweeps of every walker; with `record`, the block histograms
 * (cleared first) are added to hist [block][bin].  Launches are cut so that
 * no 32-bit count can overflow. */
clmc_status muca_sweep(muca *m, uint64_t sweeps, cl_uint record, double *hist)
{
    size_t entries = (size_t)m->blocks * m->model.n_bins;
    size_t groups = (m->walkers + m->group - 1) / m->group, global = groups * m->group;
    double per_sweep = ceil((double)groups / m->blocks) * (double)m->group * m->model.sites;
    /* No 32-bit count overflows; at most 256 sweeps between polls of the signals. */
    uint64_t chunk = (uint64_t)fmax(1, fmin(256, floor(2e9 / per_sweep)));
    cl_command_queue queue = clmc_runtime_queue(m->rt);
    for (uint64_t done = 0; done < sweeps;) {
        int signal_number = m->interrupt_signal ? m->interrupt_signal() : 0;
        if (signal_number)
            return clmc_fail(CLMC_ERR_OTHER, "interrupted by signal %d; multicanonical and Wang-Landau runs write no "
                             "checkpoint yet", signal_number);
        cl_uint n = (cl_uint)(sweeps - done < chunk ? sweeps - done : chunk);
        if ((uint64_t)m->sweep + n >= UINT32_MAX)
            return clmc_fail(CLMC_ERR_INPUT, "run.sweeps: a walker's sweeps pass the 2^32 of its random stream");
        if (record) {
            cl_uint zero = 0;
            CLMC_CL_TRY(clEnqueueFillBuffer(queue, m->histogram, &zero, sizeof zero, 0, entries * sizeof zero, 0,
                                            NULL, NULL));
        }
        CLMC_CL_TRY(clSetKernelArg(m->sweeps, 4, sizeof(cl_uint), &m->sweep));
        CLMC_CL_TRY(clSetKernelArg(m->sweeps, 5, sizeof(cl_uint), &n));
        CLMC_CL_TRY(clSetKernelArg(m->sweeps, 6, sizeof(cl_uint), &record));
        CLMC_TRY(clmc_enqueue(m->rt, m->sweeps, 1, &global, &m->group, CLMC_TIMED));
        if (record) {
            CLMC_CL_TRY(clEnqueueReadBuffer(queue, m->histogram, CL_TRUE, 0, entries * sizeof(cl_uint), m->counts, 0,
                                            NULL, NULL));
            for (size_t i = 0; i < entries; i++) hist[i] += m->counts[i];
        }
        m->sweep += n;
        done += n;
        m->updates += (double)n * m->walkers * m->model.sites;
    }
    return CLMC_OK;
}

clmc_status muca_set_weights(muca *m, const double *ln_w, float *scratch)
{
    double top = -INFINITY;
    for (unsigned i = 0; i < m->model.n_bins; i++) top = fmax(top, ln_w[i]);
    for (unsigned i = 0; i < m->model.n_bins; i++) scratch[i] = (float)(ln_w[i] - top);
    return muca_cl_status(clEnqueueWriteBuffer(clmc_runtime_queue(m->rt), m->ln_w, CL_TRUE, 0,
                                          m->model.n_bins * sizeof(float), scratch, 0, NULL, NULL),
                     "multicanonical weights");
}

