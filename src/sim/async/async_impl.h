/*
 * The asynchronous engine (net.engine = events; docs/design.md "Asynchronous
 * networks"). Each agent runs at its own speed in virtual time (clock_impl.h): update k starts
 * when update k − 1 ends, when the agent draws its batch and sends its block (prepare); it
 * ends `update time` later with the method's step (update) on the newest of its neighbours'
 * information that has arrived by then. A block reaches a neighbour after its link's latency;
 * a two-phase method's neighbour answers it at once, with its model of that moment, and the
 * answer travels back the same way. Nothing waits, unless async.staleness asks for it.
 *
 * Every event is an agent's: the end of its update, or a message arriving. An agent's events
 * are taken in the order (time, kind: messages before the end of an update at the same time,
 * sender, phase, sender's update), all in a pure function of the settings and seeds. Since no
 * message is faster than async.latency, the agents of a window of that much virtual time
 * depend on nothing sent in the same window: each rank plays its agents through a window
 * alone, then the ranks swap the messages that cross (conservative synchronisation with the
 * lookahead async.latency), so the run is the same for any number of ranks and placement.
 */
#ifndef POLKA_SIM_ASYNC_H
#define POLKA_SIM_ASYNC_H

#include <mpi.h>

#include "polka/net.h"
#include "sim/agent/agent_impl.h"
#include "sim/async/clock_impl.h"
#include "sim/plan/driver_impl.h"
#include "sim/network/placement_impl.h"

/* A message on its way to an agent: a block (phase 0, `seq` the sender's update) or an answer
 * to the receiver's block of its update `seq` (phase 1). */
typedef struct {
    double arrival, sent; /* virtual times */
    uint64_t from, seq;
    uint64_t version; /* the updates its sender had made when it wrote it */
    int phase, want;  /* want: the block's answer will reach its sender (fault.link_loss) */
    double *payload;  /* the encoded message of its phase (owned) */
} polka_message;

/* An agent's messages still to come, a binary heap by (arrival, from, phase, seq). */
typedef struct {
    polka_message *items;
    size_t count, room;
} polka_inbox;

polka_status polka_inbox_push(polka_inbox *inbox, const polka_message *message);
/** Pushes the message with a copy of its `doubles` payload doubles (its own). */
polka_status polka_inbox_push_copy(polka_inbox *inbox, const polka_message *message,
                                   const double *payload, size_t doubles);
/** The earliest message (NULL: none). */
const polka_message *polka_inbox_top(const polka_inbox *inbox);
/** Removes the earliest message into *out (its payload now the caller's). */
void polka_inbox_pop(polka_inbox *inbox, polka_message *out);
void polka_inbox_free(polka_inbox *inbox);

/* One agent in virtual time. */
typedef struct {
    polka_agent *agent;
    double median;   /* its median update time (clock_impl.h) */
    double commit;   /* when its current update ends */
    uint64_t update; /* the current update's index */
    int waiting;     /* async.staleness: the update is done but waits for newer information */
    polka_inbox inbox;
    uint64_t *heard;   /* per neighbour slot: 1 + the newest update heard of (0: none yet) */
    uint64_t *version; /* per slot: 1 + the most updates the neighbour is known to have made */
    double *heard_at;  /* per slot: when that information was made */
    double *scratch;   /* an answer decoded */
} polka_async_agent;

/* What the engine needs of the run that owns the agents (decentral.c). */
typedef struct {
    const polka_plan *plan;
    MPI_Comm comm;
    int rank;
    const polka_graph *graph;
    const polka_placement *placement;
    polka_exchange *exchange; /* with the neighbouring ranks */
    const int *ranks;         /* the neighbouring ranks */
    int degree;
    polka_agent *local; /* count agents, ids increasing */
    const size_t *ids;
    size_t count, agents;
    const polka_stream *stream;
    size_t doubles[2]; /* an encoded message of each phase (a one-phase method: doubles[1] = 0) */
    /* the log step of row `row` (1-based) at `samples` learned (collective) */
    polka_status (*log_step)(void *context, size_t row, double samples, polka_sim_summary *summary);
    void *context;
    double *crossed;            /* doubles sent to other ranks, added to (NULL: not counted) */
    const polka_driver *driver; /* the run as its checkpoints see it (its log, its agents) */
} polka_async_world;

/** 1 when the plan runs the event engine (async.engine = events). */
int polka_async_enabled(const polka_plan *plan);

/** A clear error for a setting the event engine cannot run with (every rank alike). */
polka_status polka_async_check(const polka_plan *plan);

/** A clear error (every rank alike) when the run's work estimated from its settings, its
 *  windows, log rows and the updates of `agents` agents in `horizon` of virtual time with a
 *  row every `interval`, is above async.max_work (or not finite). */
polka_status polka_async_check_work(const polka_plan *plan, size_t agents, double horizon,
                                    double interval);

/** Collective: the run in virtual time, to its horizon, with its log rows. */
polka_status polka_async_run(const polka_async_world *world, size_t n_train,
                             const polka_sim_hooks *hooks, polka_sim_summary *summary);

#endif
