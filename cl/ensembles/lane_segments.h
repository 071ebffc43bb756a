/* Population annealing of members packed LANE_BITS to a word (lane_t: uint
 * or ulong), member j of the new population = member source[j] of the old:
 * the segments of one new group of LANE_BITS members and the new group's
 * words built from them.  Shared by pa_gather_lanes
 * (cl/ensembles/population_lanes.cl) and the gather fused into the EA
 * resident update (cl/ea/ea_energy_pass.cl).  Needs LANE_BITS and lane_t. */
#ifndef CLMC_LANE_SEGMENTS_H
#define CLMC_LANE_SEGMENTS_H

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

#define FLAG_WORDS ((LANE_BITS + 31) / 32)

/* Lanes below b marked in `marks`. */
inline uint marks_below(ulong marks, uint b)
{
    return (uint)popcount(marks & (((ulong)1 << b) - 1));
}

/* A group's segments, in the local memory of the work-group that builds its words. */
typedef struct {
    pa_segment segments[LANE_BITS];
    uint sources[LANE_BITS], starts[FLAG_WORDS], loads[FLAG_WORDS];
    uint run_first[LANE_BITS + 1], run_group[LANE_BITS];
} pa_group_segments;

/* The segments of new group g (lanes j >= n_new: none, their bits 0),
 * found in parallel by the `size` work-items of the work-group (each calls
 * it; three barriers, outside any branch).  Each of the group's lanes (one
 * work-item per lane, looping where size < LANE_BITS) stages its source in
 * local memory and marks in bit masks whether it starts a segment and
 * whether it starts a run (segments from one old group: the sources do not
 * decrease, so a group's segments come from a few old groups, mostly one or
 * two); a start lane's segment is the `rank`-th (the marked lanes below it)
 * and reaches up to the next marked lane.  Returns the runs. */
inline uint pa_find_segments(__global const uint *source, uint n_new, uint g, __local pa_group_segments *t, uint lid,
                             uint size)
{
    uint first = LANE_BITS * g, valid = n_new > first ? min(n_new - first, (uint)LANE_BITS) : 0u;
    for (uint b = lid; b < LANE_BITS; b += size) {
        if (b < FLAG_WORDS) t->starts[b] = t->loads[b] = 0;
        t->sources[b] = b < valid ? source[first + b] : 0u;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint b = lid; b < valid; b += size) {
        uint s = t->sources[b], before = b > 0 ? t->sources[b - 1] : 0u;
        if (b == 0 || s != before + 1 || s % LANE_BITS == 0) atomic_or(&t->starts[b / 32], 1u << (b % 32));
        if (b == 0 || s / LANE_BITS != before / LANE_BITS) atomic_or(&t->loads[b / 32], 1u << (b % 32));
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#if LANE_BITS == 64
    ulong marks = (ulong)t->starts[0] | (ulong)t->starts[1] << 32, runs = (ulong)t->loads[0] | (ulong)t->loads[1] << 32;
#else
    ulong marks = t->starts[0], runs = t->loads[0];
#endif
    uint n_segments = (uint)popcount(marks), n_runs = (uint)popcount(runs);
    for (uint b = lid; b < valid; b += size) {
        if (!((marks >> b) & 1u)) continue;
        ulong above = b + 1 < 64 ? marks >> (b + 1) : 0; /* the next start, else the valid lanes' end */
        uint end = above ? b + 1 + (uint)popcount((above & (~above + 1)) - 1) : valid;
        uint rank = marks_below(marks, b), s = t->sources[b];
        t->segments[rank].shift = (int)b - (int)(s % LANE_BITS);
        t->segments[rank].mask = pa_lanes(end - b) << b;
        if ((runs >> b) & 1u) {
            uint run = marks_below(runs, b);
            t->run_first[run] = rank;
            t->run_group[run] = s / LANE_BITS;
        }
    }
    if (lid == 0) t->run_first[n_runs] = n_segments;
    barrier(CLK_LOCAL_MEM_FENCE);
    return n_runs;
}

/* Word w of the new group: one old word per run (groups of group_words
 * words in `from`), the run's segments taken from it.  The segments and runs
 * are the group's, so every work-item of the group loops the same number of
 * times. */
inline lane_t pa_gathered_word(__global const lane_t *from, size_t group_words, uint w, uint n_runs,
                               __local const pa_group_segments *t)
{
    lane_t word = 0;
    for (uint run = 0; run < n_runs; run++) {
        lane_t old = from[(size_t)t->run_group[run] * group_words + w];
        for (uint i = t->run_first[run]; i < t->run_first[run + 1]; i++) {
            pa_segment segment = t->segments[i];
            word |= (segment.shift >= 0 ? old << segment.shift : old >> -segment.shift) & segment.mask;
        }
    }
    return word;
}

#endif
