/* Quenched couplings of the Edwards-Anderson model in its buffers (the draw
 * itself is the shared one of disorder.c). */
#include "models/ea/ea_internal.h"

/* ---- Quenched couplings --------------------------------------------------- */

size_t ea_bond_count(const ea_state *s)
{
    return (size_t)s->n_sites * (size_t)s->dim;
}

/* Bytes of one msc word: cl_uint (32 realizations) or cl_ulong (64). */
size_t ea_word_bytes(const ea_state *s)
{
    return s->word_bits == 64 ? sizeof(cl_ulong) : sizeof(cl_uint);
}

/* msc: the words of couplings per bond, one per word of realizations, or
 * one for population annealing's members (realization 0's in every lane). */
size_t ea_coupling_words(const ea_state *s)
{
    return s->population ? 1 : s->realizations / s->word_bits;
}

/* Coupling buffer as the kernels read it: naive [disorder][site][d] as
 * char or float, msc [word][site][d] (words of word_bits realizations) with
 * bit b set where J = -1 in realization word_bits word + b. */
size_t ea_coupling_bytes(const ea_state *s)
{
    if (s->msc) return ea_coupling_words(s) * ea_bond_count(s) * ea_word_bytes(s);
    size_t element = s->couplings == CLMC_EA_GAUSSIAN ? sizeof(cl_float) : 1;
    return (size_t)s->disorders * ea_bond_count(s) * element;
}

/* Gaussian couplings (naive layout) on the host; the integer kinds are drawn
 * by the ea_couplings kernel with the same counters (cl/ea/ea_ising.cl). */
void ea_fill_couplings(const ea_state *s, void *out)
{
    size_t bonds = ea_bond_count(s);
    /* Population annealing: realization 0 whichever members a rank holds. */
    cl_uint first = s->population ? 0 : s->first_system;
    for (cl_uint r = 0; r < s->disorders; r++)
        for (size_t b = 0; b < bonds; b++)
            ((cl_float *)out)[r * bonds + b] = (cl_float)clmc_ea_coupling(s->couplings, s->seed, first + r,
                                                                          (uint32_t)(b / (size_t)s->dim),
                                                                          (unsigned)(b % (size_t)s->dim));
}

