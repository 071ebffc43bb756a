/* Host side of the hard-disk model (cl/hard_disks/hard_disks.cl): the start,
 * one MPMC sweep = four checkerboard sub-sweeps in a random order and a cell
 * shift by a random distance along a random axis direction (seed's
 * Algorithm 1), measurements of the pressure (pair histogram counted on the
 * device, fit on the host) and the acceptance, and the final invariant
 * checks.  ensemble.type "independent": ensemble.copies systems advanced by
 * the same launches (the kernels' second NDRange dimension), each with the
 * random streams of its run-wide index (docs/ensembles.md#athermal-models). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clmc/stats.h"
#include "common/philox.h"
#include "runtime/defines.h"
#include "runtime/fault.h"
#include "measure/measure.h"
#include "models/hard_disks/hard_disks.h"

enum { PRESSURE, ACCEPTANCE, COLUMNS };
static const char *const series_columns[] = {"pressure", "acceptance", NULL};

static clmc_status disks_validate(const clmc_preset *p)
{
    disk_geometry g;
    uint32_t rows, columns;
    double phi = clmc_preset_number(p, "model.packing_fraction");
    if (phi >= DISK_CLOSE_PACKING)
        return clmc_fail(CLMC_ERR_INPUT, "model.packing_fraction: %.17g is at or above close packing pi / (2 sqrt 3)", phi);
    CLMC_TRY(disk_geometry_for((uint32_t)clmc_preset_int(p, "model.N"), clmc_preset_number(p, "model.packing_fraction"),
                               clmc_preset_number(p, "algorithm.pressure_range"), clmc_preset_bool(p, "algorithm.cell_exit"),
                               &g));
    if (strcmp(clmc_preset_string(p, "model.start"), "compress") != 0)
        CLMC_TRY(disk_lattice_shape(g.n_disks, g.box, &rows, &columns));
    else if (phi > DISK_COMPRESS_MAX_PHI)
        return clmc_fail(CLMC_ERR_INPUT, "model.start: \"compress\" works up to packing fraction %g, "
                         "model.packing_fraction is %g; use \"lattice\"", DISK_COMPRESS_MAX_PHI, phi);
    disk_pressure check;
    clmc_status status = disk_pressure_init(&check, clmc_preset_number(p, "algorithm.pressure_bin"),
                                            clmc_preset_number(p, "algorithm.pressure_range"),
                                            (int)clmc_preset_int(p, "algorithm.pressure_degree"));
    disk_pressure_free(&check);
    return status;
}

static void disks_destroy(void *state)
{
    disks_state *s = state;
    if (!s) return;
    if (s->subsweep) CLMC_CL_WARN(clReleaseKernel(s->subsweep));
    if (s->shift) CLMC_CL_WARN(clReleaseKernel(s->shift));
    if (s->shift_subsweep) CLMC_CL_WARN(clReleaseKernel(s->shift_subsweep));
    if (s->guard) CLMC_CL_WARN(clReleaseKernel(s->guard));
    if (s->histogram) CLMC_CL_WARN(clReleaseKernel(s->histogram));
    if (s->program) CLMC_CL_WARN(clReleaseProgram(s->program));
    cl_mem buffers[] = {s->disk[0], s->disk[1], s->count[0], s->count[1], s->tally, s->overflow, s->guard_totals,
                         s->edge2, s->pairs, s->plans};
    for (size_t i = 0; i < sizeof buffers / sizeof buffers[0]; i++)
        if (buffers[i]) CLMC_CL_WARN(clReleaseMemObject(buffers[i]));
    free(s->host.xy);
    free(s->host.count);
    free(s->tally_host);
    free(s->pairs_host);
    free(s->plans_host);
    free(s->output_dir);
    disk_pressure_free(&s->pressure);
    free(s);
}

static clmc_status create_buffer(disks_state *s, size_t bytes, void *initial, cl_mem *out)
{
    return clmc_buffer_create(s->rt, bytes, initial, "hard disks", out);
}

static size_t n_cells(const disks_state *s)
{
    return (size_t)s->host.g.cells * s->host.g.cells;
}

static clmc_status read_options(disks_state *s, const clmc_preset *p)
{
    CLMC_TRY(disk_geometry_for((uint32_t)clmc_preset_int(p, "model.N"), clmc_preset_number(p, "model.packing_fraction"),
                               clmc_preset_number(p, "algorithm.pressure_range"), clmc_preset_bool(p, "algorithm.cell_exit"),
                               &s->host.g));
    CLMC_TRY(disk_pressure_init(&s->pressure, clmc_preset_number(p, "algorithm.pressure_bin"),
                                clmc_preset_number(p, "algorithm.pressure_range"),
                                (int)clmc_preset_int(p, "algorithm.pressure_degree")));
    s->moves = (uint32_t)clmc_preset_int(p, "algorithm.moves_per_cell");
    s->max_displacement = (float)clmc_preset_number(p, "algorithm.max_displacement");
    s->shuffle_sets = clmc_preset_bool(p, "algorithm.shuffle_sets");
    s->write_configuration = clmc_preset_bool(p, "model.write_configuration");
    s->compress_start = strcmp(clmc_preset_string(p, "model.start"), "compress") == 0;
    s->n_systems = (cl_uint)clmc_preset_systems(p)->copies;
    s->first_system = (cl_uint)clmc_preset_systems(p)->first_system;
    const char *fuse = clmc_preset_string(p, "algorithm.fuse_shift");
    uint64_t cells = (uint64_t)s->host.g.cells * s->host.g.cells * s->n_systems;
    s->fuse_shift = strcmp(fuse, "on") == 0 || (strcmp(fuse, "auto") == 0 && cells <= DISK_FUSE_AUTO_CELLS);
    if (strcmp(fuse, "off") == 0) s->fuse_shift_off = "off";
    else if (!s->fuse_shift) s->fuse_shift_off = "auto: more than 131072 cells in all systems";
    uint64_t seed = clmc_preset_run(p)->seed;
    s->seed_lo = (cl_uint)seed;
    s->seed_hi = (cl_uint)(seed >> 32);
    CLMC_TRY(clmc_fault_after("CLMC_FAULT_DISK_AFTER", ":nan", &s->fault_after, &s->fault_nan));
    s->output_dir = strdup(clmc_preset_output(p)->dir);
    return s->output_dir ? CLMC_OK : clmc_fail(CLMC_ERR_OTHER, "out of host memory");
}

/* One system's start: the lattice (the same for all), or the system's own
 * compressed start drawn from the stream of its run-wide index. */
static clmc_status start_system(disks_state *s, uint32_t k)
{
    disk_cells c = disks_system_view(s, k);
    if (s->compress_start)
        CLMC_TRY(disk_compress_start(&c, (uint64_t)s->seed_hi << 32 | s->seed_lo, s->first_system + k));
    else CLMC_TRY(disk_lattice_start(&c));
    disk_invariants v = disk_check(&c, 0.0);
    if (v.disks != s->host.g.n_disks || v.overlaps || v.outside)
        return clmc_fail(CLMC_ERR_OTHER, "%s start of system %u: %llu of %u disks stored, %llu overlaps, %llu "
                         "outside their cell", s->compress_start ? "compressed" : "lattice", s->first_system + k,
                         (unsigned long long)v.disks, s->host.g.n_disks, (unsigned long long)v.overlaps,
                         (unsigned long long)v.outside);
    return CLMC_OK;
}

/* Every system's start.  Compressed starts (seconds of host work each at
 * N = 65536) run on all cores with OpenMP, one system per thread at a time;
 * each system's start depends only on its own stream, so the result does not
 * depend on the threads.  The failure of the lowest system is reported. */
static clmc_status start_configuration(disks_state *s)
{
    size_t cells = n_cells(s), systems = s->n_systems;
    s->host.xy = malloc(systems * cells * s->host.g.slots * 2 * sizeof *s->host.xy);
    s->host.count = malloc(systems * cells * sizeof *s->host.count);
    s->tally_host = malloc(systems * cells * sizeof *s->tally_host);
    s->pairs_host = malloc(systems * s->pressure.bins * sizeof *s->pairs_host);
    if (!s->host.xy || !s->host.count || !s->tally_host || !s->pairs_host)
        return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    clmc_status failed = CLMC_OK;
    uint32_t failed_system = s->n_systems;
    char message[1024] = "";
#pragma omp parallel for schedule(dynamic, 1) if (s->compress_start && s->n_systems > 1)
    for (uint32_t k = 0; k < s->n_systems; k++) {
        clmc_status status = start_system(s, k);
        if (status != CLMC_OK) {
#pragma omp critical(disk_start_failure)
            if (k < failed_system) {
                failed = status;
                failed_system = k;
                snprintf(message, sizeof message, "%s", clmc_error_message());
            }
        }
    }
    return failed == CLMC_OK ? CLMC_OK : clmc_fail(failed, "%s", message);
}

/* Sweeps of plans uploaded at once: 1024, fewer for many systems (about
 * 8 MiB of plans at most), at least 16. */
static uint32_t plan_block_of(uint64_t systems)
{
    uint64_t block = (1u << 20) / systems;
    return (uint32_t)(block > 1024 ? 1024 : block < 16 ? 16 : block);
}

/* The move tallies, w, the margin, d and the seed: the arguments `first` ..
 * first + 5 of the kernels that move disks (disks_subsweep,
 * disks_shift_subsweep). */
static clmc_status set_move_arguments(disks_state *s, cl_kernel kernel, cl_uint first)
{
    CLMC_CL_TRY(clSetKernelArg(kernel, first, sizeof(cl_mem), &s->tally));
    CLMC_CL_TRY(clSetKernelArg(kernel, first + 1, sizeof(float), &s->host.g.width));
    CLMC_CL_TRY(clSetKernelArg(kernel, first + 2, sizeof(float), &s->host.g.margin));
    CLMC_CL_TRY(clSetKernelArg(kernel, first + 3, sizeof(float), &s->max_displacement));
    CLMC_CL_TRY(clSetKernelArg(kernel, first + 4, sizeof(cl_uint), &s->seed_lo));
    CLMC_CL_TRY(clSetKernelArg(kernel, first + 5, sizeof(cl_uint), &s->seed_hi));
    return CLMC_OK;
}

static clmc_status build_kernels(disks_state *s, const clmc_preset *p)
{
    clmc_defines options = {0};
    clmc_defines_text(&options, "-cl-std=CL1.2");
    clmc_defines_int(&options, "CELLS", s->host.g.cells);
    clmc_defines_int(&options, "SLOTS", s->host.g.slots);
    clmc_defines_int(&options, "FUSE_BLOCKS", DISK_FUSE_BLOCKS);
    clmc_defines_int(&options, "MOVES", s->moves);
    clmc_defines_int(&options, "SHUFFLE_PARTICLES", clmc_preset_bool(p, "algorithm.shuffle_particles"));
    clmc_status status = clmc_preset_bool(p, "algorithm.reproducible") ? clmc_defines_reproducible(s->rt, &options)
                                                                        : CLMC_OK;
    if (status != CLMC_OK) {
        clmc_defines_free(&options);
        return status;
    }
    CLMC_TRY(clmc_defines_build(s->rt, "hard_disks/hard_disks.cl", &options, &s->program));
    CLMC_TRY(clmc_kernel_create(s->program, "disks_subsweep", &s->subsweep));
    CLMC_TRY(clmc_kernel_set_first_system(s->subsweep, s->first_system));
    CLMC_TRY(clmc_kernel_create(s->program, "disks_shift", &s->shift));
    CLMC_TRY(clmc_kernel_create(s->program, "disks_shift_subsweep", &s->shift_subsweep));
    CLMC_TRY(clmc_kernel_set_first_system(s->shift_subsweep, s->first_system));
    size_t group_limit = 0;
    cl_ulong local_bytes = 0, device_local = clmc_runtime_device(s->rt)->local_mem_bytes;
    CLMC_TRY(clmc_kernel_group_limit(s->rt, s->shift_subsweep, &group_limit));
    CLMC_TRY(clmc_kernel_local_bytes(s->rt, s->shift_subsweep, &local_bytes));
    if (s->fuse_shift && group_limit < DISK_FUSE_BLOCKS * DISK_FUSE_BLOCKS)
        s->fuse_shift_off = "the device's work-group limit for disks_shift_subsweep is below its 64 work-items";
    else if (s->fuse_shift && local_bytes > device_local)
        s->fuse_shift_off = "disks_shift_subsweep needs more local memory than the device has";
    if (s->fuse_shift_off) s->fuse_shift = false;
    CLMC_TRY(clmc_kernel_create(s->program, "disks_guard", &s->guard));
    CLMC_TRY(clmc_kernel_create(s->program, "disks_pair_histogram", &s->histogram));
    size_t cells = n_cells(s) * s->n_systems, slots_bytes = cells * s->host.g.slots * 2 * sizeof(float);
    cl_uint zero = 0;
    for (int b = 0; b < 2; b++) {
        CLMC_TRY(create_buffer(s, slots_bytes, s->host.xy, &s->disk[b]));
        CLMC_TRY(create_buffer(s, cells * sizeof(cl_uint), s->host.count, &s->count[b]));
    }
    CLMC_TRY(create_buffer(s, cells * sizeof(cl_uint), NULL, &s->tally));
    CLMC_TRY(create_buffer(s, sizeof(cl_uint), &zero, &s->overflow));
    CLMC_TRY(create_buffer(s, 2 * s->n_systems * sizeof(cl_uint), NULL, &s->guard_totals));
    CLMC_TRY(create_buffer(s, (s->pressure.bins + 1) * sizeof(float), s->pressure.edge2, &s->edge2));
    CLMC_TRY(create_buffer(s, s->n_systems * s->pressure.bins * sizeof(cl_uint), NULL, &s->pairs));
    cl_uint bins = (cl_uint)s->pressure.bins;
    CLMC_CL_TRY(clSetKernelArg(s->histogram, 2, sizeof(float), &s->host.g.width));
    CLMC_CL_TRY(clSetKernelArg(s->histogram, 3, sizeof(cl_mem), &s->edge2));
    CLMC_CL_TRY(clSetKernelArg(s->histogram, 4, sizeof(cl_uint), &bins));
    CLMC_CL_TRY(clSetKernelArg(s->histogram, 5, sizeof(cl_mem), &s->pairs));
    CLMC_TRY(set_move_arguments(s, s->subsweep, 2));
    CLMC_CL_TRY(clSetKernelArg(s->shift, 4, sizeof(cl_mem), &s->overflow));
    CLMC_CL_TRY(clSetKernelArg(s->shift, 5, sizeof(float), &s->host.g.width));
    CLMC_CL_TRY(clSetKernelArg(s->shift_subsweep, 4, sizeof(cl_mem), &s->overflow));
    CLMC_TRY(set_move_arguments(s, s->shift_subsweep, 5));
    s->plan_block = plan_block_of(s->n_systems);
    s->plan_first = UINT64_MAX;
    s->plans_host = malloc((size_t)s->plan_block * s->n_systems * 2 * sizeof *s->plans_host);
    if (!s->plans_host) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    CLMC_TRY(create_buffer(s, (size_t)s->plan_block * s->n_systems * 2 * sizeof(cl_uint), NULL, &s->plans));
    CLMC_CL_TRY(clSetKernelArg(s->subsweep, 10, sizeof(cl_mem), &s->plans));
    CLMC_CL_TRY(clSetKernelArg(s->shift, 6, sizeof(cl_mem), &s->plans));
    CLMC_CL_TRY(clSetKernelArg(s->shift_subsweep, 12, sizeof(cl_mem), &s->plans));
    /* Tallies start at zero: a measurement before any sweep reads no moves. */
    cl_uint pattern = 0;
    CLMC_CL_TRY(clEnqueueFillBuffer(clmc_runtime_queue(s->rt), s->tally, &pattern, sizeof pattern, 0,
                                    cells * sizeof(cl_uint), 0, NULL, NULL));
    return CLMC_OK;
}

/* Global-memory traffic of one sweep, each byte counted once per launch
 * (compulsory traffic: a neighbour's slots read again by the next cell of a
 * launch come from cache), from what cl/hard_disks/hard_disks.cl moves.
 * With C cells, S = C SLOTS 8 bytes of float2 slots and N disks:
 *   disks_subsweep, four launches: each reads every slot (the active
 *     quarter's own and, as neighbours, the rest: 4 S), its active cells'
 *     counts (C 4 in all) and writes the active cells' slots (S) and move
 *     tallies (C 4);
 *   disks_shift, one launch: reads each cell's count (C 4) and its occupied
 *     slots (N 8; the neighbour's are the same array), writes every slot of
 *     the other buffer (S) and its counts (C 4).
 * Total 6 S + 8 N + 16 C per system.  The earlier figure, 13 S + 56 C,
 * counted each neighbour read as new traffic and reported more than the copy
 * bandwidth (issue 26).  With algorithm.fuse_shift, disks_shift_subsweep
 * replaces the shift and the first sub-sweep: it reads every slot (S, the
 * active cells' neighbours) and every count (C 4), and writes every slot and
 * count of the other buffer (S + C 4) and the active quarter's tallies (C);
 * with the other three sub-sweeps (3 S + 3/4 S + 6 C) 5.75 S + 15 C per
 * system (the sweeps before a measurement make their shift alone). */
static double bytes_per_sweep(const disk_geometry *g, unsigned systems, bool fuse_shift)
{
    double cells = (double)g->cells * g->cells, slots = cells * g->slots * 8.0;
    return systems * (fuse_shift ? 5.75 * slots + 15.0 * cells : 6.0 * slots + 8.0 * g->n_disks + 16.0 * cells);
}

/* Device memory of a preset (model.h device_bytes), as build_kernels
 * creates it: two slot and count buffers (the shift writes the other), the
 * tallies and the pressure histograms, each once per system; the largest
 * buffer holds every system's slots. */
static void disks_device_bytes(const clmc_preset *p, uint64_t *total, uint64_t *largest)
{
    disk_geometry g;
    *total = *largest = 0;
    if (disk_geometry_for((uint32_t)clmc_preset_int(p, "model.N"), clmc_preset_number(p, "model.packing_fraction"),
                          clmc_preset_number(p, "algorithm.pressure_range"), clmc_preset_bool(p, "algorithm.cell_exit"),
                          &g) != CLMC_OK)
        return; /* validation refused it already */
    uint64_t systems = clmc_preset_systems(p)->copies;
    uint64_t cells = (uint64_t)g.cells * g.cells * systems, slots = cells * g.slots * 2 * sizeof(float);
    uint64_t bins = (uint64_t)floor(clmc_preset_number(p, "algorithm.pressure_range") /
                                    clmc_preset_number(p, "algorithm.pressure_bin") + 0.5);
    *total = 2 * slots + 3 * cells * sizeof(cl_uint) + (1 + 2 * systems) * sizeof(cl_uint) +
             (bins + 1) * sizeof(float) + systems * bins * sizeof(cl_uint) +
             (uint64_t)plan_block_of(systems) * systems * 2 * sizeof(cl_uint);
    *largest = slots;
}

static clmc_status disks_create(clmc_runtime *rt, clmc_preset *p, void **state, clmc_model_shape *shape)
{
    disks_state *s = calloc(1, sizeof *s);
    if (!s) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    s->rt = rt;
    clmc_status status = read_options(s, p);
    if (status == CLMC_OK) status = start_configuration(s);
    if (status == CLMC_OK) status = build_kernels(s, p);
    if (status != CLMC_OK) {
        disks_destroy(s);
        return status;
    }
    double cells = (double)n_cells(s);
    shape->series_columns = series_columns;
    shape->measure_batch = 1; /* each measurement's histogram is read and fitted on the host */
    shape->updates_per_sweep = cells * s->moves * s->n_systems; /* n_M trial moves per cell (empty cells make none) */
    shape->bytes_per_sweep = bytes_per_sweep(&s->host.g, s->n_systems, s->fuse_shift);
    shape->n_systems = s->n_systems;
    shape->n_temperatures = 1;
    *state = s;
    return CLMC_OK;
}

/* Sweep-level choices of system k (run-wide first_system + k) from one
 * draw keyed by the sweep: the order of the four checkerboard sets
 * (Fisher-Yates), the shift axis and direction, and the shift distance in
 * [0, w/2) as a float; packed as cl/hard_disks/hard_disks.cl reads them. */
static void plan_sweep(const disks_state *s, uint32_t k, uint32_t sweep, uint32_t *plan)
{
    clmc_philox_key key = {{s->seed_lo, s->seed_hi}};
    uint32_t stream = CLMC_STREAM(CLMC_PURPOSE_DISK_SWEEP, s->first_system + k);
    clmc_philox_ctr r = clmc_random4(key, 0, sweep, 0, stream);
    clmc_philox_ctr u = clmc_random4(key, 0, sweep, 1, stream);
    uint32_t order[4] = {0, 1, 2, 3};
    if (s->shuffle_sets)
        for (uint32_t n = 4; n > 1; n--) {
            uint32_t j = (uint32_t)(((uint64_t)r.v[n - 2] * n) >> 32), t = order[n - 1];
            order[n - 1] = order[j];
            order[j] = t;
        }
    float distance = (float)(u.v[0] >> 8) * (1.0f / 16777216.0f) * (0.5f * s->host.g.width);
    bool towards_minus = (r.v[3] >> 1) & 1u; /* the disks move by -distance: the cells by +distance */
    float delta = towards_minus ? -distance : distance;
    plan[0] = order[0] | order[1] << 2 | order[2] << 4 | order[3] << 6 | (r.v[3] & 1u) << 8 | (uint32_t)towards_minus << 9;
    memcpy(&plan[1], &delta, sizeof delta);
}

/* Whether the device's block of plans holds sweep_index's. */
static bool plans_hold(const disks_state *s, uint64_t sweep_index)
{
    return s->plan_first != UINT64_MAX && sweep_index >= s->plan_first && sweep_index - s->plan_first < s->plan_block;
}

/* Makes sure the device holds the plans of sweep_index (a new block of
 * plan_block sweeps from it when not; a blocking upload, once a block) and
 * returns its slot. */
static clmc_status plans_for(disks_state *s, uint64_t sweep_index, cl_uint *slot)
{
    if (!plans_hold(s, sweep_index)) {
        for (uint32_t t = 0; t < s->plan_block; t++)
            for (uint32_t k = 0; k < s->n_systems; k++)
                plan_sweep(s, k, (uint32_t)(sweep_index + t), s->plans_host + 2 * ((size_t)t * s->n_systems + k));
        CLMC_CL_TRY(clEnqueueWriteBuffer(clmc_runtime_queue(s->rt), s->plans, CL_TRUE, 0,
                                         (size_t)s->plan_block * s->n_systems * 2 * sizeof(cl_uint), s->plans_host, 0,
                                         NULL, NULL));
        s->plan_first = sweep_index;
    }
    *slot = (cl_uint)(sweep_index - s->plan_first);
    return CLMC_OK;
}

/* One sweep of every system: the four sub-sweeps in the order of each
 * system's plan, then the cell shift of each system's plan into the other
 * buffer.  With algorithm.fuse_shift the shift is left pending and made
 * with the next sweep's first sub-sweep (disks_shift_subsweep), or alone
 * where something reads the configuration first (disks_settle_shift) or
 * the next sweep's plans replace its plan's block. */
static clmc_status disks_sweep(void *state, uint64_t sweep_index)
{
    disks_state *s = state;
    cl_uint sweep = (cl_uint)sweep_index, slot, first = 0;
    if (!plans_hold(s, sweep_index)) CLMC_TRY(disks_settle_shift(s));
    CLMC_TRY(plans_for(s, sweep_index, &slot));
    size_t half = s->host.g.cells / 2, active = half * half;
    if (s->shift_pending) {
        CLMC_TRY(disks_set_buffer_pair(s, s->shift_subsweep));
        CLMC_CL_TRY(clSetKernelArg(s->shift_subsweep, 11, sizeof(cl_uint), &sweep));
        CLMC_CL_TRY(clSetKernelArg(s->shift_subsweep, 13, sizeof(cl_uint), &s->shift_slot));
        CLMC_CL_TRY(clSetKernelArg(s->shift_subsweep, 14, sizeof(cl_uint), &slot));
        size_t tiles = (half + DISK_FUSE_BLOCKS - 1) / DISK_FUSE_BLOCKS;
        size_t global[2] = {tiles * tiles * DISK_FUSE_BLOCKS * DISK_FUSE_BLOCKS, s->n_systems};
        size_t local[2] = {DISK_FUSE_BLOCKS * DISK_FUSE_BLOCKS, 1};
        CLMC_TRY(clmc_enqueue(s->rt, s->shift_subsweep, 2, global, local, CLMC_TIMED));
        s->current = 1 - s->current;
        s->shift_pending = false;
        first = 1;
    }
    CLMC_CL_TRY(clSetKernelArg(s->subsweep, 0, sizeof(cl_mem), &s->disk[s->current]));
    CLMC_CL_TRY(clSetKernelArg(s->subsweep, 1, sizeof(cl_mem), &s->count[s->current]));
    CLMC_CL_TRY(clSetKernelArg(s->subsweep, 8, sizeof(cl_uint), &sweep));
    CLMC_CL_TRY(clSetKernelArg(s->subsweep, 11, sizeof(cl_uint), &slot));
    for (cl_uint k = first; k < 4; k++) {
        CLMC_CL_TRY(clSetKernelArg(s->subsweep, 9, sizeof(cl_uint), &k));
        CLMC_TRY(disks_enqueue_systems(s, s->subsweep, active, CLMC_TIMED));
    }
    s->shift_pending = true;
    s->shift_slot = slot;
    if (!s->fuse_shift) CLMC_TRY(disks_settle_shift(s));
    if (s->fault_after && sweep_index + 1 == s->fault_after) CLMC_TRY(disks_inject_fault(s));
    return CLMC_OK;
}

/* Reads the configuration and the move tallies of the last sweep. */
static clmc_status read_back(disks_state *s)
{
    CLMC_TRY(disks_settle_shift(s));
    cl_command_queue queue = clmc_runtime_queue(s->rt);
    size_t cells = n_cells(s) * s->n_systems;
    CLMC_CL_TRY(clEnqueueReadBuffer(queue, s->disk[s->current], CL_FALSE, 0, cells * s->host.g.slots * 2 * sizeof(float),
                                    s->host.xy, 0, NULL, NULL));
    CLMC_CL_TRY(clEnqueueReadBuffer(queue, s->tally, CL_FALSE, 0, cells * sizeof(cl_uint), s->tally_host, 0, NULL, NULL));
    CLMC_CL_TRY(clEnqueueReadBuffer(queue, s->count[s->current], CL_TRUE, 0, cells * sizeof(cl_uint), s->host.count, 0,
                                    NULL, NULL));
    return CLMC_OK;
}

/* result.h5: the final disk centres (read_back). */
static clmc_status disks_snapshot(void *state, clmc_array *configuration)
{
    disks_state *s = state;
    CLMC_TRY(read_back(s));
    return disk_positions_array(&s->host, configuration);
}

/* The pair histograms of the current configurations, counted on the
 * device, into pairs_host (blocking): bins per system. */
static clmc_status device_histogram(disks_state *s)
{
    CLMC_TRY(disks_settle_shift(s));
    cl_command_queue queue = clmc_runtime_queue(s->rt);
    cl_uint zero = 0;
    size_t bytes = s->n_systems * s->pressure.bins * sizeof(cl_uint);
    CLMC_CL_TRY(clEnqueueFillBuffer(queue, s->pairs, &zero, sizeof zero, 0, bytes, 0, NULL, NULL));
    CLMC_CL_TRY(clSetKernelArg(s->histogram, 0, sizeof(cl_mem), &s->disk[s->current]));
    CLMC_CL_TRY(clSetKernelArg(s->histogram, 1, sizeof(cl_mem), &s->count[s->current]));
    CLMC_TRY(disks_enqueue_systems(s, s->histogram, n_cells(s), CLMC_UNTIMED));
    CLMC_CL_TRY(clEnqueueReadBuffer(queue, s->pairs, CL_TRUE, 0, bytes, s->pairs_host, 0, NULL, NULL));
    return CLMC_OK;
}

/* A measurement reads the pair histogram and the move tallies, not the
 * configuration. */
static clmc_status disks_measure(void *state, unsigned slot)
{
    (void)slot;
    disks_state *s = state;
    CLMC_CL_TRY(clEnqueueReadBuffer(clmc_runtime_queue(s->rt), s->tally, CL_FALSE, 0,
                                    n_cells(s) * s->n_systems * sizeof(cl_uint), s->tally_host, 0, NULL, NULL));
    return device_histogram(s);
}

/* Accepted moves per trial move of system k in the last sweep. */
static double acceptance(const disks_state *s, uint32_t k)
{
    uint64_t accepted = 0, moving_cells = 0;
    const uint32_t *tally = s->tally_host + (size_t)k * n_cells(s);
    for (size_t c = 0; c < n_cells(s); c++) {
        accepted += tally[c] & 0xFFFFu;
        moving_cells += tally[c] >> 16;
    }
    return moving_cells ? (double)accepted / ((double)moving_cells * s->moves) : 0.0;
}

/* Rows [slot][system] (measure_batch is 1: the slot is the last measurement). */
static clmc_status disks_collect(void *state, unsigned n_slots, double *rows)
{
    disks_state *s = state;
    for (unsigned slot = 0; slot < n_slots; slot++)
        for (uint32_t k = 0; k < s->n_systems; k++) {
            const uint32_t *pairs = s->pairs_host + (size_t)k * s->pressure.bins;
            for (size_t b = 0; b < s->pressure.bins; b++) s->pressure.histogram[b] = pairs[b];
            double *row = rows + ((size_t)slot * s->n_systems + k) * COLUMNS;
            row[PRESSURE] = disk_pressure_of_histogram(&s->pressure, &s->host.g);
            row[ACCEPTANCE] = acceptance(s, k);
        }
    return CLMC_OK;
}

/* The pressure estimate of one configuration is linear in its histogram, so
 * the mean over configurations is the estimate of the mean histogram. */
static clmc_status disks_estimate(void *state, const double *rows, size_t n_rows, double beta, cJSON *observables)
{
    (void)state;
    (void)beta;
    return clmc_add_column_estimates(rows, n_rows, series_columns, observables);
}

/* Bins in which the device's pair histograms of the final configurations
 * differ from the host's (disk_pair_histogram), all systems: must be none. */
static clmc_status histogram_differences(disks_state *s, uint64_t *differences)
{
    CLMC_TRY(device_histogram(s));
    *differences = 0;
    for (uint32_t k = 0; k < s->n_systems; k++) {
        disk_cells c = disks_system_view(s, k);
        disk_pair_histogram(&s->pressure, &c);
        const uint32_t *pairs = s->pairs_host + (size_t)k * s->pressure.bins;
        for (size_t b = 0; b < s->pressure.bins; b++) *differences += s->pressure.histogram[b] != pairs[b];
    }
    return CLMC_OK;
}

/* Final state, every system: disks conserved, no pair closer than 1 - 1e-5
 * (float positions), every disk inside its cell, the device's pair histogram
 * the host's (counts summed over systems); then the configuration files
 * (the first system's). */
static clmc_status disks_checks(void *state, cJSON *checks)
{
    disks_state *s = state;
    CLMC_TRY(read_back(s));
    cl_uint overflow = 0;
    CLMC_CL_TRY(clEnqueueReadBuffer(clmc_runtime_queue(s->rt), s->overflow, CL_TRUE, 0, sizeof overflow, &overflow, 0,
                                    NULL, NULL));
    disk_invariants v = {0, 0, 0};
    for (uint32_t k = 0; k < s->n_systems; k++) {
        disk_cells c = disks_system_view(s, k);
        disk_invariants one = disk_check(&c, 1e-5);
        v.disks += one.disks;
        v.overlaps += one.overlaps;
        v.outside += one.outside;
    }
    uint64_t differences;
    CLMC_TRY(histogram_differences(s, &differences));
    double lost = (double)s->host.g.n_disks * s->n_systems - (double)v.disks;
    cJSON_AddNumberToObject(checks, "particles", (double)v.disks);
    cJSON_AddNumberToObject(checks, "particles_lost", lost);
    cJSON_AddNumberToObject(checks, "cell_overflows", overflow);
    cJSON_AddNumberToObject(checks, "overlaps", (double)v.overlaps);
    cJSON_AddNumberToObject(checks, "outside_cell", (double)v.outside);
    cJSON_AddNumberToObject(checks, "pair_histogram_differences", (double)differences);
    cJSON_AddNumberToObject(checks, "box_length", s->host.g.box);
    cJSON_AddNumberToObject(checks, "cell_width", s->host.g.width);
    cJSON_AddNumberToObject(checks, "cell_margin", s->host.g.margin);
    cJSON_AddNumberToObject(checks, "cells_per_side", s->host.g.cells);
    if (s->write_configuration) CLMC_TRY(disk_write_configuration(&s->host, s->output_dir));
    if (lost != 0 || overflow || v.overlaps || v.outside || differences)
        return clmc_fail(CLMC_ERR_OTHER, "hard disks: %.0f disks lost, %u cell overflows, %llu overlaps, %llu outside "
                         "their cell, %llu pair-histogram bins differ between device and host", lost, overflow,
                         (unsigned long long)v.overlaps, (unsigned long long)v.outside,
                         (unsigned long long)differences);
    return CLMC_OK;
}

/* performance.fused_shift: whether the sweeps' shifts ran in the next
 * sweep's first launch, and why not. */
static void disks_describe_update(void *state, cJSON *performance)
{
    const disks_state *s = state;
    cJSON *fused = cJSON_AddObjectToObject(performance, "fused_shift");
    if (!fused) return;
    cJSON_AddBoolToObject(fused, "used", s->fuse_shift);
    if (!s->fuse_shift) cJSON_AddStringToObject(fused, "reason", s->fuse_shift_off);
}

static const clmc_ensemble_hooks disks_ensemble_hooks = {.independent = true}; /* copies alone */

const clmc_model_ops clmc_model_hard_disks = {
    .type = "hard_disks",
    .athermal = true,
    .model_fields = clmc_hard_disks_model_fields,
    .algorithm_fields = clmc_hard_disks_algorithm_fields,
    .validate = disks_validate,
    .device_bytes = disks_device_bytes,
    .create = disks_create,
    .destroy = disks_destroy,
    .sweep = disks_sweep,
    .measure = disks_measure,
    .collect = disks_collect,
    .estimate = disks_estimate,
    .describe_update = disks_describe_update,
    .ensemble = &disks_ensemble_hooks,
    .guard = disks_guard,
    .checks = disks_checks,
    .snapshot = disks_snapshot,
    .save_state = disks_save_state,
    .load_state = disks_load_state,
};
