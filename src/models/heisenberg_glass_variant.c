/* Benchmarking variants of the spin glass's global-memory update, chosen by
 * the hidden environment variable CLMC_GLASS_VARIANT (benchmarks/README.md,
 * benchmarks/glass_variants.sh): parsing, the kernel's build options, the
 * six-coupling buffer and the launch shape.  Every variant gives the default
 * kernel's results (cl/heisenberg_glass_update.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/disorder.h"
#include "models/heisenberg_internal.h"

#define VARIANT_ENV "CLMC_GLASS_VARIANT"
#define VARIANT_WG_MAX 1024

/* The default, the fastest measured on an H200 (benchmarks/README.md): the
 * over-relaxation kernel, two sites per item with two-wide loads where L
 * allows, work-groups of 128, colour-1 launches in reverse group order. */
static void measured_best(const heisenberg_state *s, heisenberg_glass_variant *v)
{
    v->kernel = v->or_kernel = v->reverse_odd = true;
    if (s->edge % 4 == 0) v->pair_loads = true, v->sites_per_item = 2, v->strided = false;
    if (clmc_runtime_device(s->rt)->max_work_group_size >= 128) v->work_group = 128;
}

/* One token: default (measured_best), plain (the first kernel: batch-free,
 * driver's work-group size), batch, x1|x2|x4 (sites per item along x),
 * x2s|x4s (strided), x2v (two sites, two-wide loads), or (a kernel with the
 * move fixed to over-relaxation for those sub-sweeps), j6 (six couplings per
 * site), rev (colour-1 launches visit their work-groups last to first), wgN
 * (work-group size N, a power of two up to 1024). */
static clmc_status parse_token(const heisenberg_state *s, heisenberg_glass_variant *v, const char *token)
{
    unsigned n = 0;
    char tail;
    if (strcmp(token, "default") == 0) measured_best(s, v);
    else if (strcmp(token, "plain") == 0) {
        memset(v, 0, sizeof *v);
        v->sites_per_item = 1;
    } else if (strcmp(token, "batch") == 0) v->kernel = true;
    else if (strcmp(token, "j6") == 0) v->kernel = v->j6 = true;
    else if (strcmp(token, "rev") == 0) v->kernel = v->reverse_odd = true;
    else if (strcmp(token, "or") == 0) v->kernel = v->or_kernel = true;
    else if (strcmp(token, "x2v") == 0) v->kernel = v->pair_loads = true, v->sites_per_item = 2, v->strided = false;
    else if (sscanf(token, "wg%u%c", &n, &tail) == 1 && n > 0 && n <= VARIANT_WG_MAX && (n & (n - 1)) == 0)
        v->work_group = n;
    else if (strlen(token) <= 3 && token[0] == 'x' && strchr("124", token[1]) && token[1] != 0
             && (token[2] == 0 || (token[2] == 's' && token[1] != '1'))) {
        v->kernel = true;
        v->sites_per_item = (unsigned)(token[1] - '0');
        v->strided = token[2] == 's';
    } else
        return clmc_fail(CLMC_ERR_INPUT, VARIANT_ENV ": unknown part \"%s\" (default, plain, batch, x1, x2, x4, x2s, x4s, "
                         "x2v, j6, or, rev, wgN with N a power of two up to 1024, joined by commas)", token);
    return CLMC_OK;
}

clmc_status clmc_heisenberg_glass_variant(heisenberg_state *s)
{
    heisenberg_glass_variant *v = &s->variant;
    memset(v, 0, sizeof *v);
    v->sites_per_item = 1;
    const char *text = getenv(VARIANT_ENV);
    if (!s->glass || s->tiled) return CLMC_OK;
    if (!text) text = "default";
    char copy[128];
    if (strlen(text) >= sizeof copy) return clmc_fail(CLMC_ERR_INPUT, VARIANT_ENV ": too long");
    strcpy(copy, text);
    for (char *token = strtok(copy, ","); token; token = strtok(NULL, ","))
        CLMC_TRY(parse_token(s, v, token));
    if (v->work_group > clmc_runtime_device(s->rt)->max_work_group_size)
        return clmc_fail(CLMC_ERR_INPUT, VARIANT_ENV ": wg%u exceeds the device's %zu work-items per group",
                         v->work_group, clmc_runtime_device(s->rt)->max_work_group_size);
    if (v->pair_loads && (v->sites_per_item != 2 || v->strided || s->edge % 4 != 0))
        return clmc_fail(CLMC_ERR_INPUT, VARIANT_ENV ": x2v needs model.L a multiple of 4 and no other x part");
    if ((s->n_sites / 2) % v->sites_per_item != 0)
        return clmc_fail(CLMC_ERR_INPUT, VARIANT_ENV ": %u sites per item do not divide the %u sites of a colour",
                         v->sites_per_item, s->n_sites / 2);
    return CLMC_OK;
}

int clmc_heisenberg_glass_variant_options(const heisenberg_state *s, char *out, size_t size)
{
    const heisenberg_glass_variant *v = &s->variant;
    if (!v->kernel) return snprintf(out, size, "%s", "");
    return snprintf(out, size, " -DGLASS_VARIANT -DSITES_PER_ITEM=%u%s%s%s%s", v->sites_per_item,
                    v->strided ? " -DSITES_STRIDED" : "", v->j6 ? " -DJ6" : "", v->pair_loads ? " -DPAIR_LOADS" : "",
                    v->reverse_odd ? " -DREVERSE_ODD=1" : "");
}

/* j6[(r 2 dim + k) N + packed(site)]: k < dim the +k bond of the site, k >=
 * dim the -(k - dim) bond (the +d bond of the -d neighbour). */
static clmc_status upload_six(heisenberg_state *s)
{
    size_t n = s->n_sites, per_sample = 2 * (size_t)s->dim * n, real = clmc_heisenberg_real_bytes(s);
    void *values = malloc(per_sample * s->realizations * real);
    if (!values) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    clmc_ea_couplings kind = s->bimodal ? CLMC_EA_BIMODAL : CLMC_EA_GAUSSIAN;
    size_t strides[3] = {1, (size_t)s->edge, (size_t)s->edge * s->edge};
    for (cl_uint r = 0; r < s->realizations; r++)
        for (size_t site = 0; site < n; site++)
            for (int d = 0; d < s->dim; d++) {
                size_t coordinate = site / strides[d] % (size_t)s->edge;
                size_t below = coordinate == 0 ? site + ((size_t)s->edge - 1) * strides[d] : site - strides[d];
                double up = clmc_ea_coupling(kind, s->seed, r, (uint32_t)site, (unsigned)d);
                double down = clmc_ea_coupling(kind, s->seed, r, (uint32_t)below, (unsigned)d);
                size_t p = clmc_heisenberg_packed_site(s, site), at_up = r * per_sample + (size_t)d * n + p;
                size_t at_down = at_up + (size_t)s->dim * n;
                if (s->is_double) ((double *)values)[at_up] = up, ((double *)values)[at_down] = down;
                else ((float *)values)[at_up] = (float)up, ((float *)values)[at_down] = (float)down;
            }
    clmc_status status = clmc_heisenberg_buffer(s, per_sample * s->realizations * real, values, &s->variant.six);
    free(values);
    return status;
}

clmc_status clmc_heisenberg_glass_variant_allocate(heisenberg_state *s)
{
    if (!s->variant.kernel) return CLMC_OK;
    if (s->variant.j6) CLMC_TRY(upload_six(s));
    else CLMC_TRY(clmc_heisenberg_buffer(s, sizeof(cl_double), NULL, &s->variant.six)); /* not read */
    CLMC_CL_TRY(clSetKernelArg(s->update, 9, sizeof(cl_mem), &s->variant.six));
    if (!s->variant.or_kernel) return CLMC_OK;
    CLMC_TRY(clmc_kernel_create(s->program, "heisenberg_glass_update_or", &s->variant.update_or));
    cl_kernel k = s->variant.update_or;
    CLMC_CL_TRY(clSetKernelArg(k, 0, sizeof(cl_mem), &s->spins));
    CLMC_CL_TRY(clSetKernelArg(k, 1, sizeof(cl_uint), &s->seed_lo));
    CLMC_CL_TRY(clSetKernelArg(k, 2, sizeof(cl_uint), &s->seed_hi));
    CLMC_CL_TRY(clSetKernelArg(k, 7, sizeof(cl_mem), &s->betas));
    CLMC_CL_TRY(clSetKernelArg(k, 8, sizeof(cl_mem), &s->couplings));
    CLMC_CL_TRY(clSetKernelArg(k, 9, sizeof(cl_mem), &s->variant.six));
    return CLMC_OK;
}

cl_kernel clmc_heisenberg_glass_variant_kernel(const heisenberg_state *s, cl_uint move)
{
    return s->variant.or_kernel && move == 2u /* MOVE_OVERRELAXATION */ ? s->variant.update_or : s->update;
}

void clmc_heisenberg_glass_variant_launch(const heisenberg_state *s, size_t global[2], size_t local[2], bool *has_local)
{
    const heisenberg_glass_variant *v = &s->variant;
    size_t items = s->n_sites / 2 / v->sites_per_item, wg = v->work_group;
    global[0] = wg ? (items + wg - 1) / wg * wg : items;
    global[1] = s->realizations;
    local[0] = wg;
    local[1] = 1;
    *has_local = wg != 0;
}
