/* EA msc's own parallel-tempering exchange: the exchanges of a realization
 * word's chains and then their lane masks in one launch (built with
 * EXCHANGE_SPREAD and PLACE_BITS). */
#include "ea/ea_ising.h"
#include "ensembles/tempering_exchange.h"

#define EXCHANGE_SYSTEMS (2 * WORD_BITS) /* the chains of one realization word, both replicas */
#define EXCHANGE_GROUP (EXCHANGE_SYSTEMS * EXCHANGE_SPREAD)
#define EXCHANGE_STRIDE (TEMPERATURES + 1) /* local rows padded: a row per work-item, no bank conflicts */
#define EXCHANGE_PAIRS (TEMPERATURES - 1)  /* odd-length rows of reaches, no bank conflicts either */
/* Elements each work-item moves of a block of TEMPERATURES per system. */
#define EXCHANGE_PER_ITEM ((TEMPERATURES + EXCHANGE_SPREAD - 1) / EXCHANGE_SPREAD)
#if TEMPERATURES <= 256
typedef uchar place_t; /* a place among the temperatures (ea_exchange_fits counts on the same size) */
#else
typedef ushort place_t;
#endif

/* An exchange (cl/ensembles/tempering_exchange.h) and then the lane masks of
 * ea_msc_lane_masks in one launch.  Work-group `word` (EXCHANGE_SPREAD
 * work-items per system) holds the chains 2 (W word + lane) + replica, whose
 * maps, energies, reaches and accepted counts are adjacent blocks in global
 * memory:
 *   1. the whole group loads the maps, energies and reaches (found by the
 *      energy pass, tempering_reach_draws) in coalesced passes into local
 *      memory (place_at: the place at each temperature, kept[s][place]: the
 *      energy counts, reach_of[s][pair]), then clears the energies;
 *   2. one work-item per chain makes the decisions from local memory and
 *      writes its new row, kept[s][place] = its temperature, and
 *      reach_of[s][pair] = whether pair exchanged;
 *   3. the group stores the maps and adds the accepted counts in coalesced
 *      passes, and one work-item per (stack of the word, bit) gathers that
 *      bit of its lanes' temperatures or partners' places (planes);
 *   4. one work-item per mask stores lanes_below and partner_lanes from them.
 * temperature_of is not written: only set_temperatures_device reads it.
 * n_systems is a multiple of EXCHANGE_SYSTEMS (realizations are a multiple of
 * W), so no work-item returns early. */
__kernel __attribute__((reqd_work_group_size(EXCHANGE_GROUP, 1, 1)))
void ea_msc_exchange(TEMPERING_EXCHANGE_ARGUMENTS, __global const uint *restrict reaches,
                     __global word_t *restrict lane_masks)
{
    __local place_t place_at[EXCHANGE_SYSTEMS * EXCHANGE_STRIDE]; /* [system in group][temperature] */
    __local int kept[EXCHANGE_SYSTEMS * EXCHANGE_STRIDE];         /* [system in group][place] */
    __local uint reach_of[EXCHANGE_SYSTEMS * EXCHANGE_PAIRS];     /* [system in group][pair] */
    __local word_t planes[2 * TEMPERATURES][2 * PLACE_BITS];      /* [stack in word][bit] */
    uint lid = get_local_id(0), word = get_group_id(0), base = word * EXCHANGE_SYSTEMS;
    size_t block = (size_t)base * TEMPERATURES;

    /* 1. All loads first (the accepted counts too, kept until the
     * decisions are known), then the local stores: one round trip. */
    uint row_part[EXCHANGE_PER_ITEM], reach_part[EXCHANGE_PER_ITEM];
    int energy_part[EXCHANGE_PER_ITEM];
    ulong count[EXCHANGE_PER_ITEM];
    __global ulong *group_accepted = accepted + (size_t)base * EXCHANGE_PAIRS;
    __global const uint *group_reaches = reaches + (size_t)base * EXCHANGE_PAIRS;
    for (uint k = 0; k < EXCHANGE_PER_ITEM; k++) {
        uint i = lid + k * EXCHANGE_GROUP;
        if (i < EXCHANGE_SYSTEMS * TEMPERATURES) {
            row_part[k] = config_at[block + i];
            energy_part[k] = energies[block + i];
        }
        if (i < EXCHANGE_SYSTEMS * EXCHANGE_PAIRS) {
            count[k] = group_accepted[i];
            reach_part[k] = group_reaches[i];
        }
    }
    for (uint k = 0; k < EXCHANGE_PER_ITEM; k++) {
        uint i = lid + k * EXCHANGE_GROUP, s = i / TEMPERATURES, t = i % TEMPERATURES;
        if (i < EXCHANGE_SYSTEMS * TEMPERATURES) {
            place_at[s * EXCHANGE_STRIDE + t] = (place_t)(row_part[k] - (base + s) * TEMPERATURES);
            kept[s * EXCHANGE_STRIDE + t] = energy_part[k];
        }
        if (i < EXCHANGE_SYSTEMS * EXCHANGE_PAIRS) reach_of[i] = reach_part[k];
    }
    for (uint k = 0; k < EXCHANGE_PER_ITEM; k++) {
        uint i = lid + k * EXCHANGE_GROUP;
        if (i < EXCHANGE_SYSTEMS * TEMPERATURES) energies[block + i] = 0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    /* 2. The decisions, one work-item per chain. */
    if (lid < EXCHANGE_SYSTEMS) {
        __local place_t *places = place_at + lid * EXCHANGE_STRIDE;
        __local int *own = kept + lid * EXCHANGE_STRIDE;
        __local uint *row_reach = reach_of + lid * EXCHANGE_PAIRS;
        uint at[TEMPERATURES], reach[EXCHANGE_PAIRS];
        int value[TEMPERATURES];
        uchar decided[EXCHANGE_PAIRS];
        for (uint t = 0; t < EXCHANGE_PAIRS; t++) reach[t] = row_reach[t];
        for (uint t = 0; t < TEMPERATURES; t++) at[t] = places[t];
        for (uint t = 0; t < TEMPERATURES; t++) value[t] = own[at[t]];
        exchange_decisions(at, value, reach, energy_scale, decided);
        for (uint t = 0; t < EXCHANGE_PAIRS; t++) row_reach[t] = decided[t];
        for (uint t = 0; t < TEMPERATURES; t++) {
            places[t] = (place_t)at[t];
            own[at[t]] = (int)t;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    /* 3. The headings of the configurations now at the ends (their reads
     * overlap the planes), maps and accepted counts back, coalesced; the
     * planes. */
    uint chain = lid % EXCHANGE_SYSTEMS, system = base + chain, first_config = system * TEMPERATURES;
    uint hot = first_config + place_at[chain * EXCHANGE_STRIDE];
    uint cold = first_config + place_at[chain * EXCHANGE_STRIDE + TEMPERATURES - 1];
    int hot_heading = 0, cold_heading = 0;
    ulong trip_count = 0;
    if (lid < EXCHANGE_SYSTEMS) {
        hot_heading = heading[hot];
        cold_heading = heading[cold];
        trip_count = trips[system];
    }
    for (uint k = 0; k < EXCHANGE_PER_ITEM; k++) {
        uint i = lid + k * EXCHANGE_GROUP, s = i / TEMPERATURES, t = i % TEMPERATURES;
        if (i < EXCHANGE_SYSTEMS * TEMPERATURES)
            config_at[block + i] = (base + s) * TEMPERATURES + place_at[s * EXCHANGE_STRIDE + t];
    }
    for (uint k = 0; k < EXCHANGE_PER_ITEM; k++) {
        uint i = lid + k * EXCHANGE_GROUP;
        if (i < EXCHANGE_SYSTEMS * EXCHANGE_PAIRS) group_accepted[i] = count[k] + reach_of[i];
    }
    /* Plane b < PLACE_BITS of a stack: bit b of each lane's temperature;
     * plane PLACE_BITS + b: bit b of its partner's place there.  Gathered in
     * 32-bit halves, the lanes unrolled so that their reads overlap. */
    for (uint task = lid; task < 2 * TEMPERATURES * 2 * PLACE_BITS; task += EXCHANGE_GROUP) {
        uint b = task % (2 * PLACE_BITS), stack_in_word = task / (2 * PLACE_BITS);
        uint replica = stack_in_word / TEMPERATURES, place = stack_in_word % TEMPERATURES;
        bool of_partner = b >= PLACE_BITS;
        uint bit = of_partner ? b - PLACE_BITS : b, halves[WORD_BITS / 32];
        for (uint h = 0; h < WORD_BITS / 32; h++) {
            uint gathered = 0;
#pragma unroll
            for (uint k = 0; k < 32; k++) {
                uint lane = 32 * h + k, t = (uint)kept[(2 * lane + replica) * EXCHANGE_STRIDE + place];
                uint value = of_partner ? place_at[(2 * lane + (replica ^ 1u)) * EXCHANGE_STRIDE + t] : t;
                gathered |= ((value >> bit) & 1u) << k;
            }
            halves[h] = gathered;
        }
#if WORD_BITS == 64
        planes[stack_in_word][b] = (word_t)halves[0] | (word_t)halves[1] << 32;
#else
        planes[stack_in_word][b] = halves[0];
#endif
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    /* 4. Mask (stack, j): the lanes whose temperature is below j (compared
     * bit-sliced, top bit first) and, for j < TEMPERATURES, those whose
     * partner has place j; adjacent work-items store adjacent masks. */
    for (uint task = lid; task < 2 * TEMPERATURES * (TEMPERATURES + 1); task += EXCHANGE_GROUP) {
        uint j = task % (TEMPERATURES + 1), stack_in_word = task / (TEMPERATURES + 1);
        word_t below = 0, equal = ALL_LANES, partner = ALL_LANES;
        for (uint b = PLACE_BITS; b-- > 0;) {
            word_t bit = all_lanes_if((j >> b) & 1u), temperature = planes[stack_in_word][b];
            below |= equal & bit & ~temperature;
            equal &= ~(bit ^ temperature);
            partner &= ~(bit ^ planes[stack_in_word][PLACE_BITS + b]);
        }
        uint stack = 2 * word * TEMPERATURES + stack_in_word;
        store_lane_masks(lane_masks, stack, j, j < TEMPERATURES ? below : ALL_LANES, partner);
    }
    if (lid < EXCHANGE_SYSTEMS)
        trips[system] = trip_count + update_headings(hot, cold, hot_heading, cold_heading, heading);
}
