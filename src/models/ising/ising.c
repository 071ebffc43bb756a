/* Host side of the Ising model: validation, kernel set-up and launches for the
 * naive, tiled (double checkerboard, multi-hit; cl/ising/ising.cl) and multi-spin
 * coded (cl/ising/ising_msc.cl) Metropolis layouts; random-site dynamics in
 * models/random_site.c (kernels cl/ising/random_site.cl). */
#include "models/ising/ising.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/defines.h"
#include "measure/measure.h"
#include "models/configuration_hash.h"
#include "models/lattice.h"
#include "models/rng_streams.h"
#include "models/ising/ising_blocked.h"
#include "models/ising/ising_halo.h"
#include "models/random_site.h"
#include "runtime/ranks.h"

#define MEASURE_BATCH 256

static uint64_t preset_configs(const clmc_preset *p)
{
    return clmc_preset_betas(p, NULL, 0) * clmc_preset_systems(p)->copies;
}

/* Spin bytes of every configuration on this process's device (a slab and its
 * two halo layers under domain decomposition). */
static uint64_t device_spin_bytes(const clmc_preset *p)
{
    int edge = (int)clmc_preset_int(p, "model.L"), dim = (int)clmc_preset_int(p, "model.dim");
    uint64_t sites = clmc_lattice_sites(dim, edge);
    bool msc = strcmp(clmc_preset_string(p, "algorithm.layout"), "msc") == 0;
    uint64_t spins = (msc ? sites / 8 : sites) * preset_configs(p);
    int ranks = clmc_ranks()->size;
    uint64_t layer = (uint64_t)edge * (dim == 3 ? (uint64_t)edge : 1);
    if (ranks > 1 && !clmc_preset_systems(p)->independent &&
        !clmc_preset_is_population(p)) /* slabs; population members are shared (copies is the rank's) */
        spins = spins / (uint64_t)ranks + 2 * (msc ? layer / 8 : layer);
    return spins;
}

/* Measurement work-groups per configuration at most: those build_kernels
 * takes with work-groups of one 64-site stretch (1024, one per row, sites / 64). */
static uint64_t measure_groups_bound(const clmc_preset *p)
{
    int edge = (int)clmc_preset_int(p, "model.L"), dim = (int)clmc_preset_int(p, "model.dim");
    uint64_t sites = clmc_lattice_sites(dim, edge);
    uint64_t groups = sites / 64 < 1024 ? sites / 64 : 1024;
    if (strcmp(clmc_preset_string(p, "algorithm.layout"), "msc") != 0 && groups > sites / (uint64_t)edge)
        groups = sites / (uint64_t)edge;
    return groups < 1 ? 1 : groups;
}

/* Measurement slots: a batch and the spare slot of ensemble energies, the
 * batch shortened for many configurations (clmc_measure_slots: partials
 * within max(256 MiB, the spins)); population annealing measures only
 * through the spare slot. */
static unsigned batch_slots(const clmc_preset *p)
{
    if (clmc_preset_is_population(p)) return 0;
    uint64_t slot_bytes = 2 * measure_groups_bound(p) * preset_configs(p) * sizeof(cl_int);
    return clmc_measure_slots(MEASURE_BATCH, 1, slot_bytes, device_spin_bytes(p));
}
#define MEASURE_WG_MAX 256
/* The msc update's work-group size in a slab of a decomposed lattice where
 * algorithm.update_group is 0: 2 x H200 weak scaling at K = 2 (L = 92160)
 * 91.5 % with the implementation's choice, 97.1 % with 128, 96.6 % with 256
 * (the twelfth session's record). */
#define SLAB_UPDATE_GROUP 128

static const char *const series_columns[] = {"energy", "magnetization", NULL};

typedef struct {
    clmc_runtime *rt;
    int dim, edge;
    size_t n_sites;       /* sites this process updates: the lattice, or its slab */
    size_t lattice_sites; /* the whole lattice's */
    /* Domain decomposition over MPI ranks (docs/mpi.md; msc and tiled): this
     * rank holds `slab` layers (rows in 2D, planes in 3D) from `first_layer`,
     * with a halo layer on each side (per colour plane for msc), exchanged
     * with ranks `below` and `above` after every colour pass. */
    bool domain;
    /* A share of one run's configurations (clmc_systems_settings): of a
     * tempering run's temperatures, or of population annealing's members. */
    bool ranks_chained;
    int slab, first_layer, below, above;
    size_t layer_words;     /* msc: words of one layer of one colour */
    size_t stored_words;    /* msc: words per configuration, halos included */
    size_t layer_sites;     /* sites of one layer */
    size_t stored_sites;    /* bytes per configuration of the byte layouts, halos included */
    ising_halo halo;        /* the boundary layers' exchange */
    bool tiled, msc;
    cl_uint ordered_start;
    int tile, item_width, hits, tile_colours; /* item_width: sites per work-item along x */
    size_t update_wg; /* msc: algorithm.update_group, 0 = the implementation's choice */
    size_t tile_items, tile_groups[3];
    cl_uint n_temperatures, n_configs; /* copies x temperatures configurations, copy-major */
    cl_uint spare_slot;                /* the slot after the batch (batch_slots) */
    cl_uint copies, first_system;      /* ensemble.copies and ensemble.first_system (independent) */
    cl_uint seed_lo, seed_hi;
    cl_program program;
    cl_kernel init, update, measure;
    /* algorithm.resident: many sweeps per launch, a work-group per configuration
     * (cl/ising/ising.cl ising_resident_update) or per resident_configs of them
     * (msc: cl/ising/ising_msc.cl ising_msc_resident_update); the note says why not. */
    bool resident;
    cl_kernel resident_update;
    size_t resident_wg, resident_configs, resident_groups;
    /* The last sweeps' launch (the resident update) measured population
     * annealing's members into member_energy and member_magnetisation. */
    bool members_measured;
    bool gathering;        /* the next resident launch loads the members resampled (ising_gather_in_sweeps) */
    bool one_row;          /* only the first row of thresholds is current, read by every configuration (resident) */
    uint64_t resident_launches, resident_sweeps;
    char resident_note[192];
    ising_tblock tblock; /* algorithm.sweeps_per_launch: temporal blocking (ising_blocked.c) */
    cl_mem spins, partials, thresholds;
    cl_program members_program; /* population annealing: built on first use */
    cl_kernel member_totals;
    cl_mem member_energy, member_magnetisation;
    clmc_rng_streams rng; /* algorithm.rng; states of the stateful generators */
    cl_uint *thresholds_host; /* stays alive for non-blocking writes */
    char muca_defines[64];    /* clmc_density_walkers.defines */
    size_t measure_wg, measure_groups;
    cl_int *partials_host;
    clmc_rsite *rsite; /* layout random_site, else NULL */
} ising_state;

/* Problems with a tile edge for this lattice, or NULL if it is usable. */
static const char *tile_problem(int edge, int tile)
{
    if (tile < 2 || tile % 2 != 0) return "must be an even number >= 2";
    if (edge % tile != 0) return "must divide model.L";
    if (edge / tile < 2) return "must be at most model.L / 2 (a tile may not wrap onto itself)";
    return NULL;
}

/* Sites of one colour in a tile (one per pair of sites along x). */
static size_t tile_pairs(int dim, int tile)
{
    return (size_t)tile * (size_t)tile * (dim == 3 ? (size_t)tile : 1) / 2;
}

static clmc_status lagfib_tile_problem(int tile, int dim, unsigned ring)
{
    return clmc_fail(CLMC_ERR_INPUT, "algorithm.tile: %d is too large for algorithm.rng's lagged Fibonacci ring: "
                     "a tile's %zu sites of one colour must not exceed its %u words", tile, tile_pairs(dim, tile), ring);
}

static clmc_status ising_validate(const clmc_preset *p)
{
    int dim = (int)clmc_preset_int(p, "model.dim"), edge = (int)clmc_preset_int(p, "model.L");
    bool tiled = strcmp(clmc_preset_string(p, "algorithm.layout"), "tiled") == 0;
    bool msc = strcmp(clmc_preset_string(p, "algorithm.layout"), "msc") == 0;
    int tile = (int)clmc_preset_int(p, "algorithm.tile");
    long long hits = clmc_preset_int(p, "algorithm.hits");
    if (edge % 2 != 0)
        return clmc_fail(CLMC_ERR_INPUT, "model.L: must be even for the checkerboard update, got %d", edge);
    /* msc kernels index words (32 sites) in 32 bits, with the two colour planes in one range. */
    if (!msc && clmc_lattice_sites(dim, edge) >= (1ULL << 32))
        return clmc_fail(CLMC_ERR_INPUT, "model.L: %d^%d sites exceed the 2^32 sites the kernels index (layout "
                         "\"msc\" indexes up to 2^36)", edge, dim);
    if (msc && clmc_lattice_sites(dim, edge) > (1ULL << 36))
        return clmc_fail(CLMC_ERR_INPUT, "model.L: %d^%d sites exceed the 2^36 sites the msc kernels index", edge, dim);
    if (msc && edge % 64 != 0)
        return clmc_fail(CLMC_ERR_INPUT, "model.L: layout \"msc\" packs 32 sites of a colour per word and "
                         "needs L to be a multiple of 64, got %d", edge);
    if (!tiled && hits != 1)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.hits: multi-hit (%lld) needs algorithm.layout \"tiled\"", hits);
    const char *problem = tiled && tile != 0 ? tile_problem(edge, tile) : NULL;
    if (problem)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.tile: %d %s (model.L = %d)", tile, problem, edge);
    if (!tiled && tile != 0 && !clmc_rsite_wanted(p)) /* random_site checks its own */
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.tile: %d is for layout \"tiled\" only (give 0)", tile);
    clmc_rng_kind rng = clmc_rng_from_preset(p);
    if (rng == CLMC_RNG_LCG64_RESEEDED && (!msc || !clmc_preset_is_population(p)))
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.rng: \"lcg64_reseeded\" is an option of population annealing "
                         "with layout \"msc\" (ensemble.type \"population_annealing\", the resident update); give "
                         "philox4x32_10 or philox4x32_7 here");
    if (clmc_rng_stateful(rng) && clmc_preset_is_population(p))
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.rng: \"%s\" keeps generator states, which population annealing's "
                         "copies of configurations do not carry; give philox4x32_10 or philox4x32_7", clmc_rng_names[rng]);
    if (rng != CLMC_RNG_PHILOX4X32_10 && strcmp(clmc_preset_string(p, "algorithm.layout"), "random_site") == 0)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.rng: layout \"random_site\" draws from philox4x32_10 only, not "
                         "\"%s\"", clmc_rng_names[rng]);
    const char *ensemble = clmc_preset_has(p, "ensemble.type") ? clmc_preset_string(p, "ensemble.type") : "";
    if (rng != CLMC_RNG_PHILOX4X32_10 && (strcmp(ensemble, "multicanonical") == 0 || strcmp(ensemble, "wang_landau") == 0))
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.rng: the %s walkers draw from philox4x32_10 only, not \"%s\"",
                         ensemble, clmc_rng_names[rng]);
    unsigned ring;
    if (tiled && tile != 0 && clmc_rng_lagfib(rng, &ring, NULL, NULL) && tile_pairs(dim, tile) > ring)
        return lagfib_tile_problem(tile, dim, ring);
    int width = (int)clmc_preset_int(p, "algorithm.item_width");
    if (width != 0 && width != 2 && width != 4 && width != 8)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.item_width: must be 0 (automatic), 2, 4 or 8, got %d", width);
    if (width != 0 && !tiled)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.item_width: %d is for layout \"tiled\" only (give 0)", width);
    if (width != 0 && tile != 0 && tile % width != 0)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.item_width: %d must divide algorithm.tile = %d", width, tile);
    long long update_wg = clmc_preset_int(p, "algorithm.update_group");
    if (update_wg != 0 && !msc)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.update_group: %lld is for layout \"msc\" only (give 0)", update_wg);
    long long configs = clmc_preset_int(p, "algorithm.resident_configs");
    if (configs != 0 && !msc)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.resident_configs: %lld is for layout \"msc\" only (give 0)", configs);
    CLMC_TRY(ising_tblock_validate(p));
    return clmc_rsite_validate(p, true, true);
}

/* Sites per work-item along x in the tiled kernel: `requested` (2, 4 or 8),
 * or 0 for the largest of 8, 4, 2 dividing the tile.  The random numbers are
 * drawn per octet of a row, not per work-item, so the width does not change
 * the results. */
static int item_width(int tile, int requested)
{
    if (requested) return requested;
    return tile % 8 == 0 ? 8 : (tile % 4 == 0 ? 4 : 2);
}

static size_t tile_items(int dim, int tile, int width)
{
    size_t sites = (size_t)tile * (size_t)tile * (dim == 3 ? (size_t)tile : 1);
    return sites / (size_t)item_width(tile, width);
}

/* Two colour planes of the tile plus halo, rows padded as in cl/ising/ising.cl,
 * and a lagged Fibonacci ring of `ring` words (0: none). */
static size_t tile_local_bytes(int dim, int tile, unsigned ring)
{
    size_t row = (size_t)(3 + tile / 2 + 2 + 3) / 4 * 4, rows = (size_t)(tile + 2);
    return 2 * row * rows * (dim == 3 ? rows : 1) + 4 * (size_t)ring;
}

static bool tile_fits_device(const clmc_device_info *d, int dim, int tile, int width, unsigned ring)
{
    return tile_items(dim, tile, width) <= d->max_work_group_size &&
           tile_local_bytes(dim, tile, ring) + 2 * MEASURE_WG_MAX * 4 <= d->local_mem_bytes &&
           (ring == 0 || tile_pairs(dim, tile) <= ring);
}

/* Default tile edge: the first candidate that fits the lattice and the
 * device.  The list does not depend on the device type, so the same preset
 * keeps the same update order (and configurations) on every device that can
 * hold the tile; 32 (2D) and 8 (3D) were fastest on the GPUs measured. */
static int default_tile(const clmc_device_info *d, int dim, int edge, int width, unsigned ring)
{
    const int candidates_2d[] = {32, 16, 8, 4, 2}, candidates_3d[] = {8, 4, 16, 2, 6};
    const int *list = dim == 3 ? candidates_3d : candidates_2d;
    for (int i = 0; i < 5; i++)
        if (!tile_problem(edge, list[i]) && list[i] % (width ? width : 2) == 0 && tile_fits_device(d, dim, list[i], width, ring))
            return list[i];
    for (int tile = 2; tile <= edge / 2; tile += 2)
        if (!tile_problem(edge, tile) && tile % (width ? width : 2) == 0 && tile_fits_device(d, dim, tile, width, ring))
            return tile;
    return 0;
}

static clmc_status resolve_tile(ising_state *s, clmc_preset *p)
{
    const clmc_device_info *d = clmc_runtime_device(s->rt);
    unsigned ring = 0;
    clmc_rng_lagfib(s->rng.kind, &ring, NULL, NULL);
    if (s->tile == 0) {
        s->tile = default_tile(d, s->dim, s->edge, s->item_width, ring);
        if (s->tile == 0)
            return clmc_fail(CLMC_ERR_INPUT, "algorithm.tile: no tile edge fits L = %d on %s", s->edge, d->name);
        clmc_preset_set_int(p, "algorithm.tile", s->tile);
    }
    if (s->item_width && s->tile % s->item_width != 0)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.item_width: %d must divide the tile edge %d", s->item_width,
                         s->tile);
    if (ring && tile_pairs(s->dim, s->tile) > ring) return lagfib_tile_problem(s->tile, s->dim, ring);
    if (!tile_fits_device(d, s->dim, s->tile, s->item_width, ring))
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.tile: %d needs %zu work-items per group and %zu bytes of "
                         "local memory; %s allows %zu work-items and %llu bytes",
                         s->tile, tile_items(s->dim, s->tile, s->item_width), tile_local_bytes(s->dim, s->tile, ring), d->name,
                         d->max_work_group_size, (unsigned long long)d->local_mem_bytes);
    int tiles_per_edge = s->edge / s->tile;
    s->tile_colours = tiles_per_edge % 2 == 0 ? 2 : 3;
    size_t tiles = (size_t)clmc_lattice_sites(s->dim, tiles_per_edge);
    if (s->domain && s->slab % s->tile != 0)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.tile: %d does not divide the %d %s of a slab (model.L %d over %d "
                         "MPI ranks); give a tile edge dividing both (the same on one device keeps the update order)",
                         s->tile, s->slab, s->dim == 2 ? "rows" : "planes", s->edge, clmc_ranks()->size);
    if (s->domain) tiles = tiles / (size_t)tiles_per_edge * (size_t)(s->slab / s->tile);
    s->tile_items = tile_items(s->dim, s->tile, s->item_width);
    for (int c = 0; c < s->tile_colours; c++)
        s->tile_groups[c] = s->tile_colours == 2 ? tiles / 2 : tiles;
    return CLMC_OK;
}

/* Streams of a configuration (cl/ising/ising.cl): one per pair of sites; lagged
 * Fibonacci one ring per tile (tile != 0) or per batch of work-items (naive). */
static cl_uint rng_streams_per_config(int dim, int edge, int tile, clmc_rng_kind kind)
{
    unsigned long long pairs = clmc_lattice_sites(dim, edge) / 2;
    unsigned batch;
    if (!clmc_rng_lagfib(kind, NULL, NULL, &batch)) return (cl_uint)pairs;
    if (tile) return (cl_uint)clmc_lattice_sites(dim, edge / tile);
    return (cl_uint)((pairs + batch - 1) / batch);
}

/* Local memory of the resident kernel besides the configuration (the
 * measurement's two sums, with room to spare). */
#define RESIDENT_LOCAL_EXTRA 64
/* "auto" keeps the ordinary kernels where all configurations together hold
 * more sites than this, unless the update runs in colour planes with a
 * configuration for every compute unit: beyond it the ordinary kernels are
 * not launch-bound and ran faster than the per-site resident kernel (H100,
 * 2D L = 64 tiled x 65536 configurations: 2.6 against 6.3 ps per update;
 * 112 x 16^2: 475 against 139), but slower than the planes (H200, 2D tiled
 * x 2^28 / L^2 configurations, L = 32, 64, 128: 2.93, 2.66, 2.70 against
 * 1.80, 1.74-1.80, 1.77). */
#define RESIDENT_AUTO_SITES (1u << 20)

/* Whether the layout's update can run in colour planes (a word of four
 * sites per work-item and phase: the resident update, cl/ising/ising.cl
 * RESIDENT_PLANES, and temporal blocking, cl/ising/temporal_block.h
 * TB_PLANES): L a multiple of 8, layout naive or tiled with tiles of a
 * multiple of 8 in two tile colours. */
static bool colour_planes(const ising_state *s)
{
    return !s->msc && s->edge % 8 == 0 && (!s->tiled || (s->tile % 8 == 0 && s->tile_colours == 2));
}


/* Work-items the resident kernel can keep busy: the words of a phase
 * (RESIDENT_PLANES: a plane's words, half of them in tiles of one tile
 * colour), or the octets of all rows (RESIDENT_UNITS). */
static size_t resident_units(const ising_state *s)
{
    if (s->msc) return s->resident_configs * (s->stored_words / 2);
    if (colour_planes(s)) return s->n_sites / 8 / (s->tiled ? 2 : 1);
    return (size_t)(s->edge + 7) / 8 * (s->n_sites / (size_t)s->edge);
}

/* msc: work-items of a resident work-group at most (more words take rounds):
 * 8 warps or 4 wavefronts, so that several groups share a compute unit; and
 * the local memory of its list of undecided words (up to 7 words per item;
 * algorithm.rng "lcg64_reseeded": 9, and 8 bytes per item for the states
 * handed back). */
#define RESIDENT_MSC_ITEMS 256
static size_t resident_msc_list_bytes(const ising_state *s)
{
    if (s->rng.kind == CLMC_RNG_LCG64_RESEEDED) return (9 * 4 + 8) * RESIDENT_MSC_ITEMS + 64;
    return 7 * 4 * RESIDENT_MSC_ITEMS + 64;
}

/* Local memory of an msc resident work-group of `configs` configurations. */
static size_t resident_msc_local(const ising_state *s, size_t configs)
{
    return configs * (s->stored_words * 4 + RESIDENT_LOCAL_EXTRA) + resident_msc_list_bytes(s);
}

/* msc: configurations per resident work-group, algorithm.resident_configs
 * or 0 (automatic): enough to give RESIDENT_MSC_ITEMS words of a colour,
 * at most the configurations there are, within local memory.  A
 * configuration's bytes go to *bytes. */
static size_t resident_msc_configs(const ising_state *s, const clmc_preset *p, size_t local_bytes)
{
    size_t plane = s->stored_words / 2, configs = (size_t)clmc_preset_int(p, "algorithm.resident_configs");
    if (configs) return configs;
    configs = plane >= RESIDENT_MSC_ITEMS ? 1 : RESIDENT_MSC_ITEMS / plane;
    if (configs > s->n_configs) configs = s->n_configs;
    while (configs > 1 && resident_msc_local(s, configs) > local_bytes) configs--;
    return configs;
}

/* msc: resident work-groups, and rounds of words per colour pass in each.
 * "auto" keeps the ordinary kernels where the work-groups do not fill the
 * device's compute units and each pass takes more than
 * RESIDENT_MSC_AUTO_ROUNDS rounds (a single 2D L >= 256 or 3D L = 64
 * lattice): there one compute unit would go through the rounds one after
 * another while the ordinary kernels spread the words over the device (an
 * estimate from launch and round latencies, not measured). */
#define RESIDENT_MSC_AUTO_ROUNDS 2
static size_t resident_msc_groups(const ising_state *s)
{
    return (s->n_configs + s->resident_configs - 1) / s->resident_configs;
}

static size_t resident_msc_rounds(const ising_state *s)
{
    return (s->resident_configs * (s->stored_words / 2) + RESIDENT_MSC_ITEMS - 1) / RESIDENT_MSC_ITEMS;
}

/* The fit rule of algorithm.resident (docs/models/ising.md): layouts naive,
 * tiled and msc with a Philox generator, one lattice on this device, one
 * configuration (a byte per site) or msc's work-group of them within the
 * device's local memory, and for "auto" dedicated local memory (GPUs; on
 * PoCL's CPU device the resident kernel took 2.6-8x the ordinary kernels'
 * time) and the size rules above.  False with the reason in resident_note
 * otherwise (msc: resident_configs chosen on the way). */
static bool resident_fits(ising_state *s, const clmc_preset *p)
{
    const clmc_device_info *d = clmc_runtime_device(s->rt);
    const char *layout = clmc_preset_string(p, "algorithm.layout"), *mode = clmc_preset_string(p, "algorithm.resident");
    char *note = s->resident_note;
    size_t n = sizeof s->resident_note;
    if (strcmp(mode, "off") == 0)
        snprintf(note, n, "off: algorithm.resident");
    else if (ising_tblock_wanted(p))
        snprintf(note, n, "off: algorithm.sweeps_per_launch %lld (temporal blocking)",
                 clmc_preset_int(p, "algorithm.sweeps_per_launch"));
    else if (strcmp(layout, "naive") != 0 && strcmp(layout, "tiled") != 0 && !s->msc)
        snprintf(note, n, "layout %s has no resident update", layout);
    else if (s->domain)
        snprintf(note, n, "one lattice decomposed over MPI ranks");
    else if (clmc_rng_stateful(s->rng.kind))
        snprintf(note, n, "algorithm.rng %s keeps generator states", clmc_rng_names[s->rng.kind]);
    else if (s->msc && resident_msc_local(s, s->resident_configs = resident_msc_configs(s, p, d->local_mem_bytes)) >
                           d->local_mem_bytes)
        snprintf(note, n, "%zu configurations of %zu bytes (and a list of %d bytes) exceed the %llu bytes of local "
                 "memory", s->resident_configs, s->stored_words * 4, (int)resident_msc_list_bytes(s),
                 (unsigned long long)d->local_mem_bytes);
    else if (!s->msc && s->stored_sites + RESIDENT_LOCAL_EXTRA > d->local_mem_bytes)
        snprintf(note, n, "a configuration's %zu bytes exceed the %llu bytes of local memory", s->stored_sites,
                 (unsigned long long)d->local_mem_bytes);
    else if (!d->local_mem_dedicated && strcmp(mode, "on") != 0)
        snprintf(note, n, "auto: local memory emulated in global memory (%s device; \"on\" forces it)", d->type);
    else if (s->msc && strcmp(mode, "on") != 0 && resident_msc_groups(s) < d->compute_units &&
             resident_msc_rounds(s) > RESIDENT_MSC_AUTO_ROUNDS)
        snprintf(note, n, "auto: %zu work-groups for %u compute units, each pass %zu rounds of words: the ordinary "
                 "kernels spread the words over the device (\"on\" forces it)", resident_msc_groups(s),
                 d->compute_units, resident_msc_rounds(s));
    else if (!s->msc && strcmp(mode, "on") != 0 &&
             (unsigned long long)s->stored_sites * s->n_configs > RESIDENT_AUTO_SITES &&
             !(colour_planes(s) && s->n_configs >= d->compute_units))
        snprintf(note, n, "auto: %u configurations of %zu sites hold more than 2^20 sites, where the ordinary kernels "
                 "are faster (\"on\" forces it)", s->n_configs, s->stored_sites);
    else
        return true;
    return false;
}

#define RESIDENT_RANGE_ARGUMENT 18 /* the resident kernels' chunk_range and fold_range */

/* The resident kernel's work-group: one work-item per octet of a row, at most
 * the kernel's limit; refused if its local memory exceeds the device's. */
static clmc_status resident_kernel(ising_state *s)
{
    const clmc_device_info *d = clmc_runtime_device(s->rt);
    CLMC_TRY(clmc_kernel_create(s->program, s->msc ? "ising_msc_resident_update" : "ising_resident_update",
                                &s->resident_update));
    CLMC_TRY(clmc_kernel_set_first_system(s->resident_update, s->first_system));
    /* No member values until population annealing asks (member_values). */
    cl_mem none = NULL;
    cl_uint members_out = 0;
    CLMC_CL_TRY(clSetKernelArg(s->resident_update, 15, sizeof(cl_mem), &none));
    CLMC_CL_TRY(clSetKernelArg(s->resident_update, 16, sizeof(cl_mem), &none));
    CLMC_CL_TRY(clSetKernelArg(s->resident_update, 17, sizeof(cl_uint), &members_out));
    cl_uint fold_range = 0; /* nor chunk ranges until it asks (ising_fold_energy_range) */
    CLMC_CL_TRY(clSetKernelArg(s->resident_update, RESIDENT_RANGE_ARGUMENT, sizeof(cl_mem), &none));
    CLMC_CL_TRY(clSetKernelArg(s->resident_update, RESIDENT_RANGE_ARGUMENT + 1, sizeof(cl_uint), &fold_range));
    size_t limit = 0;
    cl_ulong local = 0;
    CLMC_TRY(clmc_kernel_group_limit(s->rt, s->resident_update, &limit));
    CLMC_TRY(clmc_kernel_local_bytes(s->rt, s->resident_update, &local));
    if (limit > d->max_work_group_size) limit = d->max_work_group_size;
    if (!s->msc) { /* msc and planes: resident_wg, the kernel's required size, was chosen before the build */
        if (!colour_planes(s)) s->resident_wg = resident_units(s) < limit ? resident_units(s) : limit;
        s->resident_configs = 1;
    }
    s->resident_groups = (s->n_configs + s->resident_configs - 1) / s->resident_configs;
    if (local > d->local_mem_bytes || s->resident_wg == 0 || s->resident_wg > limit) {
        snprintf(s->resident_note, sizeof s->resident_note, "the kernel needs %llu bytes of local memory and %zu "
                 "work-items; the device allows %llu and %zu", (unsigned long long)local, resident_units(s),
                 (unsigned long long)d->local_mem_bytes, limit);
        s->resident = false;
    }
    return CLMC_OK;
}

static clmc_status build_kernels(ising_state *s)
{
    const clmc_device_info *d = clmc_runtime_device(s->rt);
    s->measure_wg = clmc_power_of_two_at_most(d->max_work_group_size < MEASURE_WG_MAX ? d->max_work_group_size : MEASURE_WG_MAX);
    /* Measurement work-groups take whole rows (rows of words for msc). */
    size_t rows = s->n_sites / (size_t)s->edge, groups = s->n_sites / (s->measure_wg * 64);
    s->measure_groups = groups < 1 ? 1 : (groups > 1024 ? 1024 : groups);
    if (!s->msc && s->measure_groups > rows) s->measure_groups = rows;
    clmc_defines options = {0};
    clmc_defines_text(&options, "-cl-std=CL1.2");
    clmc_defines_int(&options, "DIM", s->dim);
    clmc_defines_int(&options, "EDGE", s->edge);
    clmc_defines_int(&options, "MEASURE_WG", (long long)s->measure_wg);
    if (s->domain) {
        clmc_defines_int(&options, "SLAB", s->slab);
        clmc_defines_int(&options, "FIRST_LAYER", s->first_layer);
    }
    if (s->tiled) {
        clmc_defines_int(&options, "TILE", s->tile);
        clmc_defines_int(&options, "ITEM_WIDTH", item_width(s->tile, s->item_width));
        clmc_defines_int(&options, "TILES_PER_EDGE", s->edge / s->tile);
        clmc_defines_int(&options, "TILE_COLOURS", s->tile_colours);
    }
    if (s->resident) clmc_defines_flag(&options, "RESIDENT");
    if (s->resident && (s->msc || colour_planes(s))) { /* the kernel's required work-group size */
        size_t most = s->msc ? RESIDENT_MSC_ITEMS : ISING_PLANES_ITEMS;
        size_t items = resident_units(s) < most ? resident_units(s) : most;
        s->resident_wg = items < d->max_work_group_size ? items : d->max_work_group_size;
        clmc_defines_int(&options, "RESIDENT_ITEMS", (long long)s->resident_wg);
    }
    if (s->resident && colour_planes(s)) { /* rounds of words, unrolled */
        clmc_defines_flag(&options, "RESIDENT_PLANES");
        clmc_defines_int(&options, "RESIDENT_ROUNDS", (long long)((resident_units(s) + s->resident_wg - 1) /
                                                                  s->resident_wg));
    }
    if (s->resident && s->msc) clmc_defines_int(&options, "CONFIGS_PER_GROUP", (long long)s->resident_configs);
    ising_tblock_defines(&s->tblock, &options);
    s->rng.streams = rng_streams_per_config(s->dim, s->edge, s->tiled ? s->tile : 0, s->rng.kind);
    s->rng.configs = s->n_configs;
    clmc_rng_defines(&s->rng, &options);
    if (s->msc) {
        CLMC_TRY(clmc_defines_build(s->rt, "ising/ising_msc.cl", &options, &s->program));
        CLMC_TRY(clmc_kernel_create(s->program, "ising_msc_init", &s->init));
        CLMC_TRY(clmc_kernel_create(s->program, "ising_msc_update", &s->update));
        size_t limit;
        CLMC_TRY(clmc_kernel_group_limit(s->rt, s->update, &limit));
        if (s->update_wg > limit)
            return clmc_fail(CLMC_ERR_INPUT, "algorithm.update_group: %zu work-items per work-group, more than the %zu "
                             "that the update kernel allows on %s", s->update_wg, limit,
                             clmc_runtime_device(s->rt)->name);
        /* 0 for slabs: SLAB_UPDATE_GROUP (the implementation's choice cost the
         * 2-rank slabs 5 % on 2 H200, docs/mpi.md); elsewhere its choice. */
        if (!s->update_wg && s->domain) s->update_wg = limit < SLAB_UPDATE_GROUP ? limit : SLAB_UPDATE_GROUP;
        CLMC_TRY(clmc_kernel_set_first_system(s->init, s->first_system));
        CLMC_TRY(clmc_kernel_set_first_system(s->update, s->first_system));
        CLMC_TRY(clmc_kernel_create(s->program, "ising_msc_measure", &s->measure));
        return s->resident ? resident_kernel(s) : CLMC_OK;
    }
    CLMC_TRY(clmc_defines_build(s->rt, "ising/ising.cl", &options, &s->program));
    CLMC_TRY(clmc_kernel_create(s->program, "ising_init", &s->init));
    CLMC_TRY(clmc_kernel_create(s->program, s->tiled ? "ising_tiled_update" : "ising_naive_update", &s->update));
    CLMC_TRY(clmc_kernel_set_first_system(s->init, s->first_system));
    CLMC_TRY(clmc_kernel_set_first_system(s->update, s->first_system));
    CLMC_TRY(clmc_kernel_create(s->program, "ising_measure", &s->measure));
    return s->resident ? resident_kernel(s) : CLMC_OK;
}

/* Global memory of one configuration: bytes, or one bit per site for msc
 * (with the halo layers of a slab). */
static size_t spin_bytes(const ising_state *s)
{
    return s->msc ? s->stored_words * 4 : s->stored_sites;
}

/* Partial sums of one batch slot: two ints per work-group and configuration. */
static size_t partials_per_slot(const ising_state *s)
{
    return 2 * s->measure_groups * s->n_configs;
}

static clmc_status allocate_buffers(ising_state *s)
{
    CLMC_TRY(clmc_buffer_create(s->rt, spin_bytes(s) * s->n_configs, NULL, "spins", &s->spins));
    CLMC_TRY(clmc_buffer_create(s->rt, 3 * sizeof(cl_uint) * s->n_configs, NULL, "thresholds", &s->thresholds));
    /* One slot more than the batch: energies for tempering exchanges. */
    size_t partial_count = partials_per_slot(s) * (s->spare_slot + 1);
    CLMC_TRY(clmc_buffer_create(s->rt, partial_count * sizeof(cl_int), NULL, "partials", &s->partials));
    CLMC_TRY(clmc_rng_streams_create(s->rt, s->program, &s->rng, s->seed_lo, s->seed_hi, s->first_system));
    s->partials_host = malloc(partial_count * sizeof(cl_int));
    if (s->domain)
        CLMC_TRY(ising_halo_create(s->rt, s->msc ? s->layer_words * sizeof(cl_uint) : s->layer_sites, s->below, s->above,
                                   &s->halo));
    s->thresholds_host = malloc(3 * sizeof *s->thresholds_host * s->n_configs);
    return s->partials_host && s->thresholds_host ? CLMC_OK : clmc_fail(CLMC_ERR_OTHER, "out of host memory");
}

/* The start of every configuration; run: the independent run of population
 * annealing whose random start it is (0 otherwise). */
static clmc_status start_spins(ising_state *s, cl_uint run)
{
    CLMC_CL_TRY(clSetKernelArg(s->init, 0, sizeof(cl_mem), &s->spins));
    CLMC_CL_TRY(clSetKernelArg(s->init, 1, sizeof(cl_uint), &s->seed_lo));
    CLMC_CL_TRY(clSetKernelArg(s->init, 2, sizeof(cl_uint), &s->seed_hi));
    CLMC_CL_TRY(clSetKernelArg(s->init, 3, sizeof(cl_uint), &s->ordered_start));
    CLMC_CL_TRY(clSetKernelArg(s->init, 4, sizeof(cl_uint), &run));
    size_t global[2] = {s->msc ? s->stored_words : s->stored_sites, s->n_configs};
    return clmc_enqueue(s->rt, s->init, 2, global, NULL, CLMC_UNTIMED);
}

/* The resident kernel's fused gather (population annealing): its next launch
 * loads configuration j from `from`, slot source[j] for j < n_new (j past
 * them); n_new = 0: from its own slot of the spins (the buffers then unused). */
static clmc_status set_gather(ising_state *s, cl_mem from, cl_mem source, cl_uint n_new)
{
    CLMC_CL_TRY(clSetKernelArg(s->resident_update, 11, sizeof(cl_mem), &from));
    CLMC_CL_TRY(clSetKernelArg(s->resident_update, 12, sizeof(cl_mem), &source));
    CLMC_CL_TRY(clSetKernelArg(s->resident_update, 13, sizeof(cl_uint), &n_new));
    s->gathering = n_new > 0;
    return CLMC_OK;
}

/* The resident kernel's thresholds: one row for all configurations (the
 * first), or a row each. */
static clmc_status set_one_row(ising_state *s, bool one_row)
{
    cl_uint stride = one_row ? 0 : 3;
    CLMC_CL_TRY(clSetKernelArg(s->resident_update, 14, sizeof(cl_uint), &stride));
    s->one_row = one_row;
    return CLMC_OK;
}

static clmc_status initialise_spins(ising_state *s)
{
    CLMC_TRY(start_spins(s, 0));
    CLMC_CL_TRY(clSetKernelArg(s->measure, 0, sizeof(cl_mem), &s->spins));
    CLMC_CL_TRY(clSetKernelArg(s->measure, 1, sizeof(cl_mem), &s->partials));
    CLMC_CL_TRY(clSetKernelArg(s->update, 0, sizeof(cl_mem), &s->spins));
    CLMC_CL_TRY(clSetKernelArg(s->update, 1, sizeof(cl_uint), &s->seed_lo));
    CLMC_CL_TRY(clSetKernelArg(s->update, 2, sizeof(cl_uint), &s->seed_hi));
    CLMC_CL_TRY(clSetKernelArg(s->update, s->tiled ? 6 : 5, sizeof(cl_mem), &s->thresholds));
    if (s->tiled) {
        cl_uint hits = (cl_uint)s->hits;
        CLMC_CL_TRY(clSetKernelArg(s->update, 5, sizeof(cl_uint), &hits));
    }
    if (s->rng.states) CLMC_CL_TRY(clSetKernelArg(s->update, s->tiled ? 7 : 6, sizeof(cl_mem), &s->rng.states));
    if (s->resident) {
        cl_uint hits = (cl_uint)s->hits;
        CLMC_CL_TRY(clSetKernelArg(s->resident_update, 0, sizeof(cl_mem), &s->spins));
        CLMC_CL_TRY(clSetKernelArg(s->resident_update, 1, sizeof(cl_uint), &s->seed_lo));
        CLMC_CL_TRY(clSetKernelArg(s->resident_update, 2, sizeof(cl_uint), &s->seed_hi));
        CLMC_CL_TRY(clSetKernelArg(s->resident_update, 5, sizeof(cl_uint), &hits));
        CLMC_CL_TRY(clSetKernelArg(s->resident_update, 6, sizeof(cl_mem), &s->thresholds));
        cl_uint groups = (cl_uint)s->measure_groups;
        CLMC_CL_TRY(clSetKernelArg(s->resident_update, 7, sizeof(cl_mem), &s->partials));
        CLMC_CL_TRY(clSetKernelArg(s->resident_update, 9, sizeof(cl_uint), &groups));
        CLMC_CL_TRY(clSetKernelArg(s->resident_update, 10, sizeof(cl_uint), &s->n_configs));
        CLMC_TRY(set_gather(s, s->thresholds, s->thresholds, 0));
        CLMC_TRY(set_one_row(s, false));
    }
    return CLMC_OK;
}

/* Population annealing's member values (H and M of every configuration),
 * created on first use and bound to the resident kernel, which writes them
 * at a measuring launch with members_out (ising_sweeps). */
static clmc_status member_values(ising_state *s)
{
    if (s->member_energy) return CLMC_OK;
    CLMC_TRY(clmc_buffer_create(s->rt, sizeof(cl_int) * s->n_configs, NULL, "members", &s->member_energy));
    CLMC_TRY(clmc_buffer_create(s->rt, sizeof(cl_int) * s->n_configs, NULL, "members", &s->member_magnetisation));
    if (!s->resident) return CLMC_OK;
    CLMC_CL_TRY(clSetKernelArg(s->resident_update, 15, sizeof(cl_mem), &s->member_energy));
    CLMC_CL_TRY(clSetKernelArg(s->resident_update, 16, sizeof(cl_mem), &s->member_magnetisation));
    return CLMC_OK;
}

static void ising_destroy(void *state);

static void read_preset(ising_state *s, const clmc_preset *p)
{
    s->dim = (int)clmc_preset_int(p, "model.dim");
    s->edge = (int)clmc_preset_int(p, "model.L");
    s->lattice_sites = s->n_sites = (size_t)clmc_lattice_sites(s->dim, s->edge);
    s->tiled = strcmp(clmc_preset_string(p, "algorithm.layout"), "tiled") == 0;
    s->msc = strcmp(clmc_preset_string(p, "algorithm.layout"), "msc") == 0;
    /* One system under several ranks: the engine let it through ising_domain. */
    const clmc_ranks_info *ranks = clmc_ranks();
    s->domain = (s->msc || s->tiled) && clmc_ranks_many() && !clmc_preset_systems(p)->independent &&
                !clmc_preset_is_density(p) && /* multicanonical walkers: the ranks share the walkers */
                !clmc_preset_is_population(p); /* population annealing: the ranks share the members */
    s->ranks_chained = clmc_preset_systems(p)->ranks_chained;
    s->layer_sites = (size_t)s->edge * (s->dim == 3 ? (size_t)s->edge : 1);
    s->layer_words = s->layer_sites / 64;
    s->stored_words = s->n_sites / 32;
    s->stored_sites = s->n_sites;
    if (s->domain) {
        s->slab = s->edge / ranks->size;
        s->first_layer = ranks->rank * s->slab;
        s->below = (ranks->rank + ranks->size - 1) % ranks->size;
        s->above = (ranks->rank + 1) % ranks->size;
        s->n_sites = s->lattice_sites / (size_t)ranks->size;
        s->stored_words = 2 * ((size_t)s->slab + 2) * s->layer_words;
        s->stored_sites = ((size_t)s->slab + 2) * s->layer_sites;
    }
    s->ordered_start = strcmp(clmc_preset_string(p, "model.start"), "ordered") == 0;
    s->tile = (int)clmc_preset_int(p, "algorithm.tile");
    s->item_width = (int)clmc_preset_int(p, "algorithm.item_width");
    s->update_wg = (size_t)clmc_preset_int(p, "algorithm.update_group");
    s->hits = (int)clmc_preset_int(p, "algorithm.hits");
    s->n_temperatures = (cl_uint)clmc_preset_betas(p, NULL, 0);
    s->copies = clmc_preset_systems(p)->copies;
    s->first_system = clmc_preset_systems(p)->first_system;
    s->n_configs = s->n_temperatures * s->copies;
    s->spare_slot = batch_slots(p);
    unsigned long long seed = (unsigned long long)clmc_preset_run(p)->seed;
    s->seed_lo = (cl_uint)(seed & 0xffffffffu);
    s->seed_hi = (cl_uint)(seed >> 32);
    s->rng.kind = clmc_rng_from_preset(p);
}

/* Random-site flip thresholds floor(p 2^32) per number of aligned
 * neighbours a (0 .. 2 dim), dE = 4 a - 4 dim: Metropolis p = exp(-beta dE)
 * for dE > 0 (the others are accepted outright), heat bath p = 1 / (1 +
 * exp(beta dE)); cl/ising/random_site.cl. */
static void rsite_thresholds(double beta, int dim, int q, bool heatbath, cl_uint *t)
{
    (void)q;
    for (int a = 0; a <= 2 * dim; a++) {
        double dE = 4.0 * a - 4.0 * dim;
        double p = heatbath ? 1.0 / (1.0 + exp(beta * dE)) : (dE > 0 ? exp(-beta * dE) : 1.0);
        double scaled = floor(ldexp(p, 32));
        t[a] = scaled >= 4294967295.0 ? 4294967295u : (cl_uint)scaled;
    }
}

static const clmc_rsite_model ising_rsite_model = {"ising/random_site.cl", 8, rsite_thresholds, 0, true, true};

static clmc_status ising_setup(ising_state *s, clmc_preset *p)
{
    read_preset(s, p);
    if (s->tiled) CLMC_TRY(resolve_tile(s, p));
    else if (!clmc_rsite_wanted(p)) clmc_preset_set_int(p, "algorithm.tile", 0);
    s->resident = resident_fits(s, p);
    if ((s->msc || colour_planes(s)) && s->dim == 2 && !s->resident && !s->domain && !clmc_rng_stateful(s->rng.kind) &&
        s->rng.kind != CLMC_RNG_LCG64_RESEEDED && !clmc_rsite_wanted(p))
        ising_tblock_choose(&s->tblock, p, clmc_runtime_device(s->rt), spin_bytes(s) * s->n_configs, s->msc,
                            s->tiled ? s->tile : 0, s->hits);
    if (!clmc_rsite_wanted(p))
        CLMC_TRY(ising_tblock_plan(&s->tblock, p, clmc_runtime_device(s->rt), s->dim, s->edge,
                                   2 * (s->tiled ? s->tile_colours * s->hits : 1), s->msc, colour_planes(s),
                                   s->tiled ? s->tile : 0, s->update_wg));
    CLMC_TRY(build_kernels(s));
    if (s->rng.kind == CLMC_RNG_LCG64_RESEEDED && !s->resident)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.rng: \"lcg64_reseeded\" draws in the resident msc update, which "
                         "this run does not take (%s); set algorithm.resident \"on\" or give philox4x32_10",
                         s->resident_note);
    CLMC_TRY(allocate_buffers(s));
    CLMC_TRY(ising_tblock_create(&s->tblock, s->rt, p, s->program, spin_bytes(s) * s->n_configs, s->seed_lo,
                                 s->seed_hi, (cl_uint)s->hits, s->thresholds, s->first_system));
    CLMC_TRY(initialise_spins(s));
    return clmc_rsite_wanted(p) ? clmc_rsite_create(s->rt, p, &ising_rsite_model, s->spins, s->n_configs, &s->rsite) : CLMC_OK;
}

static clmc_status ising_create(clmc_runtime *rt, clmc_preset *p, void **state, clmc_model_shape *shape)
{
    ising_state *s = calloc(1, sizeof *s);
    if (!s) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    s->rt = rt;
    clmc_status status = ising_setup(s, p);
    if (status != CLMC_OK) {
        ising_destroy(s);
        return status;
    }
    /* Bytes per site and sweep: tiles read tile + halo and write the tile; the
     * naive kernel reads every neighbour; multi-spin words (1/8 byte per
     * site) are read, written, and read again as neighbours (about 2 words). */
    double halo_factor = s->tiled ? pow((s->tile + 2.0) / s->tile, s->dim) : 2.0 * s->dim + 1.0;
    if (s->msc) halo_factor = 3.0 / 8.0 - 1.0 / 8.0;
    shape->series_columns = series_columns;
    shape->measure_batch = s->spare_slot ? s->spare_slot : 1;
    shape->updates_per_sweep = (double)s->n_sites * s->hits * s->n_configs;
    if (s->rsite) shape->updates_per_sweep = (double)clmc_rsite_attempts(p) * s->n_configs;
    shape->bytes_per_sweep = (double)s->n_sites * s->n_configs * (halo_factor + (s->msc ? 1.0 / 8.0 : 1.0));
    shape->n_systems = s->copies;
    shape->n_temperatures = s->n_temperatures;
    *state = s;
    return CLMC_OK;
}

static void ising_destroy(void *state)
{
    ising_state *s = state;
    if (!s) return;
    clmc_rsite_destroy(s->rsite);
    if (s->init) CLMC_CL_WARN(clReleaseKernel(s->init));
    if (s->update) CLMC_CL_WARN(clReleaseKernel(s->update));
    if (s->resident_update) CLMC_CL_WARN(clReleaseKernel(s->resident_update));
    ising_tblock_release(&s->tblock);
    if (s->measure) CLMC_CL_WARN(clReleaseKernel(s->measure));
    if (s->program) CLMC_CL_WARN(clReleaseProgram(s->program));
    if (s->member_totals) CLMC_CL_WARN(clReleaseKernel(s->member_totals));
    if (s->members_program) CLMC_CL_WARN(clReleaseProgram(s->members_program));
    if (s->member_energy) CLMC_CL_WARN(clReleaseMemObject(s->member_energy));
    if (s->member_magnetisation) CLMC_CL_WARN(clReleaseMemObject(s->member_magnetisation));
    if (s->spins) CLMC_CL_WARN(clReleaseMemObject(s->spins));
    if (s->partials) CLMC_CL_WARN(clReleaseMemObject(s->partials));
    if (s->thresholds) CLMC_CL_WARN(clReleaseMemObject(s->thresholds));
    clmc_rng_streams_release(&s->rng);
    if (s->rt) CLMC_CL_WARN(clFinish(clmc_runtime_queue(s->rt))); /* pending writes read thresholds_host */
    ising_halo_release(&s->halo);
    free(s->partials_host);
    free(s->thresholds_host);
    free(s);
}

/* Work-items of the naive kernel: one per pair of sites, rounded up to whole
 * lagged Fibonacci batches (items past the sites still draw their numbers). */
static size_t naive_items(const ising_state *s)
{
    unsigned batch;
    if (clmc_rng_lagfib(s->rng.kind, NULL, NULL, &batch)) return (size_t)s->rng.streams * batch;
    return s->n_sites / 2;
}

/* An msc update launch of `items` words per configuration: the work-group
 * size algorithm.update_group with the global size rounded up to a multiple of
 * it (the kernel skips the items past its words), or the implementation's
 * choice. */
static clmc_status enqueue_msc_update(ising_state *s, size_t items)
{
    size_t wg = s->update_wg, global[2] = {wg ? (items + wg - 1) / wg * wg : items, s->n_configs};
    size_t local[2] = {wg, 1};
    return clmc_enqueue(s->rt, s->update, 2, global, wg ? local : NULL, CLMC_TIMED);
}

/* Domain decomposition: words [first, first + count) of the slab's colour
 * (argument 4, set by the caller), and with count2 > 0 also words [first2,
 * first2 + count2) in the same launch (first2 >= first + count). */
static clmc_status update_words(ising_state *s, size_t first, size_t count, size_t first2, size_t count2)
{
    cl_uint args[4] = {(cl_uint)first, (cl_uint)(count2 ? first2 + count2 : first + count), (cl_uint)count,
                       (cl_uint)(count2 ? first2 - first - count : 0)};
    for (cl_uint i = 0; i < 4; i++) CLMC_CL_TRY(clSetKernelArg(s->update, 6 + i, sizeof(cl_uint), &args[i]));
    return enqueue_msc_update(s, count + count2);
}

/* Tiled slabs: work-groups [first, first + count) of the tile colour set
 * (argument 4) by the caller. */
static clmc_status update_tiles(ising_state *s, size_t first, size_t count)
{
    cl_uint first_arg = (cl_uint)first;
    CLMC_CL_TRY(clSetKernelArg(s->update, 7, sizeof(cl_uint), &first_arg));
    size_t global[2] = {count * s->tile_items, s->n_configs}, local[2] = {s->tile_items, 1};
    return clmc_enqueue(s->rt, s->update, 2, global, local, CLMC_TIMED);
}

/* Tiled slabs, as domain_sweep below (msc): per tile colour the slab's first and
 * last rows (2D) or planes (3D) of tiles first, the read-back of its two
 * boundary layers of sites, then the other tiles while the layers go to the
 * neighbouring ranks and their halos come back.  The work-groups of one
 * colour run through the tiles with the last axis slowest, `row` groups per
 * row of tiles. */
static clmc_status domain_tiled_sweep(ising_state *s)
{
    size_t layer_bytes = s->layer_sites, slab = (size_t)s->slab, rows = slab / (size_t)s->tile;
    for (cl_uint colour = 0; colour < (cl_uint)s->tile_colours; colour++) {
        size_t row = s->tile_groups[colour] / rows;
        CLMC_CL_TRY(clSetKernelArg(s->update, 4, sizeof(cl_uint), &colour));
        CLMC_TRY(update_tiles(s, 0, row));
        if (rows > 1) CLMC_TRY(update_tiles(s, (rows - 1) * row, row));
        CLMC_TRY(ising_halo_read(&s->halo, s->spins, layer_bytes, slab * layer_bytes));
        if (rows > 2) CLMC_TRY(update_tiles(s, row, (rows - 2) * row));
        CLMC_TRY(ising_halo_swap(&s->halo, s->spins, 0, (slab + 1) * layer_bytes, 0));
    }
    return CLMC_OK;
}

/* One sweep of a slab (docs/mpi.md): per colour, the two boundary layers
 * first (one launch), their read-back on the halo's copy queue, then the interior; while
 * the device updates the interior, the boundary layers go to the
 * neighbouring ranks (periodic ring) and come back as this slab's halo
 * layers of that colour, written before the next colour's pass
 * (src/models/ising/ising_halo.c). */
static clmc_status domain_sweep(ising_state *s)
{
    size_t layer = s->layer_words, layer_bytes = layer * sizeof(cl_uint), plane_bytes = s->stored_words / 2 * 4;
    size_t slab = (size_t)s->slab;
    for (cl_uint colour = 0; colour < 2; colour++) {
        size_t base = colour * plane_bytes;
        CLMC_CL_TRY(clSetKernelArg(s->update, 4, sizeof(cl_uint), &colour));
        CLMC_TRY(update_words(s, 0, layer, (slab - 1) * layer, layer)); /* the first and last layers */
        CLMC_TRY(ising_halo_read(&s->halo, s->spins, base + layer_bytes, base + slab * layer_bytes));
        if (slab > 2) CLMC_TRY(update_words(s, layer, (slab - 2) * layer, 0, 0));
        CLMC_TRY(ising_halo_swap(&s->halo, s->spins, base, base + (slab + 1) * layer_bytes, 2 * (int)colour));
    }
    return CLMC_OK;
}

/* Resident update: sweeps [first, first + count) in one launch per at most
 * 2^16 sweeps, one work-group per configuration; slot >= 0: the last launch
 * also measures into that batch slot (the sums of ising_measure), or with
 * `members` into the member values (member_values). */
static clmc_status resident_sweeps(ising_state *s, uint64_t first, uint64_t count, int slot, bool members)
{
    while (count > 0) {
        cl_uint sweep = (cl_uint)first, n = count < 65536 ? (cl_uint)count : 65536;
        cl_uint measure = slot >= 0 && n == count ? (cl_uint)slot : 0xFFFFFFFFu, out = members;
        CLMC_CL_TRY(clSetKernelArg(s->resident_update, 3, sizeof(cl_uint), &sweep));
        CLMC_CL_TRY(clSetKernelArg(s->resident_update, 4, sizeof(cl_uint), &n));
        CLMC_CL_TRY(clSetKernelArg(s->resident_update, 8, sizeof(cl_uint), &measure));
        CLMC_CL_TRY(clSetKernelArg(s->resident_update, 17, sizeof(cl_uint), &out));
        size_t global = s->resident_wg * s->resident_groups, local = s->resident_wg;
        CLMC_TRY(clmc_enqueue(s->rt, s->resident_update, 1, &global, &local, CLMC_TIMED));
        if (s->gathering) CLMC_TRY(set_gather(s, s->thresholds, s->thresholds, 0));
        s->resident_launches++;
        s->resident_sweeps += n;
        first += n;
        count -= n;
    }
    return CLMC_OK;
}

/* Temporal blocking: sweeps [first, first + count) in launches of at most
 * algorithm.sweeps_per_launch sweeps, each from the spins into the other
 * buffer, which then holds the spins: the kernels reading them are bound anew. */
static clmc_status blocked_sweeps(ising_state *s, uint64_t first, uint64_t count)
{
    while (count > 0) {
        uint64_t n = count < (uint64_t)s->tblock.sweeps ? count : (uint64_t)s->tblock.sweeps;
        CLMC_TRY(ising_tblock_launch(&s->tblock, s->rt, &s->spins, first, n, s->n_configs));
        first += n;
        count -= n;
    }
    CLMC_CL_TRY(clSetKernelArg(s->init, 0, sizeof(cl_mem), &s->spins));
    CLMC_CL_TRY(clSetKernelArg(s->update, 0, sizeof(cl_mem), &s->spins));
    CLMC_CL_TRY(clSetKernelArg(s->measure, 0, sizeof(cl_mem), &s->spins));
    return CLMC_OK;
}

static clmc_status ising_sweep(void *state, uint64_t sweep_index);

static clmc_status ising_sweeps(void *state, uint64_t first, uint64_t count, int measure_slot, bool *measured)
{
    ising_state *s = state;
    bool members = measure_slot == CLMC_MEASURE_MEMBERS;
    if (members) measure_slot = (int)s->spare_slot; /* where ising_member_observables measures */
    *measured = s->resident && measure_slot >= 0;
    s->members_measured = members && *measured;
    if (s->tblock.used) return blocked_sweeps(s, first, count);
    if (s->members_measured) CLMC_TRY(member_values(s));
    if (s->resident) return resident_sweeps(s, first, count, measure_slot, s->members_measured);
    for (uint64_t t = first; t < first + count; t++) CLMC_TRY(ising_sweep(s, t));
    return CLMC_OK;
}

/* result.json performance.resident (docs/results.md). */
static void ising_describe_update(void *state, cJSON *performance)
{
    const ising_state *s = state;
    if (s->rsite) return;
    ising_tblock_describe(&s->tblock, performance);
    clmc_describe_resident(performance, s->resident ? NULL : s->resident_note, s->resident_launches,
                           s->resident_sweeps, s->resident_wg, "configs_per_group", (double)s->resident_configs);
    cJSON *record = cJSON_GetObjectItem(performance, "resident");
    if (s->resident && !s->msc && record) cJSON_AddBoolToObject(record, "planes", colour_planes(s));
}

static clmc_status ising_sweep(void *state, uint64_t sweep_index)
{
    ising_state *s = state;
    s->members_measured = false;
    if (s->rsite) return clmc_rsite_step(s->rsite, sweep_index);
    if (s->tblock.used) return blocked_sweeps(s, sweep_index, 1);
    if (s->resident) return resident_sweeps(s, sweep_index, 1, -1, false);
    cl_uint sweep = (cl_uint)sweep_index;
    CLMC_CL_TRY(clSetKernelArg(s->update, 3, sizeof(cl_uint), &sweep));
    if (s->domain) return s->msc ? domain_sweep(s) : domain_tiled_sweep(s);
    int colours = s->tiled ? s->tile_colours : 2;
    for (cl_uint colour = 0; colour < (cl_uint)colours; colour++) {
        CLMC_CL_TRY(clSetKernelArg(s->update, 4, sizeof(cl_uint), &colour));
        if (s->tiled) {
            size_t global[2] = {s->tile_groups[colour] * s->tile_items, s->n_configs}, local[2] = {s->tile_items, 1};
            CLMC_TRY(clmc_enqueue(s->rt, s->update, 2, global, local, CLMC_TIMED));
        } else if (s->msc) {
            CLMC_TRY(enqueue_msc_update(s, s->n_sites / 64));
        } else {
            size_t global[2] = {naive_items(s), s->n_configs};
            CLMC_TRY(clmc_enqueue(s->rt, s->update, 2, global, NULL, CLMC_TIMED));
        }
    }
    return CLMC_OK;
}

static clmc_status ising_measure(void *state, unsigned slot)
{
    ising_state *s = state;
    if (s->rsite) CLMC_TRY(clmc_rsite_sync(s->rsite));
    cl_uint slot_arg = slot;
    CLMC_CL_TRY(clSetKernelArg(s->measure, 2, sizeof(cl_uint), &slot_arg));
    size_t global[2] = {s->measure_groups * s->measure_wg, s->n_configs}, local[2] = {s->measure_wg, 1};
    return clmc_enqueue(s->rt, s->measure, 2, global, local, CLMC_UNTIMED);
}

/* Reads batch slots [first, first + n) and sums each configuration's partials
 * into (bond sum, magnetisation) pairs. */
static clmc_status read_sums(ising_state *s, unsigned first, unsigned n, long long *sums)
{
    size_t per_slot = partials_per_slot(s);
    CLMC_CL_TRY(clEnqueueReadBuffer(clmc_runtime_queue(s->rt), s->partials, CL_TRUE,
                                    first * per_slot * sizeof(cl_int), n * per_slot * sizeof(cl_int),
                                    s->partials_host, 0, NULL, NULL));
    for (size_t k = 0; k < (size_t)n * s->n_configs; k++) {
        const cl_int *p = s->partials_host + 2 * s->measure_groups * k;
        sums[2 * k] = sums[2 * k + 1] = 0;
        for (size_t g = 0; g < s->measure_groups; g++) {
            sums[2 * k] += p[2 * g];
            sums[2 * k + 1] += p[2 * g + 1];
        }
    }
    /* A slab's sums: the lattice's are their exact sum over the ranks. */
    if (s->domain) clmc_ranks_sum_int64(sums, (int)(2 * n * s->n_configs));
    return CLMC_OK;
}

static clmc_status ising_collect(void *state, unsigned n_slots, double *rows)
{
    ising_state *s = state;
    size_t n = (size_t)n_slots * s->n_configs;
    long long *sums = malloc(2 * n * sizeof *sums);
    if (!sums) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    clmc_status status = read_sums(s, 0, n_slots, sums);
    for (size_t k = 0; status == CLMC_OK && k < n; k++) {
        rows[2 * k] = -(double)sums[2 * k] / (double)s->lattice_sites;
        rows[2 * k + 1] = (double)sums[2 * k + 1] / (double)s->lattice_sites;
    }
    free(sums);
    return status;
}

/* Total energies H of all configurations, through the reduction kernel into
 * the spare batch slot. */
static clmc_status ising_energies(void *state, double *energies)
{
    ising_state *s = state;
    CLMC_TRY(ising_measure(s, s->spare_slot));
    long long *sums = malloc(2 * s->n_configs * sizeof *sums);
    if (!sums) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    clmc_status status = read_sums(s, s->spare_slot, 1, sums);
    for (cl_uint c = 0; status == CLMC_OK && c < s->n_configs; c++) energies[c] = -(double)sums[2 * c];
    free(sums);
    return status;
}

/* The write does not block: the in-order queue applies it before the next
 * sweep, and the host array is only rewritten after the energies of a later
 * exchange were read (a blocking read that completes the write). */
static clmc_status ising_set_betas(void *state, const double *betas, const unsigned *temperature_of)
{
    ising_state *s = state;
    (void)temperature_of;
    if (s->rsite) CLMC_TRY(clmc_rsite_set_betas(s->rsite, betas));
    /* A run of equal betas (many copies at one temperature) takes the
     * thresholds once: three exp() per system made the host the bottleneck
     * (population annealing writes one row instead: ising_set_beta_all). */
    for (cl_uint c = 0; c < s->n_configs; c++) {
        if (c > 0 && betas[c] == betas[c - 1])
            memcpy(s->thresholds_host + 3 * c, s->thresholds_host + 3 * (c - 1), 3 * sizeof *s->thresholds_host);
        else
            clmc_metropolis_thresholds(betas[c], s->thresholds_host + 3 * c);
    }
    CLMC_CL_TRY(clEnqueueWriteBuffer(clmc_runtime_queue(s->rt), s->thresholds, CL_FALSE, 0,
                                     3 * sizeof *s->thresholds_host * s->n_configs, s->thresholds_host, 0,
                                     NULL, NULL));
    return s->one_row ? set_one_row(s, false) : CLMC_OK;
}

/* Population annealing: every configuration's thresholds those of beta.
 * Where the sweeps are the resident update, the first row alone, which its
 * launches then give every configuration (the copies left the device idle
 * about 45 us a step longer at R = 1e6 on an H200); else the row's copies
 * (clmc_write_repeated). */
static clmc_status ising_set_beta_all(void *state, double beta)
{
    ising_state *s = state;
    if (s->rsite) CLMC_TRY(clmc_rsite_set_beta_all(s->rsite, beta));
    clmc_metropolis_thresholds(beta, s->thresholds_host);
    size_t row = 3 * sizeof *s->thresholds_host;
    if (!s->resident || s->tblock.used)
        return clmc_write_repeated(s->rt, s->thresholds, s->thresholds_host, row, s->n_configs);
    CLMC_CL_TRY(clEnqueueWriteBuffer(clmc_runtime_queue(s->rt), s->thresholds, CL_FALSE, 0, row, s->thresholds_host, 0,
                                     NULL, NULL));
    return s->one_row ? CLMC_OK : set_one_row(s, true);
}

static clmc_status ising_estimate(void *state, const double *rows, size_t n_rows, double beta, cJSON *observables)
{
    ising_state *s = state;
    clmc_ferromagnet_observables(rows, n_rows, 2, 0, 1, beta, (double)s->lattice_sites, observables);
    return CLMC_OK;
}

/* Configurations [first, first + count) as the device stores them
 * (spin_bytes(s) bytes each), in one read. */
static clmc_status read_stored(ising_state *s, cl_uint first, cl_uint count, unsigned char *raw)
{
    if (s->rsite) CLMC_TRY(clmc_rsite_sync(s->rsite));
    CLMC_CL_TRY(clEnqueueReadBuffer(clmc_runtime_queue(s->rt), s->spins, CL_TRUE, spin_bytes(s) * first,
                                    spin_bytes(s) * count, raw, 0, NULL, NULL));
    return CLMC_OK;
}

/* One configuration's stored bytes as +-1 bytes in site order, whatever the
 * layout (a slab: its own sites, n_sites from global site first_layer x
 * layer sites). */
static void decode_configuration(const ising_state *s, const unsigned char *raw, signed char *spins)
{
    if (!s->msc) { /* a slab's sites after its lower halo */
        memcpy(spins, raw + (s->domain ? s->layer_sites : 0), s->n_sites);
        return;
    }
    const cl_uint *words = (const cl_uint *)(const void *)raw;
    size_t plane_words = s->stored_words / 2, edge = (size_t)s->edge, row_words = edge / 64;
    size_t halo = s->domain ? s->layer_words : 0, first_row = (size_t)s->first_layer * (s->layer_words / row_words);
    for (size_t row = 0; row < s->n_sites / edge; row++) {
        size_t global_row = first_row + row, parity = global_row % edge + global_row / edge;
        const cl_uint *own[2] = {words + halo + row * row_words, words + plane_words + halo + row * row_words};
        signed char *out = spins + row * edge;
        for (size_t x = 0; x < edge; x++) {
            size_t j = x / 2;
            out[x] = (own[(x + parity) & 1][j / 32] >> (j % 32)) & 1 ? 1 : -1;
        }
    }
}

/* Final configuration as +-1 bytes in site order (decode_configuration). */
static clmc_status read_configuration(ising_state *s, cl_uint config, signed char *spins)
{
    unsigned char *raw = malloc(spin_bytes(s));
    if (!raw) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    clmc_status status = read_stored(s, config, 1, raw);
    if (status == CLMC_OK) decode_configuration(s, raw, spins);
    free(raw);
    return status;
}

/* Configurations read per call of ising_checks: about 64 MiB (population
 * annealing holds 10^6 and more; one read each took tens of seconds). */
static cl_uint checks_batch(const ising_state *s)
{
    size_t batch = ((size_t)64 << 20) / spin_bytes(s);
    return batch < 1 ? 1 : batch > s->n_configs ? s->n_configs : (cl_uint)batch;
}

/* Final configurations: every spin must be +-1; the FNV-1a hash over all
 * configurations (in storage order) lets runs on different devices be
 * compared bit for bit.  Slabs (collective): each rank continues the hash
 * of the rank below over its sites, so the lattice's hash comes out;
 * population annealing's members under MPI ranks the same over its members
 * (the run's, in order), and the temperatures of one tempering run across
 * ranks (ranks_chained: consecutive configurations). */
static clmc_status ising_checks(void *state, cJSON *checks)
{
    ising_state *s = state;
    cl_uint batch = checks_batch(s);
    signed char *spins = malloc(s->n_sites);
    unsigned char *raw = malloc(spin_bytes(s) * batch);
    clmc_configuration_hash hash;
    clmc_configuration_hash_start(&hash, s->domain || s->ranks_chained);
    clmc_status status = spins && raw ? CLMC_OK : clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    for (cl_uint c = 0; c < s->n_configs && status == CLMC_OK; c++) {
        if (c % batch == 0) status = read_stored(s, c, s->n_configs - c < batch ? s->n_configs - c : batch, raw);
        if (status == CLMC_OK) decode_configuration(s, raw + spin_bytes(s) * (c % batch), spins);
        if (status == CLMC_OK) clmc_configuration_hash_receive(&hash); /* after the ranks' reads, side by side */
        for (size_t i = 0; status == CLMC_OK && i < s->n_sites; i++) {
            hash.invalid += spins[i] != 1 && spins[i] != -1;
            clmc_configuration_hash_byte(&hash, (unsigned char)spins[i]);
        }
    }
    free(spins);
    free(raw);
    clmc_configuration_hash_finish(&hash, status == CLMC_OK ? checks : NULL);
    if (status != CLMC_OK) return status;
    return hash.invalid ? clmc_fail(CLMC_ERR_OTHER, "%lld spins are not +-1", hash.invalid) : CLMC_OK;
}

/* Spin up white, down black.  Slabs (collective): in 2D rank 0 gathers
 * the ranks' rows; in 3D plane z = 0 is rank 0's. */
static clmc_status ising_picture(void *state, unsigned char **grey, int *width, int *height)
{
    ising_state *s = state;
    signed char *spins = malloc(s->n_sites);
    if (!spins) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    clmc_status status = read_configuration(s, 0, spins);
    size_t plane = (size_t)s->edge * (size_t)s->edge, own = plane < s->n_sites ? plane : s->n_sites;
    *grey = malloc(plane);
    unsigned char *mine = s->domain && s->dim == 2 ? malloc(own) : *grey;
    if (status == CLMC_OK && (!*grey || !mine)) status = clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    for (size_t i = 0; status == CLMC_OK && i < own; i++) mine[i] = spins[i] > 0 ? 255 : 0;
    if (s->domain && s->dim == 2) {
        status = clmc_ranks_agree(status);
        if (status == CLMC_OK) status = clmc_ranks_gather(mine, own, *grey);
        free(mine);
    }
    free(spins);
    *width = *height = s->edge;
    return status;
}

/* result.h5: every configuration as +-1 bytes, [config][z][y][x]. */
static clmc_status ising_snapshot(void *state, clmc_array *configuration)
{
    ising_state *s = state;
    *configuration = clmc_lattice_array("spins", CLMC_ARRAY_INT8, s->n_configs, s->dim, s->edge, 1);
    if (!configuration->data) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    signed char *spins = configuration->data;
    for (cl_uint c = 0; c < s->n_configs; c++) CLMC_TRY(read_configuration(s, c, spins + (size_t)c * s->n_sites));
    return CLMC_OK;
}

/* Checkpoints: the spin buffer of all configurations as stored (bytes of
 * +-1, or the multi-spin words of cl/ising/ising_msc.cl in little-endian order),
 * then the states of a stateful algorithm.rng as stored on the device; the
 * thresholds follow from the betas the engine restores. */
static size_t rng_bytes(const ising_state *s)
{
    return clmc_rng_state_bytes(s->rng.kind, s->rng.streams, s->rng.configs);
}

static clmc_status ising_save_state(void *state, unsigned char **blob, size_t *bytes)
{
    ising_state *s = state;
    size_t spins = spin_bytes(s) * s->n_configs;
    *bytes = spins + rng_bytes(s);
    if (s->rsite) CLMC_TRY(clmc_rsite_sync(s->rsite));
    *blob = malloc(*bytes);
    if (!*blob) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    CLMC_CL_TRY(clEnqueueReadBuffer(clmc_runtime_queue(s->rt), s->spins, CL_TRUE, 0, spins, *blob, 0, NULL, NULL));
    return clmc_rng_streams_download(s->rt, &s->rng, *blob + spins);
}

static clmc_status ising_load_state(void *state, const unsigned char *blob, size_t bytes)
{
    ising_state *s = state;
    if (bytes != spin_bytes(s) * s->n_configs + rng_bytes(s))
        return clmc_fail(CLMC_ERR_INPUT, "checkpoint: %zu bytes of spins and generator states; the preset has %zu",
                         bytes, spin_bytes(s) * s->n_configs + rng_bytes(s));
    bytes -= rng_bytes(s);
    for (size_t i = 0; !s->msc && i < bytes; i++)
        if ((signed char)blob[i] != 1 && (signed char)blob[i] != -1)
            return clmc_fail(CLMC_ERR_INPUT, "checkpoint: spin %zu is not +-1", i);
    CLMC_CL_TRY(clEnqueueWriteBuffer(clmc_runtime_queue(s->rt), s->spins, CL_TRUE, 0, bytes, blob, 0, NULL, NULL));
    CLMC_TRY(clmc_rng_streams_upload(s->rt, &s->rng, blob + bytes));
    return s->rsite ? clmc_rsite_reload(s->rsite) : CLMC_OK;
}

/* Spins of every configuration plus the measurement partials (per
 * configuration and slot at most measure_groups_bound, batch_slots + 1 slots). */
static void ising_device_bytes(const clmc_preset *p, uint64_t *total, uint64_t *largest)
{
    int edge = (int)clmc_preset_int(p, "model.L"), dim = (int)clmc_preset_int(p, "model.dim");
    uint64_t configs = preset_configs(p), spins = device_spin_bytes(p);
    uint64_t partials = 2ULL * measure_groups_bound(p) * configs * (batch_slots(p) + 1) * sizeof(cl_int);
    bool tiled = strcmp(clmc_preset_string(p, "algorithm.layout"), "tiled") == 0;
    int tile = tiled ? (int)clmc_preset_int(p, "algorithm.tile") : 0;
    clmc_rng_kind kind = clmc_rng_from_preset(p);
    uint64_t states = clmc_rng_state_bytes(kind, rng_streams_per_config(dim, edge, tile, kind), configs);
    *total = spins + partials + 3 * sizeof(cl_uint) * configs + states;
    if (strcmp(clmc_preset_string(p, "algorithm.random_site"), "copies") == 0)
        *total += spins + 8 * sizeof(cl_uint) * configs; /* the copy-minor spins and the flip thresholds */
    if (ising_tblock_wanted(p)) *total += spins; /* temporal blocking: the blocks write a second buffer */
    *largest = spins > partials ? spins : partials;
    if (states > *largest) *largest = states;
}

/* Population annealing: every configuration's H and M on the device, as the
 * resident update's last launch wrote them (members_measured), else from the
 * measurement kernel's spare batch slot (cl/ising/ising_members.cl). */
static clmc_status ising_member_observables(void *state, cl_mem *energy, cl_mem *magnetisation)
{
    ising_state *s = state;
    if (!s->member_totals) {
        clmc_defines options = {0};
        clmc_defines_text(&options, "-cl-std=CL1.2");
        CLMC_TRY(clmc_defines_build(s->rt, "ising/ising_members.cl", &options, &s->members_program));
        CLMC_TRY(clmc_kernel_create(s->members_program, "ising_member_totals", &s->member_totals));
        CLMC_TRY(member_values(s));
        cl_uint slot = s->spare_slot, groups = (cl_uint)s->measure_groups;
        CLMC_CL_TRY(clSetKernelArg(s->member_totals, 0, sizeof(cl_mem), &s->partials));
        CLMC_CL_TRY(clSetKernelArg(s->member_totals, 1, sizeof(cl_uint), &slot));
        CLMC_CL_TRY(clSetKernelArg(s->member_totals, 2, sizeof(cl_uint), &s->n_configs));
        CLMC_CL_TRY(clSetKernelArg(s->member_totals, 3, sizeof(cl_uint), &groups));
        CLMC_CL_TRY(clSetKernelArg(s->member_totals, 4, sizeof(cl_mem), &s->member_energy));
        CLMC_CL_TRY(clSetKernelArg(s->member_totals, 5, sizeof(cl_mem), &s->member_magnetisation));
    }
    *energy = s->member_energy;
    *magnetisation = s->member_magnetisation;
    bool written = s->members_measured;
    s->members_measured = false;
    if (written) return CLMC_OK;
    CLMC_TRY(ising_measure(s, s->spare_slot));
    size_t items = s->n_configs;
    return clmc_enqueue(s->rt, s->member_totals, 1, &items, NULL, CLMC_UNTIMED);
}

static clmc_status ising_fresh_start(void *state, unsigned run)
{
    ((ising_state *)state)->members_measured = false;
    return start_spins(state, run);
}

static clmc_status ising_members_buffer(void *state, cl_mem *buffer, size_t *bytes_per_member)
{
    ising_state *s = state;
    *buffer = s->spins;
    *bytes_per_member = spin_bytes(s);
    return CLMC_OK;
}

/* Population annealing's ping-pong resampling (clmc_ensemble_hooks.swap_members):
 * *buffer becomes the spins and the kernels reading them are bound anew;
 * declined (buffer unchanged) for the random-site layout, which keeps its
 * own binding, and for a buffer of another size. */
static clmc_status ising_swap_members(void *state, cl_mem *buffer)
{
    ising_state *s = state;
    size_t mine = 0, theirs = 0;
    CLMC_CL_TRY(clGetMemObjectInfo(s->spins, CL_MEM_SIZE, sizeof mine, &mine, NULL));
    CLMC_CL_TRY(clGetMemObjectInfo(*buffer, CL_MEM_SIZE, sizeof theirs, &theirs, NULL));
    if (s->rsite || mine != theirs) return CLMC_OK;
    cl_mem old = s->spins;
    s->spins = *buffer;
    *buffer = old;
    CLMC_CL_TRY(clSetKernelArg(s->init, 0, sizeof(cl_mem), &s->spins));
    CLMC_CL_TRY(clSetKernelArg(s->update, 0, sizeof(cl_mem), &s->spins));
    CLMC_CL_TRY(clSetKernelArg(s->measure, 0, sizeof(cl_mem), &s->spins));
    if (s->resident) CLMC_CL_TRY(clSetKernelArg(s->resident_update, 0, sizeof(cl_mem), &s->spins));
    return CLMC_OK;
}

/* Population annealing's gather in the next sweeps
 * (clmc_ensemble_hooks.gather_in_sweeps): taken where they are the resident
 * update, whose launch loads whole members, and the swap above is taken. */
static clmc_status ising_gather_in_sweeps(void *state, cl_mem *buffer, cl_mem source, cl_uint n_new)
{
    ising_state *s = state;
    cl_mem old = s->spins;
    if (!s->resident || s->tblock.used) return CLMC_OK;
    CLMC_TRY(ising_swap_members(state, buffer));
    return *buffer == old ? set_gather(s, old, source, n_new) : CLMC_OK;
}

/* Population annealing's chunk ranges folded by the resident update's
 * measuring launches (clmc_ensemble_hooks.fold_energy_range): where they
 * write the member values. */
static clmc_status ising_fold_energy_range(void *state, cl_mem chunk_range, bool *folds)
{
    ising_state *s = state;
    cl_uint fold = 1;
    *folds = s->resident && !s->tblock.used && !s->rsite;
    if (!*folds) return CLMC_OK;
    CLMC_CL_TRY(clSetKernelArg(s->resident_update, RESIDENT_RANGE_ARGUMENT, sizeof(cl_mem), &chunk_range));
    CLMC_CL_TRY(clSetKernelArg(s->resident_update, RESIDENT_RANGE_ARGUMENT + 1, sizeof(cl_uint), &fold));
    return CLMC_OK;
}

static void ising_member_size(void *state, double *sites, double *log_states)
{
    const ising_state *s = state;
    *sites = s->n_sites;
    *log_states = s->n_sites * log(2.0);
}

/* One system cut into `ranks` slabs along the last axis (docs/mpi.md):
 * layout msc or tiled (a tile edge dividing the slab), one temperature, a
 * counter-based generator, and L a multiple of the ranks with at least 2
 * layers each. */
static clmc_status ising_domain(const clmc_preset *p, int ranks, cJSON *record)
{
    int dim = (int)clmc_preset_int(p, "model.dim"), edge = (int)clmc_preset_int(p, "model.L");
    const char *layout = clmc_preset_string(p, "algorithm.layout");
    const char *layers = dim == 2 ? "rows" : "planes";
    if (ising_tblock_wanted(p))
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.sweeps_per_launch: temporal blocking runs one lattice on one "
                         "device, not cut over %d MPI ranks; give 0", ranks);
    if (strcmp(layout, "msc") != 0 && strcmp(layout, "tiled") != 0)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.layout: \"%s\" cannot be decomposed over %d MPI ranks; one Ising "
                         "lattice is cut into slabs with layouts \"msc\" and \"tiled\" only (run \"%s\" in one "
                         "process)", layout, ranks, layout);
    if (clmc_preset_has(p, "ensemble.type"))
        return clmc_fail(CLMC_ERR_INPUT, "ensemble.type: \"%s\" is not spread over %d MPI ranks; one system at one "
                         "temperature (ensemble.beta) is decomposed, independent copies and tempering temperatures are "
                         "shared",
                         clmc_preset_string(p, "ensemble.type"), ranks);
    clmc_rng_kind rng = clmc_rng_from_preset(p);
    if (clmc_rng_stateful(rng))
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.rng: \"%s\" keeps per-site generator states, which a decomposed "
                         "lattice does not split; give philox4x32_10 or philox4x32_7", clmc_rng_names[rng]);
    if (edge % ranks != 0 || edge / ranks < 2)
        return clmc_fail(CLMC_ERR_INPUT, "model.L: %d %s cannot be cut into %d slabs of equal size with at least 2 %s "
                         "each (L must be a multiple of the %d MPI ranks, L / K >= 2)", edge, layers, ranks, layers,
                         ranks);
    int tile = (int)clmc_preset_int(p, "algorithm.tile");
    if (strcmp(layout, "tiled") == 0 && tile != 0 && (edge / ranks) % tile != 0)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.tile: %d does not divide the %d %s of a slab (model.L %d over %d "
                         "MPI ranks)", tile, edge / ranks, layers, edge, ranks);
    if (record) {
        cJSON_AddStringToObject(record, "axis", dim == 2 ? "y" : "z");
        cJSON_AddNumberToObject(record, "slabs", ranks);
        cJSON_AddNumberToObject(record, "layers_per_rank", edge / ranks);
        double layer = (double)edge * (dim == 3 ? edge : 1);
        cJSON_AddNumberToObject(record, "halo_bytes_per_colour", strcmp(layout, "msc") == 0 ? layer / 8 : layer);
    }
    return CLMC_OK;
}

static const long long tile_candidates[] = {4, 8, 16, 32, 64, 0}, width_candidates[] = {2, 4, 8, 0};
static const clmc_tunable ising_tunables[] = {
    {"algorithm.tile", 0, tile_candidates, false, NULL}, /* the double checkerboard's update order follows the tile */
    {"algorithm.item_width", 0, width_candidates, true, NULL},
    {NULL, 0, NULL, false, NULL},
};

/* Multicanonical walkers (cl/ising/muca_ising.cl): energies -dim N ... dim N
 * in steps of 4; 2D lattices of edge 4 ... 64 as bit rows (32 or 64 bits a
 * row), others one byte per spin. */
static clmc_status ising_density_walkers(void *state, clmc_density_walkers *out)
{
    ising_state *s = state;
    bool rows = s->dim == 2 && s->edge >= 4 && s->edge <= 64;
    snprintf(s->muca_defines, sizeof s->muca_defines, "-cl-std=CL1.2 -DDIM=%d -DEDGE=%d%s", s->dim, s->edge,
             rows ? " -DWALKER_ROWS" : "");
    *out = (clmc_density_walkers){.program = "ising/muca_ising.cl",
                                  .defines = s->muca_defines,
                                  .e_min = -s->dim * (int)s->n_sites,
                                  .e_step = 4,
                                  .n_bins = (unsigned)s->dim * s->n_sites / 2 + 1,
                                  .max_bin_step = (unsigned)s->dim,
                                  .sites = s->n_sites,
                                  .log_states = s->n_sites * log(2.0),
                                  .walker_bytes = rows ? (size_t)s->edge * (s->edge <= 32 ? 4 : 8) : s->n_sites};
    return CLMC_OK;
}

static const clmc_ensemble_hooks ising_ensemble_hooks = {
    .independent = true,
    .energies = ising_energies,
    .set_betas = ising_set_betas,
    .set_beta_all = ising_set_beta_all,
    .density_walkers = ising_density_walkers,
    .member_observables = ising_member_observables,
    .members_buffer = ising_members_buffer,
    .swap_members = ising_swap_members,
    .gather_in_sweeps = ising_gather_in_sweeps,
    .fold_energy_range = ising_fold_energy_range,
    .member_size = ising_member_size,
    .fresh_start = ising_fresh_start,
};

const clmc_model_ops clmc_model_ising = {
    .type = "ising",
    .model_fields = clmc_ising_model_fields,
    .algorithm_fields = clmc_ising_algorithm_fields,
    .validate = ising_validate,
    .create = ising_create,
    .destroy = ising_destroy,
    .sweep = ising_sweep,
    .sweeps = ising_sweeps,
    .describe_update = ising_describe_update,
    .measure = ising_measure,
    .collect = ising_collect,
    .estimate = ising_estimate,
    .ensemble = &ising_ensemble_hooks,
    .checks = ising_checks,
    .save_state = ising_save_state,
    .load_state = ising_load_state,
    .device_bytes = ising_device_bytes,
    .tunables = ising_tunables,
    .picture = ising_picture,
    .domain = ising_domain,
    .snapshot = ising_snapshot,
};
