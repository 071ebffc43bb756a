/* cl/common/repro_math.h on the device: division and square root equal to the
 * host's IEEE ones bit for bit (the device's correctly rounded path and the
 * integer path, subnormals and special values included), and sin, cos, exp,
 * expm1, log, log1p within a stated number of ulp of libm in double over
 * grids of their arguments. */
#include <criterion/criterion.h>
#include <stdbool.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "clmc/runtime.h"

#define VALUES 262144u
#define TWO_PI 6.283185307179586476925

typedef struct device_math {
    clmc_runtime *rt;
    cl_program program;
    cl_kernel kernel;
} device_math;

static bool device_rounds_divide_sqrt(clmc_runtime *rt)
{
    cl_device_id device;
    cr_assert_eq(clGetCommandQueueInfo(clmc_runtime_queue(rt), CL_QUEUE_DEVICE, sizeof device, &device, NULL),
                 CL_SUCCESS);
    cl_device_fp_config config = 0;
    cr_assert_eq(clGetDeviceInfo(device, CL_DEVICE_SINGLE_FP_CONFIG, sizeof config, &config, NULL), CL_SUCCESS);
    return (config & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) != 0;
}

/* The check kernel built with the device's correctly rounded division and
 * sqrt where it has them (cr), else with the integer paths only. */
static device_math open_math(bool cr)
{
    device_math m = {0};
    cr_assert_eq(clmc_runtime_open(NULL, &m.rt), CLMC_OK, "%s", clmc_error_message());
    bool has_cr = device_rounds_divide_sqrt(m.rt);
    printf("device: %s, correctly rounded divide/sqrt: %s; built %s\n", clmc_runtime_device(m.rt)->name,
           has_cr ? "yes" : "no", cr && has_cr ? "with it" : "with the integer paths");
    const char *options = cr && has_cr ? "-cl-std=CL1.2 -DCLMC_CR_DIVIDE_SQRT -cl-fp32-correctly-rounded-divide-sqrt"
                                       : "-cl-std=CL1.2";
    cr_assert_eq(clmc_program_build(m.rt, "common/repro_math_check.cl", options, &m.program), CLMC_OK, "%s",
                 clmc_error_message());
    cr_assert_eq(clmc_kernel_create(m.program, "repro_math_values", &m.kernel), CLMC_OK);
    return m;
}

static void close_math(device_math *m)
{
    clReleaseKernel(m->kernel);
    clReleaseProgram(m->program);
    clmc_runtime_close(m->rt);
}

static void evaluate(device_math *m, cl_uint which, const float *x, const float *y, float *out, cl_uint n)
{
    cl_int err;
    cl_context context = clmc_runtime_context(m->rt);
    cl_mem bx = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * sizeof(float), (void *)x, &err);
    cl_mem by = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * sizeof(float), (void *)y, &err);
    cl_mem bo = clCreateBuffer(context, CL_MEM_WRITE_ONLY, n * sizeof(float), NULL, &err);
    cr_assert_eq(err, CL_SUCCESS);
    clSetKernelArg(m->kernel, 0, sizeof bx, &bx);
    clSetKernelArg(m->kernel, 1, sizeof by, &by);
    clSetKernelArg(m->kernel, 2, sizeof bo, &bo);
    clSetKernelArg(m->kernel, 3, sizeof n, &n);
    clSetKernelArg(m->kernel, 4, sizeof which, &which);
    size_t global = n;
    cr_assert_eq(clmc_enqueue(m->rt, m->kernel, 1, &global, NULL, CLMC_UNTIMED), CLMC_OK);
    cr_assert_eq(clEnqueueReadBuffer(clmc_runtime_queue(m->rt), bo, CL_TRUE, 0, n * sizeof(float), out, 0, NULL, NULL),
                 CL_SUCCESS);
    clReleaseMemObject(bx);
    clReleaseMemObject(by);
    clReleaseMemObject(bo);
}

static uint64_t state = 0x9e3779b97f4a7c15ull;
static uint32_t random_word(void)
{
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return (uint32_t)(state >> 32);
}

static float from_bits(uint32_t bits)
{
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

static uint32_t bits_of(float f)
{
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    return bits;
}

/* Division and sqrt equal to the host's bit for bit (NaNs: any NaN). */
static void check_exact(bool cr, cl_uint div_which, cl_uint sqrt_which)
{
    device_math m = open_math(cr);
    static float x[VALUES], y[VALUES], out[VALUES];
    const float special[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1.0f, 1e-45f, 1.17549435e-38f, 3.4028235e38f, 0.5f};
    for (cl_uint i = 0; i < VALUES; i++) {
        x[i] = from_bits(random_word());
        y[i] = from_bits(random_word());
        if (i % 7 == 0) y[i] = from_bits((bits_of(x[i]) & 0xff800000u) ^ (random_word() & 0x807fffffu));
        if (i < 100) x[i] = special[i % 10], y[i] = special[i / 10];
        if (i % 5 == 1) x[i] = from_bits(random_word() & 0x807fffffu); /* subnormal */
    }
    unsigned long long wrong = 0;
    evaluate(&m, div_which, x, y, out, VALUES);
    for (cl_uint i = 0; i < VALUES; i++) {
        float want = x[i] / y[i];
        bool same = isnan(want) ? isnan(out[i]) : bits_of(want) == bits_of(out[i]);
        if (!same && wrong++ < 5) printf("  %a / %a: device %a, IEEE %a\n", x[i], y[i], out[i], want);
    }
    printf("division: %llu of %u differ from IEEE\n", wrong, VALUES);
    cr_expect_eq(wrong, 0);
    wrong = 0;
    evaluate(&m, sqrt_which, x, y, out, VALUES);
    for (cl_uint i = 0; i < VALUES; i++) {
        float want = sqrtf(x[i]);
        bool same = isnan(want) ? isnan(out[i]) : bits_of(want) == bits_of(out[i]);
        if (!same && wrong++ < 5) printf("  sqrt %a: device %a, IEEE %a\n", x[i], out[i], want);
    }
    printf("sqrt: %llu of %u differ from IEEE\n", wrong, VALUES);
    cr_expect_eq(wrong, 0);
    close_math(&m);
}

Test(repro_math, integer_division_and_sqrt_are_ieee)
{
    check_exact(false, 8, 9);
}

Test(repro_math, device_division_and_sqrt_are_ieee)
{
    check_exact(true, 6, 7);
}

/* sin and cos of 2 pi t for float t, in double with t reduced exactly. */
static double sin_turns(double t, bool cosine)
{
    double n = rint(4.0 * t), r = t - 0.25 * n, s = sin(TWO_PI * r), c = cos(TWO_PI * r);
    int quadrant = ((int)fmod(n, 4.0) + 4) & 3;
    double values[4][2] = {{s, c}, {c, -s}, {-s, -c}, {-c, s}};
    return values[quadrant][cosine];
}

static double reference(cl_uint which, float a)
{
    switch (which) {
    case 0: return sin_turns(a, false);
    case 1: return sin_turns(a, true);
    case 2: return exp((double)a);
    case 3: return expm1((double)a);
    case 4: return log((double)a);
    default: return log1p((double)a);
    }
}

/* The largest error in ulp of the float nearest the reference. */
static double max_ulp_error(device_math *m, cl_uint which, const float *x, cl_uint n, float *worst_at)
{
    static float y[VALUES], out[VALUES];
    evaluate(m, which, x, y, out, n);
    double worst = 0;
    for (cl_uint i = 0; i < n; i++) {
        double want = reference(which, x[i]);
        float nearest = (float)want;
        if (!isfinite(nearest) || nearest == 0.0f) {
            if (out[i] != nearest) worst = INFINITY, *worst_at = x[i];
            continue;
        }
        double ulp = nextafterf(fabsf(nearest), INFINITY) - fabsf(nearest);
        double error = fabs((double)out[i] - want) / ulp;
        if (error > worst || isnan(out[i])) worst = isnan(out[i]) ? INFINITY : error, *worst_at = x[i];
    }
    return worst;
}

Test(repro_math, functions_within_stated_ulp)
{
    device_math m = open_math(true);
    static float x[VALUES];
    const char *names[] = {"sin(2 pi t)", "cos(2 pi t)", "exp", "expm1", "log", "log1p"};
    /* Argument ranges: those the kernels use and beyond. */
    const double low[] = {-2.0, -2.0, -87.0, -10.0, 1e-30, -0.9999};
    const double high[] = {2.0, 2.0, 88.0, 10.0, 1e30, 10.0};
    const double bound[] = {2.5, 2.5, 2.0, 2.0, 2.0, 3.0};
    for (cl_uint which = 0; which < 6; which++) {
        for (cl_uint i = 0; i < VALUES; i++) {
            double u = (double)random_word() / 4294967296.0;
            bool log_spread = which == 4 || (i % 2 && which != 0 && which != 1);
            if (which == 4) x[i] = (float)exp(log(low[4]) + u * (log(high[4]) - log(low[4])));
            else if (log_spread) x[i] = (float)((random_word() & 1 ? -1 : 1) * exp(-30 + 30 * u)); /* near 0 */
            else x[i] = (float)(low[which] + u * (high[which] - low[which]));
            if (which == 5 && x[i] <= -1.0f) x[i] = -0.5f;
            if (which <= 1 && i % 3 == 0) x[i] = (float)(random_word() >> 8) * 0x1p-24f; /* the kernels' u */
        }
        float at = 0;
        double error = max_ulp_error(&m, which, x, VALUES, &at);
        printf("%-12s max error %.3f ulp (at %a), bound %.1f, over %u arguments\n", names[which], error, at,
               bound[which], VALUES);
        cr_expect_leq(error, bound[which], "%s", names[which]);
    }
    close_math(&m);
}
