/**
 * @file dataio.h
 * @brief Reading users' data files: IDX (MNIST family), LIBSVM text and CSV. No MPI.
 *
 * Reading is two passes over a file. polka_data_scan() reads a TRAINING file once and learns
 * what the rest depends on: the dimension, the label map (classification) and the per-feature
 * statistics used for scaling. polka_data_read() then reads the samples a caller keeps, from
 * the training file or from a test file, with that dimension and label map. Every rank of a
 * run may do both on the same file and gets the same answer.
 *
 * Every file is opened with zlib, so any of them may be gzip-compressed (".gz") or plain.
 *
 * ## Formats
 * - **IDX**: an images file (magic 0x00000803: type 0x08 unsigned bytes, dims n×rows×cols;
 *   more generally type 0x08 with d ≥ 1 dims, p = the product of the dims after the first)
 *   and a labels file (magic 0x00000801, n unsigned bytes), named by
 *   polka_read_options.labels_path. Values are the bytes as doubles (0..255).
 * - **LIBSVM**: one sample per line, `label index:value index:value ...`, indices 1-based and
 *   strictly increasing, absent features are 0; a trailing `# comment` is allowed, blank and
 *   comment-only lines are skipped. The label is any finite number (`+1`, `-1`, `3`, `2.5`);
 *   indices are at most POLKA_DATAIO_MAX_FEATURES.
 * - **CSV**: a header line naming the columns (optionally in double quotes), then one sample
 *   per line with as many comma-separated numeric fields; blanks around fields are ignored,
 *   blank lines are skipped. The label column is the one named polka_read_options.label_column,
 *   at any position; the features are the other columns, in order. A CSV file read with the
 *   info of a CSV training file must have the same header: the same names in the same order
 *   (columns are not matched by position alone, which would silently swap features).
 *
 * Samples are numbered 0, 1, ... in file order (records for IDX, data lines for the text
 * formats); polka_keep_fn and index_out use these numbers.
 *
 * ## Storage
 * Samples are stored dense (n×p doubles) or, LIBSVM files only, sparse (polka_sparse_rows:
 * 8 bytes per listed value, 4 per feature index, 8 per sample), as polka_read_options.storage
 * says: POLKA_STORAGE_DENSE (the default of zeroed options), POLKA_STORAGE_SPARSE, or
 * POLKA_STORAGE_AUTO: sparse when the training file's sparse form is the smaller one
 * (polka_data_sparse_pays: 12 bytes per listed value + 8 per sample < 8·p per sample, i.e.
 * about a third of the values or more are absent; Fashion-MNIST's 50 % zeros qualify). The
 * decision comes from the training file's scan, so a test file read with that scan is stored
 * the same way. CSV and IDX files are always stored dense (POLKA_STORAGE_SPARSE for them is an
 * error). Scaling keeps the stored values and applies the training statistics as each row is
 * expanded, so a sparse row reads as the same doubles as the dense one.
 *
 * ## Memory
 * Before any allocation sized by a header or a feature index, the readers check it against
 * what the data can hold and against a memory limit (polka_read_options.memory_limit; by
 * default polka_data_memory_limit(), this process's share of the memory its node has
 * available: polka/memory.h), and refuse with POLKA_ERR_MEM naming the file, the place and the
 * sizes:
 * - a scan of a dense format keeps 48 bytes of statistics per feature and returns 32 (80·p in
 *   all); a LIBSVM scan keeps them only for the features that occur (the others are the zero
 *   column, whose statistics are known): 160 bytes of running sums and table per feature that
 *   occurs, and 36 in the info. Plus what the caller declares it needs per feature up to the
 *   largest index (polka_read_options.feature_bytes: a run's dense batch rows and dictionary
 *   points), all counted as the features grow; a scan that records
 *   every sample's class (polka_read_options.row_classes) needs 8 + 1 to 4 bytes per sample
 *   for it, counted when the label map is made;
 * - a read keeps 8·p bytes per kept sample (dense) or 12 per listed value and 24 per kept
 *   sample (sparse);
 * - with dense storage, a LIBSVM file is refused (POLKA_ERR_FORMAT) when it is far too sparse
 *   for it: when its n×p values exceed both POLKA_DATAIO_DENSE_FLOOR and
 *   POLKA_DATAIO_MAX_SPARSITY times the values it lists (checked as the features grow and at
 *   the end of the scan); sparse and auto storage have no such rule;
 * - an IDX header is checked against the file size (plain files), an IDX record holds at most
 *   POLKA_DATAIO_MAX_FEATURES values, and a gzipped IDX file is read as its data come: labels
 *   and the first record are read before anything sized by the header is allocated.
 *
 * ## Magnitudes
 * The kernels compute ‖x‖². A sample whose ‖x‖² (as read) is not finite is an error naming
 * the file and line (record for IDX, whose values are bytes); a feature whose training
 * statistics overflow (range, mean or standard deviation not finite) is an error of the scan;
 * polka_data_scale() refuses to leave a non-finite value or ‖x‖².
 *
 * ## Partial reads
 * polka_data_read() with a keep function reads only the bytes of the samples it keeps when it
 * can seek to them: IDX images files that are not gzipped (record i is at header + i·p), and
 * plain LIBSVM and CSV files whose info was scanned with polka_read_options.sample_offsets
 * (the scan records each sample's line). Runs of kept samples are read with pread() in blocks
 * of at most 1 MB, never past the last kept line of a run; a gzipped file is read whole (the
 * lines it does not keep are not parsed). What a partial read keeps is what a whole read keeps,
 * with the same line numbers in messages.
 *
 * ## Chunks
 * A scan cuts the file into chunks of polka_read_options.scan_chunk bytes (of the uncompressed
 * data: a gzipped file has the chunks of its plain twin); a sample belongs to the chunk where
 * its line or record starts. Each chunk's statistics are summed apart (shifted by its first
 * value), then the chunks are folded in file order (Chan's update of the shifted sums). The
 * fold depends on the chunks only, never on who scanned them: a plain file's chunks may be
 * scanned by different processes (polka_scan_run over a run of chunks, polka_scan_finish over
 * every run's piece in order) and the info is the same, bit for bit, as polka_data_scan()'s. A
 * file of one chunk sums in file order, as a scan always did.
 *
 * ## Errors
 * POLKA_ERR_FORMAT with one message naming the file and where: `PATH:LINE: what` for the text
 * formats, `PATH: record R (byte offset B): what` or `PATH: byte offset B: what` for IDX.
 * POLKA_ERR_IO when a file cannot be opened or read (with the system's reason), POLKA_ERR_ARG
 * for invalid options. Nothing here prints.
 */
#ifndef POLKA_DATAIO_H
#define POLKA_DATAIO_H

#include <stddef.h>
#include <stdint.h>

#include "polka/data.h"
#include "polka/error.h"

/** The largest LIBSVM feature index, and IDX record, accepted (the learner's rows are dense,
 *  and sparse storage keeps feature indices in 32 bits). */
#define POLKA_DATAIO_MAX_FEATURES ((size_t)1 << 24)

/** Dense LIBSVM data of at most this many values (n×p) are never refused as too sparse. */
#define POLKA_DATAIO_DENSE_FLOOR ((size_t)1 << 22)

/** LIBSVM data whose dense form has more than this many times the values the file lists (and
 *  more than POLKA_DATAIO_DENSE_FLOOR) are refused as too sparse for dense storage. */
#define POLKA_DATAIO_MAX_SPARSITY 1000

typedef enum {
    POLKA_FORMAT_AUTO,   /**< from the file name, see polka_file_format_guess() */
    POLKA_FORMAT_IDX,    /**< MNIST-style IDX images + labels files */
    POLKA_FORMAT_LIBSVM, /**< LIBSVM/SVMlight sparse text */
    POLKA_FORMAT_CSV,    /**< comma-separated values with a header line */
} polka_file_format;

/** Parses "auto", "idx", "libsvm" or "csv"; POLKA_ERR_ARG naming the choices otherwise. */
polka_status polka_file_format_parse(const char *name, polka_file_format *format);

/** The name polka_file_format_parse() accepts for format ("auto", "idx", ...). */
const char *polka_file_format_name(polka_file_format format);

/**
 * The format POLKA_FORMAT_AUTO reads path as, by its name (a final ".gz" is ignored):
 * a name containing "idx" and ending in "-ubyte" is IDX, a name ending in ".csv" is CSV,
 * anything else is LIBSVM. Pure.
 */
polka_file_format polka_file_format_guess(const char *path);

typedef enum {
    POLKA_STORAGE_DENSE,  /**< n×p doubles (every format) */
    POLKA_STORAGE_SPARSE, /**< LIBSVM only: the listed values (polka_sparse_rows) */
    POLKA_STORAGE_AUTO,   /**< LIBSVM: sparse when polka_data_sparse_pays(); else dense */
} polka_storage;

/** Parses "dense", "sparse" or "auto"; POLKA_ERR_ARG naming the choices otherwise. */
polka_status polka_storage_parse(const char *name, polka_storage *storage);

/** data.memory: "auto" (0) or a number of bytes, with an optional K, M, G or T (powers of 1024). */
polka_status polka_memory_parse(const char *text, size_t *bytes);

/** The name polka_storage_parse() accepts for storage. */
const char *polka_storage_name(polka_storage storage);

typedef struct {
    polka_file_format format; /**< AUTO: polka_file_format_guess(path) */
    const char *labels_path;  /**< IDX: the labels file (required for IDX) */
    const char *label_column; /**< CSV: the name of the label column (NULL: "label") */
    int regression;           /**< 1: targets are real values (no class map); 0: classes */
    size_t memory_limit;      /**< bytes the scan or read may take (0: available memory) */
    polka_storage storage;    /**< how a read stores the samples (DENSE when zeroed) */
    size_t feature_bytes;     /**< a scan: bytes per feature the caller needs besides the
                                   data (its dense rows), checked with the statistics */
    int row_classes;          /**< a scan of classes: 1 to record every sample's class
                                   (polka_data_row_class), 1 to 4 bytes a sample */
    int sample_offsets;       /**< a scan of a plain (not gzipped) LIBSVM or CSV file: 1 to
                                   record where each sample's line starts (8 bytes a sample),
                                   so that polka_data_read() with the info reads only the
                                   lines it keeps (see Partial reads) */
    uint64_t scan_chunk;      /**< a scan's chunk in bytes (see Chunks; 0: POLKA_SCAN_CHUNK) */
} polka_read_options;

/** What a first pass over a TRAINING file learns; the same on every rank for the same file. */
typedef struct {
    size_t n, p;    /**< samples, dimension (LIBSVM: the largest index seen) */
    size_t classes; /**< distinct labels (0 for regression) */
    double *labels; /**< the distinct labels, increasing (classes entries): class k is labels[k] */
    /* The per-feature statistics over the file, for `features` entries (read them with
     * polka_data_feature): entry e is feature feature[e] (LIBSVM: the features that occur,
     * increasing; absent values count 0), or feature e when feature is NULL (CSV, IDX: all p).
     * A feature without an entry never occurs: min = max = mean = stddev = 0. */
    size_t features;     /**< entries of the arrays below */
    uint32_t *feature;   /**< the 0-based feature of each entry, increasing; NULL: entry e is e */
    double *min;         /**< per entry */
    double *max;         /**< per entry */
    double *mean;        /**< per entry */
    double *stddev;      /**< per entry, the population standard deviation (divides by n) */
    char *path;          /**< the training file scanned, for messages (NULL: not from a file) */
    size_t columns;      /**< CSV: the header's columns, the label's included (0: other formats) */
    char **column_names; /**< CSV: the header's names in file order (columns entries) */
    size_t values;       /**< LIBSVM: the values the file lists (0: other formats) */
    polka_file_format format; /**< the format the file was read as */
    void *row_class;          /**< polka_read_options.row_classes: n class indices, each of */
    size_t row_class_bytes;   /**< 1, 2 or 4 bytes (the fewest that hold classes − 1); else 0 */
    /* polka_read_options.sample_offsets, plain text files (else NULL and 0): */
    uint64_t *sample_offset; /**< n: the byte offset of each sample's line */
    uint64_t *bare_line;     /**< bare_lines: for each line without a sample (a CSV header, a */
    size_t bare_lines;       /**< blank or comment line), the samples before it, increasing */
    uint64_t file_size;      /**< the scanned file's size and modification time (ns): a read */
    int64_t file_mtime;      /**< that seeks refuses a file that changed since */
} polka_data_info;

/** The training statistics of one feature. */
typedef struct {
    double min, max, mean, stddev;
} polka_feature_stats;

/** The statistics of feature j (< info->p) of a scan: its entry, or zeros when it has none
 *  (a LIBSVM feature that never occurs). O(log features). */
polka_feature_stats polka_data_feature(const polka_data_info *info, size_t j);

/** The class index of sample i (< n) of a scan with row_classes set. */
size_t polka_data_row_class(const polka_data_info *info, size_t i);

/** 1 when info describes a LIBSVM file whose samples take less memory sparse than dense
 *  (12·values + 8·n < 8·n·p). Pure. */
int polka_data_sparse_pays(const polka_data_info *info);

/**
 * Reads every sample of a training file and fills info (arrays allocated here; the caller
 * releases them with polka_data_info_free). options may be NULL (AUTO, classification,
 * label column "label"). Checks the whole file: any malformed sample is an error. Not
 * collective (no MPI); on failure info is left zeroed.
 */
polka_status polka_data_scan(const char *path, const polka_read_options *options,
                             polka_data_info *info);

/** Frees the arrays of info and zeroes it; NULL-safe. */
void polka_data_info_free(polka_data_info *info);

/** The default chunk of a scan (see Chunks): 16 MiB. */
#define POLKA_SCAN_CHUNK ((uint64_t)1 << 24)

/** The smallest chunk a scan accepts. */
#define POLKA_SCAN_CHUNK_MIN ((uint64_t)1 << 10)

/** A scan in pieces (see Chunks): open, run over a run of chunks, finish with every piece. */
typedef struct polka_scan_s polka_scan;

/** Opens a scan of a training file (options as polka_data_scan's, copied). Not collective. */
polka_status polka_scan_open(const char *path, const polka_read_options *options,
                             polka_scan **scan);

/** The file's chunks (at least 1), and 1 when they can be scanned apart (a plain file: a
 *  gzipped one is scanned whole, by polka_scan_run(scan, 0, 1, NULL)). */
size_t polka_scan_chunks(const polka_scan *scan);
int polka_scan_splits(const polka_scan *scan);

/** The line ends ('\n') in each chunk of [first, last) into newlines[0 .. last − first) (zeros
 *  for IDX): what polka_scan_locate needs after an error. */
polka_status polka_scan_count_lines(polka_scan *scan, size_t first, size_t last,
                                    uint64_t *newlines);

/**
 * Scans the samples of chunks [first, last) into this scan's piece (last = polka_scan_chunks: to
 * the end of the file; first = last: none, a CSV header is read). Each byte of the piece is read
 * once. With first > 0 (a split scan) a message's line number counts from the piece's first
 * line until polka_scan_locate makes it the file's.
 */
polka_status polka_scan_run(polka_scan *scan, size_t first, size_t last);

/** status, with the current message's "PATH:LINE:" made the file's line when polka_scan_run of
 *  chunks from `first` numbered it from its piece (newlines: every chunk's line ends, from
 *  polka_scan_count_lines); any other message unchanged. */
polka_status polka_scan_locate(const polka_scan *scan, size_t first, const uint64_t *newlines,
                               polka_status status);

/** The piece polka_scan_run made: words 64-bit words (the same layout on every process). */
const uint64_t *polka_scan_piece(const polka_scan *scan, size_t *words);

/** Folds the pieces of every run of chunks, concatenated in file order (words of them), into
 *  info, as polka_data_scan() would; the scan's own piece may be among them. */
polka_status polka_scan_finish(polka_scan *scan, const uint64_t *pieces, size_t words,
                               polka_data_info *info);

/** Frees a scan; NULL-safe. */
void polka_scan_free(polka_scan *scan);

/** Which samples a caller wants: returns 1 to keep sample `index` (0-based file order). */
typedef int (*polka_keep_fn)(void *context, uint64_t index);

/**
 * Reads the kept samples of a file (keep NULL keeps all) into out, allocated here (the caller
 * releases it with polka_dataset_free), with the dimension and label map of info (from the
 * TRAINING file's scan): out->p = info->p, out->classes = info->classes, class labels become
 * class indices 0..classes−1 (as doubles) through info->labels, regression targets are kept
 * as read. A test file with a feature index beyond info->p, a different number of columns
 * or pixels, a CSV header that differs from the training file's (info->column_names), or a
 * label not in info->labels, is an error naming the file and line; options->storage says how
 * out holds the samples (see Storage above: out->sparse or out->x); a LIBSVM
 * file of a smaller dimension is fine (missing features are 0). A file without samples (empty,
 * only blank or comment lines, a CSV header alone) is an error, as in polka_data_scan(); keep
 * may still keep none of the samples of a file that has some.
 *
 * keep is called once for every sample, in file order, before the sample is parsed.
 * index_out, when not NULL, receives (allocated here, the caller frees it) the file index of
 * every kept sample, increasing. Memory is O(kept·p), not O(n·p). The text formats parse only
 * the lines they keep (the scan pass checks the whole training file). On failure out is
 * zeroed and *index_out is NULL.
 */
polka_status polka_data_read(const char *path, const polka_read_options *options,
                             const polka_data_info *info, polka_keep_fn keep, void *context,
                             polka_dataset *out, uint64_t **index_out);

typedef enum {
    POLKA_SCALE_NONE,     /**< leave the values as read */
    POLKA_SCALE_UNIT,     /**< (x − min) / (max − min): the training data to [0, 1] */
    POLKA_SCALE_STANDARD, /**< (x − mean) / stddev */
} polka_scale_kind;

/** Parses "none", "unit" or "standard"; POLKA_ERR_ARG naming the choices otherwise. */
polka_status polka_scale_kind_parse(const char *name, polka_scale_kind *kind);

/** The name polka_scale_kind_parse() accepts for kind. */
const char *polka_scale_kind_name(polka_scale_kind kind);

/**
 * Scales data (data->p must be info->p) in place with the TRAINING statistics of info (sparse
 * storage: the statistics are kept with the rows and applied as each row is expanded), so
 * that a test set is scaled exactly like the training set. A feature that is constant in the
 * training file (max = min, stddev = 0) is set to 0. POLKA_ERR_FORMAT naming the sample (its
 * place in data, from 1) and the feature when a scaled value or a sample's ‖x‖² is not finite
 * (a test value far outside the training range); data is then partly scaled. Pure apart
 * from data.
 */
polka_status polka_data_scale(polka_dataset *data, const polka_data_info *info,
                              polka_scale_kind kind);

#endif
