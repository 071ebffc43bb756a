/* The checks' configuration hash (checks.configuration_fnv1a, FNV-1a over
 * the final states in storage order) and count of invalid spins, continued
 * from rank to rank where a run's configurations are cut over MPI ranks
 * (slabs of one lattice, population annealing's members, the temperatures
 * of one tempering run): each rank hashes on from the hash of the rank
 * below, so the ranks' run gives the single process's hash. */
#ifndef CLMC_MODELS_CONFIGURATION_HASH_H
#define CLMC_MODELS_CONFIGURATION_HASH_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

typedef struct {
    uint64_t hash;
    long long invalid; /* the model counts its invalid states here */
    bool chained, received;
} clmc_configuration_hash;

/* chained: this rank's configurations continue those of the rank below
 * (collective then: every rank calls clmc_configuration_hash_finish). */
void clmc_configuration_hash_start(clmc_configuration_hash *h, bool chained);
/* Where chained, waits once for the rank below's hash: call it after this
 * rank's device reads (so that the ranks read side by side) and before its
 * first byte. */
void clmc_configuration_hash_receive(clmc_configuration_hash *h);
static inline void clmc_configuration_hash_byte(clmc_configuration_hash *h, unsigned char byte)
{
    h->hash = (h->hash ^ byte) * 0x100000001b3ULL;
}
/* Where chained (collective, also after a failure before this rank's turn):
 * hands the hash to the rank above, gives every rank the last rank's hash
 * and sums the invalid counts.  Then, where `checks` is given, adds
 * configuration_fnv1a and invalid_spins to it. */
void clmc_configuration_hash_finish(clmc_configuration_hash *h, cJSON *checks);

#endif
