/* CSV with a header line and a named label column (described in polka/dataio.h). */
#include "data/dataio_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    dataio_text text;
    const char *label_name;
    char *header;   /* a copy of the header line, cut into the names */
    char **names;   /* the column names */
    size_t columns; /* number of columns */
    size_t label;   /* the label column */
    size_t header_line;
    double *row; /* scan: the features of the current line */
} csv_reader;

static void reader_free(csv_reader *r) {
    dataio_text_close(&r->text);
    free(r->header);
    free(r->names);
    free(r->row);
}

/* Trims blanks around the field [begin, end) in place and strips one pair of double quotes. */
static char *trim_field(char *begin, char *end) {
    while (begin < end && dataio_is_blank(*begin)) begin++;
    while (end > begin && dataio_is_blank(end[-1])) end--;
    if (end - begin >= 2 && *begin == '"' && end[-1] == '"') {
        begin++;
        end--;
    }
    *end = '\0';
    return begin;
}

static size_t count_fields(const char *line) {
    size_t fields = 1;
    for (const char *c = line; *c != '\0'; c++) fields += *c == ',';
    return fields;
}

/* The end of the field at p: its ',' or the end of the line. */
static char *field_end(char *p) {
    while (*p != ',' && *p != '\0') p++;
    return p;
}

/* Cuts the header copy into the column names. */
static polka_status split_header(csv_reader *r) {
    r->columns = count_fields(r->header);
    r->names = malloc(r->columns * sizeof *r->names);
    POLKA_CHECK_ALLOC(r->names);
    char *p = r->header;
    for (size_t k = 0; k < r->columns; k++) {
        char *end = field_end(p);
        char *next = end + 1;
        r->names[k] = trim_field(p, end);
        p = next;
    }
    return POLKA_OK;
}

/* "a, b, c" (cut short when long) for the message about a missing label column. */
static void list_columns(const csv_reader *r, char *out, size_t size) {
    size_t used = 0;
    out[0] = '\0';
    for (size_t k = 0; k < r->columns && used + 1 < size; k++) {
        int room = used + 60 < size;
        int n = room ? snprintf(out + used, size - used, "%s'%s'", k ? ", " : "", r->names[k])
                     : snprintf(out + used, size - used, ", ... (%zu columns)", r->columns);
        if (n < 0) break;
        used += (size_t)n;
        if (!room) break;
    }
}

static polka_status find_label(csv_reader *r) {
    const char *path = r->text.path;
    size_t found = r->columns;
    for (size_t k = 0; k < r->columns; k++) {
        if (strcmp(r->names[k], r->label_name) != 0) continue;
        if (found < r->columns)
            return dataio_line_error(path, r->header_line,
                                     "label column '%s' appears twice (columns %zu and %zu)",
                                     r->label_name, found + 1, k + 1);
        found = k;
    }
    if (found == r->columns) {
        char list[320];
        list_columns(r, list, sizeof list);
        return dataio_line_error(path, r->header_line, "no label column '%s' in the header (%s)",
                                 r->label_name, list);
    }
    r->label = found;
    if (r->columns < 2)
        return dataio_line_error(path, r->header_line, "no feature columns besides '%s'",
                                 r->label_name);
    return POLKA_OK;
}

/* Reads the header (the first non-blank line). */
static polka_status read_header(csv_reader *r) {
    size_t len = 0;
    int got = 0;
    do {
        POLKA_CALL(dataio_text_next(&r->text, &len, &got));
        if (!got)
            return polka_error_set(POLKA_ERR_FORMAT, "%s: empty file (no header line)",
                                   r->text.path);
    } while (len == 0);
    const char *line = r->text.buf;
    if (strncmp(line, "\xEF\xBB\xBF", 3) == 0) line += 3; /* a UTF-8 byte order mark */
    r->header = malloc(strlen(line) + 1);
    POLKA_CHECK_ALLOC(r->header);
    strcpy(r->header, line);
    r->header_line = r->text.line;
    POLKA_CALL(split_header(r));
    return find_label(r);
}

/* Parses field k (NUL-terminated at end) into *value. */
static polka_status parse_field(const csv_reader *r, size_t k, char *begin, char *end,
                                double *value) {
    const char *field = trim_field(begin, end);
    const char *path = r->text.path;
    size_t line = r->text.line;
    if (*field == '\0')
        return dataio_line_error(path, line, "column %zu ('%s') is empty", k + 1, r->names[k]);
    char *stop = NULL;
    *value = dataio_strtod(field, &stop);
    if (stop == field || *stop != '\0')
        return dataio_line_error(path, line, "column %zu ('%s'): '%.40s' is not a number", k + 1,
                                 r->names[k], field);
    if (!isfinite(*value))
        return dataio_line_error(path, line, "column %zu ('%s'): '%.40s' is not finite", k + 1,
                                 r->names[k], field);
    return POLKA_OK;
}

/* Parses the line in the buffer: the features into row, the label into *label. */
static polka_status parse_line(csv_reader *r, double *row, double *label) {
    char *p = r->text.buf;
    size_t fields = count_fields(p);
    if (fields != r->columns)
        return dataio_line_error(r->text.path, r->text.line,
                                 "%zu fields, but the header (line %zu) has %zu columns", fields,
                                 r->header_line, r->columns);
    size_t out = 0;
    for (size_t k = 0; k < r->columns; k++) {
        char *end = field_end(p);
        char *next = end + 1;
        double value = 0.0;
        POLKA_CALL(parse_field(r, k, p, end, &value));
        if (k == r->label)
            *label = value;
        else
            row[out++] = value;
        p = next;
    }
    return dataio_check_norm(row, r->columns - 1, r->text.path, r->text.line);
}

static polka_status scan_line(csv_reader *r, dataio_stats *stats) {
    double label = 0.0;
    POLKA_CALL(parse_line(r, r->row, &label));
    dataio_stats_add_row(stats, r->row);
    return dataio_located(dataio_stats_add_label(stats, label), r->text.path, r->text.line);
}

static polka_status read_line(csv_reader *r, dataio_pass *pass, uint64_t index) {
    double *row = NULL;
    POLKA_CALL(
        dataio_located(dataio_rows_push(pass->rows, index, 0.0, &row), r->text.path, r->text.line));
    double label = 0.0;
    POLKA_CALL(parse_line(r, row, &label));
    double *target = &pass->rows->y[pass->rows->n - 1];
    if (!dataio_pass_target(pass, label, target))
        return dataio_line_error(r->text.path, r->text.line,
                                 "label %.15g is not one of the %zu classes of the training data",
                                 label, pass->info->classes);
    return POLKA_OK;
}

/* A test file's header must name the training file's columns in the same order: read by
 * position, a file with the same columns in another order would silently swap features. */
static polka_status check_header_names(const csv_reader *r, const polka_data_info *info) {
    if (info->column_names == NULL) return POLKA_OK; /* the training file had no header */
    const char *train = info->path ? info->path : "(unnamed)";
    for (size_t k = 0; k < r->columns && k < info->columns; k++) {
        if (strcmp(r->names[k], info->column_names[k]) == 0) continue;
        return dataio_line_error(r->text.path, r->header_line,
                                 "column %zu is '%s', but in the training file '%s' it is '%s' "
                                 "(the header must name the same columns in the same order)",
                                 k + 1, r->names[k], train, info->column_names[k]);
    }
    return POLKA_OK;
}

/* Sets up the pass for the header's columns. */
static polka_status start_pass(csv_reader *r, dataio_pass *pass) {
    size_t p = r->columns - 1;
    if (pass->stats) {
        pass->stats->columns = r->columns;
        POLKA_CALL(dataio_names_copy(r->names, r->columns, &pass->stats->column_names));
        return dataio_stats_begin_dense(pass->stats, p, &r->row);
    }
    if (p != pass->info->p)
        return dataio_line_error(r->text.path, r->header_line,
                                 "%zu feature columns, but the training data has %zu", p,
                                 pass->info->p);
    return check_header_names(r, pass->info);
}

/* Every non-blank line after the header is a sample. */
static const char *sample_start(const char *line, size_t len) {
    return len > 0 ? line : NULL;
}

/* The line is r->text.buf, which scan_line and read_line parse in place. */
static polka_status sample(void *reader, const char *line, dataio_pass *pass, uint64_t index) {
    csv_reader *r = reader;
    (void)line;
    return pass->stats ? scan_line(r, pass->stats) : read_line(r, pass, index);
}

static polka_status read_lines(csv_reader *r, dataio_pass *pass) {
    POLKA_CALL(read_header(r));
    POLKA_CALL(start_pass(r, pass));
    return dataio_text_samples(&r->text, pass, sample_start, sample, r);
}

polka_status dataio_csv_pass(const char *path, const polka_read_options *options,
                             dataio_pass *pass) {
    csv_reader r = {.label_name = options->label_column};
    POLKA_CALL(dataio_text_open(&r.text, path));
    if (dataio_pass_seeks(pass, path)) gzbuffer(r.text.file, 4096); /* the header's bytes */
    polka_status status = read_lines(&r, pass);
    reader_free(&r);
    return status;
}
