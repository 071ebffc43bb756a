/* Population annealing of members packed LANE_BITS to a word (the EA spin
 * glass's msc layout, src/models/ensemble_hooks.h member_lanes): the copy of
 * the new population at bit granularity, member j of the new population =
 * member source[j] of the old (pa_sources of cl/ensembles/population.cl).
 *
 * Defines: LANE_BITS (32|64: members per word, lane_t uint or ulong),
 * GROUP_WORDS (words of one group of LANE_BITS members: lane b of every
 * word of group g is member LANE_BITS g + b), GATHER_WG (work-group size,
 * a power of two).  Buffers: members [group][GROUP_WORDS] as lane_t. */
#if LANE_BITS == 64
typedef ulong lane_t;
#elif LANE_BITS == 32
typedef uint lane_t;
#else
#error "LANE_BITS must be 32 or 64"
#endif

/* The lanes of one new group come in segments, runs of lanes whose sources
 * are consecutive members of one old group: a segment moves with one load,
 * shift and mask per word.  source is non-decreasing, so a group's sources
 * lie close together; a family of several copies or a culled member starts
 * a new segment. */
typedef struct {
    int shift;   /* new lane - old lane */
    lane_t mask; /* the segment's lanes in the new word */
} pa_segment;

inline lane_t pa_lanes(uint count)
{
    return count >= LANE_BITS ? ~(lane_t)0 : (((lane_t)1 << count) - 1);
}

/* Work-group (block b of GATHER_WG words, new group g): the group's
 * segments found in parallel (lanes j >= n_new: none, their bits 0), then
 * every work-item builds its word from them.  Each of the group's lanes
 * (one work-item per lane, looping where GATHER_WG < LANE_BITS) stages its
 * source in local memory and marks in bit masks whether it starts a segment
 * and whether it starts a run (segments from one old group: the sources do
 * not decrease, so a group's segments come from a few old groups, mostly
 * one or two); a start lane's segment is the `rank`-th (the marked lanes
 * below it) and reaches up to the next marked lane.  Every work-item then
 * loads one old word per run and takes the run's segments from it.  The
 * segments and runs are the group's, so every work-item of the group loops
 * the same number of times.  Launched over whole work-groups; work-items
 * past GROUP_WORDS only take part in the barriers.  groups: the new groups
 * written (all of the buffer's, so the lanes past n_new are always 0). */
#define FLAG_WORDS ((LANE_BITS + 31) / 32)

/* Lanes below b marked in `marks`. */
inline uint marks_below(ulong marks, uint b)
{
    return (uint)popcount(marks & (((ulong)1 << b) - 1));
}

__kernel __attribute__((reqd_work_group_size(GATHER_WG, 1, 1)))
void pa_gather_lanes(__global const lane_t *from, __global lane_t *to, __global const uint *source, uint n_new)
{
    __local pa_segment segments[LANE_BITS];
    __local uint sources[LANE_BITS], starts[FLAG_WORDS], loads[FLAG_WORDS];
    __local uint run_first[LANE_BITS + 1], run_group[LANE_BITS];
    uint g = get_group_id(1), w = get_global_id(0), lid = get_local_id(0);
    uint first = LANE_BITS * g, valid = n_new > first ? min(n_new - first, (uint)LANE_BITS) : 0u;
    for (uint b = lid; b < LANE_BITS; b += GATHER_WG) {
        if (b < FLAG_WORDS) starts[b] = loads[b] = 0;
        sources[b] = b < valid ? source[first + b] : 0u;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint b = lid; b < valid; b += GATHER_WG) {
        uint s = sources[b], before = b > 0 ? sources[b - 1] : 0u;
        if (b == 0 || s != before + 1 || s % LANE_BITS == 0) atomic_or(&starts[b / 32], 1u << (b % 32));
        if (b == 0 || s / LANE_BITS != before / LANE_BITS) atomic_or(&loads[b / 32], 1u << (b % 32));
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#if LANE_BITS == 64
    ulong marks = (ulong)starts[0] | (ulong)starts[1] << 32, runs = (ulong)loads[0] | (ulong)loads[1] << 32;
#else
    ulong marks = starts[0], runs = loads[0];
#endif
    uint n_segments = (uint)popcount(marks), n_runs = (uint)popcount(runs);
    for (uint b = lid; b < valid; b += GATHER_WG) {
        if (!((marks >> b) & 1u)) continue;
        ulong above = b + 1 < 64 ? marks >> (b + 1) : 0; /* the next start, else the valid lanes' end */
        uint end = above ? b + 1 + (uint)popcount((above & (~above + 1)) - 1) : valid;
        uint rank = marks_below(marks, b), s = sources[b];
        segments[rank].shift = (int)b - (int)(s % LANE_BITS);
        segments[rank].mask = pa_lanes(end - b) << b;
        if ((runs >> b) & 1u) {
            uint run = marks_below(runs, b);
            run_first[run] = rank;
            run_group[run] = s / LANE_BITS;
        }
    }
    if (lid == 0) run_first[n_runs] = n_segments;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (w >= GROUP_WORDS) return;
    lane_t word = 0;
    for (uint run = 0; run < n_runs; run++) {
        lane_t old = from[(size_t)run_group[run] * GROUP_WORDS + w];
        for (uint i = run_first[run]; i < run_first[run + 1]; i++) {
            pa_segment segment = segments[i];
            word |= (segment.shift >= 0 ? old << segment.shift : old >> -segment.shift) & segment.mask;
        }
    }
    to[(size_t)g * GROUP_WORDS + w] = word;
}
