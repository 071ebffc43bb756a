/* Known-answer check of the device RNG, and a throughput probe for benchmarks. */
#include "common/philox.h"

__kernel void philox_known_answers(__global const uint *counters_and_keys, __global uint *outputs)
{
    uint i = get_global_id(0);
    __global const uint *in = counters_and_keys + 6 * i;
    clmc_philox_ctr ctr = {{in[0], in[1], in[2], in[3]}};
    clmc_philox_key key = {{in[4], in[5]}};
    clmc_philox_ctr r = clmc_philox4x32_10(ctr, key);
    for (int k = 0; k < 4; k++) outputs[4 * i + k] = r.v[k];
}

/* Throughput probe: item i makes `draws` draws (units i, i + items, ...) and
 * stores their XOR so that the compiler keeps every one. */
__kernel void philox_throughput(__global uint *sink, uint draws, uint seed)
{
    uint i = get_global_id(0), items = get_global_size(0), acc = 0;
    clmc_philox_key key = {{seed, 0}};
    for (uint d = 0; d < draws; d++) {
        clmc_philox_ctr r = clmc_random4(key, i + d * items, 0, 0, CLMC_PURPOSE_METROPOLIS);
        acc ^= r.v[0] ^ r.v[1] ^ r.v[2] ^ r.v[3];
    }
    sink[i] = acc;
}
