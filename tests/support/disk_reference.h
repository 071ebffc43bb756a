/* Independent references for hard disks: the fluid equation of state and a
 * check of a written configuration. */
#ifndef CLMC_TEST_DISK_REFERENCE_H
#define CLMC_TEST_DISK_REFERENCE_H

#include <stddef.h>

/* Compressibility factor Z = beta P / rho of the hard-disk fluid at packing
 * fraction eta: the [4/5] Pade approximant, in y = 2 eta = B2 rho, of the
 * virial series with the coefficients B2..B10 of Clisby and McCoy, J. Stat.
 * Phys. 122, 15 (2006), Table 1 (d = 2). */
double disk_eos_pade(double eta);
/* Liu's fluid equation of state (arXiv:2010.10624, Eq. 1), a cross-check. */
double disk_eos_liu(double eta);

typedef struct {
    size_t disks, overlaps, outside_cell;
    double closest; /* smallest pair distance */
} disk_configuration_report;

/* Reads configuration.csv (x,y,cell_x,cell_y) and checks, with its own grid
 * of bins at least one diameter wide and minimum images in a periodic box of
 * edge `box`, every pair of disks in neighbouring bins for distances below
 * 1 - tolerance, and every disk against its cell [c w, (c + 1) w] widened by
 * cell_slack on every side. */
int disk_configuration_check(const char *csv_path, double box, double cell_width, double cell_slack, double tolerance,
                             disk_configuration_report *report);

#endif
