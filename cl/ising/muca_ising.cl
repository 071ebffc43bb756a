/* Multicanonical and Wang-Landau walkers of the Ising model
 * (src/ensembles/density_walkers.c): the model's part of
 * ensembles/muca_walkers.h, which holds the kernels.  A proposal flips the
 * spin; energies are H = -sum over bonds of s_i s_j, binned as (E - E_MIN) /
 * E_STEP.  The start draws one word per site (hit = site / 4), spin up where
 * its top bit is set.
 * With WALKER_ROWS (2D, 4 <= EDGE <= 64: src/models/ising/ising.c) a walker
 * is EDGE rows of EDGE bits (bit x of row y set: spin up at site y EDGE + x),
 * row y of walker w at y * N_WALKERS + w, and during a launch the row being
 * swept and its two neighbours stay in registers: one row read and one
 * written per EDGE updates.  Otherwise one char per site
 * (ensembles/muca_sites.h). */
#include "common/philox.h"

#if DIM == 2
#define N_SITES (EDGE * EDGE)
#else
#define N_SITES (EDGE * EDGE * EDGE)
#endif
#define WORDS_PER_SITE 1

#ifdef WALKER_ROWS
#if EDGE <= 32
typedef uint walker_word;
#else
typedef ulong walker_word;
#endif

inline walker_word row_at(global const walker_word *rows, uint y, uint w)
{
    return rows[(size_t)y * N_WALKERS + w];
}

inline uint bit_at(walker_word row, uint x)
{
    return (uint)(row >> x) & 1;
}

inline void walker_start(global walker_word *rows, uint w, clmc_philox_key key)
{
    clmc_philox_ctr r;
    walker_word row = 0;
    for (uint i = 0; i < N_SITES; i++) {
        if (i % 4 == 0) r = clmc_random4(key, w, 0, i / 4, CLMC_STREAM(CLMC_PURPOSE_MULTICANONICAL, 1));
        row |= (walker_word)(r.v[i % 4] >> 31) << (i % EDGE);
        if (i % EDGE == EDGE - 1) {
            rows[(size_t)(i / EDGE) * N_WALKERS + w] = row;
            row = 0;
        }
    }
}

inline int walker_energy(global const walker_word *rows, uint w)
{
    int e = 0;
    for (uint y = 0; y < EDGE; y++) {
        walker_word row = row_at(rows, y, w), below = row_at(rows, (y + 1) % EDGE, w);
        for (uint x = 0; x < EDGE; x++) {
            uint s = bit_at(row, x);
            e += (s != bit_at(row, (x + 1) % EDGE) ? 1 : -1) + (s != bit_at(below, x) ? 1 : -1);
        }
    }
    return e;
}

/* Rows y - 1 (prev, swept), y (cur, being swept) and y + 1 (next) of the
 * walker's row y (EDGE before the first).  With 32-bit rows, row y + 2
 * (ahead) is read one row early, so that its memory latency hides behind the
 * EDGE updates of row y instead of stalling the walker at the start of row
 * y + 1 (H100, 2026-11-27: 3.02 -> 2.87 ps per update at L = 16, 2.92 ->
 * 2.79 at L = 32; with 64-bit rows 3.18 -> 3.17 at L = 64 and 3.67 -> 3.81
 * at L = 48, so those read row y + 1 at the start of row y as before). */
#define READ_AHEAD (EDGE <= 32)
/* The site's column: site % EDGE, a mask where EDGE is a power of two.
 * Otherwise x is counted along (no division per update) in steps of X_STEP
 * sites, the sites of a random draw (4, at multiples of 4) that lie in one
 * row: 4 where EDGE % 4 == 0, 2 where EDGE % 4 == 2, else 1.  x holds the
 * column of the step's first site and the site's is x + site % X_STEP,
 * where site % X_STEP is a constant in the unrolled draw, so that only a
 * step's first site checks for a row start, and x - 1 and x + 1 wrap only
 * where they can.  (H100, 2026-11-27, 540,672 walkers, with
 * density_walkers.c's group rule, steps of 4: 3.49 -> 2.89 ps per update at
 * L = 24, 3.42 -> 2.97 at L = 40, 3.44 -> 2.93 at L = 48, 3.41 -> 2.97 at L
 * = 56; 64 -> 56 registers at L = 40 and 48; steps of 2 against 1: 3.27
 * -> 3.10 at L = 42, 3.27 -> 3.04 at L = 50.  A flag for draws inside a row
 * instead, checked per site, took L = 42 and 50 to 3.49 and 3.46.) */
#if (EDGE & (EDGE - 1)) == 0
#define WALKER_X(c, site) ((site) % EDGE)
#else
#define COUNTED_X
#define X_STEP (EDGE % 4 == 0 ? 4 : EDGE % 2 == 0 ? 2 : 1)
#define WALKER_X(c, site) (((c)->x & ~(X_STEP - 1u)) | (site) % X_STEP)
#endif
typedef struct {
    global walker_word *rows;
    uint w, y, x;
    walker_word prev, cur, next, ahead;
} walker_t;

inline void walker_open(walker_t *c, global walker_word *rows, uint w)
{
    c->rows = rows;
    c->w = w;
    c->y = EDGE;
#ifdef COUNTED_X
    c->x = EDGE - X_STEP; /* the first visit (site 0) starts a row */
#endif
}

/* At the start of row y (sites in typewriter order): row y - 1 back to the
 * buffer, the rows move up, and row y + 2 is read ahead (row y + 1 without
 * READ_AHEAD: row 0 as swept already when y = EDGE - 1).  A row read ahead
 * is never written before it is used: row r goes back at the start of row
 * r + 1, and EDGE >= 4, so row y + 2 (row 0 or 1 as swept already near the
 * end of a sweep) went back before this read and goes back again only at
 * the start of row y + 3. */
inline void walker_visit(walker_t *c, uint site)
{
#ifdef COUNTED_X
    if (site % X_STEP) return;
    c->x = c->x == EDGE - X_STEP ? 0 : c->x + X_STEP;
#endif
    if (WALKER_X(c, site)) return;
    uint y = site / EDGE;
    if (c->y == EDGE) {
        c->prev = row_at(c->rows, (y + EDGE - 1) % EDGE, c->w);
        c->cur = row_at(c->rows, y, c->w);
        if (READ_AHEAD) c->next = row_at(c->rows, (y + 1) % EDGE, c->w);
    } else {
        c->rows[(size_t)c->y * N_WALKERS + c->w] = c->cur;
        c->prev = c->cur;
        c->cur = c->next;
        if (READ_AHEAD) c->next = c->ahead;
    }
    if (READ_AHEAD)
        c->ahead = row_at(c->rows, (y + 2) % EDGE, c->w);
    else
        c->next = row_at(c->rows, (y + 1) % EDGE, c->w);
    c->y = y;
}

/* 2 s (sum of the neighbours) = 8 - 4 (neighbours unlike s). */
inline int walker_propose(const walker_t *c, uint site, uint choice, int *new_value)
{
    uint x = WALKER_X(c, site), s = bit_at(c->cur, x);
    uint unlike = (s ^ bit_at(c->cur, x == 0 ? EDGE - 1 : x - 1)) + (s ^ bit_at(c->cur, x == EDGE - 1 ? 0 : x + 1)) +
                  (s ^ bit_at(c->prev, x)) + (s ^ bit_at(c->next, x));
    *new_value = 0;
    return 8 - 4 * (int)unlike;
}

inline void walker_set(walker_t *c, uint site, int new_value)
{
    c->cur ^= (walker_word)1 << WALKER_X(c, site);
}

inline void walker_close(walker_t *c)
{
    if (c->y < EDGE) c->rows[(size_t)c->y * N_WALKERS + c->w] = c->cur;
}

#else
#include "ensembles/muca_sites.h"

inline int spin_at(global const char *spins, uint site, uint w)
{
    return spins[(size_t)site * N_WALKERS + w];
}

/* Sum of the 2 DIM neighbours of `site`; with forward_only, of the DIM
 * forward ones (each bond counted once for the energy). */
inline int neighbour_sum(global const char *spins, uint site, uint w, int forward_only)
{
    uint x = site % EDGE, y = (site / EDGE) % EDGE, row = site - x, plane = site - x - y * EDGE;
    int sum = spin_at(spins, row + (x + 1) % EDGE, w) + spin_at(spins, plane + ((y + 1) % EDGE) * EDGE + x, w);
    if (!forward_only)
        sum += spin_at(spins, row + (x + EDGE - 1) % EDGE, w) +
               spin_at(spins, plane + ((y + EDGE - 1) % EDGE) * EDGE + x, w);
#if DIM == 3
    uint z = site / (EDGE * EDGE), in_plane = site - z * EDGE * EDGE;
    sum += spin_at(spins, ((z + 1) % EDGE) * EDGE * EDGE + in_plane, w);
    if (!forward_only) sum += spin_at(spins, ((z + EDGE - 1) % EDGE) * EDGE * EDGE + in_plane, w);
#endif
    return sum;
}

inline void walker_start(global char *spins, uint w, clmc_philox_key key)
{
    for (uint i = 0; i < N_SITES; i += 4) {
        clmc_philox_ctr r = clmc_random4(key, w, 0, i / 4, CLMC_STREAM(CLMC_PURPOSE_MULTICANONICAL, 1));
        for (uint q = 0; q < 4 && i + q < N_SITES; q++)
            spins[(size_t)(i + q) * N_WALKERS + w] = (r.v[q] >> 31) ? 1 : -1;
    }
}

inline int walker_energy(global const char *spins, uint w)
{
    int e = 0;
    for (uint i = 0; i < N_SITES; i++) e -= spin_at(spins, i, w) * neighbour_sum(spins, i, w, 1);
    return e;
}

inline int walker_propose(const walker_t *c, uint site, uint choice, int *new_value)
{
    int s = walker_site(c, site);
    *new_value = -s;
    return 2 * s * neighbour_sum(c->spins, site, c->w, 0);
}
#endif

#include "ensembles/muca_walkers.h"
