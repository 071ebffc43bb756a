/* Philox4x32-10 draws per second on one device: the random-number ceiling of
 * every update kernel (one draw serves eight Ising sites).
 * Usage: rng_throughput [DEVICE] [--json FILE] */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clmc/runtime.h"

#define ITEMS (1u << 20)
#define DRAWS_PER_ITEM 256u

static int fail(void)
{
    fprintf(stderr, "rng_throughput: %s\n", clmc_error_message());
    return 3;
}

static void write_json(const char *path, const clmc_device_info *d, double per_second)
{
    cJSON *root = cJSON_CreateObject(), *device = cJSON_AddObjectToObject(root, "device");
    cJSON_AddStringToObject(root, "schema", "clmc-rng-throughput");
    cJSON_AddNumberToObject(root, "format_version", 1);
    cJSON_AddStringToObject(device, "name", d->name);
    cJSON_AddStringToObject(device, "driver", d->driver);
    cJSON_AddStringToObject(device, "platform", d->platform);
    cJSON_AddNumberToObject(root, "draws_per_second", per_second);
    cJSON_AddNumberToObject(root, "ps_per_draw", 1e12 / per_second);
    char *text = cJSON_Print(root);
    FILE *f = fopen(path, "w");
    if (f && text) fprintf(f, "%s\n", text);
    if (f) fclose(f);
    free(text);
    cJSON_Delete(root);
}

static clmc_status time_draws(clmc_runtime *rt, cl_kernel kernel, double *seconds)
{
    size_t global = ITEMS;
    clmc_runtime_reset_clock(rt);
    for (int rep = 0; rep < 5; rep++) CLMC_TRY(clmc_enqueue(rt, kernel, 1, &global, NULL, CLMC_TIMED));
    CLMC_TRY(clmc_runtime_finish(rt, seconds));
    return CLMC_OK;
}

int main(int argc, char **argv)
{
    const char *device = NULL, *json = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0 && i + 1 < argc) json = argv[++i];
        else device = argv[i];
    }
    clmc_runtime *rt;
    if (clmc_runtime_open(device, &rt) != CLMC_OK) return fail();
    cl_program program;
    cl_kernel kernel;
    if (clmc_program_build(rt, "common/rng_kat.cl", "-cl-std=CL1.2", &program) != CLMC_OK ||
        clmc_kernel_create(program, "philox_throughput", &kernel) != CLMC_OK)
        return fail();
    cl_int err;
    cl_mem sink = clCreateBuffer(clmc_runtime_context(rt), CL_MEM_WRITE_ONLY, ITEMS * sizeof(cl_uint), NULL, &err);
    cl_uint draws = DRAWS_PER_ITEM, seed = 1;
    clSetKernelArg(kernel, 0, sizeof sink, &sink);
    clSetKernelArg(kernel, 1, sizeof draws, &draws);
    clSetKernelArg(kernel, 2, sizeof seed, &seed);
    double warm = 0, seconds = 0;
    if (err != CL_SUCCESS || time_draws(rt, kernel, &warm) != CLMC_OK || time_draws(rt, kernel, &seconds) != CLMC_OK)
        return fail();
    double total = 5.0 * ITEMS * DRAWS_PER_ITEM, per_second = total / seconds;
    const clmc_device_info *d = clmc_runtime_device(rt);
    printf("%s (%s): %.4g Philox4x32-10 draws/s, %.3f ps per draw, %.3f ps per Ising site (1/8 draw)\n",
           d->name, d->driver, per_second, 1e12 / per_second, 1e12 / per_second / 8);
    if (json) write_json(json, d, per_second);
    clReleaseMemObject(sink);
    clReleaseKernel(kernel);
    clReleaseProgram(program);
    clmc_runtime_close(rt);
    return 0;
}
