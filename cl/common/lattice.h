/* The periodic square (DIM 2) or simple cubic (DIM 3) lattice of edge EDGE
 * shared by the lattice kernels: sites row-major with x fastest, neighbours
 * with wrap-around, and the sites of one checkerboard colour. */
#ifndef CLMC_LATTICE_H
#define CLMC_LATTICE_H

#if DIM == 2
#define SITES ((uint)EDGE * EDGE)
#else
#define SITES ((uint)EDGE * EDGE * EDGE)
#endif
#define HALF_SITES (SITES / 2)

/* Distance in sites between neighbours along direction d. */
inline uint lattice_stride(uint d)
{
    return d == 0 ? 1u : (d == 1 ? (uint)EDGE : (uint)EDGE * EDGE);
}

/* The neighbour one step along +d, periodic. */
inline uint lattice_up(uint site, uint d)
{
    uint stride = lattice_stride(d);
    return site / stride % EDGE == EDGE - 1 ? site - (EDGE - 1) * stride : site + stride;
}

/* The neighbour one step along -d, periodic. */
inline uint lattice_down(uint site, uint d)
{
    uint stride = lattice_stride(d);
    return site / stride % EDGE == 0 ? site + (EDGE - 1) * stride : site - stride;
}

/* Site number `index` among the sites of colour `colour` (parity of x + y + z;
 * EDGE even). */
inline uint site_of_colour(uint index, uint colour)
{
    uint row = index / (EDGE / 2);
    uint y = row % EDGE, z = row / EDGE;
    return 2 * (index % (EDGE / 2)) + ((y + z + colour) & 1) + EDGE * row;
}

/* The index of the work-item's group in its launch, the groups taken in
 * reverse order when `reverse` (a sweep's colour-1 launches): a launch then
 * starts on the sites its predecessor ended with, whose data the L2 cache
 * still holds.  Sites of one colour are independent, so results do not
 * depend on the order. */
inline uint launch_group(bool reverse)
{
    uint group = (uint)get_group_id(0);
    return reverse ? (uint)get_num_groups(0) - 1u - group : group;
}

/* The global index of the work-item with its group in launch_group order. */
inline uint launch_item(bool reverse)
{
    return launch_group(reverse) * (uint)get_local_size(0) + (uint)get_local_id(0);
}

#endif
