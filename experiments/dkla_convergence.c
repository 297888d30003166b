/*
 * DKLA and COKE on a fixed data set per agent, at the level of the maths (rff_network_ref.h:
 * synchronous rounds, no faults): the relative distance max_i ‖θ_i − θ*‖ / ‖θ*‖ of the
 * agents to the centralized random-feature ridge solution θ*, per round, and the
 * transmissions each method spent. Data: the noisy sinc of [MPARG11] (regression.h), agent a
 * gets samples a·n .. a·n + n − 1 of the training stream; graph: a generated one (igraph).
 *
 *   dkla_convergence [key=value ...]   keys and defaults below (KNOBS)
 *
 * Prints "round dkla_distance coke_distance dkla_sent coke_sent" every `every` rounds, then
 * for each method the first round at which the distance is ≤ tol and the transmissions up to
 * it. Exit status 1 when either method did not get there within `rounds`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "polka/data.h"
#include "polka/graph.h"
#include "polka/regression.h"
#include "polka/rff.h"
#include "polka/rff_methods.h"
#include "polka/rff_network_ref.h"

#define KNOBS(X)                                                                                   \
    X(agents, 16)                                                                                  \
    X(per_agent, 50)                                                                               \
    X(features, 64)                                                                                \
    X(sigma, 1.0) X(lambda, 1e-3) X(rho, 0.003) X(alpha, 0.5) X(mu, 0.97) X(rounds, 5000)          \
        X(every, 50) X(tol, 1e-6) X(p, 0.3) X(seed, 1)

typedef struct {
#define FIELD(name, value) double name;
    KNOBS(FIELD)
#undef FIELD
} knobs;

static int parse_knobs(int argc, char **argv, knobs *k) {
#define DEFAULT(name, value) k->name = value;
    KNOBS(DEFAULT)
#undef DEFAULT
    for (int a = 1; a < argc; a++) {
        char *eq = strchr(argv[a], '=');
        int known = 0;
        if (eq == NULL)
            return fprintf(stderr, "dkla_convergence: '%s' is not key=value\n", argv[a]);
#define PARSE(name, value)                                                                         \
    if ((size_t)(eq - argv[a]) == strlen(#name) && strncmp(argv[a], #name, strlen(#name)) == 0) {  \
        k->name = strtod(eq + 1, NULL);                                                            \
        known = 1;                                                                                 \
    }
        KNOBS(PARSE)
#undef PARSE
        if (!known) return fprintf(stderr, "dkla_convergence: unknown key in '%s'\n", argv[a]);
    }
    if (k->agents < 2 || k->per_agent < 1 || k->features < 1 || k->every < 1 || k->rounds < 1)
        return fprintf(stderr, "dkla_convergence: agents >= 2, per_agent, features, every and "
                               "rounds >= 1, please\n");
    return 0;
}

/* The generated graph (Erdős–Rényi with edge probability p, retried until connected) as
 * adjacency lists; the arrays are malloc'ed into *g. */
static polka_status make_graph(const knobs *k, polka_rff_graph *g) {
    polka_graph_spec spec = polka_graph_spec_defaults(POLKA_GRAPH_ER, (size_t)k->agents);
    spec.p = k->p;
    spec.seed = (uint64_t)k->seed;
    polka_graph *graph = NULL;
    POLKA_CALL(polka_graph_generate_connected(&spec, 100, &graph, NULL));
    size_t n = polka_graph_nodes(graph), arcs = 2 * polka_graph_edges(graph);
    size_t *offsets = malloc((n + 1) * sizeof *offsets), *adj = malloc(arcs * sizeof *adj);
    if (offsets == NULL || adj == NULL) {
        free(offsets);
        free(adj);
        polka_graph_free(&graph);
        return polka_error_set(POLKA_ERR_MEM, "out of memory for the graph");
    }
    offsets[0] = 0;
    for (size_t i = 0; i < n; i++) {
        size_t degree = polka_graph_degree(graph, i);
        memcpy(adj + offsets[i], polka_graph_neighbors(graph, i), degree * sizeof *adj);
        offsets[i + 1] = offsets[i] + degree;
    }
    polka_graph_free(&graph);
    *g = (polka_rff_graph){.agents = n, .offsets = offsets, .adj = adj};
    return POLKA_OK;
}

/* Every agent's sinc samples mapped to the features: z (agents·n × D) and y. */
static polka_status make_data(const knobs *k, const polka_rff *rff, double *z, double *y) {
    polka_regression_params params = polka_regression_defaults(POLKA_REGRESSION_SINC);
    params.seed = (uint64_t)k->seed;
    polka_regression *gen = NULL;
    POLKA_CALL(polka_regression_create(&params, &gen));
    size_t total = (size_t)(k->agents * k->per_agent);
    double *x = malloc(total * params.dim * sizeof *x);
    if (x == NULL) {
        polka_regression_free(&gen);
        return polka_error_set(POLKA_ERR_MEM, "out of memory for the data");
    }
    for (size_t s = 0; s < total; s++)
        polka_regression_sample(gen, POLKA_STREAM_TRAIN, s, x + s * params.dim, y + s, NULL);
    polka_rff_map(rff, x, total, z);
    free(x);
    polka_regression_free(&gen);
    return POLKA_OK;
}

/* One method's run so far. */
typedef struct {
    polka_rff_net_ref net;
    polka_rff_admm admm;
    size_t reached;         /* first round within tol, 0: not yet */
    uint64_t sent_at_reach; /* transmissions up to it */
} method_run;

static polka_status step(method_run *m, const polka_rff_graph *g, const polka_rff_problem *pb,
                         const polka_rff_batch *batch, const double *star, double tol,
                         double *distance) {
    POLKA_CALL(polka_rff_net_ref_admm_round(&m->net, g, pb, batch, &m->admm, NULL));
    *distance = polka_rff_net_ref_max_distance(&m->net, star);
    if (m->reached == 0 && *distance <= tol) {
        m->reached = (size_t)m->net.round;
        m->sent_at_reach = m->net.transmissions;
    }
    return POLKA_OK;
}

static polka_status run(const knobs *k, const polka_rff_graph *g, const polka_rff_problem *pb,
                        const polka_rff_batch *batch, const double *star, method_run m[2]) {
    printf("round dkla_distance coke_distance dkla_sent coke_sent\n");
    for (size_t r = 1; r <= (size_t)k->rounds; r++) {
        double d[2];
        for (int i = 0; i < 2; i++) POLKA_CALL(step(&m[i], g, pb, batch, star, k->tol, &d[i]));
        if (r % (size_t)k->every == 0 || r == 1)
            printf("%zu %.3e %.3e %llu %llu\n", r, d[0], d[1],
                   (unsigned long long)m[0].net.transmissions,
                   (unsigned long long)m[1].net.transmissions);
        if (m[0].reached && m[1].reached) break;
    }
    const char *names[2] = {"dkla", "coke"};
    for (int i = 0; i < 2; i++)
        if (m[i].reached)
            printf("%s: distance <= %g at round %zu after %llu transmissions (of %zu possible)\n",
                   names[i], k->tol, m[i].reached, (unsigned long long)m[i].sent_at_reach,
                   m[i].reached * (size_t)k->agents);
        else
            printf("%s: distance > %g after %.0f rounds\n", names[i], k->tol, k->rounds);
    return POLKA_OK;
}

static polka_status experiment(const knobs *k, int *converged) {
    polka_rff_graph g = {0};
    POLKA_CALL(make_graph(k, &g));
    size_t agents = g.agents, n = (size_t)k->per_agent, D = (size_t)k->features;
    polka_rff rff = {0};
    polka_rff_problem pb = {
        .features = D, .outputs = 1, .loss = {.kind = POLKA_LOSS_SQUARE}, .lambda = k->lambda};
    double *z = malloc(agents * n * D * sizeof *z), *y = malloc(agents * n * sizeof *y);
    double *star = malloc(D * sizeof *star);
    polka_rff_batch *batch = calloc(agents, sizeof *batch);
    polka_dkla_exact *exact = calloc(agents, sizeof *exact);
    method_run m[2] = {{.admm = {.rho = k->rho, .exact = exact}},
                       {.admm = {.rho = k->rho, .alpha = k->alpha, .mu = k->mu, .exact = exact}}};
    polka_status status = z && y && star && batch && exact
                              ? POLKA_OK
                              : polka_error_set(POLKA_ERR_MEM, "out of memory for the data");
    if (status == POLKA_OK) status = polka_rff_draw(D, 2, k->sigma, (uint64_t)k->seed, &rff);
    if (status == POLKA_OK) status = make_data(k, &rff, z, y);
    for (size_t i = 0; i < agents; i++)
        batch[i] = (polka_rff_batch){.z = z + i * n * D, .y = y + i * n, .n = n};
    if (status == POLKA_OK) status = polka_rff_central_ridge(&pb, batch, agents, star);
    for (size_t i = 0; i < agents && status == POLKA_OK; i++)
        status = polka_dkla_exact_init(&pb, &batch[i], &exact[i]);
    for (int i = 0; i < 2 && status == POLKA_OK; i++)
        status = polka_rff_net_ref_create(&g, D, &m[i].net);
    if (status == POLKA_OK) status = run(k, &g, &pb, batch, star, m);
    *converged = m[0].reached && m[1].reached;
    for (int i = 0; i < 2; i++) polka_rff_net_ref_free(&m[i].net);
    for (size_t i = 0; exact && i < agents; i++) polka_dkla_exact_free(&exact[i]);
    polka_rff_free(&rff);
    free((void *)g.offsets);
    free((void *)g.adj);
    free(z), free(y), free(star), free(batch), free(exact);
    return status;
}

int main(int argc, char **argv) {
    knobs k;
    if (parse_knobs(argc, argv, &k)) return 2;
    printf("# dkla_convergence:");
#define SHOW(name, value) printf(" %s=%g", #name, k.name);
    KNOBS(SHOW)
#undef SHOW
    printf("\n");
    int converged = 0;
    if (experiment(&k, &converged) != POLKA_OK) {
        fprintf(stderr, "dkla_convergence: %s\n", polka_error_message());
        return 2;
    }
    return converged ? 0 : 1;
}
