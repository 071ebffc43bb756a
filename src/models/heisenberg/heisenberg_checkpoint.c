/* Checkpoints (model.h save_state/load_state) and the numerical guard of the
 * O(n) models, ferromagnet and glass: the state's device buffers as stored,
 * the energy at the start of a pure over-relaxation run (for energy_drift),
 * the spin-length guard and its test-only fault injection. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/fault.h"
#include "models/heisenberg/heisenberg_internal.h"
#include "models/lattice.h"
#include "output/state_blob.h"

/* Guard tolerance on | |s| - 1 |.  Heat-bath and Metropolis draw unit vectors
 * afresh (a few ulp off); only over-relaxation reflections accumulate
 * rounding, about one ulp (6e-8 in float, 1.1e-16 in double) per step, and
 * renormalize_every sweeps of hits + overrelaxation_steps steps pass between
 * renormalisations (default 100 sweeps: ~1e3 steps, at worst 6e-5 in float and
 * 1e-13 in double; as a random walk, 2e-6 and 4e-15).  The tolerances leave a
 * margin of 10 (float) and 1e4 (double) over the worst case; without
 * renormalisation a float run reaches 1e-3 only after ~1e8 random-walk steps. */
#define TOLERANCE_FLOAT 1e-3
#define TOLERANCE_DOUBLE 1e-9
#define NOT_FINITE_BITS 0xffffffffu /* heisenberg_norm_deviation's mark for a NaN length */

static double guard_tolerance(const heisenberg_state *s)
{
    return s->is_double ? TOLERANCE_DOUBLE : TOLERANCE_FLOAT;
}

/* The device buffers that evolve during a run, in blob order.  Their bytes
 * are saved as stored (the layout follows from the resolved preset, not from
 * the device), so a layout change of the kernels needs no change here; a new
 * buffer that carries state from sweep to sweep must be added.  The
 * ferromagnet's couplings buffer is a placeholder the kernels never read. */
typedef struct {
    cl_mem buffer;
    const char *name;
    bool reals; /* spin components or couplings: checked to be finite */
} state_buffer;

static size_t state_buffers(const heisenberg_state *s, state_buffer *out)
{
    size_t n = 0;
    out[n++] = (state_buffer){s->spins, "the spins", true};
    out[n++] = (state_buffer){s->max_deviation, "the largest renormalisation deviation", false};
    if (s->glass) out[n++] = (state_buffer){s->couplings, "the couplings", true};
    if (s->rng.states) out[n++] = (state_buffer){s->rng.states, "the generator states (algorithm.rng)", false};
    return n;
}
#define STATE_BUFFERS_MAX 4

clmc_status clmc_heisenberg_guard_setup(heisenberg_state *s)
{
    CLMC_CL_TRY(clSetKernelArg(s->norm_deviation, 0, sizeof(cl_mem), &s->spins));
    CLMC_CL_TRY(clSetKernelArg(s->norm_deviation, 1, sizeof(cl_mem), &s->guard_deviation));
    CLMC_CL_TRY(clSetKernelArg(s->fault, 0, sizeof(cl_mem), &s->spins));
    /* Defined partial sums from the start: a checkpoint taken before the
     * drift-start measurement saves zeros, not whatever the memory held. */
    cl_long zero = 0;
    CLMC_CL_TRY(clEnqueueFillBuffer(clmc_runtime_queue(s->rt), s->partials, &zero, sizeof zero, 0,
                                    clmc_heisenberg_partials_per_slot(s) * MEASURE_SLOTS(s) * sizeof(cl_long), 0, NULL, NULL));
    return clmc_fault_after("CLMC_FAULT_SPIN_AFTER", NULL, &s->fault_after, NULL);
}

/* Test only: after sweep `fault_after` (counting from 1) one spin is doubled,
 * so that the guard must stop the run. */
clmc_status clmc_heisenberg_inject_fault(heisenberg_state *s, uint64_t sweep_index)
{
    if (!s->fault_after || sweep_index + 1 != s->fault_after) return CLMC_OK;
    fprintf(stderr, "clmc: CLMC_FAULT_SPIN_AFTER: doubling one spin after sweep %llu (test fault)\n",
            (unsigned long long)s->fault_after);
    size_t one = 1;
    return clmc_enqueue(s->rt, s->fault, 1, &one, NULL, CLMC_UNTIMED);
}

/* Largest | |s| - 1 | over every spin of every configuration, on the device. */
clmc_status clmc_heisenberg_guard(void *state)
{
    heisenberg_state *s = state;
    cl_command_queue queue = clmc_runtime_queue(s->rt);
    cl_uint bits = 0;
    CLMC_CL_TRY(clEnqueueWriteBuffer(queue, s->guard_deviation, CL_TRUE, 0, sizeof bits, &bits, 0, NULL, NULL));
    size_t global[2] = {s->n_sites, s->n_configs};
    CLMC_TRY(clmc_enqueue(s->rt, s->norm_deviation, 2, global, NULL, CLMC_UNTIMED));
    CLMC_CL_TRY(clEnqueueReadBuffer(queue, s->guard_deviation, CL_TRUE, 0, sizeof bits, &bits, 0, NULL, NULL));
    if (bits == NOT_FINITE_BITS)
        return clmc_fail(CLMC_ERR_OTHER, "numerical guard: a spin has a non-finite component (NaN)");
    float deviation;
    memcpy(&deviation, &bits, sizeof deviation);
    if (!(deviation <= guard_tolerance(s)))
        return clmc_fail(CLMC_ERR_OTHER, "numerical guard: a spin length deviates from 1 by %g, more than the "
                         "tolerance %g of model.precision \"%s\"", deviation, guard_tolerance(s),
                         s->is_double ? "double" : "float");
    return CLMC_OK;
}

/* Exact fixed-point sums of the drift-start slot, 4 per configuration. */
static clmc_status drift_start_sums(heisenberg_state *s, uint64_t *sums)
{
    CLMC_TRY(clmc_heisenberg_read_slots(s, SLOT_DRIFT_START(s), 1));
    for (cl_uint c = 0; c < s->n_configs; c++)
        for (int k = 0; k < 4; k++) {
            uint64_t total = 0; /* two's complement: the sum of the signed values */
            for (size_t g = 0; g < s->measure_groups; g++)
                total += (uint64_t)s->partials_host[4 * (c * s->measure_groups + g) + (size_t)k];
            sums[4 * c + (size_t)k] = total;
        }
    return CLMC_OK;
}

/* Blob: the state buffers (state_buffers), then 4 x configurations u64 sums
 * of the drift-start energy measurement. */
/* The device keeps component c of site i at c * SITES + packed_site(i),
 * packed_site(i) = colour(i) * SITES / 2 + i / 2 (cl/heisenberg/heisenberg.cl). */
clmc_status clmc_heisenberg_snapshot(void *state, clmc_array *configuration)
{
    heisenberg_state *s = state;
    size_t real = clmc_heisenberg_real_bytes(s), config_bytes = (size_t)s->ncomp * s->n_sites * real;
    unsigned char *stored = NULL;
    CLMC_TRY(clmc_buffer_download(s->rt, s->spins, config_bytes * s->n_configs, &stored));
    *configuration = clmc_lattice_array("spins", real == 8 ? CLMC_ARRAY_FLOAT64 : CLMC_ARRAY_FLOAT32, s->n_configs,
                                        s->dim, s->edge, (unsigned)s->ncomp);
    unsigned char *out = configuration->data;
    size_t edge = (size_t)s->edge;
    for (size_t c = 0; out && c < s->n_configs; c++)
        for (size_t i = 0; i < s->n_sites; i++) {
            size_t colour = (i % edge + i / edge % edge + i / (edge * edge)) & 1, packed = colour * s->n_sites / 2 + i / 2;
            for (size_t k = 0; k < (size_t)s->ncomp; k++)
                memcpy(out + ((c * s->n_sites + i) * s->ncomp + k) * real,
                       stored + c * config_bytes + (k * s->n_sites + packed) * real, real);
        }
    free(stored);
    return out ? CLMC_OK : clmc_fail(CLMC_ERR_OTHER, "out of host memory");
}

clmc_status clmc_heisenberg_save_state(void *state, unsigned char **blob, size_t *bytes)
{
    heisenberg_state *s = state;
    state_buffer buffers[STATE_BUFFERS_MAX];
    size_t n = state_buffers(s, buffers);
    uint64_t *sums = malloc(4 * (size_t)s->n_configs * sizeof *sums);
    if (!sums) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    clmc_blob_writer w = {0};
    w.status = drift_start_sums(s, sums);
    for (size_t i = 0; i < n; i++) clmc_blob_put_buffer(&w, s->rt, buffers[i].buffer);
    for (size_t i = 0; i < 4 * (size_t)s->n_configs; i++) clmc_blob_put_u64(&w, sums[i]);
    free(sums);
    return clmc_blob_finish(&w, blob, bytes);
}

/* Every stored real finite, and within 1 + tolerance of 0 for spin
 * components (a checkpoint is only written after the guard passed). */
static clmc_status check_reals(const heisenberg_state *s, const state_buffer *b, const unsigned char *bytes,
                               size_t n_bytes)
{
    size_t size = clmc_heisenberg_real_bytes(s);
    double bound = b->buffer == s->spins ? 1.0 + guard_tolerance(s) : INFINITY;
    for (size_t i = 0; i < n_bytes / size; i++) {
        double x;
        if (s->is_double) {
            memcpy(&x, bytes + i * size, sizeof x);
        } else {
            float f;
            memcpy(&f, bytes + i * size, sizeof f);
            x = f;
        }
        if (!isfinite(x) || fabs(x) > bound)
            return clmc_fail(CLMC_ERR_INPUT, "checkpoint: %s hold %g at value %zu; refused", b->name, x, i);
    }
    return CLMC_OK;
}

/* The drift-start sums go to the first work-group's partials of their slot,
 * zeros to the others: the totals, hence the results, are the same. */
static clmc_status upload_drift_start(heisenberg_state *s, const uint64_t *sums)
{
    size_t per_slot = clmc_heisenberg_partials_per_slot(s);
    cl_long *values = calloc(per_slot, sizeof *values);
    if (!values) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    for (cl_uint c = 0; c < s->n_configs; c++)
        for (int k = 0; k < 4; k++) values[4 * c * s->measure_groups + (size_t)k] = (cl_long)sums[4 * c + (size_t)k];
    cl_int err = clEnqueueWriteBuffer(clmc_runtime_queue(s->rt), s->partials, CL_TRUE,
                                      SLOT_DRIFT_START(s) * per_slot * sizeof(cl_long), per_slot * sizeof(cl_long),
                                      values, 0, NULL, NULL);
    free(values);
    CLMC_CL_CHECK(err, "clEnqueueWriteBuffer(drift start)");
    return CLMC_OK;
}

clmc_status clmc_heisenberg_load_state(void *state, const unsigned char *blob, size_t bytes)
{
    heisenberg_state *s = state;
    state_buffer buffers[STATE_BUFFERS_MAX];
    const unsigned char *stored[STATE_BUFFERS_MAX];
    size_t sizes[STATE_BUFFERS_MAX], n = state_buffers(s, buffers);
    for (size_t i = 0; i < n; i++) CLMC_TRY(clmc_buffer_size(buffers[i].buffer, &sizes[i]));
    size_t n_sums = 4 * (size_t)s->n_configs;
    uint64_t *sums = malloc(n_sums * sizeof *sums);
    if (!sums) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    clmc_blob_reader r = clmc_blob_reader_of(blob, bytes);
    for (size_t i = 0; i < n; i++) stored[i] = clmc_blob_get_buffer(&r, sizes[i], buffers[i].name);
    for (size_t i = 0; i < n_sums; i++) sums[i] = clmc_blob_get_u64(&r, "the drift-start energy sums");
    clmc_status status = clmc_blob_end(&r);
    for (size_t i = 0; i < n && status == CLMC_OK; i++)
        if (buffers[i].reals) status = check_reals(s, &buffers[i], stored[i], sizes[i]);
    for (size_t i = 0; i < n && status == CLMC_OK; i++)
        status = clmc_buffer_upload(s->rt, buffers[i].buffer, stored[i], sizes[i]);
    if (status == CLMC_OK) status = upload_drift_start(s, sums);
    free(sums);
    return status;
}
