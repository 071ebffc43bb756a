/* Kernel build options as a growable string (defines.h). */
#include "runtime/defines.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void clmc_defines_init(clmc_defines *d)
{
    memset(d, 0, sizeof *d);
}

/* Room for n more characters (and the separating space and the NUL). */
static bool reserve(clmc_defines *d, size_t n)
{
    size_t need = d->length + 1 + n + 1;
    if (d->failed) return false;
    if (need <= d->capacity) return true;
    size_t capacity = d->capacity ? d->capacity : 128;
    while (capacity < need) capacity *= 2;
    char *grown = realloc(d->text, capacity);
    if (!grown) {
        d->failed = true;
        return false;
    }
    d->text = grown;
    d->capacity = capacity;
    return true;
}

/* Appends one formatted word, preceded by a space unless it is the first. */
static void append(clmc_defines *d, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    int n = vsnprintf(NULL, 0, format, args);
    va_end(args);
    if (n <= 0 || !reserve(d, (size_t)n)) return;
    if (d->length) d->text[d->length++] = ' ';
    va_start(args, format);
    vsnprintf(d->text + d->length, (size_t)n + 1, format, args);
    va_end(args);
    d->length += (size_t)n;
}

void clmc_defines_text(clmc_defines *d, const char *text)
{
    append(d, "%s", text);
}

void clmc_defines_flag(clmc_defines *d, const char *name)
{
    append(d, "-D%s", name);
}

void clmc_defines_int(clmc_defines *d, const char *name, long long value)
{
    append(d, "-D%s=%lld", name, value);
}

const char *clmc_defines_string(const clmc_defines *d)
{
    return d->text ? d->text : "";
}

clmc_status clmc_defines_status(const clmc_defines *d)
{
    return d->failed ? clmc_fail(CLMC_ERR_OTHER, "kernel build options: out of host memory") : CLMC_OK;
}

void clmc_defines_free(clmc_defines *d)
{
    free(d->text);
    clmc_defines_init(d);
}

clmc_status clmc_defines_build(clmc_runtime *rt, const char *file, clmc_defines *d, cl_program *out)
{
    clmc_status status = clmc_defines_status(d);
    if (status == CLMC_OK) status = clmc_program_build(rt, file, clmc_defines_string(d), out);
    clmc_defines_free(d);
    return status;
}

clmc_status clmc_defines_reproducible(clmc_runtime *rt, clmc_defines *d)
{
    cl_device_id device;
    CLMC_CL_TRY(clGetCommandQueueInfo(clmc_runtime_queue(rt), CL_QUEUE_DEVICE, sizeof device, &device, NULL));
    cl_device_fp_config config = 0;
    CLMC_CL_TRY(clGetDeviceInfo(device, CL_DEVICE_SINGLE_FP_CONFIG, sizeof config, &config, NULL));
    clmc_defines_flag(d, "REPRODUCIBLE");
    if (config & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) {
        clmc_defines_flag(d, "CLMC_CR_DIVIDE_SQRT");
        clmc_defines_text(d, "-cl-fp32-correctly-rounded-divide-sqrt");
    }
    return CLMC_OK;
}
