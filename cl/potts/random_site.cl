/* q-state Potts model, random-site dynamics (algorithm.layout "random_site",
 * docs/models/potts.md): the update of one attempt; the kernels, site picks
 * and streams are common/random_site.h's.  States uchar 0 .. Q - 1.
 *
 * Metropolis (HEATBATH 0): the new state is uniform among the Q - 1 others,
 * (now + 1 + floor(w (Q - 1) / 2^32)) mod Q from the proposal word w (each
 * offset's probability within 2^-32 of 1 / (Q - 1)); dE = (equal neighbours
 * now) - (equal neighbours after) is accepted if dE <= 0 or u < table[dE - 1]
 * = floor(exp(-beta dE) 2^32).
 *
 * Heat bath (HEATBATH 1): the new state k is drawn from the conditional
 * distribution, weight exp(beta n_k) for a state with n_k equal neighbours,
 * as integers: with m the largest n_k present, state k weighs
 * table[m (2 DIM + 1) + n_k] = round(2^31 exp(beta (n_k - m))) (the host's
 * table), the total T is summed exactly (ulong), and the state whose
 * interval of the cumulative weights holds floor(u T / 2^32) is taken.
 * Every conditional probability is within (Q + 2) 2^-32 of the exact one,
 * and the draw is integer arithmetic only: bit-identical on every device.
 * The walk over the states costs O(DIM^2), not O(Q): runs of states without
 * an equal neighbour are skipped by division.
 *
 * Defines: those of common/random_site.h, Q and HEATBATH (0|1). */
#define RS_SPIN uchar
#define RS_TABLE ((2 * DIM + 1) * (2 * DIM + 1))
#define RS_PROPOSALS (!HEATBATH)
#include "common/random_site.h"

#if HEATBATH
/* The new state for the neighbours' states `value` and the word u. */
inline uint heatbath_state(const uint *value, uint u, const uint *table)
{
    uint equal[NEIGHBOURS], most = 0, distinct = 0;
    for (uint n = 0; n < NEIGHBOURS; n++) {
        uint count = 0, earlier = 0;
        for (uint m = 0; m < NEIGHBOURS; m++) {
            count += value[m] == value[n];
            earlier += m < n && value[m] == value[n];
        }
        equal[n] = earlier ? 0u : count; /* counted at a state's first neighbour only */
        most = max(most, count);
        distinct += earlier == 0;
    }
    const uint *weight = table + most * (NEIGHBOURS + 1);
    ulong total = (ulong)(Q - distinct) * weight[0];
    for (uint n = 0; n < NEIGHBOURS; n++) total += equal[n] ? weight[equal[n]] : 0u;
    ulong pick = mul_hi((ulong)u << 32, total), below = 0, w0 = weight[0];
    uint start = 0;
    for (uint i = 0; i < distinct; i++) {
        uint next = Q, count = 0;
        for (uint n = 0; n < NEIGHBOURS; n++)
            if (value[n] >= start && value[n] < next) next = value[n];
        ulong gap = (ulong)(next - start) * w0; /* the states start .. next - 1, none with an equal neighbour */
        if (pick < below + gap) return start + (uint)((pick - below) / w0);
        below += gap;
        for (uint n = 0; n < NEIGHBOURS; n++) count += value[n] == next;
        below += weight[count];
        if (pick < below) return next;
        start = next + 1;
    }
    return start + (uint)((pick - below) / w0);
}
#endif

inline void rs_attempt(__global uchar *spins, uint site, uint stride, uint u, uint proposal, const uint *table)
{
    uint neighbour[NEIGHBOURS], value[NEIGHBOURS];
    rs_neighbours(site, neighbour);
    for (uint n = 0; n < NEIGHBOURS; n++) value[n] = spins[(size_t)neighbour[n] * stride];
    __global uchar *spin = spins + (size_t)site * stride;
#if HEATBATH
    (void)proposal;
    *spin = (uchar)heatbath_state(value, u, table);
#else
    uint now = *spin, next = (now + 1 + mul_hi(proposal, (uint)(Q - 1))) % Q;
    int change = 0;
    for (uint n = 0; n < NEIGHBOURS; n++) change += (int)(value[n] == now) - (int)(value[n] == next);
    if (change <= 0 || u < table[change - 1]) *spin = (uchar)next;
#endif
}

#include "common/random_site_kernels.h"
