/* Quenched couplings of the Edwards-Anderson model, generated on the host from
 * Philox so that every device gets the same disorder. */
#include <math.h>
#include <string.h>

#include "common/philox.h"
#include "models/ea_internal.h"

/* ---- Quenched couplings --------------------------------------------------- */

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

size_t ea_bond_count(const ea_state *s)
{
    return (size_t)s->n_sites * (size_t)s->dim;
}

/* Bytes of one msc word: cl_uint (32 realizations) or cl_ulong (64). */
size_t ea_word_bytes(const ea_state *s)
{
    return s->word_bits == 64 ? sizeof(cl_ulong) : sizeof(cl_uint);
}

/* Coupling buffer as the kernels read it: naive [realization][site][d] as
 * char or float, msc [word][site][d] (words of word_bits realizations) with
 * bit b set where J = -1 in realization word_bits word + b. */
size_t ea_coupling_bytes(const ea_state *s)
{
    if (s->msc) return (size_t)(s->realizations / s->word_bits) * ea_bond_count(s) * ea_word_bytes(s);
    size_t element = s->couplings == CLMC_EA_GAUSSIAN ? sizeof(cl_float) : 1;
    return (size_t)s->realizations * ea_bond_count(s) * element;
}

/* Gaussian couplings (naive layout) on the host; the integer kinds are drawn
 * by the ea_couplings kernel with the same counters (cl/ea_ising.cl). */
void ea_fill_couplings(const ea_state *s, void *out)
{
    size_t bonds = ea_bond_count(s);
    for (cl_uint r = 0; r < s->realizations; r++)
        for (size_t b = 0; b < bonds; b++)
            ((cl_float *)out)[r * bonds + b] = (cl_float)clmc_ea_coupling(s->couplings, s->seed, r,
                                                                          (uint32_t)(b / (size_t)s->dim),
                                                                          (unsigned)(b % (size_t)s->dim));
}

