/* The engine's state shared by its window loop (engine.c) and an agent's events (events.c). */
#ifndef POLKA_SIM_EVENTS_H
#define POLKA_SIM_EVENTS_H

#include "sim/async/async_impl.h"

typedef struct {
    const polka_async_world *world;
    polka_clock clock;
    polka_async_agent *agents; /* world->count */
    int two_phase;
    size_t doubles[2]; /* per message of each phase, encoded */
    double bytes[2];
    size_t staleness;
    double horizon;       /* the run's end in virtual time */
    polka_message *batch; /* the blocks an agent answers at one instant */
    size_t *batch_slots;  /* their senders' neighbour slots */
    size_t batch_room;
    /* the messages to the neighbouring ranks, per rank (world->ranks order) */
    double **out;
    size_t *out_len, *out_room;
    int *rank_at; /* rank → its place in world->ranks (−1: not a neighbour) */
    double *recv;
    size_t recv_room;
} polka_async_engine;

/** The message (its payload: `payload`, copied) to agent `to`: into its inbox when it is on
 * this rank, else into the outgoing buffer of its rank. */
polka_status polka_async_deliver(polka_async_engine *engine, size_t to, const polka_message *m,
                                 const double *payload);

/** Update k of the agent starts at `now`: links, the method's prepare, its block out. */
polka_status polka_async_start_update(polka_async_engine *engine, polka_async_agent *aa, double now,
                                      uint64_t k);

/** Plays the agent's events before virtual time `until` (the window [start, until), no longer
 * than async.latency: a message sent in it arrives at `until` or later), or up to it included
 * in the last window (`last`: the run's horizon). */
polka_status polka_async_play(polka_async_engine *engine, polka_async_agent *aa, double until,
                              int last);

#endif
