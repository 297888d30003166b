/*
 * A decentralized method as an ops table, the contract between the fabric (the agent, halo.c,
 * the serial reference) and the methods (src/sim/method/, one file each): what an agent sends its
 * neighbours in a round and what it does with what it hears. Every method runs on the same message
 * fabric (agent_impl.h): phase 1, each agent sends one block of send_block doubles, the same to
 * every neighbour its message reaches; phase 2 (answer_block > 0), each agent answers every
 * neighbour it heard from with a block of answer_block doubles computed from that neighbour's
 * block. The method lays its blocks out (points, values, vectors, exact numbers: codec_impl.h) and
 * the fabric encodes each kind with the run's codec (net.codec_*): the method calls
 * polka_agent_encode when its block is filled, after which the block holds what the
 * neighbours decode. The halo (MPI) and the serial reference move the encoded messages; they
 * never look inside them.
 *
 * A round: links (fault.c: which messages exist), prepare (draw the batch, fill agent->sent),
 * phase 1, answer (fill agent->answers), phase 2, update. A method that censors clears
 * agent->silent's flag in prepare; the fabric then sends nothing from it that round and its
 * neighbours find agent->heard[k] = 0 for it (they keep its last block: agent->received).
 *
 * The agent holds its method's table (given to polka_agent_init) and calls it; the table of
 * the methods (method.c) and the methods themselves are a floor above. The methods are listed
 * in include/polka/methods.h (one line each, with their keys).
 */
#ifndef POLKA_SIM_METHOD_OPS_H
#define POLKA_SIM_METHOD_OPS_H

#include "polka/graph.h"
#include "polka/runfile.h"
#include "polka/model.h"
#include "polka/plan.h"
#include "polka/state.h"
#include "sim/agent/codec_impl.h"
#include "sim/stream/stream_impl.h"

typedef struct polka_agent polka_agent;

typedef struct polka_method_ops {
    const char *name; /* net.method's value */
    const char *help;
    int censors; /* 1: an agent may withhold its block (agent->sends = 0 in prepare) */
    /* 1: its iteration k combines every neighbour's iterate k (ADMM, [XWCT21]): the event engine
     * runs it only when every agent updates at the same times (polka_async_check) */
    int synchronous;
    /* 1: its messages carry the agents' own points (privacy.clip protects them) */
    int sends_points;
    /* 1: the centralized baseline of the method is centralized POLK, the kernel learner on all
     * the data (driver/central.c; learner.refit fits it); 0: the method's own learner on one
     * agent (the random-feature methods: centralized random features, run.c) */
    int central_kernel;
    /* what each agent sends per round in phase 1 (layout[0]), and answers per neighbour in
     * phase 2 (layout[1]; rows 0: a one-phase method): kinds of numbers, how many */
    void (*layout)(const polka_plan *plan, const polka_data_facts *facts, size_t outputs,
                   polka_block_layout layout[2]);
    /* a clear error for a setting the method cannot run with (checked on every rank alike) */
    polka_status (*check)(const polka_plan *plan);
    /* a clear error for a graph (each epoch's) the method cannot run on (NULL: any) */
    polka_status (*check_graph)(const polka_plan *plan, const polka_graph *graph);
    /* POLKA_ERR_MEM when `count` agents (ids, or 0..count-1 when NULL) of graph would take
     * more than the memory limit (NULL: nothing to check before init) */
    polka_status (*fit)(const polka_plan *plan, const polka_graph *graph, const size_t *ids,
                        size_t count, size_t dim, size_t outputs);
    /* the method's own state in agent->state (agent's common part set); owns it */
    polka_status (*init)(polka_agent *agent, const polka_plan *plan, const polka_data_facts *facts);
    void (*free)(polka_agent *agent);
    /* the agent's neighbours changed (old list given): per-neighbour state follows them */
    polka_status (*rewire)(polka_agent *agent, const size_t *old_neighbors, size_t old_degree);
    polka_status (*prepare)(polka_agent *agent, const polka_stream *stream);
    /* phase 2's blocks from the heard neighbours' phase-1 blocks (NULL: one phase) */
    polka_status (*answer)(polka_agent *agent);
    /* the event engine (async_impl.h): slot k's answer to the agent's block of its update
     * `sent` arrived, decoded in `values` (two-phase methods) */
    void (*answer_arrived)(polka_agent *agent, size_t k, uint64_t sent, const double *values);
    polka_status (*update)(polka_agent *agent);
    /* f_i at n points x (n×C) */
    polka_status (*predict)(const polka_agent *agent, const double *x, size_t n, double *f);
    /* f_i at every point of a data set (NULL: predict over its rows) */
    polka_status (*test_values)(const polka_agent *agent, const polka_dataset *data, double *f);
    double (*score)(const polka_agent *agent, const double *f, const double *y, size_t n,
                    double *loss);
    /* the model's size: points for kernel models, features for random-feature ones */
    size_t (*order)(const polka_agent *agent);
    /* the final model as a kernel expansion, for the run file and polka predict */
    polka_status (*model)(const polka_agent *agent, polka_model **out);
    /* collective: the local agents' final models into the open run file */
    polka_status (*write_models)(polka_runfile *h5, const polka_agent *agents, const size_t *ids,
                                 size_t count);
    polka_status (*save)(const polka_agent *agent, polka_state *state);
    polka_status (*restore)(polka_agent *agent, const polka_state *state);
} polka_method_ops;

#endif
