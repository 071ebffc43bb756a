/* Ising ferromagnet, random-site dynamics (algorithm.layout "random_site",
 * docs/models/ising.md): the flip of one attempt; the kernels, site picks and
 * streams are common/random_site.h's.  Metropolis or heat-bath (Glauber)
 * probability, as the integer thresholds of the host: table[a] for a spin
 * with a aligned neighbours (a = 0 .. 2 DIM; eight per configuration).
 *
 * Defines: those of common/random_site.h, and HEATBATH (0|1). */
#define RS_SPIN char
#define RS_TABLE 8
#define RS_PROPOSALS 0
#include "common/random_site.h"

/* Flip decision for a spin with `aligned` parallel neighbours and a 32-bit
 * uniform u: u < table[aligned] (Metropolis accepts downhill and flat
 * moves outright).  Integer comparisons: bit-identical on every device. */
inline bool accept_flip(uint aligned, uint u, const uint *table)
{
#if !HEATBATH
    if (aligned <= NEIGHBOURS / 2) return true;
#endif
    return u < table[aligned];
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

#include "common/random_site_kernels.h"
