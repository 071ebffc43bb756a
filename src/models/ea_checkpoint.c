/* Checkpoints of the Edwards-Anderson model (model.h save_state/load_state):
 * spins and couplings as stored on the device, and the per-realization sums
 * over measurements that the host keeps. */
#include <stdlib.h>
#include <string.h>

#include "models/ea_internal.h"

/* Blob: u64 spin bytes, spins, u64 coupling bytes, couplings, u64
 * measurements, then 3 x realizations doubles (energy, q^2, q^4 sums); all
 * numbers little-endian. */
static void put_u64(unsigned char *at, uint64_t x)
{
    for (int i = 0; i < 8; i++) at[i] = (unsigned char)(x >> (8 * i));
}

static uint64_t get_u64(const unsigned char *at)
{
    uint64_t x = 0;
    for (int i = 0; i < 8; i++) x |= (uint64_t)at[i] << (8 * i);
    return x;
}

static clmc_status buffer_bytes(cl_mem buffer, size_t *bytes)
{
    CLMC_CL_TRY(clGetMemObjectInfo(buffer, CL_MEM_SIZE, sizeof *bytes, bytes, NULL));
    return CLMC_OK;
}

static size_t blob_bytes(const ea_state *s, size_t spins, size_t couplings)
{
    return 8 + spins + 8 + couplings + 8 + 3 * (size_t)s->realizations * 8;
}

clmc_status ea_save_state(void *state, unsigned char **blob, size_t *bytes)
{
    ea_state *s = state;
    size_t spins, couplings;
    CLMC_TRY(buffer_bytes(s->spins, &spins));
    CLMC_TRY(buffer_bytes(s->bonds, &couplings));
    *bytes = blob_bytes(s, spins, couplings);
    unsigned char *at = *blob = malloc(*bytes);
    if (!at) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    cl_command_queue queue = clmc_runtime_queue(s->rt);
    put_u64(at, spins);
    CLMC_CL_TRY(clEnqueueReadBuffer(queue, s->spins, CL_TRUE, 0, spins, at + 8, 0, NULL, NULL));
    at += 8 + spins;
    put_u64(at, couplings);
    CLMC_CL_TRY(clEnqueueReadBuffer(queue, s->bonds, CL_TRUE, 0, couplings, at + 8, 0, NULL, NULL));
    at += 8 + couplings;
    put_u64(at, s->measurements);
    at += 8;
    for (size_t k = 0; k < 3 * (size_t)s->realizations; k++, at += 8) {
        uint64_t bits;
        memcpy(&bits, &s->energy_sum[k], sizeof bits); /* q2_sum and q4_sum follow energy_sum */
        put_u64(at, bits);
    }
    return CLMC_OK;
}

clmc_status ea_load_state(void *state, const unsigned char *blob, size_t bytes)
{
    ea_state *s = state;
    size_t spins, couplings;
    CLMC_TRY(buffer_bytes(s->spins, &spins));
    CLMC_TRY(buffer_bytes(s->bonds, &couplings));
    if (bytes != blob_bytes(s, spins, couplings) || get_u64(blob) != spins || get_u64(blob + 8 + spins) != couplings)
        return clmc_fail(CLMC_ERR_INPUT, "checkpoint: the spin glass state has %zu bytes; the preset makes %zu", bytes,
                         blob_bytes(s, spins, couplings));
    cl_command_queue queue = clmc_runtime_queue(s->rt);
    CLMC_CL_TRY(clEnqueueWriteBuffer(queue, s->spins, CL_TRUE, 0, spins, blob + 8, 0, NULL, NULL));
    CLMC_CL_TRY(clEnqueueWriteBuffer(queue, s->bonds, CL_TRUE, 0, couplings, blob + 16 + spins, 0, NULL, NULL));
    const unsigned char *at = blob + 16 + spins + couplings;
    s->measurements = (size_t)get_u64(at);
    at += 8;
    for (size_t k = 0; k < 3 * (size_t)s->realizations; k++, at += 8) {
        uint64_t bits = get_u64(at);
        memcpy(&s->energy_sum[k], &bits, sizeof bits);
    }
    return CLMC_OK;
}
