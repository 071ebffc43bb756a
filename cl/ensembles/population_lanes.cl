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
    uint group;  /* the old group */
    int shift;   /* new lane - old lane */
    lane_t mask; /* the segment's lanes in the new word */
} pa_segment;

inline lane_t pa_lanes(uint count)
{
    return count >= LANE_BITS ? ~(lane_t)0 : (((lane_t)1 << count) - 1);
}

/* Work-group (block b of GATHER_WG words, new group g): work-item 0 finds the
 * group's segments (lanes j >= n_new: none, their bits 0), then every
 * work-item builds its word from them.  The segments are the group's, so
 * every work-item of the group loops the same number of times.  Launched
 * over whole work-groups; work-items past GROUP_WORDS only take part in the
 * barrier.  groups: the new groups written (all of the buffer's, so the
 * lanes past n_new are always 0). */
__kernel __attribute__((reqd_work_group_size(GATHER_WG, 1, 1)))
void pa_gather_lanes(__global const lane_t *from, __global lane_t *to, __global const uint *source, uint n_new)
{
    __local pa_segment segments[LANE_BITS];
    __local uint n_segments;
    uint g = get_group_id(1), w = get_global_id(0);
    if (get_local_id(0) == 0) {
        uint count = 0, first = LANE_BITS * g, previous = 0, start = 0, length = 0;
        for (uint b = 0; b < LANE_BITS && first + b < n_new; b++) {
            uint s = source[first + b];
            if (length > 0 && s == previous + 1 && s % LANE_BITS != 0) {
                length++;
            } else {
                if (length > 0) segments[count++].mask = pa_lanes(length) << start;
                segments[count].group = s / LANE_BITS;
                segments[count].shift = (int)b - (int)(s % LANE_BITS);
                length = 1;
                start = b;
            }
            previous = s;
        }
        if (length > 0) segments[count++].mask = pa_lanes(length) << start;
        n_segments = count;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (w >= GROUP_WORDS) return;
    lane_t word = 0;
    for (uint i = 0; i < n_segments; i++) {
        pa_segment segment = segments[i];
        lane_t old = from[(size_t)segment.group * GROUP_WORDS + w];
        word |= (segment.shift >= 0 ? old << segment.shift : old >> -segment.shift) & segment.mask;
    }
    to[(size_t)g * GROUP_WORDS + w] = word;
}
