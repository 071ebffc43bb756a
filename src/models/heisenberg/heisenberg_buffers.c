/* What the Heisenberg ferromagnet and the parts built on it (checkpoints,
 * the spin glass) share below the driver: buffer creation, the real type's
 * size and reading measurement slots back. */
#include "models/heisenberg/heisenberg_internal.h"

size_t clmc_heisenberg_real_bytes(const heisenberg_state *s)
{
    return s->is_double ? sizeof(cl_double) : sizeof(cl_float);
}

clmc_status clmc_heisenberg_buffer(heisenberg_state *s, size_t bytes, void *host, cl_mem *out)
{
    return clmc_buffer_create(s->rt, bytes, host, "heisenberg", out);
}

size_t clmc_heisenberg_partials_per_slot(const heisenberg_state *s)
{
    return 4 * s->measure_groups * s->n_configs;
}

clmc_status clmc_heisenberg_read_slots(heisenberg_state *s, unsigned first, unsigned n)
{
    size_t per_slot = clmc_heisenberg_partials_per_slot(s);
    CLMC_CL_TRY(clEnqueueReadBuffer(clmc_runtime_queue(s->rt), s->partials, CL_TRUE, first * per_slot * sizeof(cl_long),
                                    n * per_slot * sizeof(cl_long), s->partials_host, 0, NULL, NULL));
    return CLMC_OK;
}
