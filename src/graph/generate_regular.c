/* The deterministic graph generators: ring, line, star, complete, grid, torus (igraph). */
#include "graph/generator_impl.h"

static polka_status check_ring(const polka_graph_spec *spec) {
    POLKA_CHECK(spec->n >= 3, POLKA_ERR_ARG, "ring: needs n >= 3 (got %zu; use line for 2 nodes)",
                spec->n);
    return POLKA_OK;
}

static polka_status make_ring(const polka_graph_spec *spec, igraph_t *ig) {
    return polka_ig_check(igraph_ring(ig, (igraph_integer_t)spec->n, 0, 0, 1), "ring");
}

static polka_status make_line(const polka_graph_spec *spec, igraph_t *ig) {
    return polka_ig_check(igraph_ring(ig, (igraph_integer_t)spec->n, 0, 0, 0), "ring");
}

static polka_status make_star(const polka_graph_spec *spec, igraph_t *ig) {
    return polka_ig_check(igraph_star(ig, (igraph_integer_t)spec->n, IGRAPH_STAR_UNDIRECTED, 0),
                          "star");
}

static double complete_edges(const polka_graph_spec *spec) {
    double n = (double)spec->n;
    return n * (n - 1) / 2;
}

static polka_status make_complete(const polka_graph_spec *spec, igraph_t *ig) {
    return polka_ig_check(igraph_full(ig, (igraph_integer_t)spec->n, 0, 0), "full");
}

polka_status polka_graph_grid_dims(const polka_graph_spec *spec, size_t *rows, size_t *cols) {
    size_t n = spec->n, r = spec->rows, c = spec->cols;
    if (r == 0 && c == 0) {
        for (size_t d = 1; d * d <= n; d++)
            if (n % d == 0) r = d;
    }
    if (r != 0 && c == 0 && n % r == 0) c = n / r;
    if (c != 0 && r == 0 && n % c == 0) r = n / c;
    POLKA_CHECK(r != 0 && c != 0 && r <= n && c <= n && r * c == n, POLKA_ERR_ARG,
                "%s: rows x cols (%zu x %zu) must equal n = %zu", polka_graph_kind_name(spec->kind),
                spec->rows, spec->cols, n);
    *rows = r;
    *cols = c;
    return POLKA_OK;
}

static polka_status check_grid(const polka_graph_spec *spec) {
    size_t rows = 0, cols = 0;
    return polka_graph_grid_dims(spec, &rows, &cols);
}

static polka_status check_torus(const polka_graph_spec *spec) {
    size_t rows = 0, cols = 0;
    POLKA_CALL(polka_graph_grid_dims(spec, &rows, &cols));
    POLKA_CHECK(rows >= 3 && cols >= 3, POLKA_ERR_ARG,
                "torus: needs rows, cols >= 3 (got %zu x %zu; give --rows and --cols)", rows, cols);
    return POLKA_OK;
}

/* rows × cols lattice, node r·cols + c, with wrap-around when circular (a torus). */
static polka_status make_lattice(const polka_graph_spec *spec, igraph_t *ig, int circular_dims) {
    size_t rows = 0, cols = 0;
    POLKA_CALL(polka_graph_grid_dims(spec, &rows, &cols));
    igraph_vector_int_t dims;
    igraph_vector_bool_t circular;
    POLKA_CALL(polka_ig_check(igraph_vector_int_init(&dims, 2), "vector_int_init"));
    polka_status status = polka_ig_check(igraph_vector_bool_init(&circular, 2), "vector_bool_init");
    if (status == POLKA_OK) {
        /* The first dimension varies fastest: node = r * cols + c. */
        VECTOR(dims)[0] = (igraph_integer_t)cols;
        VECTOR(dims)[1] = (igraph_integer_t)rows;
        igraph_vector_bool_fill(&circular, circular_dims);
        status =
            polka_ig_check(igraph_square_lattice(ig, &dims, 1, 0, 0, &circular), "square_lattice");
        igraph_vector_bool_destroy(&circular);
    }
    igraph_vector_int_destroy(&dims);
    return status;
}

static polka_status make_grid(const polka_graph_spec *spec, igraph_t *ig) {
    return make_lattice(spec, ig, 0);
}

static polka_status make_torus(const polka_graph_spec *spec, igraph_t *ig) {
    return make_lattice(spec, ig, 1);
}

const polka_graph_generator polka_generator_ring = {
    .name = "ring", .help = "cycle C_n (n >= 3)", .check = check_ring, .make = make_ring};

const polka_graph_generator polka_generator_line = {
    .name = "line", .help = "path P_n", .make = make_line};

const polka_graph_generator polka_generator_star = {
    .name = "star", .help = "star with centre 0", .make = make_star};

const polka_graph_generator polka_generator_complete = {.name = "complete",
                                                        .help = "complete graph K_n",
                                                        .edges = complete_edges,
                                                        .make = make_complete};

const polka_graph_generator polka_generator_grid = {
    .name = "grid",
    .help = "rows x cols grid, node r*cols + c (a run's is as square as possible)",
    .uses = POLKA_GRAPH_USES_SHAPE,
    .check = check_grid,
    .make = make_grid,
};

const polka_graph_generator polka_generator_torus = {
    .name = "torus",
    .help = "rows x cols grid with wrap-around (rows, cols >= 3)",
    .uses = POLKA_GRAPH_USES_SHAPE,
    .check = check_torus,
    .make = make_torus,
};
