/* Parallel-tempering exchanges on the device: the exact integer thresholds
 * (tempering_table.c) and the maps live in device buffers; an exchange is
 * two launches of the ensemble's kernel and one of the model's, with nothing
 * read back, and decisions equal to the host path's bit for bit. */
#include "tempering_device.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/defines.h"
#include "tempering_table.h"

#define EXCHANGE_NUMBER_ARGUMENT 14 /* the last of TEMPERING_EXCHANGE_ARGUMENTS */
#define REACHES_ARGUMENT (EXCHANGE_NUMBER_ARGUMENT + 1) /* of a model exchange kernel with a reach pass */
#define REACH_EXCHANGE_ARGUMENT 8   /* the exchange number, the last of TEMPERING_REACH_ARGUMENTS */

static clmc_status device_buffer(clmc_tempering_device *d, size_t bytes, const void *host, cl_mem *out)
{
    return clmc_buffer_create(d->rt, bytes, host, "tempering", out);
}

static clmc_status zero_counters(clmc_tempering_device *d, const clmc_tempering *pt)
{
    cl_ulong zero = 0;
    cl_command_queue queue = clmc_runtime_queue(d->rt);
    size_t pairs = (size_t)pt->n_systems * (pt->n_temperatures - 1);
    CLMC_CL_TRY(clEnqueueFillBuffer(queue, d->accepted, &zero, sizeof zero, 0, pairs * sizeof zero, 0, NULL, NULL));
    CLMC_CL_TRY(clEnqueueFillBuffer(queue, d->trips, &zero, sizeof zero, 0, pt->n_systems * sizeof zero, 0, NULL, NULL));
    return CLMC_OK;
}

static clmc_status create_buffers(clmc_tempering_device *d, const clmc_tempering *pt, const clmc_tempering_table *table)
{
    size_t configs = pt->n_configs, pairs = (size_t)pt->n_systems * (pt->n_temperatures - 1);
    CLMC_TRY(device_buffer(d, configs * sizeof(cl_uint), NULL, &d->config_at));
    CLMC_TRY(device_buffer(d, configs * sizeof(cl_int), NULL, &d->heading));
    CLMC_TRY(device_buffer(d, configs * sizeof(cl_uint), NULL, &d->temperature_of));
    CLMC_TRY(device_buffer(d, table->offset[table->n_pairs] * sizeof(cl_ulong), table->threshold, &d->threshold));
    CLMC_TRY(device_buffer(d, (table->n_pairs + 1) * sizeof(cl_uint), table->offset, &d->offset));
    CLMC_TRY(device_buffer(d, table->n_pairs * sizeof(cl_float), table->reach_scale, &d->reach_scale));
    CLMC_TRY(device_buffer(d, pairs * sizeof(cl_ulong), NULL, &d->accepted));
    CLMC_TRY(device_buffer(d, pt->n_systems * sizeof(cl_ulong), NULL, &d->trips));
    CLMC_TRY(device_buffer(d, (size_t)d->n_slots * configs * sizeof(cl_uint), NULL, &d->noted));
    return zero_counters(d, pt);
}

/* The arguments of cl/ensembles/tempering_exchange.h's TEMPERING_EXCHANGE_ARGUMENTS
 * but the exchange number (set per launch), for `kernel`. */
static clmc_status set_arguments(clmc_tempering_device *d, const clmc_tempering *pt, cl_kernel kernel)
{
    cl_mem buffers[] = {d->config_at, d->heading, d->energies, d->threshold, d->offset, d->reach_scale,
                        d->accepted, d->trips, d->temperature_of};
    cl_uint arg = 0, systems = pt->n_systems;
    cl_int scale = d->energy_scale;
    for (size_t i = 0; i < sizeof buffers / sizeof *buffers; i++) {
        CLMC_CL_TRY(clSetKernelArg(kernel, arg++, sizeof(cl_mem), &buffers[i]));
        if (i == 2) CLMC_CL_TRY(clSetKernelArg(kernel, arg++, sizeof scale, &scale));
    }
    CLMC_CL_TRY(clSetKernelArg(kernel, arg++, sizeof systems, &systems));
    CLMC_CL_TRY(clSetKernelArg(kernel, arg++, sizeof pt->exchange_first, &pt->exchange_first));
    CLMC_CL_TRY(clSetKernelArg(kernel, arg++, sizeof pt->seed_lo, &pt->seed_lo));
    CLMC_CL_TRY(clSetKernelArg(kernel, arg++, sizeof pt->seed_hi, &pt->seed_hi));
    return CLMC_OK;
}

/* The model's reach pass: TEMPERING_REACH_ARGUMENTS (cl/ensembles/tempering_exchange.h)
 * from its reach_argument on, but the exchange number (set_next_exchange),
 * and the reaches for its exchange kernel. */
static clmc_status set_reach_arguments(clmc_tempering_device *d, const clmc_tempering *pt)
{
    const clmc_exchange_kernels *m = &d->model;
    size_t bytes = (size_t)pt->n_systems * (pt->n_temperatures - 1) * sizeof(cl_uint);
    CLMC_TRY(device_buffer(d, bytes, NULL, &d->reaches));
    cl_mem buffers[] = {d->threshold, d->offset, d->reach_scale, d->reaches};
    cl_uint arg = m->reach_argument, systems = pt->n_systems;
    for (size_t i = 0; i < sizeof buffers / sizeof *buffers; i++)
        CLMC_CL_TRY(clSetKernelArg(m->reach_pass, arg++, sizeof(cl_mem), &buffers[i]));
    CLMC_CL_TRY(clSetKernelArg(m->reach_pass, arg++, sizeof systems, &systems));
    CLMC_CL_TRY(clSetKernelArg(m->reach_pass, arg++, sizeof pt->exchange_first, &pt->exchange_first));
    CLMC_CL_TRY(clSetKernelArg(m->reach_pass, arg++, sizeof pt->seed_lo, &pt->seed_lo));
    CLMC_CL_TRY(clSetKernelArg(m->reach_pass, arg++, sizeof pt->seed_hi, &pt->seed_hi));
    CLMC_CL_TRY(clSetKernelArg(m->kernel, REACHES_ARGUMENT, sizeof(cl_mem), &d->reaches));
    return CLMC_OK;
}

/* The exchange the model's reach pass prepares: the next one. */
static clmc_status set_next_exchange(clmc_tempering_device *d, const clmc_tempering *pt)
{
    if (!d->model.reach_pass) return CLMC_OK;
    cl_ulong exchange = pt->exchanges;
    CLMC_CL_TRY(clSetKernelArg(d->model.reach_pass, d->model.reach_argument + REACH_EXCHANGE_ARGUMENT, sizeof exchange,
                               &exchange));
    return CLMC_OK;
}

clmc_status clmc_tempering_device_open(clmc_tempering_device *d, clmc_runtime *rt, const clmc_tempering *pt,
                                       const clmc_model_ops *ops, void *state, unsigned n_slots)
{
    memset(d, 0, sizeof *d);
    const clmc_ensemble_hooks *hooks = ops->ensemble;
    bool device_hooks = hooks && hooks->energies_device && hooks->set_temperatures_device;
    if (pt->n_temperatures < 2 || !device_hooks || pt->exchange_path == CLMC_EXCHANGES_HOST)
        return CLMC_OK;
    CLMC_TRY(hooks->energies_device(state, &d->energies, &d->energy_scale));
    clmc_tempering_table table;
    if (!d->energies || !clmc_tempering_table_build(&table, pt)) return CLMC_OK;
    d->rt = rt;
    d->n_slots = n_slots ? n_slots : 1;
    clmc_status status = create_buffers(d, pt, &table);
    clmc_tempering_table_free(&table);
    CLMC_TRY(status);
    clmc_defines options = {0};
    clmc_defines_text(&options, "-cl-std=CL1.2");
    clmc_defines_int(&options, "TEMPERATURES", pt->n_temperatures);
    CLMC_TRY(clmc_defines_build(rt, "ensembles/tempering.cl", &options, &d->program));
    CLMC_TRY(clmc_kernel_create(d->program, "tempering_exchange", &d->exchange));
    CLMC_TRY(set_arguments(d, pt, d->exchange));
    if (hooks->exchange_kernel && pt->exchange_path == CLMC_EXCHANGES_AUTO)
        CLMC_TRY(hooks->exchange_kernel(state, &d->model));
    if (d->model.kernel) CLMC_TRY(set_arguments(d, pt, d->model.kernel));
    if (d->model.kernel && d->model.reach_pass) CLMC_TRY(set_reach_arguments(d, pt));
    d->active = true;
    return clmc_tempering_device_upload(d, pt);
}

void clmc_tempering_device_close(clmc_tempering_device *d)
{
    cl_mem buffers[] = {d->config_at, d->heading, d->temperature_of, d->threshold, d->offset, d->reach_scale,
                        d->accepted, d->trips, d->noted, d->reaches};
    for (size_t i = 0; i < sizeof buffers / sizeof *buffers; i++)
        if (buffers[i]) CLMC_CL_WARN(clReleaseMemObject(buffers[i]));
    if (d->exchange) CLMC_CL_WARN(clReleaseKernel(d->exchange));
    if (d->program) CLMC_CL_WARN(clReleaseProgram(d->program));
    memset(d, 0, sizeof *d);
}

clmc_status clmc_tempering_device_upload(clmc_tempering_device *d, const clmc_tempering *pt)
{
    if (!d->active) return CLMC_OK;
    cl_command_queue queue = clmc_runtime_queue(d->rt);
    size_t configs = pt->n_configs;
    CLMC_CL_TRY(clEnqueueWriteBuffer(queue, d->config_at, CL_TRUE, 0, configs * sizeof(cl_uint), pt->config_at, 0,
                                     NULL, NULL));
    CLMC_CL_TRY(clEnqueueWriteBuffer(queue, d->heading, CL_TRUE, 0, configs * sizeof(cl_int), pt->heading, 0, NULL,
                                     NULL));
    return set_next_exchange(d, pt);
}

clmc_status clmc_tempering_device_exchange(clmc_tempering_device *d, clmc_tempering *pt, const clmc_model_ops *ops,
                                           void *state)
{
    cl_mem energies;
    int scale;
    CLMC_TRY(ops->ensemble->energies_device(state, &energies, &scale));
    if (energies != d->energies || scale != d->energy_scale)
        return clmc_fail(CLMC_ERR_OTHER, "model \"%s\" changed its energy buffer during the run", ops->type);
    cl_ulong exchange = pt->exchanges;
    cl_kernel kernel = d->model.kernel ? d->model.kernel : d->exchange;
    CLMC_CL_TRY(clSetKernelArg(kernel, EXCHANGE_NUMBER_ARGUMENT, sizeof exchange, &exchange));
    size_t items = pt->n_systems * (d->model.kernel ? d->model.items_per_system : 1);
    CLMC_TRY(clmc_enqueue(d->rt, kernel, 1, &items, d->model.kernel ? &d->model.group : NULL, CLMC_UNTIMED));
    pt->exchanges++;
    for (unsigned t = 0; t + 1 < pt->n_temperatures; t++) pt->attempted[t] += pt->n_systems;
    CLMC_TRY(set_next_exchange(d, pt));
    return d->model.kernel ? CLMC_OK : ops->ensemble->set_temperatures_device(state, d->config_at, d->temperature_of);
}

clmc_status clmc_tempering_device_note(clmc_tempering_device *d, unsigned slot, unsigned n_configs)
{
    size_t bytes = (size_t)n_configs * sizeof(cl_uint);
    if (slot >= d->n_slots) return clmc_fail(CLMC_ERR_OTHER, "tempering: measurement slot %u of %u", slot, d->n_slots);
    CLMC_CL_TRY(clEnqueueCopyBuffer(clmc_runtime_queue(d->rt), d->config_at, d->noted, 0, slot * bytes, bytes, 0, NULL,
                                    NULL));
    return CLMC_OK;
}

clmc_status clmc_tempering_device_read_noted(clmc_tempering_device *d, unsigned n, unsigned n_configs,
                                             unsigned *pending_at)
{
    if (n == 0) return CLMC_OK;
    CLMC_CL_TRY(clEnqueueReadBuffer(clmc_runtime_queue(d->rt), d->noted, CL_TRUE, 0,
                                    (size_t)n * n_configs * sizeof(cl_uint), pending_at, 0, NULL, NULL));
    return CLMC_OK;
}

clmc_status clmc_tempering_device_sync(clmc_tempering_device *d, clmc_tempering *pt)
{
    if (!d->active) return CLMC_OK;
    size_t pairs = pt->n_temperatures - 1, systems = pt->n_systems;
    uint64_t *accepted = malloc(systems * pairs * sizeof *accepted), *trips = malloc(systems * sizeof *trips);
    cl_command_queue queue = clmc_runtime_queue(d->rt);
    cl_int err = accepted && trips ? CL_SUCCESS : CL_OUT_OF_HOST_MEMORY;
    if (err == CL_SUCCESS)
        err = clEnqueueReadBuffer(queue, d->accepted, CL_TRUE, 0, systems * pairs * sizeof *accepted, accepted, 0, NULL, NULL);
    if (err == CL_SUCCESS) err = clEnqueueReadBuffer(queue, d->trips, CL_TRUE, 0, systems * sizeof *trips, trips, 0, NULL, NULL);
    if (err == CL_SUCCESS)
        err = clEnqueueReadBuffer(queue, d->config_at, CL_TRUE, 0, pt->n_configs * sizeof(cl_uint), pt->config_at, 0,
                                  NULL, NULL);
    if (err == CL_SUCCESS)
        err = clEnqueueReadBuffer(queue, d->heading, CL_TRUE, 0, pt->n_configs * sizeof(cl_int), pt->heading, 0, NULL,
                                  NULL);
    for (size_t s = 0; err == CL_SUCCESS && s < systems; s++) {
        pt->round_trips += trips[s];
        for (size_t t = 0; t < pairs; t++) pt->accepted[t] += accepted[s * pairs + t];
    }
    free(accepted);
    free(trips);
    if (err != CL_SUCCESS) return clmc_fail(CLMC_ERR_DEVICE, "reading the tempering state back: %s", clmc_cl_error_name(err));
    return zero_counters(d, pt);
}
