/* Bond and site percolation samples on the periodic square (DIM 2) or simple
 * cubic (DIM 3) lattice of edge EDGE, labelled afterwards by cl/labeling/labeling.cl.
 *
 * Sample `sample`, site `site`: r = Philox(site, sample, 0, CLUSTER_BONDS).
 * Bond percolation: the bond to the +d neighbour is open if r.v[d] < T;
 * site percolation: the site is occupied if r.v[3] < T and the bond to an
 * occupied +d neighbour is open.  T = floor(p 2^32), so samples are
 * bit-identical across devices. */
#include "common/lattice.h"
#include "common/philox.h"

inline clmc_philox_ctr site_randoms(uint seed_lo, uint seed_hi, uint site, uint sample)
{
    clmc_philox_key key = {{seed_lo, seed_hi}};
    return clmc_random4(key, site, sample, 0, CLMC_PURPOSE_CLUSTER_BONDS);
}

__kernel void percolation_sample(__global uchar *bonds, __global uchar *occupied, uint threshold, uint site_kind,
                                 uint seed_lo, uint seed_hi, uint sample)
{
    uint site = get_global_id(0);
    if (site >= SITES) return;
    clmc_philox_ctr r = site_randoms(seed_lo, seed_hi, site, sample);
    uint open = 0, here = !site_kind || r.v[3] < threshold;
    for (uint d = 0; d < DIM; d++) {
        if (site_kind) {
            if (here && site_randoms(seed_lo, seed_hi, lattice_up(site, d), sample).v[3] < threshold) open |= 1u << d;
        } else if (r.v[d] < threshold) {
            open |= 1u << d;
        }
    }
    bonds[site] = (uchar)open;
    occupied[site] = (uchar)here;
}
