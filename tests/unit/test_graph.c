/* Unit tests of the graph module: parsing, generators, weights, connectivity, spectra. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "polka/graph.h"
#include "test_util.h"

static const double pi = 3.14159265358979323846;

/* Parses text that must be accepted. */
static polka_graph *parse_ok(const char *text) {
    polka_graph *g = NULL;
    polka_status status = polka_graph_parse(text, "test.txt", &g);
    if (status != POLKA_OK) print_error("unexpected error: %s\n", polka_error_message());
    assert_int_equal(status, POLKA_OK);
    assert_non_null(g);
    return g;
}

/* Parses text that must fail with code and a message containing want. */
static void parse_fails(const char *text, polka_status code, const char *want) {
    polka_graph *g = NULL;
    polka_error_clear();
    polka_status status = polka_graph_parse(text, "test.txt", &g);
    if (status != code || strstr(polka_error_message(), want) == NULL)
        print_error("input \"%s\": status %d, message \"%s\", expected \"%s\"\n", text, (int)status,
                    polka_error_message(), want);
    assert_int_equal(status, code);
    assert_null(g);
    assert_non_null(strstr(polka_error_message(), want));
}

static polka_graph *generate_ok(const polka_graph_spec *spec) {
    polka_graph *g = NULL;
    polka_status status = polka_graph_generate(spec, &g);
    if (status != POLKA_OK) print_error("unexpected error: %s\n", polka_error_message());
    assert_int_equal(status, POLKA_OK);
    return g;
}

/* Index of j among i's neighbours, or SIZE_MAX. */
static size_t find_neighbor(const polka_graph *g, size_t i, size_t j) {
    const size_t *nb = polka_graph_neighbors(g, i);
    for (size_t a = 0; a < polka_graph_degree(g, i); a++)
        if (nb[a] == j) return a;
    return SIZE_MAX;
}

/* Neighbour lists strictly increasing, symmetric, no self loops, degrees sum to 2m. */
static void assert_well_formed(const polka_graph *g) {
    size_t total = 0;
    for (size_t i = 0; i < polka_graph_nodes(g); i++) {
        const size_t *nb = polka_graph_neighbors(g, i);
        size_t d = polka_graph_degree(g, i);
        total += d;
        for (size_t a = 0; a < d; a++) {
            assert_true(nb[a] < polka_graph_nodes(g));
            assert_true(nb[a] != i);
            if (a > 0) assert_true(nb[a - 1] < nb[a]);
            assert_true(find_neighbor(g, nb[a], i) != SIZE_MAX);
        }
    }
    assert_int_equal(total, 2 * polka_graph_edges(g));
}

static int same_graph(const polka_graph *a, const polka_graph *b) {
    if (polka_graph_nodes(a) != polka_graph_nodes(b)) return 0;
    if (polka_graph_edges(a) != polka_graph_edges(b)) return 0;
    for (size_t i = 0; i < polka_graph_nodes(a); i++) {
        size_t d = polka_graph_degree(a, i);
        if (d != polka_graph_degree(b, i)) return 0;
        if (d && memcmp(polka_graph_neighbors(a, i), polka_graph_neighbors(b, i),
                        d * sizeof(size_t)) != 0)
            return 0;
        for (size_t k = 0; k < d; k++)
            if (polka_graph_neighbor_weights(a, i)[k] != polka_graph_neighbor_weights(b, i)[k])
                return 0;
    }
    return 1;
}

/* ---- parsing ---------------------------------------------------------------------------- */

static void test_parse_plain(void **state) {
    (void)state;
    polka_graph *g = parse_ok("2 0\n0 1\n1 2\n3 1\n");
    assert_int_equal(polka_graph_nodes(g), 4);
    assert_int_equal(polka_graph_edges(g), 4);
    assert_int_equal(polka_graph_degree(g, 1), 3);
    const size_t *nb = polka_graph_neighbors(g, 1);
    assert_int_equal(nb[0], 0);
    assert_int_equal(nb[1], 2);
    assert_int_equal(nb[2], 3);
    for (size_t k = 0; k < 3; k++) assert_true(polka_graph_neighbor_weights(g, 1)[k] == 1.0);
    assert_well_formed(g);
    polka_graph_free(&g);
    assert_null(g);
    polka_graph_free(&g); /* NULL-safe */
    polka_graph_free(NULL);
}

static void test_parse_weighted(void **state) {
    (void)state;
    polka_graph *g = parse_ok("0 1 0.5\n1 2 2\n2 0 1e-3\n");
    assert_true(polka_graph_neighbor_weights(g, 0)[0] == 0.5);  /* 0-1 */
    assert_true(polka_graph_neighbor_weights(g, 0)[1] == 1e-3); /* 0-2 */
    assert_true(polka_graph_neighbor_weights(g, 2)[1] == 2.0);  /* 2-1 */
    assert_int_equal(polka_graph_set_weights(g, POLKA_WEIGHTS_UNIFORM), POLKA_OK);
    assert_true(polka_graph_neighbor_weights(g, 0)[0] == 1.0);
    assert_int_equal(polka_graph_set_weights(g, POLKA_WEIGHTS_FILE), POLKA_OK);
    assert_true(polka_graph_neighbor_weights(g, 0)[0] == 0.5);
    polka_graph_free(&g);
}

static void test_parse_networkx(void **state) {
    (void)state;
    /* Exactly what networkx 3 writes with write_edgelist(G, path). */
    polka_graph *g = parse_ok("0 1 {}\n"
                              "0 3 {'label': \"it's\"}\n"
                              "1 2 {'weight': 0.5}\n"
                              "2 3 {'weight': 2, 'color': 'red'}\n"
                              "3 4 {'tags': [1, {'a': 'b,}'}], \"weight\": 0.25}\n"
                              "4 5 {'note': 'a # b', 'weight': 3}\n");
    assert_int_equal(polka_graph_edges(g), 6);
    assert_true(polka_graph_neighbor_weights(g, 5)[0] == 3.0);
    assert_true(polka_graph_neighbor_weights(g, 0)[0] == 1.0);
    assert_true(polka_graph_neighbor_weights(g, 0)[1] == 1.0);
    assert_true(polka_graph_neighbor_weights(g, 1)[1] == 0.5);
    assert_true(polka_graph_neighbor_weights(g, 2)[1] == 2.0);
    assert_true(polka_graph_neighbor_weights(g, 4)[0] == 0.25);
    polka_graph_free(&g);
    /* write_edgelist(data=False) and write_weighted_edgelist. */
    g = parse_ok("0 1\n0 3\n1 2\n2 3\n");
    assert_int_equal(polka_graph_edges(g), 4);
    polka_graph_free(&g);
    g = parse_ok("0 1 0.5\n1 2 0.001\n");
    assert_true(polka_graph_neighbor_weights(g, 2)[0] == 0.001);
    polka_graph_free(&g);
}

static void test_parse_comments(void **state) {
    (void)state;
    polka_graph *g = parse_ok("# a graph\n"
                              "\n"
                              "   # indented comment\n"
                              "0 1 # trailing\n"
                              "1\t2\t0.5# trailing after weight\n"
                              "2 3 {'weight': 4}  # after a dict\r\n"
                              "  \t \n"
                              "3 0");
    assert_int_equal(polka_graph_nodes(g), 4);
    assert_int_equal(polka_graph_edges(g), 4);
    assert_true(polka_graph_neighbor_weights(g, 1)[1] == 0.5);
    assert_true(polka_graph_neighbor_weights(g, 3)[1] == 4.0);
    polka_graph_free(&g);
}

static void test_parse_nodes_header(void **state) {
    (void)state;
    polka_graph *g = parse_ok("# polka graph\n# nodes: 5\n# edges: 1\n0 1\n");
    assert_int_equal(polka_graph_nodes(g), 5);
    assert_int_equal(polka_graph_degree(g, 4), 0);
    assert_int_equal(polka_graph_check_connected(g, "iso"), POLKA_ERR_ARG);
    assert_non_null(strstr(polka_error_message(), "graph 'iso' is not connected"));
    assert_non_null(strstr(polka_error_message(), "4 components; node 2 cannot reach node 0"));
    polka_graph_free(&g);
    g = parse_ok("#nodes:2\n0 1\n# nodes : 2\n"); /* spacing, repeated but consistent */
    assert_int_equal(polka_graph_nodes(g), 2);
    assert_int_equal(polka_graph_check_connected(g, "two"), POLKA_OK);
    polka_graph_free(&g);
}

static void test_parse_errors(void **state) {
    (void)state;
    const polka_status F = POLKA_ERR_FORMAT;
    parse_fails("0 1\n0\n", F, "test.txt:2: expected 'u v [w]', found 1 field");
    parse_fails("0 1\n1 2 3 4\n", F, "test.txt:2: too many fields");
    parse_fails("0 1\n1 2 {} 4\n", F, "test.txt:2: too many fields");
    parse_fails("0 1\n\n0 x\n", F, "test.txt:3: malformed node id 'x'");
    parse_fails("0 1.5\n", F, "test.txt:1: malformed node id '1.5'");
    parse_fails("a,b\n", F, "test.txt:1: malformed node id");
    parse_fails("0 1\n0 -1\n", F, "test.txt:2: negative node id '-1'");
    parse_fails("0 99999999999999999999999\n", F, "test.txt:1: node id");
    parse_fails("# nodes: 3\n0 1\n1 3\n", F, "test.txt:3: node id 3 out of range");
    parse_fails("0 1\n1 3\n# nodes: 3\n", F, "test.txt:2: node id 3 out of range");
    parse_fails("0 1\n2 2\n", F, "test.txt:2: self loop 2-2");
    parse_fails("0 1\n1 2\n1 0\n", F, "test.txt:3: duplicate edge 1-0 (first on line 1)");
    parse_fails("0 1\n1 2\n# c\n1 2 0.5\n", F, "test.txt:4: duplicate edge 1-2 (first on line 2)");
    parse_fails("0 1 0\n", F, "test.txt:1: weight '0' is not positive");
    parse_fails("0 1\n1 2 -1\n", F, "test.txt:2: weight '-1' is not positive");
    parse_fails("0 1 nan\n", F, "test.txt:1: weight 'nan'");
    parse_fails("0 1 inf\n", F, "test.txt:1: weight 'inf'");
    parse_fails("0 1 1e999\n", F, "test.txt:1: weight '1e999'");
    parse_fails("0 1 0.5x\n", F, "test.txt:1: malformed weight '0.5x'");
    parse_fails("0 1 {'weight': -2}\n", F, "test.txt:1: weight '-2' is not positive");
    parse_fails("0 1 {'weight': 'heavy'}\n", F, "test.txt:1: malformed weight");
    parse_fails("0 1\n0 2 {'weight': 1\n", F, "test.txt:2: unterminated");
    parse_fails("0 1 {weight: 1}\n", F, "test.txt:1: malformed edge data");
    parse_fails("0 1 {'weight' 1}\n", F, "test.txt:1: malformed edge data");
    parse_fails("0 1 {'a': 1 'b': 2}\n", F, "test.txt:1: malformed edge data");
    parse_fails("0 1 {'a': 'b}\n", F, "test.txt:1: unterminated");
    parse_fails("# nodes: x\n0 1\n", F, "test.txt:1: malformed header");
    parse_fails("# nodes: 0\n0 1\n", F, "test.txt:1: malformed header");
    parse_fails("# nodes: 4\n0 1\n# nodes: 5\n", F, "test.txt:3: '# nodes: 5' contradicts");
    parse_fails("", F, "test.txt: empty graph (no edges)");
    parse_fails("# nothing\n\n", F, "test.txt: empty graph (no edges)");
}

static void test_read_file(void **state) {
    (void)state;
    polka_graph *g = NULL;
    assert_int_equal(polka_graph_read("/nonexistent/dir/graph.txt", &g), POLKA_ERR_IO);
    assert_null(g);
    assert_non_null(strstr(polka_error_message(), "/nonexistent/dir/graph.txt"));
    assert_non_null(strstr(polka_error_message(), "No such file or directory"));
    char path[] = "/tmp/polka_test_graph_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    assert_non_null(f);
    fputs("0 1\n1 2\n2 2\n", f);
    fclose(f);
    assert_int_equal(polka_graph_read(path, &g), POLKA_ERR_FORMAT);
    char want[64];
    snprintf(want, sizeof want, "%s:3: self loop 2-2", path);
    assert_string_equal(polka_error_message(), want);
    remove(path);
}

/* ---- generators ------------------------------------------------------------------------- */

static polka_graph *make(polka_graph_kind kind, size_t n) {
    polka_graph_spec spec = polka_graph_spec_defaults(kind, n);
    return generate_ok(&spec);
}

static void assert_degrees(const polka_graph *g, size_t min, size_t max) {
    polka_graph_info info;
    assert_int_equal(polka_graph_describe(g, &info), POLKA_OK);
    assert_int_equal(info.min_degree, min);
    assert_int_equal(info.max_degree, max);
    assert_true(info.connected);
}

static void test_generate_regular(void **state) {
    (void)state;
    for (size_t n = 3; n <= 17; n += 7) {
        polka_graph *g = make(POLKA_GRAPH_RING, n);
        assert_int_equal(polka_graph_edges(g), n);
        assert_degrees(g, 2, 2);
        assert_int_equal(polka_graph_neighbors(g, 0)[0], 1);
        assert_int_equal(polka_graph_neighbors(g, 0)[1], n - 1);
        assert_well_formed(g);
        polka_graph_free(&g);
        g = make(POLKA_GRAPH_LINE, n);
        assert_int_equal(polka_graph_edges(g), n - 1);
        assert_degrees(g, 1, 2);
        assert_int_equal(polka_graph_degree(g, 0), 1);
        assert_int_equal(polka_graph_degree(g, n - 1), 1);
        assert_well_formed(g);
        polka_graph_free(&g);
        g = make(POLKA_GRAPH_STAR, n);
        assert_int_equal(polka_graph_edges(g), n - 1);
        assert_int_equal(polka_graph_degree(g, 0), n - 1);
        assert_degrees(g, 1, n - 1);
        assert_well_formed(g);
        polka_graph_free(&g);
        g = make(POLKA_GRAPH_COMPLETE, n);
        assert_int_equal(polka_graph_edges(g), n * (n - 1) / 2);
        assert_degrees(g, n - 1, n - 1);
        assert_well_formed(g);
        polka_graph_free(&g);
    }
    polka_graph *g = make(POLKA_GRAPH_LINE, 2);
    assert_int_equal(polka_graph_edges(g), 1);
    polka_graph_free(&g);
}

static void test_generate_lattices(void **state) {
    (void)state;
    polka_graph *g = make(POLKA_GRAPH_GRID, 16); /* 4 x 4 */
    assert_int_equal(polka_graph_edges(g), 24);
    assert_degrees(g, 2, 4);
    assert_well_formed(g);
    polka_graph_free(&g);
    polka_graph_spec spec = polka_graph_spec_defaults(POLKA_GRAPH_GRID, 15);
    spec.rows = 3; /* 3 x 5, node r * 5 + c */
    g = generate_ok(&spec);
    assert_int_equal(polka_graph_edges(g), 3 * 4 + 2 * 5);
    assert_int_equal(polka_graph_degree(g, 0), 2);
    assert_int_equal(polka_graph_neighbors(g, 0)[0], 1);
    assert_int_equal(polka_graph_neighbors(g, 0)[1], 5);
    assert_int_equal(polka_graph_degree(g, 6), 4);
    assert_well_formed(g);
    polka_graph_free(&g);
    g = make(POLKA_GRAPH_GRID, 12); /* as square as possible: 3 x 4 */
    assert_int_equal(polka_graph_edges(g), 3 * 3 + 2 * 4);
    polka_graph_free(&g);
    g = make(POLKA_GRAPH_GRID, 7); /* prime: 1 x 7, a line */
    assert_int_equal(polka_graph_edges(g), 6);
    polka_graph_free(&g);
    g = make(POLKA_GRAPH_TORUS, 16);
    assert_int_equal(polka_graph_edges(g), 32);
    assert_degrees(g, 4, 4);
    assert_well_formed(g);
    polka_graph_free(&g);
    spec = polka_graph_spec_defaults(POLKA_GRAPH_TORUS, 15);
    spec.cols = 5;
    g = generate_ok(&spec);
    assert_int_equal(polka_graph_edges(g), 30);
    assert_degrees(g, 4, 4);
    assert_int_equal(polka_graph_neighbors(g, 0)[3], 10); /* wraps to row 2 */
    polka_graph_free(&g);
}

static void check_random_kind(polka_graph_spec spec) {
    polka_graph *a = generate_ok(&spec);
    polka_graph *b = generate_ok(&spec);
    assert_true(same_graph(a, b));
    assert_well_formed(a);
    spec.seed += 1;
    polka_graph *c = generate_ok(&spec);
    assert_false(same_graph(a, c));
    assert_non_null(strstr(polka_graph_comment(a), polka_graph_kind_name(spec.kind)));
    polka_graph_free(&a);
    polka_graph_free(&b);
    polka_graph_free(&c);
}

static void test_generate_random(void **state) {
    (void)state;
    polka_graph_spec spec = polka_graph_spec_defaults(POLKA_GRAPH_ER, 32);
    spec.seed = 7;
    check_random_kind(spec);
    spec.kind = POLKA_GRAPH_RGG;
    check_random_kind(spec);
    spec.kind = POLKA_GRAPH_SMALLWORLD;
    spec.rewire = 0.3;
    check_random_kind(spec);
    spec.kind = POLKA_GRAPH_BA;
    check_random_kind(spec);
    /* Edge counts that do not depend on the draw. */
    polka_graph *g = make(POLKA_GRAPH_SMALLWORLD, 16);
    assert_int_equal(polka_graph_edges(g), 16 * 2);
    polka_graph_free(&g);
    g = make(POLKA_GRAPH_BA, 16);
    assert_int_equal(polka_graph_edges(g), 1 + 2 * 14);
    assert_int_equal(polka_graph_check_connected(g, "ba"), POLKA_OK);
    polka_graph_free(&g);
    spec = polka_graph_spec_defaults(POLKA_GRAPH_ER, 16);
    spec.p = 1.0;
    g = generate_ok(&spec);
    assert_int_equal(polka_graph_edges(g), 120);
    polka_graph_free(&g);
}

static void spec_fails(polka_graph_spec spec, const char *want) {
    polka_graph *g = NULL;
    polka_status status = polka_graph_generate(&spec, &g);
    if (status != POLKA_ERR_ARG || !strstr(polka_error_message(), want))
        print_error("status %d, message \"%s\", expected \"%s\"\n", (int)status,
                    polka_error_message(), want);
    assert_int_equal(status, POLKA_ERR_ARG);
    assert_null(g);
    assert_non_null(strstr(polka_error_message(), want));
}

static void test_generate_bad_specs(void **state) {
    (void)state;
    polka_graph_spec s = polka_graph_spec_defaults(POLKA_GRAPH_LINE, 1);
    spec_fails(s, "n = 1");
    s = polka_graph_spec_defaults(POLKA_GRAPH_RING, 2);
    spec_fails(s, "ring: needs n >= 3");
    s = polka_graph_spec_defaults(POLKA_GRAPH_ER, 16);
    s.p = 0;
    spec_fails(s, "p = 0 is not in (0, 1]");
    s.p = 1.5;
    spec_fails(s, "p = 1.5");
    s.p = NAN;
    spec_fails(s, "p = nan");
    s = polka_graph_spec_defaults(POLKA_GRAPH_GRID, 16);
    s.rows = 3;
    spec_fails(s, "rows x cols (3 x 0) must equal n = 16");
    s.rows = 4;
    s.cols = 5;
    spec_fails(s, "rows x cols (4 x 5)");
    s = polka_graph_spec_defaults(POLKA_GRAPH_TORUS, 16);
    s.rows = 2;
    spec_fails(s, "torus: needs rows, cols >= 3");
    s = polka_graph_spec_defaults(POLKA_GRAPH_SMALLWORLD, 16);
    s.k = 8;
    spec_fails(s, "2k < n");
    s.k = 2;
    s.rewire = -0.1;
    spec_fails(s, "rewiring probability");
    s = polka_graph_spec_defaults(POLKA_GRAPH_BA, 16);
    s.k = 16;
    spec_fails(s, "1 <= k < n");
    s = polka_graph_spec_defaults(POLKA_GRAPH_RGG, 16);
    s.radius = 0;
    spec_fails(s, "radius");
    s = polka_graph_spec_defaults(POLKA_GRAPH_COMPLETE, 1000000);
    spec_fails(s, "edges (limit");
}

static void test_generate_connected(void **state) {
    (void)state;
    polka_graph_spec spec = polka_graph_spec_defaults(POLKA_GRAPH_ER, 32);
    spec.p = 0.08;
    spec.seed = 1;
    polka_graph *g = NULL;
    uint64_t used = 0;
    assert_int_equal(polka_graph_generate_connected(&spec, 100, &g, &used), POLKA_OK);
    assert_true(used >= 1 && used <= 100);
    assert_int_equal(polka_graph_check_connected(g, "er"), POLKA_OK);
    char want[32];
    snprintf(want, sizeof want, "seed=%llu", (unsigned long long)used);
    assert_non_null(strstr(polka_graph_comment(g), want));
    polka_graph_free(&g);
    /* The same seed gives the same graph directly. */
    spec.seed = used;
    polka_graph *h = generate_ok(&spec);
    assert_int_equal(polka_graph_check_connected(h, "er"), POLKA_OK);
    polka_graph_free(&h);
    spec.p = 0.001;
    spec.seed = 1;
    assert_int_equal(polka_graph_generate_connected(&spec, 3, &g, &used), POLKA_ERR_ARG);
    assert_null(g);
    assert_non_null(strstr(polka_error_message(), "seeds 1..3"));
}

/* 1 when node b is among node a's neighbours. */
static int adjacent(const polka_graph *g, size_t a, size_t b) {
    const size_t *nb = polka_graph_neighbors(g, a);
    for (size_t k = 0; k < polka_graph_degree(g, a); k++)
        if (nb[k] == b) return 1;
    return 0;
}

/* spec.join: ER below the connectivity threshold (mean degree 3 on 2 000 nodes: tens of
 * components) becomes connected with exactly components − 1 more edges, each from a node the
 * unjoined graph had cut off, every unjoined edge kept; the same seed joins alike. */
static void test_generate_joined(void **state) {
    (void)state;
    polka_graph_spec spec = polka_graph_spec_defaults(POLKA_GRAPH_ER, 2000);
    spec.p = 0.0015;
    spec.seed = 5;
    polka_graph *plain = generate_ok(&spec);
    polka_graph_info info;
    assert_int_equal(polka_graph_describe(plain, &info), POLKA_OK);
    size_t components = info.components;
    assert_true(components > 10);
    spec.join = 1;
    polka_graph *joined = generate_ok(&spec), *again = generate_ok(&spec);
    assert_int_equal(polka_graph_check_connected(joined, "joined"), POLKA_OK);
    assert_int_equal(polka_graph_edges(joined), polka_graph_edges(plain) + components - 1);
    size_t added = 0;
    for (size_t a = 0; a < 2000; a++) {
        assert_int_equal(polka_graph_degree(joined, a), polka_graph_degree(again, a));
        for (size_t k = 0; k < polka_graph_degree(plain, a); k++)
            assert_true(adjacent(joined, a, polka_graph_neighbors(plain, a)[k]));
        for (size_t k = 0; k < polka_graph_degree(joined, a); k++) {
            size_t b = polka_graph_neighbors(joined, a)[k];
            assert_int_equal(b, polka_graph_neighbors(again, a)[k]);
            if (a < b && !adjacent(plain, a, b)) added++;
        }
    }
    assert_int_equal(added, components - 1);
    assert_non_null(strstr(polka_graph_comment(joined), "join=1"));
    char want[64];
    snprintf(want, sizeof want, "joined: %zu edges added", components - 1);
    assert_non_null(strstr(polka_graph_comment(joined), want));
    /* generate_connected takes the first seed's joined graph */
    polka_graph *connected = NULL;
    uint64_t used = 0;
    assert_int_equal(polka_graph_generate_connected(&spec, 100, &connected, &used), POLKA_OK);
    assert_int_equal(used, 5);
    assert_int_equal(polka_graph_edges(connected), polka_graph_edges(joined));
    polka_graph_free(&connected);
    polka_graph_free(&again);
    polka_graph_free(&joined);
    polka_graph_free(&plain);
    /* a kind that is not random is refused, not silently left alone */
    spec = polka_graph_spec_defaults(POLKA_GRAPH_RING, 16);
    spec.join = 1;
    spec_fails(spec, "random kinds only");
}

/* ---- construction, connectivity, weights, spectra ---------------------------------------- */

static void test_from_edges(void **state) {
    (void)state;
    const size_t u[] = {0, 2, 3}, v[] = {1, 3, 4};
    const double w[] = {0.5, 1.0, 2.0};
    polka_graph *g = NULL;
    assert_int_equal(polka_graph_from_edges(5, u, v, w, 3, &g), POLKA_OK);
    assert_int_equal(polka_graph_check_connected(g, "twoparts"), POLKA_ERR_ARG);
    assert_string_equal(polka_error_message(), "graph 'twoparts' is not connected "
                                               "(2 components; node 2 cannot reach node 0)");
    polka_graph_info info;
    assert_int_equal(polka_graph_describe(g, &info), POLKA_OK);
    assert_false(info.connected);
    assert_int_equal(info.components, 2);
    assert_int_equal(info.diameter, SIZE_MAX);
    assert_true(info.algebraic_connectivity == 0.0);
    assert_true(info.max_row_sum == 3.0); /* node 3: 1 + 2 */
    polka_graph_free(&g);

    const size_t bad_u[] = {0, 1}, bad_v[] = {1, 0};
    assert_int_equal(polka_graph_from_edges(3, bad_u, bad_v, NULL, 2, &g), POLKA_ERR_ARG);
    assert_non_null(strstr(polka_error_message(), "duplicate edge"));
    const size_t loop_u[] = {1}, far_v[] = {3};
    assert_int_equal(polka_graph_from_edges(3, loop_u, loop_u, NULL, 1, &g), POLKA_ERR_ARG);
    assert_non_null(strstr(polka_error_message(), "self loop"));
    assert_int_equal(polka_graph_from_edges(3, loop_u, far_v, NULL, 1, &g), POLKA_ERR_ARG);
    assert_non_null(strstr(polka_error_message(), "out of range"));
    const double zero[] = {0.0};
    assert_int_equal(polka_graph_from_edges(5, loop_u, far_v, zero, 1, &g), POLKA_ERR_ARG);
    assert_null(g);
    /* One node, no edges: the centralized case. */
    assert_int_equal(polka_graph_from_edges(1, NULL, NULL, NULL, 0, &g), POLKA_OK);
    assert_int_equal(polka_graph_check_connected(g, "one"), POLKA_OK);
    assert_int_equal(polka_graph_describe(g, &info), POLKA_OK);
    assert_int_equal(info.diameter, 0);
    assert_true(isnan(info.algebraic_connectivity));
    polka_graph_free(&g);
}

static void check_metropolis(polka_graph *g) {
    assert_int_equal(polka_graph_set_weights(g, POLKA_WEIGHTS_METROPOLIS), POLKA_OK);
    double max_sum = 0;
    for (size_t i = 0; i < polka_graph_nodes(g); i++) {
        const size_t *nb = polka_graph_neighbors(g, i);
        const double *w = polka_graph_neighbor_weights(g, i);
        double sum = 0;
        for (size_t a = 0; a < polka_graph_degree(g, i); a++) {
            size_t j = nb[a];
            size_t di = polka_graph_degree(g, i), dj = polka_graph_degree(g, j);
            assert_true(w[a] == 1.0 / (1.0 + (double)(di > dj ? di : dj)));
            size_t back = find_neighbor(g, j, i);
            assert_true(polka_graph_neighbor_weights(g, j)[back] == w[a]);
            sum += w[a];
        }
        assert_true(sum < 1.0);
        if (sum > max_sum) max_sum = sum;
    }
    polka_graph_info info;
    assert_int_equal(polka_graph_describe(g, &info), POLKA_OK);
    /* the same weights (checked == above) summed in the same adjacency order: the same bits */
    assert_true(info.max_metropolis_row_sum == max_sum);
    assert_true(polka_graph_max_row_sum(g) == max_sum);
}

static void test_metropolis(void **state) {
    (void)state;
    polka_graph_spec spec = polka_graph_spec_defaults(POLKA_GRAPH_ER, 32);
    polka_graph *g = generate_ok(&spec);
    check_metropolis(g);
    polka_graph_free(&g);
    g = make(POLKA_GRAPH_STAR, 16);
    check_metropolis(g);
    assert_true(polka_graph_max_row_sum(g) == 15.0 / 16.0); /* 1/16 each: every k/16 exact */
    polka_graph_free(&g);
    g = make(POLKA_GRAPH_BA, 64);
    check_metropolis(g);
    polka_graph_free(&g);
}

/* λ₂ of g's Laplacian L (g freed) and the error bound of dsyev's eigenvalues: backward stable,
 * they are exact for L + E with ‖E‖₂ ≤ p(n)·u·‖L‖₂, so each is within that of L's (Weyl)
 * [Golub & Van Loan, 4th ed., §8.1, §8.3; LAPACK Users' Guide, §4.7: p(n) grows modestly]:
 * p(n) = n, and ‖L‖₂ ≤ ‖L‖₁ = 2·max degree for a symmetric L [Higham02, §6.3]. */
static double lambda2(polka_graph *g, double *bound) {
    polka_graph_info info;
    assert_int_equal(polka_graph_describe(g, &info), POLKA_OK);
    polka_graph_free(&g);
    *bound = test_gamma((double)info.nodes) * 2.0 * (double)info.max_degree;
    return info.algebraic_connectivity;
}

static void test_algebraic_connectivity(void **state) {
    (void)state;
    const size_t sizes[] = {2, 3, 4, 8, 16, 33};
    /* 2 − 2 cos x with x = fl(fl(2π)/n) (π itself rounded): |x|·γ_3 ≤ πγ_3 in cos's argument,
     * 1 ulp of cos, doubled, and the difference's rounding of ≤ 4: under 8γ_4 */
    double closed = 8 * test_gamma(4), bound;
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        size_t n = sizes[s];
        double dn = (double)n;
        assert_true(fabs(lambda2(make(POLKA_GRAPH_COMPLETE, n), &bound) - dn) <= bound);
        double line = lambda2(make(POLKA_GRAPH_LINE, n), &bound);
        assert_true(fabs(line - (2 - 2 * cos(pi / dn))) <= bound + closed);
        if (n < 3) continue;
        double ring = lambda2(make(POLKA_GRAPH_RING, n), &bound);
        assert_true(fabs(ring - (2 - 2 * cos(2 * pi / dn))) <= bound + closed);
        assert_true(fabs(lambda2(make(POLKA_GRAPH_STAR, n), &bound) - 1.0) <= bound);
    }
}

static size_t diameter(polka_graph *g) {
    polka_graph_info info;
    assert_int_equal(polka_graph_describe(g, &info), POLKA_OK);
    polka_graph_free(&g);
    return info.diameter;
}

static void test_diameter(void **state) {
    (void)state;
    for (size_t n = 3; n <= 12; n++) {
        assert_int_equal(diameter(make(POLKA_GRAPH_RING, n)), n / 2);
        assert_int_equal(diameter(make(POLKA_GRAPH_LINE, n)), n - 1);
        assert_int_equal(diameter(make(POLKA_GRAPH_STAR, n)), 2);
        assert_int_equal(diameter(make(POLKA_GRAPH_COMPLETE, n)), 1);
    }
    assert_int_equal(diameter(make(POLKA_GRAPH_GRID, 16)), 6);
    assert_int_equal(diameter(make(POLKA_GRAPH_TORUS, 16)), 4);
    polka_graph *g = make(POLKA_GRAPH_RING, 10);
    polka_graph_info info;
    assert_int_equal(polka_graph_describe(g, &info), POLKA_OK);
    assert_int_equal(info.nodes, 10);
    assert_int_equal(info.edges, 10);
    assert_true(info.mean_degree == 2.0);
    assert_int_equal(info.components, 1);
    polka_graph_free(&g);
}

/* Writes g to a temporary file and reads it back. */
static polka_graph *round_trip(const polka_graph *g, char *text, size_t size) {
    char path[] = "/tmp/polka_test_graph_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(polka_graph_write(g, path), POLKA_OK);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t got = fread(text, 1, size - 1, f);
    text[got] = '\0';
    fclose(f);
    polka_graph *back = NULL;
    assert_int_equal(polka_graph_read(path, &back), POLKA_OK);
    remove(path);
    return back;
}

static void test_round_trip(void **state) {
    (void)state;
    static char text[1 << 16];
    polka_graph_spec spec = polka_graph_spec_defaults(POLKA_GRAPH_ER, 24);
    spec.seed = 3;
    polka_graph *g = generate_ok(&spec);
    polka_graph *back = round_trip(g, text, sizeof text);
    assert_true(same_graph(g, back));
    assert_non_null(strstr(text, "# nodes: 24\n"));
    assert_non_null(strstr(text, "kind=er n=24 p=0.2 seed=3"));
    assert_null(strstr(text, "0.5")); /* unweighted: two columns */
    polka_graph_free(&back);
    /* Metropolis weights survive exactly, as file weights. */
    assert_int_equal(polka_graph_set_weights(g, POLKA_WEIGHTS_METROPOLIS), POLKA_OK);
    back = round_trip(g, text, sizeof text);
    assert_true(same_graph(g, back));
    polka_graph_free(&back);
    polka_graph_free(&g);
    /* Isolated nodes survive through the '# nodes:' header. */
    g = parse_ok("# nodes: 6\n0 1 0.1\n1 2 {'weight': 0.3}\n");
    assert_int_equal(polka_graph_set_comment(g, "line one\nline two"), POLKA_OK);
    back = round_trip(g, text, sizeof text);
    assert_true(same_graph(g, back));
    assert_int_equal(polka_graph_nodes(back), 6);
    assert_non_null(strstr(text, "# line one\n# line two\n"));
    assert_non_null(strstr(text, "0 1 0.1\n1 2 0.3\n"));
    polka_graph_free(&back);
    polka_graph_free(&g);
}

static void test_names(void **state) {
    (void)state;
    for (int k = 0; k < POLKA_GRAPH_KIND_COUNT; k++) {
        polka_graph_kind kind;
        assert_int_equal(polka_graph_kind_parse(polka_graph_kind_name((polka_graph_kind)k), &kind),
                         POLKA_OK);
        assert_int_equal(kind, k);
    }
    polka_graph_kind kind;
    assert_int_equal(polka_graph_kind_parse("hypercube", &kind), POLKA_ERR_ARG);
    assert_non_null(strstr(polka_error_message(), "hypercube"));
    for (int k = POLKA_WEIGHTS_UNIFORM; k <= POLKA_WEIGHTS_FILE; k++) {
        polka_weight_kind w;
        assert_int_equal(polka_weight_kind_parse(polka_weight_kind_name((polka_weight_kind)k), &w),
                         POLKA_OK);
        assert_int_equal(w, k);
    }
    polka_weight_kind w;
    assert_int_equal(polka_weight_kind_parse("maxdegree", &w), POLKA_ERR_ARG);
    assert_true(polka_graph_kind_is_random(POLKA_GRAPH_ER));
    assert_false(polka_graph_kind_is_random(POLKA_GRAPH_TORUS));
}

/* Every generator of the table draws a connected graph of 16 nodes, and the file comment
 * names exactly the parameters it reads (and the seed of a random one). */
static void test_generator_table(void **state) {
    (void)state;
    static const struct {
        unsigned uses;
        const char *text;
    } params[] = {{POLKA_GRAPH_USES_P, " p="},
                  {POLKA_GRAPH_USES_RADIUS, " radius="},
                  {POLKA_GRAPH_USES_K, " k="},
                  {POLKA_GRAPH_USES_REWIRE, " rewire="},
                  {POLKA_GRAPH_USES_SHAPE, " rows="}};
    for (int k = 0; k < POLKA_GRAPH_KIND_COUNT; k++) {
        polka_graph_kind kind = (polka_graph_kind)k;
        assert_true(strlen(polka_graph_kind_help(kind)) > 5);
        polka_graph_spec spec = polka_graph_spec_defaults(kind, 16);
        spec.p = 0.4;
        spec.radius = 0.6;
        polka_graph *g = NULL;
        uint64_t seed = 0;
        assert_int_equal(polka_graph_generate_connected(&spec, 100, &g, &seed), POLKA_OK);
        assert_int_equal(polka_graph_nodes(g), 16);
        const char *comment = polka_graph_comment(g);
        for (size_t q = 0; q < sizeof params / sizeof *params; q++)
            assert_int_equal(strstr(comment, params[q].text) != NULL,
                             (polka_graph_kind_uses(kind) & params[q].uses) != 0);
        assert_int_equal(strstr(comment, " seed=") != NULL, polka_graph_kind_is_random(kind));
        polka_graph_free(&g);
    }
    polka_graph_spec spec = polka_graph_spec_defaults(POLKA_GRAPH_SMALLWORLD, 16);
    spec.seed = 3;
    polka_graph *g = NULL;
    assert_int_equal(polka_graph_generate(&spec, &g), POLKA_OK);
    assert_non_null(strstr(polka_graph_comment(g), ": kind=smallworld n=16 k=2 rewire=0.1 seed=3"));
    polka_graph_free(&g);
    spec = polka_graph_spec_defaults(POLKA_GRAPH_KIND_COUNT, 16);
    assert_int_equal(polka_graph_spec_check(&spec), POLKA_ERR_ARG);
    assert_string_equal(polka_graph_kind_name(POLKA_GRAPH_KIND_COUNT), "?");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_plain),
        cmocka_unit_test(test_generator_table),
        cmocka_unit_test(test_parse_weighted),
        cmocka_unit_test(test_parse_networkx),
        cmocka_unit_test(test_parse_comments),
        cmocka_unit_test(test_parse_nodes_header),
        cmocka_unit_test(test_parse_errors),
        cmocka_unit_test(test_read_file),
        cmocka_unit_test(test_generate_regular),
        cmocka_unit_test(test_generate_lattices),
        cmocka_unit_test(test_generate_random),
        cmocka_unit_test(test_generate_bad_specs),
        cmocka_unit_test(test_generate_connected),
        cmocka_unit_test(test_generate_joined),
        cmocka_unit_test(test_from_edges),
        cmocka_unit_test(test_metropolis),
        cmocka_unit_test(test_algebraic_connectivity),
        cmocka_unit_test(test_diameter),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
