/* Private to the data file readers (dataio*.c, read_idx.c, read_libsvm.c, read_csv.c). */
#ifndef POLKA_DATAIO_IMPL_H
#define POLKA_DATAIO_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include <zlib.h>

#include "polka/dataio.h"

/* What a scan accumulates. Per feature j: the values added one by one (count[j] of them,
 * sparse files) or dense_rows whole rows, as sums of d = x − shift[j] and d² (shift[j] is
 * the first value seen, which keeps the variance accurate); absent values are zeros. A sparse
 * scan keeps them per slot, one for each feature that occurs (dataio_slots.c): the arrays are
 * indexed by dataio_stats_find(stats, j). */
typedef struct {
    size_t n;          /* samples */
    size_t p;          /* 1 + the largest feature index seen */
    size_t capacity;   /* of the per-feature arrays */
    size_t dense_rows; /* rows added with dataio_stats_add_row */
    size_t *count;
    double *shift, *s1, *s2, *min, *max;
    int regression;
    double *labels; /* every label (classification), sorted and made unique at the end */
    size_t label_capacity;
    size_t columns;       /* CSV: the header's columns */
    char **column_names;  /* CSV: a copy of the header's names (dataio_names_copy) */
    size_t memory_limit;  /* bytes the statistics may take (dataio_memory_limit) */
    double values;        /* the values the sparse samples listed (for the sparsity rule) */
    int dense_storage;    /* 1: the samples will be stored dense (the sparsity rule applies) */
    size_t feature_bytes; /* the caller's bytes per feature (polka_read_options) */
    int row_classes;      /* 1: record every sample's class in the info (polka_read_options) */
    int sparse;           /* 1: values added one by one, per slot (dataio_stats_add_sparse) */
    size_t slots;         /* sparse: the features that occurred */
    size_t *table_key,
        *table_slot; /* sparse: feature → slot, 2^table_bits cells (SIZE_MAX: empty) */
    unsigned table_bits;
    int offsets;      /* 1: record where each sample starts (sample_offsets), while */
    uint64_t *offset; /* the file is plain: n offsets */
    uint64_t *bare;   /* the samples before each line without one */
    size_t offset_capacity, bares, bare_capacity;
    /* Chunks (polka/dataio.h, Chunks; dataio_chunks.c): n, p, values and the per-feature sums
     * are the current chunk's; labels, offsets and bare lines run over the piece (rows). */
    size_t rows;          /* samples of the piece so far */
    uint64_t chunk_bytes; /* the chunks' size */
    uint64_t chunk_end;   /* where the current chunk ends */
    uint64_t range_begin; /* the piece: the samples from the first line start >= range_begin */
    uint64_t range_end;   /* that start before range_end (0: to the end of the file) */
    int lines_local;      /* 1: the piece's lines are numbered from 1 at its first line */
    int line_skipped;     /* 1: that line is after the end of one begun before range_begin */
    int range_empty;      /* 1: the piece has no chunk (the pass reads a CSV header only) */
    uint64_t *part;       /* the chunks done: a header and the entries of each */
    size_t part_words, part_capacity, parts;
} dataio_stats;

struct dataio_pass_s;

/* options with the defaults filled in and the format resolved. */
polka_status dataio_resolve_options(const char *path, const polka_read_options *options,
                                    polka_read_options *resolved);

/* One pass of options->format's reader over path. */
polka_status dataio_run_pass(const char *path, const polka_read_options *options,
                             struct dataio_pass_s *pass);

/* POLKA_ERR_FORMAT: a file without a single sample (empty, or only blank and comment lines). */
polka_status dataio_no_samples(const char *path);

/* Frees the arrays of stats and zeroes it. */
void dataio_stats_free(dataio_stats *stats);

/* Closes the chunks that end at or before offset, where a sample starts (a scan's samples are
 * summed per chunk); POLKA_ERR_MEM without a location. */
polka_status dataio_chunk_at(dataio_stats *stats, uint64_t offset);

/* The slot of feature j of a sparse scan, a new one (empty sums) when j is new; POLKA_ERR_MEM
 * (no location) over the memory limit. */
polka_status dataio_stats_slot(dataio_stats *stats, size_t j, size_t *slot);

/* The index of feature j's sums: its slot (SIZE_MAX: it never occurred) or, dense, j. */
size_t dataio_stats_find(const dataio_stats *stats, size_t j);

/* The features of a sparse scan that occurred (stats->slots of them), increasing, in an array
 * allocated here; POLKA_ERR_MEM without a location. */
polka_status dataio_stats_features(const dataio_stats *stats, uint32_t **features);

/* Turns the statistics of a scanned file (path) into info: its size, the per-feature entries
 * (sparse scan: one per feature that occurred) and the label map. */
polka_status dataio_stats_finish(dataio_stats *stats, const char *path, polka_data_info *info);

/* 1 and *entry = the entry of feature j in info's statistics, or 0 when j has none (*entry is
 * then where it would be). Searches from entry `from` on (0, or where the last feature of a
 * walk by increasing features was): O(1) when j is there, else O(log features). */
int dataio_info_entry(const polka_data_info *info, size_t j, size_t from, size_t *entry);

/* shift and factor of the scaling of kind for statistics f (a feature without an entry: zeros):
 * scaled x = (x − shift)·factor. */
void dataio_terms_of(polka_feature_stats f, polka_scale_kind kind, double *shift, double *factor);

/* Frees the sparse table. */
void dataio_stats_free_table(dataio_stats *stats);

/* The class of every scanned sample into info->row_class, from the labels in file order
 * (stats->labels) and the label map (info->labels); POLKA_ERR_MEM over the memory limit. */
polka_status dataio_row_classes(const dataio_stats *stats, polka_data_info *info);

/* 1 and *c = the class index of label in info->labels (increasing), or 0 when it is none. */
int dataio_label_class(const polka_data_info *info, double label, size_t *c);

/* The memory limit of options: its memory_limit, or the process's share of its node's available
 * memory (polka_data_memory_share). */
size_t dataio_memory_limit(const polka_read_options *options);

/* What an automatic limit came from, as " (data.memory = auto: ...)", or "" for another limit:
 * appended to the messages that name the limit. */
const char *dataio_memory_origin(size_t limit);

/* A size in a message: "N bytes" under 0.1 MB (a data.memory of a few bytes is not "0.0 MB"),
 * else "X.X MB". The text lives until the fourth call after. */
const char *dataio_size_text(double bytes);

/* POLKA_ERR_MEM when the statistics of p features (and the info made of them) do not fit the
 * memory limit; the message has no location (the caller adds it). */
polka_status dataio_stats_fit(const dataio_stats *stats, size_t p);

/* Counts nnz listed values and makes room for features 0..p−1 of a sparse sample (number
 * stats->n + 1), after the sparsity rule and the memory limit; errors have no location. */
polka_status dataio_stats_grow_sparse(dataio_stats *stats, size_t p, size_t nnz);

/* The sparsity rule over the whole of a scanned file (POLKA_ERR_FORMAT "PATH: ..."). */
polka_status dataio_stats_check_density(const dataio_stats *stats, const char *path);

/* 1 when ‖x‖² of the count values is finite (what the kernels compute). */
int dataio_norm_finite(const double *x, size_t count);

/* A copy of count names in one allocation (the pointers, then the strings), so that one
 * free() releases it; POLKA_ERR_MEM without a location. */
polka_status dataio_names_copy(char *const *names, size_t count, char ***copy);

/* Makes room for features 0..p−1 (new ones empty); POLKA_ERR_MEM without a location. */
polka_status dataio_stats_reserve(dataio_stats *stats, size_t p);

/* A scan of a dense format (CSV, IDX): statistics for p features and a row buffer for them. */
polka_status dataio_stats_begin_dense(dataio_stats *stats, size_t p, double **row);

/* Adds nnz values of a sparse sample at increasing 0-based feature indices (before its
 * label); POLKA_ERR_FORMAT (the sparsity rule of polka/dataio.h) or POLKA_ERR_MEM without a
 * location when its last index would make the data too large. */
polka_status dataio_stats_add_sparse(dataio_stats *stats, const size_t *index, const double *value,
                                     size_t nnz);

/* Adds a dense row of stats->p values (the caller reserved them). */
void dataio_stats_add_row(dataio_stats *stats, const double *row);

/* Adds a sample's label (counts the sample). */
polka_status dataio_stats_add_label(dataio_stats *stats, double label);

/* The samples kept by a read, grown as they come (dataio_rows.c): dense rows (x), or sparse
 * ones (value, feature, start) when sparse is set. */
typedef struct {
    size_t n, capacity, p;
    size_t memory_limit; /* bytes the rows may take (dataio_memory_limit) */
    double *x, *y;
    uint64_t *index; /* file index of each kept sample */
    int sparse;
    double *value;     /* sparse: the listed values */
    uint32_t *feature; /* sparse: their 0-based features */
    size_t *start;     /* sparse: capacity + 1 offsets into value */
    size_t nnz, nnz_capacity;
} dataio_rows;

/* Appends a sample: *row receives its p values to fill (not initialised). POLKA_ERR_MEM
 * without a location when the rows would exceed their memory limit. */
polka_status dataio_rows_push(dataio_rows *rows, uint64_t index, double target, double **row);

/* Appends a sample of rows->sparse storage: nnz values at increasing 0-based features (each
 * < rows->p). POLKA_ERR_MEM without a location when the rows would exceed their limit. */
polka_status dataio_rows_push_sparse(dataio_rows *rows, uint64_t index, double target,
                                     const size_t *feature, const double *value, size_t nnz);

/* The row arrays' capacity for cap samples (x only for dense rows, start for sparse ones); cap 0:
 * arrays of one element (a read that kept nothing). */
polka_status dataio_rows_grow(dataio_rows *rows, size_t cap);

/* Hands sparse rows over to out->sparse, trimmed to size (on failure out->sparse stays NULL
 * and the rows are the caller's to free). */
polka_status dataio_rows_finish_sparse(dataio_rows *rows, polka_dataset *out);

/* array cut down to size bytes (left as it is when realloc fails). */
void *dataio_shrink(void *array, size_t size);

/* *array reallocated for count (at least 1) elements of size bytes; POLKA_ERR_MEM without a
 * location. */
polka_status dataio_grow(void **array, size_t count, size_t size);

/* Frees the arrays of rows and zeroes it. */
void dataio_rows_free(dataio_rows *rows);

/* Scales sparse data with info (polka_data_scale for sparse storage). */
polka_status dataio_scale_sparse(polka_dataset *data, const polka_data_info *info,
                                 polka_scale_kind kind);

/* shift and factor of feature j for kind (UNIT or STANDARD): scaled x = (x − shift)·factor. */
void dataio_scale_terms(const polka_data_info *info, polka_scale_kind kind, size_t j, double *shift,
                        double *factor);

/* The error for scaled sample i (from 0) whose ‖x‖² is not finite: feature j (from 0) is the
 * first whose value x_j is not finite or not below 1e150 (else the last). */
polka_status dataio_scale_error(const polka_data_info *info, polka_scale_kind kind, size_t i,
                                size_t j, double x_j);

/* 1 when a scaled value is the one dataio_scale_error names: not finite, or 1e150 or more in
 * magnitude. */
int dataio_scaled_too_large(double x);

/* One pass over a file: a scan (stats set) or a read (info and rows set). */
typedef struct dataio_pass_s {
    dataio_stats *stats;
    const polka_data_info *info;
    polka_keep_fn keep;
    void *context;
    dataio_rows *rows;
    uint64_t samples; /* set by the reader at the end: the samples in the file, kept or not */
} dataio_pass;

/* 1 when the pass wants sample index (a scan wants all). */
int dataio_pass_wants(const dataio_pass *pass, uint64_t index);

/* The target of a label in a read: its class index, or the value itself for regression.
 * Returns 0 when the label is not a class of info. */
int dataio_pass_target(const dataio_pass *pass, double label, double *target);

/* The format readers. options are resolved (format and label_column set). */
polka_status dataio_idx_pass(const char *path, const polka_read_options *options,
                             dataio_pass *pass);
polka_status dataio_libsvm_pass(const char *path, const polka_read_options *options,
                                dataio_pass *pass);
polka_status dataio_csv_pass(const char *path, const polka_read_options *options,
                             dataio_pass *pass);

/* POLKA_ERR_FORMAT "PATH:LINE: detail". */
polka_status dataio_line_error(const char *path, size_t line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* status with "PATH:LINE: " put before the current message (POLKA_OK unchanged). */
polka_status dataio_located(polka_status status, const char *path, size_t line);

/* POLKA_ERR_FORMAT "PATH:LINE: ..." when ‖x‖² of the count values is not finite. */
polka_status dataio_check_norm(const double *x, size_t count, const char *path, size_t line);

/* Opens a data file (gzip or plain) with zlib; POLKA_ERR_IO naming it when it cannot. */
polka_status dataio_gzopen(const char *path, gzFile *file);

/* A text file read line by line (gzip or plain), lines of any length. */
typedef struct {
    gzFile file;
    const char *path;
    char *buf;
    size_t capacity;
    size_t line; /* the number of the line in buf, from 1 */
} dataio_text;

polka_status dataio_text_open(dataio_text *text, const char *path);
void dataio_text_close(dataio_text *text);

/* Reads the next line into text->buf, without its end of line and trailing blanks (*len
 * characters, NUL-terminated); *got is 0 at the end of the file. */
polka_status dataio_text_next(dataio_text *text, size_t *len, int *got);

/* Where a line's sample starts, or NULL when the line holds none (blank, comment). */
typedef const char *(*dataio_sample_start_fn)(const char *line, size_t len);

/* Parses the sample that starts at sample, number index of the file, for pass. */
typedef polka_status (*dataio_sample_fn)(void *reader, const char *sample, dataio_pass *pass,
                                         uint64_t index);

/* Reads the rest of text: numbers the samples in file order, hands those the pass wants to
 * sample(reader, ...), and sets pass->samples to how many the file has. */
polka_status dataio_text_samples(dataio_text *text, dataio_pass *pass, dataio_sample_start_fn start,
                                 dataio_sample_fn sample, void *reader);

/* ---- partial reads (dataio_seek.c; polka/dataio.h, Partial reads) ---- */

/* Records, in a scan that asked for them, the start of a line about to be read: the offset of
 * sample `index` when is_sample, else a line without a sample before it. Stops recording
 * (without an error) when the file is gzipped. */
polka_status dataio_offsets_note(dataio_stats *stats, gzFile file, uint64_t offset, int is_sample,
                                 uint64_t index);

/* 1 when a read pass can seek to the samples of path it keeps: a keep function and the info of
 * this very file (its path) with sample offsets. */
int dataio_pass_seeks(const dataio_pass *pass, const char *path);

/* The read pass of a text file by its sample offsets: each kept sample's line into text->buf
 * (trimmed as dataio_text_next trims it, text->line its number), handed to sample(). */
polka_status dataio_text_seek_samples(dataio_text *text, dataio_pass *pass,
                                      dataio_sample_start_fn start, dataio_sample_fn sample,
                                      void *reader);

/* keep's answer for each of n samples (called once each, in order), in an array of n flags
 * allocated here. */
polka_status dataio_kept_flags(const dataio_pass *pass, size_t n, unsigned char **kept);

/* A plain file opened for pread (fd), with its size; POLKA_ERR_IO naming it. */
polka_status dataio_fd_open(const char *path, int *fd, uint64_t *size);

/* Reads bytes bytes at offset (fewer only at the end of the file: *got). */
polka_status dataio_pread(int fd, const char *path, void *buf, size_t bytes, uint64_t offset,
                          size_t *got);

/* The result of a failed gzread/gzgets: POLKA_ERR_IO (system) or POLKA_ERR_FORMAT (gzip). */
polka_status dataio_gz_error(gzFile file, const char *path);

/* strtod, faster for the usual short decimals (the same value: correctly rounded). */
double dataio_strtod(const char *s, char **end);

static inline int dataio_is_blank(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' || c == '\n';
}

#endif
