/* Checkpoints of the Edwards-Anderson model (model.h save_state/load_state):
 * spins and couplings as stored on the device, and the per-realization sums
 * over measurements that the host keeps. */
#include "models/ea/ea_internal.h"
#include "output/state_blob.h"

/* Blob: spin buffer, coupling buffer, u64 measurements (bit 63 set: counted
 * with tempering or independent systems too; earlier checkpoints counted them
 * without tempering only), then 3 x realizations doubles (energy, q^2, q^4
 * sums; see state_blob.h). */
#define COUNTED_EVERYWHERE (1ULL << 63)

clmc_status ea_save_state(void *state, unsigned char **blob, size_t *bytes)
{
    ea_state *s = state;
    clmc_blob_writer w = {0};
    clmc_blob_put_buffer(&w, s->rt, s->spins);
    clmc_blob_put_buffer(&w, s->rt, s->bonds);
    clmc_blob_put_u64(&w, (uint64_t)s->measurements | COUNTED_EVERYWHERE);
    clmc_blob_put_doubles(&w, s->energy_sum, 3 * (size_t)s->realizations); /* q2_sum, q4_sum follow energy_sum */
    return clmc_blob_finish(&w, blob, bytes);
}

clmc_status ea_load_state(void *state, const unsigned char *blob, size_t bytes)
{
    ea_state *s = state;
    size_t spin_bytes, coupling_bytes;
    CLMC_TRY(clmc_buffer_size(s->spins, &spin_bytes));
    CLMC_TRY(clmc_buffer_size(s->bonds, &coupling_bytes));
    clmc_blob_reader r = clmc_blob_reader_of(blob, bytes);
    const unsigned char *spins = clmc_blob_get_buffer(&r, spin_bytes, "the spin glass spins");
    const unsigned char *couplings = clmc_blob_get_buffer(&r, coupling_bytes, "the spin glass couplings");
    uint64_t measurements = clmc_blob_get_u64(&r, "the measurement count");
    const unsigned char *sums = clmc_blob_get_doubles(&r, 3 * (size_t)s->realizations, "the per-realization sums");
    CLMC_TRY(clmc_blob_end(&r));
    CLMC_TRY(clmc_buffer_upload(s->rt, s->spins, spins, spin_bytes));
    CLMC_TRY(clmc_buffer_upload(s->rt, s->bonds, couplings, coupling_bytes));
    s->measurements = (size_t)(measurements & ~COUNTED_EVERYWHERE);
    s->measurements_unknown = !(measurements & COUNTED_EVERYWHERE) && (s->temperatures > 1 || s->independent);
    clmc_blob_copy_doubles(sums, s->energy_sum, 3 * (size_t)s->realizations);
    return CLMC_OK;
}
