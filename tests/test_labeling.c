/* Connected-component labeling on the device against a host union-find, and
 * the percolation model built on it (wrapping probabilities against exact
 * values).  Labeling:
 * random bond configurations at p = 0.2, 0.5, 0.8 in 2D and 3D, several tile
 * edges (tiles per edge a power of two or not), clusters wrapping the torus
 * included; every case is labelled by both consolidation methods (label
 * relaxation and hierarchical sewing).  The device must give every site the
 * smallest site index of its cluster, i.e. exactly the partition of the host
 * union-find, with the same representatives.  Slabs (`layers`, the MPI
 * domain decomposition's labelling: open along the last axis) likewise,
 * against the host union-find without the bonds out of the last layer. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clmc/labeling.h"
#include "clmc/preset.h"
#include "physics.h"
#include "testenv.h"
#include "common/philox.h"

typedef struct {
    int dim, edge, tile;
    double p;
    int union_find;
    int layers; /* 0: the torus; else a slab of that many layers along the last axis */
} label_case;

ParameterizedTestParameters(labeling, partition_equals_host_union_find)
{
    static label_case cases[] = {
        {2, 64, 8, 0.2, 0, 0},   {2, 64, 8, 0.5, 0, 0},   {2, 64, 8, 0.8, 0, 0},  {2, 64, 16, 0.5, 0, 0},
        {2, 64, 32, 0.5, 0, 0},  {2, 48, 16, 0.5, 0, 0},  {2, 96, 32, 0.8, 0, 0}, {3, 16, 4, 0.2, 0, 0},
        {3, 16, 4, 0.5, 0, 0},   {3, 16, 8, 0.25, 0, 0},  {3, 16, 8, 0.8, 0, 0},  {3, 24, 8, 0.5, 0, 0},
        {2, 8, 8, 0.6, 0, 0},    {3, 8, 8, 0.5, 0, 0},    {2, 80, 16, 0.5, 0, 0}, {2, 64, 8, 0.2, 1, 0},
        {2, 64, 16, 0.5, 1, 0},  {2, 96, 32, 0.8, 1, 0},  {3, 16, 4, 0.5, 1, 0},  {3, 16, 8, 0.25, 1, 0},
        {3, 24, 8, 0.8, 1, 0},   {2, 16, 16, 0.5, 1, 0},  {3, 8, 8, 0.8, 1, 0}, /* one tile: wrap bonds in it */
        {2, 64, 8, 0.5, 0, 24}, {2, 48, 16, 0.8, 1, 32}, {2, 96, 32, 0.8, 0, 32}, {3, 16, 4, 0.5, 0, 8},
        {3, 24, 8, 0.8, 1, 16},
    };
    return cr_make_param_array(label_case, cases, sizeof cases / sizeof cases[0]);
}

static uint32_t find(uint32_t *parent, uint32_t x)
{
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
}

/* Union by smaller index: every root is its cluster's smallest site. */
static void unite(uint32_t *parent, uint32_t a, uint32_t b)
{
    a = find(parent, a);
    b = find(parent, b);
    if (a < b) parent[b] = a;
    else if (b < a) parent[a] = b;
}

static uint32_t neighbour_up(int dim, int edge, uint32_t site, int d)
{
    uint32_t stride = d == 0 ? 1u : (d == 1 ? (uint32_t)edge : (uint32_t)(edge * edge));
    uint32_t coordinate = site / stride % (uint32_t)edge;
    (void)dim;
    return coordinate == (uint32_t)edge - 1 ? site - (uint32_t)(edge - 1) * stride : site + stride;
}

/* True if some cluster wraps the torus along x: a depth-first search keeps
 * every site's unwrapped x; reaching a seen site with another unwrapped x
 * means a closed path around the torus. */
static int wraps_in_x(int dim, int edge, const uint8_t *bonds, size_t sites)
{
    long *unwrapped = malloc(sites * sizeof *unwrapped);
    char *seen = calloc(sites, 1);
    uint32_t *stack = malloc(sites * sizeof *stack);
    int found = 0;
    for (size_t start = 0; start < sites && !found; start++) {
        if (seen[start]) continue;
        size_t top = 0;
        stack[top++] = (uint32_t)start;
        seen[start] = 1;
        unwrapped[start] = 0;
        while (top && !found) {
            uint32_t s = stack[--top];
            for (int d = 0; d < dim; d++) {
                uint32_t stride = d == 0 ? 1u : (d == 1 ? (uint32_t)edge : (uint32_t)(edge * edge));
                uint32_t c = s / stride % (uint32_t)edge;
                uint32_t up = neighbour_up(dim, edge, s, d);
                uint32_t down = c == 0 ? s + (uint32_t)(edge - 1) * stride : s - stride;
                uint32_t next[2] = {up, down};
                int active[2] = {(bonds[s] >> d) & 1, (bonds[down] >> d) & 1};
                for (int k = 0; k < 2; k++) {
                    if (!active[k]) continue;
                    long x = unwrapped[s] + (d == 0 ? (k == 0 ? 1 : -1) : 0);
                    if (!seen[next[k]]) {
                        seen[next[k]] = 1;
                        unwrapped[next[k]] = x;
                        stack[top++] = next[k];
                    } else if (unwrapped[next[k]] != x) {
                        found = 1;
                    }
                }
            }
        }
    }
    free(unwrapped);
    free(seen);
    free(stack);
    return found;
}

ParameterizedTest(label_case *c, labeling, partition_equals_host_union_find, .timeout = 300)
{
    size_t layer = c->dim == 2 ? (size_t)c->edge : (size_t)c->edge * c->edge;
    size_t sites = layer * (size_t)(c->layers ? c->layers : c->edge);
    uint8_t *bonds = calloc(sites, 1);
    uint32_t *labels = malloc(sites * sizeof *labels), *parent = malloc(sites * sizeof *parent);
    cr_assert(bonds && labels && parent);
    clmc_philox_key key = {{(uint32_t)(1000 * c->p) + 17u * (uint32_t)c->tile, (uint32_t)c->edge}};
    uint32_t threshold = (uint32_t)(c->p * 4294967296.0);
    for (uint32_t site = 0; site < sites; site++) {
        clmc_philox_ctr r = clmc_random4(key, site, (uint32_t)c->dim, 0, 99u);
        for (int d = 0; d < c->dim; d++)
            if (r.v[d] < threshold) bonds[site] |= (uint8_t)(1u << d);
        parent[site] = site;
    }
    for (uint32_t site = 0; site < sites; site++)
        for (int d = 0; d < c->dim; d++) {
            bool leaves = c->layers && d == c->dim - 1 && site / layer == (size_t)c->layers - 1;
            if (((bonds[site] >> d) & 1u) && !leaves) unite(parent, site, neighbour_up(c->dim, c->edge, site, d));
        }
    clmc_runtime *rt = NULL;
    cr_assert_eq(clmc_runtime_open(NULL, &rt), CLMC_OK, "%s", clmc_error_message());
    size_t clusters = 0, largest = 0;
    size_t *sizes = calloc(sites, sizeof *sizes);
    for (uint32_t site = 0; site < sites; site++) {
        uint32_t root = find(parent, site);
        clusters += root == site;
        if (++sizes[root] > largest) largest = sizes[root];
    }
    int wraps = c->layers ? 0 : wraps_in_x(c->dim, c->edge, bonds, sites);
    if (c->p >= 0.8 && !c->layers) cr_expect(wraps, "p=%.2f should give a cluster wrapping the torus", c->p);
    const clmc_consolidation methods[] = {CLMC_CONSOLIDATE_RELAXATION, CLMC_CONSOLIDATE_SEWING};
    for (int k = 0; k < 2; k++) {
        clmc_consolidation method = methods[k];
        clmc_label_lattice lattice = {c->dim, c->edge, c->tile, c->union_find, method, c->layers};
        clmc_label_report report = {0};
        memset(labels, 0xff, sites * sizeof *labels);
        cr_assert_eq(clmc_label_bonds(rt, lattice, bonds, labels, &report), CLMC_OK, "%s", clmc_error_message());
        size_t mismatches = 0;
        for (uint32_t site = 0; site < sites; site++) mismatches += labels[site] != find(parent, site);
        printf("%s + %s, %dD L=%d%s tile %d p=%.2f: %zu clusters, largest %zu of %zu sites, %s in x; %u relaxation "
               "passes, %u sewing levels; %zu labels differ from the host union-find\n",
               c->union_find ? "union-find" : "self-labeling", k ? "sewing" : "relaxation", c->dim, c->edge,
               c->layers ? " (a slab)" : "", c->tile, c->p, clusters, largest, sites, wraps ? "a cluster wraps" : "none wraps", report.relax_passes,
               report.sewing_levels, mismatches);
        cr_expect_eq(mismatches, 0, "%s: %zu sites labelled differently from the host union-find",
                     k ? "sewing" : "relaxation", mismatches);
    }
    free(sizes);
    free(bonds);
    free(labels);
    free(parent);
    clmc_runtime_close(rt);
}

/* Several systems in one pair of buffers (clmc_labeler_run_systems, as
 * Potts Swendsen-Wang and percolation copies use it): each system, with its
 * own bond density (0.2 ... 0.8, so clusters from single sites to wrapping
 * ones side by side), must be labelled exactly as the host union-find of
 * that system alone labels it: site indices within the system, nothing
 * joined across systems.  2D with 4 tiles per edge and 3D with 2, and 2D
 * with one tile per lattice (its wrap bonds joined in the tile), every
 * labeling and consolidation method. */
Test(labeling, systems_label_as_if_alone, .timeout = 120)
{
    enum { SYSTEMS = 5 };
    const int shapes[][3] = {{2, 32, 8}, {3, 8, 4}, {2, 16, 16}}; /* dim, edge, tile (one tile: wraps in it) */
    clmc_runtime *rt = NULL;
    cr_assert_eq(clmc_runtime_open(NULL, &rt), CLMC_OK, "%s", clmc_error_message());
    for (int shape = 0; shape < 3; shape++) {
        int dim = shapes[shape][0], edge = shapes[shape][1], tile = shapes[shape][2];
        size_t sites = dim == 2 ? (size_t)edge * edge : (size_t)edge * edge * edge, all = SYSTEMS * sites;
        uint8_t *bonds = calloc(all, 1);
        uint32_t *labels = malloc(all * sizeof *labels), *parent = malloc(all * sizeof *parent);
        cr_assert(bonds && labels && parent);
        for (size_t i = 0; i < SYSTEMS; i++) {
            double p = 0.2 + 0.15 * (double)i;
            uint32_t threshold = (uint32_t)(p * 4294967296.0);
            clmc_philox_key key = {{(uint32_t)i + 41u, (uint32_t)edge}};
            uint8_t *b = bonds + i * sites;
            uint32_t *up = parent + i * sites;
            for (uint32_t site = 0; site < sites; site++) {
                clmc_philox_ctr r = clmc_random4(key, site, (uint32_t)dim, 0, 7u);
                for (int d = 0; d < dim; d++)
                    if (r.v[d] < threshold) b[site] |= (uint8_t)(1u << d);
                up[site] = site;
            }
            for (uint32_t site = 0; site < sites; site++)
                for (int d = 0; d < dim; d++)
                    if ((b[site] >> d) & 1u) unite(up, site, neighbour_up(dim, edge, site, d));
        }
        for (int method = 0; method < 4; method++) {
            clmc_label_lattice lattice = {dim, edge, tile, method / 2,
                                          method % 2 ? CLMC_CONSOLIDATE_SEWING : CLMC_CONSOLIDATE_RELAXATION, 0};
            clmc_labeler *labeler = NULL;
            cl_mem bond_buffer = NULL, label_buffer = NULL;
            cr_assert_eq(clmc_labeler_create(rt, lattice, &labeler), CLMC_OK, "%s", clmc_error_message());
            cr_assert_eq(clmc_buffer_create(rt, all, bonds, "bonds", &bond_buffer), CLMC_OK);
            cr_assert_eq(clmc_buffer_create(rt, all * sizeof *labels, NULL, "labels", &label_buffer), CLMC_OK);
            cr_assert_eq(clmc_labeler_run_systems(labeler, bond_buffer, label_buffer, SYSTEMS), CLMC_OK, "%s",
                         clmc_error_message());
            memset(labels, 0xff, all * sizeof *labels);
            cr_assert_eq(clEnqueueReadBuffer(clmc_runtime_queue(rt), label_buffer, CL_TRUE, 0, all * sizeof *labels,
                                             labels, 0, NULL, NULL), CL_SUCCESS);
            for (size_t i = 0; i < SYSTEMS; i++) {
                size_t mismatches = 0, clusters = 0;
                for (uint32_t site = 0; site < sites; site++) {
                    uint32_t root = find(parent + i * sites, site);
                    clusters += root == site;
                    mismatches += labels[i * sites + site] != root;
                }
                printf("%s + %s, %dD L=%d tile %d, system %zu of %d (p=%.2f): %zu clusters; %zu of %zu labels differ "
                       "from the host union-find of the system alone\n", method / 2 ? "union-find" : "self-labeling",
                       method % 2 ? "sewing" : "relaxation", dim, edge, tile, i, SYSTEMS, 0.2 + 0.15 * (double)i,
                       clusters, mismatches, sites);
                cr_expect_eq(mismatches, 0, "system %zu: %zu labels differ", i, mismatches);
            }
            clReleaseMemObject(bond_buffer);
            clReleaseMemObject(label_buffer);
            clmc_labeler_destroy(labeler);
        }
        free(bonds);
        free(labels);
        free(parent);
    }
    clmc_runtime_close(rt);
}

/* Bad lattices are input errors that name the problem. */
Test(labeling, invalid_lattices_are_input_errors)
{
    clmc_runtime *rt = NULL;
    cr_assert_eq(clmc_runtime_open(NULL, &rt), CLMC_OK, "%s", clmc_error_message());
    uint8_t bonds[64] = {0};
    uint32_t labels[64];
    clmc_label_lattice bad[] = {{4, 8, 0, 0, CLMC_CONSOLIDATE_RELAXATION, 0},
                                {2, 8, 3, 0, CLMC_CONSOLIDATE_SEWING, 0},
                                {2, 1, 0, 0, CLMC_CONSOLIDATE_RELAXATION, 0},
                                {3, 128, 32, 1, CLMC_CONSOLIDATE_RELAXATION, 0},
                                {2, 8, 0, 0, (clmc_consolidation)7, 0},
                                {2, 8, 0, 0, CLMC_CONSOLIDATE_SEWING, 8},   /* a slab as thick as the lattice */
                                {2, 16, 4, 0, CLMC_CONSOLIDATE_SEWING, 6}}; /* a tile not dividing the slab */
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        clmc_status status = clmc_label_bonds(rt, bad[i], bonds, labels, NULL);
        printf("dim %d edge %d tile %d consolidation %d: %s\n", bad[i].dim, bad[i].edge, bad[i].tile,
               (int)bad[i].consolidation, clmc_error_message());
        cr_expect_eq(status, CLMC_ERR_INPUT);
    }
    clmc_runtime_close(rt);
}

/* ---- Percolation model (model.type "percolation") ---------------------------- */

static double percolation_observable(const cJSON *result, const char *name, double *error)
{
    *error = test_observable(result, name, "error");
    return test_observable(result, name, "mean");
}

/* Bond percolation on the square lattice at p_c = 1/2, L = 64 torus: the
 * probabilities that a cluster wraps horizontally, in either direction and
 * in both, against the exact values (Pinson 1994; finite-size corrections
 * are O(L^-2)), 4000 independent samples. */
Test(labeling, bond_percolation_wrapping_matches_exact, .timeout = 300)
{
    const char *preset = "{\"model\": {\"type\": \"percolation\", \"dim\": 2, \"L\": 64, \"p\": 0.5, \"kind\": \"bond\"},"
                         " \"algorithm\": {\"tile\": 16}, \"run\": {\"thermalization\": 0, \"sweeps\": 4000, \"seed\": 12}}";
    cJSON *result = physics_run(preset, "percolation");
    const char *names[] = {"wrapping_horizontal", "wrapping_either", "wrapping_both"};
    const double exact[] = {0.521058290, 0.690473725, 0.351642855};
    for (int k = 0; k < 3; k++) {
        double error, value = percolation_observable(result, names[k], &error);
        char what[96];
        snprintf(what, sizeof what, "bond percolation L=64 p=1/2 %s", names[k]);
        double z = physics_compare(what, value, error, exact[k]);
        cr_expect_lt(z, 4.0, "%s off by %.2f sigma", names[k], z);
        cr_expect(error > 0.005 && error < 0.02, "%s error %.4f: not that of 4000 samples", names[k], error);
    }
    double error, largest = percolation_observable(result, "largest_cluster_fraction", &error);
    printf("largest cluster fraction %.4f +- %.4f\n", largest, error);
    cr_expect(largest > 0.3 && largest < 0.9, "largest cluster fraction %.4f is not critical-like", largest);
    cJSON_Delete(result);
}

/* Site percolation at the ends: p = 0 leaves no occupied site, p = 1 one
 * cluster of all sites that wraps in every direction (2D and 3D). */
Test(labeling, site_percolation_limits, .timeout = 120)
{
    for (int dim = 2; dim <= 3; dim++)
        for (int full = 0; full <= 1; full++) {
            char preset[512];
            snprintf(preset, sizeof preset,
                     "{\"model\": {\"type\": \"percolation\", \"dim\": %d, \"L\": 16, \"p\": %d, \"kind\": \"site\"},"
                     " \"run\": {\"thermalization\": 0, \"sweeps\": 5, \"seed\": 3}}", dim, full);
            cJSON *result = physics_run(preset, "site-percolation");
            double error, largest = percolation_observable(result, "largest_cluster_fraction", &error);
            double both = percolation_observable(result, "wrapping_both", &error);
            printf("site percolation %dD p=%d: largest %.3f, wrapping in all directions %.3f\n", dim, full, largest, both);
            cr_expect_float_eq(largest, full ? 1.0 : 0.0, 1e-12);
            cr_expect_float_eq(both, full ? 1.0 : 0.0, 1e-12);
            cJSON_Delete(result);
        }
}

/* Percolation has no temperature: an ensemble key is an error, as is a tile
 * that does not divide L or p outside [0, 1]; the command line exits with 2. */
Test(labeling, percolation_preset_errors)
{
    const char *presets[] = {
        "{\"model\": {\"type\": \"percolation\", \"L\": 16}, \"ensemble\": {\"beta\": 1}}",
        "{\"model\": {\"type\": \"percolation\", \"L\": 24}, \"algorithm\": {\"tile\": 16}}",
        "{\"model\": {\"type\": \"percolation\", \"L\": 16, \"p\": 1.5}}",
    };
    const char *needles[] = {"ensemble.beta", "algorithm.tile", "model.p"};
    for (int i = 0; i < 3; i++) {
        char label[32];
        snprintf(label, sizeof label, "percolation-invalid-%d", i);
        expect_input_error(presets[i], label, needles[i]);
    }
}
