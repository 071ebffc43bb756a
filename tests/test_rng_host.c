/* Philox4x32-10 on the host against Random123's published known-answer vectors. */
#include <criterion/criterion.h>
#include <stdio.h>

#include "rng_kat.h"

Test(rng_host, philox4x32_10_known_answers)
{
    for (size_t i = 0; i < RNG_KAT_COUNT; i++) {
        const rng_kat *kat = &rng_kat_vectors[i];
        clmc_philox_ctr ctr = {{kat->ctr[0], kat->ctr[1], kat->ctr[2], kat->ctr[3]}};
        clmc_philox_key key = {{kat->key[0], kat->key[1]}};
        clmc_philox_ctr out = clmc_philox4x32_10(ctr, key);
        printf("vector %zu: got %08x %08x %08x %08x, expected %08x %08x %08x %08x\n", i, out.v[0],
               out.v[1], out.v[2], out.v[3], kat->expected[0], kat->expected[1], kat->expected[2],
               kat->expected[3]);
        for (int k = 0; k < 4; k++)
            cr_expect_eq(out.v[k], kat->expected[k], "vector %zu word %d", i, k);
    }
}

Test(rng_host, distinct_purposes_give_distinct_streams)
{
    clmc_philox_key seed = {{42, 0}};
    clmc_philox_ctr a = clmc_random4(seed, 7, 3, 0, CLMC_PURPOSE_INIT);
    clmc_philox_ctr b = clmc_random4(seed, 7, 3, 0, CLMC_PURPOSE_METROPOLIS);
    cr_expect_neq(a.v[0], b.v[0]);
}
