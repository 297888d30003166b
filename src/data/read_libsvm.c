/* The LIBSVM text format, "label index:value ..." (described in polka/dataio.h). */
#include "data/dataio_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The line being read and its parsed sample (0-based indices). */
typedef struct {
    dataio_text text;
    double label;
    size_t *index;
    double *value;
    size_t nnz, capacity;
} libsvm_reader;

static void reader_free(libsvm_reader *r) {
    dataio_text_close(&r->text);
    free(r->index);
    free(r->value);
}

static polka_status push_pair(libsvm_reader *r, size_t j, double v) {
    if (r->nnz == r->capacity) {
        size_t cap = r->capacity ? 2 * r->capacity : 256;
        size_t *index = realloc(r->index, cap * sizeof *index);
        if (index) r->index = index;
        double *value = realloc(r->value, cap * sizeof *value);
        if (value) r->value = value;
        POLKA_CHECK_ALLOC(index && value ? index : NULL);
        r->capacity = cap;
    }
    r->index[r->nnz] = j;
    r->value[r->nnz] = v;
    r->nnz++;
    return POLKA_OK;
}

static int ends_token(char c) {
    return c == '\0' || c == '#' || dataio_is_blank(c);
}

static int is_digit(char c) {
    return c >= '0' && c <= '9';
}

/* The length of the token at p, for messages: up to a blank, at most 40 characters. */
static int shown(const char *p) {
    int len = 0;
    while (len < 40 && !ends_token(p[len])) len++;
    return len;
}

static const char *skip_blank(const char *p) {
    while (dataio_is_blank(*p)) p++;
    return p;
}

static polka_status parse_label(libsvm_reader *r, const char *p, const char **next) {
    char *end = NULL;
    double label = dataio_strtod(p, &end);
    if (end == p || !ends_token(*end))
        return dataio_line_error(r->text.path, r->text.line, "label '%.*s' is not a number",
                                 shown(p), p);
    if (!isfinite(label))
        return dataio_line_error(r->text.path, r->text.line, "label '%.*s' is not finite", shown(p),
                                 p);
    r->label = label;
    *next = end;
    return POLKA_OK;
}

/* Parses the 1-based index of an "index:value" token; *next points after the ':'. */
static polka_status parse_index(const libsvm_reader *r, const char *p, size_t *j,
                                const char **next) {
    const char *path = r->text.path;
    size_t line = r->text.line;
    if (*p == '-' && is_digit(p[1]))
        return dataio_line_error(path, line, "index in '%.*s' is < 1 (indices start at 1)",
                                 shown(p), p);
    const char *end = p;
    size_t index = 0;
    for (; is_digit(*end); end++)
        if (index <= POLKA_DATAIO_MAX_FEATURES) index = 10 * index + (size_t)(*end - '0');
    if (end == p || *end != ':')
        return dataio_line_error(path, line, "'%.*s' is not index:value", shown(p), p);
    if (index > POLKA_DATAIO_MAX_FEATURES)
        return dataio_line_error(path, line, "index in '%.*s' is above the limit %zu", shown(p), p,
                                 POLKA_DATAIO_MAX_FEATURES);
    if (index == 0) return dataio_line_error(path, line, "index 0 (indices start at 1)");
    if (r->nnz > 0 && index <= r->index[r->nnz - 1] + 1)
        return dataio_line_error(path, line, "index %zu after index %zu (indices must increase)",
                                 index, r->index[r->nnz - 1] + 1);
    *j = index - 1;
    *next = end + 1;
    return POLKA_OK;
}

/* Parses one "index:value" token at p. */
static polka_status parse_pair(libsvm_reader *r, const char *p, const char **next) {
    size_t j = 0;
    const char *v = NULL;
    POLKA_CALL(parse_index(r, p, &j, &v));
    char *end = NULL;
    double value = dataio_is_blank(*v) ? 0.0 : dataio_strtod(v, &end);
    if (dataio_is_blank(*v) || end == v || !ends_token(*end))
        return dataio_line_error(r->text.path, r->text.line, "value in '%.*s' is not a number",
                                 shown(p), p);
    if (!isfinite(value))
        return dataio_line_error(r->text.path, r->text.line, "value in '%.*s' is not finite",
                                 shown(p), p);
    POLKA_CALL(push_pair(r, j, value));
    *next = end;
    return POLKA_OK;
}

/* Parses a data line (p: its first non-blank character) into label, index, value. */
static polka_status parse_line(libsvm_reader *r, const char *p) {
    r->nnz = 0;
    POLKA_CALL(parse_label(r, p, &p));
    for (p = skip_blank(p); *p != '\0' && *p != '#'; p = skip_blank(p))
        POLKA_CALL(parse_pair(r, p, &p));
    return dataio_check_norm(r->value, r->nnz, r->text.path, r->text.line);
}

static polka_status scan_sample(const libsvm_reader *r, dataio_stats *stats) {
    polka_status status = dataio_stats_add_sparse(stats, r->index, r->value, r->nnz);
    if (status == POLKA_OK) status = dataio_stats_add_label(stats, r->label);
    return dataio_located(status, r->text.path, r->text.line);
}

static polka_status read_sample(const libsvm_reader *r, dataio_pass *pass, uint64_t index) {
    size_t p = pass->info->p;
    if (r->nnz > 0 && r->index[r->nnz - 1] >= p)
        return dataio_line_error(r->text.path, r->text.line,
                                 "feature index %zu is beyond the training data's dimension %zu",
                                 r->index[r->nnz - 1] + 1, p);
    double target = 0.0;
    if (!dataio_pass_target(pass, r->label, &target))
        return dataio_line_error(r->text.path, r->text.line,
                                 "label %.15g is not one of the %zu classes of the training data",
                                 r->label, pass->info->classes);
    if (pass->rows->sparse)
        return dataio_located(
            dataio_rows_push_sparse(pass->rows, index, target, r->index, r->value, r->nnz),
            r->text.path, r->text.line);
    double *row = NULL;
    POLKA_CALL(dataio_located(dataio_rows_push(pass->rows, index, target, &row), r->text.path,
                              r->text.line));
    memset(row, 0, p * sizeof *row);
    for (size_t k = 0; k < r->nnz; k++) row[r->index[k]] = r->value[k];
    return POLKA_OK;
}

/* Blank and comment ('#') lines hold no sample. */
static const char *sample_start(const char *line, size_t len) {
    (void)len;
    const char *p = skip_blank(line);
    return *p == '\0' || *p == '#' ? NULL : p;
}

static polka_status sample(void *reader, const char *line, dataio_pass *pass, uint64_t index) {
    libsvm_reader *r = reader;
    POLKA_CALL(parse_line(r, line));
    return pass->stats ? scan_sample(r, pass->stats) : read_sample(r, pass, index);
}

polka_status dataio_libsvm_pass(const char *path, const polka_read_options *options,
                                dataio_pass *pass) {
    (void)options;
    libsvm_reader r = {0};
    POLKA_CALL(dataio_text_open(&r.text, path));
    polka_status status = dataio_text_samples(&r.text, pass, sample_start, sample, &r);
    reader_free(&r);
    return status;
}
