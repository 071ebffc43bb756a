/* The steps of population annealing's prefix sums in chunks of PA_CHUNK for
 * one element type PA_T, included by population.cl once with PA_T double
 * (the weights) and once with uint (the copy numbers: exact, any order gives
 * the same sums); the functions are named f_PA_T (pa_scan_chunks_double ...).
 * No include guard: each inclusion defines the functions for its type. */

#define PA_PASTE_(f, t) f##_##t
#define PA_PASTE(f, t) PA_PASTE_(f, t)
#define PA_NAME(f) PA_PASTE(f, PA_T)

/* By one work-item: x[0 .. count) becomes its running sum in order,
 * inclusive (the sum through each element) or exclusive (before it);
 * returns the total. */
inline PA_T PA_NAME(pa_running_sum)(__local PA_T *x, uint count, bool inclusive)
{
    PA_T sum = 0;
    for (uint i = 0; i < count; i++) {
        PA_T before = sum;
        sum += x[i];
        x[i] = inclusive ? sum : before;
    }
    return sum;
}

/* Exclusive scan of the chunk totals in place by one work-group (any size up
 * to 256, a power of two or not; part: 256 local values): each work-item sums
 * its block of chunks in order, work-item 0 scans the block sums in order,
 * each block is then scanned from its offset.  The grand total into *total is
 * the last chunk's offset plus its total, so it equals the last cumulative
 * value (pa_add_double, pa_add_uint) bit for bit.  Every work-item of the
 * group calls it (its barriers). */
inline void PA_NAME(pa_scan_chunks)(__global PA_T *chunk_total, uint n_chunks, __local PA_T *part,
                                    __global PA_T *total)
{
    uint id = get_local_id(0), size = get_local_size(0), first, last;
    pa_block(n_chunks, id, size, &first, &last);
    PA_T sum = 0;
    for (uint c = first; c < last; c++) sum += chunk_total[c];
    part[id] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (id == 0) PA_NAME(pa_running_sum)(part, size, false);
    barrier(CLK_LOCAL_MEM_FENCE);
    PA_T offset = part[id];
    for (uint c = first; c < last; c++) {
        PA_T t = chunk_total[c];
        chunk_total[c] = offset;
        offset += t;
    }
    if (first < last && last == n_chunks) *total = offset;
}

#undef PA_NAME
#undef PA_PASTE
#undef PA_PASTE_
