/* Test-only fault injection: the one place that reads the CLMC_FAULT_*
 * environment variables, which break a model's state on purpose so that tests
 * can check the numerical guard, or kill an MPI rank between the phases of a
 * checkpoint (CLMC_FAULT_COMMIT_AFTER, src/engine/engine.c) (STYLE.md 14: the environment describes the
 * deployment or injects faults in tests, nothing else). */
#ifndef CLMC_FAULT_H
#define CLMC_FAULT_H

#include <stdbool.h>
#include <stdint.h>

#include "clmc/status.h"

/* The sweep after which the fault named by variable `name` strikes
 * ("SWEEP", counting from 1, or "SWEEP" followed by `suffix` where suffix is
 * not NULL, which sets *with_suffix); *sweep = 0 when the variable is unset or
 * empty.  Anything else is an input error naming the variable. */
clmc_status clmc_fault_after(const char *name, const char *suffix, uint64_t *sweep, bool *with_suffix);

/* *on: variable `name` is "1"; unset or empty: off; anything else is an
 * input error naming the variable. */
clmc_status clmc_fault_switch(const char *name, bool *on);

#endif
