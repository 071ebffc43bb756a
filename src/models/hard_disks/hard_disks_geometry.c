/* Hard disks on the host: the box and its cell list, the lattice start, the
 * invariant checks of a configuration and the configuration files; the
 * independent systems' views and launches, and the cell shift made alone
 * (disks_settle_shift) that both the sweeps and the checkpoints call. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/hard_disks/hard_disks.h"
#include "output/results.h"

#define CSV_MAX_DISKS (1u << 24)
#define SVG_MAX_DISKS 65536u

clmc_status disk_geometry_for(uint32_t n_disks, double packing_fraction, double contact_range, bool cell_exit,
                              disk_geometry *g)
{
    double box = sqrt((double)n_disks * DISK_PI / (4.0 * packing_fraction));
    uint32_t cells = (uint32_t)floor(box / sqrt(2.0)) + 1;
    cells += cells & 1u;
    g->n_disks = n_disks;
    g->cells = cells;
    g->width = (float)(box / cells);
    g->box = (double)cells * g->width;
    g->slots = cell_exit ? DISK_EXIT_SLOTS : DISK_SLOTS;
    g->margin = cell_exit ? (float)((g->width - 1.0 - contact_range) / 2) : 0.0f;
    if (cells < 4 || g->width <= 1.0 + contact_range)
        return clmc_fail(CLMC_ERR_INPUT,
                         "model.N: %u disks at packing fraction %g fill a box of %.3f diameters: %u cells of width "
                         "%.4f, need at least 4 cells per side wider than 1 + algorithm.pressure_range = %g",
                         n_disks, packing_fraction, box, cells, g->width, 1.0 + contact_range);
    if ((double)cells * cells * g->slots >= 4294967296.0 / 2)
        return clmc_fail(CLMC_ERR_INPUT, "model.N: %u disks need %u^2 cells, more than the kernels index", n_disks,
                         cells);
    return CLMC_OK;
}

size_t disk_slot_index(uint32_t cells, uint32_t x, uint32_t y, uint32_t slot)
{
    size_t q = (x & 1u) * (cells / 2) + (x >> 1);
    return ((size_t)slot * cells + y) * cells + q;
}

clmc_status disk_lattice_shape(uint32_t n_disks, double box, uint32_t *rows, uint32_t *columns)
{
    *columns = (uint32_t)ceil(sqrt(n_disks * sqrt(3.0) / 2.0));
    *rows = (n_disks + *columns - 1) / *columns;
    *rows += *rows & 1u;
    double ax = box / *columns, ay = box / *rows;
    double nearest = fmin(ax, sqrt(0.25 * ax * ax + ay * ay));
    if (nearest <= 1.0 + 1e-6)
        return clmc_fail(CLMC_ERR_INPUT,
                         "model.packing_fraction: too dense for the lattice start of %u disks (%u rows of %u, nearest "
                         "distance %.5f < 1 diameter)",
                         n_disks, *rows, *columns, nearest);
    return CLMC_OK;
}

void disk_locate(double coordinate, const disk_geometry *g, uint32_t *cell, float *local)
{
    double w = g->width;
    uint32_t c = (uint32_t)floor(coordinate / w);
    if (c >= g->cells) c = g->cells - 1;
    float l = (float)(coordinate - c * w);
    if (l <= 0.0f) l = nextafterf(0.0f, 1.0f);
    if (l > g->width) l = g->width;
    *cell = c;
    *local = l;
}

void disk_cells_clear(disk_cells *c)
{
    const disk_geometry *g = &c->g;
    size_t n_cells = (size_t)g->cells * g->cells;
    for (size_t i = 0; i < n_cells * g->slots * 2; i++) c->xy[i] = DISK_SENTINEL;
    memset(c->count, 0, n_cells * sizeof *c->count);
}

clmc_status disk_cells_insert(disk_cells *c, double x, double y, const char *start)
{
    const disk_geometry *g = &c->g;
    uint32_t cx, cy;
    float lx, ly;
    disk_locate(x, g, &cx, &lx);
    disk_locate(y, g, &cy, &ly);
    size_t cell = disk_slot_index(g->cells, cx, cy, 0);
    if (c->count[cell] == g->slots)
        return clmc_fail(CLMC_ERR_OTHER, "%s start: more than %u disks in cell (%u, %u)", start, g->slots, cx, cy);
    size_t slot = disk_slot_index(g->cells, cx, cy, c->count[cell]++);
    c->xy[2 * slot] = lx;
    c->xy[2 * slot + 1] = ly;
    return CLMC_OK;
}

clmc_status disk_lattice_start(disk_cells *c)
{
    const disk_geometry *g = &c->g;
    uint32_t rows, columns;
    CLMC_TRY(disk_lattice_shape(g->n_disks, g->box, &rows, &columns));
    disk_cells_clear(c);
    uint64_t sites = (uint64_t)rows * columns;
    double ax = g->box / columns, ay = g->box / rows;
    for (uint64_t s = 0; s < sites; s++) {
        if ((s + 1) * g->n_disks / sites == s * g->n_disks / sites) continue; /* a vacancy */
        uint32_t r = (uint32_t)(s / columns), k = (uint32_t)(s % columns);
        CLMC_TRY(disk_cells_insert(c, (k + 0.25 + 0.5 * (r & 1u)) * ax, (r + 0.5) * ay, "lattice"));
    }
    return CLMC_OK;
}

/* Squared distance of slot a in cell (x, y) to slot b in cell (x + dx, y + dy). */
static double distance2(const disk_cells *c, uint32_t x, uint32_t y, uint32_t a, int dx, int dy, uint32_t b)
{
    uint32_t m = c->g.cells, nx = (x + m + dx) % m, ny = (y + m + dy) % m;
    size_t i = disk_slot_index(m, x, y, a), j = disk_slot_index(m, nx, ny, b);
    double w = c->g.width;
    double rx = (double)c->xy[2 * j] + dx * w - c->xy[2 * i], ry = (double)c->xy[2 * j + 1] + dy * w - c->xy[2 * i + 1];
    return rx * rx + ry * ry;
}

/* Rows of cells in parallel on the host's cores (OpenMP): integer counts,
 * the same whatever the threads (9.2 million disks take about a second on
 * one core). */
disk_invariants disk_check(const disk_cells *c, double tolerance)
{
    uint64_t disks = 0, overlaps = 0, outside = 0;
    uint32_t m = c->g.cells;
    double limit = (1.0 - tolerance) * (1.0 - tolerance);
#pragma omp parallel for schedule(static) reduction(+ : disks, overlaps, outside)
    for (uint32_t y = 0; y < m; y++)
        for (uint32_t x = 0; x < m; x++) {
            uint32_t n = c->count[disk_slot_index(m, x, y, 0)];
            disks += n;
            for (uint32_t a = 0; a < n; a++) {
                size_t i = disk_slot_index(m, x, y, a);
                float lx = c->xy[2 * i], ly = c->xy[2 * i + 1];
                float low = -c->g.margin, high = c->g.width + c->g.margin;
                outside += !(lx > low && lx <= high && ly > low && ly <= high);
                for (int dy = -1; dy <= 1; dy++)
                    for (int dx = -1; dx <= 1; dx++) {
                        uint32_t nn = c->count[disk_slot_index(m, (x + m + dx) % m, (y + m + dy) % m, 0)];
                        for (uint32_t b = 0; b < nn; b++)
                            if ((dx || dy || a != b) && distance2(c, x, y, a, dx, dy, b) < limit) overlaps++;
                    }
            }
        }
    disk_invariants v = {disks, overlaps / 2, outside}; /* each pair was seen from both disks */
    return v;
}

static char *configuration_csv(const disk_cells *c, size_t *length)
{
    uint32_t m = c->g.cells;
    size_t capacity = 32 + (size_t)c->g.n_disks * 64, at = 0;
    char *text = malloc(capacity);
    if (!text) return NULL;
    at += (size_t)snprintf(text, capacity, "x,y,cell_x,cell_y\n");
    for (uint32_t y = 0; y < m; y++)
        for (uint32_t x = 0; x < m; x++)
            for (uint32_t a = 0; a < c->count[disk_slot_index(m, x, y, 0)] && capacity - at > 64; a++) {
                size_t i = disk_slot_index(m, x, y, a);
                at += (size_t)snprintf(text + at, capacity - at, "%.9g,%.9g,%u,%u\n",
                                       x * (double)c->g.width + c->xy[2 * i], y * (double)c->g.width + c->xy[2 * i + 1],
                                       x, y);
            }
    *length = at;
    return text;
}

clmc_status disk_positions_array(const disk_cells *c, clmc_array *positions)
{
    uint32_t m = c->g.cells;
    double *xy = malloc(((size_t)c->g.n_disks ? c->g.n_disks : 1) * 2 * sizeof *xy);
    if (!xy) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    size_t n = 0;
    for (uint32_t y = 0; y < m; y++)
        for (uint32_t x = 0; x < m; x++)
            for (uint32_t a = 0; a < c->count[disk_slot_index(m, x, y, 0)] && n < c->g.n_disks; a++, n++) {
                size_t i = disk_slot_index(m, x, y, a);
                xy[2 * n] = x * (double)c->g.width + c->xy[2 * i];
                xy[2 * n + 1] = y * (double)c->g.width + c->xy[2 * i + 1];
            }
    *positions = (clmc_array){.name = "positions", .type = CLMC_ARRAY_FLOAT64, .rank = 2, .dims = {n, 2}, .data = xy,
                              .attribute_names = {"box_length", "diameter"}, .attribute_values = {c->g.box, 1.0}};
    return CLMC_OK;
}

static char *configuration_svg(const disk_cells *c, size_t *length)
{
    uint32_t m = c->g.cells;
    size_t capacity = 512 + (size_t)c->g.n_disks * 64, at = 0;
    char *text = malloc(capacity);
    if (!text) return NULL;
    at += (size_t)snprintf(text, capacity,
                           "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %.6f %.6f\" width=\"800\" "
                           "height=\"800\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n<g fill=\"#4a7ab5\" "
                           "stroke=\"black\" stroke-width=\"0.02\">\n",
                           c->g.box, c->g.box);
    for (uint32_t y = 0; y < m; y++)
        for (uint32_t x = 0; x < m; x++)
            for (uint32_t a = 0; a < c->count[disk_slot_index(m, x, y, 0)]; a++) {
                size_t i = disk_slot_index(m, x, y, a);
                double px = x * (double)c->g.width + c->xy[2 * i], py = y * (double)c->g.width + c->xy[2 * i + 1];
                at += (size_t)snprintf(text + at, capacity - at, "<circle cx=\"%.5f\" cy=\"%.5f\" r=\"0.5\"/>\n", px,
                                       c->g.box - py);
            }
    at += (size_t)snprintf(text + at, capacity - at, "</g>\n</svg>\n");
    *length = at;
    return text;
}

clmc_status disk_write_configuration(const disk_cells *c, const char *dir)
{
    if (c->g.n_disks > CSV_MAX_DISKS) return CLMC_OK;
    size_t length = 0;
    char *csv = configuration_csv(c, &length);
    if (!csv) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    clmc_status status = clmc_write_file_atomic(dir, "configuration.csv", csv, length);
    free(csv);
    if (status != CLMC_OK || c->g.n_disks > SVG_MAX_DISKS) return status;
    char *svg = configuration_svg(c, &length);
    if (!svg) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    status = clmc_write_file_atomic(dir, "configuration.svg", svg, length);
    free(svg);
    return status;
}

disk_cells disks_system_view(const disks_state *s, uint32_t k)
{
    size_t cells = (size_t)s->host.g.cells * s->host.g.cells;
    return (disk_cells){s->host.g, s->host.xy + (size_t)k * cells * s->host.g.slots * 2, s->host.count + (size_t)k * cells};
}

clmc_status disks_enqueue_systems(disks_state *s, cl_kernel kernel, size_t items, clmc_timing timing)
{
    if (s->n_systems == 1) return clmc_enqueue_items(s->rt, kernel, items, timing); /* as a run of one system always did */
    size_t group = 256, limit = 0;
    CLMC_TRY(clmc_kernel_group_limit(s->rt, kernel, &limit));
    if (limit && limit < group) group = limit;
    while (group > 32 && group / 2 >= items) group /= 2; /* small systems: less idle work per group */
    size_t global[2] = {(items + group - 1) / group * group, s->n_systems}, local[2] = {group, 1};
    return clmc_enqueue(s->rt, kernel, 2, global, local, timing);
}

/* `kernel`'s first four arguments: the current buffers, read, and the
 * others, written (disks_shift, disks_shift_subsweep). */
clmc_status disks_set_buffer_pair(disks_state *s, cl_kernel kernel)
{
    int b = s->current;
    CLMC_CL_TRY(clSetKernelArg(kernel, 0, sizeof(cl_mem), &s->disk[b]));
    CLMC_CL_TRY(clSetKernelArg(kernel, 1, sizeof(cl_mem), &s->count[b]));
    CLMC_CL_TRY(clSetKernelArg(kernel, 2, sizeof(cl_mem), &s->disk[1 - b]));
    CLMC_CL_TRY(clSetKernelArg(kernel, 3, sizeof(cl_mem), &s->count[1 - b]));
    return CLMC_OK;
}

clmc_status disks_settle_shift(disks_state *s)
{
    if (!s->shift_pending) return CLMC_OK;
    CLMC_TRY(disks_set_buffer_pair(s, s->shift));
    CLMC_CL_TRY(clSetKernelArg(s->shift, 7, sizeof(cl_uint), &s->shift_slot));
    CLMC_TRY(disks_enqueue_systems(s, s->shift, (size_t)s->host.g.cells * s->host.g.cells, CLMC_TIMED));
    s->current = 1 - s->current;
    s->shift_pending = false;
    return CLMC_OK;
}
