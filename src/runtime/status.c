/* Per-thread error message store behind clmc_fail(). */
#include "clmc/status.h"

#include <stdio.h>

static _Thread_local char error_text[8192];

clmc_status clmc_vfail(clmc_status status, const char *fmt, va_list ap)
{
    vsnprintf(error_text, sizeof error_text, fmt, ap);
    return status;
}

clmc_status clmc_fail(clmc_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    clmc_vfail(status, fmt, ap);
    va_end(ap);
    return status;
}

const char *clmc_error_message(void) { return error_text; }

void clmc_clear_error(void) { error_text[0] = '\0'; }
