/*
 * Generating graphs with igraph: the table of generators (one line each of POLKA_GRAPH_LIST;
 * the entries are in generate_*.c), the checks and the file comment every generator shares.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/generator_impl.h"
#include "polka/format.h"
#include "graph/graph_impl.h"

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
                             .cols = 0,
                             .join = 0};
    return spec;
}

static const polka_graph_generator *const generators[POLKA_GRAPH_KIND_COUNT] = {
#define POLKA_GRAPH_ENTRY(id, entry) [POLKA_GRAPH_##id] = &polka_generator_##entry,
    POLKA_GRAPH_LIST(POLKA_GRAPH_ENTRY)
#undef POLKA_GRAPH_ENTRY
};

/* The entry of a kind; NULL when the kind is out of range. */
static const polka_graph_generator *generator_of(polka_graph_kind kind) {
    return (unsigned)kind < POLKA_GRAPH_KIND_COUNT ? generators[kind] : NULL;
}

polka_status polka_graph_kind_parse(const char *name, polka_graph_kind *kind) {
    const char *names[POLKA_GRAPH_KIND_COUNT];
    for (int k = 0; k < POLKA_GRAPH_KIND_COUNT; k++) names[k] = generators[k]->name;
    int index;
    POLKA_CALL(polka_name_find(name, names, POLKA_GRAPH_KIND_COUNT, "graph kind", &index));
    *kind = (polka_graph_kind)index;
    return POLKA_OK;
}

const char *polka_graph_kind_name(polka_graph_kind kind) {
    return (unsigned)kind < POLKA_GRAPH_KIND_COUNT ? generators[kind]->name : "?";
}

const char *polka_graph_kind_help(polka_graph_kind kind) {
    return (unsigned)kind < POLKA_GRAPH_KIND_COUNT ? generators[kind]->help : "?";
}

unsigned polka_graph_kind_uses(polka_graph_kind kind) {
    return (unsigned)kind < POLKA_GRAPH_KIND_COUNT ? generators[kind]->uses : 0;
}

int polka_graph_kind_is_random(polka_graph_kind kind) {
    return (unsigned)kind < POLKA_GRAPH_KIND_COUNT && generators[kind]->random;
}

polka_status polka_graph_spec_check(const polka_graph_spec *spec) {
    POLKA_CHECK(spec, POLKA_ERR_ARG, "graph: spec is NULL");
    const polka_graph_generator *generator = generator_of(spec->kind);
    POLKA_CHECK(generator, POLKA_ERR_ARG, "graph: unknown kind %d", (int)spec->kind);
    const char *kind = generator->name;
    POLKA_CHECK(spec->n >= 2 && spec->n <= POLKA_GRAPH_MAX_NODES, POLKA_ERR_ARG,
                "%s: number of nodes n = %zu is not in [2, %zu]", kind, spec->n,
                POLKA_GRAPH_MAX_NODES);
    if (generator->check) POLKA_CALL(generator->check(spec));
    POLKA_CHECK(!spec->join || generator->random, POLKA_ERR_ARG,
                "%s: joining the components applies to the random kinds only (er, rgg, "
                "smallworld, ba); a %s graph is what it is",
                kind, kind);
    double edges = generator->edges ? generator->edges(spec) : 2 * (double)spec->n;
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

polka_status polka_ig_check(igraph_error_t err, const char *what) {
    if (err == IGRAPH_SUCCESS) return POLKA_OK;
    return polka_error_set(err == IGRAPH_ENOMEM ? POLKA_ERR_MEM : POLKA_ERR_ARG,
                           "igraph: %s failed: %s", what, igraph_strerror(err));
}

/* The generator's graph, drawn with igraph's RNG seeded right before when it is random. */
static polka_status make_igraph(const polka_graph_spec *spec, igraph_t *ig) {
    const polka_graph_generator *generator = generators[spec->kind];
    if (generator->random)
        POLKA_CALL(polka_ig_check(igraph_rng_seed(igraph_rng_default(), (igraph_uint_t)spec->seed),
                                  "rng_seed"));
    return generator->make(spec, ig);
}

/* The edges of the simplified igraph graph as uv[0..m) – uv[m..2m) (allocated here); the
 * igraph graph is destroyed, so that it and its edge list are gone before the polka graph is
 * built (at 10^6 nodes they were 0.4 GB of a 1.4 GB peak). */
static polka_status edges_of_igraph(igraph_t *ig, size_t n, size_t **uv, size_t *m) {
    *uv = NULL;
    *m = 0;
    igraph_vector_int_t list;
    polka_status status = polka_ig_check(igraph_vector_int_init(&list, 0), "vector_int_init");
    if (status != POLKA_OK) {
        igraph_destroy(ig);
        return status;
    }
    status = polka_ig_check(igraph_simplify(ig, 1, 1, NULL), "simplify");
    if (status == POLKA_OK && (size_t)igraph_vcount(ig) != n)
        status = polka_error_set(POLKA_ERR_ARG, "igraph: generated %lld nodes instead of %zu",
                                 (long long)igraph_vcount(ig), n);
    if (status == POLKA_OK)
        status = polka_ig_check(igraph_get_edgelist(ig, &list, 0), "get_edgelist");
    igraph_destroy(ig);
    size_t edges = status == POLKA_OK ? (size_t)igraph_vector_int_size(&list) / 2 : 0;
    if (status == POLKA_OK && (*uv = malloc((2 * edges + 1) * sizeof **uv)) == NULL)
        status = polka_error_set(POLKA_ERR_MEM, "out of memory at %s:%d", __FILE__, __LINE__);
    for (size_t e = 0; status == POLKA_OK && e < edges; e++) {
        (*uv)[e] = (size_t)VECTOR(list)[2 * e];
        (*uv)[edges + e] = (size_t)VECTOR(list)[2 * e + 1];
    }
    igraph_vector_int_destroy(&list);
    *m = edges;
    return status;
}

/* A new polka graph from an igraph graph, which it destroys. */
static polka_status from_igraph(igraph_t *ig, size_t n, polka_graph **out) {
    size_t *uv = NULL, m = 0;
    polka_status status = edges_of_igraph(ig, n, &uv, &m);
    if (status == POLKA_OK) status = polka_graph_build_csr(n, uv, uv + m, NULL, m, out, NULL, NULL);
    free(uv);
    return status;
}

/* Appends text to buf (size bytes, `*used` of them taken), truncating at the end. */
static void append(char *buf, size_t size, size_t *used, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void append(char *buf, size_t size, size_t *used, const char *fmt, ...) {
    if (*used >= size) return;
    va_list args;
    va_start(args, fmt);
    int wrote = vsnprintf(buf + *used, size - *used, fmt, args);
    va_end(args);
    if (wrote > 0) *used += (size_t)wrote;
}

/* " name=x" with the fewest digits that read back exactly. */
static void append_double(char *buf, size_t size, size_t *used, const char *name, double x) {
    char num[40];
    polka_format_double(num, sizeof num, x);
    append(buf, size, used, " %s=%s", name, num);
}

/* "kind=er n=16 p=0.2 seed=3": the parameters that the kind reads. */
static void describe_spec(const polka_graph_spec *spec, char *buf, size_t size) {
    const polka_graph_generator *generator = generators[spec->kind];
    size_t used = 0;
    append(buf, size, &used, "kind=%s n=%zu", generator->name, spec->n);
    if (generator->uses & POLKA_GRAPH_USES_SHAPE) {
        size_t rows = 0, cols = 0;
        if (polka_graph_grid_dims(spec, &rows, &cols) != POLKA_OK) rows = cols = 0;
        append(buf, size, &used, " rows=%zu cols=%zu", rows, cols);
    }
    if (generator->uses & POLKA_GRAPH_USES_P) append_double(buf, size, &used, "p", spec->p);
    if (generator->uses & POLKA_GRAPH_USES_RADIUS)
        append_double(buf, size, &used, "radius", spec->radius);
    if (generator->uses & POLKA_GRAPH_USES_K) append(buf, size, &used, " k=%zu", spec->k);
    if (generator->uses & POLKA_GRAPH_USES_REWIRE)
        append_double(buf, size, &used, "rewire", spec->rewire);
    if (generator->random) append(buf, size, &used, " seed=%llu", (unsigned long long)spec->seed);
    if (generator->random && spec->join) append(buf, size, &used, " join=1");
}

static polka_status set_generated_comment(polka_graph *g, const polka_graph_spec *spec,
                                          size_t joined) {
    char params[256], text[600];
    describe_spec(spec, params, sizeof params);
    int at = snprintf(text, sizeof text, "polka %s, igraph %s: %s", POLKA_VERSION, IGRAPH_VERSION,
                      params);
    if (spec->join && at > 0 && (size_t)at < sizeof text)
        snprintf(text + at, sizeof text - (size_t)at,
                 "\njoined: %zu edge%s added, one from each component but the largest", joined,
                 joined == 1 ? "" : "s");
    return polka_graph_set_comment(g, text);
}

polka_status polka_graph_generate(const polka_graph_spec *spec, polka_graph **out) {
    POLKA_CHECK(out, POLKA_ERR_ARG, "graph: generate given NULL");
    POLKA_CALL(polka_graph_spec_check(spec));
    ig_handlers old = ig_quiet();
    igraph_t ig;
    polka_graph *g = NULL;
    polka_status status = make_igraph(spec, &ig);
    if (status == POLKA_OK) status = from_igraph(&ig, spec->n, &g); /* destroys ig */
    ig_restore(old);
    size_t joined = 0;
    if (status == POLKA_OK && spec->join)
        status = polka_graph_join_components(&g, spec->seed, &joined);
    if (status == POLKA_OK) status = set_generated_comment(g, spec, joined);
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
    /* joined, the first seed's graph is connected */
    size_t tries = polka_graph_kind_is_random(spec->kind) && !spec->join ? max_tries : 1;
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
