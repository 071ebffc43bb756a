/* Population annealing on the device (src/ensembles/population_annealing.c):
 * statistics and resampling weights of the members, copy numbers by the three
 * schemes, a two-level prefix sum (members in chunks of PA_CHUNK summed in
 * order by one work-item each, the chunk totals by one work-item), the
 * source member of every new slot, and the copy of the members' state.
 * Every sum runs in a fixed order (for a given work-group size of the
 * one-group kernels), so a run repeats bit for bit on a device.
 * What a step leaves for the results (PA_RECORD doubles, pa_step_records) stays
 * on the device and is read once per run, so a step needs no host read-back. */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#include "common/philox.h"

/* The members' energies and order values (member_observables,
 * src/models/ensemble_hooks.h): integers, or with PA_REAL_MEMBERS doubles
 * (the O(n) models' real energies).  The energy histogram's bins are the
 * unit intervals [floor E, floor E + 1): one energy value each for integer
 * energies. */
#ifdef PA_REAL_MEMBERS
typedef double pa_value;
#else
typedef int pa_value;
#endif

/* PA_REPRODUCIBLE (the model's algorithm.reproducible): no contraction of a *
 * b + c anywhere in this file and the weights' exp from IEEE + - * and exact
 * operations only (pa_exp), so weights, copy numbers and sums are the same
 * bits on every device; else the device's exp. */
#ifdef PA_REPRODUCIBLE
#pragma OPENCL FP_CONTRACT OFF
/* exp(x) for x <= 0: x = k ln 2 + r with k = rint(x / ln 2) and ln 2 in
 * two parts (the high one with 32 trailing zero bits, so k ln2_hi is exact),
 * |r| <= 0.347; e^r by its Taylor polynomial of degree 13 in Horner form
 * (truncation below 5e-18); times 2^k built from its bits (twice for
 * subnormal results, rounded as IEEE does).  Within a few ulp of exp. */
inline double pa_exp(double x)
{
    if (!(x > -746.0)) return 0.0;
    if (x > 0.0) x = 0.0; /* not reached: the weights' exponents are <= 0 */
    double k = rint(x * 1.4426950408889634);
    double r = (x - k * 0.6931471803691238) - k * 1.9082149292705877e-10;
    double p = 1.6059043836821613e-10;
    p = p * r + 2.08767569878681e-09;
    p = p * r + 2.505210838544172e-08;
    p = p * r + 2.755731922398589e-07;
    p = p * r + 2.7557319223985893e-06;
    p = p * r + 2.48015873015873e-05;
    p = p * r + 0.0001984126984126984;
    p = p * r + 0.001388888888888889;
    p = p * r + 0.008333333333333333;
    p = p * r + 0.041666666666666664;
    p = p * r + 0.16666666666666666;
    p = p * r + 0.5;
    p = p * r + 1.0;
    p = p * r + 1.0;
    int e = (int)k;
    if (e >= -1022) return p * as_double((long)(e + 1023) << 52);
    return p * as_double((long)(e + 600 + 1023) << 52) * as_double((long)(-600 + 1023) << 52);
}
#define PA_EXP pa_exp
#else
#define PA_EXP exp
#endif

#define PA_CHUNK 256u

#define PA_SYSTEMATIC 0u
#define PA_MULTINOMIAL 1u
#define PA_NEAREST 2u

/* A step's record (src/ensembles/population_annealing.c reads it): */
#define PA_RECORD 12u
#define PA_E_MIN 0u          /* min and max energy of the members */
#define PA_E_MAX 1u
#define PA_SUMS 2u           /* sum E, E^2, |M|, M^2, M^4 (5 values) */
#define PA_FAMILY_SQUARES 7u /* sum of the family sizes squared */
#define PA_LARGEST 8u        /* the largest family */
#define PA_WEIGHT_TOTAL 9u   /* sum of exp(-(beta_k - beta_k-1)(E_i - E_min)) of step k-1's members */
#define PA_OVERLAP 10u       /* sum_E min(h_k(E) n_k-1, h_k-1(E) n_k) (exact integer); -1: no histograms */
#define PA_HISTOGRAM_BINS (1u << 20) /* wider energy ranges keep no histogram */

/* The contiguous block [*first, *last) of n items that work-item id of
 * `size` takes. */
inline void pa_block(uint n, uint id, uint size, uint *first, uint *last)
{
    uint per = (n + size - 1) / size;
    *first = min(n, id * per);
    *last = min(n, *first + per);
}

/* The per-chunk kernels (pa_member_stats, pa_weights, pa_prefix_chunks) run
 * one work-group of PA_CHUNK work-items per chunk: the chunk is loaded into
 * local memory side by side (coalesced), work-item 0 sums it in member
 * order (the order of a sequential loop, so bit for bit the same sums), and
 * running sums go back side by side.  Launched over whole groups (global size
 * chunks x PA_CHUNK); work-items past n take part in the barriers only. */

/* The tree reductions: a field of `size` values (a power of two, at most
 * PA_CHUNK) is combined pairwise by halving widths, value v with v + w for
 * w = size / 2, ..., 1, which fixes every sum's order (the same bits on
 * every device).  The kind of each field: */
#define PA_SUM 0u
#define PA_MIN 1u
#define PA_MAX 2u
#define PA_TREE_LEAVES 16u /* the first stage's tasks per field */

inline double pa_combine(uint kind, double a, double b)
{
    return kind == PA_MIN ? fmin(a, b) : kind == PA_MAX ? fmax(a, b) : a + b;
}

/* `fields` fields of `size` values (at most the group's work-items) reduced
 * at once, value v of field q at x[v * stride + q], field q's
 * kind in bits 2q of `kinds` (at most 16 fields); the results go to x[q].
 * The halving tree in two stages with a barrier each: task q G + l (G =
 * PA_TREE_LEAVES, or size where fewer; the tasks dealt out over the
 * work-items) makes the widths down to G of field q's subtree of values l, l
 * + G, ..., then task q the last widths: the tree's additions, in two
 * barriers instead of log2 size.  (The loops have constant trip counts, so
 * t stays in registers.)  Every work-item calls it after the barrier that
 * follows its x writes. */
inline void pa_tree(__local double *x, uint stride, uint fields, uint kinds, uint size)
{
    uint id = get_local_id(0), items = get_local_size(0), g = min(PA_TREE_LEAVES, size), leaves = size / g;
    double t[PA_TREE_LEAVES];
    for (uint task = id; task < fields * g; task += items) { /* no barrier in this loop */
        uint q = task / g, l = task % g, kind = (kinds >> (2 * q)) & 3u;
        for (uint m = 0; m < PA_TREE_LEAVES; m++) t[m] = m < leaves ? x[(l + g * m) * stride + q] : 0.0;
        for (uint span = PA_TREE_LEAVES / 2; span > 0; span /= 2)
            for (uint m = 0; m < span; m++)
                if (span < leaves) t[m] = pa_combine(kind, t[m], t[m + span]);
        x[l * stride + q] = t[0];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint q = id; q < fields; q += items) {
        uint kind = (kinds >> (2 * q)) & 3u;
        for (uint m = 0; m < PA_TREE_LEAVES; m++) t[m] = m < g ? x[m * stride + q] : 0.0;
        for (uint span = PA_TREE_LEAVES / 2; span > 0; span /= 2)
            for (uint m = 0; m < span; m++)
                if (span < g) t[m] = pa_combine(kind, t[m], t[m + span]);
        x[q] = t[0];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}

/* Member i's family size where it is the last of its family (0 for the
 * others).  The members are in the order of their ancestors (resampling
 * keeps their order), so a family is a run of equal ancestors: the run's
 * first member is found by a binary search, among the chunk's members in
 * local memory (`chunk`, the chunk's first member `first`), or in the members
 * before the chunk for the one family that began there. */
inline uint pa_family_size(__global const uint *ancestor, uint n, __local const uint *chunk, uint first, uint l)
{
    uint i = first + l, a = chunk[l];
    if (i + 1 < n && ancestor[i + 1] == a) return 0u; /* not the family's last */
    uint lo = 0, hi = l;                                /* the first local member with ancestor a */
    while (lo < hi) {
        uint mid = lo + (hi - lo) / 2;
        if (chunk[mid] < a) lo = mid + 1;
        else hi = mid;
    }
    uint start = first + lo;
    if (lo == 0 && first > 0 && ancestor[first - 1] == a) { /* begun in an earlier chunk */
        uint glo = 0, ghi = first - 1;
        while (glo < ghi) {
            uint mid = glo + (ghi - glo) / 2;
            if (ancestor[mid] < a) glo = mid + 1;
            else ghi = mid;
        }
        start = glo;
    }
    return i + 1 - start;
}

/* Member i's terms of the chunk statistics in mine[0 .. PA_MEMBER_TERMS):
 * its E, E^2, |M|, M^2, M^4, its family's size squared and the size where
 * it is the family's last member (`family`, 0 for the others), or zeros
 * past n; pa_member_stats and pa_member_weights add two fields each
 * (PA_TERMS in all), combined as PA_TERMS_KINDS says. */
#define PA_MEMBER_TERMS 7
#define PA_TERMS 9
#define PA_TERMS_KINDS (PA_MAX << 12 | PA_MIN << 14 | PA_MAX << 16) /* 6 sums, the largest, a min, a max */
inline void pa_member_terms(__global const pa_value *energy, __global const pa_value *magnetisation, uint i, uint n,
                            uint family, __local double *mine)
{
    double e = i < n ? (double)energy[i] : 0.0, m = i < n ? fabs((double)magnetisation[i]) : 0.0;
    double size = (double)family;
    mine[0] = e;
    mine[1] = e * e;
    mine[2] = m;
    mine[3] = m * m;
    mine[4] = m * m * m * m;
    mine[5] = size * size;
    mine[6] = size;
}

/* Chunk c's statistics from the reduced terms and its energy range lo, hi:
 * min E, sum E, E^2, |M|, M^2, M^4, max E, the family squares and the
 * largest family.  By work-items 0 .. PA_STATS. */
#define PA_STATS 9
inline void pa_store_stats(__global double *stats, uint c, __local const double *terms, double lo, double hi)
{
    uint l = get_local_id(0);
    if (l < PA_STATS)
        stats[PA_STATS * (size_t)c + l] = l == 0 ? lo : l < 6 ? terms[l - 1] : l == 6 ? hi : terms[l - 2];
}

/* Per chunk c of members [0, n): min E, sum E, E^2, |M|, M^2, M^4, max E,
 * the sum of the squared sizes of the families that end in the chunk and
 * the largest of them (pa_family_size: each family counted once, at its last
 * member), each member's terms in local memory side by side (coalesced
 * loads), then combined by the halving tree (pa_tree: a fixed order, the
 * same sums on every device; the integer energies' sums and the squares are
 * exact in any order below 2^53). */
__kernel __attribute__((reqd_work_group_size(PA_CHUNK, 1, 1)))
void pa_member_stats(__global const pa_value *energy, __global const pa_value *magnetisation,
                     __global const uint *ancestor, uint n, __global double *stats)
{
    __local double terms[PA_TERMS * PA_CHUNK];
    __local uint chunk[PA_CHUNK];
    uint l = get_local_id(0), c = get_group_id(0), first = c * PA_CHUNK, i = first + l;
    __local double *mine = terms + PA_TERMS * l;
    if (i < n) chunk[l] = ancestor[i];
    barrier(CLK_LOCAL_MEM_FENCE);
    pa_member_terms(energy, magnetisation, i, n, i < n ? pa_family_size(ancestor, n, chunk, first, l) : 0u, mine);
    mine[PA_MEMBER_TERMS] = i < n ? (double)energy[i] : INFINITY;
    mine[PA_MEMBER_TERMS + 1] = i < n ? (double)energy[i] : -INFINITY;
    barrier(CLK_LOCAL_MEM_FENCE);
    pa_tree(terms, PA_TERMS, PA_TERMS, PA_TERMS_KINDS, PA_CHUNK);
    pa_store_stats(stats, c, terms, terms[PA_MEMBER_TERMS], terms[PA_MEMBER_TERMS + 1]);
}

/* The bins of a step's energy histogram, one per energy value from its
 * PA_E_MIN to PA_E_MAX; 0: too wide, none kept. */
inline uint pa_bins(__global const double *record)
{
    double width = floor(record[PA_E_MAX]) - floor(record[PA_E_MIN]) + 1.0;
    return width <= (double)PA_HISTOGRAM_BINS ? (uint)width : 0u;
}

/* histogram[floor E - floor E_min] += 1 for every member (histogram zero
 * before), the range from the step's record (pa_step_records).  Work-groups
 * of PA_CHUNK work-items, launched over whole groups (PA_HISTOGRAM_GROUPS at
 * most), each taking every (groups x PA_CHUNK)-th member from its items'
 * ids: where the step's bins fit PA_LOCAL_BINS the group counts into local
 * bins and adds each non-empty one to the histogram once (no contention on
 * the few bins of a cold population); else every member adds to the global
 * bin.  Counts are integers: the same histogram in any order.  Every
 * work-item reaches both barriers (the loops around them have trip counts
 * of their own but no barrier inside). */
#define PA_LOCAL_BINS 4096u
__kernel __attribute__((reqd_work_group_size(PA_CHUNK, 1, 1)))
void pa_histogram(__global const pa_value *energy, uint n, __global const double *records, uint at,
                  __global uint *histogram)
{
    __local uint local_bins[PA_LOCAL_BINS];
    __global const double *record = records + at;
    uint l = get_local_id(0), bins = pa_bins(record), stride = get_global_size(0);
    long floor_min = (long)floor(record[PA_E_MIN]);
    bool in_local = bins <= PA_LOCAL_BINS;
    for (uint b = l; in_local && b < bins; b += PA_CHUNK) local_bins[b] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint i = get_global_id(0); i < n; i += stride) {
        uint bin = (uint)((long)floor((double)energy[i]) - floor_min);
        if (bin >= bins) continue;
        if (in_local) atomic_inc(&local_bins[bin]);
        else atomic_inc(&histogram[bin]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint b = l; in_local && b < bins; b += PA_CHUNK)
        if (local_bins[b]) atomic_add(&histogram[b], local_bins[b]);
}

/* The overlap of step k's histogram `now` (n_now members) with step k-1's
 * `before` (n_before), record[PA_OVERLAP] = sum_E min(h_now(E) n_before,
 * h_before(E) n_now), an exact integer (the overlap is it / (n_now n_before));
 * -1 where either step kept no histogram.  By a work-group (any size, a power
 * of two up to 256; part: 256 local values), each work-item summing every
 * size-th bin; then the `before` histogram is cleared for step k+1.  Every
 * work-item of the group calls it (its barriers); a group with `active`
 * false reads and writes nothing (pa_copy_sources: its last group alone is active). */
inline void pa_overlap_of(__global const uint *now, __global uint *before, __global double *record,
                          __global const double *previous, ulong n_now, ulong n_before, bool active,
                          __local ulong *part)
{
    uint id = get_local_id(0), size = get_local_size(0);
    uint bins = active ? pa_bins(record) : 0u, bins_before = active ? pa_bins(previous) : 0u;
    long shift = active ? (long)floor(record[PA_E_MIN]) - (long)floor(previous[PA_E_MIN]) : 0;
    ulong sum = 0;
    if (bins && bins_before)
        for (uint b = id; b < bins; b += size) {
            long at_b = (long)b + shift;
            if (at_b < 0 || at_b >= (long)bins_before) continue;
            ulong x = (ulong)now[b] * n_before, y = (ulong)before[at_b] * n_now;
            sum += min(x, y);
        }
    part[id] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    /* whole numbers, exact in any order: summed in two stages (the first
     * PA_TREE_LEAVES work-items each every PA_TREE_LEAVES-th, then one) */
    uint leaves = min(PA_TREE_LEAVES, size);
    if (id < leaves) {
        ulong t = 0;
        for (uint k = id; k < size; k += leaves) t += part[k];
        part[id] = t;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (active && id == 0) {
        ulong total = 0;
        for (uint k = 0; k < leaves; k++) total += part[k];
        record[PA_OVERLAP] = bins && bins_before ? (double)total : -1.0;
    }
    barrier(CLK_GLOBAL_MEM_FENCE);
    for (uint b = id; b < bins_before; b += size) before[b] = 0;
}

__kernel void pa_overlap(__global const uint *now, __global uint *before, __global double *records, uint at,
                         uint at_before, ulong n_now, ulong n_before)
{
    __local ulong part[256];
    pa_overlap_of(now, before, records + at, records + at_before, n_now, n_before, true, part);
}

/* Step k's record from the per-chunk member statistics (pa_member_stats)
 * by a work-group (a power of two work-items up to 256): work-item id sums
 * chunks id, id + size, ... in order, and the halving tree the work-items'
 * sums (pa_tree: a fixed order for a given group size; the energy sums and
 * family squares are whole numbers, exact in any order below 2^53).  Every
 * work-item of the group calls it; then part[0 .. PA_PARTS) holds E min, E
 * max, the 5 sums, the family squares and the largest family. */
#define PA_PARTS 9
/* min E, max E, 5 sums, family squares, largest family */
#define PA_PARTS_KINDS (PA_MIN | PA_MAX << 2 | PA_MAX << 16)
inline void pa_record_parts(__global const double *stats, uint n_chunks, __local double *part)
{
    uint id = get_local_id(0), size = get_local_size(0);
    double x[PA_PARTS] = {INFINITY, -INFINITY, 0, 0, 0, 0, 0, 0, 0};
    for (uint c = id; c < n_chunks; c += size) {
        __global const double *s = stats + PA_STATS * (size_t)c;
        x[0] = fmin(x[0], s[0]);
        x[1] = fmax(x[1], s[6]);
        for (uint q = 0; q < 5; q++) x[2 + q] += s[1 + q];
        x[7] += s[7];
        x[8] = fmax(x[8], s[8]);
    }
    for (uint q = 0; q < PA_PARTS; q++) part[PA_PARTS * id + q] = x[q];
    barrier(CLK_LOCAL_MEM_FENCE);
    pa_tree(part, PA_PARTS, PA_PARTS, PA_PARTS_KINDS, size);
}

/* The record's fields from pa_record_parts' results. */
inline void pa_record_write(__local const double *x, __global double *record)
{
    record[PA_E_MIN] = x[0];
    record[PA_E_MAX] = x[1];
    for (uint q = 0; q < 5; q++) record[PA_SUMS + q] = x[2 + q];
    record[PA_FAMILY_SQUARES] = x[7];
    record[PA_LARGEST] = x[8];
}

/* The records of steps first, first + 1, ... (one work-group each) from
 * their chunk statistics, step s's in slot s % ring of `stats` (n_chunks x
 * PA_STATS doubles a slot): the separate kernels' one step (ring 1), or the
 * fused steps' records, made a batch at a time. */
__kernel void pa_step_records(__global const double *stats, uint n_chunks, uint ring, uint first,
                              __global double *records)
{
    __local double part[PA_PARTS * 256];
    uint step = first + get_group_id(0);
    pa_record_parts(stats + (size_t)(step % ring) * n_chunks * PA_STATS, n_chunks, part);
    if (get_local_id(0) == 0) pa_record_write(part, records + (size_t)step * PA_RECORD);
}

/* The prefix-sum steps, written once for the weights and the copy numbers. */
#define PA_T double
#include "ensembles/population_prefix_sums.h"
#undef PA_T
#define PA_T uint
#include "ensembles/population_prefix_sums.h"
#undef PA_T

/* p[0 .. count) becomes its inclusive running sum (p[count ..) zeros
 * first) by all PA_CHUNK work-items of the group (pa_scan_group_uint: exact
 * for integers).  Every work-item calls it after the barrier that follows
 * its p writes; p is read after it. */
inline void pa_scan_local_uint(__local uint *p, uint count)
{
    uint l = get_local_id(0);
    if (l >= count) p[l] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    pa_scan_group_uint(p, true);
}

/* cum[i]: the chunk's running sum of exp(-dbeta (E_i - e_min)) up to i
 * (pa_scan_group_double); chunk_total[c]: the chunk's sum.  By every
 * work-item of chunk c's group (w: PA_CHUNK local values; its barriers);
 * nothing for chunks past n. */
inline void pa_weights_of(__global const pa_value *energy, uint n, double dbeta, pa_value e_min, __global double *cum,
                          __global double *chunk_total, __local double *w)
{
    uint l = get_local_id(0), c = get_group_id(0), first = c * PA_CHUNK;
    w[l] = first + l < n ? PA_EXP(-dbeta * (double)(energy[first + l] - e_min)) : 0.0;
    barrier(CLK_LOCAL_MEM_FENCE);
    pa_scan_group_double(w, true);
    if (l == 0 && first < n) chunk_total[c] = w[min(n - first, PA_CHUNK) - 1];
    if (first + l < n) cum[first + l] = w[l];
}

/* e_min = record[at] (PA_E_MIN of the step before). */
__kernel __attribute__((reqd_work_group_size(PA_CHUNK, 1, 1)))
void pa_weights(__global const pa_value *energy, uint n, double dbeta, __global const double *record, uint at,
                __global double *cum, __global double *chunk_total)
{
    __local double w[PA_CHUNK];
    pa_weights_of(energy, n, dbeta, (pa_value)record[at], cum, chunk_total, w);
}

/* The chunk totals' exclusive scan by one work-group (pa_scan_chunks_T in
 * ensembles/population_prefix_sums.h); the grand total into total[at]. */
__kernel void pa_scan_double(__global double *chunk_total, uint n_chunks, __global double *total, uint at)
{
    __local double part[256];
    pa_scan_chunks_double(chunk_total, n_chunks, part, total + at);
}

__kernel void pa_add_double(__global double *cum, uint n, __global const double *chunk_offset)
{
    uint i = get_global_id(0);
    if (i < n) cum[i] = chunk_offset[i / PA_CHUNK] + cum[i];
}

/* A uniform in [0, 1) with 53 bits from two words. */
inline double uniform53(clmc_philox_ctr r)
{
    return ((double)(r.v[0] >> 5) * 67108864.0 + (double)(r.v[1] >> 6)) * 0x1.0p-53; /* 27 + 26 bits */
}

/* Copy numbers from the cumulative weights (total = records[total_at], the
 * run's sum pa_scan_double left, or the host under MPI ranks; in one process
 * equal to cum[n-1] bit for bit): the expected number of copies of member i
 * is tau_i = target w_i / total.  Under MPI ranks (docs/mpi.md) the kernel
 * sees this rank's members, the run's first + i, and cum_before is the run's
 * cumulative weight before them (0 for the first rank and in one process).
 *   systematic: n_i = floor(x_i + u) - floor(x_{i-1} + u), x_i = target cum_i / total,
 *     one uniform u for the step (sum exactly target);
 *   nearest: floor(tau_i) + 1 with probability tau_i - floor(tau_i), a uniform
 *     per member (the sum fluctuates around target).
 * Random numbers: purpose RESAMPLE (cl/common/philox.h), counter (member or 0,
 * step, run, CLMC_STREAM(RESAMPLE, scheme)). */
/* Member `member`'s copy number from its cumulative weight hi_cum and its
 * predecessor's lo_cum (pa_copy_numbers and pa_copy_prefix). */
inline uint pa_copy_number(double lo_cum, double hi_cum, double total, uint target, uint scheme, clmc_philox_key key,
                           uint member, uint step, uint run)
{
    double hi = hi_cum / total * (double)target, lo = lo_cum / total * (double)target;
    if (scheme == PA_SYSTEMATIC) {
        double u = uniform53(clmc_random4(key, 0, step, run, CLMC_STREAM(CLMC_PURPOSE_RESAMPLE, PA_SYSTEMATIC)));
        return (uint)(floor(hi + u) - floor(lo + u));
    }
    double u = uniform53(clmc_random4(key, member, step, run, CLMC_STREAM(CLMC_PURPOSE_RESAMPLE, PA_NEAREST)));
    double tau = hi - lo, whole = floor(tau);
    return (uint)whole + (u < tau - whole ? 1u : 0u);
}

__kernel void pa_copy_numbers(__global const double *cum, uint n, uint target, uint scheme, uint seed_lo,
                              uint seed_hi, uint step, uint run, __global uint *copies, uint first,
                              double cum_before, __global const double *records, uint total_at)
{
    uint i = get_global_id(0);
    if (i >= n) return;
    clmc_philox_key key = {{seed_lo, seed_hi}};
    copies[i] = pa_copy_number(i ? cum[i - 1] : cum_before, cum[i], records[total_at], target, scheme, key, first + i,
                               step, run);
}

/* In one process (systematic and nearest_integer): pa_add_double,
 * pa_copy_numbers and pa_prefix_chunks in one launch of a work-group per
 * chunk.  cum holds the chunks' own running sums and chunk_offset their
 * offsets (pa_scan_double), so member i's cumulative weight is chunk_offset[i
 * / PA_CHUNK] + cum[i], the sum pa_add_double would have stored, bit for bit;
 * its copy number is drawn as pa_copy_numbers draws it, and the chunk's copy
 * numbers are summed as pa_prefix_chunks sums them. */
__kernel __attribute__((reqd_work_group_size(PA_CHUNK, 1, 1)))
void pa_copy_prefix(__global const double *cum, uint n, uint target, uint scheme, uint seed_lo, uint seed_hi, uint step,
                    uint run, __global const double *chunk_offset, __global const double *records, uint total_at,
                    __global uint *copies, __global uint *prefix, __global uint *chunk_total)
{
    __local uint p[PA_CHUNK];
    uint l = get_local_id(0), c = get_group_id(0), first = c * PA_CHUNK, i = first + l;
    if (i < n) {
        clmc_philox_key key = {{seed_lo, seed_hi}};
        double hi_cum = chunk_offset[c] + cum[i];
        double lo_cum = i ? chunk_offset[(i - 1) / PA_CHUNK] + cum[i - 1] : 0.0;
        p[l] = copies[i] = pa_copy_number(lo_cum, hi_cum, records[total_at], target, scheme, key, i, step, run);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    pa_scan_local_uint(p, min(n - first, PA_CHUNK));
    if (l == PA_CHUNK - 1) chunk_total[c] = p[l];
    if (i < n) prefix[i] = p[l];
}

/* Multinomial: draw j of `target` picks the member whose cumulative weight
 * interval holds u_j total (counter (j, step, run, CLMC_STREAM(RESAMPLE, 1)));
 * copies must be zero before.  Under MPI ranks every rank makes all draws
 * and counts those that fall on its members (cum_before: the run's
 * cumulative weight before them; last: whether they end the population). */
__kernel void pa_multinomial(__global const double *cum, uint n, uint target, uint seed_lo, uint seed_hi, uint step,
                             uint run, __global uint *copies, double cum_before, uint last,
                             __global const double *records, uint total_at)
{
    uint j = get_global_id(0);
    if (j >= target) return;
    double total = records[total_at];
    clmc_philox_key key = {{seed_lo, seed_hi}};
    double x = uniform53(clmc_random4(key, j, step, run, CLMC_STREAM(CLMC_PURPOSE_RESAMPLE, PA_MULTINOMIAL))) * total;
    uint lo = 0, hi = n - 1; /* the first i with cum[i] > x; the last positive weight if rounding leaves none */
    if (last && !(cum[hi] > x)) x = cum[hi] - 0.5 * (cum[hi] - (hi ? cum[hi - 1] : cum_before));
    if (cum_before > x || (!last && !(cum[hi] > x))) return; /* another rank's member */
    while (lo < hi) {
        uint mid = lo + (hi - lo) / 2;
        if (cum[mid] > x) hi = mid;
        else lo = mid + 1;
    }
    atomic_inc(&copies[lo]);
}

/* prefix[i]: the chunk's inclusive running sum of copies; chunk_total[c]. */
__kernel __attribute__((reqd_work_group_size(PA_CHUNK, 1, 1)))
void pa_prefix_chunks(__global const uint *copies, uint n, __global uint *prefix, __global uint *chunk_total)
{
    __local uint p[PA_CHUNK];
    uint l = get_local_id(0), c = get_group_id(0), first = c * PA_CHUNK;
    if (first + l < n) p[l] = copies[first + l];
    barrier(CLK_LOCAL_MEM_FENCE);
    pa_scan_local_uint(p, min(n - first, PA_CHUNK));
    if (l == PA_CHUNK - 1) chunk_total[c] = p[l];
    if (first + l < n) prefix[first + l] = p[l];
}

/* The same for copy numbers (exact: any order gives the same sums); the total into total[0]. */
__kernel void pa_scan_uint(__global uint *chunk_total, uint n_chunks, __global uint *total)
{
    __local uint part[256];
    pa_scan_chunks_uint(chunk_total, n_chunks, part, total);
}

__kernel void pa_add_uint(__global uint *prefix, uint n, __global const uint *chunk_offset)
{
    uint i = get_global_id(0);
    if (i < n) prefix[i] += chunk_offset[i / PA_CHUNK];
}

/* source[j] for the new slots j < n_new: the member i with prefix[i-1] <= j +
 * offset < prefix[i] (a binary search, so a large family costs no more than
 * others).  Under MPI ranks prefix is the window of the old members this
 * rank's new members [offset, offset + n_new) come from, in the run's order
 * (received ones and its own), with the run's inclusive prefix sums. */
__kernel void pa_sources(__global const uint *prefix, uint n, uint n_new, __global uint *source, uint offset)
{
    uint j = get_global_id(0);
    if (j >= n_new) return;
    uint lo = 0, hi = n - 1, at = j + offset;
    while (lo < hi) {
        uint mid = lo + (hi - lo) / 2;
        if (prefix[mid] > at) hi = mid;
        else lo = mid + 1;
    }
    source[j] = lo;
}

/* In one process: pa_add_uint, pa_sources and the ancestors' pa_gather in
 * one launch.  prefix holds the chunks' own inclusive running sums of copies
 * and chunk_offset their exclusive offsets (pa_scan_uint), so slot j's chunk
 * is the last with chunk_offset[c] <= j (an empty chunk's offset equals the
 * next one's, so it is never the last; the last chunk's offset <= j < n_new
 * means it holds copies), and its source the chunk's first member i with
 * prefix[i] > j - chunk_offset[c]: the member pa_sources finds in the sums
 * with the offsets added.  new_ancestor[j] = ancestor[source[j]]. */
__kernel void pa_sources_own(__global const uint *prefix, __global const uint *chunk_offset, uint n, uint n_new,
                             __global uint *source, __global const uint *ancestor, __global uint *new_ancestor)
{
    uint j = get_global_id(0);
    if (j >= n_new) return;
    uint lo = 0, hi = (n - 1) / PA_CHUNK;
    while (lo < hi) { /* the last chunk with offset <= j */
        uint mid = hi - (hi - lo) / 2;
        if (chunk_offset[mid] <= j) lo = mid;
        else hi = mid - 1;
    }
    uint at = j - chunk_offset[lo];
    hi = min(n, (lo + 1) * PA_CHUNK) - 1;
    lo *= PA_CHUNK;
    while (lo < hi) {
        uint mid = lo + (hi - lo) / 2;
        if (prefix[mid] > at) hi = mid;
        else lo = mid + 1;
    }
    source[j] = lo;
    new_ancestor[j] = ancestor[lo];
}

/* ---- A step in fewer launches (one process, systematic resampling, a fixed
 * schedule: src/ensembles/population_annealing.c, ensemble.fused_steps).
 * After the sweeps, each chunk's energy range (the model's update folds it,
 * or pa_energy_range), then two launches of PA_CHUNK work-items per group,
 * one group per chunk, do what pa_member_stats, pa_step_records,
 * pa_histogram, the next step's pa_weights, pa_scan_double, pa_copy_prefix,
 * pa_overlap, pa_scan_uint and pa_sources_own do, each group repeating the
 * one-group reductions it needs (the run's energy range, the weights' scan)
 * in the order those kernels take with work-groups of PA_CHUNK: the same
 * bits.  The members' ancestors are labelled by their family's first member
 * (pa_copy_sources keeps them so), which gives a family's size at its last
 * member without a search. */

#ifdef PA_REAL_MEMBERS
#define PA_VALUE_HIGHEST INFINITY
#define PA_VALUE_LOWEST (-INFINITY)
#else
#define PA_VALUE_HIGHEST INT_MAX
#define PA_VALUE_LOWEST INT_MIN
#endif

/* chunk_range[2c], [2c + 1]: chunk c's least and greatest energy, where the
 * model's update did not fold them in (pa_copy_sources leaves every chunk's
 * pair at PA_VALUE_HIGHEST, PA_VALUE_LOWEST for the fold: atomic_min and
 * atomic_max of the chunk's integer energies). */
__kernel __attribute__((reqd_work_group_size(PA_CHUNK, 1, 1)))
void pa_energy_range(__global const pa_value *energy, uint n, __global pa_value *chunk_range)
{
    __local double x[2 * PA_CHUNK];
    uint l = get_local_id(0), c = get_group_id(0), i = c * PA_CHUNK + l;
    double e = i < n ? (double)energy[i] : 0.0;
    x[2 * l] = i < n ? e : INFINITY;
    x[2 * l + 1] = i < n ? e : -INFINITY;
    barrier(CLK_LOCAL_MEM_FENCE);
    pa_tree(x, 2, 2, PA_MIN | PA_MAX << 2, PA_CHUNK);
    if (l < 2) chunk_range[2 * (size_t)c + l] = (pa_value)x[l];
}

/* Step k's chunk statistics (pa_member_stats', at stats + stats_at: the
 * records are made from them a batch of steps at a time, pa_step_records),
 * the record's E min and E max (group 0), the
 * step's energy histogram and, where `weigh`, step k+1's weights exp(-dbeta
 * (E_i - E_min)) of the members (pa_weights).  Every group reduces the
 * chunks' ranges for E min and E max along with its chunk's statistics (one
 * pa_tree), then counts its chunk's energies, into local bins over the
 * chunk's own range where that fits PA_FUSED_BINS (each non-empty bin added
 * to the histogram once), else into the histogram's bins.  label: each
 * member's family's first member, so the family's size is i + 1 - label[i]
 * at its last member i. */
#define PA_FUSED_BINS 2048u
__kernel __attribute__((reqd_work_group_size(PA_CHUNK, 1, 1)))
void pa_member_weights(__global const pa_value *energy, __global const pa_value *magnetisation,
                       __global const uint *label, uint n, __global const pa_value *chunk_range,
                       __global double *stats, uint stats_at, __global double *records, uint at, __global uint *histogram,
                       uint weigh, double dbeta, __global double *cum, __global double *chunk_total)
{
    /* the terms, then the histogram's local bins and the weights, in the
     * same 18 KB of local memory */
    __local double terms[PA_TERMS * PA_CHUNK];
    __local uint *local_bins = (__local uint *)terms;
    __local double *w = terms + PA_FUSED_BINS / 2;
    uint l = get_local_id(0), c = get_group_id(0), i = c * PA_CHUNK + l, n_chunks = (n + PA_CHUNK - 1) / PA_CHUNK;
    __local double *mine = terms + PA_TERMS * l;
    uint family = i < n && (i + 1 == n || label[i + 1] != label[i]) ? i + 1 - label[i] : 0u;
    pa_member_terms(energy, magnetisation, i, n, family, mine);
    double lo = INFINITY, hi = -INFINITY;
    for (uint k = l; k < n_chunks; k += PA_CHUNK) { /* no barrier in this loop */
        lo = fmin(lo, (double)chunk_range[2 * (size_t)k]);
        hi = fmax(hi, (double)chunk_range[2 * (size_t)k + 1]);
    }
    mine[PA_MEMBER_TERMS] = lo;
    mine[PA_MEMBER_TERMS + 1] = hi;
    barrier(CLK_LOCAL_MEM_FENCE);
    pa_tree(terms, PA_TERMS, PA_TERMS, PA_TERMS_KINDS, PA_CHUNK);
    double chunk_lo = (double)chunk_range[2 * (size_t)c], chunk_hi = (double)chunk_range[2 * (size_t)c + 1];
    pa_store_stats(stats + stats_at, c, terms, chunk_lo, chunk_hi);
    double e_min = terms[PA_MEMBER_TERMS], e_max = terms[PA_MEMBER_TERMS + 1];
    barrier(CLK_LOCAL_MEM_FENCE); /* the terms read: the memory is the bins' */
    if (c == 0 && l < 2) records[at + (l ? PA_E_MAX : PA_E_MIN)] = l ? e_max : e_min;
    double width = floor(e_max) - floor(e_min) + 1.0; /* pa_bins */
    uint bins = width <= (double)PA_HISTOGRAM_BINS ? (uint)width : 0u;
    long floor_min = (long)floor(e_min), chunk_floor = (long)floor(chunk_lo);
    uint chunk_bins = (uint)((long)floor(chunk_hi) - chunk_floor + 1);
    uint offset = (uint)(chunk_floor - floor_min);
    bool in_local = bins && chunk_bins <= PA_FUSED_BINS;
    for (uint b = l; in_local && b < chunk_bins; b += PA_CHUNK) local_bins[b] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (bins && i < n) {
        uint bin = (uint)((long)floor((double)energy[i]) - floor_min);
        if (bin < bins) {
            if (in_local) atomic_inc(&local_bins[bin - offset]);
            else atomic_inc(&histogram[bin]);
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint b = l; in_local && b < chunk_bins; b += PA_CHUNK)
        if (local_bins[b]) atomic_add(&histogram[offset + b], local_bins[b]);
    pa_weights_of(energy, weigh ? n : 0u, dbeta, (pa_value)e_min, cum, chunk_total, w);
}

/* Chunk x's offset in the exclusive scan of pa_scan_chunks_double with
 * PA_CHUNK work-items (part: the blocks' offsets it computes first), and
 * with x the last chunk and `through` set, the grand total it leaves. */
inline double pa_chunk_offset(__global const double *chunk_total, uint n_chunks, __local const double *part, uint x,
                              bool through)
{
    uint per = (n_chunks + PA_CHUNK - 1) / PA_CHUNK, b = x / per;
    double offset = part[b];
    for (uint c = b * per; c < x + (through ? 1u : 0u); c++) offset += chunk_total[c];
    return offset;
}

/* pa_scan_double, pa_copy_prefix, pa_scan_uint and pa_sources_own in one
 * launch (systematic copy numbers): every group repeats the weights' block
 * sums and their scan as pa_scan_chunks_double makes them (PA_CHUNK
 * work-items), then takes its chunk's offset, its predecessor's and the
 * total (records[total_at], written by group 0) from them.  Systematic copy
 * numbers telescope: member i's copies are floor(x_i + u) - floor(x_i-1 +
 * u) with x_i = target cum_i / total (pa_copy_number, the same doubles), so
 * its copies fill the new slots [floor(x_i-1 + u), floor(x_i + u)), the
 * inclusive prefix sums of pa_copy_prefix and pa_scan_uint; the group's
 * work-items take the slots of its chunk in turn and find each one's source
 * among the chunk's ends (the member pa_sources_own finds).  Its label
 * (ancestor) is the first new slot of its family: the first slot of the
 * family's first member label[i] (that member's own group's floor(x + u),
 * the same doubles).  One more group, past the chunks, makes the previous
 * step's overlap where `overlap` (pa_overlap: histograms now and before,
 * records at_now and at_before), beside the chunks' work.  Every chunk's
 * group then leaves its range pair ready for the next update's fold
 * (fold_energy_range; pa_energy_range overwrites it where none folds).
 * The first arguments are pa_copy_prefix's; `scheme` is PA_SYSTEMATIC, the
 * one scheme whose copy numbers telescope. */
__kernel __attribute__((reqd_work_group_size(PA_CHUNK, 1, 1)))
void pa_copy_sources(__global const double *cum, uint n, uint target, uint scheme, uint seed_lo, uint seed_hi,
                     uint step, uint run, __global const double *chunk_total, __global double *records, uint total_at,
                     __global uint *source, __global const uint *label, __global uint *new_label, uint overlap,
                     __global const uint *now, __global uint *before, uint at_now, uint at_before, ulong n_now,
                     ulong n_before, __global pa_value *chunk_range)
{
    __local double part[PA_CHUNK], offsets[3];
    __local ulong overlap_part[PA_CHUNK];
    __local uint ends[PA_CHUNK], slots_from[1], labels[PA_CHUNK];
    uint l = get_local_id(0), c = get_group_id(0), first = c * PA_CHUNK, i = first + l;
    uint n_chunks = (n + PA_CHUNK - 1) / PA_CHUNK, block_first, block_last;
    bool members = c < n_chunks; /* group n_chunks: the overlap alone */
    /* the members' loads first, to overlap the scan: labels, the running
     * sums of this member and of the one before the chunk, and of the one
     * before the first member of the family the chunk begins with, where
     * that family began in an earlier chunk (the one such family) */
    if (i < n) labels[l] = label[i];
    uint family_first = members ? label[first] : 0u;
    bool family_before = family_first < first && family_first > 0;
    double cum_i = i < n ? cum[i] : 0.0, cum_before = members && l == 0 && i ? cum[i - 1] : 0.0;
    double cum_family = family_before ? cum[family_first - 1] : 0.0;
    pa_block(n_chunks, l, PA_CHUNK, &block_first, &block_last);
    double sum = 0;
    for (uint b = block_first; b < block_last; b++) sum += chunk_total[b];
    part[l] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    /* the blocks' offsets as pa_scan_chunks_double makes them (the blocks
     * past the last chunk hold zeros) */
    pa_scan_group_double(part, false);
    if (l < 3) offsets[l] = l == 0 ? (members ? pa_chunk_offset(chunk_total, n_chunks, part, c, false) : 0.0)
                          : l == 1 ? (c && members ? pa_chunk_offset(chunk_total, n_chunks, part, c - 1, false) : 0.0)
                                   : pa_chunk_offset(chunk_total, n_chunks, part, n_chunks - 1, true);
    double family_sum =
        family_before ? pa_chunk_offset(chunk_total, n_chunks, part, (family_first - 1) / PA_CHUNK, false) + cum_family
                      : 0.0;
    barrier(CLK_LOCAL_MEM_FENCE);
    double total = offsets[2];
    if (c == 0 && l == 0) records[total_at] = total;
    clmc_philox_key key = {{seed_lo, seed_hi}};
    double u = uniform53(clmc_random4(key, 0, step, run, CLMC_STREAM(CLMC_PURPOSE_RESAMPLE, scheme)));
    /* x_i in statements of their own, as pa_copy_number computes them (no
     * multiply-add contracted across them: the same doubles) */
    double x = i < n ? (offsets[0] + cum_i) / total * (double)target : 0.0;
    double x_before = l == 0 && i ? (offsets[1] + cum_before) / total * (double)target : 0.0;
    double x_family = family_sum / total * (double)target;
    uint slot_family = family_before ? (uint)floor(x_family + u) : 0u; /* the first slot of that family */
    if (i < n) ends[l] = (uint)floor(x + u);
    if (l == 0) slots_from[0] = i ? (uint)floor(x_before + u) : 0u;
    barrier(CLK_LOCAL_MEM_FENCE);
    uint count = members ? min(n - first, PA_CHUNK) : 0u;
    for (uint j = slots_from[0] + l; count && j < ends[count - 1]; j += PA_CHUNK) { /* no barrier in this loop */
        uint lo = 0, hi = count - 1;
        while (lo < hi) {
            uint mid = lo + (hi - lo) / 2;
            if (ends[mid] > j) hi = mid;
            else lo = mid + 1;
        }
        uint f = labels[lo]; /* the source's family's first member */
        source[j] = first + lo;
        new_label[j] = f > first ? ends[f - 1 - first] : f == first ? slots_from[0] : f > 0 ? slot_family : 0u;
    }
    pa_overlap_of(now, before, records + at_now, records + at_before, n_now, n_before, overlap && !members,
                  overlap_part);
    if (members && l < 2) chunk_range[2 * (size_t)c + l] = l ? PA_VALUE_LOWEST : PA_VALUE_HIGHEST;
}

/* Where window entry s lies (pa_sources): entries [0, n_lower) are
 * received[0 ..), the next n_own are from[0 ..) (this rank's own; all of
 * them in one process), the rest received[n_lower ..).  Returns whether it
 * is in `received`, and its member index there or in `from`. */
inline bool gather_from_received(uint s, uint n_lower, uint n_own, uint *member)
{
    if (s < n_lower) {
        *member = s;
        return true;
    }
    if (s - n_lower < n_own) {
        *member = s - n_lower;
        return false;
    }
    *member = s - n_own;
    return true;
}

/* to[j] = the member source[j] of the window, `units` units per member, one
 * work-item per unit of the new members (global size units x n_new, 1D):
 * consecutive work-items write consecutive units, whatever `units` is.
 * pa_gather: 32-bit words (one for the ancestors), 64-bit indices;
 * pa_gather4: 16-byte quads where units x n_new < 2^32, 32-bit indices
 * (members of 2D L = 64 msc Ising, 512 bytes, R = 1e6: 247 us a step on an
 * H200 against 642 with pa_gather, 4.1 against 1.6 TB/s read and written). */
#define PA_GATHER(name, unit, index)                                                                            \
    __kernel void name(__global const unit *from, __global unit *to, uint units, __global const uint *source,   \
                       uint n_new, __global const unit *received, uint n_lower, uint n_own)                     \
    {                                                                                                           \
        index id = get_global_id(0);                                                                            \
        if (id >= (index)units * n_new) return;                                                                 \
        uint j = (uint)(id / units), w = (uint)(id - (index)j * units), member;                                 \
        bool away = gather_from_received(source[j], n_lower, n_own, &member);                                  \
        to[id] = (away ? received : from)[(size_t)member * units + w];                                          \
    }
PA_GATHER(pa_gather, uint, size_t)
PA_GATHER(pa_gather4, uint4, uint)

/* MPI ranks: for every rank s, the range [ranges[2s], ranges[2s+1]) of this
 * rank's n members (inclusive prefix sums of copies base + prefix[i] in the
 * run's numbering) whose copies fall into s's new members [bounds[2s],
 * bounds[2s+1]): the first i with base + prefix[i] > bounds[2s], to the
 * first with base + prefix[i] >= bounds[2s+1], included. */
__kernel void pa_share_ranges(__global const uint *prefix, uint n, uint base, __global const uint *bounds,
                              uint ranks, __global uint *ranges)
{
    uint s = get_global_id(0);
    if (s >= ranks) return;
    uint a = bounds[2 * s], b = bounds[2 * s + 1], lo = 0, hi = n;
    while (lo < hi) {
        uint mid = lo + (hi - lo) / 2;
        if (base + prefix[mid] > a) hi = mid;
        else lo = mid + 1;
    }
    uint first = lo;
    hi = n;
    while (lo < hi) {
        uint mid = lo + (hi - lo) / 2;
        if (base + prefix[mid] >= b) hi = mid;
        else lo = mid + 1;
    }
    ranges[2 * s] = first;
    ranges[2 * s + 1] = lo < n ? lo + 1 : n;
}

/* MPI ranks: window[at + i] = base + prefix[i], this rank's members' run-wide
 * inclusive prefix sums in the window of pa_sources. */
__kernel void pa_window_prefix(__global const uint *prefix, uint n, uint base, __global uint *window, uint at)
{
    uint i = get_global_id(0);
    if (i < n) window[at + i] = base + prefix[i];
}

/* MPI ranks: the families at the ends of this rank's members (the members
 * are in the order of their ancestors, so only these may continue on the
 * neighbouring ranks): ancestor and local size of the first and the last,
 * the sizes by binary searches for the ends of their runs. */
__kernel void pa_family_edges(__global const uint *ancestor, uint n, __global uint *edges)
{
    if (get_global_id(0) != 0) return;
    uint first = ancestor[0], last = ancestor[n - 1], lo = 0, hi = n;
    while (lo < hi) { /* the first member past the first family */
        uint mid = lo + (hi - lo) / 2;
        if (ancestor[mid] > first) hi = mid;
        else lo = mid + 1;
    }
    edges[0] = first;
    edges[1] = lo;
    lo = 0, hi = n;
    while (lo < hi) { /* the first member of the last family */
        uint mid = lo + (hi - lo) / 2;
        if (ancestor[mid] < last) lo = mid + 1;
        else hi = mid;
    }
    edges[2] = last;
    edges[3] = n - lo;
}
