/* The steps of population annealing's prefix sums in chunks of PA_CHUNK for
 * one element type PA_T, included by population.cl once with PA_T double
 * (the weights) and once with uint (the copy numbers: exact, any order gives
 * the same sums); the functions are named f_PA_T (pa_scan_chunks_double ...).
 * No include guard: each inclusion defines the functions for its type. */

#define PA_PASTE_(f, t) f##_##t
#define PA_PASTE(f, t) PA_PASTE_(f, t)
#define PA_NAME(f) PA_PASTE(f, PA_T)

/* x[0 .. size) becomes its running sum, inclusive (the sum through each
 * element) or exclusive (before it), by all `size` work-items of the group
 * (get_local_size): the doubling scan x[i] += x[i - d] for d = 1, 2, 4, ...
 * (log2 size steps), so each sum is made in an order that depends on i
 * alone (for doubles the same bits on every device and at any group size;
 * population_annealing.c's scan_chunks repeats it).  Two steps d and 2d are
 * made at once from the values before them, x[i] + x[i - d] added to
 * x[i - 2d] + x[i - 3d] (each pair as step d adds it), so a scan of 256
 * takes 4 rounds of barriers, not 8.  Every work-item calls it after the
 * barrier that follows its x writes; x is read after it. */
inline PA_T PA_NAME(pa_scan_step)(__local const PA_T *x, uint i, uint d)
{
    return x[i] + (i >= d ? x[i - d] : (PA_T)0);
}

inline void PA_NAME(pa_scan_group)(__local PA_T *x, bool inclusive)
{
    uint id = get_local_id(0), size = get_local_size(0);
    for (uint d = 1; d < size; d *= 4) {
        PA_T y = PA_NAME(pa_scan_step)(x, id, d);
        if (2 * d < size) y += id >= 2 * d ? PA_NAME(pa_scan_step)(x, id - 2 * d, d) : (PA_T)0;
        barrier(CLK_LOCAL_MEM_FENCE);
        x[id] = y;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (inclusive) return;
    PA_T before = id ? x[id - 1] : (PA_T)0;
    barrier(CLK_LOCAL_MEM_FENCE);
    x[id] = before;
    barrier(CLK_LOCAL_MEM_FENCE);
}

/* Exclusive scan of the chunk totals in place by one work-group (any size up
 * to 256, a power of two or not; part: 256 local values): each work-item sums
 * its block of chunks in order, the group scans the block sums
 * (pa_scan_group), each block is then scanned from its offset.  The grand
 * total into *total is the last chunk's offset plus its total, so it equals
 * the last cumulative value (pa_add_double, pa_add_uint) bit for bit.  Every
 * work-item of the group calls it (its barriers). */
inline void PA_NAME(pa_scan_chunks)(__global PA_T *chunk_total, uint n_chunks, __local PA_T *part,
                                    __global PA_T *total)
{
    uint id = get_local_id(0), size = get_local_size(0), first, last;
    pa_block(n_chunks, id, size, &first, &last);
    PA_T sum = 0;
    for (uint c = first; c < last; c++) sum += chunk_total[c];
    part[id] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    PA_NAME(pa_scan_group)(part, false);
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
