/* Tempering energies of the EA msc layout without a measurement pass: the
 * last colour pass of a sweep that an exchange follows is run by a variant of
 * ea_msc_update (cl/ea_ising.cl built with ENERGY_PASS = 1) that also counts
 * every configuration's satisfied bonds; the groups' counts are summed on the
 * device and one integer per configuration is read back.  CLMC_EA_ENERGIES
 * selects "pass" (default), "measure" (the measurement kernel, as before) or
 * "check" (both, counting configurations whose energies differ). */
#include "models/ea_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ENERGY_WG_MAX 128
/* Sites per work-item: the fold's cost spread over more updates, against
 * fewer work-items in flight.  CLMC_EA_ENERGY_SITES overrides it (benchmarks;
 * the same energies whatever the value). */
#define ENERGY_SITES_DEFAULT 16 /* fastest of 4, 8, 16, 32 on an H200 at L = 32 and 64 (benchmarks/README.md) */
#define ENERGY_SITES_MAX 64

static clmc_status energy_sites(unsigned *sites)
{
    const char *text = getenv("CLMC_EA_ENERGY_SITES");
    *sites = ENERGY_SITES_DEFAULT;
    if (!text || !*text) return CLMC_OK;
    char *end;
    long n = strtol(text, &end, 10);
    if (*end || n < 1 || n > ENERGY_SITES_MAX)
        return clmc_fail(CLMC_ERR_INPUT, "CLMC_EA_ENERGY_SITES: expected 1 .. %d, got \"%s\"", ENERGY_SITES_MAX, text);
    *sites = (unsigned)n;
    return CLMC_OK;
}

static clmc_status energy_mode(ea_energy_mode *mode)
{
    const char *text = getenv("CLMC_EA_ENERGIES");
    if (!text || !*text || strcmp(text, "pass") == 0) *mode = EA_ENERGIES_PASS;
    else if (strcmp(text, "measure") == 0) *mode = EA_ENERGIES_MEASURE;
    else if (strcmp(text, "check") == 0) *mode = EA_ENERGIES_CHECK;
    else return clmc_fail(CLMC_ERR_INPUT, "CLMC_EA_ENERGIES: expected \"pass\", \"measure\" or \"check\", got \"%s\"", text);
    return CLMC_OK;
}

/* Work-groups of a power of two work-items of ENERGY_SITES sites each (the
 * smallest group covering the colour's sites, at most ENERGY_WG_MAX), folded
 * completely; counters wide enough for 2 DIM satisfied bonds per site. */
static void plan_energy_pass(ea_state *s, unsigned sites)
{
    const clmc_device_info *d = clmc_runtime_device(s->rt);
    size_t half = s->n_sites / 2;
    size_t wg = clmc_power_of_two_at_most(d->max_work_group_size < ENERGY_WG_MAX ? d->max_work_group_size : ENERGY_WG_MAX);
    while (wg > 1 && wg / 2 * sites >= half) wg /= 2;
    s->energy_wg = wg;
    s->energy_groups = (half + wg * sites - 1) / (wg * sites);
    s->energy_fold_rounds = 0;
    while (((size_t)1 << s->energy_fold_rounds) < wg) s->energy_fold_rounds++;
    s->energy_levels = 1;
    while (((size_t)1 << s->energy_levels) <= 2 * (size_t)s->dim * sites * wg) s->energy_levels++;
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
    CLMC_CL_TRY(clSetKernelArg(s->energy_update, arg++, sizeof(cl_mem), &s->energy_partials));
    CLMC_CL_TRY(clSetKernelArg(s->sum_energies, 0, sizeof(cl_mem), &s->energy_partials));
    CLMC_CL_TRY(clSetKernelArg(s->sum_energies, 1, sizeof(cl_mem), &s->pass_energies));
    return CLMC_OK;
}

static clmc_status create_device_buffer(ea_state *s, size_t bytes, cl_mem *out, const char *what)
{
    const clmc_device_info *d = clmc_runtime_device(s->rt);
    if (bytes > d->max_alloc_bytes)
        return clmc_fail(CLMC_ERR_INPUT, "model.realizations: the %s need %zu bytes in one buffer; %s allows %llu",
                         what, bytes, d->name, (unsigned long long)d->max_alloc_bytes);
    return clmc_buffer_create(s->rt, bytes, NULL, what, out);
}

clmc_status ea_energy_pass_create(ea_state *s, const char *base_options)
{
    CLMC_TRY(energy_mode(&s->energy_mode));
    if (!s->msc || s->temperatures < 2 || s->energy_mode == EA_ENERGIES_MEASURE) return CLMC_OK;
    unsigned sites;
    CLMC_TRY(energy_sites(&sites));
    plan_energy_pass(s, sites);
    char options[768];
    snprintf(options, sizeof options, "%s -DENERGY_PASS=1 -DENERGY_WG=%zu -DENERGY_GROUPS=%zu -DENERGY_SITES=%u "
             "-DENERGY_LEVELS=%u -DENERGY_FOLD_ROUNDS=%u", base_options, s->energy_wg, s->energy_groups, sites,
             s->energy_levels, s->energy_fold_rounds);
    CLMC_TRY(clmc_program_build(s->rt, "ea_ising.cl", options, &s->energy_program));
    CLMC_TRY(clmc_kernel_create(s->energy_program, "ea_msc_update", &s->energy_update));
    CLMC_TRY(clmc_kernel_create(s->energy_program, "ea_sum_energy_groups", &s->sum_energies));
    size_t n = s->configurations;
    CLMC_TRY(create_device_buffer(s, n * s->energy_groups * sizeof(cl_uint), &s->energy_partials, "energy partials"));
    CLMC_TRY(create_device_buffer(s, n * sizeof(cl_long), &s->pass_energies, "energies"));
    s->pass_energies_host = malloc(n * sizeof *s->pass_energies_host);
    if (!s->pass_energies_host) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    return set_energy_arguments(s);
}

bool ea_energy_pass_available(const ea_state *s)
{
    return s->energy_update != NULL;
}

clmc_status ea_energy_pass_enqueue(ea_state *s, cl_uint sweep)
{
    CLMC_CL_TRY(clSetKernelArg(s->energy_update, 6, sizeof(cl_uint), &sweep));
    size_t global = (size_t)s->stacks / 2 * s->energy_groups * s->energy_wg, configurations = s->configurations;
    CLMC_TRY(clmc_enqueue(s->rt, s->energy_update, 1, &global, &s->energy_wg, CLMC_TIMED));
    CLMC_TRY(clmc_enqueue(s->rt, s->sum_energies, 1, &configurations, NULL, CLMC_UNTIMED));
    s->pass_energies_ready = true;
    return CLMC_OK;
}

clmc_status ea_energy_pass_read(ea_state *s, double *energies)
{
    s->pass_energies_ready = false;
    CLMC_CL_TRY(clEnqueueReadBuffer(clmc_runtime_queue(s->rt), s->pass_energies, CL_TRUE, 0,
                                    s->configurations * sizeof(cl_long), s->pass_energies_host, 0, NULL, NULL));
    for (cl_uint c = 0; c < s->configurations; c++) energies[c] = -(double)s->pass_energies_host[c];
    return CLMC_OK;
}

/* Tempering on the device: the pass's tallies (minus the energies), in the
 * default mode only (measure and check keep the host path). */
clmc_status ea_energies_device(void *state, cl_mem *energies, int *sign)
{
    ea_state *s = state;
    bool available = ea_energy_pass_available(s) && s->energy_mode == EA_ENERGIES_PASS;
    *energies = available ? s->pass_energies : NULL;
    *sign = -1;
    s->pass_energies_ready = false;
    return CLMC_OK;
}

clmc_status ea_set_temperatures_device(void *state, cl_mem config_at, cl_mem temperature_of)
{
    ea_state *s = state;
    if (!s->lane_masks_update) CLMC_TRY(clmc_kernel_create(s->program, "ea_msc_lane_masks", &s->lane_masks_update));
    CLMC_CL_TRY(clSetKernelArg(s->lane_masks_update, 0, sizeof(cl_mem), &config_at));
    CLMC_CL_TRY(clSetKernelArg(s->lane_masks_update, 1, sizeof(cl_mem), &temperature_of));
    CLMC_CL_TRY(clSetKernelArg(s->lane_masks_update, 2, sizeof(cl_mem), &s->lane_masks));
    size_t stacks = s->stacks;
    return clmc_enqueue(s->rt, s->lane_masks_update, 1, &stacks, NULL, CLMC_UNTIMED);
}

void ea_energy_pass_destroy(ea_state *s)
{
    if (s->lane_masks_update) CLMC_CL_WARN(clReleaseKernel(s->lane_masks_update));
    if (s->energy_update) CLMC_CL_WARN(clReleaseKernel(s->energy_update));
    if (s->sum_energies) CLMC_CL_WARN(clReleaseKernel(s->sum_energies));
    if (s->energy_program) CLMC_CL_WARN(clReleaseProgram(s->energy_program));
    if (s->energy_partials) CLMC_CL_WARN(clReleaseMemObject(s->energy_partials));
    if (s->pass_energies) CLMC_CL_WARN(clReleaseMemObject(s->pass_energies));
    free(s->pass_energies_host);
}
