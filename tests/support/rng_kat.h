/* Random123 known-answer vectors for Philox4x32-10 (kat_vectors, Salmon et al.). */
#ifndef CLMC_RNG_KAT_H
#define CLMC_RNG_KAT_H

#include <stddef.h>

#include "common/philox.h"

typedef struct { clmc_u32 ctr[4], key[2], expected[4]; } rng_kat;

static const rng_kat rng_kat_vectors[] = {
    {{0, 0, 0, 0}, {0, 0}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
    {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff},
     {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
    {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0},
     {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
};
#define RNG_KAT_COUNT (sizeof rng_kat_vectors / sizeof rng_kat_vectors[0])

#endif
