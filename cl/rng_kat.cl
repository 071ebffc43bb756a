/* Known-answer check of the device RNG: item i maps (counter, key) i to output i. */
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
