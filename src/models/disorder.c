/* Quenched bond couplings of the spin glasses (disorder.h). */
#include "models/disorder.h"

#include <math.h>
#include <string.h>

#include "common/philox.h"

clmc_ea_couplings clmc_ea_couplings_from_name(const char *name)
{
    if (name && strcmp(name, "gaussian") == 0) return CLMC_EA_GAUSSIAN;
    if (name && strcmp(name, "uniform") == 0) return CLMC_EA_UNIFORM;
    return CLMC_EA_BIMODAL;
}

/* Box-Muller from two 32-bit words: u1 in (0, 1] keeps the logarithm finite. */
static float gaussian_from_words(uint32_t a, uint32_t b)
{
    const double two_pi = 6.283185307179586476925286766559;
    double u1 = ((double)a + 1.0) / 4294967296.0, u2 = (double)b / 4294967296.0;
    return (float)(sqrt(-2.0 * log(u1)) * cos(two_pi * u2));
}

double clmc_ea_coupling(clmc_ea_couplings kind, uint64_t seed, uint32_t realization, uint32_t site,
                        unsigned direction)
{
    if (kind == CLMC_EA_UNIFORM) return 1.0;
    clmc_philox_key key = {{(uint32_t)seed, (uint32_t)(seed >> 32)}};
    clmc_philox_ctr r = clmc_random4(key, site, realization, direction, CLMC_PURPOSE_COUPLINGS);
    if (kind == CLMC_EA_BIMODAL) return (r.v[0] >> 31) ? 1.0 : -1.0;
    return gaussian_from_words(r.v[0], r.v[1]);
}
