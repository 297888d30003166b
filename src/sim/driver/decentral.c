/*
 * A decentralized method (net.method, method_impl.h) over MPI: net.agents agents placed on the
 * ranks by net.placement (placement.c: contiguous blocks or graph parts; one per rank by
 * default), neighbours on the same rank by memory, across ranks through one message per
 * neighbouring rank and phase (halo.c). An agent is its id wherever it is placed.
 */
#include <stdlib.h>
#include <string.h>

#include "sim/async/async_impl.h"
#include "sim/agent/halo_impl.h"
#include "sim/method/method_impl.h"
#include "polka/loss.h"
#include "polka/memory.h"
#include "sim/metrics/metrics_impl.h"
#include "polka/net.h"
#include "sim/checkpoint/resume_impl.h"
#include "sim/driver/sim_impl.h"
#include "sim/method/privacy_impl.h"

/* Test values kept between the two passes of a log step, at most this many doubles (64 MiB) and
 * a quarter of the rank's memory limit (data.memory); past it the second pass evaluates the
 * agents again (memory stays O(n_test) per rank). */
#define KEPT_TEST_VALUES ((size_t)1 << 23)

typedef struct {
    const polka_plan *plan;
    const polka_data_facts *facts; /* the stream's */
    MPI_Comm comm;
    int rank, size;
    size_t agents;             /* in the whole network */
    polka_graph *graph;        /* the current epoch's */
    polka_placement placement; /* the agents' ranks, from the first graph */
    polka_faults faults;
    polka_halo halo;
    size_t point_block, value_block; /* doubles per agent and neighbouring rank */
    polka_agent *local;              /* halo.count agents */
    const size_t *ids;               /* their agent numbers, increasing (the placement's) */
    polka_stream *stream;
    polka_dataset test;
    polka_dataset scored; /* the test points of the current log step (run.log_test) */
    polka_exchange *exchange;
    polka_netlog log;
    size_t outputs;
    double *f, *fbar;              /* kept test values (local agents × n_test × C), the average */
    int keep;                      /* 1: f holds every local agent's test values */
    polka_agent_metrics *mine;     /* the local agents' */
    polka_agent_metrics *all;      /* rank 0: every agent's, by agent id */
    polka_agent_metrics *gathered; /* rank 0: every agent's, rank by rank (placement.ids) */
    int *counts, *displs;          /* rank 0: the metrics gathered from each rank */
    double time_exchange;
    polka_lockstep_clock clock; /* the lockstep rounds in virtual time (async_impl.h) */
    double now;                 /* its time after the rounds played */
} mpi_run;

/* The halo and the exchange of the current graph (collective; the caller agrees). */
static polka_status connect(mpi_run *run) {
    POLKA_CALL(polka_halo_create(run->graph, &run->placement, run->rank, run->point_block,
                                 run->value_block, &run->halo));
    return polka_exchange_create(run->comm, run->halo.ranks, run->halo.degree, &run->exchange);
}

/* net.resample_every: the next epoch's graph, the local agents' neighbours from it and the
 * exchange between the ranks that now neighbour (every rank takes the same branches). */
static polka_status next_epoch(mpi_run *run, uint64_t t) {
    size_t every = run->plan->net.resample_every;
    if (every == 0 || t == 0 || t % every != 0) return POLKA_OK;
    polka_graph *graph = NULL;
    polka_status status = polka_network_epoch_graph(
        run->plan, run->agents, t, polka_method_of(run->plan)->check_graph, &graph);
    for (size_t a = 0; a < run->halo.count && status == POLKA_OK; a++)
        status = polka_agent_rewire(&run->local[a], graph);
    status = polka_net_agree(run->comm, status);
    if (status != POLKA_OK) {
        polka_graph_free(&graph);
        return status;
    }
    double crossed = run->halo.crossed;
    polka_halo_free(&run->halo);
    polka_exchange_free(&run->exchange);
    polka_graph_free(&run->graph);
    run->graph = graph;
    POLKA_CALL(polka_net_agree(run->comm, connect(run)));
    run->halo.crossed = crossed;
    return POLKA_OK;
}

/* A resumed run of a time-varying network: the graph of the checkpoint's last round. */
static polka_status resume_epoch(mpi_run *run) {
    uint64_t round = 0;
    POLKA_CALL(polka_net_agree(run->comm, polka_ckpt_resume_round(run->plan, run->agents, &round)));
    uint64_t drawn = polka_network_epoch_drawn(run->plan, round);
    return drawn ? next_epoch(run, drawn) : POLKA_OK; /* 0: the first graph */
}

/* One synchronous round; every rank runs both exchanges whatever happens locally. */
static polka_status mpi_round(mpi_run *run, uint64_t t, int *wish) {
    POLKA_CALL(next_epoch(run, t));
    polka_status status = POLKA_OK;
    for (size_t a = 0; a < run->halo.count; a++) polka_agent_links(&run->local[a], t);
    for (size_t a = 0; a < run->halo.count && status == POLKA_OK; a++)
        status = polka_agent_prepare(&run->local[a], run->stream);
    double start = polka_now();
    status = polka_halo_round(&run->halo, run->exchange, run->local, status,
                              polka_method_of(run->plan)->censors);
    double spent = polka_now() - start;
    for (size_t a = 0; a < run->halo.count; a++) run->local[a].counters.time_exchange += spent;
    for (size_t a = 0; a < run->halo.count && status == POLKA_OK; a++)
        status = polka_agent_update(&run->local[a]);
    run->now += polka_lockstep_round_time(&run->clock, run->graph, t);
    for (size_t a = 0; a < run->halo.count; a++) run->local[a].counters.clock = run->now;
    return polka_net_agree_wish(run->comm, status, wish); /* the checkpoint wish rides along */
}

/*
 * The first pass (collective): every agent's values on the scored points give its score and
 * loss (polka_metrics_agent_collect), and their sum over the first `points` points the network
 * average f̄ there; the values are kept where they fit.
 */
static polka_status score_and_average(mpi_run *run, size_t points) {
    size_t len = run->scored.n * run->outputs, averaged = points * run->outputs;
    double *sum = run->fbar + len; /* the second half of fbar's buffer */
    memset(sum, 0, averaged * sizeof *sum);
    polka_status status = POLKA_OK;
    for (size_t a = 0; a < run->halo.count && status == POLKA_OK; a++) {
        double *f = run->keep ? run->f + a * len : run->f;
        status = polka_metrics_test_values(&run->local[a], &run->scored, f);
        if (status != POLKA_OK) break;
        polka_metrics_agent_collect(&run->local[a], &run->scored, f, &run->mine[a]);
        for (size_t e = 0; e < averaged; e++) sum[e] += f[e];
    }
    POLKA_CALL(polka_net_allreduce(sum, run->fbar, (int)averaged, MPI_DOUBLE, MPI_SUM, run->comm,
                                   "the log step's network average"));
    for (size_t e = 0; e < averaged; e++) run->fbar[e] /= (double)run->agents;
    return status;
}

/* The second pass: each agent's disagreement with f̄ on the first `points` points, from the
 * kept values or evaluated again there (a view of the scored set: no copy). */
static polka_status measure_disagreement(mpi_run *run, size_t points) {
    polka_dataset view = run->scored;
    view.n = points;
    size_t len = run->scored.n * run->outputs;
    for (size_t a = 0; a < run->halo.count; a++) {
        double *f = run->keep ? run->f + a * len : run->f;
        if (!run->keep) POLKA_CALL(polka_metrics_test_values(&run->local[a], &view, f));
        run->mine[a].disagreement = polka_disagreement(f, run->fbar, points, run->outputs);
    }
    return POLKA_OK;
}

/*
 * A log step (collective): test metrics of every agent, gathered on rank 0, and the run
 * file. One agreement for it all, at the end: the average's reduction and the gather run on
 * every rank whatever happened locally, and the run file's row is not agreed on its own
 * (polka_netlog_write_h5), so a log step costs three collectives of polka's (and the run
 * file's HDF5 calls), not one agreement per HDF5 call. Where the values do not fit (many
 * agents per rank), the second pass evaluates them again on the disagreement's points only
 * (polka_metrics_disagreement_points).
 */
static polka_status mpi_log_step(mpi_run *run, size_t round, double samples,
                                 polka_sim_summary *summary) {
    polka_stream_test_now(run->stream, samples, &run->test); /* drift: the present distribution */
    run->scored = polka_metrics_log_test(run->plan, &run->test, round, summary);
    size_t points = polka_metrics_disagreement_points(run->plan, &run->scored);
    polka_status status = score_and_average(run, points);
    if (status == POLKA_OK) status = measure_disagreement(run, points);
    int count = (int)(run->halo.count * POLKA_METRICS_DOUBLES);
    POLKA_CALL(polka_net_gatherv(run->mine, count, MPI_DOUBLE, run->gathered, run->counts,
                                 run->displs, run->comm, "the log step's gather of the metrics"));
    for (size_t k = 0; run->rank == 0 && k < run->agents; k++)
        run->all[run->placement.ids[k]] = run->gathered[k];
    if (status == POLKA_OK && run->rank == 0)
        status = polka_netlog_step(&run->log, round, samples, run->all,
                                   run->scored.n == run->test.n, summary);
    polka_status written =
        polka_netlog_write_h5(&run->log, round, samples, run->ids, run->halo.count, run->mine);
    return polka_net_agree(run->comm, status != POLKA_OK ? status : written);
}

static polka_status mpi_round_fn(void *context, uint64_t t, int *wish) {
    return mpi_round(context, t, wish);
}

static polka_status mpi_log_fn(void *context, size_t round, double samples,
                               polka_sim_summary *summary) {
    return mpi_log_step(context, round, samples, summary);
}

static polka_status mpi_save_agent(void *context, size_t k, polka_state *state) {
    return polka_ckpt_agent_save(&((mpi_run *)context)->local[k], state);
}

static polka_status mpi_restore_agent(void *context, size_t k, const polka_state *state) {
    return polka_ckpt_agent_restore(&((mpi_run *)context)->local[k], state);
}

static const polka_driver_ops mpi_ops = {.round = mpi_round_fn,
                                         .log_step = mpi_log_fn,
                                         .save_agent = mpi_save_agent,
                                         .restore_agent = mpi_restore_agent};

/* The run as the loop and the checkpoints see it (after mpi_setup). */
static polka_driver mpi_driver(mpi_run *run) {
    return (polka_driver){.ops = &mpi_ops,
                          .context = run,
                          .comm = run->comm,
                          .agents = run->agents,
                          .ids = run->ids,
                          .count = run->halo.count,
                          .order = run->placement.ids,
                          .log = &run->log};
}

/* Rank 0 gathers every agent's metrics: the counts and offsets of each rank's agents. */
static polka_status gather_layout(mpi_run *run) {
    size_t n = run->agents, per = POLKA_METRICS_DOUBLES;
    run->all = malloc(n * sizeof *run->all);
    run->gathered = malloc(n * sizeof *run->gathered);
    run->counts = malloc((size_t)run->size * sizeof *run->counts);
    run->displs = malloc((size_t)run->size * sizeof *run->displs);
    POLKA_CHECK(run->all && run->gathered && run->counts && run->displs, POLKA_ERR_MEM,
                "out of memory for the metrics of %zu agents", n);
    for (int r = 0; r < run->size; r++) {
        const size_t *start = run->placement.start;
        run->displs[r] = (int)(start[r] * per);
        run->counts[r] = (int)((start[r + 1] - start[r]) * per);
    }
    return POLKA_OK;
}

static polka_status alloc_metrics(mpi_run *run) {
    size_t len = run->test.n * run->outputs, count = run->halo.count;
    size_t room = polka_data_memory_limit() / 4 / sizeof(double);
    run->keep = count * len <= (room < KEPT_TEST_VALUES ? room : KEPT_TEST_VALUES);
    run->f = malloc((run->keep ? count : 1) * (len ? len : 1) * sizeof *run->f);
    run->fbar = malloc(2 * (len ? len : 1) * sizeof *run->fbar);
    run->mine = calloc(count ? count : 1, sizeof *run->mine);
    POLKA_CHECK(run->f && run->fbar && run->mine, POLKA_ERR_MEM,
                "out of memory for the test values");
    return gather_layout(run);
}

/* Everything a rank needs before the loop; the status is agreed by the caller. */
static polka_status mpi_setup(mpi_run *run, const polka_sim_hooks *hooks) {
    const polka_plan *plan = run->plan;
    POLKA_CALL(polka_placement_create(plan, run->graph, run->size, &run->placement));
    size_t count = 0;
    run->ids = polka_placement_agents(&run->placement, run->rank, &count);
    polka_scan_hook split = {polka_sim_scan_split, &run->comm}; /* each rank its chunks */
    POLKA_CALL(polka_stream_create_for(plan, run->agents, plan->learner.batch, run->ids, count,
                                       &split, &run->stream));
    run->facts = polka_stream_facts(run->stream);
    run->local = calloc(count ? count : 1, sizeof *run->local);
    POLKA_CHECK(run->local, POLKA_ERR_MEM, "out of memory for %zu agents", count);
    POLKA_CALL(polka_faults_create(plan, run->agents, run->stream, &run->faults));
    size_t outputs = polka_loss_outputs(plan->learner.params.loss.kind, run->facts->classes);
    const polka_method_ops *method = polka_method_of(plan);
    if (method->fit)
        POLKA_CALL(method->fit(plan, run->graph, run->ids, count, run->facts->dim, outputs));
    for (size_t a = 0; a < count; a++)
        POLKA_CALL(polka_agent_init(&run->local[a], method, plan, run->facts, run->graph,
                                    &run->faults, run->ids[a]));
    /* the blocks an agent sends (as polka_agent_init sizes them; also on a rank without agents) */
    run->outputs = outputs;
    size_t doubles[2]; /* the messages encoded (net.codec_*) */
    POLKA_CALL(polka_agent_wire_doubles(method, plan, run->facts, outputs, doubles));
    run->point_block = doubles[0];
    run->value_block = doubles[1];
    POLKA_CALL(polka_halo_create(run->graph, &run->placement, run->rank, run->point_block,
                                 run->value_block, &run->halo));
    double bytes[2] = {0.0, 0.0}; /* a message of each phase, encoded */
    if (count > 0) {
        bytes[0] = (double)run->local[0].wire.bytes[0];
        bytes[1] = (double)run->local[0].wire.bytes[1];
    }
    POLKA_CALL(polka_net_check(
        MPI_Allreduce(MPI_IN_PLACE, bytes, 2, MPI_DOUBLE, MPI_MAX, run->comm), "MPI_Allreduce"));
    POLKA_CALL(polka_lockstep_clock_create(plan, run->agents, bytes, &run->clock));
    POLKA_CALL(polka_stream_test_set(run->stream, &run->test));
    POLKA_CALL(alloc_metrics(run));
    if (run->rank == 0) POLKA_CALL(polka_netlog_open(&run->log, plan, hooks, run->agents));
    return POLKA_OK;
}

static void mpi_teardown(mpi_run *run) {
    polka_lockstep_clock_free(&run->clock);
    polka_exchange_free(&run->exchange);
    for (size_t a = 0; run->local && a < run->halo.count; a++) polka_agent_free(&run->local[a]);
    free(run->local);
    polka_halo_free(&run->halo);
    polka_placement_free(&run->placement);
    polka_stream_free(&run->stream);
    polka_dataset_free(&run->test);
    polka_faults_free(&run->faults);
    polka_graph_free(&run->graph);
    free(run->f);
    free(run->fbar);
    free(run->mine);
    free(run->all);
    free(run->gathered);
    free(run->counts);
    free(run->displs);
}

/* Collective, after the loop: the models and timing stages into the run file. */
static polka_status mpi_finish(mpi_run *run, const polka_sim_summary *summary) {
    size_t count = run->halo.count;
    double stages[4] = {0.0, 0.0, 0.0, summary->seconds};
    for (size_t a = 0; a < count; a++) {
        stages[0] += run->local[a].counters.time_compute;
        stages[2] += run->local[a].counters.time_update;
    }
    stages[1] = count ? run->local[0].counters.time_exchange : 0.0;
    if (run->log.h5 == NULL) return POLKA_OK; /* no run file */
    polka_status status =
        polka_method_of(run->plan)->write_models(run->log.h5, run->local, run->ids, count);
    if (status != POLKA_OK) {
        polka_netlog_abandon_h5(&run->log);
        return status;
    }
    return polka_netlog_finish_h5(&run->log, run->ids, count, NULL, NULL, stages);
}

/* Copies of the local agents' final models into models[id] (models: all agents). */
static polka_status copy_models(const mpi_run *run, polka_model **models) {
    polka_status status = POLKA_OK;
    for (size_t a = 0; a < run->halo.count && status == POLKA_OK; a++)
        status = run->local[a].method->model(&run->local[a], &models[run->ids[a]]);
    return status;
}

/* Every local agent's final model is finite (a diverged run does not end with exit 0). */
static polka_status check_models(const mpi_run *run) {
    polka_status status = POLKA_OK;
    for (size_t a = 0; a < run->halo.count && status == POLKA_OK; a++)
        status = polka_agent_check_finite(&run->local[a]);
    return status;
}

polka_status polka_sim_check_learned(const polka_plan *plan, const polka_sim_summary *summary) {
    const polka_learner_params *params = &plan->learner.params;
    if (!polka_control_may_learn_nothing(params->control) || summary->rounds == 0 ||
        summary->max_order > 0)
        return POLKA_OK;
    if (!(summary->samples > 0)) /* nothing to remove: no update ended */
        return polka_error_set(
            POLKA_ERR_ARG,
            "no agent learned anything: no update finished (0 training samples seen in %zu log "
            "rows)%s",
            summary->rounds,
            polka_async_enabled(plan)
                ? "; under async.engine = events the horizon (async.horizon) ended before the "
                  "first update did, or async.staleness waited on messages that take longer "
                  "(async.bandwidth, async.latency): raise async.horizon"
                : "");
    return polka_error_set(
        POLKA_ERR_ARG,
        "no agent learned anything: every agent ends with the zero function (model order 0), "
        "KOMP's error bound (learner.kp * eta^1.5 = %g, or learner.epsilon) having removed every "
        "point of all %zu rounds; lower learner.kp",
        polka_learner_epsilon(params), summary->rounds);
}

/* Collective: the bytes that really crossed ranks per round, mean and largest over the ranks. */
static polka_status rank_traffic(const mpi_run *run, uint64_t first_round,
                                 polka_sim_summary *summary) {
    /* the rounds this process played (a resumed run counts from its checkpoint) */
    double played = (double)summary->rounds - (double)first_round;
    double rounds = played > 0 ? played : 1.0;
    double bytes = run->halo.crossed * sizeof(double) / rounds, total = 0.0, most = 0.0;
    POLKA_CALL(polka_net_allreduce(&bytes, &total, 1, MPI_DOUBLE, MPI_SUM, run->comm,
                                   "the sum of the traffic"));
    POLKA_CALL(polka_net_allreduce(&bytes, &most, 1, MPI_DOUBLE, MPI_MAX, run->comm,
                                   "the largest traffic"));
    summary->rank_bytes_per_round = total / (double)run->size;
    summary->rank_bytes_per_round_max = most;
    return POLKA_OK;
}

/* Collective: the edges of the first graph and those the placement cuts, and the points' noise,
 * in the run file. */
static polka_status placement_attrs(mpi_run *run) {
    if (run->log.h5 == NULL) return POLKA_OK;
    POLKA_CALL(polka_runfile_config_u64(run->log.h5, "edges", run->placement.edges));
    POLKA_CALL(polka_runfile_config_u64(run->log.h5, "edges_cut", run->placement.cut));
    /* the Gaussian mechanism's noise on the points (privacy.clip; 0: none) */
    return polka_runfile_config_double(run->log.h5, "noise_sigma", polka_privacy_sigma(run->plan));
}

/* The graph, checked for this run; the status is the same on every rank. */
static polka_status network(mpi_run *run) {
    polka_status status = polka_network_graph(run->plan, run->agents, &run->graph);
    if (status == POLKA_OK)
        status = polka_network_check(run->plan, run->graph, run->agents,
                                     polka_method_of(run->plan)->check_graph);
    return status;
}

/* Collective: the rounds of the lockstep engine, from a checkpoint when the run resumes. */
static polka_status lockstep_loop(mpi_run *run, polka_sim_point *from, const polka_sim_hooks *hooks,
                                  polka_sim_summary *summary) {
    POLKA_CALL(resume_epoch(run));
    polka_driver driver = mpi_driver(run);
    POLKA_CALL(polka_ckpt_resume(run->plan, &driver, from));
    if (run->halo.count > 0) run->now = run->local[0].counters.clock; /* resumed: its time */
    return polka_sim_loop(run->plan, &driver, run->facts->n_train,
                          run->agents * run->plan->learner.batch, from, hooks, summary);
}

/* Collective: the event engine in virtual time (async_impl.h). */
static polka_status async_loop(mpi_run *run, const polka_sim_hooks *hooks,
                               polka_sim_summary *summary) {
    polka_async_world world = {.plan = run->plan,
                               .comm = run->comm,
                               .rank = run->rank,
                               .graph = run->graph,
                               .placement = &run->placement,
                               .exchange = run->exchange,
                               .ranks = run->halo.ranks,
                               .degree = run->halo.degree,
                               .local = run->local,
                               .ids = run->ids,
                               .count = run->halo.count,
                               .agents = run->agents,
                               .stream = run->stream,
                               .doubles = {run->point_block, run->value_block},
                               .log_step = mpi_log_fn,
                               .context = run,
                               .crossed = &run->halo.crossed};
    polka_driver driver = mpi_driver(run);
    world.driver = &driver;
    return polka_async_run(&world, run->facts->n_train, hooks, summary);
}

polka_status polka_sim_run_decentralized(const polka_plan *plan, MPI_Comm comm,
                                         const polka_sim_hooks *hooks, polka_sim_summary *summary,
                                         polka_model **models) {
    mpi_run run = {.plan = plan, .comm = comm};
    MPI_Comm_rank(comm, &run.rank);
    MPI_Comm_size(comm, &run.size);
    *summary = (polka_sim_summary){0};
    polka_status status = polka_network_agents(plan, (size_t)run.size, &run.agents);
    if (status == POLKA_OK) status = network(&run);
    if (status == POLKA_OK) status = mpi_setup(&run, hooks);
    status = polka_net_agree(comm, status);
    /* from here on every rank takes the same branches: the statuses are agreed */
    if (status == POLKA_OK)
        status = polka_netlog_open_h5(&run.log, plan, run.facts, comm, run.agents, run.graph);
    if (status == POLKA_OK) status = placement_attrs(&run);
    if (status == POLKA_OK)
        status = polka_net_agree(
            comm, polka_exchange_create(comm, run.halo.ranks, run.halo.degree, &run.exchange));
    polka_sim_point from = {.next_log = (double)plan->run.log_every};
    if (status == POLKA_OK && polka_async_enabled(plan))
        status = async_loop(&run, hooks, summary);
    else if (status == POLKA_OK)
        status = lockstep_loop(&run, &from, hooks, summary);
    summary->agents = run.agents;
    summary->edges = run.placement.edges;
    summary->edges_cut = run.placement.cut;
    if (status == POLKA_OK) status = polka_net_agree(comm, check_models(&run));
    if (status == POLKA_OK) /* rank 0's summary has the last log step's model orders */
        status = polka_net_agree(comm,
                                 run.rank == 0 ? polka_sim_check_learned(plan, summary) : POLKA_OK);
    if (status == POLKA_OK) status = rank_traffic(&run, from.round, summary);
    polka_status closed = run.rank == 0 ? polka_netlog_close(&run.log) : POLKA_OK;
    if (status == POLKA_OK) status = polka_net_agree(comm, closed);
    if (status == POLKA_OK)
        status = polka_net_check(MPI_Bcast(summary, (int)sizeof *summary, MPI_BYTE, 0, comm),
                                 "MPI_Bcast");
    if (status == POLKA_OK)
        status = mpi_finish(&run, summary);
    else
        polka_netlog_abandon_h5(&run.log);
    if (status == POLKA_OK && models) status = copy_models(&run, models);
    mpi_teardown(&run);
    return status;
}
