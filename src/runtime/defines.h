/* Kernel build options (-D defines) gathered into a growable string: never
 * truncated; an allocation failure is recorded and reported once, by
 * clmc_defines_build (or clmc_defines_status). */
#ifndef CLMC_DEFINES_H
#define CLMC_DEFINES_H

#include <stdbool.h>
#include <stddef.h>

#include "clmc/runtime.h"

typedef struct clmc_defines {
    char *text;   /* NUL-terminated options, words separated by one space; NULL while empty */
    size_t length, capacity;
    bool failed;  /* an allocation failed: text is incomplete */
} clmc_defines;

/* An empty set (also a zero-initialised struct). */
void clmc_defines_init(clmc_defines *d);
/* -DNAME=value */
void clmc_defines_int(clmc_defines *d, const char *name, long long value);
/* -DNAME */
void clmc_defines_flag(clmc_defines *d, const char *name);
/* Other options verbatim ("-cl-std=CL1.2", "-cl-fast-relaxed-math", or a set
 * built earlier). */
void clmc_defines_text(clmc_defines *d, const char *text);
/* The options so far ("" while empty). */
const char *clmc_defines_string(const clmc_defines *d);
/* CLMC_OK, or CLMC_ERR_OTHER naming the failed allocation. */
clmc_status clmc_defines_status(const clmc_defines *d);
void clmc_defines_free(clmc_defines *d);
/* Reproducible float arithmetic (cl/common/repro_math.h): -DREPRODUCIBLE,
 * plus -DCLMC_CR_DIVIDE_SQRT and -cl-fp32-correctly-rounded-divide-sqrt where
 * the device reports CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT for float (the
 * kernels' exact integer paths otherwise; the same results either way). */
clmc_status clmc_defines_reproducible(clmc_runtime *rt, clmc_defines *d);
/* Builds kernel file `file` with the options (clmc_program_build), then
 * frees them, also on failure. */
clmc_status clmc_defines_build(clmc_runtime *rt, const char *file, clmc_defines *d, cl_program *out);

#endif
