/* Status codes and the one error idiom shared by the whole library. */
#ifndef CLMC_STATUS_H
#define CLMC_STATUS_H

#include <stdarg.h>

/* Values double as the CLI exit status (docs/interface.md). */
typedef enum {
    CLMC_OK = 0,
    CLMC_ERR_OTHER = 1,
    CLMC_ERR_INPUT = 2,  /* bad usage or invalid preset */
    CLMC_ERR_DEVICE = 3  /* OpenCL / device failure */
} clmc_status;

/* Records a message for the caller and returns `status`.  The message is kept
 * per thread until the next error; clmc_error_message() reads it. */
clmc_status clmc_fail(clmc_status status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
clmc_status clmc_vfail(clmc_status status, const char *fmt, va_list ap);
const char *clmc_error_message(void);
void clmc_clear_error(void);

/* Propagate a non-OK status unchanged. */
#define CLMC_TRY(expr)                                                         \
    do {                                                                       \
        clmc_status clmc_try_status_ = (expr);                                 \
        if (clmc_try_status_ != CLMC_OK) return clmc_try_status_;              \
    } while (0)

#endif
