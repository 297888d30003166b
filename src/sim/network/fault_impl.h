/*
 * The network's faults: lost messages, offline agents, late values, one-peer
 * gossip, and the rounds an agent does not learn in (quantity skew). Every draw is a pure
 * function of (run.seed, round, agent or directed edge) on the counter-based generator, so
 * both ends of an edge, on any rank, in the MPI run and in the serial reference, know alike
 * which messages of a round exist: a lost message is simply not sent, and nobody waits for it.
 *
 * An agent reads its faults through two functions: polka_fault_agent_state (what it does in a
 * round) and polka_faults_link (which messages of the round exist on one edge, both ways). A
 * new per-agent fault is a setting, its draw in polka_fault_agent_state, and nothing in the
 * agent.
 */
#ifndef POLKA_SIM_FAULT_H
#define POLKA_SIM_FAULT_H

#include <stdint.h>

#include "polka/graph.h"
#include "polka/plan.h"
#include "sim/stream/stream_impl.h"

typedef struct {
    polka_fault_spec spec; /* the plan's fault.* settings, as they are */
    uint64_t seed;
    size_t agents;
    int gossip;
    unsigned char *leaving;     /* agents: 1 for the fault.leave agents; NULL: none */
    uint64_t leave_at, back_at; /* 0-based rounds [leave_at, back_at) */
    int any;                    /* 1 when some message of some round may be missing */
    const polka_stream *stream; /* quantity skew: which rounds an agent learns in; or NULL */
} polka_faults;

/**
 * The faults of plan for a network of `agents` agents (checks the fault.leave ids), with the
 * stream's quantity skew (stream may be NULL: every agent learns whenever it is online). The
 * stream must outlive the faults.
 */
polka_status polka_faults_create(const polka_plan *plan, size_t agents, const polka_stream *stream,
                                 polka_faults *faults);
void polka_faults_free(polka_faults *faults);

/** 1 when agent i takes part in round t (0-based). Pure. */
int polka_faults_online(const polka_faults *faults, uint64_t t, size_t i);

/** What an agent does in a round, all its per-agent faults together. */
typedef struct {
    int online; /**< takes part: draws its batch, evaluates f there and at the neighbours'
                     points, sends and answers (fault.offline, fault.leave) */
    int learns; /**< takes its update step: online, and it learns from its batch this round
                     (data.quantity_sigma: polka_stream_agent_learns) */
} polka_agent_round;

/** What agent i does in round t (0-based); faults NULL: no fault, it is online and learns.
 * Pure. */
polka_agent_round polka_fault_agent_state(const polka_faults *faults, uint64_t t, size_t i);

/** Round t's two messages on the edge i → j: i's points to j, then j's values at them back. */
typedef struct {
    int point;      /* i's points reach j */
    int value;      /* j's values at them reach i (implies point) */
    size_t delay;   /* rounds late the values arrive (value = 1) */
    int point_lost; /* the points were due (both online, chosen) but lost */
    int value_lost; /* the values were due (the points arrived) but lost */
} polka_link;

/** The messages of round t on the edge i → j of graph. Pure. */
polka_link polka_faults_link(const polka_faults *faults, const polka_graph *graph, uint64_t t,
                             size_t i, size_t j);

/** The message of round t on the edge i → j of phase 0 (i's block to j) or 1 (j's answer to
 * it) is lost (fault.link_loss). Pure. */
int polka_faults_lost(const polka_faults *faults, uint64_t t, size_t i, size_t j, int phase);

/** One-peer gossip (net.gossip): the slot, among agent i's `degree` neighbours in the graph's
 * order, of the one it sends to in round (or update) t. Pure. */
size_t polka_faults_gossip_slot(const polka_faults *faults, uint64_t t, size_t i, size_t degree);

/**
 * Calls add(context, id) for each agent of a list like "0,3,8-11" (spaces allowed). NULL when
 * the text is a valid list of ids below `limit`, else why not (a static message).
 */
const char *polka_faults_parse_agents(const char *text, size_t limit,
                                      void (*add)(void *context, size_t id), void *context);

/** The seed of epoch e's graph (e ≥ 1; epoch 0 is the run's seed itself). Pure. */
uint64_t polka_faults_epoch_seed(uint64_t seed, uint64_t epoch);

#endif
