/* EA msc tempering on the device: the lane masks of every stack from the
 * ensemble's device maps (the model's set_temperatures_device). */
#include "ea/ea_ising.h"

/* Adds lane `lane`, whose configuration sits at temperature t and whose
 * partner has place partner_place, to the masks of (stack, j). */
inline void add_lane(word_t *below, word_t *partner, uint lane, uint j, uint t, uint partner_place)
{
    word_t bit = (word_t)1 << lane;
    *below |= t < j ? bit : (word_t)0;
    *partner |= partner_place == j ? bit : (word_t)0;
}

/* Tempering on the device: what map_stack (src/models/ea/ea_ising.c) builds on
 * the host, from the engine's device maps config_at [chain][temperature] and
 * temperature_of [config].  One work-item per (stack, j), j = 0 ..
 * TEMPERATURES, writes lanes_below[stack][j] (the lanes whose configuration
 * sits below temperature j) and, for j < TEMPERATURES, partner_lanes[stack][j]
 * (the lanes whose partner, the other replica's configuration at the same
 * temperature, has place j); the lanes' reads are independent, so they
 * overlap, and each mask is built in a register and stored once. */
__kernel void ea_msc_lane_masks(__global const uint *restrict config_at, __global const uint *restrict temperature_of,
                                __global word_t *restrict lane_masks)
{
    uint item = get_global_id(0);
    if (item >= STACKS * (TEMPERATURES + 1)) return;
    uint stack = item / (TEMPERATURES + 1), j = item % (TEMPERATURES + 1);
    uint word = stack / (2 * TEMPERATURES), replica = stack / TEMPERATURES % 2, place = stack % TEMPERATURES;
    word_t below = 0, partner = 0;
    for (uint lane = 0; lane < WORD_BITS; lane++) {
        uint chain = 2 * (WORD_BITS * word + lane) + replica, other = chain ^ 1u;
        uint t = temperature_of[chain * TEMPERATURES + place];
        add_lane(&below, &partner, lane, j, t, config_at[other * TEMPERATURES + t] - other * TEMPERATURES);
    }
    store_lane_masks(lane_masks, stack, j, below, partner);
}
