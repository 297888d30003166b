/* The random graph generators: er, rgg, smallworld, ba (igraph's games, seeded by spec.seed). */
#include <math.h>

#include "graph/generator_impl.h"

static polka_status check_er(const polka_graph_spec *spec) {
    POLKA_CHECK(spec->p > 0 && spec->p <= 1, POLKA_ERR_ARG,
                "er: edge probability p = %g is not in (0, 1]", spec->p);
    return POLKA_OK;
}

static double er_edges(const polka_graph_spec *spec) {
    double n = (double)spec->n;
    return n * (n - 1) / 2 * spec->p;
}

static polka_status make_er(const polka_graph_spec *spec, igraph_t *ig) {
    return polka_ig_check(igraph_erdos_renyi_game_gnp(ig, (igraph_integer_t)spec->n, spec->p, 0, 0),
                          "erdos_renyi_game");
}

static polka_status check_rgg(const polka_graph_spec *spec) {
    POLKA_CHECK(isfinite(spec->radius) && spec->radius > 0, POLKA_ERR_ARG,
                "rgg: radius = %g must be positive and finite", spec->radius);
    return POLKA_OK;
}

/* At most all pairs; in expectation the pairs times the disc's area. */
static double rgg_edges(const polka_graph_spec *spec) {
    double n = (double)spec->n;
    return n * (n - 1) / 2 * fmin(1.0, 3.14159265358979323846 * spec->radius * spec->radius);
}

static polka_status make_rgg(const polka_graph_spec *spec, igraph_t *ig) {
    return polka_ig_check(
        igraph_grg_game(ig, (igraph_integer_t)spec->n, spec->radius, 0, NULL, NULL), "grg_game");
}

static polka_status check_smallworld(const polka_graph_spec *spec) {
    size_t n = spec->n;
    POLKA_CHECK(spec->k >= 1 && spec->k < n && 2 * spec->k < n, POLKA_ERR_ARG,
                "smallworld: k = %zu neighbours on each side needs 1 <= k and 2k < n = %zu",
                spec->k, n);
    POLKA_CHECK(spec->rewire >= 0 && spec->rewire <= 1, POLKA_ERR_ARG,
                "smallworld: rewiring probability %g is not in [0, 1]", spec->rewire);
    return POLKA_OK;
}

/* n·k: a ring lattice with k neighbours on each side (smallworld), or k per new node (ba). */
static double k_edges(const polka_graph_spec *spec) {
    return (double)spec->n * (double)spec->k;
}

static polka_status make_smallworld(const polka_graph_spec *spec, igraph_t *ig) {
    igraph_integer_t n = (igraph_integer_t)spec->n, k = (igraph_integer_t)spec->k;
    return polka_ig_check(igraph_watts_strogatz_game(ig, 1, n, k, spec->rewire, 0, 0),
                          "watts_strogatz_game");
}

static polka_status check_ba(const polka_graph_spec *spec) {
    POLKA_CHECK(spec->k >= 1 && spec->k < spec->n, POLKA_ERR_ARG,
                "ba: k = %zu edges per new node needs 1 <= k < n = %zu", spec->k, spec->n);
    return POLKA_OK;
}

static polka_status make_ba(const polka_graph_spec *spec, igraph_t *ig) {
    igraph_integer_t n = (igraph_integer_t)spec->n, k = (igraph_integer_t)spec->k;
    return polka_ig_check(
        igraph_barabasi_game(ig, n, 1.0, k, NULL, 0, 1.0, 0, IGRAPH_BARABASI_PSUMTREE, NULL),
        "barabasi_game");
}

const polka_graph_generator polka_generator_er = {
    .name = "er",
    .help = "Erdos-Renyi G(n, p): each edge with probability p",
    .uses = POLKA_GRAPH_USES_P,
    .random = 1,
    .check = check_er,
    .edges = er_edges,
    .make = make_er,
};

const polka_graph_generator polka_generator_rgg = {
    .name = "rgg",
    .help = "random geometric: unit square, an edge within the radius",
    .uses = POLKA_GRAPH_USES_RADIUS,
    .random = 1,
    .check = check_rgg,
    .edges = rgg_edges,
    .make = make_rgg,
};

const polka_graph_generator polka_generator_smallworld = {
    .name = "smallworld",
    .help = "Watts-Strogatz: ring, k neighbours each side (2k < n), rewired",
    .uses = POLKA_GRAPH_USES_K | POLKA_GRAPH_USES_REWIRE,
    .random = 1,
    .check = check_smallworld,
    .edges = k_edges,
    .make = make_smallworld,
};

const polka_graph_generator polka_generator_ba = {
    .name = "ba",
    .help = "Barabasi-Albert: k edges per new node (k < n)",
    .uses = POLKA_GRAPH_USES_K,
    .random = 1,
    .check = check_ba,
    .edges = k_edges,
    .make = make_ba,
};
