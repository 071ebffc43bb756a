/* Multicanonical walkers of the Ising model (src/ensembles/multicanonical.c):
 * one work-item per walker, each a whole periodic EDGE^DIM lattice swept site
 * by site in typewriter order with single-spin Metropolis updates accepted
 * with probability min(1, W(E') / W(E)), ln W(E) shared by all walkers.
 * Spins are interleaved across walkers (site i of walker w at i * N_WALKERS
 * + w) so that neighbouring work-items read neighbouring bytes.  Energies are
 * H = -sum over bonds of s_i s_j, binned as (E - E_MIN) / E_STEP.
 * Random numbers: purpose CLMC_PURPOSE_MULTICANONICAL, unit = walker,
 * sweep = the walker's sweep number, hit = site / 4 (one draw, four sites). */
#include "common/philox.h"

#if DIM == 2
#define N_SITES (EDGE * EDGE)
#else
#define N_SITES (EDGE * EDGE * EDGE)
#endif

inline int spin_at(global const char *spins, uint site, uint w)
{
    return spins[(size_t)site * N_WALKERS + w];
}

/* Sum of the 2 DIM neighbours of `site`; with forward_only, of the DIM
 * forward ones (each bond counted once for the energy). */
inline int neighbour_sum(global const char *spins, uint site, uint w, int forward_only)
{
    uint x = site % EDGE, y = (site / EDGE) % EDGE, row = site - x, plane = site - x - y * EDGE;
    int sum = spin_at(spins, row + (x + 1) % EDGE, w) + spin_at(spins, plane + ((y + 1) % EDGE) * EDGE + x, w);
    if (!forward_only)
        sum += spin_at(spins, row + (x + EDGE - 1) % EDGE, w) +
               spin_at(spins, plane + ((y + EDGE - 1) % EDGE) * EDGE + x, w);
#if DIM == 3
    uint z = site / (EDGE * EDGE), in_plane = site - z * EDGE * EDGE;
    sum += spin_at(spins, ((z + 1) % EDGE) * EDGE * EDGE + in_plane, w);
    if (!forward_only) sum += spin_at(spins, ((z + EDGE - 1) % EDGE) * EDGE * EDGE + in_plane, w);
#endif
    return sum;
}

/* Random start of every walker and its energy. */
kernel void muca_init(global char *spins, global int *energy, uint seed_lo, uint seed_hi)
{
    uint w = get_global_id(0);
    if (w >= N_WALKERS) return;
    clmc_philox_key key = {{seed_lo, seed_hi}};
    for (uint i = 0; i < N_SITES; i += 4) {
        clmc_philox_ctr r = clmc_random4(key, w, 0, i / 4, CLMC_STREAM(CLMC_PURPOSE_MULTICANONICAL, 1));
        for (uint q = 0; q < 4 && i + q < N_SITES; q++)
            spins[(size_t)(i + q) * N_WALKERS + w] = (r.v[q] >> 31) ? 1 : -1;
    }
    int e = 0;
    for (uint i = 0; i < N_SITES; i++) e -= spin_at(spins, i, w) * neighbour_sum(spins, i, w, 1);
    energy[w] = e;
}

/* `sweeps` sweeps of every walker from sweep number first_sweep on; with
 * `record`, the energy after every update is counted in the histogram of
 * the walker's jackknife block, histogram[block * N_BINS + bin], block =
 * work-group % BLOCKS (work-groups of GROUP walkers, the last one padded);
 * with LOCAL_HISTOGRAM the group counts in local memory first and reads the
 * weights from a local copy. */
kernel __attribute__((reqd_work_group_size(GROUP, 1, 1))) void
muca_sweeps(global char *spins, global int *energy, global const float *ln_w_global, global uint *histogram,
            uint first_sweep, uint sweeps, uint record, uint seed_lo, uint seed_hi)
{
    uint w = get_global_id(0);
    bool active = w < N_WALKERS;
    global uint *block = histogram + (get_group_id(0) % BLOCKS) * N_BINS;
#ifdef LOCAL_HISTOGRAM
    local uint counts[N_BINS];
    local float ln_w[N_BINS]; /* the weights' copy read at every update */
    for (uint i = get_local_id(0); i < N_BINS; i += GROUP) {
        counts[i] = 0;
        ln_w[i] = ln_w_global[i];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#else
    global uint *counts = block;
    global const float *ln_w = ln_w_global;
#endif
    clmc_philox_key key = {{seed_lo, seed_hi}};
    int e = active ? energy[w] : 0;
    float ln_w_now = ln_w[(e - E_MIN) / E_STEP];
    for (uint t = 0; active && t < sweeps; t++)
        for (uint i = 0; i < N_SITES; i += 4) {
            clmc_philox_ctr r =
                clmc_random4(key, w, first_sweep + t, i / 4, CLMC_STREAM(CLMC_PURPOSE_MULTICANONICAL, 0));
            for (uint q = 0; q < 4 && i + q < N_SITES; q++) {
                uint site = i + q;
                int s = spin_at(spins, site, w);
                int proposed = e + 2 * s * neighbour_sum(spins, site, w, 0);
                float ln_w_new = ln_w[(proposed - E_MIN) / E_STEP], difference = ln_w_new - ln_w_now;
                if (difference >= 0.0f || (float)(r.v[q] >> 8) * 0x1p-24f < exp(difference)) {
                    spins[(size_t)site * N_WALKERS + w] = (char)-s;
                    e = proposed;
                    ln_w_now = ln_w_new;
                }
                if (record) atomic_inc(counts + (e - E_MIN) / E_STEP);
            }
        }
    if (active) energy[w] = e;
#ifdef LOCAL_HISTOGRAM
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint i = get_local_id(0); record && i < N_BINS; i += GROUP)
        if (counts[i]) atomic_add(block + i, counts[i]);
#endif
}
