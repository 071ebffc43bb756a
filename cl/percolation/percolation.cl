/* Bond and site percolation samples on the periodic square (DIM 2) or simple
 * cubic (DIM 3) lattice of edge EDGE, labelled afterwards by cl/labeling/labeling.cl.
 *
 * Systems (ensemble.type "independent": copies) one after another, the
 * system from NDRange dimension 1.  Sample `sample`, site `site` of system
 * i: r = Philox(site, sample, 0, CLMC_STREAM(CLUSTER_BONDS, first_system
 * + i)), so system i draws what a one-system run with ensemble.first_system
 * = i draws (first_system: the kernel's last argument, cl/common/philox.h).
 * Bond percolation: the bond to the +d neighbour is open if r.v[d] < T;
 * site percolation: the site is occupied if r.v[3] < T and the bond to an
 * occupied +d neighbour is open.  T = floor(p 2^32), so samples are
 * bit-identical across devices. */
#include "common/lattice.h"
#include "common/philox.h"

inline clmc_philox_ctr site_randoms(uint seed_lo, uint seed_hi, uint first_system, uint site, uint sample)
{
    clmc_philox_key key = {{seed_lo, seed_hi}};
    return clmc_random4(key, site, sample, 0, CLMC_STREAM(CLMC_PURPOSE_CLUSTER_BONDS,
                                                         first_system + (uint)get_global_id(1)));
}

__kernel void percolation_sample(__global uchar *bonds, __global uchar *occupied, uint threshold, uint site_kind,
                                 uint seed_lo, uint seed_hi, uint sample, uint first_system)
{
    uint site = get_global_id(0);
    if (site >= SITES) return;
    clmc_philox_ctr r = site_randoms(seed_lo, seed_hi, first_system, site, sample);
    uint open = 0, here = !site_kind || r.v[3] < threshold;
    for (uint d = 0; d < DIM; d++) {
        if (site_kind) {
            if (here && site_randoms(seed_lo, seed_hi, first_system, lattice_up(site, d), sample).v[3] < threshold) open |= 1u << d;
        } else if (r.v[d] < threshold) {
            open |= 1u << d;
        }
    }
    size_t at = (size_t)get_global_id(1) * SITES + site;
    bonds[at] = (uchar)open;
    occupied[at] = (uchar)here;
}
