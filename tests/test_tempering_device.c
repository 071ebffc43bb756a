/* The device exchange kernel (cl/ensembles/tempering.cl) makes the host's exchange
 * decisions (src/ensembles/tempering.c) bit for bit: maps, headings, per-pair accepted
 * counts and round trips after every one of many exchanges with integer
 * energies (and leaves every energy 0), across the 2^32 boundary of the
 * exchange counter; and EA msc runs
 * with exchanges on the device equal to the host path's (ensemble.exchanges "host")
 * bit for bit: series.csv and every observable, tempering report included. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clmc/preset.h"
#include "clmc/runtime.h"
#include "clmc/status.h"
#include "common/philox.h"
#include "ensembles/ensemble.h"
#include "ensembles/tempering.h"
#include "ensembles/tempering_table.h"
#include "physics.h"
#include "testenv.h"

#define SYSTEMS 300
#define TEMPERATURES 16
#define CONFIGS (SYSTEMS * TEMPERATURES)
#define EXCHANGES 200
#define FIRST_EXCHANGE ((UINT64_C(1) << 32) - EXCHANGES / 2)

/* The tempering map of a preset's ensemble section, as a run makes it. */
static clmc_status tempering_from_preset(clmc_tempering *pt, const clmc_preset *preset, const clmc_model_shape *shape)
{
    static clmc_ensemble_settings settings;
    CLMC_TRY(clmc_ensemble_settings_read(preset, &settings));
    return clmc_tempering_init(pt, settings.betas, settings.n_betas, settings.exchange_every, settings.seed, shape, 0, 0);
}

/* The fake model: even integer energies drawn around a level that falls
 * with the temperature a configuration sits at, so that about half the
 * exchanges are accepted. */
static int test_energies[CONFIGS];
/* The same on the device as EA msc keeps them, halved and negated: energy
 * scale -2. */
#define ENERGY_SCALE (-2)
static cl_int device_energies[CONFIGS];

static clmc_status fake_energies(void *state, double *energies)
{
    (void)state;
    for (unsigned c = 0; c < CONFIGS; c++) energies[c] = test_energies[c];
    return CLMC_OK;
}

static clmc_status fake_set_betas(void *state, const double *betas, const unsigned *temperature_of)
{
    (void)state, (void)betas, (void)temperature_of;
    return CLMC_OK;
}

static void draw_energies(const clmc_tempering *pt, uint32_t round)
{
    clmc_philox_key key = {{99, 1}};
    for (unsigned c = 0; c < CONFIGS; c++) {
        clmc_philox_ctr ctr = {{c, round, 0x7e57, 0}};
        uint32_t word = clmc_philox4x32_10(ctr, key).v[0];
        test_energies[c] = 2 * (-300 - 10 * (int)pt->temperature_of[c] + (int)(word % 31) - 15);
        device_energies[c] = test_energies[c] / ENERGY_SCALE;
    }
}

static cl_mem make_buffer(clmc_runtime *rt, size_t bytes, void *host)
{
    cl_int err;
    cl_mem buffer = clCreateBuffer(clmc_runtime_context(rt), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, host, &err);
    cr_assert_eq(err, CL_SUCCESS, "clCreateBuffer: %s", clmc_cl_error_name(err));
    return buffer;
}

static void read_buffer(clmc_runtime *rt, cl_mem buffer, size_t bytes, void *host)
{
    cr_assert_eq(clEnqueueReadBuffer(clmc_runtime_queue(rt), buffer, CL_TRUE, 0, bytes, host, 0, NULL, NULL),
                 CL_SUCCESS);
}

/* A runtime on the default device and `name` of cl/ensembles/tempering.cl built for
 * `temperatures`. */
static cl_kernel tempering_kernel(unsigned temperatures, const char *name, clmc_runtime **rt, cl_program *program)
{
    *rt = NULL;
    cr_assert_eq(clmc_runtime_open(NULL, rt), CLMC_OK, "%s", clmc_error_message());
    char options[64];
    snprintf(options, sizeof options, "-cl-std=CL1.2 -DTEMPERATURES=%u", temperatures);
    cr_assert_eq(clmc_program_build(*rt, "ensembles/tempering.cl", options, program), CLMC_OK, "%s",
                 clmc_error_message());
    cl_kernel kernel;
    cr_assert_eq(clmc_kernel_create(*program, name, &kernel), CLMC_OK);
    return kernel;
}

static void release_tempering_kernel(clmc_runtime *rt, cl_program program, cl_kernel kernel, cl_mem *buffers,
                                     size_t n_buffers)
{
    for (size_t i = 0; i < n_buffers; i++) clReleaseMemObject(buffers[i]);
    clReleaseKernel(kernel);
    clReleaseProgram(program);
    clmc_runtime_close(rt);
}

Test(tempering_device, kernel_equals_host_exchanges)
{
    static const char text[] =
        "{\"model\": {\"type\": \"ea_ising\", \"dim\": 3, \"L\": 8, \"couplings\": \"bimodal\", \"realizations\": 64},"
        " \"algorithm\": {\"layout\": \"msc\"}, \"ensemble\": {\"type\": \"parallel_tempering\", \"betas\":"
        " [0.6, 0.63, 0.66, 0.69, 0.72, 0.75, 0.78, 0.81, 0.84, 0.87, 0.9, 0.93, 0.96, 0.99, 1.02, 1.05],"
        " \"exchange_every\": 10}, \"run\": {\"sweeps\": 10, \"seed\": 4242424242424}}";
    clmc_preset *preset;
    cr_assert_eq(clmc_preset_parse(text, strlen(text), "device-table-test", NULL, 0, &preset), CLMC_OK, "%s",
                 clmc_error_message());
    clmc_model_shape shape = {.n_systems = SYSTEMS, .n_temperatures = TEMPERATURES};
    clmc_tempering pt;
    cr_assert_eq(tempering_from_preset(&pt, preset, &shape), CLMC_OK, "%s", clmc_error_message());
    clmc_ensemble_hooks hooks = {.energies = fake_energies, .set_betas = fake_set_betas};
    clmc_model_ops ops = {.type = "fake", .ensemble = &hooks};
    cr_assert_eq(clmc_tempering_apply(&pt, &ops, NULL), CLMC_OK);
    pt.exchanges = FIRST_EXCHANGE;
    clmc_tempering_table table;
    cr_assert(clmc_tempering_table_build(&table, &pt));

    clmc_runtime *rt;
    cl_program program;
    cl_kernel kernel = tempering_kernel(TEMPERATURES, "tempering_exchange", &rt, &program);
    static uint64_t accepted[SYSTEMS * (TEMPERATURES - 1)], trips[SYSTEMS];
    static unsigned config_at[CONFIGS], temperature_of[CONFIGS];
    static int heading[CONFIGS];
    cl_mem d_at = make_buffer(rt, sizeof config_at, pt.config_at);
    cl_mem d_heading = make_buffer(rt, sizeof heading, pt.heading);
    cl_mem d_energies = make_buffer(rt, sizeof device_energies, device_energies);
    cl_mem d_threshold = make_buffer(rt, table.offset[table.n_pairs] * sizeof *table.threshold, table.threshold);
    cl_mem d_offset = make_buffer(rt, (table.n_pairs + 1) * sizeof *table.offset, table.offset);
    cl_mem d_reach_scale = make_buffer(rt, table.n_pairs * sizeof *table.reach_scale, table.reach_scale);
    cl_mem d_accepted = make_buffer(rt, sizeof accepted, accepted);
    cl_mem d_trips = make_buffer(rt, sizeof trips, trips);
    cl_mem d_temperature_of = make_buffer(rt, sizeof temperature_of, temperature_of);
    cl_mem args[] = {d_at,       d_heading, d_energies, d_threshold,     d_offset,
                     d_reach_scale, d_accepted, d_trips, d_temperature_of};
    cl_int energy_scale = ENERGY_SCALE;
    cl_uint n_systems = SYSTEMS, arg = 0;
    for (cl_uint i = 0; i < sizeof args / sizeof *args; i++) {
        clSetKernelArg(kernel, arg++, sizeof(cl_mem), &args[i]);
        if (i == 2) clSetKernelArg(kernel, arg++, sizeof energy_scale, &energy_scale);
    }
    clSetKernelArg(kernel, arg++, sizeof n_systems, &n_systems);
    clSetKernelArg(kernel, arg++, sizeof pt.exchange_first, &pt.exchange_first);
    clSetKernelArg(kernel, arg++, sizeof pt.seed_lo, &pt.seed_lo);
    clSetKernelArg(kernel, arg++, sizeof pt.seed_hi, &pt.seed_hi);

    for (uint32_t round = 0; round < EXCHANGES; round++) {
        draw_energies(&pt, round);
        cr_assert_eq(clEnqueueWriteBuffer(clmc_runtime_queue(rt), d_energies, CL_TRUE, 0, sizeof device_energies,
                                          device_energies, 0, NULL, NULL), CL_SUCCESS);
        cl_ulong exchange = pt.exchanges;
        clSetKernelArg(kernel, arg, sizeof exchange, &exchange);
        size_t global = SYSTEMS;
        cr_assert_eq(clmc_enqueue(rt, kernel, 1, &global, NULL, CLMC_UNTIMED), CLMC_OK);
        cr_assert_eq(clmc_tempering_exchange(&pt, &ops, NULL), CLMC_OK);
        read_buffer(rt, d_at, sizeof config_at, config_at);
        read_buffer(rt, d_heading, sizeof heading, heading);
        read_buffer(rt, d_temperature_of, sizeof temperature_of, temperature_of);
        read_buffer(rt, d_energies, sizeof device_energies, device_energies);
        for (unsigned c = 0; c < CONFIGS; c++)
            cr_assert_eq(device_energies[c], 0, "exchange %u left energy %d of configuration %u", round,
                         device_energies[c], c);
        cr_assert_arr_eq(config_at, pt.config_at, sizeof config_at, "maps differ after exchange %u", round);
        cr_assert_arr_eq(heading, pt.heading, sizeof heading, "headings differ after exchange %u", round);
        cr_assert_arr_eq(temperature_of, pt.temperature_of, sizeof temperature_of,
                         "temperatures differ after exchange %u", round);
    }
    read_buffer(rt, d_accepted, sizeof accepted, accepted);
    read_buffer(rt, d_trips, sizeof trips, trips);
    uint64_t device_trips = 0, device_accepted = 0, host_accepted = 0;
    for (unsigned s = 0; s < SYSTEMS; s++) device_trips += trips[s];
    for (unsigned t = 0; t + 1 < TEMPERATURES; t++) {
        uint64_t sum = 0;
        for (unsigned s = 0; s < SYSTEMS; s++) sum += accepted[s * (TEMPERATURES - 1) + t];
        cr_assert_eq(sum, pt.accepted[t], "pair %u: device accepted %llu, host %llu", t, (unsigned long long)sum,
                     (unsigned long long)pt.accepted[t]);
        device_accepted += sum;
        host_accepted += pt.accepted[t];
    }
    cr_assert_eq(device_trips, pt.round_trips);
    printf("tempering device: %d exchanges of %d systems x %d temperatures: accepted %llu (host %llu) of %llu,"
           " round trips %llu (host %llu); maps equal after every exchange\n",
           EXCHANGES, SYSTEMS, TEMPERATURES, (unsigned long long)device_accepted, (unsigned long long)host_accepted,
           (unsigned long long)pt.attempted[0] * (TEMPERATURES - 1), (unsigned long long)device_trips,
           (unsigned long long)pt.round_trips);
    cr_assert_gt(device_trips, 0, "no round trips: the test exercises too little");
    release_tempering_kernel(rt, program, kernel, args, sizeof args / sizeof *args);
    clmc_tempering_table_free(&table);
    clmc_tempering_free(&pt);
    clmc_preset_free(preset);
}

/* The reach of a pair for word v: how many of its thresholds exceed v, from
 * the table by binary search on the host. */
static uint32_t table_reach(const clmc_tempering_table *table, unsigned t, uint32_t v)
{
    uint32_t lo = 0, hi = table->offset[t + 1] - table->offset[t];
    const uint64_t *row = table->threshold + table->offset[t];
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (v < row[mid]) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* The device's reaches (pair_reach: a float guess, the table read only near
 * an integer) equal the table's for every word next to every threshold and
 * for random words, for ladders of wide, typical and tiny beta steps (the
 * last so small that the float margin gives way to a search for small
 * words). */
static void check_reaches(const char *betas)
{
    char text[1024];
    snprintf(text, sizeof text,
             "{\"model\": {\"type\": \"ea_ising\", \"dim\": 3, \"L\": 8, \"couplings\": \"bimodal\","
             " \"realizations\": 64}, \"algorithm\": {\"layout\": \"msc\"}, \"ensemble\": {\"type\":"
             " \"parallel_tempering\", \"betas\": %s, \"exchange_every\": 10}, \"run\": {\"sweeps\": 10, \"seed\": 3}}",
             betas);
    clmc_preset *preset;
    cr_assert_eq(clmc_preset_parse(text, strlen(text), "reach-test", NULL, 0, &preset), CLMC_OK, "%s",
                 clmc_error_message());
    size_t n_betas = clmc_preset_betas(preset, NULL, 0);
    clmc_model_shape shape = {.n_systems = 1, .n_temperatures = (unsigned)n_betas};
    clmc_tempering pt;
    cr_assert_eq(tempering_from_preset(&pt, preset, &shape), CLMC_OK, "%s", clmc_error_message());
    clmc_tempering_table table;
    cr_assert(clmc_tempering_table_build(&table, &pt), "table for %s not built", betas);

    /* Words: each threshold - 1, itself and + 1, then random words. */
    const size_t random_words = 1u << 18;
    size_t n = 3 * (size_t)table.offset[table.n_pairs] + random_words;
    uint32_t *pair_of = malloc(n * sizeof *pair_of), *words = malloc(n * sizeof *words);
    uint32_t *reach = malloc(n * sizeof *reach);
    cr_assert(pair_of && words && reach);
    size_t count = 0;
    for (unsigned t = 0; t < table.n_pairs; t++)
        for (uint32_t i = table.offset[t]; i < table.offset[t + 1]; i++)
            for (int d = -1; d <= 1; d++) {
                int64_t v = (int64_t)table.threshold[i] + d;
                pair_of[count] = t;
                words[count++] = (uint32_t)(v < 0 ? 0 : v > UINT32_MAX ? UINT32_MAX : v);
            }
    for (uint32_t i = 0; count < n; i++) {
        clmc_philox_ctr ctr = {{i, 0x4eac, 0, 0}};
        clmc_philox_key key = {{31337, 7}};
        clmc_philox_ctr draw = clmc_philox4x32_10(ctr, key);
        pair_of[count] = draw.v[0] % table.n_pairs;
        words[count++] = draw.v[1] >> (draw.v[2] % 32); /* small words too, where y is large */
    }

    clmc_runtime *rt;
    cl_program program;
    cl_kernel kernel = tempering_kernel((unsigned)n_betas, "tempering_reaches", &rt, &program);
    cl_mem args[] = {make_buffer(rt, n * sizeof *pair_of, pair_of), make_buffer(rt, n * sizeof *words, words),
                     make_buffer(rt, table.offset[table.n_pairs] * sizeof *table.threshold, table.threshold),
                     make_buffer(rt, (table.n_pairs + 1) * sizeof *table.offset, table.offset),
                     make_buffer(rt, table.n_pairs * sizeof *table.reach_scale, table.reach_scale),
                     make_buffer(rt, n * sizeof *reach, reach)};
    cl_uint items = (cl_uint)n;
    for (cl_uint i = 0; i < 6; i++) clSetKernelArg(kernel, i, sizeof(cl_mem), &args[i]);
    clSetKernelArg(kernel, 6, sizeof items, &items);
    cr_assert_eq(clmc_enqueue(rt, kernel, 1, &n, NULL, CLMC_UNTIMED), CLMC_OK);
    read_buffer(rt, args[5], n * sizeof *reach, reach);
    size_t partial = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t expected = table_reach(&table, pair_of[i], words[i]);
        cr_assert_eq(reach[i], expected, "betas %s, pair %u, word %u: device reach %u, table %u", betas, pair_of[i],
                     words[i], reach[i], expected);
        partial += expected > 0 && expected < table.offset[pair_of[i] + 1] - table.offset[pair_of[i]];
    }
    printf("tempering reaches, betas %s: %zu words over %u pairs (%u thresholds), %zu with a reach strictly inside "
           "the table: device equals table for all\n",
           betas, n, table.n_pairs, table.offset[table.n_pairs], partial);
    cr_assert_gt(partial, n / 4, "too few words inside the tables: the test exercises too little");
    release_tempering_kernel(rt, program, kernel, args, sizeof args / sizeof *args);
    clmc_tempering_table_free(&table);
    clmc_tempering_free(&pt);
    clmc_preset_free(preset);
    free(pair_of);
    free(words);
    free(reach);
}

Test(tempering_device, reaches_equal_table_wide_steps) { check_reaches("[0.1, 1.0, 5.0, 5.5]"); }
Test(tempering_device, reaches_equal_table_typical_steps)
{
    check_reaches("[0.6, 0.63, 0.66, 0.69, 0.72, 0.75, 0.78, 0.81, 0.84, 0.87, 0.9, 0.93, 0.96, 0.99, 1.02, 1.05]");
}
Test(tempering_device, reaches_equal_table_tiny_steps) { check_reaches("[0.5, 0.50004, 0.5002]"); }

/* One EA msc run on the device path (the model's fused exchange kernel,
 * ensemble.exchanges "auto", then the general one, "general"), then on the
 * host path ("host"). */
static void check_run_equals_host_path(int dim, int edge, int word_bits, const char *betas)
{
    static const char *const paths[3] = {"fused", "general", "host"};
    static const char *const exchanges[3] = {"auto", "general", "host"};
    char preset[1024], label[64];
    char *dirs[3], *series[3];
    cJSON *results[3];
    const cJSON *observables[3];
    for (int k = 0; k < 3; k++) {
        snprintf(preset, sizeof preset,
                 "{\"model\": {\"type\": \"ea_ising\", \"dim\": %d, \"L\": %d, \"couplings\": \"bimodal\","
                 " \"realizations\": 64, \"start\": \"random\"}, \"algorithm\": {\"layout\": \"msc\", \"word_bits\": %d},"
                 " \"ensemble\": {\"type\": \"parallel_tempering\", \"betas\": %s,"
                 " \"exchange_every\": 7, \"exchanges\": \"%s\"}, \"run\": {\"thermalization\": 50, \"sweeps\": 250,"
                 " \"measure_every\": 3, \"seed\": 2024}}",
                 dim, edge, word_bits, betas, exchanges[k]);
        snprintf(label, sizeof label, "ea-pt-%s-%dd-w%d", paths[k], dim, word_bits);
        results[k] = physics_run_in(preset, label, &dirs[k]);
        char path[4200];
        snprintf(path, sizeof path, "%s/series.csv", dirs[k]);
        series[k] = test_read_file(path);
        cr_assert_not_null(series[k], "%s", path);
        observables[k] = cJSON_GetObjectItem(results[k], "observables");
    }
    const cJSON *report = cJSON_GetObjectItem(observables[2], "tempering");
    for (int k = 0; k < 2; k++) {
        printf("EA msc %dD L=%d %d-bit words: %s device path and host path: series.csv %zu bytes %s, observables %s; "
               "exchanges %g, round trips %g, acceptance of pair 0 %g\n",
               dim, edge, word_bits, paths[k], strlen(series[k]), strcmp(series[k], series[2]) == 0 ? "equal" : "DIFFER",
               cJSON_Compare(observables[k], observables[2], true) ? "equal" : "DIFFER",
               cJSON_GetObjectItem(report, "exchanges")->valuedouble,
               cJSON_GetObjectItem(report, "round_trips")->valuedouble,
               cJSON_GetArrayItem(cJSON_GetObjectItem(report, "acceptance"), 0)->valuedouble);
        cr_assert_str_eq(series[k], series[2], "series.csv differs between the %s device path and the host path",
                         paths[k]);
        cr_assert(cJSON_Compare(observables[k], observables[2], true), "observables differ between the %s device path "
                  "and the host path", paths[k]);
    }
    int pairs = cJSON_GetArraySize(cJSON_GetObjectItem(report, "acceptance"));
    physics_check_tempering_report(results[0], 128, pairs + 1);
    for (int k = 0; k < 3; k++) {
        free(series[k]);
        free(dirs[k]);
        cJSON_Delete(results[k]);
    }
}

#define LADDER "[0.5, 0.6, 0.72, 0.85, 1.0, 1.2]"
/* By default each dimension and each word width once; the other two pairings
 * repeat their paths (CLMC_LONG_TESTS=1). */
Test(tempering_device, ea_msc_2d_64bit_equals_host_path)
{
    TEST_LONG_ONLY();
    check_run_equals_host_path(2, 16, 64, LADDER);
}
Test(tempering_device, ea_msc_2d_32bit_equals_host_path) { check_run_equals_host_path(2, 16, 32, LADDER); }
Test(tempering_device, ea_msc_3d_64bit_equals_host_path) { check_run_equals_host_path(3, 8, 64, LADDER); }
Test(tempering_device, ea_msc_3d_32bit_equals_host_path)
{
    TEST_LONG_ONLY();
    check_run_equals_host_path(3, 8, 32, LADDER);
}
/* Beta steps so small that the fused kernel's reach guesses give way to
 * searches (cl/ensembles/tempering_exchange.h). */
Test(tempering_device, ea_msc_tiny_beta_steps_equal_host_path)
{
    check_run_equals_host_path(2, 16, 64, "[0.5, 0.50004, 0.5002, 0.6]");
}
