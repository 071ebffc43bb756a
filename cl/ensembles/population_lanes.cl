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

#include "ensembles/lane_segments.h"

/* Work-group (block b of GATHER_WG words, new group g): the group's
 * segments (pa_find_segments), then every work-item builds its word from
 * them.  Launched over whole work-groups; work-items past GROUP_WORDS only
 * take part in the barriers.  groups: the new groups written (all of the
 * buffer's, so the lanes past n_new are always 0). */
__kernel __attribute__((reqd_work_group_size(GATHER_WG, 1, 1)))
void pa_gather_lanes(__global const lane_t *from, __global lane_t *to, __global const uint *source, uint n_new)
{
    __local pa_group_segments segments;
    uint g = get_group_id(1), w = get_global_id(0);
    uint n_runs = pa_find_segments(source, n_new, g, &segments, get_local_id(0), GATHER_WG);
    if (w < GROUP_WORDS) to[(size_t)g * GROUP_WORDS + w] = pa_gathered_word(from, GROUP_WORDS, w, n_runs, &segments);
}
