/* Exact integer acceptance thresholds for tempering exchanges between
 * configurations with integer energies: they reproduce the host rule of
 * tempering.c bit for bit without a logarithm, on the host or a device. */
#ifndef CLMC_TEMPERING_TABLE_H
#define CLMC_TEMPERING_TABLE_H

#include <stdbool.h>
#include <stdint.h>

#include "tempering.h"

/* Above this many thresholds in all (tiny beta steps) the table is not built. */
#define CLMC_TEMPERING_TABLE_MAX (1u << 20)

/* For pair t and an energy difference k = E_b - E_a < 0 the exchange is
 * accepted iff the uniform's word v < threshold[offset[t] + (-k - 1)]
 * (a threshold of 2^32 accepts every v); for -k - 1 >= offset[t + 1] -
 * offset[t] it is rejected, and for k >= 0 accepted. */
typedef struct clmc_tempering_table {
    unsigned n_pairs;
    uint32_t *offset;    /* [pair + 1] */
    uint64_t *threshold; /* [offset[pair] + (-k - 1)] */
    float *reach_scale; /* [pair]: ln 2 / (beta_t+1 - beta_t) rounded to float, for the device's reach guesses */
} clmc_tempering_table;

/* Builds the table for pt's betas; returns false (and leaves it empty) when
 * it would hold more than CLMC_TEMPERING_TABLE_MAX entries or memory fails. */
bool clmc_tempering_table_build(clmc_tempering_table *table, const clmc_tempering *pt);
void clmc_tempering_table_free(clmc_tempering_table *table);
/* The decision for pair t, energy difference k = E_b - E_a and uniform word v. */
bool clmc_tempering_table_accepts(const clmc_tempering_table *table, unsigned t, int64_t k, uint32_t v);

#endif
