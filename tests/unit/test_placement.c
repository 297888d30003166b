/* net.placement (src/sim/network/placement.c): every rank gets a non-empty, increasing list of agents
 * of (nearly) equal size, the lists tile the agents, the maps agree with them, the edges cut
 * are counted; METIS parts cut fewer edges of a random graph than blocks of ids. */
#include <stdlib.h>
#include <string.h>

#include "polka/config.h"
#include "sim/network/placement_impl.h"
#include "test_util.h"

static const polka_plan *plan_with(const char *placement) {
    static polka_plan plan;
    polka_config config;
    polka_config_defaults(&config);
    CHECK_OK(polka_config_set(&config, "net.placement", placement));
    CHECK_OK(polka_plan_build(&config, &plan));
    return &plan;
}

static polka_graph *graph_of(polka_graph_kind kind, size_t n, double p) {
    polka_graph_spec spec = polka_graph_spec_defaults(kind, n);
    spec.p = p;
    polka_graph *graph = NULL;
    CHECK_OK(polka_graph_generate_connected(&spec, 100, &graph, NULL));
    return graph;
}

/* The lists tile 0..n−1, each increasing and of at most max(⌈n/P⌉, 1.03 n/P) agents, at
 * least one; owner and index agree; the cut is the edges with two owners. Returns the cut. */
static size_t check_placement(const polka_placement *p, const polka_graph *graph, int ranks) {
    size_t n = polka_graph_nodes(graph), seen = 0, cap = (n + (size_t)ranks - 1) / (size_t)ranks;
    if ((size_t)(1.03 * (double)n / ranks) > cap) cap = (size_t)(1.03 * (double)n / ranks);
    unsigned char *held = calloc(n, 1);
    for (int r = 0; r < ranks; r++) {
        size_t count = 0;
        const size_t *ids = polka_placement_agents(p, r, &count);
        assert_true(count >= 1 && count <= cap);
        for (size_t k = 0; k < count; k++) {
            assert_true(ids[k] < n && !held[ids[k]]);
            assert_true(k == 0 || ids[k] > ids[k - 1]);
            assert_int_equal(p->owner[ids[k]], r);
            assert_int_equal(p->index[ids[k]], k);
            held[ids[k]] = 1;
        }
        seen += count;
    }
    assert_int_equal(seen, n);
    size_t cut = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < polka_graph_degree(graph, i); k++) {
            size_t j = polka_graph_neighbors(graph, i)[k];
            cut += j > i && p->owner[i] != p->owner[j];
        }
    assert_int_equal(p->cut, cut);
    assert_int_equal(p->edges, polka_graph_edges(graph));
    free(held);
    return cut;
}

/* Small graphs where METIS alone leaves ranks empty (a star of 6 on 4 ranks: all on one). */
static void test_small_graphs_fill_every_rank(void **state) {
    (void)state;
    struct {
        polka_graph_kind kind;
        size_t n;
    } cases[] = {{POLKA_GRAPH_STAR, 6},
                 {POLKA_GRAPH_RING, 4},
                 {POLKA_GRAPH_LINE, 5},
                 {POLKA_GRAPH_COMPLETE, 9},
                 {POLKA_GRAPH_ER, 17}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++)
        for (int ranks = 1; ranks <= 4; ranks++) {
            polka_graph *graph = graph_of(cases[c].kind, cases[c].n, 0.3);
            for (int k = 0; k < 2; k++) {
                polka_placement p;
                CHECK_OK(
                    polka_placement_create(plan_with(k ? "partition" : "block"), graph, ranks, &p));
                check_placement(&p, graph, ranks);
                polka_placement_free(&p);
            }
            polka_graph_free(&graph);
        }
}

/* Blocks are contiguous runs of ids; on an ER graph (no structure in the ids) METIS's parts
 * cut clearly fewer edges, and the same ones every time. */
static void test_partition_cuts_fewer_edges(void **state) {
    (void)state;
    polka_graph *graph = graph_of(POLKA_GRAPH_ER, 256, 6.0 / 255);
    for (int ranks = 2; ranks <= 8; ranks *= 2) {
        polka_placement block, parts, again;
        CHECK_OK(polka_placement_create(plan_with("block"), graph, ranks, &block));
        CHECK_OK(polka_placement_create(plan_with("partition"), graph, ranks, &parts));
        CHECK_OK(polka_placement_create(plan_with("partition"), graph, ranks, &again));
        for (int r = 0; r < ranks; r++) {
            size_t count = 0;
            const size_t *ids = polka_placement_agents(&block, r, &count);
            assert_int_equal(ids[0], polka_block_first(256, ranks, r));
            assert_int_equal(count, polka_block_first(256, ranks, r + 1) - ids[0]);
        }
        size_t blocks_cut = check_placement(&block, graph, ranks);
        size_t parts_cut = check_placement(&parts, graph, ranks);
        assert_true(parts_cut < 0.8 * (double)blocks_cut);
        assert_memory_equal(parts.owner, again.owner, 256 * sizeof *parts.owner);
        polka_placement_free(&block);
        polka_placement_free(&parts);
        polka_placement_free(&again);
    }
    polka_graph_free(&graph);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_small_graphs_fill_every_rank),
        cmocka_unit_test(test_partition_cuts_fewer_edges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
