/*
 * bench_startup: the start-up steps of a decentralized run on a large graph, timed one by one
 * with the run's own functions (the aim: start-up, placement and graph generation at 10^5 to
 * 10^6 nodes in seconds).
 *
 *   bench_startup N P[,P...] [--set key=value ...]
 *
 * The settings are polka run's (net.graph, net.p, net.radius, ...; net.agents = N is set here).
 * Prints the wall seconds of: generating the run's graph (polka_network_graph: the generator, its
 * retries until connected, the weights and the connectivity check), the network check, block
 * placement and METIS placement on P ranks (polka_placement_create, as every rank does it),
 * with the edges each cuts. No MPI communication: it runs as one process.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "polka/config.h"
#include "polka/graph.h"
#include "polka/plan.h"
#include "sim/driver/sim_impl.h"
#include "sim/network/placement_impl.h"
#include "sim/method/method_impl.h"

static double clock_of(clockid_t id) {
    struct timespec t;
    clock_gettime(id, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* A step's start: wall and CPU seconds. */
typedef struct {
    double wall, cpu;
} mark;

static mark now(void) {
    return (mark){clock_of(CLOCK_MONOTONIC), clock_of(CLOCK_PROCESS_CPUTIME_ID)};
}

/* "W s wall, C s CPU, peak R MB" since start (CPU: what a loaded machine does not inflate;
 * the process's peak resident memory so far). */
static const char *since(mark start) {
    static char text[96];
    mark end = now();
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    snprintf(text, sizeof text, "%7.2f s wall %7.2f s CPU, peak %6.0f MB", end.wall - start.wall,
             end.cpu - start.cpu, (double)usage.ru_maxrss / 1024.0);
    return text;
}

static int fail(const char *what) {
    fprintf(stderr, "bench_startup: %s: %s\n", what, polka_error_message());
    return 1;
}

static int place(const polka_plan *base, const polka_graph *graph, const char *kind, int ranks) {
    polka_plan plan = *base;
    polka_config config;
    polka_config_defaults(&config);
    if (polka_config_set(&config, "net.placement", kind) != POLKA_OK) return fail("placement");
    polka_plan parsed;
    if (polka_plan_build(&config, &parsed) != POLKA_OK) return fail("placement plan");
    plan.net.placement = parsed.net.placement;
    polka_placement placement;
    mark start = now();
    if (polka_placement_create(&plan, graph, ranks, &placement) != POLKA_OK)
        return fail("placement");
    printf("placement %-9s P = %-5d %s  (%zu of %zu edges cut)\n", kind, ranks, since(start),
           placement.cut, placement.edges);
    polka_placement_free(&placement);
    return 0;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    setvbuf(stdout, NULL, _IOLBF, 0); /* each step as it is timed */
    if (argc < 3) {
        fprintf(stderr, "usage: bench_startup N P[,P...] [--set key=value ...]\n");
        return 2;
    }
    polka_config config;
    polka_config_defaults(&config);
    if (polka_config_set(&config, "net.agents", argv[1]) != POLKA_OK) return fail("net.agents");
    for (int k = 3; k + 1 < argc; k += 2)
        if (strcmp(argv[k], "--set") != 0 ||
            polka_config_override(&config, argv[k + 1]) != POLKA_OK)
            return fail(argv[k + 1]);
    polka_plan plan;
    if (polka_plan_build(&config, &plan) != POLKA_OK) return fail("settings");
    size_t agents = strtoull(argv[1], NULL, 10);
    polka_graph *graph = NULL;
    mark start = now();
    if (polka_network_graph(&plan, agents, &graph) != POLKA_OK) return fail("graph");
    printf("graph (%zu nodes, %zu edges) %s\n", polka_graph_nodes(graph), polka_graph_edges(graph),
           since(start));
    start = now();
    if (polka_network_check(&plan, graph, agents, polka_method_of(&plan)->check_graph) != POLKA_OK)
        return fail("network check");
    printf("network check %s\n", since(start));
    int status = 0;
    for (const char *p = argv[2]; *p && status == 0; p = strchr(p, ',') ? strchr(p, ',') + 1 : "") {
        int ranks = atoi(p);
        status = place(&plan, graph, "block", ranks) || place(&plan, graph, "partition", ranks);
    }
    polka_graph_free(&graph);
    MPI_Finalize();
    return status;
}
