/* The functions of repro_math.h on arrays of inputs, for tests/test_repro_math.c
 * (function `which`: 0 sin(2 pi x), 1 cos(2 pi x), 2 exp, 3 expm1, 4 log,
 * 5 log1p, 6 x / y, 7 sqrt, 8 x / y by the integer path, 9 sqrt by it). */
#include "common/repro_math.h"

__kernel void repro_math_values(__global const float *x, __global const float *y, __global float *out, uint n,
                                uint which)
{
    uint i = get_global_id(0);
    if (i >= n) return;
    float a = x[i], b = y[i], cosine, value;
    switch (which) {
    case 0: value = repro_sincos_turns(a, &cosine); break;
    case 1: repro_sincos_turns(a, &cosine); value = cosine; break;
    case 2: value = repro_exp(a); break;
    case 3: value = repro_expm1(a); break;
    case 4: value = repro_log(a); break;
    case 5: value = repro_log1p(a); break;
    case 6: value = repro_div(a, b); break;
    case 7: value = repro_sqrt(a); break;
    case 8: value = repro_div_soft(a, b); break;
    default: value = repro_sqrt_soft(a); break;
    }
    out[i] = value;
}
