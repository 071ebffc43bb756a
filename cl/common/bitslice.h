/* Bit-sliced counters for multi-spin coding: 32 lanes, one per bit of a word. */
#ifndef CLMC_BITSLICE_H
#define CLMC_BITSLICE_H

/* Adds one bit per lane to the bit-sliced counter (c0, c1, c2), counts 0..7. */
inline void count_bit(uint x, uint *c0, uint *c1, uint *c2)
{
    uint carry0 = *c0 & x;
    *c0 ^= x;
    uint carry1 = *c1 & carry0;
    *c1 ^= carry0;
    *c2 |= carry1;
}

/* Lanes whose count equals v (0..7). */
inline uint count_equals(uint v, uint c0, uint c1, uint c2)
{
    return ((v & 1) ? c0 : ~c0) & ((v & 2) ? c1 : ~c1) & ((v & 4) ? c2 : ~c2);
}

#endif
