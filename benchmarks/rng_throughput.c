/* 32-bit random numbers per second of every generator of algorithm.rng on one device
 * (the seeds' Fig. 4 / Table 2 column): the random-number ceiling of the update kernels.
 * Stateful generators load and store their state once per launch, as an update kernel
 * does once per sweep; --numbers sets how many numbers each work-item makes between.
 * Every generator's first launch is checked against the host bodies; --check stops there.
 * Usage: rng_throughput [DEVICE] [--numbers N] [--json FILE] [--check] */
#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clmc/runtime.h"
#include "reference/host_rng.h"

#define ITEMS (1u << 20)
#define LAGFIB_GROUP 128u /* numbers per batch: at most CLMC_LAGFIB_MAX_BATCH of every lag pair */
#define REPETITIONS 5

typedef struct {
    clmc_rng_kind kind;
    const char *kernel;
    unsigned lag_r, lag_s;       /* lagged Fibonacci only */
    size_t state_bytes_per_item; /* global-memory state each work-item loads and stores */
} generator;

static const generator GENERATORS[] = {
    {CLMC_RNG_PHILOX4X32_10, "philox4x32_10_numbers", 0, 0, 0},
    {CLMC_RNG_PHILOX4X32_7, "philox4x32_7_numbers", 0, 0, 0},
    {CLMC_RNG_LCG32, "lcg32_numbers", 0, 0, 4},
    {CLMC_RNG_LCG64, "lcg64_numbers", 0, 0, 8},
    {CLMC_RNG_LCG32_RANDOM, "lcg32_numbers", 0, 0, 4},
    {CLMC_RNG_LCG64_RANDOM, "lcg64_numbers", 0, 0, 8},
    {CLMC_RNG_LAGFIB_521, "lagfib_numbers", CLMC_LAGFIB_521_R, CLMC_LAGFIB_521_S, 0},
    {CLMC_RNG_LAGFIB_1279, "lagfib_numbers", CLMC_LAGFIB_1279_R, CLMC_LAGFIB_1279_861_S, 0},
    {CLMC_RNG_LAGFIB_1279_418, "lagfib_numbers", CLMC_LAGFIB_1279_R, CLMC_LAGFIB_1279_S, 0},
    {CLMC_RNG_XORWOW, "xorwow_numbers", 0, 0, 24},
};
enum { GENERATOR_COUNT = sizeof GENERATORS / sizeof GENERATORS[0] };

typedef struct {
    double numbers_per_second;
    double state_bytes_per_number;
} measurement;

static int fail(void)
{
    fprintf(stderr, "rng_throughput: %s\n", clmc_error_message());
    return 3;
}

static size_t state_bytes(const generator *g)
{
    if (g->lag_r) return (size_t)(ITEMS / LAGFIB_GROUP) * (g->lag_r + 1) * sizeof(cl_uint);
    return (size_t)ITEMS * (g->state_bytes_per_item ? g->state_bytes_per_item : sizeof(cl_uint));
}

/* The states as the device kernels seed them (rng_lcg.h, rng_lagfib.h, rng_xorwow.h);
 * the skip-ahead streams split lcg32's period evenly and start 2^32 apart in lcg64's. */
static void *initial_state(const generator *g, clmc_philox_key key)
{
    unsigned char *bytes = calloc(1, state_bytes(g));
    if (!bytes) return NULL;
    cl_uint *words = (cl_uint *)bytes;
    cl_ulong *longs = (cl_ulong *)bytes;
    for (cl_uint i = 0; i < ITEMS; i++) {
        switch (g->kind) {
        case CLMC_RNG_LCG32: words[i] = clmc_lcg32_stream_start(key.v[0], i, (1ull << 32) / ITEMS); break;
        case CLMC_RNG_LCG32_RANDOM: words[i] = clmc_lcg32_random_seed(key, i); break;
        case CLMC_RNG_LCG64: longs[i] = clmc_lcg64_stream_start(key.v[0], i, 1ull << 32); break;
        case CLMC_RNG_LCG64_RANDOM: longs[i] = clmc_lcg64_random_seed(key, i); break;
        case CLMC_RNG_XORWOW: {
            clmc_xorwow_state s = clmc_xorwow_seed(key, i);
            for (int k = 0; k < 5; k++) words[(size_t)k * ITEMS + i] = s.v[k];
            words[(size_t)5 * ITEMS + i] = s.d;
            break;
        }
        default: break;
        }
    }
    if (g->lag_r) /* rings, then one position per group (0) */
        for (cl_uint group = 0; group < ITEMS / LAGFIB_GROUP; group++)
            for (cl_uint k = 0; k < g->lag_r; k++) words[(size_t)group * g->lag_r + k] = clmc_lagfib_seed_word(key, group, k);
    return bytes;
}

static clmc_status time_launches(clmc_runtime *rt, cl_kernel kernel, const size_t *local, double *seconds)
{
    size_t global = ITEMS;
    clmc_runtime_reset_clock(rt);
    for (int rep = 0; rep < REPETITIONS; rep++) CLMC_TRY(clmc_enqueue(rt, kernel, 1, &global, local, CLMC_TIMED));
    return clmc_runtime_finish(rt, seconds);
}

/* The first launch from the initial state against the host bodies: item i's XOR for
 * the first work-group's items (lagged Fibonacci: batch b's item t makes number
 * b * group + t of the ring's sequence). */
static clmc_status verify_first_launch(clmc_runtime *rt, const generator *g, cl_kernel kernel, const size_t *local,
                                       cl_mem sink, cl_uint numbers, const void *initial, clmc_philox_key key)
{
    size_t global = ITEMS;
    CLMC_TRY(clmc_enqueue(rt, kernel, 1, &global, local, CLMC_UNTIMED));
    unsigned char *copy;
    CLMC_TRY(clmc_buffer_download(rt, sink, LAGFIB_GROUP * sizeof(cl_uint), &copy));
    const cl_uint *words = initial;
    const cl_ulong *longs = initial;
    cl_uint expected[LAGFIB_GROUP] = {0}, ring[CLMC_LAGFIB_1279_R], pos = 0;
    if (g->lag_r)
        for (cl_uint k = 0; k < g->lag_r; k++) ring[k] = words[k];
    for (cl_uint n = 0; g->lag_r && n < numbers * LAGFIB_GROUP; n++)
        expected[n % LAGFIB_GROUP] ^= clmc_lagfib_next(ring, g->lag_r, g->lag_s, &pos);
    for (cl_uint i = 0; i < LAGFIB_GROUP && !g->lag_r; i++) {
        cl_uint x32 = words ? words[i] : 0;
        cl_ulong x64 = longs ? longs[i] : 0;
        clmc_xorwow_state s = {{0}, 0};
        if (g->kind == CLMC_RNG_XORWOW) {
            for (int k = 0; k < 5; k++) s.v[k] = words[(size_t)k * ITEMS + i];
            s.d = words[(size_t)5 * ITEMS + i];
        }
        for (cl_uint d = 0; d < numbers; d++) {
            switch (g->kind) {
            case CLMC_RNG_PHILOX4X32_10:
            case CLMC_RNG_PHILOX4X32_7:
                if (d % 4 == 0 && d + 4 <= numbers) {
                    clmc_philox_ctr c = clmc_stream_counter(i + d / 4 * ITEMS, 0, 0, CLMC_PURPOSE_METROPOLIS);
                    clmc_philox_ctr r = g->kind == CLMC_RNG_PHILOX4X32_10 ? clmc_philox4x32_10(c, key)
                                                                         : clmc_philox4x32_7(c, key);
                    expected[i] ^= r.v[0] ^ r.v[1] ^ r.v[2] ^ r.v[3];
                }
                break;
            case CLMC_RNG_LCG32:
            case CLMC_RNG_LCG32_RANDOM: expected[i] ^= x32 = clmc_lcg32_step(x32); break;
            case CLMC_RNG_LCG64:
            case CLMC_RNG_LCG64_RANDOM: expected[i] ^= clmc_lcg64_word(x64 = clmc_lcg64_step(x64)); break;
            default: expected[i] ^= clmc_xorwow_next(&s); break;
            }
        }
    }
    const cl_uint *device = (const cl_uint *)copy;
    clmc_status status = CLMC_OK;
    for (cl_uint i = 0; i < LAGFIB_GROUP && status == CLMC_OK; i++)
        if (device[i] != expected[i])
            status = clmc_fail(CLMC_ERR_OTHER, "%s: work-item %u made %08x, the host %08x", clmc_rng_names[g->kind], i,
                               device[i], expected[i]);
    free(copy);
    return status;
}

static clmc_status measure(clmc_runtime *rt, const generator *g, cl_uint numbers, cl_mem sink, bool check_only,
                           measurement *m)
{
    char options[128];
    snprintf(options, sizeof options, "-cl-std=CL1.2 -DLAGFIB_R=%uu -DLAGFIB_S=%uu", g->lag_r ? g->lag_r : 521u,
             g->lag_r ? g->lag_s : 353u);
    cl_program program;
    cl_kernel kernel;
    CLMC_TRY(clmc_program_build(rt, "common/rng_throughput.cl", options, &program));
    clmc_status status = clmc_kernel_create(program, g->kernel, &kernel);
    clReleaseProgram(program);
    CLMC_TRY(status);

    clmc_philox_key key = {{1u, 0u}};
    cl_uint seed = 1;
    cl_mem state = NULL, positions = NULL;
    cl_int err = CL_SUCCESS;
    clSetKernelArg(kernel, 0, sizeof sink, &sink);
    clSetKernelArg(kernel, 1, sizeof numbers, &numbers);
    void *host = NULL;
    if (g->state_bytes_per_item || g->lag_r) {
        host = initial_state(g, key);
        if (!host) status = clmc_fail(CLMC_ERR_OTHER, "out of host memory");
        size_t ring_bytes = g->lag_r ? (size_t)(ITEMS / LAGFIB_GROUP) * g->lag_r * sizeof(cl_uint) : state_bytes(g);
        if (host) state = clCreateBuffer(clmc_runtime_context(rt), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, ring_bytes,
                                         host, &err);
        if (host && err == CL_SUCCESS && g->lag_r)
            positions = clCreateBuffer(clmc_runtime_context(rt), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                       (ITEMS / LAGFIB_GROUP) * sizeof(cl_uint), (cl_uint *)host + ITEMS / LAGFIB_GROUP * g->lag_r,
                                       &err);
        if (status == CLMC_OK && err != CL_SUCCESS) status = clmc_fail(CLMC_ERR_DEVICE, "clCreateBuffer: %d", err);
        clSetKernelArg(kernel, 2, sizeof state, &state);
        if (positions) clSetKernelArg(kernel, 3, sizeof positions, &positions);
    } else {
        clSetKernelArg(kernel, 2, sizeof seed, &seed);
    }
    size_t group = LAGFIB_GROUP;
    const size_t *local = g->lag_r ? &group : NULL;
    double warm = 0, seconds = 0;
    if (status == CLMC_OK) status = verify_first_launch(rt, g, kernel, local, sink, numbers, host, key);
    free(host);
    if (status == CLMC_OK && !check_only) status = time_launches(rt, kernel, local, &warm);
    if (status == CLMC_OK && !check_only) status = time_launches(rt, kernel, local, &seconds);
    if (status == CLMC_OK && !check_only) {
        double total = (double)REPETITIONS * ITEMS * (g->kind <= CLMC_RNG_PHILOX4X32_7 ? numbers / 4 * 4 : numbers);
        m->numbers_per_second = total / seconds;
        bool stateful = g->state_bytes_per_item || g->lag_r;
        m->state_bytes_per_number = stateful ? 2.0 * (double)state_bytes(g) * REPETITIONS / total : 0.0; /* loaded and stored */
    }
    if (state) clReleaseMemObject(state);
    if (positions) clReleaseMemObject(positions);
    clReleaseKernel(kernel);
    return status;
}

static void write_json(const char *path, const clmc_device_info *d, cl_uint numbers, const measurement *m)
{
    cJSON *root = cJSON_CreateObject(), *device = cJSON_AddObjectToObject(root, "device");
    cJSON_AddStringToObject(root, "schema", "clmc-rng-throughput");
    cJSON_AddNumberToObject(root, "format_version", 2);
    cJSON_AddStringToObject(device, "name", d->name);
    cJSON_AddStringToObject(device, "driver", d->driver);
    cJSON_AddStringToObject(device, "platform", d->platform);
    cJSON_AddNumberToObject(root, "numbers_per_item", numbers);
    cJSON_AddNumberToObject(root, "items", ITEMS);
    /* Format 1's figure: Philox4x32-10 calls (four numbers each) per second. */
    cJSON_AddNumberToObject(root, "draws_per_second", m[0].numbers_per_second / 4);
    cJSON *list = cJSON_AddArrayToObject(root, "generators");
    for (int k = 0; k < GENERATOR_COUNT; k++) {
        cJSON *entry = cJSON_CreateObject();
        cJSON_AddStringToObject(entry, "name", clmc_rng_names[GENERATORS[k].kind]);
        cJSON_AddNumberToObject(entry, "numbers_per_second", m[k].numbers_per_second);
        cJSON_AddNumberToObject(entry, "ps_per_number", 1e12 / m[k].numbers_per_second);
        cJSON_AddNumberToObject(entry, "state_bytes_per_number", m[k].state_bytes_per_number);
        cJSON_AddItemToArray(list, entry);
    }
    char *text = cJSON_Print(root);
    FILE *f = fopen(path, "w");
    if (f && text) fprintf(f, "%s\n", text);
    if (f) fclose(f);
    free(text);
    cJSON_Delete(root);
}

int main(int argc, char **argv)
{
    const char *device = NULL, *json = NULL;
    cl_uint numbers = 256;
    bool check_only = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--check") == 0) {
            check_only = true;
        } else if (strcmp(argv[i], "--json") == 0 && i + 1 < argc) {
            json = argv[++i];
        } else if (strcmp(argv[i], "--numbers") == 0 && i + 1 < argc) {
            char *end;
            unsigned long v = strtoul(argv[++i], &end, 10);
            if (*end || v < 4 || v > 65536 || v % 4) {
                fprintf(stderr, "rng_throughput: --numbers: '%s' is not a multiple of 4 in 4 .. 65536\n", argv[i]);
                return 2;
            }
            numbers = (cl_uint)v;
        } else {
            device = argv[i];
        }
    }
    clmc_runtime *rt;
    if (clmc_runtime_open(device, &rt) != CLMC_OK) return fail();
    cl_int err;
    cl_mem sink = clCreateBuffer(clmc_runtime_context(rt), CL_MEM_WRITE_ONLY, ITEMS * sizeof(cl_uint), NULL, &err);
    if (err != CL_SUCCESS) return fail();
    const clmc_device_info *d = clmc_runtime_device(rt);
    measurement m[GENERATOR_COUNT];
    printf("%s (%s), %u numbers per work-item and launch:\n", d->name, d->driver, numbers);
    for (int k = 0; k < GENERATOR_COUNT; k++) {
        if (measure(rt, &GENERATORS[k], numbers, sink, check_only, &m[k]) != CLMC_OK) return fail();
        if (check_only) {
            printf("  %-26s first launch equal to the host bodies\n", clmc_rng_names[GENERATORS[k].kind]);
            continue;
        }
        printf("  %-26s %10.4g numbers/s  %8.3f ps per number  %6.3f state bytes per number\n",
               clmc_rng_names[GENERATORS[k].kind], m[k].numbers_per_second, 1e12 / m[k].numbers_per_second,
               m[k].state_bytes_per_number);
    }
    if (json && !check_only) write_json(json, d, numbers, m);
    clReleaseMemObject(sink);
    clmc_runtime_close(rt);
    return 0;
}
