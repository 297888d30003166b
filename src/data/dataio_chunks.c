/* Chunked scans (polka/dataio.h, Chunks): each chunk's sums apart, folded in file order, so a
 * scan split among processes by runs of chunks gives the info of a scan by one, bit for bit. */
#include "data/dataio_impl.h"
#include "polka/stop.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A part (one chunk): PART_HEAD words (n, dense rows, p, values, entries, sparse), then per
 * entry ENTRY_WORDS (feature, count, shift, s1, s2, min, max). A piece (one run of chunks):
 * PIECE_HEAD words (magic, first chunk, parts, rows, bare lines, flags, part words, 0), the
 * parts, then rows labels (classification), rows offsets and the bare lines (FLAG_OFFSETS). */
enum { PART_HEAD = 6, ENTRY_WORDS = 7, PIECE_HEAD = 8 };
enum { FLAG_LABELS = 1, FLAG_OFFSETS = 2 };
#define PIECE_MAGIC 0x316e73616b6c6f70ull /* "polkasn1" */
#define EMPTY       SIZE_MAX

struct polka_scan_s {
    char *path;
    polka_read_options options; /* resolved */
    dataio_stats stats;         /* the local pass: its header (CSV), parts and rows */
    uint64_t size;              /* the file's bytes (a plain file) */
    int plain;                  /* 1: not gzipped, its chunks can be scanned apart */
    size_t chunks;
    uint64_t *piece;
    size_t piece_words;
};

static uint64_t bits_of(double x) {
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static double double_of(uint64_t u) {
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* ---- the parts of a pass ------------------------------------------------------------------ */

static polka_status part_room(dataio_stats *s, size_t words) {
    size_t need = s->part_words + words;
    if (need <= s->part_capacity) return POLKA_OK;
    size_t cap = s->part_capacity ? 2 * s->part_capacity : need;
    if (cap < need || (double)cap * 8.0 > (double)s->memory_limit) cap = need;
    POLKA_CHECK((double)cap * 8.0 <= (double)s->memory_limit, POLKA_ERR_MEM,
                "the chunks' statistics take %s, over the memory limit of %s%s (a larger "
                "data.scan_chunk makes fewer chunks)",
                dataio_size_text((double)cap * 8.0), dataio_size_text((double)s->memory_limit),
                dataio_memory_origin(s->memory_limit));
    POLKA_CALL(dataio_grow((void **)&s->part, cap, sizeof *s->part));
    s->part_capacity = cap;
    return POLKA_OK;
}

static void put_entry(const dataio_stats *s, uint64_t *w, size_t feature, size_t at) {
    w[0] = feature;
    w[1] = s->count[at];
    w[2] = bits_of(s->shift[at]);
    w[3] = bits_of(s->s1[at]);
    w[4] = bits_of(s->s2[at]);
    w[5] = bits_of(s->min[at]);
    w[6] = bits_of(s->max[at]);
}

/* Empties the sums of the first `entries` slots or features, and a sparse scan's table. */
static void empty_sums(dataio_stats *s, size_t entries) {
    for (size_t at = 0; at < entries; at++) {
        s->count[at] = 0;
        s->shift[at] = s->s1[at] = s->s2[at] = 0.0;
        s->min[at] = INFINITY;
        s->max[at] = -INFINITY;
    }
    size_t cells = s->table_bits ? (size_t)1 << s->table_bits : 0;
    for (size_t h = 0; h < cells; h++) s->table_key[h] = EMPTY;
    if (s->sparse) s->slots = s->p = 0;
    s->n = s->dense_rows = 0;
    s->values = 0.0;
}

/* Appends the current chunk's sums to the parts (none when it has no sample) and empties them. */
static polka_status emit(dataio_stats *s) {
    if (s->n == 0) return POLKA_OK;
    size_t entries = s->sparse ? s->slots : s->p;
    POLKA_CALL(part_room(s, PART_HEAD + entries * ENTRY_WORDS));
    uint64_t *w = s->part + s->part_words;
    uint64_t head[PART_HEAD] = {s->n,    s->dense_rows,      s->p, bits_of(s->values),
                                entries, (uint64_t)s->sparse};
    memcpy(w, head, sizeof head);
    w += PART_HEAD;
    size_t cells = s->sparse && s->table_bits ? (size_t)1 << s->table_bits : 0;
    for (size_t h = 0; h < cells; h++) /* the table's order: the same on every process */
        if (s->table_key[h] != EMPTY) {
            put_entry(s, w, s->table_key[h], s->table_slot[h]);
            w += ENTRY_WORDS;
        }
    for (size_t j = 0; !s->sparse && j < entries; j++, w += ENTRY_WORDS) put_entry(s, w, j, j);
    s->part_words += PART_HEAD + entries * ENTRY_WORDS;
    s->parts++;
    empty_sums(s, entries);
    return POLKA_OK;
}

polka_status dataio_chunk_at(dataio_stats *stats, uint64_t offset) {
    if (stats->chunk_bytes == 0 || offset < stats->chunk_end) return POLKA_OK;
    POLKA_CALL(emit(stats));
    stats->chunk_end = (offset / stats->chunk_bytes + 1) * stats->chunk_bytes;
    return POLKA_OK;
}

/* ---- a scan ------------------------------------------------------------------------------- */

/* 1 when path starts with gzip's magic bytes (zlib reads anything else as it is). */
static int gzipped(const char *path) {
    unsigned char magic[2] = {0, 0};
    FILE *f = fopen(path, "rb");
    if (f == NULL) return 0;
    size_t got = fread(magic, 1, 2, f);
    fclose(f);
    return got == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
}

polka_status polka_scan_open(const char *path, const polka_read_options *options,
                             polka_scan **out) {
    *out = NULL;
    polka_read_options resolved;
    POLKA_CALL(dataio_resolve_options(path, options, &resolved));
    uint64_t chunk = resolved.scan_chunk ? resolved.scan_chunk : POLKA_SCAN_CHUNK;
    POLKA_CHECK(chunk >= POLKA_SCAN_CHUNK_MIN, POLKA_ERR_ARG,
                "data.scan_chunk: %llu bytes is below the smallest chunk, %llu bytes",
                (unsigned long long)chunk, (unsigned long long)POLKA_SCAN_CHUNK_MIN);
    resolved.scan_chunk = chunk;
    polka_scan *scan = calloc(1, sizeof *scan);
    POLKA_CHECK_ALLOC(scan);
    scan->path = malloc(strlen(path) + 1);
    if (scan->path == NULL) {
        free(scan);
        POLKA_CHECK_ALLOC(NULL);
    }
    strcpy(scan->path, path);
    scan->options = resolved;
    struct stat st;
    scan->plain = stat(path, &st) == 0 && S_ISREG(st.st_mode) && !gzipped(path);
    scan->size = scan->plain ? (uint64_t)st.st_size : 0;
    scan->chunks = scan->size > 0 ? (size_t)((scan->size - 1) / chunk + 1) : 1;
    scan->stats = (dataio_stats){.regression = resolved.regression != 0,
                                 .memory_limit = dataio_memory_limit(&resolved),
                                 .dense_storage = resolved.storage == POLKA_STORAGE_DENSE,
                                 .feature_bytes = resolved.feature_bytes,
                                 .row_classes = resolved.row_classes != 0,
                                 .offsets = resolved.sample_offsets != 0 &&
                                            resolved.format != POLKA_FORMAT_IDX,
                                 .chunk_bytes = chunk};
    *out = scan;
    return POLKA_OK;
}

size_t polka_scan_chunks(const polka_scan *scan) {
    return scan->chunks;
}

int polka_scan_splits(const polka_scan *scan) {
    return scan->plain;
}

static uint64_t count_ends(const char *buf, size_t bytes) {
    uint64_t count = 0;
    for (const char *p = buf, *end = buf + bytes; (p = memchr(p, '\n', (size_t)(end - p))) != NULL;
         p++)
        count++;
    return count;
}

static polka_status count_chunk(const polka_scan *scan, int fd, char *buf, size_t k,
                                uint64_t *newlines) {
    uint64_t from = (uint64_t)k * scan->options.scan_chunk, to = from + scan->options.scan_chunk;
    if (to > scan->size) to = scan->size;
    *newlines = 0;
    for (uint64_t at = from; at < to;) {
        size_t want = to - at < (1u << 20) ? (size_t)(to - at) : (1u << 20), got = 0;
        POLKA_CALL(dataio_pread(fd, scan->path, buf, want, at, &got));
        POLKA_CHECK(got == want, POLKA_ERR_IO, "'%s' changed while it was scanned (%llu bytes)",
                    scan->path, (unsigned long long)scan->size);
        *newlines += count_ends(buf, got);
        at += got;
        POLKA_CALL(polka_stop_check("the data scan"));
    }
    return POLKA_OK;
}

polka_status polka_scan_count_lines(polka_scan *scan, size_t first, size_t last,
                                    uint64_t *newlines) {
    for (size_t k = first; k < last; k++) newlines[k - first] = 0;
    if (first >= last || scan->options.format == POLKA_FORMAT_IDX) return POLKA_OK;
    POLKA_CHECK(scan->plain, POLKA_ERR_ARG, "'%s' is gzipped: its chunks cannot be scanned apart",
                scan->path);
    int fd = -1;
    uint64_t size = 0;
    POLKA_CALL(dataio_fd_open(scan->path, &fd, &size));
    char *buf = malloc(1u << 20);
    polka_status status = buf ? POLKA_OK : polka_error_set(POLKA_ERR_MEM, "out of memory");
    if (status == POLKA_OK && size != scan->size)
        status = polka_error_set(POLKA_ERR_IO, "'%s' changed while it was scanned", scan->path);
    for (size_t k = first; status == POLKA_OK && k < last; k++)
        status = count_chunk(scan, fd, buf, k, &newlines[k - first]);
    free(buf);
    close(fd);
    return status;
}

/* The piece of the pass: its head, the parts, then the rows' labels, offsets and bare lines. */
static polka_status make_piece(polka_scan *scan, size_t first) {
    dataio_stats *s = &scan->stats;
    uint64_t flags = (s->regression ? 0 : FLAG_LABELS) | (s->offsets ? FLAG_OFFSETS : 0);
    size_t words = PIECE_HEAD + s->part_words + (flags & FLAG_LABELS ? s->rows : 0) +
                   (flags & FLAG_OFFSETS ? s->rows + s->bares : 0);
    scan->piece = malloc(words * sizeof *scan->piece);
    POLKA_CHECK(scan->piece, POLKA_ERR_MEM, "out of memory for the scan of %zu samples", s->rows);
    uint64_t head[PIECE_HEAD] = {PIECE_MAGIC, first, s->parts,      s->rows,
                                 s->bares,    flags, s->part_words, 0};
    uint64_t *w = scan->piece;
    memcpy(w, head, sizeof head);
    w += PIECE_HEAD;
    if (s->part_words) memcpy(w, s->part, s->part_words * sizeof *w);
    w += s->part_words;
    for (size_t i = 0; flags & FLAG_LABELS && i < s->rows; i++) *w++ = bits_of(s->labels[i]);
    if (flags & FLAG_OFFSETS && s->rows) memcpy(w, s->offset, s->rows * sizeof *w);
    if (flags & FLAG_OFFSETS && s->bares) memcpy(w + s->rows, s->bare, s->bares * sizeof *w);
    scan->piece_words = words;
    return POLKA_OK;
}

polka_status polka_scan_run(polka_scan *scan, size_t first, size_t last) {
    dataio_stats *s = &scan->stats;
    uint64_t chunk = scan->options.scan_chunk;
    POLKA_CHECK(scan->piece == NULL && first <= last && last <= scan->chunks, POLKA_ERR_ARG,
                "'%s': a scan runs once, over chunks in order", scan->path);
    POLKA_CHECK(first == 0 || scan->plain, POLKA_ERR_ARG,
                "'%s': its chunks cannot be scanned apart", scan->path);
    s->range_begin = (uint64_t)first * chunk;
    s->range_end = last < scan->chunks ? (uint64_t)last * chunk : 0;
    s->range_empty = first == last;
    s->chunk_end = s->range_begin + chunk;
    dataio_pass pass = {.stats = s};
    POLKA_CALL(dataio_run_pass(scan->path, &scan->options, &pass));
    POLKA_CALL(emit(s));
    return make_piece(scan, first);
}

polka_status polka_scan_locate(const polka_scan *scan, size_t first, const uint64_t *newlines,
                               polka_status status) {
    const char *message = polka_error_message(), *path = scan->path;
    size_t len = strlen(path);
    if (status == POLKA_OK || !scan->stats.lines_local || strncmp(message, path, len) != 0 ||
        message[len] != ':')
        return status;
    char *end = NULL;
    unsigned long long line = strtoull(message + len + 1, &end, 10);
    if (end == message + len + 1 || *end != ':') return status;
    uint64_t before = scan->stats.line_skipped ? 1 : 0; /* the line ends before the piece */
    for (size_t k = 0; k < first; k++) before += newlines[k];
    char rest[1024];
    snprintf(rest, sizeof rest, "%s", end);
    return polka_error_set(status, "%s:%llu%s", path, line + (unsigned long long)before, rest);
}

const uint64_t *polka_scan_piece(const polka_scan *scan, size_t *words) {
    *words = scan->piece_words;
    return scan->piece;
}

void polka_scan_free(polka_scan *scan) {
    if (scan == NULL) return;
    dataio_stats_free(&scan->stats);
    free(scan->piece);
    free(scan->path);
    free(scan);
}

/* ---- the fold ----------------------------------------------------------------------------- */

/* Adds chunk B's sums of one feature (count b, shifted by its own first value) to the sums at
 * `at` (count a, shifted by theirs): with δ = shift_B − shift_A, Σ_B (x − shift_A) = s1_B + b·δ
 * and Σ_B (x − shift_A)² = s2_B + δ·(2·s1_B + b·δ) (Chan, Golub and LeVeque's update). */
static void fold_entry(dataio_stats *acc, size_t at, size_t a, const uint64_t *e, size_t b) {
    if (b == 0) return;
    double shift = double_of(e[2]), s1 = double_of(e[3]), s2 = double_of(e[4]);
    if (a == 0) {
        acc->shift[at] = shift;
        acc->s1[at] = s1;
        acc->s2[at] = s2;
    } else {
        double delta = shift - acc->shift[at];
        acc->s1[at] += s1 + (double)b * delta;
        acc->s2[at] += s2 + delta * (2.0 * s1 + (double)b * delta);
    }
    double lo = double_of(e[5]), hi = double_of(e[6]); /* an earlier chunk's wins a tie, */
    if (lo < acc->min[at]) acc->min[at] = lo;          /* as the scan's first value did */
    if (hi > acc->max[at]) acc->max[at] = hi;
}

static polka_status fold_part(dataio_stats *acc, const uint64_t *w) {
    size_t n = w[0], dense_rows = w[1], p = w[2], entries = w[4];
    int sparse = w[5] != 0;
    if (sparse) {
        acc->sparse = 1;
        if (p > acc->p) POLKA_CALL(dataio_stats_fit(acc, p));
        if (p > acc->p) acc->p = p;
    } else if (acc->capacity < p) {
        POLKA_CALL(dataio_stats_fit(acc, p));
        POLKA_CALL(dataio_stats_reserve(acc, p));
        acc->p = p;
    }
    const uint64_t *e = w + PART_HEAD;
    for (size_t k = 0; k < entries; k++, e += ENTRY_WORDS) {
        size_t at = e[0];
        if (sparse) POLKA_CALL(dataio_stats_slot(acc, e[0], &at));
        fold_entry(acc, at, acc->count[at] + acc->dense_rows, e, e[1] + dense_rows);
        acc->count[at] += e[1];
    }
    acc->dense_rows += dense_rows;
    acc->n += n;
    acc->values += double_of(w[3]);
    return POLKA_OK;
}

/* The rows, bare lines and offsets of the pieces (*offsets: every piece has them), checking
 * that each piece is whole. */
static polka_status piece_totals(const polka_scan *scan, const uint64_t *w, size_t words,
                                 size_t *rows, size_t *bares, int *offsets) {
    *rows = *bares = 0;
    *offsets = 1;
    for (size_t at = 0; at < words;) {
        const uint64_t *h = w + at;
        size_t size = 0;
        int whole = words - at >= PIECE_HEAD && h[0] == PIECE_MAGIC;
        if (whole)
            size = PIECE_HEAD + h[6] + (h[5] & FLAG_LABELS ? h[3] : 0) +
                   (h[5] & FLAG_OFFSETS ? h[3] + h[4] : 0);
        POLKA_CHECK(whole && size <= words - at, POLKA_ERR_ARG,
                    "'%s': the scan's pieces are damaged (word %zu of %zu)", scan->path, at, words);
        *rows += h[3];
        *bares += h[4];
        *offsets &= (h[5] & FLAG_OFFSETS) != 0;
        at += size;
    }
    return POLKA_OK;
}

static polka_status fold_piece(dataio_stats *acc, const uint64_t *h, int offsets) {
    size_t parts = h[2], rows = h[3], bares = h[4], base = acc->rows;
    const uint64_t *w = h + PIECE_HEAD;
    for (size_t k = 0; k < parts; k++) {
        POLKA_CALL(fold_part(acc, w));
        w += PART_HEAD + w[4] * ENTRY_WORDS;
    }
    if (h[5] & FLAG_LABELS)
        for (size_t i = 0; i < rows; i++) acc->labels[base + i] = double_of(*w++);
    if (offsets) {
        memcpy(acc->offset + base, w, rows * sizeof *w);
        for (size_t b = 0; b < bares; b++) acc->bare[acc->bares++] = w[rows + b] + base;
    }
    acc->rows += rows;
    return POLKA_OK;
}

static size_t piece_size(const uint64_t *h) {
    return PIECE_HEAD + h[6] + (h[5] & FLAG_LABELS ? h[3] : 0) +
           (h[5] & FLAG_OFFSETS ? h[3] + h[4] : 0);
}

/* The folded statistics of the pieces, with room for their rows' labels and offsets. */
static polka_status fold_pieces(const polka_scan *scan, const uint64_t *pieces, size_t words,
                                dataio_stats *acc) {
    size_t rows = 0, bares = 0;
    int offsets = 0;
    POLKA_CALL(piece_totals(scan, pieces, words, &rows, &bares, &offsets));
    offsets &= acc->offsets;
    acc->offsets = offsets;
    double bytes = 8.0 * (double)(rows > bares ? rows : bares); /* as the scan's own check */
    POLKA_CHECK(!offsets || bytes <= (double)acc->memory_limit, POLKA_ERR_MEM,
                "%s: the line offsets of %zu samples take %s, over the memory limit of %s%s",
                scan->path, rows, dataio_size_text(bytes),
                dataio_size_text((double)acc->memory_limit),
                dataio_memory_origin(acc->memory_limit));
    if (!acc->regression) POLKA_CALL(dataio_grow((void **)&acc->labels, rows, sizeof(double)));
    if (offsets) {
        POLKA_CALL(dataio_grow((void **)&acc->offset, rows, sizeof(uint64_t)));
        POLKA_CALL(dataio_grow((void **)&acc->bare, bares, sizeof(uint64_t)));
    }
    for (size_t at = 0; at < words; at += piece_size(pieces + at)) {
        polka_status status = fold_piece(acc, pieces + at, offsets);
        if (status != POLKA_OK)
            return polka_error_set(status, "%s: %s", scan->path, polka_error_message());
    }
    POLKA_CHECK(acc->n == acc->rows, POLKA_ERR_ARG, "'%s': the scan's pieces are damaged",
                scan->path);
    return POLKA_OK;
}

polka_status polka_scan_finish(polka_scan *scan, const uint64_t *pieces, size_t words,
                               polka_data_info *info) {
    *info = (polka_data_info){0};
    const dataio_stats *own = &scan->stats;
    dataio_stats acc = {.regression = own->regression,
                        .memory_limit = own->memory_limit,
                        .dense_storage = own->dense_storage,
                        .feature_bytes = own->feature_bytes,
                        .row_classes = own->row_classes,
                        .offsets = own->offsets,
                        .columns = own->columns};
    polka_status status = fold_pieces(scan, pieces, words, &acc);
    const char *path = scan->path;
    if (status == POLKA_OK && own->column_names)
        status = dataio_names_copy(own->column_names, own->columns, &acc.column_names);
    if (status == POLKA_OK && !acc.sparse && acc.p == 0) acc.p = own->p; /* a dense header's */
    if (status == POLKA_OK && acc.n == 0) status = dataio_no_samples(path);
    if (status == POLKA_OK && acc.p == 0)
        status = polka_error_set(POLKA_ERR_FORMAT, "%s: no features in the file", path);
    if (status == POLKA_OK) status = dataio_stats_check_density(&acc, path);
    if (status == POLKA_OK) status = dataio_stats_finish(&acc, path, info);
    info->values = (size_t)acc.values;
    info->format = scan->options.format;
    dataio_stats_free(&acc);
    if (status != POLKA_OK) polka_data_info_free(info);
    return status;
}

polka_status polka_data_scan(const char *path, const polka_read_options *options,
                             polka_data_info *info) {
    *info = (polka_data_info){0};
    polka_scan *scan = NULL;
    POLKA_CALL(polka_scan_open(path, options, &scan));
    polka_status status = polka_scan_run(scan, 0, scan->chunks);
    if (status == POLKA_OK) status = polka_scan_finish(scan, scan->piece, scan->piece_words, info);
    polka_scan_free(scan);
    return status;
}
