/* Reading and writing graph files (the format is described in polka/graph.h). */
#include "graph/graph_impl.h"
#include "polka/format.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The edges read so far, each with the line it came from. */
typedef struct {
    const char *name;
    size_t line;        /* current line, from 1 */
    size_t *u, *v, *at; /* at[e]: the line of edge e */
    double *w;
    size_t m, capacity;
    size_t max_id;
    size_t header_nodes; /* 0 when there is no '# nodes:' header */
    size_t header_line;
} edge_reader;

static void reader_free(edge_reader *r) {
    free(r->u);
    free(r->v);
    free(r->at);
    free(r->w);
}

static polka_status reader_push(edge_reader *r, size_t u, size_t v, double w) {
    if (r->m == r->capacity) {
        size_t cap = r->capacity ? 2 * r->capacity : 64;
        size_t *nu = realloc(r->u, cap * sizeof *nu);
        if (nu) r->u = nu;
        size_t *nv = realloc(r->v, cap * sizeof *nv);
        if (nv) r->v = nv;
        size_t *nat = realloc(r->at, cap * sizeof *nat);
        if (nat) r->at = nat;
        double *nw = realloc(r->w, cap * sizeof *nw);
        if (nw) r->w = nw;
        POLKA_CHECK_ALLOC(nu && nv && nat && nw ? nu : NULL);
        r->capacity = cap;
    }
    r->u[r->m] = u;
    r->v[r->m] = v;
    r->w[r->m] = w;
    r->at[r->m] = r->line;
    r->m++;
    if (u > r->max_id) r->max_id = u;
    if (v > r->max_id) r->max_id = v;
    return POLKA_OK;
}

/* Returns a format error at the current line: "NAME:LINE: detail". */
static polka_status reader_fail(const edge_reader *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static polka_status reader_fail(const edge_reader *r, const char *fmt, ...) {
    char detail[512];
    va_list args;
    va_start(args, fmt);
    vsnprintf(detail, sizeof detail, fmt, args);
    va_end(args);
    return polka_error_set(POLKA_ERR_FORMAT, "%s:%zu: %s", r->name, r->line, detail);
}

static int is_blank(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static const char *skip_blank(const char *p) {
    while (is_blank(*p)) p++;
    return p;
}

/* The length of the token at p: up to a blank, '#', or the end of the line. */
static size_t token_length(const char *p) {
    size_t len = 0;
    while (p[len] && !is_blank(p[len]) && p[len] != '#') len++;
    return len;
}

/* Parses a node id token of len characters at p (a decimal integer < the node limit). */
static polka_status parse_id(edge_reader *r, const char *p, size_t len, size_t *id) {
    int digits = len > 0;
    for (size_t k = 0; k < len; k++) digits = digits && p[k] >= '0' && p[k] <= '9';
    if (!digits && len > 1 && p[0] == '-') {
        int rest = 1;
        for (size_t k = 1; k < len; k++) rest = rest && p[k] >= '0' && p[k] <= '9';
        if (rest) return reader_fail(r, "negative node id '%.*s'", (int)len, p);
    }
    if (!digits) return reader_fail(r, "malformed node id '%.*s'", (int)len, p);
    size_t value = 0;
    for (size_t k = 0; k < len; k++) {
        value = value * 10 + (size_t)(p[k] - '0');
        if (value >= POLKA_GRAPH_MAX_NODES)
            return reader_fail(r, "node id '%.*s' too large (limit %zu nodes)", (int)len, p,
                               POLKA_GRAPH_MAX_NODES);
    }
    *id = value;
    return POLKA_OK;
}

/* Parses a weight: the whole of [p, p+len) must be a positive finite number. */
static polka_status parse_weight(edge_reader *r, const char *p, size_t len, double *w) {
    char buf[64];
    if (len == 0 || len >= sizeof buf)
        return reader_fail(r, "malformed weight '%.*s'", (int)len, p);
    memcpy(buf, p, len);
    buf[len] = '\0';
    char *end = NULL;
    errno = 0;
    double value = strtod(buf, &end);
    if (end != buf + len) return reader_fail(r, "malformed weight '%s'", buf);
    if (!isfinite(value) || !(value > 0))
        return reader_fail(r, "weight '%s' is not positive and finite", buf);
    *w = value;
    return POLKA_OK;
}

/* Skips a Python string literal at *pp (which starts with a quote). */
static polka_status skip_py_string(edge_reader *r, const char **pp) {
    const char *p = *pp;
    char quote = *p++;
    while (*p && *p != quote) p += (*p == '\\' && p[1]) ? 2 : 1;
    if (!*p) return reader_fail(r, "unterminated string in edge data");
    *pp = p + 1;
    return POLKA_OK;
}

/* Skips a Python value up to the blank, ',' or '}' that ends it (nesting and strings
 * respected: blanks may appear inside brackets only). */
static polka_status skip_py_value(edge_reader *r, const char **pp) {
    const char *p = *pp;
    size_t depth = 0;
    for (;;) {
        char c = *p;
        if (!c) return reader_fail(r, "unterminated edge data '{...}'");
        if (c == '\'' || c == '"') {
            POLKA_CALL(skip_py_string(r, &p));
            continue;
        }
        if (depth == 0 && (c == ',' || c == '}' || is_blank(c))) break;
        if (c == '[' || c == '(' || c == '{') depth++;
        if ((c == ']' || c == ')' || c == '}') && depth > 0) depth--;
        p++;
    }
    *pp = p;
    return POLKA_OK;
}

/* Parses one "'key': value" of a networkx dict at *pp; sets *w when the key is 'weight'. */
static polka_status parse_dict_item(edge_reader *r, const char **pp, double *w) {
    const char *p = *pp;
    if (*p != '\'' && *p != '"') return reader_fail(r, "malformed edge data (expected a key)");
    const char *key = p + 1;
    POLKA_CALL(skip_py_string(r, &p));
    int is_weight = (size_t)(p - 1 - key) == 6 && strncmp(key, "weight", 6) == 0;
    p = skip_blank(p);
    if (*p != ':') return reader_fail(r, "malformed edge data (expected ':')");
    p = skip_blank(p + 1);
    const char *value = p;
    POLKA_CALL(skip_py_value(r, &p));
    if (is_weight) {
        size_t len = (size_t)(p - value);
        while (len > 0 && is_blank(value[len - 1])) len--;
        POLKA_CALL(parse_weight(r, value, len, w));
    }
    *pp = p;
    return POLKA_OK;
}

/* Parses a networkx edge-data dict "{...}" at *pp. */
static polka_status parse_dict(edge_reader *r, const char **pp, double *w) {
    const char *p = *pp + 1;
    for (;;) {
        p = skip_blank(p);
        if (*p == '}') break;
        POLKA_CALL(parse_dict_item(r, &p, w));
        p = skip_blank(p);
        if (*p == ',') {
            p++;
        } else if (*p != '}') {
            return reader_fail(r, "malformed edge data (expected ',' or '}')");
        }
    }
    *pp = p + 1;
    return POLKA_OK;
}

/* A full-line comment: recognises the '# nodes: N' header. */
static polka_status parse_comment(edge_reader *r, const char *p) {
    p = skip_blank(p + 1);
    if (strncmp(p, "nodes", 5) != 0) return POLKA_OK;
    const char *q = skip_blank(p + 5);
    if (*q != ':') return POLKA_OK;
    q = skip_blank(q + 1);
    size_t len = token_length(q);
    size_t n = 0;
    int ok = len > 0 && *skip_blank(q + len) == '\0';
    for (size_t k = 0; ok && k < len; k++) {
        ok = q[k] >= '0' && q[k] <= '9';
        n = n * 10 + (size_t)(q[k] - '0');
        ok = ok && n <= POLKA_GRAPH_MAX_NODES;
    }
    if (!ok || n == 0)
        return reader_fail(r, "malformed header (expected '# nodes: N' with 1 <= N <= %zu)",
                           POLKA_GRAPH_MAX_NODES);
    if (r->header_nodes && r->header_nodes != n)
        return reader_fail(r, "'# nodes: %zu' contradicts '# nodes: %zu' on line %zu", n,
                           r->header_nodes, r->header_line);
    r->header_nodes = n;
    r->header_line = r->line;
    return POLKA_OK;
}

/* The optional third field of an edge line: a weight or a networkx dict. */
static polka_status parse_edge_data(edge_reader *r, const char **pp, double *w) {
    const char *p = skip_blank(*pp);
    if (*p == '{') {
        POLKA_CALL(parse_dict(r, &p, w));
    } else if (*p && *p != '#') {
        size_t len = token_length(p);
        POLKA_CALL(parse_weight(r, p, len, w));
        p += len;
    }
    p = skip_blank(p);
    if (*p && *p != '#')
        return reader_fail(r, "too many fields (unexpected '%.*s'; expected 'u v [w]')",
                           (int)token_length(p), p);
    *pp = p;
    return POLKA_OK;
}

/* Parses one line (NUL-terminated, without its newline). */
static polka_status parse_line(edge_reader *r, const char *line) {
    const char *p = skip_blank(line);
    if (*p == '\0') return POLKA_OK;
    if (*p == '#') return parse_comment(r, p);
    size_t ids[2];
    for (int k = 0; k < 2; k++) {
        p = skip_blank(p);
        size_t len = token_length(p);
        if (len == 0) return reader_fail(r, "expected 'u v [w]', found %d field(s)", k);
        POLKA_CALL(parse_id(r, p, len, &ids[k]));
        p += len;
    }
    double w = 1.0;
    POLKA_CALL(parse_edge_data(r, &p, &w));
    if (ids[0] == ids[1]) return reader_fail(r, "self loop %zu-%zu", ids[0], ids[1]);
    return reader_push(r, ids[0], ids[1], w);
}

/* Splits text into lines and parses each. */
static polka_status parse_lines(edge_reader *r, const char *text) {
    char *buf = NULL;
    size_t cap = 0;
    polka_status status = POLKA_OK;
    const char *p = text;
    for (r->line = 1; status == POLKA_OK && *p; r->line++) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (len + 1 > cap) {
            cap = 2 * (len + 1);
            char *grown = realloc(buf, cap);
            if (!grown) {
                status = polka_error_set(POLKA_ERR_MEM, "out of memory reading '%s'", r->name);
                break;
            }
            buf = grown;
        }
        memcpy(buf, p, len);
        buf[len] = '\0';
        status = parse_line(r, buf);
        p = nl ? nl + 1 : p + len;
    }
    free(buf);
    return status;
}

/* The checks that need every edge: node range, duplicates; then builds the graph. */
static polka_status reader_finish(edge_reader *r, polka_graph **out) {
    POLKA_CHECK(r->m > 0, POLKA_ERR_FORMAT, "%s: empty graph (no edges)", r->name);
    size_t n = r->max_id + 1;
    if (r->header_nodes) {
        n = r->header_nodes;
        for (size_t e = 0; e < r->m; e++) {
            size_t bad = r->u[e] >= n ? r->u[e] : r->v[e];
            POLKA_CHECK(bad < n, POLKA_ERR_FORMAT,
                        "%s:%zu: node id %zu out of range ('# nodes: %zu' on line %zu)", r->name,
                        r->at[e], bad, n, r->header_line);
        }
    }
    size_t first = SIZE_MAX, second = SIZE_MAX;
    polka_status status = polka_graph_build_csr(n, r->u, r->v, r->w, r->m, out, &first, &second);
    if (status != POLKA_OK && second != SIZE_MAX)
        return polka_error_set(POLKA_ERR_FORMAT,
                               "%s:%zu: duplicate edge %zu-%zu (first on line %zu)", r->name,
                               r->at[second], r->u[second], r->v[second], r->at[first]);
    return status;
}

polka_status polka_graph_parse(const char *text, const char *name, polka_graph **out) {
    POLKA_CHECK(text && out, POLKA_ERR_ARG, "graph: parse given NULL");
    edge_reader r = {.name = name ? name : "<graph>"};
    polka_status status = parse_lines(&r, text);
    if (status == POLKA_OK) status = reader_finish(&r, out);
    reader_free(&r);
    return status;
}

/* Reads a whole stream into a NUL-terminated buffer; *len gets its length. */
static polka_status slurp(FILE *f, const char *path, char **text, size_t *len) {
    size_t cap = 4096, used = 0;
    char *buf = malloc(cap);
    POLKA_CHECK_ALLOC(buf);
    for (;;) {
        if (cap - used < 2) {
            char *grown = realloc(buf, 2 * cap);
            if (!grown) free(buf);
            POLKA_CHECK_ALLOC(grown);
            buf = grown;
            cap *= 2;
        }
        size_t got = fread(buf + used, 1, cap - used - 1, f);
        used += got;
        if (got == 0) break;
    }
    if (ferror(f)) {
        int err = errno;
        free(buf);
        return polka_error_set(POLKA_ERR_IO, "cannot read graph file '%s': %s", path,
                               strerror(err));
    }
    buf[used] = '\0';
    *text = buf;
    *len = used;
    return POLKA_OK;
}

polka_status polka_graph_read(const char *path, polka_graph **out) {
    POLKA_CHECK(path && out, POLKA_ERR_ARG, "graph: read given NULL");
    FILE *f = fopen(path, "r");
    POLKA_CHECK(f, POLKA_ERR_IO, "cannot open graph file '%s': %s", path, strerror(errno));
    char *text = NULL;
    size_t len = 0;
    polka_status status = slurp(f, path, &text, &len);
    fclose(f);
    POLKA_CALL(status);
    const char *nul = memchr(text, '\0', len);
    if (nul) {
        size_t line = 1;
        for (const char *p = text; p < nul; p++) line += *p == '\n';
        free(text);
        return polka_error_set(POLKA_ERR_FORMAT, "%s:%zu: NUL byte (not a text file?)", path, line);
    }
    status = polka_graph_parse(text, path, out);
    free(text);
    return status;
}

static int print_weight(FILE *stream, double w) {
    char buf[40];
    polka_format_double(buf, sizeof buf, w);
    return fprintf(stream, " %s", buf);
}

static int graph_weighted(const polka_graph *g) {
    for (size_t a = 0; a < 2 * g->m; a++)
        if (g->weights[a] != 1.0) return 1;
    return 0;
}

static void write_comment(const polka_graph *g, FILE *stream) {
    const char *p = polka_graph_comment(g);
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        fprintf(stream, "# %.*s\n", (int)len, p);
        p += len + (nl ? 1 : 0);
    }
}

polka_status polka_graph_write_stream(const polka_graph *g, FILE *stream, const char *name) {
    POLKA_CHECK(g && stream, POLKA_ERR_ARG, "graph: write given NULL");
    int weighted = graph_weighted(g);
    write_comment(g, stream);
    fprintf(stream, "# nodes: %zu\n# edges: %zu\n", g->n, g->m);
    for (size_t i = 0; i < g->n; i++) {
        for (size_t a = g->offsets[i]; a < g->offsets[i + 1]; a++) {
            if (g->adj[a] < i) continue;
            fprintf(stream, "%zu %zu", i, g->adj[a]);
            if (weighted) print_weight(stream, g->weights[a]);
            fputc('\n', stream);
        }
    }
    POLKA_CHECK(fflush(stream) == 0 && !ferror(stream), POLKA_ERR_IO,
                "cannot write graph file '%s': %s", name ? name : "<stream>", strerror(errno));
    return POLKA_OK;
}

polka_status polka_graph_write(const polka_graph *g, const char *path) {
    POLKA_CHECK(g && path, POLKA_ERR_ARG, "graph: write given NULL");
    FILE *f = fopen(path, "w");
    POLKA_CHECK(f, POLKA_ERR_IO, "cannot create graph file '%s': %s", path, strerror(errno));
    polka_status status = polka_graph_write_stream(g, f, path);
    int closed = fclose(f);
    POLKA_CALL(status);
    POLKA_CHECK(closed == 0, POLKA_ERR_IO, "cannot write graph file '%s': %s", path,
                strerror(errno));
    return POLKA_OK;
}
