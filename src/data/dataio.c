/* Data files: options, the scan statistics, the label map, the kept rows, scaling, text lines. */
#include "data/dataio_impl.h"
#include "polka/stop.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *const format_names[] = {"auto", "idx", "libsvm", "csv"};
static const char *const scale_names[] = {"none", "unit", "standard"};

polka_status polka_file_format_parse(const char *name, polka_file_format *format) {
    int index;
    POLKA_CALL(
        polka_name_find(name, format_names, POLKA_COUNT(format_names), "data format", &index));
    *format = (polka_file_format)index;
    return POLKA_OK;
}

const char *polka_file_format_name(polka_file_format format) {
    return polka_name_at(format_names, POLKA_COUNT(format_names), (int)format);
}

polka_status polka_scale_kind_parse(const char *name, polka_scale_kind *kind) {
    int index;
    POLKA_CALL(polka_name_find(name, scale_names, POLKA_COUNT(scale_names), "scaling", &index));
    *kind = (polka_scale_kind)index;
    return POLKA_OK;
}

const char *polka_scale_kind_name(polka_scale_kind kind) {
    return polka_name_at(scale_names, POLKA_COUNT(scale_names), (int)kind);
}

static int ends_with(const char *s, size_t len, const char *suffix) {
    size_t k = strlen(suffix);
    return len >= k && strncmp(s + len - k, suffix, k) == 0;
}

polka_file_format polka_file_format_guess(const char *path) {
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t len = strlen(base);
    if (ends_with(base, len, ".gz")) len -= 3;
    if (ends_with(base, len, ".csv")) return POLKA_FORMAT_CSV;
    if (ends_with(base, len, "-ubyte")) {
        for (size_t k = 0; k + 3 <= len; k++)
            if (strncmp(base + k, "idx", 3) == 0) return POLKA_FORMAT_IDX;
    }
    return POLKA_FORMAT_LIBSVM;
}

polka_status dataio_line_error(const char *path, size_t line, const char *fmt, ...) {
    char detail[768];
    va_list args;
    va_start(args, fmt);
    vsnprintf(detail, sizeof detail, fmt, args);
    va_end(args);
    return polka_error_set(POLKA_ERR_FORMAT, "%s:%zu: %s", path, line, detail);
}

polka_status dataio_located(polka_status status, const char *path, size_t line) {
    if (status == POLKA_OK) return status;
    return polka_error_set(status, "%s:%zu: %s", path, line, polka_error_message());
}

polka_status dataio_check_norm(const double *x, size_t count, const char *path, size_t line) {
    if (dataio_norm_finite(x, count)) return POLKA_OK;
    return dataio_line_error(path, line,
                             "the sample's squared norm overflows a double (values too large "
                             "for the kernels, e.g. |x| above 1e154): rescale the data");
}

/* ---- numbers ---------------------------------------------------------------------------- */

static int is_digit(char c) {
    return c >= '0' && c <= '9';
}

static int is_alnum(char c) {
    return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

/* Reads digits into *m (while it stays below 2^53; *extra counts the digits that did not
 * fit) and returns how many digits there were. */
static size_t read_digits(const char **p, uint64_t *m, int *extra) {
    size_t count = 0;
    for (; is_digit(**p); (*p)++, count++) {
        if (*m < ((uint64_t)1 << 53) / 10)
            *m = 10 * *m + (uint64_t)(**p - '0');
        else
            (*extra)++;
    }
    return count;
}

/* The exponent of "e±ddd" at *p when there is one (else 0, *p unmoved); -1000 when huge. */
static int read_exponent(const char **p) {
    const char *q = *p;
    if (*q != 'e' && *q != 'E') return 0;
    q++;
    int sign = *q == '-' ? -1 : 1;
    if (*q == '+' || *q == '-') q++;
    if (!is_digit(*q)) return 0;
    int e = 0;
    for (; is_digit(*q); q++) e = e < 10000 ? 10 * e + (*q - '0') : e;
    *p = q;
    return e >= 10000 ? -1000 : sign * e;
}

double dataio_strtod(const char *s, char **end) {
    static const double powers[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                      1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                      1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    const char *p = s;
    int negative = *p == '-';
    if (*p == '-' || *p == '+') p++;
    uint64_t m = 0;
    int extra = 0;
    size_t digits = read_digits(&p, &m, &extra);
    int scale = extra;
    if (*p == '.') {
        p++;
        int before = extra;
        size_t fraction = read_digits(&p, &m, &extra);
        digits += fraction;
        scale -= (int)fraction - (extra - before);
    }
    int e = digits > 0 ? read_exponent(&p) : 0;
    /* Exact when m < 2^53 and 10^|e| is exact (Clinger); anything else goes to strtod. */
    if (digits == 0 || extra > 0 || e == -1000 || is_alnum(*p) || *p == '.') return strtod(s, end);
    e += scale;
    if (e < -22 || e > 22) return strtod(s, end);
    double value = e < 0 ? (double)m / powers[-e] : (double)m * powers[e];
    *end = (char *)p;
    return negative ? -value : value;
}

/* ---- scan statistics ------------------------------------------------------------------- */

polka_status dataio_grow(void **array, size_t count, size_t size) {
    void *grown = realloc(*array, (count ? count : 1) * size);
    POLKA_CHECK_ALLOC(grown);
    *array = grown;
    return POLKA_OK;
}

polka_status dataio_stats_begin_dense(dataio_stats *stats, size_t p, double **row) {
    POLKA_CALL(dataio_stats_fit(stats, p));
    POLKA_CALL(dataio_stats_reserve(stats, p));
    stats->p = p;
    *row = malloc((p ? p : 1) * sizeof **row);
    POLKA_CHECK_ALLOC(*row);
    return POLKA_OK;
}

polka_status dataio_stats_reserve(dataio_stats *stats, size_t p) {
    if (p <= stats->capacity) return POLKA_OK;
    size_t cap = stats->capacity ? stats->capacity : 16;
    while (cap < p) cap = cap > SIZE_MAX / 2 ? p : 2 * cap;
    if (48.0 * (double)cap + 32.0 * (double)p > (double)stats->memory_limit)
        cap = p; /* stats_fit */
    POLKA_CHECK(cap < SIZE_MAX / sizeof(double), POLKA_ERR_MEM, "out of memory for %zu features",
                p);
    POLKA_CALL(dataio_grow((void **)&stats->count, cap, sizeof *stats->count));
    POLKA_CALL(dataio_grow((void **)&stats->shift, cap, sizeof(double)));
    POLKA_CALL(dataio_grow((void **)&stats->s1, cap, sizeof(double)));
    POLKA_CALL(dataio_grow((void **)&stats->s2, cap, sizeof(double)));
    POLKA_CALL(dataio_grow((void **)&stats->min, cap, sizeof(double)));
    POLKA_CALL(dataio_grow((void **)&stats->max, cap, sizeof(double)));
    for (size_t j = stats->capacity; j < cap; j++) {
        stats->count[j] = 0;
        stats->shift[j] = stats->s1[j] = stats->s2[j] = 0.0;
        stats->min[j] = INFINITY;
        stats->max[j] = -INFINITY;
    }
    stats->capacity = cap;
    return POLKA_OK;
}

polka_status dataio_stats_add_sparse(dataio_stats *stats, const size_t *index, const double *value,
                                     size_t nnz) {
    stats->sparse = 1;
    if (nnz == 0) return POLKA_OK;
    POLKA_CALL(dataio_stats_grow_sparse(stats, index[nnz - 1] + 1, nnz));
    for (size_t k = 0; k < nnz; k++) {
        size_t j = 0;
        POLKA_CALL(dataio_stats_slot(stats, index[k], &j));
        double x = value[k];
        if (stats->count[j] == 0) stats->shift[j] = x;
        double d = x - stats->shift[j];
        stats->s1[j] += d;
        stats->s2[j] += d * d;
        if (x < stats->min[j]) stats->min[j] = x;
        if (x > stats->max[j]) stats->max[j] = x;
        stats->count[j]++;
    }
    return POLKA_OK;
}

void dataio_stats_add_row(dataio_stats *stats, const double *row) {
    size_t p = stats->p;
    if (stats->dense_rows == 0) memcpy(stats->shift, row, p * sizeof *row);
    double *restrict s1 = stats->s1, *restrict s2 = stats->s2;
    double *restrict lo = stats->min, *restrict hi = stats->max;
    const double *restrict shift = stats->shift;
    for (size_t j = 0; j < p; j++) {
        double d = row[j] - shift[j];
        s1[j] += d;
        s2[j] += d * d;
        lo[j] = row[j] < lo[j] ? row[j] : lo[j];
        hi[j] = row[j] > hi[j] ? row[j] : hi[j];
    }
    stats->dense_rows++;
}

polka_status dataio_stats_add_label(dataio_stats *stats, double label) {
    if (!stats->regression) {
        if (stats->rows == stats->label_capacity) {
            size_t cap = stats->label_capacity ? 2 * stats->label_capacity : 1024;
            POLKA_CALL(dataio_grow((void **)&stats->labels, cap, sizeof(double)));
            stats->label_capacity = cap;
        }
        stats->labels[stats->rows] = label;
    }
    stats->n++;
    stats->rows++;
    return POLKA_OK;
}

polka_status dataio_names_copy(char *const *names, size_t count, char ***copy) {
    size_t bytes = count * sizeof(char *);
    for (size_t k = 0; k < count; k++) bytes += strlen(names[k]) + 1;
    *copy = malloc(bytes ? bytes : 1);
    POLKA_CHECK_ALLOC(*copy);
    char *text = (char *)(*copy + count);
    for (size_t k = 0; k < count; k++) {
        size_t len = strlen(names[k]) + 1;
        (*copy)[k] = memcpy(text, names[k], len);
        text += len;
    }
    return POLKA_OK;
}

void dataio_stats_free(dataio_stats *stats) {
    free(stats->column_names);
    free(stats->count);
    free(stats->shift);
    free(stats->s1);
    free(stats->s2);
    free(stats->min);
    free(stats->max);
    free(stats->labels);
    free(stats->offset);
    free(stats->bare);
    free(stats->part);
    dataio_stats_free_table(stats);
    *stats = (dataio_stats){0};
}

/* ---- passes ------------------------------------------------------------------------------ */

polka_status dataio_resolve_options(const char *path, const polka_read_options *options,
                                    polka_read_options *resolved) {
    *resolved = options ? *options : (polka_read_options){0};
    POLKA_CHECK(path != NULL, POLKA_ERR_ARG, "no data file given");
    if (resolved->format == POLKA_FORMAT_AUTO) resolved->format = polka_file_format_guess(path);
    if (resolved->label_column == NULL) resolved->label_column = "label";
    POLKA_CHECK(resolved->format == POLKA_FORMAT_IDX || resolved->format == POLKA_FORMAT_LIBSVM ||
                    resolved->format == POLKA_FORMAT_CSV,
                POLKA_ERR_ARG, "'%s': invalid data format %d", path, (int)resolved->format);
    POLKA_CHECK(resolved->format != POLKA_FORMAT_IDX || resolved->labels_path != NULL,
                POLKA_ERR_ARG, "IDX file '%s' needs a labels file", path);
    POLKA_CHECK(resolved->format == POLKA_FORMAT_LIBSVM ||
                    resolved->storage != POLKA_STORAGE_SPARSE,
                POLKA_ERR_ARG, "'%s': sparse storage is for LIBSVM files, not %s", path,
                polka_file_format_name(resolved->format));
    return POLKA_OK;
}

polka_status dataio_run_pass(const char *path, const polka_read_options *options,
                             dataio_pass *pass) {
    switch (options->format) {
    case POLKA_FORMAT_IDX:
        return dataio_idx_pass(path, options, pass);
    case POLKA_FORMAT_CSV:
        return dataio_csv_pass(path, options, pass);
    default:
        return dataio_libsvm_pass(path, options, pass);
    }
}

polka_status dataio_no_samples(const char *path) {
    return polka_error_set(POLKA_ERR_FORMAT, "%s: no samples in the file", path);
}

int dataio_pass_wants(const dataio_pass *pass, uint64_t index) {
    return pass->stats != NULL || pass->keep == NULL || pass->keep(pass->context, index);
}

int dataio_pass_target(const dataio_pass *pass, double label, double *target) {
    if (pass->info->classes == 0) {
        *target = label;
        return 1;
    }
    size_t c;
    if (!dataio_label_class(pass->info, label, &c)) return 0;
    *target = (double)c;
    return 1;
}

/* Hands the rows over to out and index_out, trimmed to size. */
static polka_status rows_finish(dataio_rows *rows, size_t classes, polka_dataset *out,
                                uint64_t **index_out) {
    size_t n = rows->n ? rows->n : 1, cells = rows->n * rows->p;
    *out = (polka_dataset){.n = rows->n, .p = rows->p, .classes = classes};
    if (rows->sparse)
        POLKA_CALL(dataio_rows_finish_sparse(rows, out));
    else
        out->x = dataio_shrink(rows->x, (cells ? cells : 1) * sizeof *out->x);
    out->y = dataio_shrink(rows->y, n * sizeof *out->y);
    uint64_t *index = dataio_shrink(rows->index, n * sizeof *index);
    if (index_out)
        *index_out = index;
    else
        free(index);
    *rows = (dataio_rows){0};
    return POLKA_OK;
}

static polka_status check_read_args(const char *path, const polka_read_options *options,
                                    const polka_data_info *info) {
    POLKA_CHECK(info != NULL, POLKA_ERR_ARG, "reading '%s' needs the training data's scan", path);
    POLKA_CHECK(info->p > 0, POLKA_ERR_ARG, "reading '%s': the training data has no features",
                path);
    POLKA_CHECK((options->regression != 0) == (info->classes == 0), POLKA_ERR_ARG,
                "reading '%s' as %s, but the training data was scanned as %s", path,
                options->regression ? "regression" : "classification",
                info->classes ? "classification" : "regression");
    return POLKA_OK;
}

polka_status polka_data_read(const char *path, const polka_read_options *options,
                             const polka_data_info *info, polka_keep_fn keep, void *context,
                             polka_dataset *out, uint64_t **index_out) {
    *out = (polka_dataset){0};
    if (index_out) *index_out = NULL;
    polka_read_options resolved;
    POLKA_CALL(dataio_resolve_options(path, options, &resolved));
    POLKA_CALL(check_read_args(path, &resolved, info));
    dataio_rows rows = {
        .p = info->p,
        .memory_limit = dataio_memory_limit(&resolved),
        .sparse = resolved.format == POLKA_FORMAT_LIBSVM &&
                  (resolved.storage == POLKA_STORAGE_SPARSE ||
                   (resolved.storage == POLKA_STORAGE_AUTO && polka_data_sparse_pays(info)))};
    dataio_pass pass = {.info = info, .keep = keep, .context = context, .rows = &rows};
    polka_status status = dataio_run_pass(path, &resolved, &pass);
    /* a test file with no samples would score as 0 of 0 correct: refuse it like a training file
     * (a keep function that keeps none of the samples is fine) */
    if (status == POLKA_OK && pass.samples == 0) status = dataio_no_samples(path);
    if (status == POLKA_OK && rows.capacity == 0) /* nothing kept: arrays, but not a row */
        status = dataio_rows_grow(&rows, 0);
    if (status == POLKA_OK) status = rows_finish(&rows, info->classes, out, index_out);
    if (status != POLKA_OK) {
        dataio_rows_free(&rows);
        *out = (polka_dataset){0};
    }
    return status;
}

/* ---- text lines -------------------------------------------------------------------------- */

polka_status dataio_gz_error(gzFile file, const char *path) {
    int code = Z_OK;
    const char *message = gzerror(file, &code);
    if (message == NULL) message = "unknown zlib error";
    size_t len = strlen(path); /* zlib's message starts "PATH: " */
    if (strncmp(message, path, len) == 0 && strncmp(message + len, ": ", 2) == 0)
        message += len + 2;
    if (code == Z_ERRNO)
        return polka_error_set(POLKA_ERR_IO, "cannot read '%s': %s", path, message);
    return polka_error_set(POLKA_ERR_FORMAT, "%s: corrupt or truncated gzip data (%s)", path,
                           message);
}

polka_status dataio_gzopen(const char *path, gzFile *file) {
    /* zlib's buffers (3 times this size) as large as the file, from 8 KB to 256 KB */
    struct stat st;
    size_t size = stat(path, &st) == 0 && st.st_size > 0 ? (size_t)st.st_size : 0;
    size = size < 8192 ? 8192 : size > 262144 ? 262144 : size;
    errno = 0;
    *file = gzopen(path, "rb");
    POLKA_CHECK(*file != NULL, POLKA_ERR_IO, "cannot open '%s': %s", path,
                errno ? strerror(errno) : "out of memory");
    gzbuffer(*file, (unsigned)size);
    return POLKA_OK;
}

polka_status dataio_text_open(dataio_text *text, const char *path) {
    *text = (dataio_text){.path = path, .capacity = 1 << 16};
    POLKA_CALL(dataio_gzopen(path, &text->file));
    text->buf = malloc(text->capacity);
    if (text->buf == NULL) {
        dataio_text_close(text);
        POLKA_CHECK_ALLOC(NULL);
    }
    return POLKA_OK;
}

void dataio_text_close(dataio_text *text) {
    if (text->file) gzclose(text->file);
    free(text->buf);
    *text = (dataio_text){0};
}

static polka_status text_grow(dataio_text *text) {
    POLKA_CHECK(text->capacity < SIZE_MAX / 2, POLKA_ERR_MEM, "%s:%zu: line too long", text->path,
                text->line + 1);
    char *buf = realloc(text->buf, 2 * text->capacity);
    POLKA_CHECK(buf != NULL, POLKA_ERR_MEM, "%s:%zu: out of memory for a line of %zu bytes",
                text->path, text->line + 1, text->capacity);
    text->buf = buf;
    text->capacity *= 2;
    return POLKA_OK;
}

/* Reads a whole line (with its '\n' when there is one) into text->buf; *len = 0 at the end. */
static polka_status text_read_line(dataio_text *text, size_t *len) {
    size_t have = 0;
    for (;;) {
        if (text->capacity - have < 2) POLKA_CALL(text_grow(text));
        size_t space = text->capacity - have;
        if (space > INT_MAX) space = INT_MAX;
        char *chunk = text->buf + have;
        if (gzgets(text->file, chunk, (int)space) == NULL) {
            int code = Z_OK;
            gzerror(text->file, &code);
            if (code != Z_OK) return dataio_gz_error(text->file, text->path);
            break; /* the end of the file */
        }
        size_t got = strlen(chunk);
        have += got;
        if (got > 0 && chunk[got - 1] == '\n') break;
        if (got + 1 < space) {
            if (gzeof(text->file)) break; /* a last line without '\n' */
            return dataio_line_error(text->path, text->line + 1, "NUL byte (a binary file?)");
        }
    }
    text->buf[have] = '\0';
    *len = have;
    return POLKA_OK;
}

polka_status dataio_text_next(dataio_text *text, size_t *len, int *got) {
    size_t have = 0;
    POLKA_CALL(text_read_line(text, &have));
    *got = have > 0;
    if (have == 0) return POLKA_OK;
    text->line++;
    while (have > 0 && dataio_is_blank(text->buf[have - 1])) have--;
    text->buf[have] = '\0';
    *len = have;
    return POLKA_OK;
}

/* Moves a scan of a piece that starts at a later chunk to its first line: the first that starts
 * at or after range_begin (the line around it belongs to the chunk before). Its lines are then
 * numbered from 1 (stats->lines_local: polka_scan_locate makes a message's number the file's,
 * counting the line ends before only when there is an error). A CSV header already read past
 * range_begin stays, and so do the file's numbers. */
static polka_status text_seek_piece(dataio_text *text, dataio_stats *stats) {
    uint64_t begin = stats->range_begin;
    if (begin == 0 || (uint64_t)gztell(text->file) >= begin) return POLKA_OK;
    /* zlib seeks a plain file with lseek once it has looked at its first bytes (gzdirect);
     * before that, gzseek would read and drop everything up to begin */
    if (!gzdirect(text->file) || gzseek(text->file, (z_off_t)(begin - 1), SEEK_SET) < 0)
        return dataio_gz_error(text->file, text->path);
    size_t have = 0; /* the rest of the line around begin, or the '\n' just before it */
    POLKA_CALL(text_read_line(text, &have));
    stats->lines_local = 1;
    stats->line_skipped = (uint64_t)gztell(text->file) > begin; /* a line begun before */
    text->line = 0;
    return POLKA_OK;
}

/* Records the lines before the first sample line (a CSV header) as lines without a sample. */
static polka_status text_note_header(dataio_text *text, dataio_stats *offsets) {
    for (size_t k = 0; offsets && offsets->range_begin == 0 && k < text->line; k++)
        POLKA_CALL(dataio_located(dataio_offsets_note(offsets, text->file, 0, 0, 0), text->path,
                                  text->line));
    return POLKA_OK;
}

polka_status dataio_text_samples(dataio_text *text, dataio_pass *pass, dataio_sample_start_fn start,
                                 dataio_sample_fn sample, void *reader) {
    if (dataio_pass_seeks(pass, text->path))
        return dataio_text_seek_samples(text, pass, start, sample, reader);
    dataio_stats *stats = pass->stats;
    if (stats && stats->range_empty) return POLKA_OK;
    dataio_stats *offsets = stats && stats->offsets ? stats : NULL;
    POLKA_CALL(text_note_header(text, offsets));
    if (stats) POLKA_CALL(text_seek_piece(text, stats));
    uint64_t index = 0;
    for (;;) {
        size_t len = 0;
        int got = 0;
        uint64_t offset = stats ? (uint64_t)gztell(text->file) : 0;
        if (stats && stats->range_end && offset >= stats->range_end) break; /* the next piece's */
        POLKA_CALL(dataio_text_next(text, &len, &got));
        if (!got) break;
        const char *at = start(text->buf, len);
        POLKA_CALL(dataio_located(polka_stop_check("the data scan"), text->path, text->line));
        if (offsets)
            POLKA_CALL(
                dataio_located(dataio_offsets_note(offsets, text->file, offset, at != NULL, index),
                               text->path, text->line));
        if (at == NULL) continue;
        if (stats)
            POLKA_CALL(dataio_located(dataio_chunk_at(stats, offset), text->path, text->line));
        if (dataio_pass_wants(pass, index)) POLKA_CALL(sample(reader, at, pass, index));
        index++;
    }
    pass->samples = index;
    return POLKA_OK;
}
