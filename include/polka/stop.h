/**
 * @file stop.h
 * @brief A request to stop (a signal), polled by every long loop.
 *
 * `polka run` catches SIGTERM, SIGINT and SIGUSR1 (polka_ckpt_catch_signals); its handler only
 * records the signal here. Loops that may run long (the data scan, the batch learners, a
 * learner's step, the waits on other ranks) poll it and return POLKA_INTERRUPTED, so that a
 * stop is prompt wherever the run is. The round loop instead finishes its round and writes
 * a checkpoint (POLKA_STOPPED); a round still running POLKA_STOP_GRACE seconds after the
 * signal is abandoned (polka_stop_overdue). Without a handler nothing is ever recorded.
 */
#ifndef POLKA_STOP_H
#define POLKA_STOP_H

#include "polka/error.h"

/** Seconds a round may go on after a stop request before it is abandoned (no checkpoint). */
#define POLKA_STOP_GRACE 5.0

/** Records a stop request by signal `number`; async-signal-safe (the handler's only call). */
void polka_stop_note(int number);

/** The signal of the stop request, 0 when none. */
int polka_stop_signal(void);

/** The signal's name ("SIGTERM", "SIGINT", "SIGUSR1", else "a signal"). */
const char *polka_stop_signal_name(int number);

/** POLKA_OK, or POLKA_INTERRUPTED with "stopped by SIGNAL during WHAT" when a stop is
 *  requested. */
polka_status polka_stop_check(const char *what);

/** Seconds since the stop request, 0 when none. */
double polka_stop_seconds(void);

/** 1 when a stop was requested more than POLKA_STOP_GRACE seconds ago. */
int polka_stop_overdue(void);

/** POLKA_OK, or POLKA_INTERRUPTED (as polka_stop_check) once the request is overdue: for the
 *  loops inside a round, which the round loop would otherwise finish and checkpoint. */
polka_status polka_stop_check_overdue(const char *what);

/** Forgets the request (tests). */
void polka_stop_reset(void);

#endif
