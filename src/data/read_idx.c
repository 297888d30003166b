/* IDX files, the MNIST family: an images file and a labels file (described in polka/dataio.h). */
#include "data/dataio_impl.h"
#include "polka/stop.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* IDX_GAP_BYTES: a partial read reads through shorter gaps between kept records (see
 * dataio_seek.c). */
enum { IDX_MAX_DIMS = 255, IDX_BLOCK_BYTES = 1 << 20, IDX_GAP_BYTES = 1 << 16 };

/* One IDX file and what its header says. */
typedef struct {
    gzFile file;
    const char *path;
    uint64_t header; /* header bytes: 4 + 4·dims */
    size_t n, p;     /* records, bytes per record */
    char shape[64];  /* the record shape, "28x28" */
} idx_file;

typedef struct {
    idx_file images, labels;
    unsigned char *label_bytes; /* n labels */
    unsigned char *block;       /* records read at once */
    size_t label_capacity, block_capacity;
    double *row; /* scan: a record as doubles */
} idx_reader;

/* POLKA_ERR_FORMAT "PATH: byte offset B: detail". */
static polka_status idx_error(const idx_file *f, uint64_t offset, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static polka_status idx_error(const idx_file *f, uint64_t offset, const char *fmt, ...) {
    char detail[768];
    va_list args;
    va_start(args, fmt);
    vsnprintf(detail, sizeof detail, fmt, args);
    va_end(args);
    return polka_error_set(POLKA_ERR_FORMAT, "%s: byte offset %llu: %s", f->path,
                           (unsigned long long)offset, detail);
}

static polka_status idx_open(idx_file *f, const char *path) {
    *f = (idx_file){.path = path};
    return dataio_gzopen(path, &f->file);
}

static void idx_close(idx_file *f) {
    if (f->file) gzclose(f->file);
    f->file = NULL;
}

/* Reads up to bytes bytes; *got < bytes only at the end of the file. */
static polka_status idx_read(idx_file *f, void *buf, size_t bytes, size_t *got) {
    *got = 0;
    while (*got < bytes) {
        size_t want = bytes - *got;
        if (want > (size_t)1 << 30) want = (size_t)1 << 30;
        int n = gzread(f->file, (unsigned char *)buf + *got, (unsigned)want);
        if (n < 0) return dataio_gz_error(f->file, f->path);
        if (n == 0) {
            int code = Z_OK;
            gzerror(f->file, &code);
            if (code != Z_OK) return dataio_gz_error(f->file, f->path);
            break;
        }
        *got += (size_t)n;
    }
    return POLKA_OK;
}

static uint32_t big_endian(const unsigned char *b) {
    return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | (uint32_t)b[3];
}

static const char *type_name(unsigned type) {
    switch (type) {
    case 0x08:
        return "unsigned byte";
    case 0x09:
        return "signed byte";
    case 0x0B:
        return "short";
    case 0x0C:
        return "int";
    case 0x0D:
        return "float";
    case 0x0E:
        return "double";
    }
    return "unknown";
}

/* Checks the magic number (labels: exactly 0x00000801) and returns the number of dims. */
static polka_status check_magic(idx_file *f, const unsigned char *magic, int labels,
                                unsigned *dims) {
    uint32_t value = big_endian(magic);
    const char *expected = labels ? "0x00000801 for an IDX labels file"
                                  : "0x00000803 or 0x000008NN for an IDX images file";
    if (magic[0] != 0 || magic[1] != 0 || magic[3] == 0)
        return idx_error(f, 0, "bad magic number 0x%08x (expected %s)", (unsigned)value, expected);
    if (magic[2] != 0x08)
        return idx_error(f, 2, "unsupported IDX data type 0x%02x (%s): only 0x08 (unsigned byte)",
                         magic[2], type_name(magic[2]));
    if (labels && magic[3] != 1)
        return idx_error(f, 0, "bad magic number 0x%08x (expected %s)", (unsigned)value, expected);
    *dims = magic[3];
    return POLKA_OK;
}

/* Sets n, p and the shape from the dims. */
static polka_status set_shape(idx_file *f, const unsigned char *bytes, unsigned dims) {
    f->n = big_endian(bytes);
    f->p = 1;
    size_t used = 0;
    for (unsigned k = 1; k < dims; k++) {
        size_t d = big_endian(bytes + 4 * k);
        if (d == 0) return idx_error(f, 4 + 4 * (uint64_t)k, "dimension %u is 0", k + 1);
        if (f->p > SIZE_MAX / d)
            return idx_error(f, 4 + 4 * (uint64_t)k, "records too large (dimension %u)", k + 1);
        f->p *= d;
        if (used + 24 < sizeof f->shape)
            used += (size_t)snprintf(f->shape + used, sizeof f->shape - used, "%s%zu",
                                     k > 1 ? "x" : "", d);
    }
    if (dims == 1) snprintf(f->shape, sizeof f->shape, "1");
    if (f->p > POLKA_DATAIO_MAX_FEATURES)
        return idx_error(f, 8, "records of %zu values (%s), above the limit of %zu values", f->p,
                         f->shape, POLKA_DATAIO_MAX_FEATURES);
    return POLKA_OK;
}

/* A plain (not gzipped) file must hold what its header announces (data after the records is
 * check_end's, once they were read). */
static polka_status check_size(idx_file *f) {
    struct stat st;
    if (!gzdirect(f->file) || stat(f->path, &st) != 0 || !S_ISREG(st.st_mode)) return POLKA_OK;
    uint64_t data = (uint64_t)st.st_size - f->header, announced = (uint64_t)f->n * f->p;
    if (data >= announced) return POLKA_OK;
    return idx_error(f, f->header,
                     "truncated: the header announces %zu records of %zu bytes (%llu bytes), but "
                     "the file has %llu bytes after the header",
                     f->n, f->p, (unsigned long long)announced, (unsigned long long)data);
}

/* Reads up to bytes bytes into *buf, grown as the data come (never more than twice what
 * was read, plus one block): a header announcing more than the file holds costs no memory.
 * *got < bytes only at the end of the file. */
static polka_status idx_read_grow(idx_file *f, unsigned char **buf, size_t *capacity, size_t bytes,
                                  size_t *got) {
    *got = 0;
    while (*got < bytes) {
        size_t want = bytes - *got < IDX_BLOCK_BYTES ? bytes - *got : IDX_BLOCK_BYTES;
        if (*capacity < *got + want) {
            size_t cap = *capacity < bytes / 2 ? 2 * *capacity : bytes;
            if (cap < *got + want) cap = *got + want;
            unsigned char *grown = realloc(*buf, cap);
            POLKA_CHECK_ALLOC(grown);
            *buf = grown;
            *capacity = cap;
        }
        size_t n = 0;
        POLKA_CALL(idx_read(f, *buf + *got, want, &n));
        *got += n;
        if (n < want) break;
    }
    return POLKA_OK;
}

static polka_status read_header(idx_file *f, int labels) {
    unsigned char bytes[4 * (IDX_MAX_DIMS + 1)];
    size_t got = 0;
    POLKA_CALL(idx_read(f, bytes, 4, &got));
    if (got < 4) return idx_error(f, got, "file too short for an IDX header (%zu bytes)", got);
    unsigned dims = 0;
    POLKA_CALL(check_magic(f, bytes, labels, &dims));
    POLKA_CALL(idx_read(f, bytes, 4 * (size_t)dims, &got));
    if (got < 4 * (size_t)dims)
        return idx_error(f, 4 + got, "truncated header (%u dimensions announced)", dims);
    f->header = 4 + 4 * (uint64_t)dims;
    POLKA_CALL(set_shape(f, bytes, dims));
    return check_size(f);
}

/* Fails unless the file ends after the header and its records. */
static polka_status check_end(idx_file *f) {
    unsigned char byte = 0;
    size_t got = 0;
    POLKA_CALL(idx_read(f, &byte, 1, &got));
    if (got > 0)
        return idx_error(f, f->header + (uint64_t)f->n * f->p,
                         "data after the %zu records the header announces", f->n);
    return POLKA_OK;
}

static polka_status read_labels(idx_reader *r, const char *path) {
    idx_file *f = &r->labels;
    POLKA_CALL(idx_open(f, path));
    POLKA_CALL(read_header(f, 1));
    if (f->n != r->images.n)
        return idx_error(f, 4, "%zu labels, but the images file '%s' has %zu records", f->n,
                         r->images.path, r->images.n);
    size_t got = 0;
    POLKA_CALL(idx_read_grow(f, &r->label_bytes, &r->label_capacity, f->n, &got));
    if (got < f->n)
        return idx_error(f, f->header + got,
                         "truncated at label %zu: the header announces %zu labels", got, f->n);
    return check_end(f);
}

/* The error for a label that is not a class of the training data. */
static polka_status label_error(const idx_reader *r, size_t i, const dataio_pass *pass) {
    return polka_error_set(POLKA_ERR_FORMAT,
                           "%s: record %zu (byte offset %llu): label %u is not one of the %zu "
                           "classes of the training data",
                           r->labels.path, i, (unsigned long long)(r->labels.header + i),
                           r->label_bytes[i], pass->info->classes);
}

/* Keeps record i of a read. */
static polka_status keep_record(idx_reader *r, dataio_pass *pass, size_t i,
                                const unsigned char *record) {
    size_t p = r->images.p;
    double label = r->label_bytes[i];
    double target = 0.0;
    if (!dataio_pass_target(pass, label, &target)) return label_error(r, i, pass);
    double *row = NULL;
    polka_status status = dataio_rows_push(pass->rows, i, target, &row);
    if (status != POLKA_OK)
        return polka_error_set(status, "%s: record %zu: %s", r->images.path, i,
                               polka_error_message());
    for (size_t j = 0; j < p; j++) row[j] = record[j];
    return POLKA_OK;
}

static polka_status take_record(idx_reader *r, dataio_pass *pass, size_t i,
                                const unsigned char *record) {
    if (pass->stats) {
        for (size_t j = 0; j < r->images.p; j++) r->row[j] = record[j];
        dataio_stats_add_row(pass->stats, r->row);
        return dataio_stats_add_label(pass->stats, r->label_bytes[i]);
    }
    return dataio_pass_wants(pass, i) ? keep_record(r, pass, i, record) : POLKA_OK;
}

/* Sets the pass up for records of p values, once the first records were read: the scan's
 * statistics are sized by data seen, not by the header alone. */
static polka_status start_pass(idx_reader *r, dataio_pass *pass) {
    if (pass->stats == NULL) return POLKA_OK;
    polka_status status = dataio_stats_begin_dense(pass->stats, r->images.p, &r->row);
    if (status != POLKA_OK)
        return polka_error_set(status, "%s: %s", r->images.path, polka_error_message());
    return POLKA_OK;
}

/* Records [first, end), read at their place in blocks; the kept ones are kept. */
static polka_status read_run(idx_reader *r, dataio_pass *pass, const unsigned char *kept, int fd,
                             size_t first, size_t end) {
    idx_file *f = &r->images;
    size_t p = f->p, per_block = IDX_BLOCK_BYTES / p ? IDX_BLOCK_BYTES / p : 1;
    for (; first < end; first += per_block) {
        size_t count = end - first < per_block ? end - first : per_block, got = 0;
        if (r->block_capacity < count * p) {
            unsigned char *grown = realloc(r->block, count * p);
            POLKA_CHECK_ALLOC(grown);
            r->block = grown;
            r->block_capacity = count * p;
        }
        POLKA_CALL(dataio_pread(fd, f->path, r->block, count * p, f->header + first * p, &got));
        if (got < count * p)
            return idx_error(f, f->header + (uint64_t)first * p + got,
                             "truncated in record %zu since it was read", first + got / p);
        POLKA_CALL(polka_stop_check("the data scan"));
        for (size_t k = 0; k < count; k++)
            if (kept[first + k]) POLKA_CALL(keep_record(r, pass, first + k, r->block + k * p));
    }
    return POLKA_OK;
}

/* The end of the records to read from kept record i on: its run of kept records and the next
 * ones after gaps of fewer than IDX_GAP_BYTES (read through, not sought over). */
static size_t run_end(const idx_file *f, const unsigned char *kept, size_t i) {
    for (;;) {
        while (i < f->n && kept[i]) i++;
        size_t next = i;
        while (next < f->n && !kept[next]) next++;
        if (next == f->n || (next - i) * f->p >= IDX_GAP_BYTES) return i;
        i = next;
    }
}

/* A read that keeps some records of a plain file reads only theirs (polka/dataio.h, Partial
 * reads); the file must end after the records its header announces. */
static polka_status seek_records(idx_reader *r, dataio_pass *pass, const unsigned char *kept,
                                 int fd, uint64_t size) {
    idx_file *f = &r->images;
    if (size > f->header + (uint64_t)f->n * f->p)
        return idx_error(f, f->header + (uint64_t)f->n * f->p,
                         "data after the %zu records the header announces", f->n);
    for (size_t i = 0; i < f->n;) {
        if (!kept[i]) {
            i++;
            continue;
        }
        size_t end = run_end(f, kept, i);
        POLKA_CALL(read_run(r, pass, kept, fd, i, end));
        i = end;
    }
    pass->samples = f->n;
    return POLKA_OK;
}

static polka_status read_records_seek(idx_reader *r, dataio_pass *pass) {
    int fd = -1;
    uint64_t size = 0;
    unsigned char *kept = NULL;
    polka_status status = dataio_fd_open(r->images.path, &fd, &size);
    if (status == POLKA_OK) status = dataio_kept_flags(pass, r->images.n, &kept);
    if (status == POLKA_OK) status = seek_records(r, pass, kept, fd, size);
    if (fd >= 0) close(fd);
    free(kept);
    return status;
}

/* The records of a scan's piece (polka/dataio.h, Chunks): those that start in its bytes;
 * the file is moved to the first. */
static polka_status scan_range(idx_reader *r, const dataio_stats *stats, size_t *first,
                               size_t *end) {
    idx_file *f = &r->images;
    uint64_t header = f->header, p = f->p;
    *first = 0, *end = f->n;
    if (stats->range_empty) *end = 0;
    if (stats->range_end)
        *end = stats->range_end <= header ? 0 : (size_t)((stats->range_end - header - 1) / p + 1);
    if (*end > f->n) *end = f->n;
    if (stats->range_begin > header) *first = (size_t)((stats->range_begin - header - 1) / p + 1);
    if (*first > *end) *first = *end;
    if (*first > 0 && gzseek(f->file, (z_off_t)(header + *first * p), SEEK_SET) < 0)
        return dataio_gz_error(f->file, f->path);
    return POLKA_OK;
}

/* Takes records [first, first + count) of the block just read. */
static polka_status take_block(idx_reader *r, dataio_pass *pass, size_t first, size_t count) {
    size_t p = r->images.p;
    for (size_t k = 0; k < count; k++) {
        if (pass->stats) /* a scan sums each chunk apart */
            POLKA_CALL(dataio_chunk_at(pass->stats, r->images.header + (first + k) * p));
        POLKA_CALL(take_record(r, pass, first + k, r->block + k * p));
    }
    return POLKA_OK;
}

static polka_status read_records(idx_reader *r, dataio_pass *pass) {
    idx_file *f = &r->images;
    if (pass->stats == NULL && pass->keep != NULL && gzdirect(f->file))
        return read_records_seek(r, pass);
    size_t begin = 0, end = f->n;
    if (pass->stats) POLKA_CALL(scan_range(r, pass->stats, &begin, &end));
    size_t p = f->p, per_block = IDX_BLOCK_BYTES / p ? IDX_BLOCK_BYTES / p : 1;
    if (per_block > end - begin) per_block = end > begin ? end - begin : 1;
    for (size_t first = begin; first < end; first += per_block) {
        size_t count = end - first < per_block ? end - first : per_block, got = 0;
        POLKA_CALL(idx_read_grow(f, &r->block, &r->block_capacity, count * p, &got));
        if (got < count * p)
            return idx_error(f, f->header + (uint64_t)first * p + got,
                             "truncated in record %zu: the header announces %zu records of %zu "
                             "bytes",
                             first + got / p, f->n, p);
        if (first == begin) POLKA_CALL(start_pass(r, pass));
        POLKA_CALL(polka_stop_check("the data scan"));
        POLKA_CALL(take_block(r, pass, first, count));
    }
    if (begin == end) POLKA_CALL(start_pass(r, pass));
    pass->samples = f->n;
    return end == f->n ? check_end(f) : POLKA_OK;
}

/* A read's records must have the training data's shape. */
static polka_status check_shape(idx_reader *r, const dataio_pass *pass) {
    size_t p = r->images.p;
    if (pass->stats == NULL && p != pass->info->p)
        return idx_error(&r->images, 4, "records of %zu values (%s), but the training data has %zu",
                         p, r->images.shape, pass->info->p);
    return POLKA_OK;
}

static polka_status read_files(idx_reader *r, const char *path, const char *labels_path,
                               dataio_pass *pass) {
    POLKA_CALL(idx_open(&r->images, path));
    if (pass->stats == NULL && pass->keep != NULL) /* a partial read: a header's bytes */
        gzbuffer(r->images.file, 4096);
    POLKA_CALL(read_header(&r->images, 0));
    POLKA_CALL(check_shape(r, pass));
    POLKA_CALL(read_labels(r, labels_path));
    return read_records(r, pass);
}

polka_status dataio_idx_pass(const char *path, const polka_read_options *options,
                             dataio_pass *pass) {
    idx_reader r = {0};
    polka_status status = read_files(&r, path, options->labels_path, pass);
    idx_close(&r.images);
    idx_close(&r.labels);
    free(r.label_bytes);
    free(r.block);
    free(r.row);
    return status;
}
