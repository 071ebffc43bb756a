/* Test-only fault injection: strict parsing of the CLMC_FAULT_* variables. */
#include "runtime/fault.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

clmc_status clmc_fault_after(const char *name, const char *suffix, uint64_t *sweep, bool *with_suffix)
{
    const char *text = getenv(name);
    *sweep = 0;
    if (with_suffix) *with_suffix = false;
    if (!text || !*text) return CLMC_OK;
    char *end;
    errno = 0;
    unsigned long long n = text[0] >= '0' && text[0] <= '9' ? strtoull(text, &end, 10) : 0;
    bool suffixed = n && suffix && with_suffix && strcmp(end, suffix) == 0;
    if (errno || n == 0 || (*end && !suffixed))
        return clmc_fail(CLMC_ERR_INPUT, "%s (test only): expected a sweep count >= 1%s%s, got \"%s\"", name,
                         suffix ? ", optionally followed by " : "", suffix ? suffix : "", text);
    *sweep = n;
    if (with_suffix) *with_suffix = suffixed;
    return CLMC_OK;
}

clmc_status clmc_fault_switch(const char *name, bool *on)
{
    const char *text = getenv(name);
    *on = text && strcmp(text, "1") == 0;
    if (text && *text && !*on) return clmc_fail(CLMC_ERR_INPUT, "%s (test only): expected 1 or nothing, got \"%s\"", name, text);
    return CLMC_OK;
}
