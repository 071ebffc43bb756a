/* Signal handlers that only set a flag: the run loop polls it between sweeps. */
#include "engine/interrupt.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t received;

static void on_signal(int signal_number)
{
    if (received) {
        static const char text[] = "\nclmc: second signal: aborting without a checkpoint\n";
        ssize_t ignored = write(STDERR_FILENO, text, sizeof text - 1);
        (void)ignored;
        signal(signal_number, SIG_DFL);
        raise(signal_number);
        return;
    }
    received = signal_number;
    static const char text[] = "\nclmc: stopping after this sweep (a second signal aborts)\n";
    ssize_t ignored = write(STDERR_FILENO, text, sizeof text - 1);
    (void)ignored;
}

void clmc_interrupt_install(void)
{
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_signal;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, NULL);
    sigaction(SIGTERM, &action, NULL);
    sigaction(SIGHUP, &action, NULL); /* a closed terminal or ssh session: stop with a checkpoint too */
}

void clmc_interrupt_release(void)
{
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
}

int clmc_interrupt_signal(void)
{
    return (int)received;
}
