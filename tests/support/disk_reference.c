/* Hard-disk references: a Pade resummation of the exact virial coefficients
 * and an all-pairs-in-neighbouring-bins overlap check of a configuration. */
#include "disk_reference.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* B_k / B_2^(k-1) for k = 1..10 (B_1 = B_2 = 1 in these units). */
static const double virial[10] = {1.0,       1.0,       0.782004,  0.53223180, 0.33355604,
                                  0.1988425, 0.1148728, 0.0649930, 0.0362193,  0.0199537};

/* Gaussian elimination with partial pivoting on an n x n system (n <= 8). */
static void solve(double a[8][9], int n)
{
    for (int col = 0; col < n; col++) {
        int pivot = col;
        for (int r = col + 1; r < n; r++)
            if (fabs(a[r][col]) > fabs(a[pivot][col])) pivot = r;
        for (int k = 0; k <= n; k++) {
            double t = a[col][k];
            a[col][k] = a[pivot][k];
            a[pivot][k] = t;
        }
        for (int r = 0; r < n; r++) {
            if (r == col) continue;
            double f = a[r][col] / a[col][col];
            for (int k = col; k <= n; k++) a[r][k] -= f * a[col][k];
        }
    }
    for (int r = 0; r < n; r++) a[r][n] /= a[r][r];
}

double disk_eos_pade(double eta)
{
    enum { L = 4, M = 5 };
    double a[8][9], q[M + 1] = {1}, p[L + 1];
    for (int i = 1; i <= M; i++) {
        for (int j = 1; j <= M; j++) a[i - 1][j - 1] = L + i - j >= 0 ? virial[L + i - j] : 0.0;
        a[i - 1][M] = -virial[L + i];
    }
    solve(a, M);
    for (int j = 1; j <= M; j++) q[j] = a[j - 1][M];
    for (int i = 0; i <= L; i++) {
        p[i] = 0;
        for (int j = 0; j <= i && j <= M; j++) p[i] += q[j] * virial[i - j];
    }
    double y = 2 * eta, num = 0, den = 0, power = 1;
    for (int k = 0; k <= M; k++, power *= y) {
        if (k <= L) num += p[k] * power;
        den += q[k] * power;
    }
    return num / den;
}

double disk_eos_liu(double eta)
{
    double e2 = eta * eta;
    return (1 + e2 / 8 + e2 * eta / 18 - 4 * e2 * e2 / 21) / ((1 - eta) * (1 - eta));
}

typedef struct {
    double x, y;
} point;

static double periodic(double d, double box)
{
    return d - box * round(d / box);
}

static void check_pairs(const point *disk, size_t n, double box, double tolerance, disk_configuration_report *r)
{
    int bins = (int)floor(box);
    if (bins < 3) bins = 1;
    double bin = box / bins;
    size_t *head = malloc((size_t)bins * bins * sizeof *head), *next = malloc(n * sizeof *next);
    for (size_t b = 0; b < (size_t)bins * bins; b++) head[b] = SIZE_MAX;
    for (size_t i = 0; i < n; i++) {
        int bx = (int)(disk[i].x / bin) % bins, by = (int)(disk[i].y / bin) % bins;
        size_t b = (size_t)by * bins + bx;
        next[i] = head[b];
        head[b] = i;
    }
    r->closest = INFINITY;
    for (size_t i = 0; i < n; i++) {
        int bx = (int)(disk[i].x / bin) % bins, by = (int)(disk[i].y / bin) % bins;
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
                if (bins == 1 && (dx || dy)) continue;
                size_t b = (size_t)((by + dy + bins) % bins) * bins + (size_t)((bx + dx + bins) % bins);
                for (size_t j = head[b]; j != SIZE_MAX; j = next[j]) {
                    if (j <= i) continue;
                    double rx = periodic(disk[j].x - disk[i].x, box), ry = periodic(disk[j].y - disk[i].y, box);
                    double d = sqrt(rx * rx + ry * ry);
                    r->closest = d < r->closest ? d : r->closest;
                    r->overlaps += d < 1 - tolerance;
                }
            }
    }
    free(head);
    free(next);
}

int disk_configuration_check(const char *csv_path, double box, double cell_width, double cell_slack, double tolerance,
                             disk_configuration_report *report)
{
    memset(report, 0, sizeof *report);
    FILE *f = fopen(csv_path, "r");
    if (!f) return -1;
    char line[256];
    if (!fgets(line, sizeof line, f) || strncmp(line, "x,y,cell_x,cell_y", 17) != 0) {
        fclose(f);
        return -1;
    }
    size_t capacity = 1024, n = 0;
    point *disk = malloc(capacity * sizeof *disk);
    double x, y;
    unsigned cx, cy;
    while (fscanf(f, "%lf,%lf,%u,%u", &x, &y, &cx, &cy) == 4) {
        if (n == capacity) disk = realloc(disk, (capacity *= 2) * sizeof *disk);
        disk[n++] = (point){x, y};
        double slack = cell_slack;
        report->outside_cell += x <= cx * cell_width - slack || x > (cx + 1) * cell_width + slack ||
                                y <= cy * cell_width - slack || y > (cy + 1) * cell_width + slack;
    }
    fclose(f);
    report->disks = n;
    check_pairs(disk, n, box, tolerance, report);
    free(disk);
    return 0;
}
