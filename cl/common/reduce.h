/* Work-group reductions shared by the measurement kernels. */
#ifndef CLMC_REDUCE_H
#define CLMC_REDUCE_H

/* Sums (a, b) over the work-group (size MEASURE_WG, a power of two) and lets
 * item 0 store both sums at out[0], out[1].  Every item must call it. */
inline void reduce_pair_to(__local int *a_sums, __local int *b_sums, int a, int b, __global int *out)
{
    uint lid = get_local_id(0);
    a_sums[lid] = a;
    b_sums[lid] = b;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint stride = MEASURE_WG / 2; stride > 0; stride /= 2) {
        if (lid < stride) {
            a_sums[lid] += a_sums[lid + stride];
            b_sums[lid] += b_sums[lid + stride];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) {
        out[0] = a_sums[0];
        out[1] = b_sums[0];
    }
}

/* Where a measurement kernel's work-group stores its pair of partial sums:
 * [batch slot][configuration (NDRange dimension 1)][work-group]. */
inline size_t partial_offset(uint slot)
{
    return 2 * (((size_t)slot * get_global_size(1) + get_global_id(1)) * get_num_groups(0) + get_group_id(0));
}

#endif
