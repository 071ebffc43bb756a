/* Tempering energies of the EA msc layout without a measurement pass: the
 * last colour pass of a sweep that an exchange follows is run by a variant of
 * ea_msc_update (cl/ea/ea_energy_pass.cl, built with ENERGY_PASS = 1) that also counts
 * every configuration's satisfied bonds, adding the groups' counts atomically
 * into one integer per configuration; the exchange on the device reads them
 * (and sets them back to 0), or the host path reads them back.
 * algorithm.tempering_energies selects "pass" (default), "measure" (the
 * measurement kernel, as before) or "check" (both, counting configurations
 * whose energies differ).  msc population annealing's member pass is the
 * same kernel built with MEMBER_PASS = 1 (ea_msc_member_update): the
 * colour-1 pass of a step's last sweep, writing every member's energy and
 * overlap; the same three modes choose it, the measurement, or both.  Here
 * too population annealing's resident updates, a step's sweeps in one
 * launch: msc (ea_msc_resident_update, that file built with RESIDENT = 1)
 * and naive (ea_naive_resident_update, cl/ea/ea_ising.cl built with
 * RESIDENT_QUADS), which share their set-up (resident_bind). */
#include "runtime/defines.h"
#include "models/ea/ea_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ENERGY_WG_MAX 128
#define EXCHANGE_LANE_MASKS_ARGUMENT 16 /* after TEMPERING_EXCHANGE_ARGUMENTS and the reaches */
#define ENERGY_REACH_ARGUMENT 9        /* the energy pass's TEMPERING_REACH_ARGUMENTS, after energy_counts */
#define RESIDENT_RANGE_ARGUMENT 14     /* ea_msc_resident_update's chunk_range, fold_range */
/* Sites per work-item: the fold's cost spread over more updates, against
 * fewer work-items in flight.  algorithm.energy_sites overrides it (clmc
 * tune; the same energies whatever the value). */
#define ENERGY_SITES_DEFAULT 8 /* at or near the fastest of 1 .. 16 on an H200 at L = 32 (benchmarks/results/2026-11-22-ea-msc.md) */
#define ITEMS_PER_COMPUTE_UNIT 256 /* work-items that keep a compute unit's loads in flight */

/* The default: ENERGY_SITES_DEFAULT, halved while that leaves fewer
 * work-items than the device's compute units can keep busy (small lattices
 * with few realizations, where the pass would otherwise wait on latency). */
static unsigned default_energy_sites(const ea_state *s)
{
    size_t items = (size_t)s->stacks / 2 * (s->n_sites / 2);
    size_t wanted = (size_t)clmc_runtime_device(s->rt)->compute_units * ITEMS_PER_COMPUTE_UNIT;
    unsigned sites = ENERGY_SITES_DEFAULT;
    while (sites > 1 && items / sites < wanted) sites /= 2;
    return sites;
}

/* The launch shape of a pass: its defines ENERGY_WG, ENERGY_GROUPS,
 * ENERGY_SITES, ENERGY_LEVELS and ENERGY_FOLD_ROUNDS. */
typedef struct {
    size_t wg, groups;
    unsigned sites, levels, fold_rounds;
} pass_plan;

/* Work-groups of a power of two work-items of `sites` sites each (the
 * smallest group covering the colour's sites, at most wg_max, which the
 * callers cap by the device's limit), folded completely; counters wide enough for 2 DIM
 * satisfied bonds per site (`replicas` of them: the member pass counts both
 * replicas in one). */
static pass_plan plan_pass(const ea_state *s, unsigned sites, unsigned replicas, size_t wg_max)
{
    size_t half = s->n_sites / 2;
    pass_plan plan = {clmc_power_of_two_at_most(wg_max), 0, sites, 1, 0};
    while (plan.wg > 1 && plan.wg / 2 * sites >= half) plan.wg /= 2;
    plan.groups = (half + plan.wg * sites - 1) / (plan.wg * sites);
    while (((size_t)1 << plan.fold_rounds) < plan.wg) plan.fold_rounds++;
    while (((size_t)1 << plan.levels) <= 2 * (size_t)s->dim * sites * plan.wg * replicas) plan.levels++;
    return plan;
}

/* The smaller of `most` work-items and the device's limit. */
static size_t device_group_cap(const ea_state *s, size_t most)
{
    size_t limit = clmc_runtime_device(s->rt)->max_work_group_size;
    return limit < most ? limit : most;
}

/* The msc resident update's work-group (algorithm.resident_group, else
 * automatic): RESIDENT_WG_MAX work-items, at most the sites of a colour
 * rounded up to a power of two and the device's limit (ea_resident_create
 * halves it where local memory is short).  Measured on an H200
 * (3D L = 8, theta 10, to beta 5, ps per flip over the anneal, 64 / 128 /
 * 256 work-items; benchmarks/results/2026-11-28-nvidia-h200-session20.txt,
 * call 6): lcg64_reseeded R = 102400 - / 0.417 / 0.402, R = 262144 0.477 /
 * 0.388 / 0.386, R = 2^20 0.435 / 0.354 / 0.351; Philox R = 102400 0.860 /
 * 0.640 / 0.635, R = 2^20 0.683 / 0.530 / 0.549.  A larger group shares a
 * pass's undecided sites (ea_msc_resident_update) over more work-items. */
#define RESIDENT_WG_MAX 256
#define RESIDENT_WG_LEAST 32 /* the automatic group's least, where local memory is short */
size_t ea_resident_streams(size_t sites)
{
    size_t streams = 1;
    while (streams < sites / 2 && streams < RESIDENT_WG_MAX) streams *= 2;
    return streams;
}

static void plan_energy_pass(ea_state *s, unsigned sites, unsigned replicas)
{
    pass_plan plan = plan_pass(s, sites, replicas, device_group_cap(s, ENERGY_WG_MAX));
    s->energy_wg = plan.wg;
    s->energy_groups = plan.groups;
    s->energy_fold_rounds = plan.fold_rounds;
    s->energy_levels = plan.levels;
}

static clmc_status set_energy_arguments(ea_state *s)
{
    cl_uint arg = 0, last_colour = 1;
    CLMC_CL_TRY(clSetKernelArg(s->energy_update, arg++, sizeof(cl_mem), &s->spins));
    CLMC_CL_TRY(clSetKernelArg(s->energy_update, arg++, sizeof(cl_mem), &s->bonds));
    CLMC_CL_TRY(clSetKernelArg(s->energy_update, arg++, sizeof(cl_mem), &s->thresholds));
    CLMC_CL_TRY(clSetKernelArg(s->energy_update, arg++, sizeof(cl_mem), &s->lane_masks));
    CLMC_CL_TRY(clSetKernelArg(s->energy_update, arg++, sizeof(cl_uint), &s->seed_lo));
    CLMC_CL_TRY(clSetKernelArg(s->energy_update, arg++, sizeof(cl_uint), &s->seed_hi));
    arg++; /* sweep, per launch */
    CLMC_CL_TRY(clSetKernelArg(s->energy_update, arg++, sizeof(cl_uint), &last_colour));
    CLMC_CL_TRY(clSetKernelArg(s->energy_update, arg++, sizeof(cl_mem), &s->energy_counts));
    /* TEMPERING_REACH_ARGUMENTS for no systems, so no reaches, until the
     * engine's device exchanges set them (ea_exchange_kernel). */
    cl_uint none = 0;
    cl_ulong exchange = 0;
    for (int i = 0; i < 4; i++) CLMC_CL_TRY(clSetKernelArg(s->energy_update, arg++, sizeof(cl_mem), &s->energy_counts));
    for (int i = 0; i < 4; i++) CLMC_CL_TRY(clSetKernelArg(s->energy_update, arg++, sizeof none, &none));
    CLMC_CL_TRY(clSetKernelArg(s->energy_update, arg++, sizeof exchange, &exchange));
    return CLMC_OK;
}

static clmc_status create_device_buffer(ea_state *s, size_t bytes, const void *initial, cl_mem *out, const char *what)
{
    const clmc_device_info *d = clmc_runtime_device(s->rt);
    if (bytes > d->max_alloc_bytes)
        return clmc_fail(CLMC_ERR_INPUT, "model.realizations: the %s need %zu bytes in one buffer; %s allows %llu",
                         what, bytes, d->name, (unsigned long long)d->max_alloc_bytes);
    return clmc_buffer_create(s->rt, bytes, initial, what, out);
}

/* The pass's plan and program for `replicas` counted per work-item: 1 the
 * energy pass (tempering), 2 the member pass (population annealing,
 * MEMBER_PASS: both replicas and their overlap). */
static clmc_status build_plan(ea_state *s, const char *base_options, unsigned replicas, bool resident,
                              const pass_plan *plan, cl_program *program)
{
    clmc_defines options = {0};
    clmc_defines_text(&options, base_options);
    clmc_defines_int(&options, "ENERGY_PASS", 1);
    if (replicas == 2) clmc_defines_int(&options, "MEMBER_PASS", 1);
    if (resident) clmc_defines_int(&options, "RESIDENT", 1);
    if (resident && s->lane_lcg) {
        clmc_defines_flag(&options, "RNG_LCG_RESEEDED");
        clmc_defines_int(&options, "LCG_STREAMS", (long long)ea_resident_streams(s->n_sites));
    }
    clmc_defines_int(&options, "ENERGY_WG", (long long)plan->wg);
    clmc_defines_int(&options, "ENERGY_GROUPS", (long long)plan->groups);
    clmc_defines_int(&options, "ENERGY_SITES", plan->sites);
    clmc_defines_int(&options, "ENERGY_LEVELS", plan->levels);
    clmc_defines_int(&options, "ENERGY_FOLD_ROUNDS", plan->fold_rounds);
    return clmc_defines_build(s->rt, "ea/ea_energy_pass.cl", &options, program);
}

static clmc_status build_pass(ea_state *s, const char *base_options, unsigned replicas, cl_program *program)
{
    plan_energy_pass(s, s->energy_sites, replicas);
    pass_plan plan = {s->energy_wg, s->energy_groups, s->energy_sites, s->energy_levels, s->energy_fold_rounds};
    return build_plan(s, base_options, replicas, false, &plan, program);
}

clmc_status ea_energy_pass_create(ea_state *s, const char *base_options)
{
    if (!s->msc || s->temperatures < 2 || s->independent || s->energy_mode == EA_ENERGIES_MEASURE) return CLMC_OK;
    if (!s->energy_sites) s->energy_sites = default_energy_sites(s);
    CLMC_TRY(build_pass(s, base_options, 1, &s->energy_program));
    CLMC_TRY(clmc_kernel_create(s->energy_program, "ea_msc_update", &s->energy_update));
    CLMC_TRY(clmc_kernel_set_first_system(s->energy_update, s->first_system));
    /* The device forms of the tempering hooks: the lane masks, and the fused
     * exchange where it fits (ea_exchange_fits). */
    CLMC_TRY(clmc_program_build(s->rt, "ea/ea_lane_masks.cl", base_options, &s->lane_masks_program));
    if (s->exchange_fused)
        CLMC_TRY(clmc_program_build(s->rt, "ensembles/ea_msc_exchange.cl", base_options, &s->exchange_program));
    size_t n = s->configurations;
    s->energy_counts_host = calloc(n, sizeof *s->energy_counts_host);
    if (!s->energy_counts_host) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    CLMC_TRY(create_device_buffer(s, n * sizeof(cl_int), s->energy_counts_host, &s->energy_counts, "energy counts"));
    return set_energy_arguments(s);
}

/* The member pass: the energy pass's plan and program, built with
 * MEMBER_PASS = 1; its colour and output buffers are set once. */
clmc_status ea_member_pass_create(ea_state *s, const char *base_options)
{
    if (!s->msc || !s->population || s->energy_mode == EA_ENERGIES_MEASURE) return CLMC_OK;
    if (!s->energy_sites) s->energy_sites = default_energy_sites(s);
    CLMC_TRY(build_pass(s, base_options, 2, &s->member_program));
    CLMC_TRY(clmc_kernel_create(s->member_program, "ea_msc_member_update", &s->member_update));
    CLMC_TRY(clmc_kernel_set_first_system(s->member_update, s->first_system));
    size_t bytes = sizeof(cl_int) * s->realizations;
    CLMC_TRY(create_device_buffer(s, bytes, NULL, &s->member_energy, "member energies"));
    CLMC_TRY(create_device_buffer(s, bytes, NULL, &s->member_overlap, "member overlaps"));
    if (s->energy_mode == EA_ENERGIES_CHECK) {
        s->member_check_host = malloc(4 * bytes);
        if (!s->member_check_host) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    }
    cl_uint arg = 0, last_colour = 1;
    CLMC_CL_TRY(clSetKernelArg(s->member_update, arg++, sizeof(cl_mem), &s->spins));
    CLMC_CL_TRY(clSetKernelArg(s->member_update, arg++, sizeof(cl_mem), &s->bonds));
    CLMC_CL_TRY(clSetKernelArg(s->member_update, arg++, sizeof(cl_mem), &s->thresholds));
    CLMC_CL_TRY(clSetKernelArg(s->member_update, arg++, sizeof(cl_mem), &s->lane_masks));
    CLMC_CL_TRY(clSetKernelArg(s->member_update, arg++, sizeof(cl_uint), &s->seed_lo));
    CLMC_CL_TRY(clSetKernelArg(s->member_update, arg++, sizeof(cl_uint), &s->seed_hi));
    arg++; /* sweep, per launch */
    CLMC_CL_TRY(clSetKernelArg(s->member_update, arg++, sizeof(cl_uint), &last_colour));
    CLMC_CL_TRY(clSetKernelArg(s->member_update, arg++, sizeof(cl_mem), &s->member_energy));
    CLMC_CL_TRY(clSetKernelArg(s->member_update, arg++, sizeof(cl_mem), &s->member_overlap));
    return CLMC_OK;
}

/* Several groups per word add into the buffers, zeroed first (one group,
 * the usual case, stores). */
clmc_status ea_member_pass_enqueue(ea_state *s, cl_uint sweep)
{
    if (s->energy_groups > 1) {
        cl_command_queue queue = clmc_runtime_queue(s->rt);
        cl_int zero = 0;
        size_t bytes = sizeof(cl_int) * s->realizations;
        CLMC_CL_TRY(clEnqueueFillBuffer(queue, s->member_energy, &zero, sizeof zero, 0, bytes, 0, NULL, NULL));
        CLMC_CL_TRY(clEnqueueFillBuffer(queue, s->member_overlap, &zero, sizeof zero, 0, bytes, 0, NULL, NULL));
    }
    CLMC_CL_TRY(clSetKernelArg(s->member_update, 6, sizeof(cl_uint), &sweep));
    size_t global = (size_t)s->stacks / 2 * s->energy_groups * s->energy_wg;
    return clmc_enqueue(s->rt, s->member_update, 1, &global, &s->energy_wg, CLMC_TIMED);
}

static clmc_status resident_group_of(const ea_state *s, size_t *items)
{
    size_t streams = ea_resident_streams(s->n_sites), cap = clmc_power_of_two_at_most(device_group_cap(s, RESIDENT_WG_MAX));
    if (s->resident_group) { /* at most `streams` (validated with the preset) */
        if (s->resident_group > cap)
            return clmc_fail(CLMC_ERR_INPUT, "algorithm.resident_group: %zu exceeds the %zu work-items a work-group "
                             "takes on %s", s->resident_group, cap, clmc_runtime_device(s->rt)->name);
        *items = s->resident_group;
        return CLMC_OK;
    }
    *items = streams < cap ? streams : cap;
    return CLMC_OK;
}

/* The local memory of the msc resident kernel with `plan` (an estimate;
 * the built kernel's own figure is checked in resident_bind): the stacks, a
 * byte of bonds per site, the fold where it does not fit in the stacks'
 * words, the gather's segments, and the list of undecided sites (an index,
 * two words a replica, and under lcg64_reseeded the generator's state and
 * its handback, per work-item). */
#define RESIDENT_SEGMENT_BYTES 2048
static size_t resident_local_bytes(const ea_state *s, const pass_plan *plan)
{
    size_t stack_words = 2 * (size_t)s->n_sites, fold_words = (plan->wg > 1 ? plan->wg / 2 : 1) * 2 * plan->levels;
    size_t list = plan->wg * (sizeof(cl_uint) + 4 * ea_word_bytes(s) + (s->lane_lcg ? 2 * sizeof(cl_ulong) : 0));
    return (stack_words + (fold_words <= stack_words ? 0 : fold_words)) * ea_word_bytes(s) + s->n_sites +
           RESIDENT_SEGMENT_BYTES + list;
}

/* Whether the resident update applies (else the reason in resident_note),
 * its local memory estimated from `plan` (resident_local_bytes). */
static bool resident_fits(ea_state *s, const char *mode, const pass_plan *plan)
{
    const clmc_device_info *d = clmc_runtime_device(s->rt);
    char *note = s->resident_note;
    size_t n = sizeof s->resident_note, local = resident_local_bytes(s, plan);
    if (strcmp(mode, "off") == 0)
        snprintf(note, n, "off: algorithm.resident");
    else if (!s->member_update)
        snprintf(note, n, "algorithm.tempering_energies \"measure\": the members are measured after the sweeps");
    else if (local > d->local_mem_bytes)
        snprintf(note, n, "a word's two stacks and the fold need %zu bytes of local memory; the device has %llu",
                 local, (unsigned long long)d->local_mem_bytes);
    else if (!d->local_mem_dedicated && strcmp(mode, "on") != 0)
        snprintf(note, n, "auto: local memory emulated in global memory (%s device; \"on\" forces it)", d->type);
    else
        return true;
    return false;
}

/* msc: the resident update takes the temperature's three thresholds as an
 * argument (thresholds_host's row, set at every temperature change), so a
 * step writes no buffer: about 1 us a step on an H200 (2026-11-28 session 19
 * record, call 2). */
clmc_status ea_resident_thresholds(ea_state *s)
{
    cl_uint4 t = {{s->thresholds_host[0], s->thresholds_host[1], s->dim == 3 ? s->thresholds_host[2] : 0}};
    CLMC_CL_TRY(clSetKernelArg(s->resident_update, 2, sizeof t, &t));
    return CLMC_OK;
}

/* The built resident kernel (resident_update) with `items` work-items a
 * group: refused where the kernel or the device cannot take them or its
 * local memory (the reason in resident_note, the kernel released);
 * otherwise the member buffers made where the member pass did not make
 * them, and the kernel's fixed arguments bound (`fourth`: msc's lane masks,
 * naive's betas). */
static clmc_status resident_bind(ea_state *s, size_t items, cl_mem fourth)
{
    const clmc_device_info *d = clmc_runtime_device(s->rt);
    size_t limit;
    cl_ulong local = 0;
    CLMC_TRY(clmc_kernel_set_first_system(s->resident_update, s->first_system));
    CLMC_TRY(clmc_kernel_group_limit(s->rt, s->resident_update, &limit));
    CLMC_TRY(clmc_kernel_local_bytes(s->rt, s->resident_update, &local));
    if (items > limit || local > d->local_mem_bytes) {
        snprintf(s->resident_note, sizeof s->resident_note, "its %zu work-items and %llu bytes of local memory exceed "
                 "the kernel's %zu or the device's %llu", items, (unsigned long long)local, limit,
                 (unsigned long long)d->local_mem_bytes);
        CLMC_CL_WARN(clReleaseKernel(s->resident_update));
        s->resident_update = NULL;
        return CLMC_OK;
    }
    s->resident_wg = items;
    size_t bytes = sizeof(cl_int) * s->realizations;
    if (!s->member_energy) CLMC_TRY(create_device_buffer(s, bytes, NULL, &s->member_energy, "member energies"));
    if (!s->member_overlap) CLMC_TRY(create_device_buffer(s, bytes, NULL, &s->member_overlap, "member overlaps"));
    cl_uint arg = 0;
    CLMC_CL_TRY(clSetKernelArg(s->resident_update, arg++, sizeof(cl_mem), &s->spins));
    CLMC_CL_TRY(clSetKernelArg(s->resident_update, arg++, sizeof(cl_mem), &s->bonds));
    if (s->msc)
        CLMC_TRY(ea_resident_thresholds(s));
    else
        CLMC_CL_TRY(clSetKernelArg(s->resident_update, 2, sizeof(cl_mem), &s->thresholds));
    arg++;
    CLMC_CL_TRY(clSetKernelArg(s->resident_update, arg++, sizeof(cl_mem), &fourth));
    CLMC_CL_TRY(clSetKernelArg(s->resident_update, arg++, sizeof(cl_uint), &s->seed_lo));
    CLMC_CL_TRY(clSetKernelArg(s->resident_update, arg++, sizeof(cl_uint), &s->seed_hi));
    arg += 3; /* first_sweep, count, measure: per launch */
    CLMC_CL_TRY(clSetKernelArg(s->resident_update, arg++, sizeof(cl_mem), &s->member_energy));
    CLMC_CL_TRY(clSetKernelArg(s->resident_update, arg++, sizeof(cl_mem), &s->member_overlap));
    return ea_resident_gather(s, s->thresholds, s->thresholds, 0);
}

/* The naive resident update's work-group (ea_naive_resident_update): quads
 * of configurations enough for NAIVE_TASKS_MIN sites a phase (small
 * lattices), at most NAIVE_ITEMS_MAX work-items, each taking a quad's site
 * a phase in as many rounds as the group's sites need. */
#define NAIVE_TASKS_MIN 64
#define NAIVE_ITEMS_MAX 256

/* Whether the naive resident update applies (else the reason in
 * resident_note); `local`: its local memory, estimated. */
static bool naive_resident_fits(ea_state *s, const char *mode, size_t local)
{
    const clmc_device_info *d = clmc_runtime_device(s->rt);
    char *note = s->resident_note;
    size_t n = sizeof s->resident_note;
    if (strcmp(mode, "off") == 0)
        snprintf(note, n, "off: algorithm.resident");
    else if (local > d->local_mem_bytes)
        snprintf(note, n, "%zu quads of configurations need %zu bytes of local memory; the device has %llu",
                 s->resident_quads, local, (unsigned long long)d->local_mem_bytes);
    else if (!d->local_mem_dedicated && strcmp(mode, "on") != 0)
        snprintf(note, n, "auto: local memory emulated in global memory (%s device; \"on\" forces it)", d->type);
    else
        return true;
    return false;
}

static clmc_status naive_resident_create(ea_state *s, const char *base_options, const char *mode)
{
    size_t half = s->n_sites / 2, quads = (s->configurations + 3) / 4;
    s->resident_quads = 1;
    while (s->resident_quads * half < NAIVE_TASKS_MIN && s->resident_quads < quads) s->resident_quads *= 2;
    size_t tasks = s->resident_quads * half, items = device_group_cap(s, NAIVE_ITEMS_MAX);
    if (tasks < items) items = tasks;
    size_t local = s->resident_quads * (4 * (size_t)s->n_sites + 6 * sizeof(cl_int)) + s->n_sites;
    if (!naive_resident_fits(s, mode, local)) return CLMC_OK;
    clmc_defines options = {0};
    clmc_defines_text(&options, base_options);
    clmc_defines_int(&options, "ENERGY_PASS", 0);
    clmc_defines_int(&options, "RESIDENT_QUADS", (long long)s->resident_quads);
    clmc_defines_int(&options, "RESIDENT_ITEMS", (long long)items);
    clmc_defines_int(&options, "RESIDENT_ROUNDS", (long long)((tasks + items - 1) / items));
    clmc_status status = clmc_defines_build(s->rt, "ea/ea_ising.cl", &options, &s->resident_program);
    clmc_defines_free(&options);
    CLMC_TRY(status);
    CLMC_TRY(clmc_kernel_create(s->resident_program, "ea_naive_resident_update", &s->resident_update));
    s->resident_groups = (quads + s->resident_quads - 1) / s->resident_quads;
    s->resident_sites = (unsigned)((tasks + items - 1) / items);
    return resident_bind(s, items, s->betas);
}

clmc_status ea_resident_create(ea_state *s, const char *base_options, const char *mode)
{
    if (!s->population) {
        snprintf(s->resident_note, sizeof s->resident_note, "population annealing only");
        return CLMC_OK;
    }
    if (!s->msc) return naive_resident_create(s, base_options, mode);
    /* lcg64_reseeded's generators belong to sites (LCG_STREAMS a word), not
     * to work-items, so the group may depend on the device. */
    size_t half = s->n_sites / 2, items = 0;
    CLMC_TRY(resident_group_of(s, &items));
    pass_plan plan = plan_pass(s, (unsigned)((half + items - 1) / items), 2, items);
    /* automatic: half the group while its fold and list leave the stacks no
     * room (3D L = 10 with 64-bit words needs 56 KB at 256 work-items) */
    while (!s->resident_group && items > RESIDENT_WG_LEAST &&
           resident_local_bytes(s, &plan) > clmc_runtime_device(s->rt)->local_mem_bytes) {
        items /= 2;
        plan = plan_pass(s, (unsigned)((half + items - 1) / items), 2, items);
    }
    if (!resident_fits(s, mode, &plan)) return CLMC_OK;
    CLMC_TRY(build_plan(s, base_options, 2, true, &plan, &s->resident_program));
    CLMC_TRY(clmc_kernel_create(s->resident_program, "ea_msc_resident_update", &s->resident_update));
    s->resident_groups = (size_t)s->stacks / 2;
    s->resident_sites = plan.sites;
    CLMC_TRY(resident_bind(s, plan.wg, s->lane_masks));
    return s->resident_update ? ea_resident_fold(s, NULL) : CLMC_OK;
}

/* Population annealing's chunk ranges (clmc_ensemble_hooks.fold_energy_range)
 * folded by the measuring launches of the msc resident update from now on;
 * NULL: none (the launch's arguments fold_range 0). */
clmc_status ea_resident_fold(ea_state *s, cl_mem chunk_range)
{
    cl_uint fold = chunk_range != NULL;
    CLMC_CL_TRY(clSetKernelArg(s->resident_update, RESIDENT_RANGE_ARGUMENT, sizeof(cl_mem), &chunk_range));
    CLMC_CL_TRY(clSetKernelArg(s->resident_update, RESIDENT_RANGE_ARGUMENT + 1, sizeof(cl_uint), &fold));
    return CLMC_OK;
}

/* The next resident launch loads the members resampled: new member j from
 * member source[j] of `from` (n_new = 0: the spins as they are; the buffers
 * then unused). */
clmc_status ea_resident_gather(ea_state *s, cl_mem from, cl_mem source, cl_uint n_new)
{
    CLMC_CL_TRY(clSetKernelArg(s->resident_update, 11, sizeof(cl_mem), &from));
    CLMC_CL_TRY(clSetKernelArg(s->resident_update, 12, sizeof(cl_mem), &source));
    CLMC_CL_TRY(clSetKernelArg(s->resident_update, 13, sizeof(cl_uint), &n_new));
    s->resident_gathering = n_new > 0;
    return CLMC_OK;
}

clmc_status ea_resident_sweeps(ea_state *s, uint64_t first, uint64_t count, bool members)
{
    while (count > 0) {
        cl_uint sweep = (cl_uint)first, n = count < 65536 ? (cl_uint)count : 65536, measure = members && n == count;
        CLMC_CL_TRY(clSetKernelArg(s->resident_update, 6, sizeof(cl_uint), &sweep));
        CLMC_CL_TRY(clSetKernelArg(s->resident_update, 7, sizeof(cl_uint), &n));
        CLMC_CL_TRY(clSetKernelArg(s->resident_update, 8, sizeof(cl_uint), &measure));
        size_t global = s->resident_groups * s->resident_wg;
        CLMC_TRY(clmc_enqueue(s->rt, s->resident_update, 1, &global, &s->resident_wg, CLMC_TIMED));
        if (s->resident_gathering) CLMC_TRY(ea_resident_gather(s, s->thresholds, s->thresholds, 0));
        s->resident_launches++;
        s->resident_sweeps += n;
        first += n;
        count -= n;
    }
    return CLMC_OK;
}

bool ea_energy_pass_available(const ea_state *s)
{
    return s->energy_update != NULL;
}

clmc_status ea_energy_pass_enqueue(ea_state *s, cl_uint sweep)
{
    CLMC_CL_TRY(clSetKernelArg(s->energy_update, 6, sizeof(cl_uint), &sweep));
    size_t global = (size_t)s->stacks / 2 * s->energy_groups * s->energy_wg;
    CLMC_TRY(clmc_enqueue(s->rt, s->energy_update, 1, &global, &s->energy_wg, CLMC_TIMED));
    s->pass_energies_ready = true;
    return CLMC_OK;
}

/* Energies H = DIM N - 2 (satisfied bonds) of every configuration; the counts
 * are set back to 0 for the next pass. */
clmc_status ea_energy_pass_read(ea_state *s, double *energies)
{
    s->pass_energies_ready = false;
    cl_command_queue queue = clmc_runtime_queue(s->rt);
    size_t bytes = s->configurations * sizeof(cl_int);
    CLMC_CL_TRY(clEnqueueReadBuffer(queue, s->energy_counts, CL_TRUE, 0, bytes, s->energy_counts_host, 0, NULL, NULL));
    for (cl_uint c = 0; c < s->configurations; c++)
        energies[c] = (double)s->dim * s->n_sites - 2.0 * s->energy_counts_host[c];
    cl_int zero = 0;
    CLMC_CL_TRY(clEnqueueFillBuffer(queue, s->energy_counts, &zero, sizeof zero, 0, bytes, 0, NULL, NULL));
    return CLMC_OK;
}

/* Tempering on the device: the pass's counts of satisfied bonds (energy -2
 * per count), in the default mode only (measure and check keep the host
 * path). */
clmc_status ea_energies_device(void *state, cl_mem *energies, int *scale)
{
    ea_state *s = state;
    bool available = ea_energy_pass_available(s) && s->energy_mode == EA_ENERGIES_PASS;
    *energies = available ? s->energy_counts : NULL;
    *scale = -2;
    s->pass_energies_ready = false;
    return CLMC_OK;
}

clmc_status ea_set_temperatures_device(void *state, cl_mem config_at, cl_mem temperature_of)
{
    ea_state *s = state;
    if (!s->lane_masks_update)
        CLMC_TRY(clmc_kernel_create(s->lane_masks_program, "ea_msc_lane_masks", &s->lane_masks_update));
    CLMC_CL_TRY(clSetKernelArg(s->lane_masks_update, 0, sizeof(cl_mem), &config_at));
    CLMC_CL_TRY(clSetKernelArg(s->lane_masks_update, 1, sizeof(cl_mem), &temperature_of));
    CLMC_CL_TRY(clSetKernelArg(s->lane_masks_update, 2, sizeof(cl_mem), &s->lane_masks));
    return clmc_enqueue_items(s->rt, s->lane_masks_update, (size_t)s->stacks * (s->temperatures + 1), CLMC_UNTIMED);
}

/* Work-items of ea_msc_exchange's group: more than one per system spreads
 * its coalesced loads and stores over more warps of the compute unit that
 * exchanges a realization word (512 exceeded NVIDIA's register limit for the
 * kernel at 32 temperatures, and the engine then fell back to the general
 * kernel). */
#define EXCHANGE_GROUP_TARGET 256

/* Whether the device can run ea_msc_exchange, and with how many work-items
 * per system (s->exchange_spread; also sets s->place_bits): its work-group of
 * 2 W chains times the spread and, in local memory, the padded maps of 2 W x
 * (TEMPERATURES + 1) places (one byte each up to 256 temperatures, else two)
 * and energies or temperatures (4 bytes), the reaches of 2 W x (TEMPERATURES
 * - 1) pairs and the planes of the word's 2 TEMPERATURES stacks (2 PLACE_BITS
 * words each). */
bool ea_exchange_fits(ea_state *s)
{
    const clmc_device_info *d = clmc_runtime_device(s->rt);
    size_t systems = 2 * (size_t)s->word_bits, place_bytes = s->temperatures <= 256 ? 1 : 2;
    s->place_bits = 1;
    while (((size_t)1 << s->place_bits) < s->temperatures) s->place_bits++;
    size_t local = systems * (s->temperatures + 1) * (place_bytes + sizeof(cl_int)) +
                   systems * (s->temperatures - 1) * sizeof(cl_uint) +
                   2 * (size_t)s->temperatures * 2 * s->place_bits * ea_word_bytes(s);
    s->exchange_spread = 1;
    while (systems * s->exchange_spread * 2 <= EXCHANGE_GROUP_TARGET &&
           systems * s->exchange_spread * 2 <= d->max_work_group_size)
        s->exchange_spread *= 2;
    return s->msc && s->temperatures > 1 && !s->independent && d->max_work_group_size >= systems && local <= d->local_mem_bytes;
}

/* The exchange and the lane masks in one kernel where it was built and
 * the kernel's work-group fits the device, with the energy pass as its reach
 * pass. */
clmc_status ea_exchange_kernel(void *state, clmc_exchange_kernels *out)
{
    ea_state *s = state;
    memset(out, 0, sizeof *out);
    size_t group = 2 * (size_t)s->word_bits * s->exchange_spread;
    if (!s->exchange_fused || s->energy_mode != EA_ENERGIES_PASS || !s->energy_update) return CLMC_OK;
    if (!s->exchange) {
        CLMC_TRY(clmc_kernel_create(s->exchange_program, "ea_msc_exchange", &s->exchange));
        size_t limit;
        CLMC_TRY(clmc_kernel_group_limit(s->rt, s->exchange, &limit));
        if (limit < group) return CLMC_OK;
        CLMC_CL_TRY(clSetKernelArg(s->exchange, EXCHANGE_LANE_MASKS_ARGUMENT, sizeof(cl_mem), &s->lane_masks));
        s->exchange_usable = true;
    }
    if (!s->exchange_usable) return CLMC_OK;
    *out = (clmc_exchange_kernels){.kernel = s->exchange, .group = group, .items_per_system = s->exchange_spread,
                                   .reach_pass = s->energy_update, .reach_argument = ENERGY_REACH_ARGUMENT};
    return CLMC_OK;
}

void ea_energy_pass_destroy(ea_state *s)
{
    if (s->lane_masks_update) CLMC_CL_WARN(clReleaseKernel(s->lane_masks_update));
    if (s->exchange) CLMC_CL_WARN(clReleaseKernel(s->exchange));
    if (s->energy_update) CLMC_CL_WARN(clReleaseKernel(s->energy_update));
    if (s->member_update) CLMC_CL_WARN(clReleaseKernel(s->member_update));
    if (s->resident_update) CLMC_CL_WARN(clReleaseKernel(s->resident_update));
    if (s->resident_program) CLMC_CL_WARN(clReleaseProgram(s->resident_program));
    if (s->member_program) CLMC_CL_WARN(clReleaseProgram(s->member_program));
    free(s->member_check_host);
    if (s->energy_program) CLMC_CL_WARN(clReleaseProgram(s->energy_program));
    if (s->lane_masks_program) CLMC_CL_WARN(clReleaseProgram(s->lane_masks_program));
    if (s->exchange_program) CLMC_CL_WARN(clReleaseProgram(s->exchange_program));
    if (s->energy_counts) CLMC_CL_WARN(clReleaseMemObject(s->energy_counts));
    free(s->energy_counts_host);
}
