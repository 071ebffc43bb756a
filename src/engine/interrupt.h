/* SIGINT/SIGTERM/SIGHUP during a run: the first asks the run loop to stop after the
 * current sweep (with a checkpoint); a second one aborts the process. */
#ifndef CLMC_INTERRUPT_H
#define CLMC_INTERRUPT_H

#include <stdbool.h>

/* Installs the handlers (the CLI does, before a run). */
void clmc_interrupt_install(void);
/* The signal received since installing, or 0. */
int clmc_interrupt_signal(void);

#endif
