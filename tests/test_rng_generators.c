/* The alternative generators of cl/common/rng_*.h on the host: published known answers,
 * skip-ahead against stepping and against the closed form, lagged Fibonacci against a
 * plain array recursion, and a statistical sanity check shown to fail for broken variants. */
#include <criterion/criterion.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/rng_lagfib.h"
#include "common/rng_lcg.h"
#include "common/rng_philox.h"
#include "common/rng_xorwow.h"

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* ---- Philox4x32-7 ---- */

typedef struct { uint32_t ctr[4], key[2], expected[4]; int rounds; } philox_kat;

/* The first three: Random123's tests/kat_vectors (D. E. Shaw Research), lines
 * "philox4x32 7 ...", as quoted verbatim in E. Sarmas' philox.py (TEST_CASES) and in
 * quanta_rand's tests; the 10-round line beside them is the one tests/support/rng_kat.h
 * holds. The rest: Random123's examples/kat_vectors (girving/random123-manual, commit
 * 61e8479), whose 10-round line checks that file's column order (ctr, key, out). */
static const philox_kat philox_kats[] = {
    {{0, 0, 0, 0}, {0, 0}, {0x5f6fb709, 0x0d893f64, 0x4f121f81, 0x4f730a48}, 7},
    {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff},
     {0x5207ddc2, 0x45165e59, 0x4d8ee751, 0x8c52f662}, 7},
    {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0},
     {0x4dfccaba, 0x190a87f0, 0xc47362ba, 0xb6b5242a}, 7},
    {{1, 0, 0, 0}, {1, 0}, {0x6b3257c3, 0x820c5486, 0x4de08b66, 0x8771d665}, 7},
    {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0, 0xffffffff},
     {0x80fda6c5, 0x33db1407, 0x042deee8, 0x0dec8a67}, 7},
    {{0, 0, 0, 0x80000000}, {0, 0x80000000}, {0x323abc61, 0x28b9f4ce, 0x59d8d353, 0x01a9cf42}, 7},
    {{0x452821e6, 0x38d01377, 0xbe5466cf, 0x34e90c6c}, {1, 0},
     {0x3c182998, 0x851c52ae, 0x22df9a24, 0x805a4e26}, 7},
    {{1, 0, 0, 0}, {1, 0}, {0xac08141b, 0xdfc5ccbe, 0x79c07a47, 0xa7f66093}, 10},
};

Test(rng_generators, philox4x32_7_known_answers)
{
    for (size_t i = 0; i < sizeof philox_kats / sizeof philox_kats[0]; i++) {
        const philox_kat *kat = &philox_kats[i];
        clmc_philox_ctr ctr = {{kat->ctr[0], kat->ctr[1], kat->ctr[2], kat->ctr[3]}};
        clmc_philox_key key = {{kat->key[0], kat->key[1]}};
        clmc_philox_ctr out = kat->rounds == 7 ? clmc_philox4x32_7(ctr, key) : clmc_philox4x32_10(ctr, key);
        printf("philox4x32-%d vector %zu: got %08x %08x %08x %08x, expected %08x %08x %08x %08x\n",
               kat->rounds, i, out.v[0], out.v[1], out.v[2], out.v[3], kat->expected[0],
               kat->expected[1], kat->expected[2], kat->expected[3]);
        for (int k = 0; k < 4; k++)
            cr_expect_eq(out.v[k], kat->expected[k], "vector %zu word %d", i, k);
    }
}

/* ---- LCGs: skip-ahead ---- */

typedef unsigned __int128 u128;

static u128 mulmod(u128 a, u128 b, u128 m) /* needs 2 m < 2^128 */
{
    u128 r = 0;
    a %= m;
    for (; b; b >>= 1) {
        if (b & 1) r = (r + a) % m;
        a = (a + a) % m;
    }
    return r;
}

static u128 powmod(u128 a, uint64_t n, u128 m)
{
    u128 r = 1 % m;
    for (; n; n >>= 1) {
        if (n & 1) r = mulmod(r, a, m);
        a = mulmod(a, a, m);
    }
    return r;
}

/* The seed's eq. 5 without repeated squaring of the map: x_n = a^n x_0 + c (a^n - 1)/(a - 1)
 * mod 2^bits, the division done exactly by working modulo 2^bits (a - 1). */
static void closed_form_jump(uint64_t a, uint64_t c, int bits, uint64_t n, uint64_t *mul, uint64_t *add)
{
    u128 word = (u128)1 << bits;
    u128 big = word * (a - 1);
    u128 geometric = (powmod(a, n, big) - 1) / (a - 1);
    *mul = (uint64_t)(powmod(a, n, word));
    *add = (uint64_t)(mulmod(geometric, c, word));
}

Test(rng_generators, lcg_skip_ahead_equals_stepping)
{
    /* One long walk, checked at n = 0, 1, 2, 4, ..., 2^26 and at a few odd n. */
    const uint32_t seed32 = 0x2545f491u;
    const uint64_t seed64 = 0x9e3779b97f4a7c15ull;
    uint32_t x32 = seed32;
    uint64_t x64 = seed64;
    uint64_t next_power = 1, checks = 0;
    for (uint64_t n = 0; n <= (1ull << 26); n++) {
        if (n == 0 || n == next_power || n == 12345 || n == 999983 || n == 33554467) {
            if (n == next_power) next_power <<= 1;
            cr_assert_eq(clmc_lcg32_skip(seed32, n), x32, "lcg32 n = %llu", (unsigned long long)n);
            cr_assert_eq(clmc_lcg64_skip(seed64, n), x64, "lcg64 n = %llu", (unsigned long long)n);
            checks++;
        }
        x32 = clmc_lcg32_step(x32);
        x64 = clmc_lcg64_step(x64);
    }
    printf("lcg32, lcg64: skip-ahead equal to stepping at %llu values of n up to 2^26\n",
           (unsigned long long)checks);
    cr_expect_eq(checks, 31u); /* 0, 2^0..2^26 and three odd n */
    /* Full period of the 32-bit generator (Hull-Dobell): 2^32 steps are the identity. */
    clmc_lcg32_map period = clmc_lcg32_jump(1ull << 32);
    cr_expect(period.mul == 1u && period.add == 0u, "lcg32 jump(2^32) = (%u, %u)", period.mul, period.add);
}

Test(rng_generators, lcg_skip_ahead_equals_closed_form)
{
    /* The seed's likely LCG64 constants (L'Ecuyer 1999 multiplier, offset as recalled,
     * not in our copy of the seed) check the generic map power as well. */
    const uint64_t alt_a = 2862933555777941757ull, alt_c = 1013904243ull;
    uint64_t rng = 7;
    for (int i = 0; i < 200; i++) {
        uint64_t n = i < 41 ? (i == 0 ? 0 : 1ull << (i - 1)) : splitmix64(&rng) >> 24; /* < 2^40 */
        uint64_t mul, add;
        closed_form_jump(CLMC_LCG32_A, CLMC_LCG32_C, 32, n, &mul, &add);
        clmc_lcg32_map m32 = clmc_lcg32_jump(n);
        cr_assert(m32.mul == mul && m32.add == add, "lcg32 n = %llu", (unsigned long long)n);
        closed_form_jump(CLMC_LCG64_A, CLMC_LCG64_C, 64, n, &mul, &add);
        clmc_lcg64_map m64 = clmc_lcg64_jump(n);
        cr_assert(m64.mul == mul && m64.add == add, "lcg64 n = %llu", (unsigned long long)n);
        closed_form_jump(alt_a, alt_c, 64, n, &mul, &add);
        clmc_lcg64_map alt = clmc_lcg64_map_power((clmc_lcg64_map){alt_a, alt_c}, n);
        cr_assert(alt.mul == mul && alt.add == add, "lcg64 (L'Ecuyer a) n = %llu", (unsigned long long)n);
    }
    printf("lcg32, lcg64 (two constant sets): jump(n) equal to the closed form for n = 0, 2^0..2^39"
           " and 159 random n < 2^40\n");
}

Test(rng_generators, lcg_streams_partition_one_sequence)
{
    enum { STREAMS = 37, STRIDE = 1000 };
    const uint32_t seed = 12345u;
    /* Blocked: stream i, stepped STRIDE times, arrives where stream i + 1 starts. */
    for (uint32_t i = 0; i < STREAMS; i++) {
        uint32_t x = clmc_lcg32_stream_start(seed, i, STRIDE);
        uint64_t y = clmc_lcg64_stream_start(seed, i, STRIDE);
        for (int k = 0; k < STRIDE; k++) {
            x = clmc_lcg32_step(x);
            y = clmc_lcg64_step(y);
        }
        cr_assert_eq(x, clmc_lcg32_stream_start(seed, i + 1, STRIDE));
        cr_assert_eq(y, clmc_lcg64_stream_start(seed, i + 1, STRIDE));
    }
    /* Interleaved: stream i emits x_{i+k}, x_{i+2k}, ... of the one sequence. */
    uint32_t sequence[STREAMS * 20 + 1];
    sequence[0] = seed;
    for (int n = 1; n <= STREAMS * 20; n++) sequence[n] = clmc_lcg32_step(sequence[n - 1]);
    clmc_lcg32_map stride = clmc_lcg32_jump(STREAMS);
    for (uint32_t i = 0; i < STREAMS; i++) {
        uint32_t x = clmc_lcg32_skip(seed, i);
        for (int k = 1; i + (uint32_t)k * STREAMS <= STREAMS * 20; k++) {
            x = clmc_lcg32_apply(stride, x);
            cr_assert_eq(x, sequence[i + k * STREAMS], "stream %u number %d", i, k);
        }
    }
}

Test(rng_generators, lcg_random_seeds_from_philox)
{
    clmc_philox_key key = {{2024u, 7u}};
    clmc_philox_ctr a = clmc_random4(key, 5u, 0u, CLMC_GENERATOR_LCG32, CLMC_PURPOSE_GENERATOR_SEED);
    clmc_philox_ctr b = clmc_random4(key, 5u, 0u, CLMC_GENERATOR_LCG64, CLMC_PURPOSE_GENERATOR_SEED);
    cr_expect_eq(clmc_lcg32_random_seed(key, 5u), a.v[0]);
    cr_expect_eq(clmc_lcg64_random_seed(key, 5u), ((uint64_t)b.v[1] << 32 | b.v[0]));
    cr_expect_neq(clmc_lcg32_random_seed(key, 5u), clmc_lcg32_random_seed(key, 6u));
}

/* ---- Lagged Fibonacci ---- */

enum { LAGFIB_OUTPUTS = 100000 };

/* The plain recursion over one long array, x[0..r) the seed words. */
static uint32_t *lagfib_reference(clmc_philox_key key, uint32_t stream, uint32_t r, uint32_t s)
{
    uint32_t *x = malloc((r + LAGFIB_OUTPUTS) * sizeof *x);
    cr_assert_not_null(x);
    for (uint32_t i = 0; i < r; i++) {
        clmc_philox_ctr c = clmc_random4(key, stream, i / 4, CLMC_GENERATOR_LAGFIB, CLMC_PURPOSE_GENERATOR_SEED);
        x[i] = c.v[i % 4] | (i == 0 ? 1u : 0u);
    }
    for (uint32_t n = r; n < r + LAGFIB_OUTPUTS; n++) x[n] = x[n - r] + x[n - s];
    return x;
}

static void check_lagfib(uint32_t r, uint32_t s)
{
    clmc_philox_key key = {{99u, 1u}};
    const uint32_t stream = 3;
    uint32_t *expected = lagfib_reference(key, stream, r, s);
    uint32_t *ring = malloc(r * sizeof *ring);
    cr_assert_not_null(ring);

    /* One work-item, one number at a time. */
    for (uint32_t i = 0; i < r; i++) ring[i] = clmc_lagfib_seed_word(key, stream, i);
    cr_assert(ring[0] & 1u);
    uint32_t pos = 0;
    for (uint32_t n = 0; n < LAGFIB_OUTPUTS; n++) {
        uint32_t x = clmc_lagfib_next(ring, r, s, &pos);
        cr_assert_eq(x, expected[r + n], "lags (%u, %u) output %u", r, s, n);
    }

    /* Batches of the largest width, each item reading and writing with no barrier in
     * between, taken in reverse order (a read-after-write hazard would show). */
    const uint32_t width = CLMC_LAGFIB_MAX_BATCH(r, s);
    for (uint32_t i = 0; i < r; i++) ring[i] = clmc_lagfib_seed_word(key, stream, i);
    pos = 0;
    uint32_t made = 0;
    while (made + width <= LAGFIB_OUTPUTS) {
        for (uint32_t t = width; t-- > 0;) {
            uint32_t slot = clmc_lagfib_long_index(pos, t, r);
            ring[slot] += ring[clmc_lagfib_short_index(pos, t, r, s)];
            cr_assert_eq(ring[slot], expected[r + made + t], "lags (%u, %u) batch output %u", r, s, made + t);
        }
        pos = clmc_lagfib_advance(pos, width, r);
        made += width;
    }
    printf("lagged Fibonacci (%u, %u): %d outputs one by one and %u in batches of %u equal to the "
           "array recursion\n", r, s, LAGFIB_OUTPUTS, made, width);
    free(ring);
    free(expected);
}

Test(rng_generators, lagged_fibonacci_521_against_array_recursion)
{
    check_lagfib(CLMC_LAGFIB_521_R, CLMC_LAGFIB_521_S);
}

Test(rng_generators, lagged_fibonacci_1279_against_array_recursion)
{
    check_lagfib(CLMC_LAGFIB_1279_R, CLMC_LAGFIB_1279_S);
    check_lagfib(CLMC_LAGFIB_1279_R, CLMC_LAGFIB_1279_861_S);
}

/* An independent reference: outputs 1, 2, 3, 1000 and 100000 of the plain recursion
 * from the ring x_i = (i * 0x9E3779B9 + 1) mod 2^32, i < r, computed in Python with
 * unbounded integers:
 *   x = [(i * 0x9E3779B9 + 1) % 2**32 for i in range(r)]
 *   for n in range(r, r + 100000): x.append((x[n - r] + x[n - s]) % 2**32)
 *   print([x[r:][i] for i in (0, 1, 2, 999, 99999)]) */
Test(rng_generators, lagged_fibonacci_against_python_table)
{
    static const struct { uint32_t r, s, expected[5]; } table[] = {
        {521, 353, {3563577706u, 282514652u, 1296418894u, 404966011u, 232805832u}},
        {1279, 861, {1452589076u, 2466493318u, 3480397560u, 1423965304u, 3461067934u}},
        {1279, 418, {546595639u, 1560499881u, 2574404123u, 429696667u, 4194996126u}},
    };
    static const uint32_t at[5] = {0, 1, 2, 999, 99999};
    for (size_t k = 0; k < sizeof table / sizeof table[0]; k++) {
        uint32_t r = table[k].r, s = table[k].s, pos = 0, *ring = malloc(r * sizeof *ring);
        cr_assert_not_null(ring);
        for (uint32_t i = 0; i < r; i++) ring[i] = i * 0x9E3779B9u + 1u;
        for (uint32_t n = 0, j = 0; n < 100000; n++) {
            uint32_t x = clmc_lagfib_next(ring, r, s, &pos);
            if (n == at[j]) cr_expect_eq(x, table[k].expected[j++], "lags (%u, %u) output %u", r, s, n + 1);
        }
        free(ring);
    }
}

/* Numerical Recipes' quick generator (ranqd1) from 0: the first outputs, computed in
 * Python as x = (1664525 * x + 1013904223) % 2**32. */
Test(rng_generators, lcg32_numerical_recipes_first_outputs)
{
    static const uint32_t expected[3] = {1013904223u, 1196435762u, 3519870697u};
    uint32_t x = 0;
    for (int i = 0; i < 3; i++) cr_expect_eq(x = clmc_lcg32_step(x), expected[i], "output %d", i + 1);
}

/* ---- xorwow ---- */

Test(rng_generators, xorwow_published_first_outputs)
{
    /* Marsaglia's xorwow from his seeds: the first 20 outputs as listed ("first twenty
     * numbers from cpp reference") in chrisakroyd/random-seedable test/xorwow tests; the
     * first 9 also in dlang/phobos std/random.d, unittest of Xorshift192 (= xorwow,
     * "Result from reference implementation"). Marsaglia's paper prints no outputs. */
    static const uint32_t expected[20] = {
        246875399u,  3690007200u, 1264581005u, 3906711041u, 1866187943u, 2481925219u, 2464530826u,
        1604040631u, 3653403911u, 3578085384u, 1200525144u, 4095560648u, 505361588u,  4238824340u,
        1727412667u, 4242574606u, 1873697870u, 2935408675u, 77509492u,   3202066555u,
    };
    clmc_xorwow_state s = clmc_xorwow_marsaglia();
    for (int i = 0; i < 20; i++) {
        uint32_t x = clmc_xorwow_next(&s);
        printf("xorwow output %d: %u (published %u)\n", i + 1, x, expected[i]);
        cr_expect_eq(x, expected[i], "output %d", i + 1);
    }
}

Test(rng_generators, xorwow_seeding)
{
    clmc_xorwow_state zero = clmc_xorwow_from_words(0, 0, 0, 0, 0, 17);
    cr_expect(zero.v[0] == 1u && zero.d == 17u, "the all-zero xorshift state is moved off its fixed point");
    clmc_xorwow_state kept = clmc_xorwow_from_words(0, 0, 0, 0, 8, 17);
    cr_expect(kept.v[0] == 0u && kept.v[4] == 8u);
    clmc_philox_key key = {{1u, 2u}};
    clmc_philox_ctr a = clmc_random4(key, 9u, 0u, CLMC_GENERATOR_XORWOW, CLMC_PURPOSE_GENERATOR_SEED);
    clmc_philox_ctr b = clmc_random4(key, 9u, 1u, CLMC_GENERATOR_XORWOW, CLMC_PURPOSE_GENERATOR_SEED);
    clmc_xorwow_state s = clmc_xorwow_seed(key, 9u);
    cr_expect(s.v[0] == a.v[0] && s.v[3] == a.v[3] && s.v[4] == b.v[0] && s.d == b.v[1]);
}

/* ---- statistical sanity ---- */

enum { SAMPLES = 1000000, STREAM_LENGTH = 1000, CELLS = 16 };

typedef enum {
    GEN_PHILOX7, GEN_LCG32, GEN_LCG32_RANDOM, GEN_LCG64, GEN_LCG64_RANDOM, GEN_LAGFIB521,
    GEN_LAGFIB1279, GEN_XORWOW, GEN_BROKEN_LAGFIB_SAME_LAGS, GEN_BROKEN_LCG32_LOW_BYTE, GEN_COUNT
} generator;

static const char *const generator_names[GEN_COUNT] = {
    "philox4x32_7", "lcg32", "lcg32_random", "lcg64", "lcg64_random", "lagged_fibonacci_521",
    "lagged_fibonacci_1279", "xorwow", "broken: lagged Fibonacci with s = r",
    "broken: lcg32 low byte as output",
};

/* SAMPLES words, as kernels would draw them: STREAM_LENGTH numbers from each stream
 * in turn (streams by skip-ahead, by Philox seeds, or one work-group ring). */
static void fill(generator g, uint32_t *out)
{
    clmc_philox_key key = {{31337u, 0u}};
    uint32_t ring[1279], pos = 0, x32 = 0;
    uint64_t x64 = 0;
    clmc_xorwow_state xw = clmc_xorwow_marsaglia();
    uint32_t r = g == GEN_LAGFIB1279 ? 1279u : 521u, s = g == GEN_LAGFIB1279 ? 418u : 353u;
    if (g == GEN_BROKEN_LAGFIB_SAME_LAGS) s = r; /* the typo: x_n = 2 x_{n-r} */
    if (g == GEN_LAGFIB521 || g == GEN_LAGFIB1279 || g == GEN_BROKEN_LAGFIB_SAME_LAGS)
        for (uint32_t i = 0; i < r; i++) ring[i] = clmc_lagfib_seed_word(key, 0u, i);
    for (uint32_t n = 0; n < SAMPLES; n++) {
        uint32_t stream = n / STREAM_LENGTH;
        int first = n % STREAM_LENGTH == 0;
        switch (g) {
        case GEN_PHILOX7:
            out[n] = clmc_philox4x32_7(clmc_stream_counter(n / 4, 0u, 0u, CLMC_PURPOSE_METROPOLIS), key).v[n % 4];
            break;
        case GEN_LCG32:
        case GEN_BROKEN_LCG32_LOW_BYTE:
            if (first) x32 = clmc_lcg32_stream_start(1u, stream, STREAM_LENGTH);
            x32 = clmc_lcg32_step(x32);
            out[n] = g == GEN_LCG32 ? x32 : x32 << 24;
            break;
        case GEN_LCG32_RANDOM:
            if (first) x32 = clmc_lcg32_random_seed(key, stream);
            out[n] = x32 = clmc_lcg32_step(x32);
            break;
        case GEN_LCG64:
        case GEN_LCG64_RANDOM:
            if (first)
                x64 = g == GEN_LCG64 ? clmc_lcg64_stream_start(1u, stream, STREAM_LENGTH)
                                     : clmc_lcg64_random_seed(key, stream);
            x64 = clmc_lcg64_step(x64);
            out[n] = clmc_lcg64_word(x64);
            break;
        case GEN_LAGFIB521:
        case GEN_LAGFIB1279:
        case GEN_BROKEN_LAGFIB_SAME_LAGS:
            out[n] = clmc_lagfib_next(ring, r, s, &pos);
            break;
        case GEN_XORWOW:
            if (first) xw = clmc_xorwow_seed(key, stream);
            out[n] = clmc_xorwow_next(&xw);
            break;
        default:
            cr_assert_fail("no generator %d", (int)g);
        }
    }
}

typedef struct { double mean_z, correlation_z, pairs_z; } sanity;

/* z-scores of: the mean of u = (word + 1/2) / 2^32 against 1/2 (standard error
 * sqrt(1/12 / N)); the lag-1 correlation of successive u against 0 (error 1/sqrt(N));
 * chi-square of successive pairs in 16 x 16 cells against its 255 degrees of freedom
 * ((chi2 - 255) / sqrt(2 * 255)). */
static sanity check(generator g)
{
    uint32_t *words = malloc(SAMPLES * sizeof *words);
    cr_assert_not_null(words);
    fill(g, words);
    double sum = 0, lagged = 0, previous = 0;
    static double counts[CELLS * CELLS];
    for (int i = 0; i < CELLS * CELLS; i++) counts[i] = 0;
    for (int n = 0; n < SAMPLES; n++) {
        double u = ((double)words[n] + 0.5) * 0x1.0p-32;
        sum += u;
        if (n > 0) lagged += (u - 0.5) * (previous - 0.5);
        if (n % 2 == 1) counts[(words[n - 1] >> 28) * CELLS + (words[n] >> 28)] += 1;
        previous = u;
    }
    free(words);
    double expected = (SAMPLES / 2) / (double)(CELLS * CELLS), chi2 = 0;
    for (int i = 0; i < CELLS * CELLS; i++) chi2 += (counts[i] - expected) * (counts[i] - expected) / expected;
    double dof = CELLS * CELLS - 1;
    sanity z = {
        .mean_z = (sum / SAMPLES - 0.5) / sqrt(1.0 / 12.0 / SAMPLES),
        .correlation_z = lagged / (SAMPLES - 1) * 12.0 * sqrt((double)SAMPLES),
        .pairs_z = (chi2 - dof) / sqrt(2 * dof),
    };
    printf("%-38s mean %+8.2f sigma, lag-1 correlation %+8.2f sigma, pairs chi2 %+9.2f sigma\n",
           generator_names[g], z.mean_z, z.correlation_z, z.pairs_z);
    return z;
}

Test(rng_generators, uniforms_pass_sanity_checks)
{
    for (int g = 0; g < GEN_BROKEN_LAGFIB_SAME_LAGS; g++) {
        sanity z = check((generator)g);
        cr_expect(fabs(z.mean_z) < 5, "%s: mean off by %.2f sigma", generator_names[g], z.mean_z);
        cr_expect(fabs(z.correlation_z) < 5, "%s: correlation %.2f sigma", generator_names[g], z.correlation_z);
        cr_expect(fabs(z.pairs_z) < 5, "%s: pairs %.2f sigma", generator_names[g], z.pairs_z);
    }
}

Test(rng_generators, sanity_checks_fail_for_broken_variants)
{
    /* x_n = 2 x_{n-r} loses one low bit per generation: all words reach 0. */
    sanity same_lags = check(GEN_BROKEN_LAGFIB_SAME_LAGS);
    cr_expect(fabs(same_lags.mean_z) > 5, "the mean check misses the doubling recursion");
    /* The low byte of an LCG has period 256: few distinct pairs. */
    sanity low_byte = check(GEN_BROKEN_LCG32_LOW_BYTE);
    cr_expect(fabs(low_byte.pairs_z) > 5, "the pairs check misses the low byte's period");
}
