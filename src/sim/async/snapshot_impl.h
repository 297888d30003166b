/* Checkpoints of the event engine (snapshot.c). */
#ifndef POLKA_SIM_SNAPSHOT_H
#define POLKA_SIM_SNAPSHOT_H

#include "sim/async/events_impl.h"

/** The agent within its update: its method's state, its clock, the blocks it holds, its
 * messages still to come. */
polka_status polka_async_save_agent(const polka_async_engine *engine, const polka_async_agent *aa,
                                    polka_state *state);
/** The same back (the agent's graph and method set up; its inbox empty). */
polka_status polka_async_restore_agent(polka_async_engine *engine, polka_async_agent *aa,
                                       const polka_state *state);

/** This rank's checkpoint wish at an agreement point (at_row: at log row `row` of `rows`):
 * stop on a signal, save every run.checkpoint_every rows or run.checkpoint_seconds; never
 * at the last row. */
int polka_async_wish(const polka_plan *plan, int at_row, size_t row, size_t rows, double last_save);

#endif
