/* Reproducible float math (algorithm.reproducible, docs/reproducibility.md):
 * functions whose every bit is fixed by IEEE 754 alone, so that every
 * conforming OpenCL implementation computes the same floats.  Built only from
 * + - * (correctly rounded in OpenCL's full profile), comparisons, exact
 * operations (rint, bit casts, integer arithmetic) and correctly rounded
 * division and square root: the device's own where it reports
 * CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT and the host passes
 * -cl-fp32-correctly-rounded-divide-sqrt with -DCLMC_CR_DIVIDE_SQRT, else the
 * exact integer paths below (the same results bit for bit).  Including this
 * file turns FP contraction off for the rest of the program: a fused a * b + c
 * is rounded once and differs from the unfused one.
 *
 * Subnormal results are never produced by repro_exp/repro_expm1 (they flush
 * to 0 below FLT_MIN); division and square root round subnormals as IEEE
 * does.  Accuracy (tests/test_repro_math.c, against libm in double): sin, cos,
 * exp, expm1, log, log1p within a few ulp; division and sqrt exact. */
#ifndef CLMC_REPRO_MATH_H
#define CLMC_REPRO_MATH_H

#pragma OPENCL FP_CONTRACT OFF

#define REPRO_NAN as_float(0x7fc00000u)

/* Sign, 24-bit significand (implicit bit included) and unbiased exponent of a
 * finite non-zero float, subnormals normalised: |x| = m 2^(e - 23). */
inline uint repro_unpack(float x, int *e)
{
    uint bits = as_uint(x) & 0x7fffffffu, biased = bits >> 23;
    uint m = bits & 0x7fffffu;
    if (biased == 0) {
        uint shift = clz(m) - 8u;
        *e = -126 - (int)shift;
        return m << shift;
    }
    *e = (int)biased - 127;
    return m | 0x800000u;
}

/* Rounds m 2^(e - 23) (m < 2^24 with `extra` more bits below it, `sticky`
 * when bits beyond those were non-zero) to nearest even, as a float with
 * sign bit `sign`; overflow to infinity, subnormals rounded as IEEE does. */
inline float repro_round(uint sign, ulong m_extra, uint extra, bool sticky, int e)
{
    int biased = e + 127;
    if (biased < 1) { /* subnormal: fewer significand bits */
        uint shift = (uint)(1 - biased);
        if (shift > 40u) return as_float(sign);
        sticky |= (m_extra & ((1ul << shift) - 1ul)) != 0;
        m_extra >>= shift;
        biased = 1;
    }
    ulong halfway = 1ul << (extra - 1), rest = m_extra & ((1ul << extra) - 1ul);
    uint m = (uint)(m_extra >> extra);
    if (rest > halfway || (rest == halfway && (sticky || (m & 1u)))) m++;
    if (biased >= 255 || (biased == 254 && m >= 0x1000000u)) return as_float(sign | 0x7f800000u);
    /* m includes the implicit bit, which carries into the exponent field;
     * m = 2^24 after rounding carries once more, as it should. */
    return as_float(sign | (((uint)(biased - 1) << 23) + m));
}

/* a / b rounded to nearest even, from a 64-bit integer quotient. */
inline float repro_div_soft(float a, float b)
{
    uint sign = (as_uint(a) ^ as_uint(b)) & 0x80000000u;
    if (isnan(a) || isnan(b) || (isinf(a) && isinf(b)) || (a == 0.0f && b == 0.0f)) return REPRO_NAN;
    if (isinf(a) || b == 0.0f) return as_float(sign | 0x7f800000u);
    if (a == 0.0f || isinf(b)) return as_float(sign);
    int ea, eb;
    uint ma = repro_unpack(a, &ea), mb = repro_unpack(b, &eb);
    int e = ea - eb;
    uint shift = 26u;
    if (ma < mb) { /* quotient below 1: one more bit, one lower exponent */
        shift = 27u;
        e--;
    }
    ulong numerator = (ulong)ma << shift;
    ulong q = numerator / mb; /* in [2^26, 2^27): 24 bits and 3 more */
    return repro_round(sign, q, 3u, numerator != q * mb, e);
}

/* sqrt(x) rounded to nearest even, from a 64-bit integer square root. */
inline float repro_sqrt_soft(float x)
{
    if (isnan(x) || x < 0.0f) return REPRO_NAN;
    if (x == 0.0f || isinf(x)) return x;
    int e;
    ulong m = repro_unpack(x, &e);
    if (e & 1) { /* even exponent: the root halves it exactly */
        m <<= 1;
        e--;
    }
    ulong n = m << 29; /* m 2^29 in [2^52, 2^54): root in [2^26, 2^27) */
    ulong root = (ulong)sqrt((float)n);
    root = (root + n / root) / 2u; /* Newton; the loops make it exact whatever the start */
    while (root * root > n) root--;
    while ((root + 1u) * (root + 1u) <= n) root++;
    /* sqrt(x) = sqrt(n) 2^((e - 52) / 2) and root has 27 bits: 24 and 3 more. */
    return repro_round(0u, root, 3u, root * root != n, e / 2);
}

inline float repro_div(float a, float b)
{
#ifdef CLMC_CR_DIVIDE_SQRT
    return a / b;
#else
    return repro_div_soft(a, b);
#endif
}

inline float repro_sqrt(float x)
{
#ifdef CLMC_CR_DIVIDE_SQRT
    return sqrt(x);
#else
    return repro_sqrt_soft(x);
#endif
}

/* sin(2 pi t) and cos(2 pi t) (*cosine): t reduced exactly to r in
 * [-1/8, 1/8] and a quadrant, then Cephes' single-precision polynomials on
 * x = 2 pi r, |x| <= pi / 4. */
inline float repro_sincos_turns(float t, float *cosine)
{
    float n = rint(4.0f * t);
    float r = t - 0.25f * n; /* exact */
    float x = 6.28318530717958648f * r, z = x * x;
    float s = ((-1.9515295891e-4f * z + 8.3321608736e-3f) * z - 1.6666654611e-1f) * z * x + x;
    float c = ((2.443315711809948e-5f * z - 1.388731625493765e-3f) * z + 4.166664568298827e-2f) * z * z
              - 0.5f * z + 1.0f;
    int quadrant = (int)fmod(n, 4.0f); /* fmod is exact */
    quadrant = (quadrant + 4) & 3;
    float sine = quadrant == 0 ? s : (quadrant == 1 ? c : (quadrant == 2 ? -s : -c));
    *cosine = quadrant == 0 ? c : (quadrant == 1 ? -s : (quadrant == 2 ? -c : s));
    return sine;
}

/* exp(x): x = k ln 2 + r (Cody-Waite, k ln2_hi exact), Cephes' polynomial on
 * |r| <= ln 2 / 2, times 2^k built from bits.  0 below -87 (no subnormals),
 * infinity above 88. */
inline float repro_exp(float x)
{
    if (isnan(x)) return x;
    if (x > 88.0f) return INFINITY;
    if (x < -87.0f) return 0.0f;
    float k = rint(x * 1.44269504088896341f);
    float r = (x - k * 0.693359375f) - k * -2.12194440e-4f;
    float z = r * r;
    float p = (((((1.9875691500e-4f * r + 1.3981999507e-3f) * r + 8.3334519073e-3f) * r + 4.1665795894e-2f) * r
                + 1.6666665459e-1f) * r + 5.0000001201e-1f) * z + r + 1.0f;
    return p * as_float((uint)((int)k + 127) << 23);
}

/* exp(x) - 1: a Taylor polynomial for |x| < 1/2 (no cancellation), else
 * repro_exp(x) - 1. */
inline float repro_expm1(float x)
{
    if (!(fabs(x) < 0.5f)) return x < -87.0f ? -1.0f : repro_exp(x) - 1.0f;
    /* 1 / n! for n = 9 .. 3, as exact float literals (no division at run time). */
    float p = 0x1.71de3ap-19f;
    p = p * x + 0x1.a01a02p-16f;
    p = p * x + 0x1.a01a02p-13f;
    p = p * x + 0x1.6c16c2p-10f;
    p = p * x + 0x1.111112p-7f;
    p = p * x + 0x1.555556p-5f;
    p = p * x + 0x1.555556p-3f;
    p = p * x + 0.5f;
    return (p * x) * x + x;
}

/* log(x): x = 2^k (1 + f), sqrt(2)/2 <= 1 + f < sqrt(2), and musl's logf
 * polynomial in s = f / (2 + f). */
inline float repro_log(float x)
{
    if (isnan(x) || x < 0.0f) return REPRO_NAN;
    if (x == 0.0f) return -INFINITY;
    if (isinf(x)) return x;
    int e;
    uint m = repro_unpack(x, &e);
    float one_plus_f = as_float((m & 0x7fffffu) | 0x3f800000u); /* [1, 2) */
    if (one_plus_f > 1.41421356f) {
        one_plus_f *= 0.5f;
        e++;
    }
    float f = one_plus_f - 1.0f; /* exact */
    float s = repro_div(f, 2.0f + f), z = s * s, w = z * z;
    float t1 = w * (0.40000972152f + w * 0.24279078841f);
    float t2 = z * (0.66666662693f + w * 0.28498786688f);
    float hfsq = 0.5f * f * f, k = (float)e;
    return s * (hfsq + (t2 + t1)) + k * 9.0580006145e-06f - hfsq + f + k * 6.9313812256e-01f;
}

/* log(1 + y) by Kahan's correction: u = 1 + y rounded, log(u) y / (u - 1). */
inline float repro_log1p(float y)
{
    float u = 1.0f + y;
    if (u == 1.0f) return y;
    return repro_log(u) * repro_div(y, u - 1.0f);
}

#endif
