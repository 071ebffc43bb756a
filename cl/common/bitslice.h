/* Bit-sliced counters for multi-spin coding: one lane per bit of a word.
 * count_bit / count_equals work on uint (32 lanes); the _ulong versions
 * on ulong (64 lanes), with the same bodies. */
#ifndef CLMC_BITSLICE_H
#define CLMC_BITSLICE_H

/* count_bit##suffix adds one bit per lane to the bit-sliced counter
 * (c0, c1, c2), counts 0..7; count_equals##suffix gives the lanes whose
 * count equals v (0..7). */
#define CLMC_BITSLICE_FUNCTIONS(word, suffix)                                            \
    inline void count_bit##suffix(word x, word *c0, word *c1, word *c2)                  \
    {                                                                                    \
        word carry0 = *c0 & x;                                                           \
        *c0 ^= x;                                                                        \
        word carry1 = *c1 & carry0;                                                      \
        *c1 ^= carry0;                                                                   \
        *c2 |= carry1;                                                                   \
    }                                                                                    \
    inline word count_equals##suffix(uint v, word c0, word c1, word c2)                  \
    {                                                                                    \
        return ((v & 1) ? c0 : ~c0) & ((v & 2) ? c1 : ~c1) & ((v & 4) ? c2 : ~c2);       \
    }

CLMC_BITSLICE_FUNCTIONS(uint, )
CLMC_BITSLICE_FUNCTIONS(ulong, _ulong)

#endif
