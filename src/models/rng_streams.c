/* algorithm.rng: names, kernel defines and device states (rng_streams.h). */
#include "models/rng_streams.h"

#include <stdio.h>
#include <string.h>

#include "common/rng_lagfib.h"
#include "common/rng_lcg.h"

const char *const clmc_rng_names[] = {
    "philox4x32_10",        "philox4x32_7",          "lcg32", "lcg64", "lcg32_random", "lcg64_random",
    "lagged_fibonacci_521", "lagged_fibonacci_1279", "lagged_fibonacci_1279_418", "xorwow", "lcg64_reseeded", NULL,
};

clmc_rng_kind clmc_rng_from_preset(const clmc_preset *p)
{
    const char *name = clmc_preset_string(p, "algorithm.rng");
    for (int k = 0; name && clmc_rng_names[k]; k++)
        if (strcmp(name, clmc_rng_names[k]) == 0) return (clmc_rng_kind)k;
    return CLMC_RNG_PHILOX4X32_10; /* the schema admits only the names above */
}

bool clmc_rng_stateful(clmc_rng_kind kind)
{
    /* lcg64_reseeded: states only within a launch, seeded from Philox. */
    return kind != CLMC_RNG_PHILOX4X32_10 && kind != CLMC_RNG_PHILOX4X32_7 && kind != CLMC_RNG_LCG64_RESEEDED;
}

bool clmc_rng_lagfib(clmc_rng_kind kind, unsigned *r, unsigned *s, unsigned *batch)
{
    unsigned long_lag = 0, short_lag = 0;
    if (kind == CLMC_RNG_LAGFIB_521) long_lag = CLMC_LAGFIB_521_R, short_lag = CLMC_LAGFIB_521_S;
    /* (1279, 861) as the seed's source uses it; (1279, 418) as the issue names it. */
    if (kind == CLMC_RNG_LAGFIB_1279) long_lag = CLMC_LAGFIB_1279_R, short_lag = CLMC_LAGFIB_1279_861_S;
    if (kind == CLMC_RNG_LAGFIB_1279_418) long_lag = CLMC_LAGFIB_1279_R, short_lag = CLMC_LAGFIB_1279_S;
    if (r) *r = long_lag;
    if (s) *s = short_lag;
    if (batch) *batch = long_lag ? CLMC_LAGFIB_MAX_BATCH(long_lag, short_lag) : 0;
    return long_lag != 0;
}

/* 32-bit words of one stream's state. */
static size_t words_per_stream(clmc_rng_kind kind)
{
    unsigned r;
    if (clmc_rng_lagfib(kind, &r, NULL, NULL)) return r;
    switch (kind) {
    case CLMC_RNG_LCG32:
    case CLMC_RNG_LCG32_RANDOM: return 1;
    case CLMC_RNG_LCG64:
    case CLMC_RNG_LCG64_RANDOM: return 2;
    case CLMC_RNG_XORWOW: return 6;
    default: return 0;
    }
}

size_t clmc_rng_state_bytes(clmc_rng_kind kind, unsigned long long streams, unsigned long long configs)
{
    return (size_t)(words_per_stream(kind) * streams * configs * sizeof(cl_uint));
}

size_t clmc_rng_own_ring_state_bytes(clmc_rng_kind kind, unsigned long long streams, unsigned long long configs)
{
    size_t positions = clmc_rng_lagfib(kind, NULL, NULL, NULL) ? (size_t)(streams * configs * sizeof(cl_uint)) : 0;
    return clmc_rng_state_bytes(kind, streams, configs) + positions;
}

/* The bytes of a model's streams as allocated. */
static size_t streams_bytes(const clmc_rng_streams *g)
{
    return g->own_rings ? clmc_rng_own_ring_state_bytes(g->kind, g->streams, g->configs)
                        : clmc_rng_state_bytes(g->kind, g->streams, g->configs);
}

void clmc_rng_defines(const clmc_rng_streams *g, clmc_defines *d)
{
    unsigned r, s, batch;
    switch (g->kind) {
    case CLMC_RNG_PHILOX4X32_10: return;
    case CLMC_RNG_PHILOX4X32_7: clmc_defines_flag(d, "RNG_PHILOX7"); return;
    case CLMC_RNG_LCG64_RESEEDED: clmc_defines_flag(d, "RNG_LCG_RESEEDED"); return;
    case CLMC_RNG_LCG32:
    case CLMC_RNG_LCG32_RANDOM: clmc_defines_flag(d, "RNG_LCG32"); break;
    case CLMC_RNG_LCG64:
    case CLMC_RNG_LCG64_RANDOM: clmc_defines_flag(d, "RNG_LCG64"); break;
    case CLMC_RNG_XORWOW: clmc_defines_flag(d, "RNG_XORWOW"); break;
    default:
        clmc_rng_lagfib(g->kind, &r, &s, &batch);
        clmc_defines_flag(d, "RNG_LAGFIB");
        clmc_defines_int(d, "LAGFIB_R", r);
        clmc_defines_int(d, "LAGFIB_S", s);
        clmc_defines_int(d, "LAGFIB_BATCH", batch);
        if (g->own_rings) clmc_defines_flag(d, "RNG_LAGFIB_OWN");
        break;
    }
    clmc_defines_flag(d, "RNG_STATEFUL");
    clmc_defines_int(d, "RNG_STREAMS", g->streams);
    clmc_defines_int(d, "RNG_CONFIGS", g->configs);
    /* Skip-ahead: the streams of a system interleave in one sequence (Weigel 2011,
     * eq. 4), each stepping over the others with the map of `streams` steps. */
    char text[96];
    if (g->kind == CLMC_RNG_LCG32) {
        clmc_lcg32_map jump = clmc_lcg32_jump(g->streams);
        clmc_defines_flag(d, "RNG_SKIP");
        snprintf(text, sizeof text, "-DRNG_JUMP_MUL=%uu -DRNG_JUMP_ADD=%uu", (unsigned)jump.mul, (unsigned)jump.add);
        clmc_defines_text(d, text);
    }
    if (g->kind == CLMC_RNG_LCG64) {
        clmc_lcg64_map jump = clmc_lcg64_jump(g->streams);
        clmc_defines_flag(d, "RNG_SKIP");
        snprintf(text, sizeof text, "-DRNG_JUMP_MUL=%lluul -DRNG_JUMP_ADD=%lluul", (unsigned long long)jump.mul,
                 (unsigned long long)jump.add);
        clmc_defines_text(d, text);
    }
}

clmc_status clmc_rng_streams_create(clmc_runtime *rt, cl_program program, clmc_rng_streams *g, cl_uint seed_lo,
                                    cl_uint seed_hi, cl_uint first_system)
{
    size_t bytes = streams_bytes(g);
    if (!bytes) return CLMC_OK;
    CLMC_TRY(clmc_buffer_create(rt, bytes, NULL, "rng states", &g->states));
    cl_kernel init;
    CLMC_TRY(clmc_kernel_create(program, "rng_init", &init));
    cl_int err = clSetKernelArg(init, 0, sizeof(cl_mem), &g->states);
    if (err == CL_SUCCESS) err = clSetKernelArg(init, 1, sizeof(cl_uint), &seed_lo);
    if (err == CL_SUCCESS) err = clSetKernelArg(init, 2, sizeof(cl_uint), &seed_hi);
    if (err == CL_SUCCESS) err = clSetKernelArg(init, 3, sizeof(cl_uint), &first_system);
    unsigned r;
    size_t global[2] = {(size_t)g->streams * (clmc_rng_lagfib(g->kind, &r, NULL, NULL) ? r : 1), g->configs};
    clmc_status status = err == CL_SUCCESS ? clmc_enqueue(rt, init, 2, global, NULL, CLMC_UNTIMED) : CLMC_OK;
    CLMC_CL_WARN(clReleaseKernel(init)); /* the queue keeps an enqueued kernel alive */
    CLMC_CL_CHECK(err, "clSetKernelArg(rng_init)");
    return status;
}

void clmc_rng_streams_release(clmc_rng_streams *g)
{
    if (g->states) CLMC_CL_WARN(clReleaseMemObject(g->states));
    g->states = NULL;
}

clmc_status clmc_rng_streams_download(clmc_runtime *rt, const clmc_rng_streams *g, unsigned char *blob)
{
    size_t bytes = streams_bytes(g);
    if (bytes)
        CLMC_CL_TRY(clEnqueueReadBuffer(clmc_runtime_queue(rt), g->states, CL_TRUE, 0, bytes, blob, 0, NULL, NULL));
    return CLMC_OK;
}

clmc_status clmc_rng_streams_upload(clmc_runtime *rt, const clmc_rng_streams *g, const unsigned char *blob)
{
    size_t bytes = streams_bytes(g);
    if (bytes)
        CLMC_CL_TRY(clEnqueueWriteBuffer(clmc_runtime_queue(rt), g->states, CL_TRUE, 0, bytes, blob, 0, NULL, NULL));
    return CLMC_OK;
}
