/* Pressure of hard disks from the pair distribution at contact (Anderson et
 * al. 2013, section 4): histogram of pair distances in [1, 1 + range) (on
 * the host here; on the device by disks_pair_histogram, identically), g(r)
 * at the bins' area-weighted mean radii, a least-squares polynomial
 * extrapolated to r = 1, and P* = rho (1 + pi/2 rho g(1)) (Eq. 4). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/hard_disks/hard_disks.h"

/* Solves the (n x n) system a z = b in place by Gaussian elimination with
 * partial pivoting; n <= 9. */
static void solve(double *a, double *b, int n)
{
    for (int col = 0; col < n; col++) {
        int pivot = col;
        for (int r = col + 1; r < n; r++)
            if (fabs(a[r * n + col]) > fabs(a[pivot * n + col])) pivot = r;
        for (int k = 0; k < n; k++) {
            double t = a[col * n + k];
            a[col * n + k] = a[pivot * n + k];
            a[pivot * n + k] = t;
        }
        double t = b[col];
        b[col] = b[pivot];
        b[pivot] = t;
        for (int r = 0; r < n; r++) {
            if (r == col) continue;
            double f = a[r * n + col] / a[col * n + col];
            for (int k = col; k < n; k++) a[r * n + k] -= f * a[col * n + k];
            b[r] -= f * b[col];
        }
    }
    for (int r = 0; r < n; r++) b[r] /= a[r * n + r];
}

/* Sampling point of bin [a, b): the area-weighted mean radius (seed Eq. 6). */
static double sampling_point(double a, double b)
{
    return 2.0 / 3.0 * (b * b * b - a * a * a) / (b * b - a * a);
}

clmc_status disk_pressure_init(disk_pressure *p, double bin, double range, int degree)
{
    memset(p, 0, sizeof *p);
    p->bin = bin;
    p->range = range;
    p->bins = (size_t)floor(range / bin + 0.5);
    if (p->bins < (size_t)degree + 2)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.pressure_range: %g holds %zu bins of algorithm.pressure_bin = %g, "
                         "need at least algorithm.pressure_degree + 2 = %d", range, p->bins, bin, degree + 2);
    p->weight = calloc(p->bins, sizeof *p->weight);
    p->histogram = calloc(p->bins, sizeof *p->histogram);
    p->edge2 = calloc(p->bins + 1, sizeof *p->edge2);
    if (!p->weight || !p->histogram || !p->edge2) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    for (size_t k = 0; k <= p->bins; k++) p->edge2[k] = (float)((1 + k * bin) * (1 + k * bin));
    int n = degree + 1;
    double normal[81] = {0}, z[9] = {1};
    for (size_t i = 0; i < p->bins; i++) {
        double t = (sampling_point(1 + i * bin, 1 + (i + 1) * bin) - 1) / range, power[18];
        power[0] = 1;
        for (int k = 1; k < 2 * n; k++) power[k] = power[k - 1] * t;
        for (int r = 0; r < n; r++)
            for (int k = 0; k < n; k++) normal[r * n + k] += power[r + k];
    }
    solve(normal, z, n); /* z = (V^T V)^-1 e_0: the fit's value at t = 0 is z . V^T g */
    for (size_t i = 0; i < p->bins; i++) {
        double t = (sampling_point(1 + i * bin, 1 + (i + 1) * bin) - 1) / range, power = 1;
        for (int k = 0; k < n; k++, power *= t) p->weight[i] += z[k] * power;
    }
    return CLMC_OK;
}

void disk_pressure_free(disk_pressure *p)
{
    free(p->weight);
    free(p->histogram);
    free(p->edge2);
    memset(p, 0, sizeof *p);
}

/* The bin of r2: edge2[k] <= r2 < edge2[k + 1], by the same bisection as
 * the kernel; bins when r2 is outside [edge2[0], edge2[bins]). */
static size_t bin_of(const disk_pressure *p, float r2)
{
    if (!(r2 >= p->edge2[0] && r2 < p->edge2[p->bins])) return p->bins;
    size_t lo = 0, hi = p->bins;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (r2 >= p->edge2[mid]) lo = mid;
        else hi = mid;
    }
    return lo;
}

/* Ordered pairs (each pair twice) into the histogram, from all 9 cells, in
 * float arithmetic step by step as disks_pair_histogram does it (one
 * operation per statement: nothing to contract into an fma). */
static void histogram_cell(disk_pressure *p, const disk_cells *c, uint32_t x, uint32_t y)
{
    uint32_t m = c->g.cells, n = c->count[disk_slot_index(m, x, y, 0)];
    for (uint32_t a = 0; a < n; a++) {
        size_t i = disk_slot_index(m, x, y, a);
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
                uint32_t nx = (x + m + dx) % m, ny = (y + m + dy) % m;
                uint32_t nn = c->count[disk_slot_index(m, nx, ny, 0)];
                float shift_x = (float)dx * c->g.width, shift_y = (float)dy * c->g.width;
                for (uint32_t b = 0; b < nn; b++) {
                    if (!dx && !dy && a == b) continue;
                    size_t j = disk_slot_index(m, nx, ny, b);
                    float qx = c->xy[2 * j] + shift_x, qy = c->xy[2 * j + 1] + shift_y;
                    float rx = qx - c->xy[2 * i], ry = qy - c->xy[2 * i + 1];
                    float xx = rx * rx, yy = ry * ry;
                    float r2 = xx + yy;
                    size_t k = bin_of(p, r2);
                    if (k < p->bins) p->histogram[k]++;
                }
            }
    }
}

void disk_pair_histogram(disk_pressure *p, const disk_cells *c)
{
    memset(p->histogram, 0, p->bins * sizeof *p->histogram);
    for (uint32_t y = 0; y < c->g.cells; y++)
        for (uint32_t x = 0; x < c->g.cells; x++) histogram_cell(p, c, x, y);
}

double disk_pressure_of(disk_pressure *p, const disk_cells *c)
{
    disk_pair_histogram(p, c);
    return disk_pressure_of_histogram(p, &c->g);
}

double disk_pressure_of_histogram(const disk_pressure *p, const disk_geometry *g)
{
    double density = g->n_disks / (g->box * g->box), contact = 0;
    for (size_t i = 0; i < p->bins; i++) {
        double a = 1 + i * p->bin, b = a + p->bin;
        double pair = (double)p->histogram[i] / (g->n_disks * density * DISK_PI * (b * b - a * a));
        contact += p->weight[i] * pair;
    }
    return density * (1.0 + DISK_PI / 2.0 * density * contact);
}
