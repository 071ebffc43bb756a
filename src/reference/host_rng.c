/* Named generators as one host stream (seeding as on the device). */
#include "reference/host_rng.h"

#include <stdlib.h>
#include <string.h>

clmc_status clmc_rng_kind_from_name(const char *name, const char *what, clmc_rng_kind *kind)
{
    for (int k = 0; k < CLMC_RNG_COUNT; k++)
        if (strcmp(name, clmc_rng_names[k]) == 0) {
            *kind = (clmc_rng_kind)k;
            return CLMC_OK;
        }
    char list[512] = "";
    for (int k = 0; k < CLMC_RNG_COUNT; k++) {
        if (k > 0) strcat(list, ", ");
        strcat(list, clmc_rng_names[k]);
    }
    return clmc_fail(CLMC_ERR_INPUT, "%s: unknown generator '%s' (one of %s)", what, name, list);
}

static void lagfib_lags(clmc_rng_kind kind, uint32_t *r, uint32_t *s)
{
    *r = kind == CLMC_RNG_LAGFIB_521 ? CLMC_LAGFIB_521_R : CLMC_LAGFIB_1279_R;
    *s = kind == CLMC_RNG_LAGFIB_521    ? CLMC_LAGFIB_521_S
         : kind == CLMC_RNG_LAGFIB_1279 ? CLMC_LAGFIB_1279_861_S
                                                  : CLMC_LAGFIB_1279_S;
}

clmc_status clmc_host_rng_init(clmc_host_rng *rng, clmc_rng_kind kind, uint64_t seed)
{
    memset(rng, 0, sizeof *rng);
    rng->kind = kind;
    rng->key.v[0] = (uint32_t)seed;
    rng->key.v[1] = (uint32_t)(seed >> 32);
    rng->used = 4;
    switch (kind) {
    case CLMC_RNG_LCG32: rng->lcg32 = (uint32_t)seed; break;
    case CLMC_RNG_LCG64: rng->lcg64 = seed; break;
    case CLMC_RNG_LCG32_RANDOM: rng->lcg32 = clmc_lcg32_random_seed(rng->key, 0u); break;
    case CLMC_RNG_LCG64_RANDOM:
    case CLMC_RNG_LCG64_RESEEDED: /* one stream: an LCG64 seeded from Philox once */
        rng->lcg64 = clmc_lcg64_random_seed(rng->key, 0u);
        break;
    case CLMC_RNG_LAGFIB_521:
    case CLMC_RNG_LAGFIB_1279:
    case CLMC_RNG_LAGFIB_1279_418:
        lagfib_lags(kind, &rng->r, &rng->s);
        rng->ring = malloc(rng->r * sizeof *rng->ring);
        if (!rng->ring) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
        for (uint32_t i = 0; i < rng->r; i++) rng->ring[i] = clmc_lagfib_seed_word(rng->key, 0u, i);
        break;
    case CLMC_RNG_XORWOW: rng->xorwow = clmc_xorwow_seed(rng->key, 0u); break;
    default: break;
    }
    return CLMC_OK;
}

void clmc_host_rng_free(clmc_host_rng *rng)
{
    free(rng->ring);
    rng->ring = NULL;
}
