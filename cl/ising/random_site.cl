/* Ising ferromagnet, random-site dynamics (algorithm.layout "random_site",
 * docs/models/ising.md): the flip of one attempt, on bytes, on packed copies
 * (RS_LOCAL), on the boxes of the tiled local-memory kernels (RS_LWG) and on
 * the bits of the private-memory tiles (RS_PRIVATE); the kernels, site picks
 * and streams are common/random_site.h's.  Metropolis or
 * heat-bath (Glauber) probability, as the integer thresholds of the host:
 * table[a] for a spin with a aligned neighbours (a = 0 .. 2 DIM; eight per
 * configuration).
 *
 * Defines: those of common/random_site.h, and HEATBATH (0|1). */
#define RS_SPIN char
#define RS_TABLE 8
#define RS_PROPOSALS 0
#include "common/random_site.h"

/* Flip decision for a spin with `aligned` parallel neighbours and a 32-bit
 * uniform u: u < table[aligned] (Metropolis accepts downhill and flat
 * moves outright).  Integer comparisons: bit-identical on every device.  The
 * threshold is selected with constant indices, which keeps the array in
 * registers (a variable index puts it in per-work-item memory on GPUs). */
inline bool accept_flip(uint aligned, uint u, const uint *table)
{
#if !HEATBATH
    if (aligned <= NEIGHBOURS / 2) return true;
#endif
    uint chosen = table[0];
    for (uint a = 1; a <= NEIGHBOURS; a++) chosen = aligned == a ? table[a] : chosen;
    return u < chosen;
}

inline void rs_attempt(__global char *spins, uint site, uint stride, uint u, uint proposal, const uint *table)
{
    (void)proposal;
    uint neighbour[NEIGHBOURS];
    rs_neighbours(site, neighbour);
    int field = 0;
    for (uint n = 0; n < NEIGHBOURS; n++) field += spins[(size_t)neighbour[n] * stride];
    __global char *spin = spins + (size_t)site * stride;
    int s = *spin;
    uint aligned = (uint)(NEIGHBOURS + s * field) / 2;
    if (accept_flip(aligned, u, table)) *spin = (char)-s;
}

/* Packed copies and tiles in private memory (two-state hooks of
 * common/random_site_kernels.h): bit 1 for spin up, and the flip of a spin
 * with `differ` antiparallel neighbours. */
#define RS_SPIN_BIT(s) ((s) > 0)
#define RS_BIT_SPIN(b) ((b) ? 1 : -1)
inline uint rs_bits_flip(uint differ, uint u, const uint *table)
{
    /* accept_flip(NEIGHBOURS - differ, u, table), the threshold an OR of
     * masked entries: LLVM turns accept_flip's chain of selects into a load
     * at a variable index (clang 15), which puts the table in memory. */
    uint aligned = NEIGHBOURS - differ, chosen = 0;
#if HEATBATH
    for (uint a = 0; a <= NEIGHBOURS; a++) chosen |= table[a] & (0u - (uint)(aligned == a));
    return u < chosen;
#else
    for (uint a = NEIGHBOURS / 2 + 1; a <= NEIGHBOURS; a++) chosen |= table[a] & (0u - (uint)(aligned == a));
    return aligned <= NEIGHBOURS / 2 || u < chosen;
#endif
}

#if RS_LOCAL
/* One attempt of copy `lane` at `site`: rs_attempt on packed spins. */
inline void rs_packed_attempt(__local uint *lattice, uint site, uint lane, uint u, const uint *table)
{
    uint neighbour[NEIGHBOURS];
    rs_neighbours(site, neighbour);
    __local uint *own = lattice + 32 * (site / 32) + lane;
    uint word = *own, spin = (word >> (site % 32)) & 1u, differ = 0;
    for (uint n = 0; n < NEIGHBOURS; n++)
        differ += ((lattice[32 * (neighbour[n] / 32) + lane] >> (neighbour[n] % 32)) & 1u) ^ spin;
    if (accept_flip(NEIGHBOURS - differ, u, table)) *own = word ^ (1u << (site % 32));
}
#endif

#ifdef RS_LWG
/* Plan words of the tiled local-memory kernels: the flip decision for each
 * count of aligned neighbours, from bit 24 on. */
inline uint rs_plan_bits(uint u, const uint *table)
{
    uint mask = 0;
    for (uint a = 0; a <= NEIGHBOURS; a++) mask |= (uint)accept_flip(a, u, table) << a;
    return mask << 24;
}

/* The attempt of plan word `word` in a box with row stride sy and plane
 * stride sz; the site's neighbours are inside the box. */
inline void rs_planned_attempt(__local char *box, uint word, uint sy, uint sz)
{
    uint i = word & 0xffffffu;
    int s = box[i];
    int field = box[i - 1] + box[i + 1] + box[i - sy] + box[i + sy];
#if DIM == 3
    field += box[i - sz] + box[i + sz];
#endif
    uint aligned = (uint)(NEIGHBOURS + s * field) / 2;
    if (word >> (24 + aligned) & 1u) box[i] = (char)-s;
}
#endif

#include "common/random_site_kernels.h"
