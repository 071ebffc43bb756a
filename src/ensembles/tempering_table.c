/* Exact integer acceptance thresholds for tempering exchanges: for every
 * neighbouring pair and every negative integer energy difference, the
 * smallest uniform word the host rule rejects, found by binary search with
 * the host's own log u. */
#include "tempering_table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* log u >= log(0.5 / 2^32) > -22.9 for every word: differences with
 * dbeta k below -LOG_U_FLOOR are always rejected. */
#define LOG_U_FLOOR 23.0
#define WORDS (UINT64_C(1) << 32)

/* The smallest v in [0, 2^32] with v = 2^32 or log u(v) >= log_ratio: the
 * host accepts exactly the words below it (log u grows with v). */
static uint64_t first_rejected(double log_ratio)
{
    uint64_t lo = 0, hi = WORDS;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (clmc_tempering_log_uniform(mid) >= log_ratio) hi = mid;
        else lo = mid + 1;
    }
    return lo;
}

/* Entries for pair t: differences k = -1 .. -n with dbeta k > -LOG_U_FLOOR. */
static uint64_t pair_entries(double dbeta)
{
    if (!(dbeta > 0)) return UINT64_MAX;
    double n = ceil(LOG_U_FLOOR / dbeta) + 1;
    return n > (double)CLMC_TEMPERING_TABLE_MAX ? UINT64_MAX : (uint64_t)n;
}

bool clmc_tempering_table_build(clmc_tempering_table *table, const clmc_tempering *pt)
{
    memset(table, 0, sizeof *table);
    if (pt->n_temperatures < 2) return false;
    unsigned pairs = pt->n_temperatures - 1;
    uint64_t total = 0;
    for (unsigned t = 0; t < pairs; t++) {
        uint64_t n = pair_entries(pt->betas[t + 1] - pt->betas[t]);
        if (n == UINT64_MAX || (total += n) > CLMC_TEMPERING_TABLE_MAX) return false;
    }
    table->offset = malloc((pairs + 1) * sizeof *table->offset);
    table->threshold = malloc(total * sizeof *table->threshold);
    table->reach_scale = malloc(pairs * sizeof *table->reach_scale);
    if (!table->offset || !table->threshold || !table->reach_scale) {
        clmc_tempering_table_free(table);
        return false;
    }
    table->n_pairs = pairs;
    table->offset[0] = 0;
    for (unsigned t = 0; t < pairs; t++) {
        /* The same expression as the host's log_ratio. */
        double dbeta = pt->betas[t + 1] - pt->betas[t];
        uint64_t n = pair_entries(dbeta);
        uint64_t *row = table->threshold + table->offset[t];
        table->reach_scale[t] = (float)(log(2.0) / dbeta);
        for (uint64_t i = 0; i < n; i++) row[i] = first_rejected(dbeta * ((double)-(int64_t)(i + 1)));
        table->offset[t + 1] = table->offset[t] + (uint32_t)n;
    }
    return true;
}

void clmc_tempering_table_free(clmc_tempering_table *table)
{
    free(table->offset);
    free(table->threshold);
    free(table->reach_scale);
    memset(table, 0, sizeof *table);
}

bool clmc_tempering_table_accepts(const clmc_tempering_table *table, unsigned t, int64_t k, uint32_t v)
{
    if (k >= 0) return true;
    uint64_t i = (uint64_t)(-(k + 1));
    if (i >= table->offset[t + 1] - table->offset[t]) return false;
    return v < table->threshold[table->offset[t] + i];
}
