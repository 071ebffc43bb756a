/* The compressed start of hard disks (model.start: "compress"): random
 * sequential addition at a low packing fraction, then the box shrinks in
 * steps of 2% in length down to the target; after each step the overlaps it
 * made are pushed apart pair by pair until none is left (the relaxation of
 * force-biased packing generators, which converges well below jamming),
 * followed by two Metropolis sweeps.  On the host, once per system (one core):
 * about 0.13 s for N = 4096 at phi = 0.708, 0.7 s at phi = 0.8, 2.3 s for
 * N = 65536 at phi = 0.708. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/philox.h"
#include "models/hard_disks/hard_disks.h"

#define START_PHI 0.3        /* random sequential addition packs up to ~0.547 */
#define STEP 0.02            /* box length shrinks by this fraction per step */
#define CONTACT (1.0 + 1e-5) /* pairs kept this far apart: float cell coordinates stay >= 1 */
#define PUSH_SLACK 0.02      /* pushed pairs end this much beyond CONTACT: far fewer passes */
#define MC_STEP 0.1          /* Metropolis displacement bound; grid cells are CONTACT + 2 MC_STEP */
#define MC_SWEEPS 2          /* Metropolis sweeps after each compression step */
#define MAX_PASSES 20000     /* overlap-removal passes per step before giving up */
#define MAX_TRIES 100000     /* insertion attempts per disk */

typedef struct {
    uint32_t n;
    double box, *xy;
    uint32_t grid;         /* grid cells per side, each at least CONTACT + 2 MC_STEP wide */
    int32_t *head, *next;  /* linked lists of the disks in each grid cell */
    unsigned char *dirty;  /* remove_overlaps: the disks to check in the current or next pass */
    clmc_philox_key key;
    uint32_t stream; /* CLMC_STREAM(CLMC_PURPOSE_INIT, system) */
} packing;

static double wrap_into(double x, double box)
{
    x = fmod(x, box);
    return x < 0 ? x + box : (x >= box ? 0.0 : x);
}

static double minimum_image(double d, double box)
{
    return d - box * floor(d / box + 0.5);
}

static uint32_t grid_of(const packing *p, double x)
{
    uint32_t k = (uint32_t)(x / p->box * p->grid);
    return k < p->grid ? k : p->grid - 1;
}

static void grid_insert(packing *p, uint32_t i)
{
    uint32_t c = grid_of(p, p->xy[2 * i + 1]) * p->grid + grid_of(p, p->xy[2 * i]);
    p->next[i] = p->head[c];
    p->head[c] = (int32_t)i;
}

static void grid_build(packing *p, uint32_t disks)
{
    p->grid = (uint32_t)(p->box / (CONTACT + 2 * MC_STEP));
    for (uint32_t c = 0; c < p->grid * p->grid; c++) p->head[c] = -1;
    for (uint32_t i = 0; i < disks; i++) grid_insert(p, i);
}

/* Calls visit(p, i, j, dx, dy) for every disk j != i of the 3 x 3 grid cells
 * around the point (x, y), with (dx, dy) the minimum image of j - (x, y);
 * stops at the first nonzero return value and returns it. */
typedef int (*pair_visit)(packing *p, uint32_t i, uint32_t j, double dx, double dy);
static int for_neighbours(packing *p, uint32_t i, double x, double y, pair_visit visit)
{
    uint32_t gx = grid_of(p, x), gy = grid_of(p, y), g = p->grid;
    for (uint32_t ky = gy + g - 1; ky <= gy + g + 1; ky++)
        for (uint32_t kx = gx + g - 1; kx <= gx + g + 1; kx++)
            for (int32_t j = p->head[(ky % g) * g + kx % g]; j >= 0; j = p->next[j]) {
                if ((uint32_t)j == i) continue;
                int stop = visit(p, i, (uint32_t)j, minimum_image(p->xy[2 * j] - x, p->box),
                                 minimum_image(p->xy[2 * j + 1] - y, p->box));
                if (stop) return stop;
            }
    return 0;
}

static int too_close(packing *p, uint32_t i, uint32_t j, double dx, double dy)
{
    (void)p, (void)i, (void)j;
    return dx * dx + dy * dy < CONTACT * CONTACT;
}

static double uniform(clmc_philox_ctr r, int word)
{
    return (r.v[word] + 0.5) / 4294967296.0;
}

static clmc_status random_addition(packing *p)
{
    for (uint32_t c = 0; c < p->grid * p->grid; c++) p->head[c] = -1;
    for (uint32_t i = 0; i < p->n; i++) {
        uint32_t attempt = 0;
        do {
            if (attempt == MAX_TRIES)
                return clmc_fail(CLMC_ERR_OTHER, "compressed start: no room for disk %u after %u tries", i, attempt);
            clmc_philox_ctr r = clmc_random4(p->key, i, attempt++, 0, p->stream);
            p->xy[2 * i] = uniform(r, 0) * p->box;
            p->xy[2 * i + 1] = uniform(r, 1) * p->box;
        } while (for_neighbours(p, i, p->xy[2 * i], p->xy[2 * i + 1], too_close));
        grid_insert(p, i);
    }
    return CLMC_OK;
}

/* Marks for a check every disk that for_neighbours visits from grid cell
 * (gx, gy), i.e. the disks of the 3 x 3 cells around it. */
static void mark_around(packing *p, uint32_t gx, uint32_t gy)
{
    uint32_t g = p->grid;
    for (uint32_t ky = gy + g - 1; ky <= gy + g + 1; ky++)
        for (uint32_t kx = gx + g - 1; kx <= gx + g + 1; kx++)
            for (int32_t j = p->head[(ky % g) * g + kx % g]; j >= 0; j = p->next[j]) p->dirty[j] = 1;
}

/* Disk i moved to (x, y): the disks around its old and its new cell marked
 * (the new one only where it differs). */
static void move_disk(packing *p, uint32_t i, double x, double y)
{
    uint32_t gx = grid_of(p, p->xy[2 * i]), gy = grid_of(p, p->xy[2 * i + 1]);
    uint32_t hx = grid_of(p, x), hy = grid_of(p, y);
    mark_around(p, gx, gy);
    if (hx != gx || hy != gy) mark_around(p, hx, hy);
    p->xy[2 * i] = x;
    p->xy[2 * i + 1] = y;
}

/* Moves disks i and j apart along their axis to CONTACT + PUSH_SLACK (the
 * slack keeps the pair apart through the next steps; without it the passes
 * grow tenfold at phi = 0.7), marking the disks around both before and after
 * the move (move_disk, for remove_overlaps). */
static int push_apart(packing *p, uint32_t i, uint32_t j, double dx, double dy)
{
    if (j < i) return 0; /* each pair once */
    double d2 = dx * dx + dy * dy;
    if (d2 >= CONTACT * CONTACT) return 0;
    double d = sqrt(d2), ux = d > 0 ? dx / d : 1.0, uy = d > 0 ? dy / d : 0.0, half = 0.5 * (CONTACT + PUSH_SLACK - d);
    move_disk(p, i, wrap_into(p->xy[2 * i] - half * ux, p->box), wrap_into(p->xy[2 * i + 1] - half * uy, p->box));
    move_disk(p, j, wrap_into(p->xy[2 * j] + half * ux, p->box), wrap_into(p->xy[2 * j + 1] + half * uy, p->box));
    return 0;
}

static int count_overlap(packing *p, uint32_t i, uint32_t j, double dx, double dy)
{
    (void)p;
    return j > i && dx * dx + dy * dy < CONTACT * CONTACT;
}

/* Passes of pushes until a pass over a fresh grid finds no overlap.  A
 * pass checks disk i (against the disks j > i of the 3 x 3 grid cells around
 * it) only where it is marked: a disk found clear stays clear until it or a
 * disk it visits moves, and every push marks the disks around both disks'
 * old and new positions (the grid's lists stay those of the pass's start,
 * and a disk that changes cell at the next grid is marked around its new
 * position), so the passes push the same pairs in the same order as checks
 * of every disk would, and end at the same pass. */
static clmc_status remove_overlaps(packing *p)
{
    memset(p->dirty, 1, p->n);
    for (int pass = 0; pass < MAX_PASSES; pass++) {
        grid_build(p, p->n);
        uint64_t overlaps = 0;
        for (uint32_t i = 0; i < p->n; i++) {
            if (!p->dirty[i]) continue;
            p->dirty[i] = 0;
            if (for_neighbours(p, i, p->xy[2 * i], p->xy[2 * i + 1], count_overlap)) {
                overlaps++;
                for_neighbours(p, i, p->xy[2 * i], p->xy[2 * i + 1], push_apart);
            }
        }
        if (!overlaps) return CLMC_OK;
    }
    return clmc_fail(CLMC_ERR_OTHER, "compressed start: overlaps remain after %d passes at packing fraction %.4f; use "
                     "model.start \"lattice\"", MAX_PASSES, p->n * DISK_PI / (4 * p->box * p->box));
}

/* One Metropolis sweep in disk order, moves uniform in a square of half
 * width MC_STEP (the grid, built before, stays valid: no disk moves more). */
static void metropolis_sweep(packing *p, uint32_t step)
{
    grid_build(p, p->n);
    for (uint32_t i = 0; i < p->n; i++) {
        clmc_philox_ctr r = clmc_random4(p->key, i, step, 1, p->stream);
        double x = wrap_into(p->xy[2 * i] + (2 * uniform(r, 0) - 1) * MC_STEP, p->box);
        double y = wrap_into(p->xy[2 * i + 1] + (2 * uniform(r, 1) - 1) * MC_STEP, p->box);
        if (for_neighbours(p, i, x, y, too_close)) continue;
        p->xy[2 * i] = x;
        p->xy[2 * i + 1] = y;
    }
}

/* The packing in the target box into the cell list (cell-local floats). */
static clmc_status fill_cells(const packing *p, disk_cells *c)
{
    disk_cells_clear(c);
    for (uint32_t i = 0; i < p->n; i++) CLMC_TRY(disk_cells_insert(c, p->xy[2 * i], p->xy[2 * i + 1], "compressed"));
    return CLMC_OK;
}

static clmc_status compress(packing *p, double target_box)
{
    for (uint32_t step = 0;; step++) {
        double box = fmax(target_box, p->box * (1 - STEP)), scale = box / p->box;
        for (uint32_t k = 0; k < 2 * p->n; k++) p->xy[k] = wrap_into(p->xy[k] * scale, box);
        p->box = box;
        CLMC_TRY(remove_overlaps(p));
        for (uint32_t k = 0; k < MC_SWEEPS; k++) metropolis_sweep(p, step * MC_SWEEPS + k);
        if (box == target_box) return CLMC_OK;
    }
}

clmc_status disk_compress_start(disk_cells *c, uint64_t seed, uint32_t system)
{
    const disk_geometry *g = &c->g;
    double target_phi = g->n_disks * DISK_PI / (4 * g->box * g->box);
    packing p = {.n = g->n_disks, .box = g->box * sqrt(fmax(1.0, target_phi / START_PHI)),
                 .key = {{(uint32_t)seed, (uint32_t)(seed >> 32)}},
                 .stream = CLMC_STREAM(CLMC_PURPOSE_INIT, system)};
    size_t grid_cells = (size_t)(p.box / (CONTACT + 2 * MC_STEP)) + 1;
    p.xy = malloc(2 * (size_t)p.n * sizeof *p.xy);
    p.next = malloc((size_t)p.n * sizeof *p.next);
    p.head = malloc(grid_cells * grid_cells * sizeof *p.head);
    p.dirty = malloc(p.n);
    clmc_status status = p.xy && p.next && p.head && p.dirty ? CLMC_OK : clmc_fail(CLMC_ERR_OTHER, "out of host memory");
    if (status == CLMC_OK) {
        grid_build(&p, 0);
        status = random_addition(&p);
    }
    if (status == CLMC_OK) status = compress(&p, g->box);
    if (status == CLMC_OK) status = fill_cells(&p, c);
    free(p.xy);
    free(p.next);
    free(p.head);
    free(p.dirty);
    return status;
}
