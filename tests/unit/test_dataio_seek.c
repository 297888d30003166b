/* Partial reads (polka/dataio.h): a read that keeps some samples of a plain file reads only
 * their bytes (counted by the kernel: rchar of /proc/self/io) and keeps what a whole read
 * keeps; a gzipped file is read whole; a file changed since its scan is refused; messages name
 * a sample's own line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "polka/dataio.h"
#include "dataio_files.h"
#include "test_util.h"

/* The bytes this process has read so far (read and pread of any file). */
static unsigned long long bytes_read(void) {
    FILE *io = fopen("/proc/self/io", "r");
    assert_non_null(io);
    char line[128];
    unsigned long long rchar = 0;
    while (fgets(line, sizeof line, io))
        if (sscanf(line, "rchar: %llu", &rchar) == 1) break;
    fclose(io);
    return rchar;
}

/* Runs of 40 kept samples in every 120, counting calls: short gaps, read through. */
static int keep_runs(void *context, uint64_t index) {
    size_t *calls = context;
    if (calls) (*calls)++;
    return index / 40 % 3 == 1;
}

/* Runs of 4 000 in every 12 000, counting calls: gaps sought over. */
static int keep_far(void *context, uint64_t index) {
    size_t *calls = context;
    if (calls) (*calls)++;
    return index / 4000 % 3 == 1;
}

/* n LIBSVM samples of 3 features (the second often absent), with a comment line every 7
 * lines and a blank line every 11, as text allocated here. */
static char *libsvm_text(size_t n, size_t *len) {
    size_t cap = n * 80 + 64;
    char *text = malloc(cap);
    assert_non_null(text);
    *len = 0;
    for (size_t i = 0; i < n; i++) {
        if (i % 7 == 3) *len += (size_t)snprintf(text + *len, cap - *len, "# comment %zu\n", i);
        if (i % 11 == 5) *len += (size_t)snprintf(text + *len, cap - *len, "   \n");
        *len += (size_t)snprintf(text + *len, cap - *len, "%d 1:%.17g", (int)(i % 3),
                                 0.001 * (double)i - 0.7);
        if (i % 4 != 0) *len += (size_t)snprintf(text + *len, cap - *len, " 2:%g", 1.5 / (i + 1.0));
        *len += (size_t)snprintf(text + *len, cap - *len, " 3:%zu\n", i % 17);
    }
    return text;
}

static void expect_same(const polka_dataset *a, const uint64_t *ia, const polka_dataset *b,
                        const uint64_t *ib) {
    assert_int_equal(a->n, b->n);
    assert_int_equal(a->p, b->p);
    assert_memory_equal(ia, ib, a->n * sizeof *ia);
    assert_memory_equal(a->y, b->y, a->n * sizeof *a->y);
    assert_true((a->sparse == NULL) == (b->sparse == NULL));
    if (a->sparse == NULL) {
        assert_memory_equal(a->x, b->x, a->n * a->p * sizeof *a->x);
        return;
    }
    assert_int_equal(a->sparse->nnz, b->sparse->nnz);
    assert_memory_equal(a->sparse->start, b->sparse->start, (a->n + 1) * sizeof(size_t));
    assert_memory_equal(a->sparse->index, b->sparse->index, a->sparse->nnz * sizeof(uint32_t));
    assert_memory_equal(a->sparse->value, b->sparse->value, a->sparse->nnz * sizeof(double));
}

/* Reads path with keep through a scan with and one without sample offsets: the same samples,
 * keep called once per sample, and the partial read's bytes under `most` of size. */
static void check_partial(const char *path, polka_read_options options, polka_keep_fn keep,
                          size_t size, double most) {
    polka_data_info whole, part;
    CHECK_OK(polka_data_scan(path, &options, &whole));
    assert_null(whole.sample_offset);
    options.sample_offsets = 1;
    CHECK_OK(polka_data_scan(path, &options, &part));
    assert_non_null(part.sample_offset);
    assert_int_equal(part.n, whole.n);
    polka_dataset a, b;
    uint64_t *ia = NULL, *ib = NULL;
    size_t calls = 0;
    CHECK_OK(polka_data_read(path, &options, &whole, keep, NULL, &a, &ia));
    unsigned long long before = bytes_read();
    CHECK_OK(polka_data_read(path, &options, &part, keep, &calls, &b, &ib));
    unsigned long long read = bytes_read() - before;
    assert_int_equal(calls, part.n);
    assert_true(a.n > 0 && a.n < part.n);
    expect_same(&a, ia, &b, ib);
    if ((double)read > most * (double)size)
        fail_msg("%s: a partial read of %zu of %zu samples read %llu of %zu bytes", path, b.n,
                 part.n, read, size);
    free(ia);
    free(ib);
    polka_dataset_free(&a);
    polka_dataset_free(&b);
    polka_data_info_free(&whole);
    polka_data_info_free(&part);
}

static void test_libsvm_partial(void **state) {
    (void)state;
    size_t len = 0;
    char *text = libsvm_text(30000, &len);
    const char *path = write_bytes("train.svm", text, len, 0);
    free(text);
    /* a third of the samples kept: short gaps are read through, long ones sought over (well
     * under half the bytes) */
    for (int storage = POLKA_STORAGE_DENSE; storage <= POLKA_STORAGE_SPARSE; storage++) {
        polka_read_options options = {.storage = (polka_storage)storage};
        check_partial(path, options, keep_runs, len, 1.05);
        check_partial(path, options, keep_far, len, 0.45);
    }
}

static void test_csv_partial(void **state) {
    (void)state;
    size_t cap = 30000 * 40 + 64, len = 0;
    char *text = malloc(cap);
    assert_non_null(text);
    len += (size_t)snprintf(text, cap, "\nx1, label ,x2\n");
    for (size_t i = 0; i < 30000; i++)
        len += (size_t)snprintf(text + len, cap - len, "%s%.6f,%d,%zu\n", i % 13 == 0 ? "\n" : "",
                                0.5 * (double)i, (int)(i % 2), i % 9);
    const char *path = write_bytes("train.csv", text, len, 0);
    free(text);
    check_partial(path, (polka_read_options){0}, keep_runs, len, 1.05);
    check_partial(path, (polka_read_options){0}, keep_far, len, 0.45);
}

static void test_gzip_read_whole(void **state) {
    (void)state;
    size_t len = 0;
    char *text = libsvm_text(500, &len);
    const char *path = write_bytes("train.svm.gz", text, len, 1);
    free(text);
    polka_data_info info;
    CHECK_OK(polka_data_scan(path, &(polka_read_options){.sample_offsets = 1}, &info));
    assert_null(info.sample_offset); /* a gzipped file cannot be read in part */
    polka_dataset data;
    CHECK_OK(polka_data_read(path, NULL, &info, keep_runs, NULL, &data, NULL));
    assert_int_equal(data.n, 4 * 40); /* samples 40..79, 160..199, 280..319, 400..439 */
    polka_dataset_free(&data);
    polka_data_info_free(&info);
}

/* Rewrites path with text, keeping its modification time when same_time. */
static void rewrite(const char *path, const char *text, int same_time) {
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    write_text(strrchr(path, '/') + 1, text);
    if (!same_time) {
        struct timespec later[2] = {st.st_atim, {st.st_mtim.tv_sec + 5, st.st_mtim.tv_nsec}};
        assert_int_equal(utimensat(0, path, later, 0), 0);
        return;
    }
    struct timespec times[2] = {st.st_atim, st.st_mtim};
    assert_int_equal(utimensat(0, path, times, 0), 0);
}

static void expect_read_fails(const char *path, const polka_data_info *info, const char *want) {
    polka_dataset data;
    polka_status status = polka_data_read(path, NULL, info, keep_every_third, NULL, &data, NULL);
    assert_int_equal(status, POLKA_ERR_FORMAT);
    if (strstr(polka_error_message(), want) == NULL)
        fail_msg("expected '%s' in '%s'", want, polka_error_message());
}

static void test_changed_file(void **state) {
    (void)state;
    const char *text = "1 1:1\n# two\n2 1:2\n\n1 1:3\n2 1:4\n";
    const char *path = write_text("changed.svm", text);
    polka_data_info info;
    CHECK_OK(polka_data_scan(path, &(polka_read_options){.sample_offsets = 1}, &info));
    /* the same size and time, a label of sample 3 (line 6, kept) that is no class: its line */
    rewrite(path, "1 1:1\n# two\n2 1:2\n\n1 1:3\n3 1:4\n", 1);
    expect_read_fails(path, &info, "changed.svm:6: label 3 is not one of the 2 classes");
    rewrite(path, "1 1:1\n# two\n2 1:2\n\n1 1:3\n2 1:5\n", 0);
    expect_read_fails(path, &info, "changed.svm: changed since it was scanned");
    polka_data_info_free(&info);
}

/* IDX images of n records of p bytes and their labels (3 classes), plain. */
static void write_idx(size_t n, size_t p, const char **images, const char **labels) {
    size_t size = 16 + n * p;
    unsigned char *b = malloc(size);
    assert_non_null(b);
    unsigned char head[16] = {0, 0, 8, 3, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0};
    for (int k = 0; k < 4; k++) head[4 + k] = (unsigned char)(n >> (24 - 8 * k));
    for (int k = 0; k < 4; k++) head[12 + k] = (unsigned char)(p >> (24 - 8 * k));
    memcpy(b, head, 16);
    for (size_t k = 0; k < n * p; k++) b[16 + k] = (unsigned char)(k * 7 % 251);
    *images = write_bytes("seek-idx3-ubyte", b, size, 0);
    head[3] = 1;
    for (size_t i = 0; i < n; i++) b[8 + i] = (unsigned char)(i % 3);
    memcpy(b, head, 8);
    *labels = write_bytes("seek-labels-idx1-ubyte", b, 8 + n, 0);
    free(b);
}

/* Reads the IDX images with keep: the records a whole read gives at the kept indices, and at
 * most `most` of the file's bytes. */
static void check_idx(const char *images, const polka_read_options *options,
                      const polka_data_info *info, const polka_dataset *whole, polka_keep_fn keep,
                      double most) {
    size_t n = whole->n, p = whole->p;
    polka_dataset part;
    uint64_t *index = NULL;
    unsigned long long before = bytes_read();
    CHECK_OK(polka_data_read(images, options, info, keep, NULL, &part, &index));
    unsigned long long read = bytes_read() - before;
    if ((double)read > most * (16.0 + (double)(n * p)))
        fail_msg("a partial read of %zu of %zu records read %llu of %zu bytes", part.n, n, read,
                 16 + n * p);
    assert_int_equal(part.n, n / 3);
    for (size_t k = 0; k < part.n; k++) {
        assert_true(keep(NULL, index[k]));
        assert_memory_equal(part.x + k * p, whole->x + index[k] * p, p * sizeof *part.x);
        assert_true(part.y[k] == whole->y[index[k]]);
    }
    free(index);
    polka_dataset_free(&part);
}

static void test_idx_partial(void **state) {
    (void)state;
    const char *images = NULL, *labels = NULL;
    write_idx(12000, 300, &images, &labels);
    polka_read_options options = {.labels_path = labels};
    polka_data_info info;
    CHECK_OK(polka_data_scan(images, &options, &info));
    polka_dataset whole;
    CHECK_OK(polka_data_read(images, &options, &info, NULL, NULL, &whole, NULL));
    check_idx(images, &options, &info, &whole, keep_runs, 1.05);
    check_idx(images, &options, &info, &whole, keep_far, 0.4); /* a third, and the labels */
    polka_dataset_free(&whole);
    polka_data_info_free(&info);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_libsvm_partial),  cmocka_unit_test(test_csv_partial),
        cmocka_unit_test(test_gzip_read_whole), cmocka_unit_test(test_changed_file),
        cmocka_unit_test(test_idx_partial),
    };
    return cmocka_run_group_tests(tests, make_tmp_dir, remove_tmp_dir);
}
