/* The checks' configuration hash, chained across MPI ranks (configuration_hash.h). */
#include "models/configuration_hash.h"

#include <stdio.h>

#include "runtime/ranks.h"

void clmc_configuration_hash_start(clmc_configuration_hash *h, bool chained)
{
    *h = (clmc_configuration_hash){.hash = 0xcbf29ce484222325ULL, .chained = chained};
}

void clmc_configuration_hash_receive(clmc_configuration_hash *h)
{
    if (!h->chained || h->received) return;
    clmc_ranks_chain_receive(&h->hash);
    h->received = true;
}

void clmc_configuration_hash_finish(clmc_configuration_hash *h, cJSON *checks)
{
    if (h->chained) {
        clmc_configuration_hash_receive(h); /* failed before its turn */
        clmc_ranks_chain_send(h->hash);
        clmc_ranks_chain_result(&h->hash);
        clmc_ranks_sum_int64(&h->invalid, 1);
    }
    if (!checks) return;
    char text[32];
    snprintf(text, sizeof text, "%016llx", (unsigned long long)h->hash);
    cJSON_AddStringToObject(checks, "configuration_fnv1a", text);
    cJSON_AddNumberToObject(checks, "invalid_spins", (double)h->invalid);
}
