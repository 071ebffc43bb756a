/* Random-site dynamics shared by the models (algorithm.layout "random_site",
 * docs/models/ising.md "Random-site dynamics"): the site picks, the Philox
 * streams, the serial reference, the copies kernel and its copy-minor layout,
 * double tiling and dead border.  Each attempt picks a site uniformly at
 * random and updates it by the model's rs_attempt; one step makes ATTEMPTS
 * attempts per configuration (SITES / algorithm.substeps).
 *
 * A model's kernel file defines RS_SPIN (the spin type: char for Ising,
 * uchar for Potts), RS_TABLE (uints per configuration in the table of
 * acceptance thresholds) and RS_PROPOSALS (1 where an attempt needs a
 * proposal word, Potts Metropolis' new state, drawn from a third stream),
 * includes this header, defines
 *   inline void rs_attempt(__global RS_SPIN *spins, uint site, uint stride,
 *                          uint u, uint proposal, const uint *table)
 * (one attempt at `site` of the configuration whose sites lie `stride` spins
 * apart, with the acceptance word u, the proposal word and the
 * configuration's table; rs_neighbours gives the neighbours) and then
 * includes common/random_site_kernels.h (with the hooks it names for
 * RS_LOCAL and RS_LWG).  Built with DIM, EDGE, CONFIGS, ATTEMPTS,
 * SHARED_SITES (0|1), RS_WG and RS_LOCAL (0|1) (copies kernel),
 * RS_TILE (double_tiling, dead_border),
 * TILE_ATTEMPTS (dead_border), and RS_LWG, RS_GROUP_TILES, RS_CHUNK,
 * RS_WORKERS and RS_BUCKETS (the tiled variants' local-memory kernels; the
 * last two for parallel waves, RS_WORKERS > 1), and RS_PRIVATE (their
 * private-memory kernels, common/random_site_private.h).
 *
 * sequential_reference: one work-item per configuration, spins config-major
 * (the drivers' layout).  copies: spins site-major, copy-minor (the CONFIGS
 * copies of a site adjacent), a work-group per block of RS_WG configurations,
 * or (RS_LOCAL, two-state models) packed in local memory, 32 copies per
 * work-group; every configuration follows the one shared site sequence.
 *
 * Random numbers (Philox, keyed by the seed): attempt a of step t takes word
 * a % 4 of the draw at counter (a / 4, t low, t high, purpose): purpose
 * SITE_PICK for the site, ACCEPT for the acceptance, PROPOSE for the proposal.
 * The site stream is that of the configuration's run-wide system (per-copy
 * sequences) or of system 0 (the shared sequence); acceptance and proposal
 * always those of the configuration's system.  So configuration c makes the
 * same decisions in either kernel when both use the shared sequence. */
#ifndef CLMC_RANDOM_SITE_H
#define CLMC_RANDOM_SITE_H

#include "common/lattice.h"
#include "common/philox.h"

/* Purposes of these streams (after the list in common/philox.h). */
#define RS_PURPOSE_SITE_PICK 20u
#define RS_PURPOSE_ACCEPT 21u
#define RS_PURPOSE_ORDER 22u
#define RS_PURPOSE_ORIGIN 23u
#define RS_PURPOSE_PROPOSE 24u

#define NEIGHBOURS (2 * DIM)
#ifndef RS_LOCAL
#define RS_LOCAL 0
#endif
#ifndef RS_PROPOSALS
#define RS_PROPOSALS 0
#endif

/* first_system: ensemble.first_system, every drawing kernel's last argument
 * (cl/common/philox.h); first_system + config is the run-wide system. */
inline uint site_stream(uint first_system, uint config)
{
    return CLMC_STREAM(RS_PURPOSE_SITE_PICK, SHARED_SITES ? 0u : first_system + config);
}

/* Uniform site from a 32-bit uniform: floor(r SITES / 2^32); the bias is at
 * most SITES / 2^32 relative. */
inline uint pick_site(uint r)
{
    return mul_hi(r, SITES);
}

/* The 2 DIM neighbours of `site`: -x, +x, -y, +y (, -z, +z). */
inline void rs_neighbours(uint site, uint *neighbour)
{
    for (uint d = 0; d < DIM; d++) {
        neighbour[2 * d] = lattice_down(site, d);
        neighbour[2 * d + 1] = lattice_up(site, d);
    }
}

inline void load_table(__global const uint *tables, uint config, uint *table)
{
    for (uint a = 0; a < RS_TABLE; a++) table[a] = tables[RS_TABLE * config + a];
}

/* The proposal words of one draw (zeros where the model takes none). */
inline clmc_philox_ctr proposals(clmc_philox_key key, uint unit, uint lo, uint hi, uint first_system, uint config)
{
#if RS_PROPOSALS
    return clmc_random4(key, unit, lo, hi, CLMC_STREAM(RS_PURPOSE_PROPOSE, first_system + config));
#else
    (void)first_system;
    clmc_philox_ctr none = {{0u, 0u, 0u, 0u}};
    return none;
#endif
}

#endif
