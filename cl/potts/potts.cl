/* q-state Potts model, H = -sum_<ij> delta(s_i, s_j), on the periodic square
 * (DIM 2) or simple cubic (DIM 3) lattice: checkerboard Metropolis, and the
 * Swendsen-Wang steps around the labeling of cl/labeling/labeling.cl (bond
 * activation, cluster flips; or the few-cluster variant's seeds and flips),
 * plus the measurement of state counts and satisfied bonds.
 *
 * Defines: DIM, EDGE, Q (2 .. 255), MEASURE_WG, CONFIGS (systems held, 1
 * but for ensemble.type "independent").
 * Spins uchar 0 .. Q - 1, row-major, x fastest, SITES per system, system
 * after system; bonds[site] bit d = bond to the +d neighbour active; labels
 * and marks per system too (a label is the site index within its system).
 * Every kernel's second NDRange dimension is the system (config).
 *
 * Random numbers (Philox counter: unit, sweep, 0, purpose), the purpose
 * word CLMC_STREAM(purpose, first_system + config), so that system i draws
 * what a one-system run with ensemble.first_system = i draws (first_system:
 * every drawing kernel's last argument, cl/common/philox.h):
 *   initial state       (site, 0, 0, INIT).v[0]
 *   Metropolis          (site, sweep, 0, METROPOLIS): v[0] proposal, v[1] acceptance
 *   bond activation     (site, sweep, 0, CLUSTER_BONDS).v[d] for the bond in +d
 *   cluster flip        (root, sweep, 0, CLUSTER_FLIP).v[0]: the cluster's new state
 *                       (few-cluster: v[0] the new state among the others, v[1] whether it changes)
 *   few-cluster seeds   (tile, sweep, 0, CLUSTER_SEED).v[d]: the seed's coordinate d in its tile
 * Integers throughout (a uniform state is mul_hi(r, Q)), so runs are
 * bit-identical across devices.
 *
 * Domain decomposition over MPI ranks (Swendsen-Wang, docs/mpi.md) defines
 * SLAB: this rank holds SLAB layers (rows in 2D, planes in 3D) from global
 * site first_site (an argument of potts_init, potts_bonds and potts_flip,
 * 0 on one device, so that the ranks of one run share one program), one
 * system, followed by one halo layer, the first layer of the rank above (all
 * the bonds and the measurement need: every site looks only at its +d
 * neighbours).  Counters take the global site (first_site + local site), so
 * a slab draws what the same sites draw on one device.  Labels are local sites; a root whose
 * cluster the host merged across ranks (src/models/potts/potts_slab.c)
 * holds ROOT_MERGED | the cluster's global smallest site instead. */
#include "common/lattice.h"
#include "common/philox.h"

#ifdef SLAB
#define LAYER_SITES (SITES / EDGE)
#define OWN_SITES ((uint)SLAB * LAYER_SITES)
#define STORED_SITES (OWN_SITES + LAYER_SITES)
#define ROOT_MERGED 0x80000000u
#define PART_MARK 0x40000000u
#else
#define OWN_SITES SITES
#define STORED_SITES SITES
#endif

/* The purpose word of the work-item's system. */
#define STREAM(purpose) CLMC_STREAM(purpose, first_system + (uint)get_global_id(1))
/* The work-item's system's part of a per-site array. */
#define OF_SYSTEM(array) ((array) + (size_t)get_global_id(1) * SITES)

/* run: population annealing's independent run (0 otherwise), the counter's
 * third word. */
__kernel void potts_init(__global uchar *spins, uint seed_lo, uint seed_hi, uint ordered, uint run, uint first_site,
                         uint first_system)
{
    uint site = get_global_id(0);
    if (site >= STORED_SITES) return; /* a slab's halo layer too: the sites above it */
    clmc_philox_key key = {{seed_lo, seed_hi}};
    uint r = clmc_random4(key, (site + first_site) % SITES, 0, run, STREAM(CLMC_PURPOSE_INIT)).v[0];
    OF_SYSTEM(spins)[site] = ordered ? 0 : (uchar)mul_hi(r, (uint)Q);
}

/* A new state among the Q - 1 others; dE = (equal neighbours now) - (equal
 * neighbours after), accepted if dE <= 0 or r < thresholds[dE - 1] =
 * floor(exp(-beta dE) 2^32) (2 DIM thresholds per system, at its beta). */
__kernel void potts_metropolis(__global uchar *all_spins, __global const uint *all_thresholds, uint seed_lo,
                               uint seed_hi, uint sweep, uint colour, uint first_system)
{
    uint item = get_global_id(0);
    if (item >= HALF_SITES) return;
    __global uchar *spins = OF_SYSTEM(all_spins);
    __global const uint *thresholds = all_thresholds + get_global_id(1) * 2 * DIM;
    uint site = site_of_colour(item, colour);
    clmc_philox_key key = {{seed_lo, seed_hi}};
    clmc_philox_ctr r = clmc_random4(key, site, sweep, 0, STREAM(CLMC_PURPOSE_METROPOLIS));
    uint now = spins[site], next = (now + 1 + mul_hi(r.v[0], (uint)(Q - 1))) % Q;
    int change = 0;
    for (uint d = 0; d < DIM; d++) {
        uint a = spins[lattice_up(site, d)], b = spins[lattice_down(site, d)];
        change += (a == now) + (b == now) - (a == next) - (b == next);
    }
    if (change <= 0 || r.v[1] < thresholds[change - 1]) spins[site] = (uchar)next;
}

/* Swendsen-Wang, step 1: the bond to each +d neighbour in the same state is
 * active with probability p = 1 - exp(-beta), i.e. if r < thresholds[system]
 * = floor(p 2^32) at the system's beta. */
__kernel void potts_bonds(__global const uchar *all_spins, __global uchar *bonds, __global const uint *thresholds,
                          uint seed_lo, uint seed_hi, uint sweep, uint first_site, uint first_system)
{
    uint site = get_global_id(0);
    if (site >= OWN_SITES) return;
    __global const uchar *spins = OF_SYSTEM(all_spins);
    uint threshold = thresholds[get_global_id(1)];
    clmc_philox_key key = {{seed_lo, seed_hi}};
    /* A slab: lattice_up along the last axis never wraps (local layers below
     * SLAB <= EDGE / 2), so the last layer reads the halo. */
    clmc_philox_ctr r = clmc_random4(key, site + first_site, sweep, 0, STREAM(CLMC_PURPOSE_CLUSTER_BONDS));
    uint own = spins[site], active = 0;
    for (uint d = 0; d < DIM; d++)
        if (spins[lattice_up(site, d)] == own && r.v[d] < threshold) active |= 1u << d;
    OF_SYSTEM(bonds)[site] = (uchar)active;
}

/* Swendsen-Wang, step 3: every cluster (labelled by its smallest site, the
 * root) takes a new uniform state drawn at its root (a slab: the cluster's
 * global smallest site, merged across ranks where marked). */
__kernel void potts_flip(__global uchar *spins, __global const uint *labels, uint seed_lo, uint seed_hi, uint sweep,
                         uint first_site, uint first_system)
{
    uint site = get_global_id(0);
    if (site >= OWN_SITES) return;
    clmc_philox_key key = {{seed_lo, seed_hi}};
    uint root = OF_SYSTEM(labels)[site];
#ifdef SLAB
    if (root & PART_MARK) root = site; /* a root potts_mark_top_parts marked */
    uint at_root = root & ROOT_MERGED ? root : labels[root];
    root = at_root & ROOT_MERGED ? at_root & ~ROOT_MERGED : root + first_site;
#endif
    OF_SYSTEM(spins)[site] = (uchar)mul_hi(clmc_random4(key, root, sweep, 0, STREAM(CLMC_PURPOSE_CLUSTER_FLIP)).v[0],
                                           (uint)Q);
}

/* Few-cluster variant (seed section III, "logically identical to the full
 * Swendsen-Wang decomposition followed by picking points"): one seed site,
 * uniform in each tile of edge tile_edge, marks its cluster's root with the
 * sweep's stamp.  Seeds in one cluster mark it once. */
__kernel void potts_mark_seeds(__global const uint *labels, __global uint *marked, uint tile_edge, uint seed_lo,
                               uint seed_hi, uint sweep, uint first_system)
{
    uint tile = get_global_id(0), per_edge = EDGE / tile_edge, tiles = per_edge * per_edge;
#if DIM == 3
    tiles *= per_edge;
#endif
    if (tile >= tiles) return;
    clmc_philox_key key = {{seed_lo, seed_hi}};
    clmc_philox_ctr r = clmc_random4(key, tile, sweep, 0, STREAM(CLMC_PURPOSE_CLUSTER_SEED));
    uint site = 0, stride = 1;
    for (uint d = 0; d < DIM; d++, stride *= EDGE, tile /= per_edge)
        site += ((tile % per_edge) * tile_edge + mul_hi(r.v[d], tile_edge)) * stride;
    OF_SYSTEM(marked)[OF_SYSTEM(labels)[site]] = sweep + 1;
}

/* Each marked cluster changes, with probability flip_threshold / 2^32 (below
 * one, so that the update stays ergodic), to a state drawn at its root among
 * the Q - 1 others; its sites all share one state, so they agree. */
__kernel void potts_flip_marked(__global uchar *all_spins, __global const uint *labels, __global const uint *marked,
                                uint flip_threshold, uint seed_lo, uint seed_hi, uint sweep, uint first_system)
{
    uint site = get_global_id(0);
    if (site >= SITES) return;
    uint root = OF_SYSTEM(labels)[site];
    if (OF_SYSTEM(marked)[root] != sweep + 1) return;
    clmc_philox_key key = {{seed_lo, seed_hi}};
    clmc_philox_ctr r = clmc_random4(key, root, sweep, 0, STREAM(CLMC_PURPOSE_CLUSTER_FLIP));
    if (r.v[1] >= flip_threshold) return;
    __global uchar *spins = OF_SYSTEM(all_spins);
    spins[site] = (uchar)((spins[site] + 1 + mul_hi(r.v[0], (uint)(Q - 1))) % Q);
}

/* counts[slot][system][k] += sites in state k (k < Q), counts[slot][system][Q]
 * += bonds joining equal states; the host zeroes a slot before its
 * measurement. */
__kernel __attribute__((reqd_work_group_size(MEASURE_WG, 1, 1)))
void potts_measure(__global const uchar *all_spins, __global uint *counts, uint slot)
{
    __global const uchar *spins = OF_SYSTEM(all_spins);
    __local uint local_counts[Q + 1];
    uint lid = get_local_id(0);
    for (uint k = lid; k <= Q; k += MEASURE_WG) local_counts[k] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    uint equal = 0;
    for (uint site = get_global_id(0); site < OWN_SITES; site += get_global_size(0)) {
        uint own = spins[site];
        atomic_inc(&local_counts[own]);
        for (uint d = 0; d < DIM; d++) equal += spins[lattice_up(site, d)] == own;
    }
    atomic_add(&local_counts[Q], equal);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint k = lid; k <= Q; k += MEASURE_WG) atomic_add(&counts[(slot * CONFIGS + get_global_id(1)) * (Q + 1) + k], local_counts[k]);
}

#ifdef SLAB
/* The merge's boundary record, positions 0 .. LAYER_SITES - 1 the first
 * layer's sites, LAYER_SITES + x the last layer's site x.  Every part of a
 * cluster in the slab that touches either layer is represented by one
 * position: its root where the root lies in a boundary layer (a part touching
 * the first layer has its root there), else the smallest last-layer position
 * it touches.  Step 1 (over the last layer): a part whose root lies between
 * the two layers marks that root with its smallest position, PART_MARK |
 * (LAYER_SITES - 1 - x) by atomic_max (the root's own label becomes the
 * mark; potts_flip knows it). */
__kernel void potts_mark_top_parts(__global uint *labels)
{
    uint x = get_global_id(0);
    if (x >= LAYER_SITES) return;
    uint root = labels[OWN_SITES - LAYER_SITES + x];
    if (root >= LAYER_SITES && root < OWN_SITES - LAYER_SITES)
        atomic_max(&labels[root], PART_MARK | (LAYER_SITES - 1 - x));
}

/* Step 2: record[i] = the part's local root where position i represents its
 * part, else PART_MARK | the representing position; bit 31 of a last-layer
 * position: its bond along the last axis to the rank above is active. */
__kernel void potts_boundary_record(__global const uint *labels, __global const uchar *bonds, __global uint *record)
{
    uint i = get_global_id(0);
    if (i >= 2 * LAYER_SITES) return;
    uint top = OWN_SITES - LAYER_SITES, x = i % LAYER_SITES, site = i < LAYER_SITES ? x : top + x;
    uint root = labels[site], at;
    if (root < LAYER_SITES) at = root;
    else if (root >= top) at = LAYER_SITES + root - top;
    else at = 2 * LAYER_SITES - 1 - (labels[root] & ~PART_MARK);
    uint entry = at == i ? root : PART_MARK | at;
    if (i >= LAYER_SITES && (bonds[site] >> (DIM - 1)) & 1u) entry |= ROOT_MERGED; /* the bond bit */
    record[i] = entry;
}

/* After the host's merge: roots[2 i] (a local root) takes roots[2 i + 1]
 * (ROOT_MERGED | its cluster's global smallest site), i < n. */
__kernel void potts_merge_roots(__global uint *labels, __global const uint *roots, uint n)
{
    uint i = get_global_id(0);
    if (i < n) labels[roots[2 * i]] = roots[2 * i + 1];
}
#endif

/* Population annealing: from one slot of potts_measure's counts, every
 * system's H = -(bonds joining equal states) and its order value Q max_k N_k
 * - N (|M| for Q = 2). */
__kernel void potts_member_totals(__global const uint *counts, uint slot, __global int *energy, __global int *order)
{
    uint config = get_global_id(0);
    if (config >= CONFIGS) return;
    __global const uint *c = counts + ((size_t)slot * CONFIGS + config) * (Q + 1);
    uint largest = 0;
    for (uint k = 0; k < Q; k++) largest = max(largest, c[k]);
    energy[config] = -(int)c[Q];
    order[config] = (int)(Q * largest) - (int)SITES;
}
