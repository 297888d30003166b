/* Generating graphs with igraph. */
#include "net/graph_impl.h"

#include <igraph.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef POLKA_VERSION
#define POLKA_VERSION "unknown"
#endif

/* The most edges a generated graph may be expected to have. */
#define GRAPH_MAX_EDGES 100000000.0

polka_graph_spec polka_graph_spec_defaults(polka_graph_kind kind, size_t n) {
    polka_graph_spec spec = {.kind = kind,
                             .n = n,
                             .seed = 1,
                             .p = 0.2,
                             .radius = 0.5,
                             .k = 2,
                             .rewire = 0.1,
                             .rows = 0,
                             .cols = 0};
    return spec;
}

/* rows × cols for a grid or torus: given, derived from one of them, or as square as possible. */
static polka_status grid_dims(const polka_graph_spec *spec, size_t *rows, size_t *cols) {
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

static polka_status check_random_params(const polka_graph_spec *spec) {
    size_t n = spec->n;
    switch (spec->kind) {
    case POLKA_GRAPH_ER:
        POLKA_CHECK(spec->p > 0 && spec->p <= 1, POLKA_ERR_ARG,
                    "er: edge probability p = %g is not in (0, 1]", spec->p);
        break;
    case POLKA_GRAPH_RGG:
        POLKA_CHECK(isfinite(spec->radius) && spec->radius > 0, POLKA_ERR_ARG,
                    "rgg: radius = %g must be positive and finite", spec->radius);
        break;
    case POLKA_GRAPH_SMALLWORLD:
        POLKA_CHECK(spec->k >= 1 && spec->k < n && 2 * spec->k < n, POLKA_ERR_ARG,
                    "smallworld: k = %zu neighbours on each side needs 1 <= k and 2k < n = %zu",
                    spec->k, n);
        POLKA_CHECK(spec->rewire >= 0 && spec->rewire <= 1, POLKA_ERR_ARG,
                    "smallworld: rewiring probability %g is not in [0, 1]", spec->rewire);
        break;
    case POLKA_GRAPH_BA:
        POLKA_CHECK(spec->k >= 1 && spec->k < n, POLKA_ERR_ARG,
                    "ba: k = %zu edges per new node needs 1 <= k < n = %zu", spec->k, n);
        break;
    default:
        break;
    }
    return POLKA_OK;
}

/* An upper estimate of the number of edges, to refuse absurd sizes before allocating. */
static double expected_edges(const polka_graph_spec *spec) {
    double n = (double)spec->n;
    switch (spec->kind) {
    case POLKA_GRAPH_COMPLETE:
        return n * (n - 1) / 2;
    case POLKA_GRAPH_ER:
        return n * (n - 1) / 2 * spec->p;
    case POLKA_GRAPH_RGG:
        return n * (n - 1) / 2 * fmin(1.0, 3.14159265358979323846 * spec->radius * spec->radius);
    case POLKA_GRAPH_SMALLWORLD:
    case POLKA_GRAPH_BA:
        return n * (double)spec->k;
    default:
        return 2 * n;
    }
}

polka_status polka_graph_spec_check(const polka_graph_spec *spec) {
    POLKA_CHECK(spec, POLKA_ERR_ARG, "graph: spec is NULL");
    POLKA_CHECK((size_t)spec->kind <= POLKA_GRAPH_BA, POLKA_ERR_ARG, "graph: unknown kind %d",
                (int)spec->kind);
    const char *kind = polka_graph_kind_name(spec->kind);
    POLKA_CHECK(spec->n >= 2 && spec->n <= POLKA_GRAPH_MAX_NODES, POLKA_ERR_ARG,
                "%s: number of nodes n = %zu is not in [2, %zu]", kind, spec->n,
                POLKA_GRAPH_MAX_NODES);
    POLKA_CHECK(spec->kind != POLKA_GRAPH_RING || spec->n >= 3, POLKA_ERR_ARG,
                "ring: needs n >= 3 (got %zu; use line for 2 nodes)", spec->n);
    if (spec->kind == POLKA_GRAPH_GRID || spec->kind == POLKA_GRAPH_TORUS) {
        size_t rows = 0, cols = 0;
        POLKA_CALL(grid_dims(spec, &rows, &cols));
        POLKA_CHECK(spec->kind != POLKA_GRAPH_TORUS || (rows >= 3 && cols >= 3), POLKA_ERR_ARG,
                    "torus: needs rows, cols >= 3 (got %zu x %zu; give --rows and --cols)", rows,
                    cols);
    }
    POLKA_CALL(check_random_params(spec));
    double edges = expected_edges(spec);
    POLKA_CHECK(edges <= GRAPH_MAX_EDGES, POLKA_ERR_ARG,
                "%s: n = %zu would give about %.3g edges (limit %.3g)", kind, spec->n, edges,
                GRAPH_MAX_EDGES);
    return POLKA_OK;
}

/* igraph aborts and prints on errors by default; the library must do neither. */
typedef struct {
    igraph_error_handler_t *error;
    igraph_warning_handler_t *warning;
} ig_handlers;

static ig_handlers ig_quiet(void) {
    ig_handlers old;
    old.error = igraph_set_error_handler(igraph_error_handler_ignore);
    old.warning = igraph_set_warning_handler(igraph_warning_handler_ignore);
    return old;
}

static void ig_restore(ig_handlers old) {
    igraph_set_error_handler(old.error);
    igraph_set_warning_handler(old.warning);
}

static polka_status ig_check(igraph_error_t err, const char *what) {
    if (err == IGRAPH_SUCCESS) return POLKA_OK;
    return polka_error_set(err == IGRAPH_ENOMEM ? POLKA_ERR_MEM : POLKA_ERR_ARG,
                           "igraph: %s failed: %s", what, igraph_strerror(err));
}

static polka_status make_lattice(const polka_graph_spec *spec, igraph_t *ig) {
    size_t rows = 0, cols = 0;
    POLKA_CALL(grid_dims(spec, &rows, &cols));
    igraph_vector_int_t dims;
    igraph_vector_bool_t circular;
    POLKA_CALL(ig_check(igraph_vector_int_init(&dims, 2), "vector_int_init"));
    polka_status status = ig_check(igraph_vector_bool_init(&circular, 2), "vector_bool_init");
    if (status == POLKA_OK) {
        /* The first dimension varies fastest: node = r * cols + c. */
        VECTOR(dims)[0] = (igraph_integer_t)cols;
        VECTOR(dims)[1] = (igraph_integer_t)rows;
        igraph_vector_bool_fill(&circular, spec->kind == POLKA_GRAPH_TORUS);
        status = ig_check(igraph_square_lattice(ig, &dims, 1, 0, 0, &circular), "square_lattice");
        igraph_vector_bool_destroy(&circular);
    }
    igraph_vector_int_destroy(&dims);
    return status;
}

static polka_status make_random(const polka_graph_spec *spec, igraph_t *ig) {
    igraph_integer_t n = (igraph_integer_t)spec->n, k = (igraph_integer_t)spec->k;
    POLKA_CALL(
        ig_check(igraph_rng_seed(igraph_rng_default(), (igraph_uint_t)spec->seed), "rng_seed"));
    switch (spec->kind) {
    case POLKA_GRAPH_ER:
        return ig_check(igraph_erdos_renyi_game_gnp(ig, n, spec->p, 0, 0), "erdos_renyi_game");
    case POLKA_GRAPH_RGG:
        return ig_check(igraph_grg_game(ig, n, spec->radius, 0, NULL, NULL), "grg_game");
    case POLKA_GRAPH_SMALLWORLD:
        return ig_check(igraph_watts_strogatz_game(ig, 1, n, k, spec->rewire, 0, 0),
                        "watts_strogatz_game");
    case POLKA_GRAPH_BA:
        return ig_check(
            igraph_barabasi_game(ig, n, 1.0, k, NULL, 0, 1.0, 0, IGRAPH_BARABASI_PSUMTREE, NULL),
            "barabasi_game");
    default:
        return polka_error_set(POLKA_ERR_ARG, "graph: kind %d is not random", (int)spec->kind);
    }
}

static polka_status make_igraph(const polka_graph_spec *spec, igraph_t *ig) {
    igraph_integer_t n = (igraph_integer_t)spec->n;
    switch (spec->kind) {
    case POLKA_GRAPH_RING:
        return ig_check(igraph_ring(ig, n, 0, 0, 1), "ring");
    case POLKA_GRAPH_LINE:
        return ig_check(igraph_ring(ig, n, 0, 0, 0), "ring");
    case POLKA_GRAPH_STAR:
        return ig_check(igraph_star(ig, n, IGRAPH_STAR_UNDIRECTED, 0), "star");
    case POLKA_GRAPH_COMPLETE:
        return ig_check(igraph_full(ig, n, 0, 0), "full");
    case POLKA_GRAPH_GRID:
    case POLKA_GRAPH_TORUS:
        return make_lattice(spec, ig);
    default:
        return make_random(spec, ig);
    }
}

/* Copies a (simplified) igraph graph into a new polka graph. */
static polka_status from_igraph(igraph_t *ig, size_t n, polka_graph **out) {
    POLKA_CALL(ig_check(igraph_simplify(ig, 1, 1, NULL), "simplify"));
    POLKA_CHECK((size_t)igraph_vcount(ig) == n, POLKA_ERR_ARG,
                "igraph: generated %lld nodes instead of %zu", (long long)igraph_vcount(ig), n);
    igraph_vector_int_t list;
    POLKA_CALL(ig_check(igraph_vector_int_init(&list, 0), "vector_int_init"));
    polka_status status = ig_check(igraph_get_edgelist(ig, &list, 0), "get_edgelist");
    size_t m = (size_t)igraph_vector_int_size(&list) / 2;
    size_t *uv = status == POLKA_OK ? malloc((2 * m + 1) * sizeof *uv) : NULL;
    if (status == POLKA_OK && !uv)
        status = polka_error_set(POLKA_ERR_MEM, "out of memory at %s:%d", __FILE__, __LINE__);
    if (status == POLKA_OK) {
        for (size_t e = 0; e < m; e++) {
            uv[e] = (size_t)VECTOR(list)[2 * e];
            uv[m + e] = (size_t)VECTOR(list)[2 * e + 1];
        }
        status = polka_graph_build_csr(n, uv, uv + m, NULL, m, out, NULL, NULL);
    }
    free(uv);
    igraph_vector_int_destroy(&list);
    return status;
}

/* "kind=er n=16 p=0.2 seed=3": the parameters that matter for the kind. */
static void describe_spec(const polka_graph_spec *spec, char *buf, size_t size) {
    char num[40];
    size_t rows = 0, cols = 0;
    switch (spec->kind) {
    case POLKA_GRAPH_GRID:
    case POLKA_GRAPH_TORUS:
        if (grid_dims(spec, &rows, &cols) != POLKA_OK) rows = cols = 0;
        snprintf(buf, size, "kind=%s n=%zu rows=%zu cols=%zu", polka_graph_kind_name(spec->kind),
                 spec->n, rows, cols);
        return;
    case POLKA_GRAPH_ER:
        polka_graph_format_double(num, sizeof num, spec->p);
        snprintf(buf, size, "kind=er n=%zu p=%s seed=%llu", spec->n, num,
                 (unsigned long long)spec->seed);
        return;
    case POLKA_GRAPH_RGG:
        polka_graph_format_double(num, sizeof num, spec->radius);
        snprintf(buf, size, "kind=rgg n=%zu radius=%s seed=%llu", spec->n, num,
                 (unsigned long long)spec->seed);
        return;
    case POLKA_GRAPH_SMALLWORLD:
        polka_graph_format_double(num, sizeof num, spec->rewire);
        snprintf(buf, size, "kind=smallworld n=%zu k=%zu rewire=%s seed=%llu", spec->n, spec->k,
                 num, (unsigned long long)spec->seed);
        return;
    case POLKA_GRAPH_BA:
        snprintf(buf, size, "kind=ba n=%zu k=%zu seed=%llu", spec->n, spec->k,
                 (unsigned long long)spec->seed);
        return;
    default:
        snprintf(buf, size, "kind=%s n=%zu", polka_graph_kind_name(spec->kind), spec->n);
        return;
    }
}

static polka_status set_generated_comment(polka_graph *g, const polka_graph_spec *spec) {
    char params[256], text[512];
    describe_spec(spec, params, sizeof params);
    snprintf(text, sizeof text, "polka %s, igraph %s: %s", POLKA_VERSION, IGRAPH_VERSION, params);
    return polka_graph_set_comment(g, text);
}

polka_status polka_graph_generate(const polka_graph_spec *spec, polka_graph **out) {
    POLKA_CHECK(out, POLKA_ERR_ARG, "graph: generate given NULL");
    POLKA_CALL(polka_graph_spec_check(spec));
    ig_handlers old = ig_quiet();
    igraph_t ig;
    polka_graph *g = NULL;
    polka_status status = make_igraph(spec, &ig);
    if (status == POLKA_OK) {
        status = from_igraph(&ig, spec->n, &g);
        igraph_destroy(&ig);
    }
    ig_restore(old);
    if (status == POLKA_OK) status = set_generated_comment(g, spec);
    if (status != POLKA_OK) {
        polka_graph_free(&g);
        return status;
    }
    *out = g;
    return POLKA_OK;
}

polka_status polka_graph_generate_connected(const polka_graph_spec *spec, size_t max_tries,
                                            polka_graph **out, uint64_t *seed_used) {
    POLKA_CHECK(spec && out && max_tries >= 1, POLKA_ERR_ARG,
                "graph: generate_connected given NULL or max_tries = 0");
    polka_graph_spec try_spec = *spec;
    size_t tries = polka_graph_kind_is_random(spec->kind) ? max_tries : 1;
    for (size_t t = 0; t < tries; t++) {
        try_spec.seed = spec->seed + t;
        polka_graph *g = NULL;
        POLKA_CALL(polka_graph_generate(&try_spec, &g));
        size_t components = 0;
        polka_status status = polka_graph_count_components(g, &components, NULL);
        if (status != POLKA_OK) {
            polka_graph_free(&g);
            return status;
        }
        if (components == 1) {
            if (seed_used) *seed_used = try_spec.seed;
            *out = g;
            return POLKA_OK;
        }
        polka_graph_free(&g);
    }
    return polka_error_set(POLKA_ERR_ARG,
                           "%s: no connected graph with n = %zu for seeds %llu..%llu (%zu tries); "
                           "raise p, radius or k",
                           polka_graph_kind_name(spec->kind), spec->n,
                           (unsigned long long)spec->seed,
                           (unsigned long long)(spec->seed + tries - 1), tries);
}
