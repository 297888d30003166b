#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "polka/memory.h"
#include "polka/net.h"
#include "polka/run_outputs.h"
#include "sim/checkpoint/resume_impl.h"
#include "sim/driver/sim_impl.h"
#include "sim/method/method_impl.h"

/* Centralized mode with a method other than the penalty (the random-feature ones): the
 * method's one agent learns from the union of the streams (all the data, i.i.d.), a batch of
 * every agent's round per step (run.central_batch sets another) — centralized random
 * features, the optimum dkla's agents go to. */
static polka_status central_method_plan(const polka_plan *plan, size_t agents, polka_plan *out) {
    *out = *plan;
    size_t batch = plan->run.central_batch ? plan->run.central_batch : agents * plan->learner.batch;
    char text[32];
    snprintf(text, sizeof text, "%zu", batch);
    out->net.agents = 1;
    out->learner.batch = batch;
    out->data.split = POLKA_SPLIT_IID;
    out->net.generated = 1;
    out->net.resample_every = 0;
    out->net.spec = polka_graph_spec_defaults(POLKA_GRAPH_COMPLETE, 1);
    out->net.spec.seed = plan->run.seed;
    snprintf(out->net.graph, sizeof out->net.graph, "complete");
    polka_config *settings = &out->settings; /* what ran, in the run file's /config */
    POLKA_CALL(polka_config_set(settings, "net.agents", "1"));
    POLKA_CALL(polka_config_set(settings, "learner.batch", text));
    POLKA_CALL(polka_config_set(settings, "data.split", "iid"));
    return polka_config_set(settings, "net.graph", "complete");
}

static polka_status run_central_method(const polka_plan *plan, size_t agents,
                                       const polka_sim_hooks *hooks, polka_sim_summary *summary) {
    static polka_plan central; /* large: not on the stack */
    POLKA_CALL(central_method_plan(plan, agents, &central));
    return polka_sim_run_decentralized(&central, MPI_COMM_SELF, hooks, summary, NULL);
}

/* Centralized mode: rank 0 learns, every rank gets the summary and the status. */
static polka_status run_centralized_on_root(const polka_plan *plan, MPI_Comm comm,
                                            const polka_sim_hooks *hooks,
                                            polka_sim_summary *summary) {
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    polka_status status = POLKA_OK;
    size_t agents = 1;
    if (rank == 0) status = polka_network_agents(plan, (size_t)size, &agents);
    int kernel = polka_method_of(plan)->central_kernel;
    if (rank == 0 && status == POLKA_OK)
        status = kernel ? polka_sim_run_centralized(plan, agents, hooks, summary)
                        : run_central_method(plan, agents, hooks, summary);
    POLKA_CALL(polka_net_agree(comm, status));
    return polka_net_check(MPI_Bcast(summary, (int)sizeof *summary, MPI_BYTE, 0, comm),
                           "MPI_Bcast");
}

/* Collective: the start-up time and the peak resident memory of the ranks (largest, sum). */
static polka_status measure(MPI_Comm comm, double started, polka_sim_summary *summary) {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    double mine = (double)usage.ru_maxrss / 1024.0, most = 0.0, all = 0.0; /* kB on Linux */
    POLKA_CALL(
        polka_net_allreduce(&mine, &most, 1, MPI_DOUBLE, MPI_MAX, comm, "the largest peak memory"));
    POLKA_CALL(polka_net_allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_SUM, comm,
                                   "the sum of the peak memory"));
    summary->peak_rss_mb = most;
    summary->peak_rss_total_mb = all;
    summary->setup_seconds = summary->loop_start - started;
    return POLKA_OK;
}

/* Collective: the ranks of comm on this rank's node (they share its memory). */
static polka_status ranks_on_node(MPI_Comm comm, unsigned *count) {
    MPI_Comm node = MPI_COMM_NULL;
    int size = 1;
    POLKA_CALL(
        polka_net_check(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node),
                        "MPI_Comm_split_type"));
    MPI_Comm_size(node, &size);
    MPI_Comm_free(&node);
    *count = (unsigned)size;
    return POLKA_OK;
}

static polka_status run_mode(const polka_plan *plan, MPI_Comm comm, const polka_sim_hooks *hooks,
                             polka_sim_summary *summary) {
    /* data.memory = auto: the ranks that read data on a node share its memory */
    unsigned readers = 1;
    if (plan->run.mode != POLKA_MODE_CENTRALIZED) POLKA_CALL(ranks_on_node(comm, &readers));
    polka_data_memory_share(plan->data.memory, readers);
    if (plan->run.mode == POLKA_MODE_CENTRALIZED)
        return run_centralized_on_root(plan, comm, hooks, summary);
    return polka_sim_run_decentralized(plan, comm, hooks, summary, NULL);
}

/* Before any output is created: where the checkpoints go, and the checkpoint a resumed run
 * starts from (its format, digest, settings, input files and agents), so that a refused
 * resume leaves the files its settings name untouched. Rank 0 checks; collective. */
static polka_status check_checkpoints(const polka_plan *plan, MPI_Comm comm) {
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    polka_status status = rank == 0 ? polka_ckpt_check_path(plan) : POLKA_OK;
    size_t agents = 1; /* a centralized run's checkpoint holds its one learner */
    uint64_t round = 0;
    if (rank == 0 && status == POLKA_OK && plan->run.mode != POLKA_MODE_CENTRALIZED &&
        plan->run.resume[0] != '\0')
        status = polka_network_agents(plan, (size_t)size, &agents);
    if (rank == 0 && status == POLKA_OK) status = polka_ckpt_resume_round(plan, agents, &round);
    return polka_net_agree(comm, status);
}

polka_status polka_sim_run(const polka_plan *plan, MPI_Comm comm, const polka_sim_hooks *hooks,
                           polka_sim_summary *summary) {
    double started = polka_now();
    *summary = (polka_sim_summary){0};
    POLKA_CALL(check_checkpoints(plan, comm));
    polka_run_outputs files;
    POLKA_CALL(polka_run_outputs_open(plan, comm, &files));
    polka_status status = run_mode(files.working, comm, hooks, summary);
    status = polka_run_outputs_close(&files, comm, status, summary->loop_start > 0);
    POLKA_CALL(status);
    return measure(comm, started, summary);
}
