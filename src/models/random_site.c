/* Random-site dynamics shared by Ising and Potts: keys, kernels and launches
 * (cl/common/random_site.h; docs/models/ising.md, "Random-site dynamics"). */
#include "models/random_site.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/lattice.h"
#include "runtime/defines.h"
#include "runtime/fault.h"

#define COPIES_WG_MAX 64
#define PACKED_WG 32 /* copies per word of the packed copies kernel */
#define CHUNK_MAX 64 /* attempts per tile planned at once by the local-memory kernels */
#define WORKERS_MAX 32 /* algorithm.tile_workers */
#define WAVE_WG_MAX 128 /* items per work-group of the wave kernels (RS_WORKERS > 1) */
#define BUCKETS_MAX 512 /* occupancy masks per tile of the wave kernels */
#define PRIVATE_WORDS_MAX 36 /* uints of a tile's bits in private memory (3D double_tiling tile 16: 34) */
#define AUTO_GLOBAL_SITES (1ULL << 32) /* copies_memory "auto": global from this many sites of all copies */
#define PRIVATE_AUTO_EDGE 6 /* tile_memory "auto" takes private memory for double_tiling boxes up to this edge */

const char *const clmc_random_site_variants[] = {"none", "sequential_reference", "copies", "double_tiling",
                                                 "dead_border", NULL};
const char *const clmc_site_sequences[] = {"auto", "per_copy", "shared", NULL};
const char *const clmc_rsite_memories[] = {"auto", "local", "global", NULL};
const char *const clmc_tile_memories[] = {"auto", "local", "global", "private", NULL};

struct clmc_rsite {
    clmc_runtime *rt;
    clmc_rsite_model model;
    int dim, edge;
    bool copies, heatbath, dirty;
    bool packed;         /* copies in local memory, 32 sites per word (RS_LOCAL) */
    bool dead_border, local; /* local: the tiled variants' local-memory kernels */
    bool registers;      /* the tiled variants' private-memory kernels (RS_PRIVATE) */
    int workers;         /* local: items per tile (1: serial chain; more: waves) */
    int tile, substeps;  /* tile: double_tiling's or dead_border's tile edge, else 0 */
    long long shift_every; /* dead_border: sweeps between origin shifts */
    cl_uint n_sites, n_configs, seed_lo, seed_hi;
    size_t wg, group_tiles, tiles, chunk; /* group_tiles, chunk: per work-group of wg items (local kernels) */
    size_t buckets;      /* occupancy masks per tile (waves) */
    cl_mem spins, by_site, thresholds; /* spins: the driver's; by_site (copies only): copy-minor bytes or packed words */
    cl_uint *thresholds_host;
    cl_program program;
    cl_kernel update, to_copies, from_copies;
};

bool clmc_rsite_wanted(const clmc_preset *p)
{
    return strcmp(clmc_preset_string(p, "algorithm.layout"), "random_site") == 0;
}

unsigned long long clmc_rsite_attempts(const clmc_preset *p)
{
    unsigned long long sites = clmc_lattice_sites((int)clmc_preset_int(p, "model.dim"), (int)clmc_preset_int(p, "model.L"));
    return sites / (unsigned long long)clmc_preset_int(p, "algorithm.substeps");
}

/* Problems with a double_tiling or dead_border tile edge, or NULL. */
static const char *tile_problem(int edge, int tile, bool dead_border)
{
    if (dead_border && tile < 4) return "is too small for a dead border (at least 4: a one-site border around the interior)";
    if (!dead_border && (tile < 4 || tile % 4 != 0)) return "must be a multiple of 4 (sub-tiles of an even edge)";
    if (edge % tile != 0) return "must divide model.L";
    if (edge / tile < 2) return "must be at most model.L / 2";
    return NULL;
}

/* Default tile: the first of 16, 8, 4 that fits L. */
static int default_tile(int edge, bool dead_border)
{
    const int candidates[] = {16, 8, 4};
    for (int i = 0; i < 3; i++)
        if (!tile_problem(edge, candidates[i], dead_border)) return candidates[i];
    return 0;
}

static clmc_status validate_tiles(const clmc_preset *p, int edge, int tile, long long substeps, bool dead_border)
{
    int dim = (int)clmc_preset_int(p, "model.dim"), phases = dim == 3 ? 8 : 4;
    if (!dead_border && (substeps > phases || phases % substeps != 0))
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.substeps: double_tiling in %dD takes a divisor of its %d phases "
                         "per sweep, got %lld", dim, phases, substeps);
    if (!tile && !default_tile(edge, dead_border))
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.tile: none of 16, 8, 4 fits model.L = %d (%s)", edge,
                         dead_border ? "dead_border needs at least 4 dividing L, at most L / 2"
                                     : "double_tiling needs a multiple of 4 dividing L, at most L / 2");
    const char *problem = tile ? tile_problem(edge, tile, dead_border) : NULL;
    if (problem) return clmc_fail(CLMC_ERR_INPUT, "algorithm.tile: %d %s (model.L = %d)", tile, problem, edge);
    long long used = tile ? tile : default_tile(edge, dead_border), tile_sites = used * used * (dim == 3 ? used : 1);
    if (dead_border && tile_sites % substeps != 0)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.substeps: %lld must divide the tile's %lld sites (dead_border)",
                         substeps, tile_sites);
    return CLMC_OK;
}

/* Outside layout random_site its keys keep their defaults. */
static clmc_status validate_unused(const clmc_preset *p, bool tiles)
{
    if (strcmp(clmc_preset_string(p, "algorithm.type"), "heatbath") == 0)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.type: \"heatbath\" needs algorithm.layout \"random_site\", got \"%s\"",
                         clmc_preset_string(p, "algorithm.layout"));
    if (strcmp(clmc_preset_string(p, "algorithm.random_site"), "none") != 0)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.random_site: is for algorithm.layout \"random_site\" only, got \"%s\"",
                         clmc_preset_string(p, "algorithm.layout"));
    if (strcmp(clmc_preset_string(p, "algorithm.site_sequence"), "auto") != 0)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.site_sequence: is for algorithm.layout \"random_site\" only");
    long long substeps = clmc_preset_int(p, "algorithm.substeps");
    if (substeps != 1)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.substeps: %lld needs algorithm.layout \"random_site\" (give 1)",
                         substeps);
    if (tiles && clmc_preset_int(p, "algorithm.shift_every") != 1)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.shift_every: is for random_site \"dead_border\" only (give 1)");
    if (strcmp(clmc_preset_string(p, "algorithm.copies_memory"), "auto") != 0)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.copies_memory: is for random_site \"copies\" only (give \"auto\")");
    if (strcmp(clmc_preset_string(p, "algorithm.tile_memory"), "auto") != 0)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.tile_memory: is for random_site \"double_tiling\" and "
                         "\"dead_border\" only (give \"auto\")");
    if (clmc_preset_int(p, "algorithm.tile_workers") != 0)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.tile_workers: is for random_site \"double_tiling\" and "
                         "\"dead_border\" only (give 0)");
    return CLMC_OK;
}

/* algorithm.tile_workers of a tiled variant: 0 (auto), 1 or a power of two
 * up to WORKERS_MAX; above 1 only with tiles in local memory. */
static clmc_status validate_workers(const clmc_preset *p)
{
    long long workers = clmc_preset_int(p, "algorithm.tile_workers");
    if (workers & (workers - 1))
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.tile_workers: %lld is not 0 (auto), 1 (serial) or a power of two "
                         "up to %d", workers, WORKERS_MAX);
    const char *memory = clmc_preset_string(p, "algorithm.tile_memory");
    if (workers > 1 && (strcmp(memory, "global") == 0 || strcmp(memory, "private") == 0))
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.tile_workers: %lld workers per tile run in local memory; "
                         "algorithm.tile_memory \"%s\" takes 0 or 1", workers, memory);
    return CLMC_OK;
}

clmc_status clmc_rsite_validate(const clmc_preset *p, bool tiles, bool packed)
{
    if (!clmc_rsite_wanted(p)) return validate_unused(p, tiles);
    const char *variant = clmc_preset_string(p, "algorithm.random_site");
    const char *sequence = clmc_preset_string(p, "algorithm.site_sequence");
    long long substeps = clmc_preset_int(p, "algorithm.substeps");
    if (strcmp(variant, "none") == 0)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.random_site: layout \"random_site\" needs \"sequential_reference\", "
                         "\"copies\"%s", tiles ? ", \"double_tiling\" or \"dead_border\"" : " (model.type \"potts\")");
    bool dead_border = strcmp(variant, "dead_border") == 0, double_tiling = strcmp(variant, "double_tiling") == 0;
    if (!tiles && (dead_border || double_tiling))
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.random_site: \"%s\" is offered for model.type \"ising\" only; "
                         "give \"sequential_reference\" or \"copies\"", variant);
    if (strcmp(variant, "copies") == 0 && strcmp(sequence, "per_copy") == 0)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.site_sequence: \"per_copy\" contradicts algorithm.random_site "
                         "\"copies\" (one site sequence shared by all copies)");
    const char *memory = clmc_preset_string(p, "algorithm.copies_memory");
    if (strcmp(variant, "copies") != 0 && strcmp(memory, "auto") != 0)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.copies_memory: is for random_site \"copies\" only (give \"auto\")");
    if (!packed && strcmp(memory, "local") == 0)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.copies_memory: \"local\" packs one bit per spin, which cannot "
                         "hold model.q states; give \"auto\" or \"global\" (model.type \"potts\")");
    if (!(dead_border || double_tiling) && strcmp(clmc_preset_string(p, "algorithm.tile_memory"), "auto") != 0)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.tile_memory: is for random_site \"double_tiling\" and "
                         "\"dead_border\" only (give \"auto\")");
    if (!(dead_border || double_tiling) && clmc_preset_int(p, "algorithm.tile_workers") != 0)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.tile_workers: is for random_site \"double_tiling\" and "
                         "\"dead_border\" only (give 0)");
    if (dead_border || double_tiling) CLMC_TRY(validate_workers(p));
    if (!packed && strcmp(clmc_preset_string(p, "algorithm.tile_memory"), "private") == 0)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.tile_memory: \"private\" holds one bit per spin, which cannot "
                         "hold this model's states; give \"auto\", \"local\" or \"global\"");
    int edge = (int)clmc_preset_int(p, "model.L");
    if (tiles) {
        int tile = (int)clmc_preset_int(p, "algorithm.tile");
        if (!dead_border && clmc_preset_int(p, "algorithm.shift_every") != 1)
            return clmc_fail(CLMC_ERR_INPUT, "algorithm.shift_every: is for random_site \"dead_border\" only (give 1)");
        if (dead_border || double_tiling) return validate_tiles(p, edge, tile, substeps, dead_border);
        if (tile != 0)
            return clmc_fail(CLMC_ERR_INPUT, "algorithm.tile: %d is for layout \"tiled\" and random_site \"double_tiling\" "
                             "only (give 0)", tile);
    }
    unsigned long long sites = clmc_lattice_sites((int)clmc_preset_int(p, "model.dim"), edge);
    if (sites % (unsigned long long)substeps != 0)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.substeps: %lld must divide the %llu sites", substeps, sites);
    if (strcmp(variant, "copies") == 0 && clmc_preset_is_population(p))
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.random_site: \"copies\" holds the spins apart from the buffer "
                         "population annealing resamples; give \"sequential_reference\"");
    return CLMC_OK;
}

/* Words of one copy in the packed copies kernel: 32 sites each. */
static size_t packed_words(cl_uint n_sites)
{
    return ((size_t)n_sites + 31) / 32;
}

/* Local memory of the packed copies kernel: 32 copies' words and the picks. */
static unsigned long long packed_local_bytes(cl_uint n_sites)
{
    return 4ULL * PACKED_WG * packed_words(n_sites) + 4ULL * 4 * PACKED_WG;
}

/* algorithm.copies_memory: packed copies in local memory ("local", or "auto"
 * on a GPU where they fit and the copies hold fewer than AUTO_GLOBAL_SITES
 * sites in all), else bytes in global memory: with the device filled
 * further, the global kernel is faster (H100, L = 64: 2^18 copies 6.46 ps
 * local against 6.61 global, 2^20 5.99 against 5.37).  CPU devices (PoCL)
 * emulate local memory in ordinary memory, where the packed kernel is no
 * faster (docs/models/ising.md).  Models without packed spins (Potts: one bit
 * cannot hold q states; clmc_rsite_validate refuses "local") take global. */
static clmc_status choose_memory(clmc_rsite *rs, const clmc_preset *p)
{
    if (!rs->model.packed) return CLMC_OK;
    const clmc_device_info *d = clmc_runtime_device(rs->rt);
    const char *memory = clmc_preset_string(p, "algorithm.copies_memory");
    bool fits = d->max_work_group_size >= PACKED_WG && packed_local_bytes(rs->n_sites) <= d->local_mem_bytes;
    if (strcmp(memory, "local") == 0 && !fits)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.copies_memory: \"local\" needs %llu bytes of local memory (32 "
                         "copies, one bit a spin) and work-groups of %d; %s has %llu bytes and %zu work-items (give \"auto\" "
                         "or \"global\")", packed_local_bytes(rs->n_sites), PACKED_WG, d->name,
                         (unsigned long long)d->local_mem_bytes, d->max_work_group_size);
    bool gpu = strcmp(d->type, "GPU") == 0;
    bool filled = (uint64_t)rs->n_configs * rs->n_sites >= AUTO_GLOBAL_SITES;
    rs->packed = rs->copies && fits && (strcmp(memory, "local") == 0 || (strcmp(memory, "auto") == 0 && gpu && !filled));
    return CLMC_OK;
}

/* Attempts per tile and launch of the tiled variants. */
static size_t tile_attempts(const clmc_rsite *rs)
{
    size_t tile = (size_t)rs->tile, sites = tile * tile * (rs->dim == 3 ? tile : 1);
    return rs->dead_border ? sites / (size_t)rs->substeps : sites >> rs->dim;
}

/* Sites of a tile's box in local memory: dead_border the whole tile,
 * double_tiling the active sub-tile and its one-site halo. */
static size_t box_sites(const clmc_rsite *rs)
{
    size_t edge = rs->dead_border ? (size_t)rs->tile : (size_t)rs->tile / 2 + 2;
    return edge * edge * (rs->dim == 3 ? edge : 1);
}

/* Local bytes of one tile of the local-memory kernels: its box, a chunk of
 * plan words and, for waves, a word of padding, the occupancy masks (two
 * words per bucket) and the done masks (four words). */
static size_t tile_local_bytes(const clmc_rsite *rs)
{
    size_t bytes = box_sites(rs) + sizeof(cl_uint) * rs->chunk;
    return rs->workers > 1 ? bytes + sizeof(cl_uint) * (1 + 2 * rs->buckets + 4) : bytes;
}

/* algorithm.tile_workers "auto" (0): the serial chain (1), except 16 workers for
 * 3D double_tiling sub-tiles of at least 8^3 sites.  Measured on an H100
 * (benchmarks/results/2026-11-26-nvidia-h100-startup-wang-landau-windows.txt):
 * a round's barrier costs more than a wave saves in 2D (L = 4096, tiles 8-32:
 * waves 17.8-44.6 ps per attempt against 7.7-28.8 serial) and for 3D dead_border
 * (tile 16: 39.0 against 30.3), while a 3D double_tiling tile 16 runs 36.1
 * against 80.1; on CPU devices (PoCL) waves are slower still. */
static int auto_workers(const clmc_rsite *rs, const clmc_device_info *d)
{
    if (strcmp(d->type, "GPU") != 0 || rs->dead_border || rs->dim != 3) return 1;
    size_t edge = (size_t)rs->tile / 2;
    int workers = edge * edge * edge >= 512 ? 16 : 1;
    while ((size_t)workers > d->max_work_group_size) workers /= 2;
    return workers;
}

/* The work-group of the local-memory kernels for rs->workers items per tile:
 * serial (1 item per tile), serial_wg (up to 64) items holding group_tiles
 * <= serial_wg tiles; waves, up to WAVE_WG_MAX items, group_tiles = wg /
 * workers; group_tiles the largest such power of two whose tiles fit the
 * device's local memory, halved while half of it still holds every tile.
 * Returns the bytes one tile needs (waves: with the group's three flag
 * words). */
static size_t group_layout(clmc_rsite *rs, const clmc_device_info *d, size_t serial_wg)
{
    size_t limit = d->max_work_group_size < WAVE_WG_MAX ? d->max_work_group_size : WAVE_WG_MAX;
    rs->wg = rs->workers > 1 ? clmc_power_of_two_at_most(limit) : serial_wg;
    size_t bytes = tile_local_bytes(rs) + (rs->workers > 1 ? 3 * sizeof(cl_uint) : 0);
    rs->group_tiles = rs->workers > 1 ? rs->wg / (size_t)rs->workers : rs->wg;
    while (rs->group_tiles > 1 && rs->group_tiles * bytes > d->local_mem_bytes) rs->group_tiles /= 2;
    while (rs->group_tiles > 1 && rs->group_tiles / 2 >= rs->tiles) rs->group_tiles /= 2;
    if (rs->workers > 1) rs->wg = rs->group_tiles * (size_t)rs->workers;
    return bytes;
}

/* Uints of a tile's box as bits in private memory (RS_PRIVATE): rows of
 * box-edge bits, 32 / edge rows a word; 0 where a row would exceed a word. */
static size_t private_words(const clmc_rsite *rs)
{
    size_t edge = rs->dead_border ? (size_t)rs->tile : (size_t)rs->tile / 2 + 2;
    if (edge > 32) return 0;
    size_t rows = rs->dim == 3 ? edge * edge : edge, per_word = 32 / edge;
    return (rows + per_word - 1) / per_word;
}

/* algorithm.tile_memory "private", or "auto" on a GPU with tile_workers 0 or
 * 1 for double_tiling boxes of edge at most PRIVATE_AUTO_EDGE (tile 8, 2D and
 * 3D: the only cases where an H100 measured private faster than local and
 * global, docs/models/ising.md "Tiles in registers"): one work-item per
 * tile holding it in registers (*chosen); "private" exits 2 where the model
 * has no bits (Potts, refused by clmc_rsite_validate) or the box takes more
 * than PRIVATE_WORDS_MAX.  Records tile_workers 1. */
static clmc_status choose_private(clmc_rsite *rs, clmc_preset *p, bool *chosen)
{
    const clmc_device_info *d = clmc_runtime_device(rs->rt);
    const char *wanted = clmc_preset_string(p, "algorithm.tile_memory");
    size_t words = private_words(rs);
    bool fits = rs->model.packed && words > 0 && words <= PRIVATE_WORDS_MAX;
    if (strcmp(wanted, "private") == 0 && !fits)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.tile_memory: \"private\" holds a tile's box (algorithm.tile %d, "
                         "%dD %s) as rows of at most 32 bits in at most %d uints; it takes %s (give \"auto\", \"local\" "
                         "or \"global\")", rs->tile, rs->dim, rs->dead_border ? "dead_border" : "double_tiling",
                         PRIVATE_WORDS_MAX, words ? "more" : "rows of more than 32 bits");
    bool gpu = strcmp(d->type, "GPU") == 0;
    *chosen = strcmp(wanted, "private") == 0 ||
              (strcmp(wanted, "auto") == 0 && gpu && fits && !rs->dead_border && rs->tile / 2 + 2 <= PRIVATE_AUTO_EDGE &&
               clmc_preset_int(p, "algorithm.tile_workers") <= 1);
    if (*chosen) clmc_preset_set_int(p, "algorithm.tile_workers", 1);
    rs->registers = *chosen;
    return CLMC_OK;
}

/* algorithm.tile_memory and tile_workers: plan chunks of 64 attempts (fewer
 * where a tile makes fewer, rounded up to 4); auto workers fall back to the
 * serial kernel where a tile with the waves' masks does not fit, "auto"
 * memory to the global-memory kernels (serial) where not even that fits.
 * Records the workers used in algorithm.tile_workers. */
static clmc_status choose_tile_memory(clmc_rsite *rs, clmc_preset *p)
{
    const clmc_device_info *d = clmc_runtime_device(rs->rt);
    const char *wanted = clmc_preset_string(p, "algorithm.tile_memory");
    size_t attempts = (tile_attempts(rs) + 3) / 4 * 4, serial_wg = rs->wg;
    rs->chunk = attempts < CHUNK_MAX ? attempts : CHUNK_MAX;
    rs->buckets = box_sites(rs) < BUCKETS_MAX ? box_sites(rs) : BUCKETS_MAX;
    rs->tiles = (size_t)clmc_lattice_sites(rs->dim, rs->edge / rs->tile);
    bool registers = false;
    CLMC_TRY(choose_private(rs, p, &registers));
    if (registers) {
        rs->workers = 1;
        return CLMC_OK;
    }
    int asked = (int)clmc_preset_int(p, "algorithm.tile_workers");
    rs->workers = asked ? asked : auto_workers(rs, d);
    if ((size_t)rs->workers > d->max_work_group_size)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.tile_workers: %d exceeds the %zu work-items of a work-group of %s",
                         rs->workers, d->max_work_group_size, d->name);
    size_t bytes = group_layout(rs, d, serial_wg);
    if (!asked && rs->workers > 1 && bytes > d->local_mem_bytes) {
        rs->workers = 1;
        bytes = group_layout(rs, d, serial_wg);
    }
    bool fits = bytes <= d->local_mem_bytes;
    if (strcmp(wanted, "local") == 0 && !fits)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.tile_memory: \"local\" needs %zu bytes of local memory per tile "
                         "(algorithm.tile %d, tile_workers %d), %s has %llu", bytes, rs->tile, rs->workers, d->name,
                         (unsigned long long)d->local_mem_bytes);
    rs->local = fits && strcmp(wanted, "global") != 0;
    if (!rs->local && asked > 1)
        return clmc_fail(CLMC_ERR_INPUT, "algorithm.tile_workers: %d workers per tile need the tiles in local memory, "
                         "which %s cannot hold (%zu bytes per tile); give 0 or 1", asked, d->name, bytes);
    if (!rs->local) {
        rs->workers = 1;
        rs->wg = serial_wg;
    }
    clmc_preset_set_int(p, "algorithm.tile_workers", rs->workers);
    return CLMC_OK;
}

static clmc_status build(clmc_rsite *rs, clmc_preset *p)
{
    const clmc_device_info *d = clmc_runtime_device(rs->rt);
    size_t limit = d->max_work_group_size < COPIES_WG_MAX ? d->max_work_group_size : COPIES_WG_MAX;
    rs->wg = clmc_power_of_two_at_most(limit);
    if (rs->tile) CLMC_TRY(choose_tile_memory(rs, p));
    else
        while (rs->wg > 1 && rs->wg / 2 >= rs->n_configs) rs->wg /= 2;
    if (rs->copies) CLMC_TRY(choose_memory(rs, p));
    if (rs->packed) rs->wg = PACKED_WG;
    const char *sequence = clmc_preset_string(p, "algorithm.site_sequence");
    bool shared = rs->copies || strcmp(sequence, "shared") == 0;
    clmc_defines options = {0};
    clmc_defines_text(&options, "-cl-std=CL1.2");
    clmc_defines_int(&options, "DIM", rs->dim);
    clmc_defines_int(&options, "EDGE", clmc_preset_int(p, "model.L"));
    clmc_defines_int(&options, "CONFIGS", rs->n_configs);
    clmc_defines_int(&options, "ATTEMPTS", (long long)clmc_rsite_attempts(p));
    clmc_defines_int(&options, "SHARED_SITES", shared);
    clmc_defines_int(&options, "HEATBATH", rs->heatbath);
    clmc_defines_int(&options, "RS_WG", (long long)rs->wg);
    clmc_defines_int(&options, "RS_LOCAL", rs->packed);
    if (rs->tile) clmc_defines_int(&options, "RS_TILE", rs->tile);
    long long tile_sites = (long long)rs->tile * rs->tile * (rs->dim == 3 ? rs->tile : 1);
    if (rs->dead_border) clmc_defines_int(&options, "TILE_ATTEMPTS", tile_sites / rs->substeps);
    if (rs->registers) clmc_defines_int(&options, "RS_PRIVATE", 1);
    if (rs->local) {
        clmc_defines_int(&options, "RS_LWG", (long long)rs->wg);
        clmc_defines_int(&options, "RS_GROUP_TILES", (long long)rs->group_tiles);
        clmc_defines_int(&options, "RS_CHUNK", (long long)rs->chunk);
        clmc_defines_int(&options, "RS_WORKERS", rs->workers);
        if (rs->workers > 1) clmc_defines_int(&options, "RS_BUCKETS", (long long)rs->buckets);
        bool fault = false; /* test only: waves that ignore conflicts (CLMC_FAULT_RSITE_NO_CONFLICTS=1) */
        CLMC_TRY(clmc_fault_switch("CLMC_FAULT_RSITE_NO_CONFLICTS", &fault));
        if (rs->workers > 1 && fault) clmc_defines_int(&options, "RS_FAULT_NO_CONFLICTS", 1);
    }
    if (rs->model.q) clmc_defines_int(&options, "Q", rs->model.q);
    CLMC_TRY(clmc_defines_build(rs->rt, rs->model.program, &options, &rs->program));
    const char *memory = rs->registers ? "_private" : rs->local ? "_local" : "";
    char kernel[64];
    snprintf(kernel, sizeof kernel, "%s%s",
             rs->dead_border ? "rsite_dead_border" : rs->tile ? "rsite_double_tiling"
                           : rs->copies ? "rsite_copies" : "rsite_sequential",
             rs->tile ? memory : "");
    CLMC_TRY(clmc_kernel_create(rs->program, kernel, &rs->update));
    /* ensemble.first_system: the update's last argument (one program for every value). */
    CLMC_TRY(clmc_kernel_set_first_system(rs->update, clmc_preset_systems(p)->first_system));
    CLMC_TRY(clmc_kernel_create(rs->program, "rsite_to_copies", &rs->to_copies));
    return clmc_kernel_create(rs->program, "rsite_from_copies", &rs->from_copies);
}

/* Blocks of PACKED_WG copies. */
static size_t packed_blocks(const clmc_rsite *rs)
{
    return (rs->n_configs + PACKED_WG - 1) / PACKED_WG;
}

/* Config-major spins <-> the copies kernel's storage (rsite_to_copies runs
 * per packed word and configuration of whole blocks when packed). */
static clmc_status transpose(clmc_rsite *rs, cl_kernel kernel, cl_mem from, cl_mem to)
{
    CLMC_CL_TRY(clSetKernelArg(kernel, 0, sizeof(cl_mem), &from));
    CLMC_CL_TRY(clSetKernelArg(kernel, 1, sizeof(cl_mem), &to));
    bool to_packed = rs->packed && kernel == rs->to_copies;
    size_t global[2] = {to_packed ? packed_words(rs->n_sites) : rs->n_sites,
                        to_packed ? packed_blocks(rs) * PACKED_WG : rs->n_configs};
    return clmc_enqueue(rs->rt, kernel, 2, global, NULL, CLMC_UNTIMED);
}

clmc_status clmc_rsite_create(clmc_runtime *rt, clmc_preset *p, const clmc_rsite_model *model, cl_mem spins,
                              cl_uint n_configs, clmc_rsite **out)
{
    clmc_rsite *rs = calloc(1, sizeof *rs);
    if (!rs) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    *out = rs;
    rs->rt = rt;
    rs->model = *model;
    rs->dim = (int)clmc_preset_int(p, "model.dim");
    rs->edge = (int)clmc_preset_int(p, "model.L");
    rs->n_sites = (cl_uint)clmc_lattice_sites(rs->dim, (int)clmc_preset_int(p, "model.L"));
    rs->n_configs = n_configs;
    rs->copies = strcmp(clmc_preset_string(p, "algorithm.random_site"), "copies") == 0;
    rs->heatbath = strcmp(clmc_preset_string(p, "algorithm.type"), "heatbath") == 0;
    rs->spins = spins;
    rs->substeps = (int)clmc_preset_int(p, "algorithm.substeps");
    rs->dead_border = strcmp(clmc_preset_string(p, "algorithm.random_site"), "dead_border") == 0;
    rs->shift_every = model->tiles ? clmc_preset_int(p, "algorithm.shift_every") : 1;
    if (rs->dead_border || strcmp(clmc_preset_string(p, "algorithm.random_site"), "double_tiling") == 0) {
        rs->tile = (int)clmc_preset_int(p, "algorithm.tile");
        if (!rs->tile) {
            rs->tile = default_tile((int)clmc_preset_int(p, "model.L"), rs->dead_border);
            clmc_preset_set_int(p, "algorithm.tile", rs->tile);
        }
    }
    unsigned long long seed = (unsigned long long)clmc_preset_run(p)->seed;
    rs->seed_lo = (cl_uint)(seed & 0xffffffffu);
    rs->seed_hi = (cl_uint)(seed >> 32);
    CLMC_TRY(build(rs, p));
    size_t threshold_bytes = rs->model.table_stride * sizeof(cl_uint) * n_configs;
    CLMC_TRY(clmc_buffer_create(rt, threshold_bytes, NULL, "random-site thresholds", &rs->thresholds));
    rs->thresholds_host = calloc(rs->model.table_stride * (size_t)n_configs, sizeof(cl_uint));
    if (!rs->thresholds_host) return clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    cl_mem target = spins;
    if (rs->copies) {
        size_t bytes = rs->packed ? packed_blocks(rs) * PACKED_WG * packed_words(rs->n_sites) * sizeof(cl_uint)
                                  : (size_t)rs->n_sites * n_configs;
        CLMC_TRY(clmc_buffer_create(rt, bytes, NULL, "random-site copies", &rs->by_site));
        CLMC_TRY(transpose(rs, rs->to_copies, spins, rs->by_site));
        target = rs->by_site;
    }
    CLMC_CL_TRY(clSetKernelArg(rs->update, 0, sizeof(cl_mem), &target));
    CLMC_CL_TRY(clSetKernelArg(rs->update, 1, sizeof(cl_uint), &rs->seed_lo));
    CLMC_CL_TRY(clSetKernelArg(rs->update, 2, sizeof(cl_uint), &rs->seed_hi));
    CLMC_CL_TRY(clSetKernelArg(rs->update, 5, sizeof(cl_mem), &rs->thresholds));
    return CLMC_OK;
}

void clmc_rsite_destroy(clmc_rsite *rs)
{
    if (!rs) return;
    if (rs->update) CLMC_CL_WARN(clReleaseKernel(rs->update));
    if (rs->to_copies) CLMC_CL_WARN(clReleaseKernel(rs->to_copies));
    if (rs->from_copies) CLMC_CL_WARN(clReleaseKernel(rs->from_copies));
    if (rs->program) CLMC_CL_WARN(clReleaseProgram(rs->program));
    if (rs->by_site) CLMC_CL_WARN(clReleaseMemObject(rs->by_site));
    if (rs->thresholds) CLMC_CL_WARN(clReleaseMemObject(rs->thresholds));
    if (rs->rt) CLMC_CL_WARN(clFinish(clmc_runtime_queue(rs->rt))); /* pending writes read thresholds_host */
    free(rs->thresholds_host);
    free(rs);
}

/* One launch of a tiled variant: a work-item per tile (global and private
 * memory) or work-groups of wg items per group_tiles tiles (local memory). */
static clmc_status tiled_launch(clmc_rsite *rs)
{
    if (!rs->local) {
        size_t global[2] = {rs->tiles, rs->n_configs};
        return clmc_enqueue(rs->rt, rs->update, 2, global, NULL, CLMC_TIMED);
    }
    size_t global[2] = {(rs->tiles + rs->group_tiles - 1) / rs->group_tiles * rs->wg, rs->n_configs}, local[2] = {rs->wg, 1};
    return clmc_enqueue(rs->rt, rs->update, 2, global, local, CLMC_TIMED);
}

/* double_tiling: step s of substeps k runs phases (s mod k) P/k .. of sweep
 * s / k (P = 2^dim phases per sweep). */
static clmc_status double_tiling_step(clmc_rsite *rs, uint64_t step)
{
    uint64_t sweep = step / (uint64_t)rs->substeps;
    cl_uint lo = (cl_uint)(sweep & 0xffffffffu), hi = (cl_uint)(sweep >> 32);
    cl_uint phases = (rs->dim == 3 ? 8u : 4u) / (cl_uint)rs->substeps;
    CLMC_CL_TRY(clSetKernelArg(rs->update, 3, sizeof(cl_uint), &lo));
    CLMC_CL_TRY(clSetKernelArg(rs->update, 4, sizeof(cl_uint), &hi));
    for (cl_uint k = 0; k < phases; k++) {
        cl_uint phase = (cl_uint)(step % (uint64_t)rs->substeps) * phases + k;
        CLMC_CL_TRY(clSetKernelArg(rs->update, 6, sizeof(cl_uint), &phase));
        CLMC_TRY(tiled_launch(rs));
    }
    return CLMC_OK;
}

/* dead_border: one launch per step; the origin of segment (step / substeps) / shift_every. */
static clmc_status dead_border_step(clmc_rsite *rs, uint64_t step)
{
    uint64_t segment = step / (uint64_t)rs->substeps / (uint64_t)rs->shift_every;
    cl_uint args[4] = {(cl_uint)(step & 0xffffffffu), (cl_uint)(step >> 32), (cl_uint)(segment & 0xffffffffu),
                       (cl_uint)(segment >> 32)};
    CLMC_CL_TRY(clSetKernelArg(rs->update, 3, sizeof(cl_uint), &args[0]));
    CLMC_CL_TRY(clSetKernelArg(rs->update, 4, sizeof(cl_uint), &args[1]));
    CLMC_CL_TRY(clSetKernelArg(rs->update, 6, sizeof(cl_uint), &args[2]));
    CLMC_CL_TRY(clSetKernelArg(rs->update, 7, sizeof(cl_uint), &args[3]));
    return tiled_launch(rs);
}

clmc_status clmc_rsite_step(clmc_rsite *rs, uint64_t step)
{
    if (rs->dead_border) return dead_border_step(rs, step);
    if (rs->tile) return double_tiling_step(rs, step);
    cl_uint lo = (cl_uint)(step & 0xffffffffu), hi = (cl_uint)(step >> 32);
    CLMC_CL_TRY(clSetKernelArg(rs->update, 3, sizeof(cl_uint), &lo));
    CLMC_CL_TRY(clSetKernelArg(rs->update, 4, sizeof(cl_uint), &hi));
    size_t local = rs->wg, global = (rs->n_configs + local - 1) / local * local;
    rs->dirty = rs->copies;
    return clmc_enqueue(rs->rt, rs->update, 1, &global, rs->copies ? &local : NULL, CLMC_TIMED);
}

clmc_status clmc_rsite_set_betas(clmc_rsite *rs, const double *betas)
{
    for (cl_uint c = 0; c < rs->n_configs; c++)
        rs->model.table(betas[c], rs->dim, rs->model.q, rs->heatbath, rs->thresholds_host + rs->model.table_stride * c);
    CLMC_CL_TRY(clEnqueueWriteBuffer(clmc_runtime_queue(rs->rt), rs->thresholds, CL_FALSE, 0,
                                     rs->model.table_stride * sizeof(cl_uint) * rs->n_configs, rs->thresholds_host, 0,
                                     NULL, NULL));
    return CLMC_OK;
}

clmc_status clmc_rsite_set_beta_all(clmc_rsite *rs, double beta)
{
    size_t row = rs->model.table_stride * sizeof(cl_uint);
    rs->model.table(beta, rs->dim, rs->model.q, rs->heatbath, rs->thresholds_host);
    return clmc_write_repeated(rs->rt, rs->thresholds, rs->thresholds_host, row, rs->n_configs);
}

clmc_status clmc_rsite_sync(clmc_rsite *rs)
{
    if (!rs->dirty) return CLMC_OK;
    rs->dirty = false;
    return transpose(rs, rs->from_copies, rs->by_site, rs->spins);
}

clmc_status clmc_rsite_reload(clmc_rsite *rs)
{
    rs->dirty = false;
    return rs->copies ? transpose(rs, rs->to_copies, rs->spins, rs->by_site) : CLMC_OK;
}
