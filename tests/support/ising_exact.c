/* Exact partition function, energy and specific heat of the L x L periodic 2D Ising model
 * from Kaufman's four-term formula (Kaufman 1949; Ferdinand & Fisher 1969). */
#include "ising_exact.h"

#include <math.h>

/*
 * With K = beta and N = L^2,
 *   Z = 1/2 (2 sinh 2K)^(N/2) (Z1 + Z2 + Z3 + Z4),
 *   Z1 = prod_{r<L} 2 cosh(L g_{2r+1}/2),  Z2 = prod_{r<L} 2 sinh(L g_{2r+1}/2),
 *   Z3 = prod_{r<L} 2 cosh(L g_{2r}/2),    Z4 = prod_{r<L} 2 sinh(L g_{2r}/2),
 *   cosh g_l = cosh 2K coth 2K - cos(pi l / L) for l >= 1,   g_0 = 2K + ln tanh K.
 * Everything is carried as a value with its first two derivatives in K, so U
 * and C come out analytically.
 */

static const long double PI_L = 3.141592653589793238462643383279502884L;

/* A function of K with its first and second derivatives. */
typedef struct {
    long double value, d1, d2;
} jet;

static jet jet_scale(jet a, long double factor)
{
    return (jet){a.value * factor, a.d1 * factor, a.d2 * factor};
}

static jet jet_add(jet a, jet b)
{
    return (jet){a.value + b.value, a.d1 + b.d1, a.d2 + b.d2};
}

/* g_0 is the only gamma that changes sign (at K_c), which makes Z4 negative above T_c. */
static jet kaufman_gamma_zero(long double K)
{
    long double s = sinhl(2 * K);
    return (jet){2 * K + logl(tanhl(K)), 2 + 2 / s, -4 * coshl(2 * K) / (s * s)};
}

/* From cosh g = A(K) - cos(pi l/L) with A = cosh^2 2K / sinh 2K; g > 0 for l >= 1. */
static jet kaufman_gamma(int l, int L, long double K)
{
    long double s = sinhl(2 * K), c = coshl(2 * K);
    long double a = c * c / s;
    long double a1 = 2 * c * (1 - 1 / (s * s));
    long double a2 = 4 * (s - 1 / s + 2 * c * c / (s * s * s));
    long double cos_l = cosl(PI_L * l / L);
    long double cosh_g = a - cos_l;
    /* a - 1 >= 1, so cosh_g - 1 is formed without cancellation. */
    long double sinh_g = sqrtl(((a - 1) - cos_l) * (cosh_g + 1));
    long double d1 = a1 / sinh_g;
    return (jet){logl(cosh_g + sinh_g), d1, (a2 - cosh_g * d1 * d1) / sinh_g};
}

/* ln(2 cosh x) or ln(2 sinh x) of x(K) > 0, written with e^{-2x} so large x cannot overflow. */
static jet log_two_cosh_or_sinh(jet x, int is_sinh)
{
    long double e = expl(-2 * x.value), one_minus_e = -expm1l(-2 * x.value);
    long double log_value = x.value + (is_sinh ? log1pl(-e) : log1pl(e));
    long double ratio = is_sinh ? (1 + e) / one_minus_e : one_minus_e / (1 + e); /* coth or tanh */
    long double curvature = is_sinh ? -4 * e / (one_minus_e * one_minus_e) : 4 * e / ((1 + e) * (1 + e));
    return (jet){log_value, ratio * x.d1, curvature * x.d1 * x.d1 + ratio * x.d2};
}

/* 2 cosh x or 2 sinh x itself, for the g_0 factor whose x may be zero or negative. */
static jet two_cosh_or_sinh(jet x, int is_sinh)
{
    long double ch = 2 * coshl(x.value), sh = 2 * sinhl(x.value);
    long double same = is_sinh ? sh : ch, other = is_sinh ? ch : sh;
    return (jet){same, other * x.d1, same * x.d1 * x.d1 + other * x.d2};
}

/* Z_i = exp(log_rest) * factor: the g_0 factor is kept out of the logarithm
 * because ln|Z4| diverges at K_c while Z4 and its derivatives stay finite. */
typedef struct {
    jet log_rest;
    jet factor;
} kaufman_term;

static void kaufman_terms(int L, long double K, kaufman_term terms[4])
{
    jet zero = {0, 0, 0}, one = {1, 0, 0};
    for (int i = 0; i < 4; i++) terms[i] = (kaufman_term){zero, one};
    for (int l = 1; l < 2 * L; l++) {
        jet x = jet_scale(kaufman_gamma(l, L, K), 0.5L * L);
        int first = (l % 2 == 1) ? 0 : 2;
        terms[first].log_rest = jet_add(terms[first].log_rest, log_two_cosh_or_sinh(x, 0));
        terms[first + 1].log_rest = jet_add(terms[first + 1].log_rest, log_two_cosh_or_sinh(x, 1));
    }
    jet x0 = jet_scale(kaufman_gamma_zero(K), 0.5L * L);
    terms[2].factor = two_cosh_or_sinh(x0, 0);
    terms[3].factor = two_cosh_or_sinh(x0, 1);
}

/* ln(Z1 + Z2 + Z3 + Z4) with derivatives.  The second derivative is summed as
 * sum_i Z_i'' - 2 m Z_i' + m^2 Z_i (m = d ln S/dK), which avoids subtracting
 * two numbers of order N^2 to get one of order N. */
static jet log_kaufman_sum(const kaufman_term terms[4])
{
    long double largest = terms[0].log_rest.value;
    for (int i = 1; i < 4; i++)
        if (terms[i].log_rest.value > largest) largest = terms[i].log_rest.value;

    long double scale[4], sum = 0, sum_d1 = 0;
    for (int i = 0; i < 4; i++) {
        const jet *b = &terms[i].log_rest, *f = &terms[i].factor;
        scale[i] = expl(b->value - largest);
        sum += scale[i] * f->value;
        sum_d1 += scale[i] * (b->d1 * f->value + f->d1);
    }
    long double slope = sum_d1 / sum, sum_d2 = 0;
    for (int i = 0; i < 4; i++) {
        const jet *b = &terms[i].log_rest, *f = &terms[i].factor;
        long double delta = b->d1 - slope;
        sum_d2 += scale[i] * ((b->d2 + delta * delta) * f->value + 2 * delta * f->d1 + f->d2);
    }
    return (jet){largest + logl(sum), slope, sum_d2 / sum};
}

static jet ising2d_log_z_jet(int L, long double K)
{
    kaufman_term terms[4];
    kaufman_terms(L, K, terms);
    long double spins = (long double)L * L, s = sinhl(2 * K);
    jet prefactor = {-logl(2) + 0.5L * spins * logl(2 * s), spins * coshl(2 * K) / s, -2 * spins / (s * s)};
    return jet_add(prefactor, log_kaufman_sum(terms));
}

double ising2d_exact_log_z(int L, double beta)
{
    return (double)ising2d_log_z_jet(L, beta).value;
}

void ising2d_exact(int L, double beta, double *energy_per_spin, double *specific_heat_per_spin)
{
    jet log_z = ising2d_log_z_jet(L, beta);
    long double spins = (long double)L * L;
    if (energy_per_spin) *energy_per_spin = (double)(-log_z.d1 / spins);
    if (specific_heat_per_spin)
        *specific_heat_per_spin = (double)((long double)beta * beta * log_z.d2 / spins);
}
