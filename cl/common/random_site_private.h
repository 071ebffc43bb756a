/* Tiles in private memory (algorithm.tile_memory "private"; two-state
 * models; docs/models/ising.md "Tiles in registers"): one work-item per tile
 * holds its box (dead_border: the whole tile; double_tiling: the active
 * sub-tile and its one-site halo) as bits in PB_WORDS uints and makes the
 * tile's attempts there, in the order and with the draws of the
 * global-memory kernels (DEAD_BORDER_ATTEMPTS, DOUBLE_TILING_ATTEMPTS): the
 * same configurations bit for bit.  Every access to the box uses constant
 * indices (unrolled loops; a variable word is an OR of masked words), so the
 * compiler can keep it in registers; a variable index would put it in
 * per-work-item memory on GPUs (checked in clang 15's PTX: no local loads in
 * the attempt loops).  Row r of the box (r = y + PB_EDGE z) lies in
 * word r / PB_PER_WORD from bit (r mod PB_PER_WORD) PB_EDGE up, bit x of the
 * row its site x.  Included by common/random_site_kernels.h with RS_PRIVATE;
 * the kernels take the run-wide index of configuration 0 as their last
 * argument (first_system), which keys their streams as in the global-memory
 * kernels. */
#ifndef CLMC_RANDOM_SITE_PRIVATE_H
#define CLMC_RANDOM_SITE_PRIVATE_H

#ifdef TILE_ATTEMPTS
#define PB_EDGE RS_TILE
#else
#define PB_EDGE BOX
#endif
#define PB_PER_WORD (32 / PB_EDGE)
#if DIM == 2
#define PB_ROWS PB_EDGE
#else
#define PB_ROWS (PB_EDGE * PB_EDGE)
#endif
#define PB_WORDS ((PB_ROWS + PB_PER_WORD - 1) / PB_PER_WORD)
/* Inlined whatever the compiler's heuristics say: a box passed to a call
 * lives in memory (seen with clang 15 at -O2). */
#define PB_INLINE inline __attribute__((always_inline))

/* Word q of the box, as an OR of masked words: a chain of selects of
 * box[k] is turned back into a load at a variable index by LLVM (clang 15),
 * which puts the box in memory. */
PB_INLINE uint pb_word(const uint *box, uint q)
{
    uint word = 0;
#pragma unroll
    for (uint k = 0; k < PB_WORDS; k++) word |= box[k] & (0u - (uint)(q == k));
    return word;
}

/* Row `row` from bit 0 up (the bits above it: later rows of its word). */
PB_INLINE uint pb_row(const uint *box, uint row)
{
    return pb_word(box, row / PB_PER_WORD) >> (row % PB_PER_WORD * PB_EDGE);
}

/* One attempt at site x of row `row`, an interior site of the box.  Rows
 * of at most 16 bits: rows row - 1 .. row + 1 lie in words q and q + 1
 * (q = (row - 1) / PB_PER_WORD), read with one set of masks that also place
 * the flip; wider rows: one word per row. */
PB_INLINE void pb_attempt(uint *box, uint x, uint row, uint u, const uint *table)
{
#if PB_PER_WORD >= 2
    uint q = (row - 1) / PB_PER_WORD, lo = 0, hi = 0, mask[PB_WORDS];
#pragma unroll
    for (uint k = 0; k < PB_WORDS; k++) {
        mask[k] = 0u - (uint)(q == k);
        lo |= box[k] & mask[k];
        if (k + 1 < PB_WORDS) hi |= box[k + 1] & mask[k];
    }
    bool centre_high = row / PB_PER_WORD != q, up_high = (row + 1) / PB_PER_WORD != q;
    uint centre = (centre_high ? hi : lo) >> (row % PB_PER_WORD * PB_EDGE), s = centre >> x & 1u;
    uint down = lo >> ((row - 1) % PB_PER_WORD * PB_EDGE + x) & 1u;
    uint up = (up_high ? hi : lo) >> ((row + 1) % PB_PER_WORD * PB_EDGE + x) & 1u;
#else
    uint centre = pb_row(box, row), s = centre >> x & 1u;
    uint down = pb_row(box, row - 1) >> x & 1u, up = pb_row(box, row + 1) >> x & 1u;
#endif
    uint differ = ((centre >> (x - 1) & 1u) ^ s) + ((centre >> (x + 1) & 1u) ^ s) + (down ^ s) + (up ^ s);
#if DIM == 3
    differ += ((pb_row(box, row - PB_EDGE) >> x & 1u) ^ s) + ((pb_row(box, row + PB_EDGE) >> x & 1u) ^ s);
#endif
    uint placed = rs_bits_flip(differ, u, table) << (row % PB_PER_WORD * PB_EDGE + x);
#if PB_PER_WORD >= 2
    uint placed_lo = centre_high ? 0u : placed, placed_hi = placed ^ placed_lo;
#pragma unroll
    for (uint k = 0; k < PB_WORDS; k++) box[k] ^= (placed_lo & mask[k]) | (k > 0 ? placed_hi & mask[k - 1] : 0u);
#else
    uint q = row / PB_PER_WORD;
#pragma unroll
    for (uint k = 0; k < PB_WORDS; k++) box[k] ^= placed & (0u - (uint)(q == k));
#endif
}

/* Lattice index of the box's site (0, y, z) less the wrapped x of its
 * corner, which *x0 receives: site (x, y, z) is the result plus
 * (x0 + x) mod EDGE.  `corner`: the box's site (0, 0, 0), unwrapped. */
PB_INLINE uint pb_line(const uint *corner, uint y, uint z, uint *x0)
{
    *x0 = corner[0] % EDGE;
    return wrapped_site(corner, 0, y, z) - *x0;
}

PB_INLINE uint pb_wrap_x(uint x0, uint x)
{
    uint sx = x0 + x;
    return sx >= EDGE ? sx - EDGE : sx;
}

/* The box from the configuration `spins` (its site (x, y, z) is the lattice
 * site corner + (x, y, z), wrapped). */
PB_INLINE void pb_load(__global const RS_SPIN *spins, const uint *corner, uint *box)
{
#pragma unroll
    for (uint k = 0; k < PB_WORDS; k++) {
        uint word = 0;
        for (uint j = 0; j < PB_PER_WORD && k * PB_PER_WORD + j < PB_ROWS; j++) {
            uint row = k * PB_PER_WORD + j, x0, line = pb_line(corner, row % PB_EDGE, row / PB_EDGE, &x0);
            for (uint x = 0; x < PB_EDGE; x++)
                word |= (uint)RS_SPIN_BIT(spins[line + pb_wrap_x(x0, x)]) << (j * PB_EDGE + x);
        }
        box[k] = word;
    }
}

/* Writes back the box's sites whose coordinates all lie in [first, last]. */
PB_INLINE void pb_store(__global RS_SPIN *spins, const uint *corner, const uint *box, uint first, uint last)
{
#pragma unroll
    for (uint k = 0; k < PB_WORDS; k++)
        for (uint j = 0; j < PB_PER_WORD && k * PB_PER_WORD + j < PB_ROWS; j++) {
            uint row = k * PB_PER_WORD + j, y = row % PB_EDGE, z = DIM == 3 ? row / PB_EDGE : first;
            if (y < first || y > last || z < first || z > last) continue;
            uint x0, line = pb_line(corner, y, z, &x0);
            for (uint x = first; x <= last; x++)
                spins[line + pb_wrap_x(x0, x)] = RS_BIT_SPIN(box[k] >> (j * PB_EDGE + x) & 1u);
        }
}

#ifdef TILE_ATTEMPTS
/* dead_border: the box is the tile; all of it is written back (the border unchanged). */
__kernel void rsite_dead_border_private(__global RS_SPIN *spins, uint seed_lo, uint seed_hi, uint step_lo,
                                        uint step_hi, __global const uint *tables, uint segment_lo, uint segment_hi,
                                        uint first_system)
{
    DEAD_BORDER_PROLOGUE;
    uint box[PB_WORDS];
    pb_load(spins, corner, box);
    DEAD_BORDER_ATTEMPTS(pb_attempt(box, x, y + PB_EDGE * z, u.v[k], table));
    pb_store(spins, corner, box, 0, PB_EDGE - 1);
}
#else
/* double_tiling: the box is the active sub-tile and its halo; the sub-tile is written back. */
__kernel void rsite_double_tiling_private(__global RS_SPIN *spins, uint seed_lo, uint seed_hi, uint sweep_lo,
                                          uint sweep_hi, __global const uint *tables, uint phase, uint first_system)
{
    DOUBLE_TILING_PROLOGUE;
    uint box_corner[3] = {corner[0] + EDGE - 1, corner[1] + EDGE - 1, corner[2] + EDGE - 1};
    uint box[PB_WORDS];
    pb_load(spins, box_corner, box);
    DOUBLE_TILING_ATTEMPTS(pb_attempt(box, 1 + x, 1 + y + (DIM == 3 ? PB_EDGE * (1 + z) : 0), u.v[k], table));
    pb_store(spins, box_corner, box, 1, SUB);
}
#endif

#endif
