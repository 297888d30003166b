/*
 * One agent of a decentralized method (method_impl.h: the penalty method of [KPRR18] and the
 * random-feature methods), written so that the MPI loop and the serial network reference run
 * the very same arithmetic. Per round: links, prepare (the method fills its block), the
 * neighbours' blocks in, answers (two-phase methods), their answers in, update.
 */
#ifndef POLKA_SIM_AGENT_H
#define POLKA_SIM_AGENT_H

#include "polka/graph.h"
#include "polka/learner.h"
#include "polka/state.h"
#include "sim/plan/plan_impl.h"
#include "sim/network/fault_impl.h"
#include "sim/agent/method_ops_impl.h"
#include "sim/agent/counters_impl.h"
#include "sim/stream/stream_impl.h"

/*
 * An agent of a decentralized method: its place in the graph, this round's messages both ways
 * (fault.c), the blocks it sends and hears (the message fabric, method_impl.h), its counters;
 * the method's own state (its model, its buffers) hangs on `state`.
 */
struct polka_agent {
    size_t id, degree, batch, dim, outputs;
    const polka_method_ops *method;
    void *state;                     /* the method's (penalty_impl.h, rf_impl.h) */
    size_t send_block, answer_block; /* doubles: phase 1 per agent, phase 2 per neighbour */
    const size_t *neighbors;
    const double *weights;
    const polka_graph *graph;     /* the current one (net.resample_every: it changes) */
    const polka_faults *faults;   /* the run's */
    uint64_t round;               /* the round being played */
    polka_agent_round this_round; /* what the agent does in it (polka_fault_agent_state) */
    int sends;                    /* this round's phase-1 block goes out (0: censored) */
    int async;                    /* the event engine moves its messages (async_impl.h) */
    /* this round's messages per neighbour slot k (fault.c): */
    unsigned char *in_point;  /* neighbour k's block reached me (in agent->received) */
    unsigned char *out_point; /* my block reaches neighbour k */
    unsigned char *in_value;  /* neighbour k's answer to my block comes (in answered) */
    unsigned char *out_value; /* my answer to neighbour k's block goes back to it */
    size_t *in_delay;         /* rounds until slot k's answers arrive */
    unsigned char *fresh;     /* slot k's answers are of this round and enter the update */
    size_t points_in;         /* slots with in_point */
    double *sent;             /* send_block (after polka_agent_encode: as decoded) */
    double *received;         /* degree × send_block: the neighbours' last blocks heard */
    double *answers;          /* degree × answer_block: my answers to the neighbours' blocks */
    double *answered;         /* degree × answer_block: the neighbours' answers to my block */
    polka_wire wire;          /* the codecs of the blocks (codec_impl.h) */
    double *sent_wire;        /* wire.doubles[0]: the block encoded, as it travels */
    double *answers_wire;     /* degree × wire.doubles[1]: the answers encoded */
    /* privacy accounting: the agents its own samples reached (ids, increasing); its samples
     * travel when its phase-1 block carries points */
    uint64_t *reached;
    size_t reached_count, reached_room;
    size_t samples_per_block;      /* own samples a phase-1 block carries (0: none) */
    size_t clamped;                /* coordinates the round's block clamped (uint8 points) */
    int classification;            /* the online error counts mistakes */
    polka_agent_counters counters; /* what the log steps report, and the checkpoints keep */
    double start;                  /* when the learning loop started (polka_now) */
};

/** Sets up agent `id` of graph (weights already set) with the run's method (its table:
 * polka_method_of), for the data of facts, with the run's faults (which outlive it); the agent
 * owns its method state. */
polka_status polka_agent_init(polka_agent *agent, const polka_method_ops *method,
                              const polka_plan *plan, const polka_data_facts *facts,
                              const polka_graph *graph, const polka_faults *faults, size_t id);
void polka_agent_free(polka_agent *agent);

/** The agent's neighbours become those of graph (a new epoch); the method's per-neighbour state
 * (values in flight, last blocks heard) follows the neighbours that stay. */
polka_status polka_agent_rewire(polka_agent *agent, const polka_graph *graph);

/** Starts round t: which of the agent's messages exist, both ways (fault.c), what they cost
 * and what was lost. Never fails: every agent of a rank knows its messages, whatever else
 * failed, so the exchange's counts always match. */
void polka_agent_links(polka_agent *agent, uint64_t t);

/** The event engine's links of the agent's update k (async_impl.h): whether it is online, and
 * which of its blocks of the update go out and have their answers come back; the messages it
 * receives are the engine's. */
void polka_agent_links_async(polka_agent *agent, uint64_t k);

/** When the agent is online: the method draws the round's batch and fills agent->sent (or
 * censors it: agent->sends = 0, then its block goes nowhere). */
polka_status polka_agent_prepare(polka_agent *agent, const polka_stream *stream);

/** A censored agent's messages do not exist: out_point cleared, the bytes not counted. Runs
 * after prepare on every agent (the fabric then tells the neighbours, polka_agent_heard).
 * Counts the bytes, the coordinates uint8 clamped (once a block, when it reaches a neighbour)
 * and (privacy) the own samples sent and their receivers; POLKA_ERR_MEM when
 * the receivers cannot be kept (the messages are settled all the same). */
polka_status polka_agent_settle_sends(polka_agent *agent);

/** The method filled agent->sent: it is encoded into agent->sent_wire and then holds what the
 * neighbours decode (the method uses that from now on where it uses its own block). */
void polka_agent_encode(polka_agent *agent);

/** Slot k's neighbour's message (phase 1) decoded into agent->received's block k. */
void polka_agent_take_block(polka_agent *agent, size_t k, const double *message);

/** Slot k's neighbour's answer (phase 2) decoded into agent->answered's block k. */
void polka_agent_take_answer(polka_agent *agent, size_t k, const double *message);

/** The doubles that carry an agent's message of each phase (the run's method and codecs). */
polka_status polka_agent_wire_doubles(const polka_method_ops *method, const polka_plan *plan,
                                      const polka_data_facts *facts, size_t outputs,
                                      size_t doubles[2]);

/** The codecs' state (the sparsifiers' copies both ends hold) into / from a checkpoint. */
polka_status polka_agent_codec_save(const polka_agent *agent, polka_state *state);
polka_status polka_agent_codec_restore(polka_agent *agent, const polka_state *state);

/** Neighbour slot k's block does not come this round (its agent censored it). */
void polka_agent_unheard(polka_agent *agent, size_t k);

/** Phase 2: the method's answers to the heard neighbours' blocks (two-phase methods), encoded
 * into agent->answers_wire; agent->answers then holds what the neighbours decode. */
polka_status polka_agent_answer(polka_agent *agent);

/** The method's step from what the agent heard. */
polka_status polka_agent_update(polka_agent *agent);

/** The agent's model is finite (a diverged run does not end with exit 0). */
polka_status polka_agent_check_finite(const polka_agent *agent);

/** Where agent `a` sits in agent j's neighbour list (j's degree when it is not there). */
size_t polka_agent_slot_of(const polka_agent *j, size_t a);

#endif
