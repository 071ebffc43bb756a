/* O(n) vector spin models (n = 2: XY, n = 3: Heisenberg), H = -sum_<ij> s_i . s_j
 * with unit vectors s: Metropolis, heat-bath and over-relaxation moves on the
 * global checkerboard (naive) and on the double checkerboard with multi-hit
 * tiles in local memory (tiled), spin-length renormalisation, and energy and
 * magnetisation sums in exact fixed point.
 *
 * Defines: DIM (2|3), EDGE (L, even), NCOMP (2|3), MEASURE_WG, CONFIGS (the
 * configurations of one disorder sample, each at its own betas[config]);
 * REAL_DOUBLE for double precision; FAST_MATH for native functions;
 * REPRODUCIBLE (float only) for IEEE-exact arithmetic and the functions of
 * common/repro_math.h, the same bits on every device; GLASS for
 * quenched couplings (the spin glass, H = -sum_<ij> J_ij s_i . s_j, J of the
 * bond from site i to its +d neighbour in sample r at
 * couplings[(r * DIM + d) * SITES + packed_site(i)], configuration c in sample
 * c / CONFIGS; without GLASS the couplings argument is not read); for the
 * tiled kernel TILE (even edge) and
 * TILES_PER_EDGE (even).  Spins are reals, component-major and split by
 * checkerboard colour: component c of site i at spins[c * SITES + packed_site(i)]
 * with packed_site(i) = colour(i) * HALF_SITES + i / 2 (so one colour's sites
 * and their neighbours are contiguous); configurations (replicas) one after
 * another, each with its own random streams; the couplings are split by
 * colour the same way.  The glass's naive kernel (heisenberg_glass.cl, which
 * includes this file) updates a site in every configuration of the sample in
 * NDRange dimension 1 (the couplings read once); the others take the
 * configuration from NDRange dimension 1.
 *
 * Random numbers (Philox counter: unit, sweep, hit word, purpose), never by
 * work-item:
 *   initial direction   (site, run, 0, INIT); run: population annealing's run, else 0
 *   Metropolis          (site, sweep, hit, METROPOLIS): new direction, acceptance
 *   heat-bath           (site, sweep, hit | attempt << 20, HEATBATH); attempt
 *                       counts the rejections of the n = 2 (von Mises) sampler
 * One draw gives three 24-bit uniforms (floats); with REAL_DOUBLE a second
 * draw (hit word bit 31 set) completes three 53-bit uniforms. */
#ifdef REPRODUCIBLE
#include "common/repro_math.h" /* first: FP contraction off for everything below */
#endif
#include "common/lattice.h"
#include "common/philox.h"
#ifdef RNG_STATEFUL
#include "common/rng_streams.h"
#endif
#ifdef RNG_PHILOX7
#include "common/rng_philox.h"
#endif

#define MOVE_METROPOLIS 0u
#define MOVE_HEATBATH 1u
#define MOVE_OVERRELAXATION 2u

#ifdef REAL_DOUBLE
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double real;
#if NCOMP == 2
typedef double2 spin_t;
#else
typedef double3 spin_t;
#endif
#else
typedef float real;
#if NCOMP == 2
typedef float2 spin_t;
#else
typedef float3 spin_t;
#endif
#endif

/* The math layer.  Reproducible mode: every bit from IEEE 754 (no library
 * function, no builtin dot/length whose order or fusion a compiler chooses).
 * The others keep the device library's functions: DIV, SQRT_LIB, DOT, LENGTH,
 * NORMALIZE, CROSS and SPIN_DIV are then the plain operators and builtins. */
#if defined(REPRODUCIBLE)
#define EXP repro_exp
#define LOG repro_log
#define SQRT repro_sqrt
#define SQRT_LIB repro_sqrt
#define LOG1P repro_log1p
#define EXPM1 repro_expm1
#define DIV repro_div
#elif defined(FAST_MATH) && !defined(REAL_DOUBLE)
#define EXP native_exp
#define LOG native_log
#define SQRT native_sqrt
#define COS native_cos
#define SIN native_sin
#define LOG1P(x) native_log(1.0f + (x))
#define EXPM1(x) (native_exp(x) - 1.0f)
#else
#define EXP exp
#define LOG log
#define SQRT sqrt
#define COS cos
#define SIN sin
#define LOG1P log1p
#define EXPM1 expm1
#endif
#ifndef REPRODUCIBLE
#define SQRT_LIB sqrt
#define DIV(a, b) ((a) / (b))
#define DOT dot
#define LENGTH length
#define NORMALIZE normalize
#define CROSS cross
#define SPIN_DIV(v, d) ((v) / (d))
#else
/* Sums in the written order, products unfused, divisions correctly rounded. */
inline real spin_dot(spin_t a, spin_t b)
{
#if NCOMP == 2
    return a.x * b.x + a.y * b.y;
#else
    return (a.x * b.x + a.y * b.y) + a.z * b.z;
#endif
}

inline spin_t spin_div(spin_t v, real d)
{
#if NCOMP == 2
    return (spin_t)(repro_div(v.x, d), repro_div(v.y, d));
#else
    return (spin_t)(repro_div(v.x, d), repro_div(v.y, d), repro_div(v.z, d));
#endif
}

#if NCOMP == 3
inline spin_t spin_cross(spin_t a, spin_t b)
{
    return (spin_t)(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
#define CROSS spin_cross
#endif
#define DOT spin_dot
#define LENGTH(v) repro_sqrt(spin_dot(v, v))
#define NORMALIZE(v) spin_div(v, repro_sqrt(spin_dot(v, v)))
#define SPIN_DIV spin_div
#endif

#define TWO_PI ((real)6.283185307179586)
#define PI ((real)3.141592653589793)
#define ATTEMPT_SHIFT 20u
#define MAX_ATTEMPTS 1000u
/* Fixed-point scale of the measured sums: exact integer addition, any order. */
#define FIXED_SCALE ((real)1073741824.0)

/* Checkerboard colour (parity of x + y + z) of a site and its place in the
 * colour-split arrays. */
inline uint site_colour(uint site)
{
    uint row = site / EDGE;
    return (site % EDGE + row % EDGE + row / EDGE) & 1u;
}

inline uint packed_site(uint site)
{
    return site_colour(site) * HALF_SITES + site / 2;
}

#ifdef GLASS
#define COUPLING(couplings, site, d) ((couplings)[(d) * SITES + packed_site(site)])
/* The couplings of the sample of configuration get_global_id(1). */
#define SAMPLE_COUPLINGS(couplings) ((couplings) + (size_t)(get_global_id(1) / CONFIGS) * DIM * SITES)
#else
#define COUPLING(couplings, site, d) ((real)1)
#define SAMPLE_COUPLINGS(couplings) (couplings)
#endif
#define CONFIG_SPINS(spins) ((spins) + (size_t)get_global_id(1) * NCOMP * SITES)
/* The run-wide number of configuration `config` in its random streams: the
 * glass's realizations (CONFIGS configurations each) are numbered from
 * first_system (ensemble.first_system, every drawing kernel's last argument,
 * cl/common/philox.h). */
#define RUN_CONFIG(first_system, config) ((first_system) * CONFIGS + (uint)(config))

/* Entry p of component-major vectors, component c at a[c * stride + p]:
 * spins in global memory (stride SITES) and tiles in local memory (BOX_SITES);
 * v is read once per component. */
#if NCOMP == 2
#define LOAD_VECTOR(a, stride, p) ((spin_t)((a)[p], (a)[(stride) + (p)]))
#define STORE_VECTOR(a, stride, p, v) ((a)[p] = (v).x, (a)[(stride) + (p)] = (v).y)
#else
#define LOAD_VECTOR(a, stride, p) ((spin_t)((a)[p], (a)[(stride) + (p)], (a)[2 * (stride) + (p)]))
#define STORE_VECTOR(a, stride, p, v) ((a)[p] = (v).x, (a)[(stride) + (p)] = (v).y, (a)[2 * (stride) + (p)] = (v).z)
#endif

/* The spin at packed index p (see packed_site). */
inline spin_t load_packed(__global const real *spins, uint p)
{
    return LOAD_VECTOR(spins, SITES, p);
}

inline void store_packed(__global real *spins, uint p, spin_t s)
{
    STORE_VECTOR(spins, SITES, p, s);
}

inline spin_t load_spin(__global const real *spins, uint site)
{
    return load_packed(spins, packed_site(site));
}

inline void store_spin(__global real *spins, uint site, spin_t s)
{
    store_packed(spins, packed_site(site), s);
}

/* Three uniforms in (0, 1) for (site, sweep, hit word, purpose). */
inline void uniforms3(clmc_philox_key key, uint site, uint sweep, uint hit_word, uint purpose, real *u)
{
    clmc_philox_ctr r = clmc_random4(key, site, sweep, hit_word, purpose);
#ifdef REAL_DOUBLE
    clmc_philox_ctr r2 = clmc_random4(key, site, sweep, hit_word | 0x80000000u, purpose);
    uint words[6] = {r.v[0], r.v[1], r.v[2], r.v[3], r2.v[0], r2.v[1]};
    for (uint i = 0; i < 3; i++)
        u[i] = ((double)((ulong)(words[2 * i] >> 5) * 67108864ul + (words[2 * i + 1] >> 6)) + 0.5) * 0x1p-53;
#else
    for (uint i = 0; i < 3; i++) u[i] = ((float)(r.v[i] >> 8) + 0.5f) * 0x1p-24f;
#endif
}

/* cos and sin of the angle 2 pi t. */
inline void turn(real t, real *cosine, real *sine)
{
#ifdef REPRODUCIBLE
    *sine = repro_sincos_turns(t, cosine);
#else
    real phi = TWO_PI * t;
    *cosine = COS(phi);
    *sine = SIN(phi);
#endif
}

/* algorithm.rng (docs/rng.md): the moves draw through update_uniforms3 from a
 * draw_key, the seed key for Philox4x32-10 (uniforms3 itself, which the initial
 * directions always use), or RNG_PHILOX7's 7-round Philox under the same counters,
 * or with RNG_STATEFUL (naive layout only) the work-item's stream in private
 * memory (lagged Fibonacci: its own ring in global memory, RNG_LAGFIB_OWN, and
 * its position in private memory), 3 words per move (6 with REAL_DOUBLE),
 * converted as above. */
#if defined(RNG_PHILOX7) || defined(RNG_STATEFUL)
inline void uniforms_of_words(const uint *words, real *u)
{
#ifdef REAL_DOUBLE
    for (uint i = 0; i < 3; i++)
        u[i] = ((double)((ulong)(words[2 * i] >> 5) * 67108864ul + (words[2 * i + 1] >> 6)) + 0.5) * 0x1p-53;
#else
    for (uint i = 0; i < 3; i++) u[i] = ((float)(words[i] >> 8) + 0.5f) * 0x1p-24f;
#endif
}
#endif
#if defined(RNG_PHILOX7)
typedef clmc_philox_key draw_key;
inline void update_uniforms3(draw_key key, uint site, uint sweep, uint hit_word, uint purpose, real *u)
{
    clmc_philox_ctr r = clmc_philox4x32_7(clmc_stream_counter(site, sweep, hit_word, purpose), key);
#ifdef REAL_DOUBLE
    clmc_philox_ctr r2 = clmc_philox4x32_7(clmc_stream_counter(site, sweep, hit_word | 0x80000000u, purpose), key);
    uint words[6] = {r.v[0], r.v[1], r.v[2], r.v[3], r2.v[0], r2.v[1]};
#else
    uint words[3] = {r.v[0], r.v[1], r.v[2]};
#endif
    uniforms_of_words(words, u);
}
#elif defined(RNG_STATEFUL)
typedef rng_state *draw_key;
inline void update_uniforms3(draw_key stream, uint site, uint sweep, uint hit_word, uint purpose, real *u)
{
    (void)site, (void)sweep, (void)hit_word, (void)purpose;
#ifdef REAL_DOUBLE
    uint words[6];
#else
    uint words[3];
#endif
    for (uint i = 0; i < sizeof words / sizeof words[0]; i++) words[i] = rng_next(stream);
    uniforms_of_words(words, u);
}
#else
typedef clmc_philox_key draw_key;
#define update_uniforms3 uniforms3
#endif

/* A uniform direction from two uniforms (n = 2 uses the first). */
inline spin_t uniform_direction(real u0, real u1)
{
    real cosine, sine;
#if NCOMP == 2
    (void)u1;
    turn(u0, &cosine, &sine);
    return (spin_t)(cosine, sine);
#else
    real z = 2 * u0 - 1, rho = SQRT(fmax((real)0, 1 - z * z));
    turn(u1, &cosine, &sine);
    return (spin_t)(rho * cosine, rho * sine, z);
#endif
}

/* Metropolis: a uniform new direction t, accepted with min(1, exp(beta (t - s).h)). */
inline spin_t metropolis_move(spin_t s, spin_t h, real beta, draw_key key, uint site, uint sweep, uint hit,
                              uint run_config)
{
    real u[3];
    update_uniforms3(key, site, sweep, hit, CLMC_STREAM(CLMC_PURPOSE_METROPOLIS, run_config), u);
    spin_t t = uniform_direction(u[0], u[1]);
    real gain = beta * DOT(t - s, h);
    return (gain >= 0 || u[2] < EXP(gain)) ? t : s;
}

#if NCOMP == 3
/* Heat-bath, n = 3: cos(theta) to the field has density exp(b x) on [-1, 1]
 * (b = beta |h|), drawn by inversion; the azimuth is uniform. */
inline spin_t heatbath_move(spin_t s, spin_t h, real beta, draw_key key, uint site, uint sweep, uint hit,
                            uint run_config)
{
    real u[3];
    update_uniforms3(key, site, sweep, hit, CLMC_STREAM(CLMC_PURPOSE_HEATBATH, run_config), u);
    real field = LENGTH(h), b = beta * field;
    (void)s;
    if (!(b > (real)1e-12)) return uniform_direction(u[0], u[1]);
    real x = clamp(1 + DIV(LOG1P(u[0] * EXPM1(-2 * b)), b), (real)-1, (real)1);
    spin_t axis = SPIN_DIV(h, field);
    spin_t helper = fabs(axis.x) < (real)0.6 ? (spin_t)(1, 0, 0) : (spin_t)(0, 1, 0);
    spin_t e1 = NORMALIZE(CROSS(axis, helper)), e2 = CROSS(axis, e1);
    real sine = SQRT(fmax((real)0, 1 - x * x)), cosine_phi, sine_phi;
    turn(u[1], &cosine_phi, &sine_phi);
    return x * axis + sine * (cosine_phi * e1 + sine_phi * e2);
}
#else
/* Heat-bath, n = 2: the angle to the field from the von Mises density
 * exp(kappa cos theta), kappa = beta |h|, by the rejection method of Best
 * and Fisher (1979); each attempt has its own numbers.  rho is written in a
 * form free of cancellation for small kappa. */
inline spin_t heatbath_move(spin_t s, spin_t h, real beta, draw_key key, uint site, uint sweep, uint hit,
                            uint run_config)
{
    real u[3];
    real field = LENGTH(h), kappa = beta * field;
    if (!(kappa > (real)1e-12)) {
        update_uniforms3(key, site, sweep, hit, CLMC_STREAM(CLMC_PURPOSE_HEATBATH, run_config), u);
        return uniform_direction(u[0], u[1]);
    }
    real root = SQRT(1 + 4 * kappa * kappa), tau = 1 + root;
    real rho = DIV(2 * kappa * tau, (root + 1) * (tau + SQRT(2 * tau)));
    real r = DIV(1 + rho * rho, 2 * rho);
    for (uint attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        update_uniforms3(key, site, sweep, hit | (attempt << ATTEMPT_SHIFT), CLMC_STREAM(CLMC_PURPOSE_HEATBATH, run_config), u);
#ifdef REPRODUCIBLE
        real z;
        repro_sincos_turns(0.5f * u[0], &z); /* cos(pi u) */
#else
        real z = COS(PI * u[0]);
#endif
        real f = DIV(1 + r * z, r + z);
        real c = kappa * (r - f);
        if (c * (2 - c) - u[1] > 0 || LOG(DIV(c, u[1])) + 1 - c >= 0) {
            f = clamp(f, (real)-1, (real)1);
            real sine = SQRT(fmax((real)0, 1 - f * f));
            if (u[2] < (real)0.5) sine = -sine;
            spin_t axis = SPIN_DIV(h, field), normal = (spin_t)(-axis.y, axis.x);
            return f * axis + sine * normal;
        }
    }
    return s; /* not reached in practice: each attempt succeeds with probability > 0.65 */
}
#endif

/* Over-relaxation: the reflection of s about the field, 2 (s.h / h.h) h - s;
 * it keeps the energy. */
inline spin_t overrelaxation_move(spin_t s, spin_t h)
{
    real hh = DOT(h, h);
    return hh > 0 ? DIV(2 * DOT(s, h), hh) * h - s : s;
}

/* run_config: the configuration's run-wide number (RUN_CONFIG). */
inline spin_t update_spin(spin_t s, spin_t h, uint move, real beta, draw_key key, uint site, uint sweep,
                          uint hit, uint run_config)
{
    if (move == MOVE_OVERRELAXATION) return overrelaxation_move(s, h);
    if (move == MOVE_HEATBATH) return heatbath_move(s, h, beta, key, site, sweep, hit, run_config);
    return metropolis_move(s, h, beta, key, site, sweep, hit, run_config);
}

/* The start; `run`: population annealing's independent run (the counter's
 * second word; 0 otherwise). */
__kernel void heisenberg_init(__global real *spins, uint seed_lo, uint seed_hi, uint ordered, uint run,
                              uint first_system)
{
    uint site = get_global_id(0);
    if (site >= SITES) return;
    spins = CONFIG_SPINS(spins);
    spin_t s = 0;
    s.x = 1;
    if (!ordered) {
        clmc_philox_key key = {{seed_lo, seed_hi}};
        real u[3];
        uniforms3(key, site, run, 0, CLMC_STREAM(CLMC_PURPOSE_INIT, RUN_CONFIG(first_system, get_global_id(1))), u);
        s = uniform_direction(u[0], u[1]);
    }
    store_spin(spins, site, s);
}

#ifndef GLASS /* the glass's naive update is heisenberg_glass.cl's */
/* One work-item per site of colour `colour` in configuration get_global_id(1)
 * (the ferromagnet's independent systems, else one; couplings is not read);
 * `move` one of the MOVE_ values, `hit` the sub-sweep within the sweep.  The site's spin sits at packed index
 * colour * HALF_SITES + item, its neighbours' in the other colour's half. */
__kernel void heisenberg_naive_update(__global real *spins, uint seed_lo, uint seed_hi, uint sweep, uint colour,
                                      uint move, uint hit, __global const real *betas, __global const real *couplings
#ifdef RNG_STATEFUL
                                      , __global uint *rng_states
#endif
                                      , uint first_system)
{
    (void)couplings;
    uint item = get_global_id(0);
    if (item >= HALF_SITES) return;
    spins = CONFIG_SPINS(spins);
    uint site = site_of_colour(item, colour), own = colour * HALF_SITES + item, other = (colour ^ 1u) * HALF_SITES;
    spin_t h = 0;
    for (uint d = 0; d < DIM; d++)
        h += load_packed(spins, other + lattice_up(site, d) / 2) + load_packed(spins, other + lattice_down(site, d) / 2);
#ifdef RNG_STATEFUL
    /* Stream `item` of this configuration (rng_streams.h: configuration c's
     * streams follow c * RNG_STREAMS): the sites of both colours with this
     * item index. */
    uint stream_index = (uint)get_global_id(1) * (uint)RNG_STREAMS + item;
    rng_state stream = rng_load(rng_states, stream_index);
    store_packed(spins, own, update_spin(load_packed(spins, own), h, move, betas[get_global_id(1)], &stream, site, sweep,
                                         hit, RUN_CONFIG(first_system, get_global_id(1))));
    rng_store(rng_states, stream_index, stream);
#else
    clmc_philox_key key = {{seed_lo, seed_hi}};
    store_packed(spins, own, update_spin(load_packed(spins, own), h, move, betas[get_global_id(1)], key, site, sweep,
                                                   hit, RUN_CONFIG(first_system, get_global_id(1))));
#endif
}
#endif

/* Divides every spin by its length; the largest deviation of a length from 1
 * (as float bits, which order like uints for non-negative values) goes to
 * *max_deviation. */
__kernel void heisenberg_renormalize(__global real *spins, __global uint *max_deviation)
{
    uint site = get_global_id(0);
    if (site >= SITES) return;
    spins = CONFIG_SPINS(spins);
    spin_t s = load_spin(spins, site);
    real norm = SQRT_LIB(DOT(s, s));
    float deviation = (float)fabs(norm - 1);
    if (deviation > 0) atomic_max(max_deviation, isnan(deviation) ? 0x7f800000u : as_uint(deviation));
    store_spin(spins, site, SPIN_DIV(s, norm));
}

/* The numerical guard (model.h): the largest deviation of a length from 1,
 * measured as in heisenberg_renormalize but leaving the spins alone; a
 * non-finite length gives 0xffffffff, above every float's bits. */
__kernel void heisenberg_norm_deviation(__global const real *spins, __global uint *max_deviation)
{
    uint site = get_global_id(0);
    if (site >= SITES) return;
    spins = CONFIG_SPINS(spins);
    spin_t s = load_spin(spins, site);
    float deviation = (float)fabs(SQRT_LIB(DOT(s, s)) - 1);
    if (isnan(deviation)) atomic_max(max_deviation, 0xffffffffu);
    else if (deviation > 0) atomic_max(max_deviation, as_uint(deviation));
}

/* Test-only fault (CLMC_FAULT_SPIN_AFTER): doubles the spin at site 0 of
 * configuration 0. */
__kernel void heisenberg_fault(__global real *spins)
{
    store_spin(spins, 0, 2 * load_spin(spins, 0));
}

#ifdef TILE
/* Double checkerboard: a work-group loads one tile of the coarse colour with
 * its halo faces into local memory, then runs `mc_hits` sub-sweeps of
 * `mc_move` (MOVE_METROPOLIS or MOVE_HEATBATH) and `or_steps` of over-relaxation (each: fine colour 0, then 1; one site of
 * each colour per work-item) and writes the tile back.  Halo spins belong to
 * tiles of the other colour and stay fixed meanwhile. */
#define HALO_EDGE (TILE + 2)
#if DIM == 2
#define BOX_SITES (HALO_EDGE * HALO_EDGE)
#define TILE_ITEMS (TILE * TILE / 2)
#else
#define BOX_SITES (HALO_EDGE * HALO_EDGE * HALO_EDGE)
#define TILE_ITEMS (TILE * TILE * TILE / 2)
#endif

inline uint wrap(int coordinate)
{
    return (uint)((coordinate + EDGE) % EDGE);
}

inline spin_t box_spin(__local const real *box, uint b)
{
    return LOAD_VECTOR(box, BOX_SITES, b);
}

inline void set_box_spin(__local real *box, uint b, spin_t s)
{
    STORE_VECTOR(box, BOX_SITES, b, s);
}

/* Box coordinates (1 .. TILE inside) of work-item `lid`'s site of fine colour
 * `colour`; tile origins are even, so local parity is global parity. */
inline uint item_box_site(uint lid, uint colour, uint *lx, uint *ly, uint *lz)
{
    uint row = lid / (TILE / 2);
    *ly = row % TILE;
    *lz = DIM == 3 ? row / TILE : 0;
    *lx = 2 * (lid % (TILE / 2)) + ((*ly + *lz + colour) & 1);
    return (*lx + 1) + HALO_EDGE * ((*ly + 1) + HALO_EDGE * (DIM == 3 ? *lz + 1 : 0));
}

#ifdef GLASS
/* Couplings of the box sites' +d bonds, [d][box site]; JBOX_SITES = BOX_SITES. */
#define JBOX_SITES BOX_SITES
inline spin_t box_field(__local const real *box, __local const real *jbox, uint b)
{
    spin_t h = 0;
    uint stride = 1;
    for (uint d = 0; d < DIM; d++, stride *= HALO_EDGE)
        h += jbox[d * BOX_SITES + b] * box_spin(box, b + stride)
           + jbox[d * BOX_SITES + b - stride] * box_spin(box, b - stride);
    return h;
}
#else
#define JBOX_SITES 1
inline spin_t box_field(__local const real *box, __local const real *jbox, uint b)
{
    (void)jbox;
    spin_t h = box_spin(box, b - 1) + box_spin(box, b + 1) + box_spin(box, b - HALO_EDGE) + box_spin(box, b + HALO_EDGE);
#if DIM == 3
    h += box_spin(box, b - HALO_EDGE * HALO_EDGE) + box_spin(box, b + HALO_EDGE * HALO_EDGE);
#endif
    return h;
}
#endif

__kernel __attribute__((reqd_work_group_size(TILE_ITEMS, 1, 1)))
void heisenberg_tiled_update(__global real *spins, uint seed_lo, uint seed_hi, uint sweep, uint tile_colour,
                             uint mc_hits, uint or_steps, __global const real *betas, __global const real *couplings,
                             uint mc_move, uint first_system)
{
    real beta = betas[get_global_id(1)];
    couplings = SAMPLE_COUPLINGS(couplings);
    __local real box[NCOMP * BOX_SITES];
    __local real jbox[DIM * JBOX_SITES];
    spins = CONFIG_SPINS(spins);
    uint group = get_group_id(0), lid = get_local_id(0);
    uint pairs_per_row = TILES_PER_EDGE / 2, rest = group / pairs_per_row;
    uint ty = rest % TILES_PER_EDGE, tz = rest / TILES_PER_EDGE;
    uint tx = 2 * (group % pairs_per_row) + ((ty + tz + tile_colour) & 1);
    int ox = (int)(tx * TILE), oy = (int)(ty * TILE), oz = (int)(tz * TILE);
    /* The box without its edges and corners, which no interior site needs. */
    for (uint b = lid; b < BOX_SITES; b += TILE_ITEMS) {
        uint bx = b % HALO_EDGE, by = (b / HALO_EDGE) % HALO_EDGE, bz = DIM == 3 ? b / (HALO_EDGE * HALO_EDGE) : 1;
        uint on_halo = (bx == 0 || bx == TILE + 1) + (by == 0 || by == TILE + 1) + (bz == 0 || bz == TILE + 1);
        if (on_halo > 1) continue;
        uint gz = DIM == 3 ? wrap(oz + (int)bz - 1) : 0;
        uint site = wrap(ox + (int)bx - 1) + EDGE * (wrap(oy + (int)by - 1) + EDGE * gz);
        set_box_spin(box, b, load_spin(spins, site));
#ifdef GLASS
        /* Interior sites need all their +d couplings; of the halo only the
         * low faces' couplings pointing into the tile are read. */
        uint low_face = bx == 0 ? 1u : (by == 0 ? 2u : (DIM == 3 && bz == 0 ? 3u : 0u));
        for (uint d = 0; d < DIM; d++)
            if (on_halo == 0 || low_face == d + 1)
                jbox[d * BOX_SITES + b] = COUPLING(couplings, site, d);
#endif
    }
    (void)couplings;
    /* Global fence too: sites loaded here by one item are stored below by another. */
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    clmc_philox_key key = {{seed_lo, seed_hi}};
    uint lx[2], ly[2], lz[2], b[2], site[2];
    for (uint c = 0; c < 2; c++) {
        b[c] = item_box_site(lid, c, &lx[c], &ly[c], &lz[c]);
        site[c] = (uint)ox + lx[c] + EDGE * ((uint)oy + ly[c] + EDGE * ((uint)oz + lz[c]));
    }
    for (uint step = 0; step < mc_hits + or_steps; step++) {
        uint move = step < mc_hits ? mc_move : MOVE_OVERRELAXATION;
        for (uint c = 0; c < 2; c++) {
            spin_t s = update_spin(box_spin(box, b[c]), box_field(box, jbox, b[c]), move, beta, key, site[c], sweep,
                                   step, RUN_CONFIG(first_system, get_global_id(1)));
            set_box_spin(box, b[c], s);
            barrier(CLK_LOCAL_MEM_FENCE);
        }
    }
    for (uint c = 0; c < 2; c++) store_spin(spins, site[c], box_spin(box, b[c]));
}
#endif

#if defined(PLANE_TILE) && DIM == 3
/* Planes (Bernaschi et al.'s "two planes at a time", with a double
 * checkerboard over columns instead of their alternating boundary rule): a
 * work-group owns a PLANE_TILE x PLANE_TILE column of the x-y tile colour
 * `tile_colour` and marches up z two planes at a time.  A ring of four planes
 * (k - 1 .. k + 2, with x-y halo faces and couplings) sits in local memory;
 * the red sites of planes k and k + 1 are updated together (they do not
 * touch), then the blue ones, `mc_hits` + `or_steps` times; then planes k and
 * k + 1 go back to global memory and k + 3, k + 4 come in.  As a sequence of
 * single-site updates this is a valid sweep order; columns of the other
 * colour stay fixed meanwhile. */
#define RING_EDGE (PLANE_TILE + 2)
#define RING_SITES (RING_EDGE * RING_EDGE)
#define RING_PLANES 4
#define COLUMN_ITEMS (PLANE_TILE * PLANE_TILE)

/* Ring slot of plane z (z from -1 to EDGE, not wrapped). */
inline uint ring_slot(int z)
{
    return (uint)(z + 1) & 3u;
}

inline spin_t ring_spin(__local const real *ring, uint slot, uint b)
{
    __local const real *plane = ring + slot * NCOMP * RING_SITES;
#if NCOMP == 2
    return (spin_t)(plane[b], plane[RING_SITES + b]);
#else
    return (spin_t)(plane[b], plane[RING_SITES + b], plane[2 * RING_SITES + b]);
#endif
}

inline void set_ring_spin(__local real *ring, uint slot, uint b, spin_t s)
{
    __local real *plane = ring + slot * NCOMP * RING_SITES;
    plane[b] = s.x;
    plane[RING_SITES + b] = s.y;
#if NCOMP == 3
    plane[2 * RING_SITES + b] = s.z;
#endif
}

/* Plane z (wrapped for the global read) into its ring slot: the tile, its
 * x-y halo faces and (GLASS) the couplings that reach into the tile. */
inline void load_plane(__local real *ring, __local real *jring, __global const real *spins,
                       __global const real *couplings, int ox, int oy, int z)
{
    uint slot = ring_slot(z), gz = (uint)((z + EDGE) % EDGE);
    for (uint b = get_local_id(0); b < RING_SITES; b += COLUMN_ITEMS) {
        uint bx = b % RING_EDGE, by = b / RING_EDGE;
        uint on_halo = (bx == 0 || bx == PLANE_TILE + 1) + (by == 0 || by == PLANE_TILE + 1);
        if (on_halo > 1) continue;
        uint site = (uint)((ox + (int)bx - 1 + EDGE) % EDGE) + EDGE * ((uint)((oy + (int)by - 1 + EDGE) % EDGE) + EDGE * gz);
        set_ring_spin(ring, slot, b, load_spin(spins, site));
#ifdef GLASS
        uint low_face = bx == 0 ? 1u : (by == 0 ? 2u : 0u);
        for (uint d = 0; d < 3; d++)
            if ((on_halo == 0) || low_face == d + 1)
                jring[(slot * 3 + d) * RING_SITES + b] = COUPLING(couplings, site, d);
#endif
    }
    (void)jring;
    (void)couplings;
}

inline spin_t ring_field(__local const real *ring, __local const real *jring, int z, uint b)
{
    uint here = ring_slot(z), below = ring_slot(z - 1), above = ring_slot(z + 1);
#ifdef GLASS
    __local const real *j = jring + here * 3 * RING_SITES;
    spin_t h = j[b] * ring_spin(ring, here, b + 1) + j[b - 1] * ring_spin(ring, here, b - 1)
             + j[RING_SITES + b] * ring_spin(ring, here, b + RING_EDGE)
             + j[RING_SITES + b - RING_EDGE] * ring_spin(ring, here, b - RING_EDGE)
             + j[2 * RING_SITES + b] * ring_spin(ring, above, b)
             + jring[(below * 3 + 2) * RING_SITES + b] * ring_spin(ring, below, b);
#else
    (void)jring;
    spin_t h = ring_spin(ring, here, b + 1) + ring_spin(ring, here, b - 1) + ring_spin(ring, here, b + RING_EDGE)
             + ring_spin(ring, here, b - RING_EDGE) + ring_spin(ring, above, b) + ring_spin(ring, below, b);
#endif
    return h;
}

__kernel __attribute__((reqd_work_group_size(COLUMN_ITEMS, 1, 1)))
void heisenberg_planes_update(__global real *spins, uint seed_lo, uint seed_hi, uint sweep, uint tile_colour,
                              uint mc_hits, uint or_steps, __global const real *betas,
                              __global const real *couplings, uint mc_move, uint first_system)
{
    real beta = betas[get_global_id(1)];
    couplings = SAMPLE_COUPLINGS(couplings);
    __local real ring[RING_PLANES * NCOMP * RING_SITES];
#ifdef GLASS
    __local real jring[RING_PLANES * 3 * RING_SITES];
#else
    __local real jring[1];
#endif
    spins = CONFIG_SPINS(spins);
    uint group = get_group_id(0), lid = get_local_id(0);
    uint pairs_per_row = TILES_PER_EDGE / 2, ty = group / pairs_per_row;
    uint tx = 2 * (group % pairs_per_row) + ((ty + tile_colour) & 1);
    int ox = (int)(tx * PLANE_TILE), oy = (int)(ty * PLANE_TILE);
    clmc_philox_key key = {{seed_lo, seed_hi}};
    /* This item's plane (k or k + 1) and its place among that plane's sites of one colour. */
    uint upper = lid / (COLUMN_ITEMS / 2), index = lid % (COLUMN_ITEMS / 2);
    uint ly = index / (PLANE_TILE / 2), half_x = 2 * (index % (PLANE_TILE / 2));
    load_plane(ring, jring, spins, couplings, ox, oy, -1);
    load_plane(ring, jring, spins, couplings, ox, oy, 0);
    for (int k = 0; k < EDGE; k += 2) {
        load_plane(ring, jring, spins, couplings, ox, oy, k + 1);
        load_plane(ring, jring, spins, couplings, ox, oy, k + 2);
        /* Global fence too: sites loaded here by one item are stored below by another. */
        barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
        int z = k + (int)upper;
        uint b[2], site[2];
        for (uint c = 0; c < 2; c++) {
            uint lx = half_x + ((ly + (uint)z + c) & 1);
            b[c] = (lx + 1) + RING_EDGE * (ly + 1);
            site[c] = (uint)ox + lx + EDGE * ((uint)oy + ly + EDGE * (uint)z);
        }
        for (uint step = 0; step < mc_hits + or_steps; step++) {
            uint move = step < mc_hits ? mc_move : MOVE_OVERRELAXATION;
            for (uint c = 0; c < 2; c++) {
                spin_t s = update_spin(ring_spin(ring, ring_slot(z), b[c]), ring_field(ring, jring, z, b[c]), move, beta,
                                       key, site[c], sweep, step, RUN_CONFIG(first_system, get_global_id(1)));
                set_ring_spin(ring, ring_slot(z), b[c], s);
                barrier(CLK_LOCAL_MEM_FENCE);
            }
        }
        for (uint c = 0; c < 2; c++) store_spin(spins, site[c], ring_spin(ring, ring_slot(z), b[c]));
        /* Plane k + 2 is read from global memory in the next round when it
         * wraps to plane 0: the stores must be visible to this group. */
        barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    }
}
#endif

/* Per-work-group sums of the bond sum (s_i . s_j over the +x, +y(, +z)
 * bonds) and of the magnetisation components, each site's value rounded to
 * fixed point (FIXED_SCALE) so that the sums are exact, at
 * partials[4 * (slot * groups + group) + k]. */
__kernel __attribute__((reqd_work_group_size(MEASURE_WG, 1, 1)))
void heisenberg_measure(__global const real *spins, __global long *partials, uint slot,
                        __global const real *couplings)
{
    __local long sums[4 * MEASURE_WG];
    long total[4] = {0, 0, 0, 0};
    spins = CONFIG_SPINS(spins);
    couplings = SAMPLE_COUPLINGS(couplings);
    for (uint site = get_global_id(0); site < SITES; site += get_global_size(0)) {
        spin_t s = load_spin(spins, site), up = 0;
        for (uint d = 0; d < DIM; d++) up += COUPLING(couplings, site, d) * load_spin(spins, lattice_up(site, d));
        total[0] += convert_long_rte(DOT(s, up) * FIXED_SCALE);
        total[1] += convert_long_rte(s.x * FIXED_SCALE);
        total[2] += convert_long_rte(s.y * FIXED_SCALE);
#if NCOMP == 3
        total[3] += convert_long_rte(s.z * FIXED_SCALE);
#endif
    }
    uint lid = get_local_id(0);
    for (uint k = 0; k < 4; k++) sums[k * MEASURE_WG + lid] = total[k];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint stride = MEASURE_WG / 2; stride > 0; stride /= 2) {
        if (lid < stride)
            for (uint k = 0; k < 4; k++) sums[k * MEASURE_WG + lid] += sums[k * MEASURE_WG + lid + stride];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid < 4)
        partials[4 * (((size_t)slot * get_global_size(1) + get_global_id(1)) * get_num_groups(0) + get_group_id(0)) + lid] =
            sums[lid * MEASURE_WG];
}

#ifdef MEMBER_TOTALS
/* Population annealing (src/models/heisenberg/heisenberg.c): for every
 * configuration c < n, its H = -(bond sum) and |M| as doubles from the
 * exact fixed-point sums of measurement slot `slot` (heisenberg_measure,
 * `groups` partials each); the long sums are exact, the conversion, the
 * division by 2^30 and the correctly rounded square root of the sum in the
 * written order (no contraction) give the same bits on every device. */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL FP_CONTRACT OFF
__kernel void heisenberg_member_totals(__global const long *partials, uint slot, uint groups, uint n,
                                       __global double *energy, __global double *magnetisation)
{
    uint c = get_global_id(0);
    if (c >= n) return;
    __global const long *p = partials + 4 * ((size_t)slot * n + c) * groups;
    long t[4] = {0, 0, 0, 0};
    for (uint g = 0; g < groups; g++)
        for (uint k = 0; k < 4; k++) t[k] += p[4 * (size_t)g + k];
    const double scale = 1.0 / 1073741824.0;
    double mx = (double)t[1] * scale, my = (double)t[2] * scale, mz = (double)t[3] * scale;
    energy[c] = -((double)t[0] * scale);
    magnetisation[c] = sqrt((mx * mx + my * my) + mz * mz);
}
#endif
