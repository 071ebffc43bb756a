/* SIGINT/SIGTERM/SIGHUP during a run: the first asks the run loop to stop after the
 * current sweep (with a checkpoint); a second one aborts the process. */
#ifndef CLMC_INTERRUPT_H
#define CLMC_INTERRUPT_H

#include <stdbool.h>

/* Installs the handlers (the CLI does, before a run). */
void clmc_interrupt_install(void);
/* Back to the default actions (the run is over: a signal now ends the
 * process quietly, as mpirun's SIGTERM to ranks that are finishing). */
void clmc_interrupt_release(void);
/* The signal received since installing, or 0. */
int clmc_interrupt_signal(void);

#endif
