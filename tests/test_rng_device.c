/* Philox4x32-10 on the OpenCL device against Random123's known-answer vectors. */
#include <criterion/criterion.h>
#include <stdio.h>

#include "clmc/runtime.h"
#include "rng_kat.h"

static cl_mem make_buffer(clmc_runtime *rt, size_t bytes, cl_mem_flags flags, void *host)
{
    cl_int err;
    cl_mem buffer = clCreateBuffer(clmc_runtime_context(rt), flags, bytes, host, &err);
    cr_assert_eq(err, CL_SUCCESS, "clCreateBuffer: %s", clmc_cl_error_name(err));
    return buffer;
}

Test(rng_device, philox4x32_10_known_answers)
{
    clmc_runtime *rt = NULL;
    cr_assert_eq(clmc_runtime_open(NULL, &rt), CLMC_OK, "%s", clmc_error_message());
    printf("device: %s (%s)\n", clmc_runtime_device(rt)->name, clmc_runtime_device(rt)->platform);
    cl_program program;
    cr_assert_eq(clmc_program_build(rt, "common/rng_kat.cl", "-cl-std=CL1.2", &program), CLMC_OK, "%s",
                 clmc_error_message());
    cl_kernel kernel;
    cr_assert_eq(clmc_kernel_create(program, "philox_known_answers", &kernel), CLMC_OK);

    cl_uint inputs[6 * RNG_KAT_COUNT], outputs[4 * RNG_KAT_COUNT];
    for (size_t i = 0; i < RNG_KAT_COUNT; i++) {
        for (int k = 0; k < 4; k++) inputs[6 * i + k] = rng_kat_vectors[i].ctr[k];
        for (int k = 0; k < 2; k++) inputs[6 * i + 4 + k] = rng_kat_vectors[i].key[k];
    }
    cl_mem in = make_buffer(rt, sizeof inputs, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, inputs);
    cl_mem out = make_buffer(rt, sizeof outputs, CL_MEM_WRITE_ONLY, NULL);
    clSetKernelArg(kernel, 0, sizeof in, &in);
    clSetKernelArg(kernel, 1, sizeof out, &out);
    size_t global = RNG_KAT_COUNT;
    cr_assert_eq(clmc_enqueue(rt, kernel, 1, &global, NULL, CLMC_UNTIMED), CLMC_OK);
    cr_assert_eq(clEnqueueReadBuffer(clmc_runtime_queue(rt), out, CL_TRUE, 0, sizeof outputs, outputs,
                                     0, NULL, NULL), CL_SUCCESS);
    for (size_t i = 0; i < RNG_KAT_COUNT; i++) {
        printf("vector %zu: got %08x %08x %08x %08x, expected %08x %08x %08x %08x\n", i,
               outputs[4 * i], outputs[4 * i + 1], outputs[4 * i + 2], outputs[4 * i + 3],
               rng_kat_vectors[i].expected[0], rng_kat_vectors[i].expected[1],
               rng_kat_vectors[i].expected[2], rng_kat_vectors[i].expected[3]);
        for (int k = 0; k < 4; k++)
            cr_expect_eq(outputs[4 * i + k], rng_kat_vectors[i].expected[k], "vector %zu word %d", i, k);
    }
    clReleaseMemObject(in);
    clReleaseMemObject(out);
    clReleaseKernel(kernel);
    clReleaseProgram(program);
    clmc_runtime_close(rt);
}
