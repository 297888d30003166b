/* The greedy projected penalty method over MPI: every rank is an agent (paper 003). */
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "metrics.h"
#include "polka/net.h"
#include "sim_impl.h"

typedef struct {
    const polka_plan *plan;
    const polka_data_facts *facts; /* the stream's */
    MPI_Comm comm;
    int rank, size;
    polka_agent agent;
    polka_stream *stream;
    polka_dataset test;
    polka_exchange *exchange;
    polka_netlog log;
    double *f, *fbar;         /* n_test × C */
    polka_agent_metrics *all; /* rank 0: one row per agent */
} mpi_run;

static polka_status eval_callback(void *context, const double *payloads, size_t count,
                                  size_t stride, double *values) {
    (void)payloads, (void)count, (void)stride; /* they are agent->received */
    polka_agent *agent = context;
    polka_status status = polka_agent_eval_received(agent);
    if (status == POLKA_OK)
        memcpy(values, agent->nbr_eval,
               agent->degree * agent->batch * agent->outputs * sizeof *values);
    return status;
}

/* One synchronous round; every rank runs both collectives whatever happens locally. */
static polka_status mpi_round(mpi_run *run, uint64_t t) {
    polka_agent *agent = &run->agent;
    polka_status status = polka_agent_prepare(agent, run->stream, t);
    double start = polka_now(), compute_before = agent->time_compute;
    polka_status exchanged = polka_exchange_round(
        run->exchange, agent->sent, agent->batch * agent->payload, agent->batch, agent->received,
        status == POLKA_OK ? eval_callback : NULL, agent, agent->outputs, agent->nbr_eval,
        agent->nbr_values);
    agent->time_exchange += polka_now() - start - (agent->time_compute - compute_before);
    if (status == POLKA_OK) status = exchanged;
    if (status == POLKA_OK) status = polka_agent_update(agent);
    return polka_net_agree(run->comm, status);
}

/* A log step (collective): test metrics, the network average for the disagreement. */
static polka_status mpi_log_step(mpi_run *run, size_t round, double samples,
                                 polka_sim_summary *summary) {
    size_t n = run->test.n * run->agent.outputs;
    polka_stream_test_now(run->stream, samples, &run->test); /* drift: the present distribution */
    polka_status status = polka_agent_test_values(&run->agent, &run->test, run->f);
    if (status != POLKA_OK) memset(run->f, 0, n * sizeof *run->f);
    POLKA_CALL(polka_net_check(
        MPI_Allreduce(run->f, run->fbar, (int)n, MPI_DOUBLE, MPI_SUM, run->comm), "MPI_Allreduce"));
    for (size_t e = 0; e < n; e++) run->fbar[e] /= (double)run->size;
    polka_agent_metrics mine;
    polka_agent_collect(&run->agent, &run->test, run->f, run->fbar,
                        polka_exchange_bytes_sent(run->exchange), &mine);
    POLKA_CALL(polka_net_check(MPI_Gather(&mine, (int)POLKA_METRICS_DOUBLES, MPI_DOUBLE, run->all,
                                          (int)POLKA_METRICS_DOUBLES, MPI_DOUBLE, 0, run->comm),
                               "MPI_Gather"));
    if (status == POLKA_OK && run->rank == 0)
        status = polka_netlog_step(&run->log, round, samples, run->all, summary);
    POLKA_CALL(polka_net_agree(run->comm, status));
    return polka_netlog_append_h5(&run->log, round, samples, (size_t)run->rank, 1, &mine);
}

static polka_status mpi_round_fn(void *context, uint64_t t) {
    return mpi_round(context, t);
}

static polka_status mpi_log_fn(void *context, size_t round, double samples,
                               polka_sim_summary *summary) {
    return mpi_log_step(context, round, samples, summary);
}

/* Everything a rank needs before the loop; the status is agreed by the caller. */
static polka_status mpi_setup(mpi_run *run, const polka_graph *graph,
                              const polka_sim_hooks *hooks) {
    const polka_plan *plan = run->plan;
    POLKA_CALL(polka_stream_create_for(plan, (size_t)run->size, plan->learner.batch,
                                       (size_t)run->rank, &run->stream));
    run->facts = polka_stream_facts(run->stream);
    POLKA_CALL(polka_agent_init(&run->agent, plan, run->facts, graph, (size_t)run->rank));
    POLKA_CALL(polka_stream_test_set(run->stream, &run->test));
    size_t n = run->test.n * run->agent.outputs;
    run->f = malloc(n * sizeof *run->f);
    run->fbar = malloc(n * sizeof *run->fbar);
    run->all = malloc((size_t)run->size * sizeof *run->all);
    POLKA_CHECK(run->f && run->fbar && run->all, POLKA_ERR_MEM,
                "out of memory for the test values");
    if (run->rank == 0) POLKA_CALL(polka_netlog_open(&run->log, plan, hooks, (size_t)run->size));
    return POLKA_OK;
}

static polka_status create_exchange(mpi_run *run, const polka_graph *graph) {
    size_t degree = run->agent.degree;
    int *neighbors = malloc((degree ? degree : 1) * sizeof *neighbors);
    POLKA_CHECK_ALLOC(neighbors);
    for (size_t k = 0; k < degree; k++)
        neighbors[k] = (int)polka_graph_neighbors(graph, (size_t)run->rank)[k];
    polka_status status = polka_exchange_create(run->comm, neighbors, (int)degree, &run->exchange);
    free(neighbors);
    return status;
}

static void mpi_teardown(mpi_run *run) {
    polka_exchange_free(&run->exchange);
    polka_agent_free(&run->agent);
    polka_stream_free(&run->stream);
    polka_dataset_free(&run->test);
    free(run->f);
    free(run->fbar);
    free(run->all);
}

/* Collective, after the loop: the models and timing stages into the run file. */
static polka_status mpi_finish(mpi_run *run, const polka_sim_summary *summary) {
    const polka_agent *agent = &run->agent;
    const polka_model *model = polka_learner_model(agent->learner);
    double stages[4] = {agent->time_compute, agent->time_exchange, agent->time_update,
                        summary->seconds};
    return polka_netlog_finish_h5(&run->log, (size_t)run->rank, 1, &model, stages);
}

polka_status polka_sim_run_decentralized(const polka_plan *plan, MPI_Comm comm,
                                         const polka_sim_hooks *hooks, polka_sim_summary *summary,
                                         polka_model **final_model) {
    mpi_run run = {.plan = plan, .comm = comm};
    MPI_Comm_rank(comm, &run.rank);
    MPI_Comm_size(comm, &run.size);
    *summary = (polka_sim_summary){0};
    polka_graph *graph = NULL;
    polka_status status = polka_sim_graph(plan, (size_t)run.size, &graph);
    if (status == POLKA_OK) status = polka_sim_check_network(plan, graph, (size_t)run.size);
    if (status == POLKA_OK) status = mpi_setup(&run, graph, hooks);
    status = polka_net_agree(comm, status);
    /* from here on every rank takes the same branches: the statuses are agreed */
    if (status == POLKA_OK)
        status = polka_netlog_open_h5(&run.log, plan, run.facts, comm, (size_t)run.size, graph);
    if (status == POLKA_OK) status = polka_net_agree(comm, create_exchange(&run, graph));
    if (status == POLKA_OK)
        status = polka_sim_loop(plan, run.facts->n_train, (size_t)run.size * plan->learner.batch,
                                mpi_round_fn, mpi_log_fn, &run, hooks, summary);
    summary->agents = (size_t)run.size;
    polka_status closed = run.rank == 0 ? polka_netlog_close(&run.log) : POLKA_OK;
    if (status == POLKA_OK) status = polka_net_agree(comm, closed);
    if (status == POLKA_OK)
        status = polka_net_check(MPI_Bcast(summary, (int)sizeof *summary, MPI_BYTE, 0, comm),
                                 "MPI_Bcast");
    if (status == POLKA_OK)
        status = mpi_finish(&run, summary);
    else
        polka_netlog_abandon_h5(&run.log);
    if (status == POLKA_OK && final_model)
        status = polka_model_clone(polka_learner_model(run.agent.learner), final_model);
    mpi_teardown(&run);
    polka_graph_free(&graph);
    return status;
}
