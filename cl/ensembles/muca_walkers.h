/* The kernels every model's multicanonical and Wang-Landau walkers share
 * (src/ensembles/density_walkers.c): one work-item per walker, each a whole
 * system of N_SITES sites swept in typewriter order with single-site
 * Metropolis updates accepted with probability min(1, W(E') / W(E)).  The
 * including model file defines, before including this one:
 *   N_SITES, WORDS_PER_SITE (random 32-bit words one update uses: 1 or 2),
 *   walker_word: the element type of the walkers' buffer,
 *   walker_start(spins, w, key): the random start of walker w (draws of
 *     CLMC_STREAM(CLMC_PURPOSE_MULTICANONICAL, 1));
 *   walker_energy(spins, w): its integer energy;
 *   walker_t: a walker during one launch, in private memory, with
 *   walker_open(&c, spins, w) (before its first site),
 *   walker_visit(&c, site) (before each proposal at `site`, in sweep order),
 *   walker_propose(&c, site, choice, &new_value): the energy change of
 *     setting `site` to a new value drawn from the word `choice` (unused with
 *     WORDS_PER_SITE 1), that value stored in new_value,
 *   walker_set(&c, site, new_value) and
 *   walker_close(&c) (after its last site: the walker back in the buffer).
 * ensembles/muca_sites.h gives the walker_t of one char per site
 * interleaved across walkers (site i of walker w at i * N_WALKERS + w);
 * cl/ising/muca_ising.cl keeps 2D lattices as bit rows.  MAX_BIN_STEP: the
 * largest |bin change| of one update (the acceptance table's reach).
 * Random numbers: purpose CLMC_PURPOSE_MULTICANONICAL, unit = walker, sweep = the walker's sweep
 * number, hit = site / (4 / WORDS_PER_SITE): one draw serves 4 /
 * WORDS_PER_SITE sites, the acceptance word last.
 * Energy windows (WINDOWS > 1, Wang-Landau), with record 2 (the Wang-Landau
 * phase): walker w uses the weights ln_w[window_of[w] * N_BINS ...]
 * (through muca_acceptance), a walker inside its window's bins
 * window_bounds[2 window] .. window_bounds[2 window + 1] rejects every move
 * out of it (outside, the weights lead it in), and it counts in the
 * histogram row of its window.  Records 0 and 1 (thermalization and
 * production after it, every window with the same weights and open bounds:
 * muca_set_weights) keep no walker in a window, so the host runs them on
 * the program of one window (src/ensembles/density_walkers.c): window 0's
 * table and the group histograms, the same decisions and counts.
 * Models with a density of states per unit (clmc_density_walkers.units,
 * the EA spin glass's disorder realizations, run one unit after another):
 * muca_init and muca_sweeps take last model_data (clmc_density_walkers.data,
 * e.g. the couplings; NULL for the others) and unit; walker w of unit u
 * draws as Philox unit u N_WALKERS + w (w where u = 0), and a model's
 * walker_* may be macros that read model_data and unit.
 * Histogram counts go in by runs: a walker adds the number of updates it
 * spent in a bin when its energy leaves the bin, and at the end of the
 * launch (the same counts as one per update, far fewer atomics). */
#include "common/philox.h"

#ifndef WINDOWS
#define WINDOWS 1
#endif
#define SITES_PER_DRAW (4 / WORDS_PER_SITE)
#define TABLE_WIDTH (2 * MAX_BIN_STEP + 1)

/* Random start of every walker and its energy. */
kernel void muca_init(global walker_word *spins, global int *energy, uint seed_lo, uint seed_hi,
                      global const char *model_data, uint unit)
{
    uint w = get_global_id(0);
    if (w >= N_WALKERS) return;
    clmc_philox_key key = {{seed_lo, seed_hi}};
    walker_start(spins, w, key);
    energy[w] = walker_energy(spins, w);
}

/* acceptance[(window N_BINS + bin) TABLE_WIDTH + k], k = 0 .. 2
 * MAX_BIN_STEP: the threshold an update from `bin` to bin + k -
 * MAX_BIN_STEP is accepted below, from p = exp(difference) of the window's
 * weights ln_w, computed once per set of weights: an acceptance word's top
 * 24 bits u are below ceil(p 2^24) exactly where the float u 2^-24 is below
 * p (both sides exact: u < 2^24, p 2^24 a float scaled by a power of two),
 * so the decisions are those of the float comparison, without a conversion
 * per update.  2^24 (every u) where the difference is >= 0, 0 outside the
 * bins.  (H100, 2026-11-27: 2-4 % faster than float thresholds, e.g. L =
 * 48 2.96 -> 2.88 ps per update.) */
kernel void muca_acceptance(global const float *ln_w, global uint *acceptance)
{
    uint g = get_global_id(0);
    if (g >= WINDOWS * N_BINS * TABLE_WIDTH) return;
    uint k = g % TABLE_WIDTH, bin = g / TABLE_WIDTH % N_BINS, row = g / TABLE_WIDTH - bin;
    uint target = bin + k - MAX_BIN_STEP;
    uint value = 0;
    if (target < N_BINS) {
        float difference = ln_w[row + target] - ln_w[row + bin];
        value = difference >= 0.0f ? 0x1000000u : (uint)ceil(exp(difference) * 0x1p24f);
    }
    acceptance[g] = value;
}

/* `sweeps` sweeps of every walker from sweep number first_sweep on; with
 * `record` 1, the energy after every update is counted in the histogram of
 * the walker's jackknife block, histogram[block * N_BINS + bin], block =
 * work-group % BLOCKS (work-groups of GROUP walkers, the last one padded);
 * with record 2 in the row of its window.  With LOCAL_HISTOGRAM the group
 * counts in local memory first (not with record 2).  An update is accepted where the top 24
 * bits of its acceptance word are below the threshold of muca_acceptance:
 * with probability min(1, W(E') / W(E)), the same decisions as the uniform
 * (word >> 8) 2^-24 against exp of the weights' difference. */
kernel __attribute__((reqd_work_group_size(GROUP, 1, 1))) void
muca_sweeps(global walker_word *spins, global int *energy, global const uint *acceptance, global uint *histogram,
            uint first_sweep, uint sweeps, uint record, uint seed_lo, uint seed_hi, global const uint *window_of,
            global const uint *window_bounds, global const char *model_data, uint unit)
{
    uint w = get_global_id(0);
    bool active = w < N_WALKERS;
    global uint *block = histogram + (get_group_id(0) % BLOCKS) * N_BINS;
    /* windowed: the walkers kept in their windows, counting in the windows' rows (record 2) */
    bool windowed = WINDOWS > 1 && record == 2;
    uint window = active && windowed ? window_of[w] : 0;
    /* accept[bin (TABLE_WIDTH - 1) + new bin + MAX_BIN_STEP]: the table of the walker's window */
    global const uint *accept = acceptance + (size_t)window * N_BINS * TABLE_WIDTH;
    global uint *row = windowed ? histogram + window * N_BINS : block;
#ifdef LOCAL_HISTOGRAM
    local uint group_counts[N_BINS];
    for (uint i = get_local_id(0); i < N_BINS; i += GROUP) group_counts[i] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
/* n more updates in `bin`: in the window's row (windowed), else in the group's histogram */
#define MUCA_COUNT(bin, n) (windowed ? atomic_add(row + (bin), n) : atomic_add(group_counts + (bin), n))
#else
#define MUCA_COUNT(bin, n) atomic_add(row + (bin), n)
#endif
#if WINDOWS > 1
    uint lowest = active && windowed ? window_bounds[2 * window] : 0;
    uint highest = active && windowed ? window_bounds[2 * window + 1] : 0;
#endif
    clmc_philox_key key = {{seed_lo, seed_hi}};
    /* The energy E_MIN + E_STEP bin_now; run: updates spent in bin_now, not yet counted. */
    uint bin_now = active ? (uint)(energy[w] - E_MIN) / E_STEP : 0, run = 0;
    walker_t c;
    walker_open(&c, spins, w);
    for (uint t = 0; active && t < sweeps; t++)
        for (uint i = 0; i < N_SITES; i += SITES_PER_DRAW) {
            clmc_philox_ctr r = clmc_random4(key, unit * N_WALKERS + w, first_sweep + t, i / SITES_PER_DRAW,
                                             CLMC_STREAM(CLMC_PURPOSE_MULTICANONICAL, 0));
            /* sites of this draw: SITES_PER_DRAW (a constant the loop unrolls by) but at the end */
            uint draw_sites = N_SITES % SITES_PER_DRAW == 0 ? SITES_PER_DRAW : min((uint)SITES_PER_DRAW, N_SITES - i);
            for (uint q = 0; q < draw_sites; q++) {
                uint site = i + q, accept_word = r.v[WORDS_PER_SITE * q + WORDS_PER_SITE - 1];
                int new_value;
                walker_visit(&c, site);
                uint bin_new = bin_now + walker_propose(&c, site, r.v[WORDS_PER_SITE * q], &new_value) / E_STEP;
                bool accepted = accept_word >> 8 < accept[bin_now * (TABLE_WIDTH - 1) + bin_new + MAX_BIN_STEP];
#if WINDOWS > 1
                if (windowed && bin_now >= lowest && bin_now <= highest && (bin_new < lowest || bin_new > highest))
                    accepted = false;
#endif
                if (accepted) {
                    walker_set(&c, site, new_value);
                    if (record && bin_new != bin_now && run) {
                        MUCA_COUNT(bin_now, run);
                        run = 0;
                    }
                    bin_now = bin_new;
                }
                run++;
            }
        }
    if (active) {
        walker_close(&c);
        energy[w] = E_MIN + E_STEP * (int)bin_now;
        if (record && run) MUCA_COUNT(bin_now, run);
    }
#ifdef LOCAL_HISTOGRAM
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint i = get_local_id(0); record && !windowed && i < N_BINS; i += GROUP)
        if (group_counts[i]) atomic_add(block + i, group_counts[i]);
#endif
#undef MUCA_COUNT
}
