/* What the data readers refuse before it costs memory or time: IDX headers that
 * announce more than the file holds (defect 6), LIBSVM files far too sparse for dense storage
 * or over the memory limit (defect 7), and magnitudes that overflow the kernels (defect 9).
 * Every file is crafted here. */
#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "data/dataio_impl.h"
#include "dataio_files.h"
#include "polka/dataio.h"
#include "polka/memory.h"
#include "test_util.h"

/* An IDX images file: the header of n records of rows×cols bytes, then `bytes` data bytes. */
static size_t idx_header(unsigned char *out, uint32_t n, uint32_t rows, uint32_t cols,
                         size_t bytes) {
    const uint32_t words[4] = {0x803, n, rows, cols};
    for (int k = 0; k < 4; k++)
        for (int b = 0; b < 4; b++) out[4 * k + b] = (unsigned char)(words[k] >> (24 - 8 * b));
    memset(out + 16, 7, bytes);
    return 16 + bytes;
}

/* A labels file of n labels, all present. */
static const char *idx_labels(const char *name, uint32_t n) {
    unsigned char *bytes = calloc(8 + n, 1);
    assert_non_null(bytes);
    const uint32_t words[2] = {0x801, n};
    for (int k = 0; k < 2; k++)
        for (int b = 0; b < 4; b++) bytes[4 * k + b] = (unsigned char)(words[k] >> (24 - 8 * b));
    const char *path = write_bytes(name, bytes, 8 + n, 1);
    free(bytes);
    return path;
}

/* The peak resident memory of this process, in MB. */
static double peak_mb(void) {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return (double)usage.ru_maxrss / 1024.0;
}

/* Scans path in a child process and returns how much its peak resident memory grew (MB);
 * the scan must fail with want in its message. */
static double scan_growth_mb(const char *path, const polka_read_options *options,
                             const char *want) {
    int pipefd[2];
    assert_int_equal(pipe(pipefd), 0);
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        double before = peak_mb();
        polka_data_info info;
        polka_status status = polka_data_scan(path, options, &info);
        double growth = peak_mb() - before;
        int ok = status != POLKA_OK && strstr(polka_error_message(), want) != NULL;
        if (!ok)
            fprintf(stderr, "scan of %s: status %d, '%s'\n", path, (int)status,
                    polka_error_message());
        if (write(pipefd[1], &growth, sizeof growth) != sizeof growth) _exit(2);
        _exit(ok ? 0 : 1);
    }
    close(pipefd[1]);
    double growth = -1.0;
    assert_int_equal(read(pipefd[0], &growth, sizeof growth), sizeof growth);
    close(pipefd[0]);
    int wstatus = 0;
    assert_int_equal(waitpid(child, &wstatus, 0), child);
    assert_true(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0);
    return growth;
}

/* Defect 6: a header announcing more data than the file holds is refused before anything
 * sized by it is allocated. Before the fix the gzipped case allocated the statistics of the
 * 4M-value records (about 220 MB) before noticing the truncation. */
static void test_idx_header_beyond_data(void **state) {
    (void)state;
    enum { N = 60, DATA = 500 };
    unsigned char file[16 + DATA];
    polka_read_options options = {.labels_path = idx_labels("l60-idx1-ubyte.gz", N)};

    /* the crafted file: 60 records of 50 MB in a few hundred gzipped bytes */
    size_t len = idx_header(file, N, 5000, 10000, DATA);
    expect_scan_error(write_bytes("huge-idx3-ubyte.gz", file, len, 1), &options, POLKA_ERR_FORMAT,
                      "records of 50000000 values (5000x10000), above the limit of 16777216");

    /* plain: the header is checked against the file's size */
    len = idx_header(file, N, 2000, 2000, DATA);
    const char *plain = write_bytes("cut-idx3-ubyte", file, len, 0);
    double growth = scan_growth_mb(plain, &options,
                                   "truncated: the header announces 60 records of 4000000 bytes "
                                   "(240000000 bytes), but the file has 500 bytes after the "
                                   "header");
    assert_true(growth < 32.0);

    /* gzipped: read as the data come, the first record before the statistics */
    const char *gz = write_bytes("cut-idx3-ubyte.gz", file, len, 1);
    growth = scan_growth_mb(gz, &options, "byte offset 516: truncated in record 0");
    if (growth >= 32.0) fail_msg("the truncated gzipped scan grew by %.0f MB", growth);
}

/* Defect 7: the 27-byte file (one sample of 16777216 features stored dense: 1.6 GB)
 * is refused as too sparse before the statistics are allocated. */
static void test_libsvm_too_sparse(void **state) {
    (void)state;
    const char *path = write_text("sparse.svm", "1 1:0.5 16777216:1\n");
    double growth = scan_growth_mb(path, NULL, "sparse.svm:1: 1 samples of 16777216 features");
    assert_true(growth < 32.0);
    expect_scan_error(path, NULL, POLKA_ERR_FORMAT,
                      "values in the file: dense storage refuses data more than 1000 times "
                      "sparser than that (sparse storage keeps only the listed values: "
                      "data.storage = auto or sparse)");
    /* sparse but small enough stays readable: 3 samples of 5000 features, 4 values */
    polka_data_info info;
    CHECK_OK(
        polka_data_scan(write_text("small.svm", "1 1:1\n-1 5000:2\n1 2:1 3:1\n"), NULL, &info));
    assert_int_equal(info.p, 5000);
    polka_data_info_free(&info);
    /* the rule over the whole file: 2000 samples of 3000 features, 2000 values */
    size_t lines = 2000;
    char *text = malloc(lines * 16);
    assert_non_null(text);
    size_t used = 0;
    for (size_t i = 0; i < lines; i++)
        used += (size_t)sprintf(text + used, "%d %d:1\n", (int)(i % 2), i == 0 ? 3000 : 1);
    expect_scan_error(write_text("long.svm", text), NULL, POLKA_ERR_FORMAT,
                      "2000 samples of 3000 features are 6e+06 values stored dense, for 2000");
    free(text);
}

/* Defect 7: the memory limit, for the scan's statistics and for the kept samples. */
static void test_memory_limit(void **state) {
    (void)state;
    const char *path = write_text("limit.svm", "1 1:1 300:2\n-1 2:1 299:1\n1 3:1\n");
    /* the statistics are kept for the features that occur: 196 bytes for the first (the
     * running sums of all 300, 24000 bytes, then the info's 9600, before) */
    polka_read_options tight = {.memory_limit = 150};
    expect_scan_error(path, &tight, POLKA_ERR_MEM,
                      "limit.svm:1: the statistics of 300 features (kept for the 1 that occurs) "
                      "take 196 bytes, over the memory limit of 150 bytes");
    polka_data_info info;
    polka_read_options enough = {.memory_limit = 2000};
    CHECK_OK(polka_data_scan(path, &enough, &info));
    polka_data_info_free(&info);
    CHECK_OK(polka_data_scan(path, NULL, &info));
    polka_read_options two_rows = {.memory_limit = 2 * 302 * sizeof(double)};
    polka_dataset data;
    assert_int_equal(polka_data_read(path, &two_rows, &info, NULL, NULL, &data, NULL),
                     POLKA_ERR_MEM);
    assert_non_null(strstr(polka_error_message(),
                           "limit.svm:3: 3 samples of 300 features take 7248 bytes, over the "
                           "memory limit of 4832 bytes"));
    assert_null(data.x);
    CHECK_OK(polka_data_read(path, &two_rows, &info, keep_every_third, NULL, &data, NULL));
    assert_int_equal(data.n, 1);
    polka_dataset_free(&data);
    polka_data_info_free(&info);

    /* the default: what the machine has available, never more than it has */
    polka_read_options defaults = {0};
    size_t limit = dataio_memory_limit(&defaults);
    double physical = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
    assert_true(limit > 0 && (double)limit <= physical);
    assert_int_equal(dataio_memory_limit(&tight), 150);
}

/* The fuzz campaign's: a read that keeps no sample (a rank whose agents draw none of a file's
 * rows) allocates no row of the dimension (it took p doubles, 128 MB for 2^24 features). */
static void test_read_keeping_nothing(void **state) {
    (void)state;
    const char *path = write_text("none.svm", "1 1:1\n-1 5000:2\n1 2:1 3:1\n");
    polka_data_info info;
    CHECK_OK(polka_data_scan(path, NULL, &info));
    for (int storage = POLKA_STORAGE_DENSE; storage <= POLKA_STORAGE_SPARSE; storage++) {
        polka_read_options options = {.storage = (polka_storage)storage};
        polka_dataset data;
        uint64_t *index = NULL;
        CHECK_OK(polka_data_read(path, &options, &info, keep_none, NULL, &data, &index));
        assert_int_equal(data.n, 0);
        assert_int_equal(data.p, 5000);
        if (data.x) assert_true(malloc_usable_size(data.x) < 5000 * sizeof(double));
        assert_non_null(data.y);
        assert_non_null(index);
        polka_dataset_free(&data);
        free(index);
    }
    polka_data_info_free(&info);
}

/* data.memory: a size with its unit, or auto; the automatic limit is the node's memory (here a
 * Slurm job's --mem) divided among the processes sharing it, and says so in its messages. */
static void test_memory_share(void **state) {
    (void)state;
    size_t bytes = 1;
    CHECK_OK(polka_memory_parse("auto", &bytes));
    assert_int_equal(bytes, 0);
    CHECK_OK(polka_memory_parse("512M", &bytes));
    assert_int_equal(bytes, 512u << 20);
    CHECK_OK(polka_memory_parse("1.5K", &bytes));
    assert_int_equal(bytes, 1536);
    CHECK_OK(polka_memory_parse("4096", &bytes));
    assert_int_equal(bytes, 4096);
    const char *bad[] = {"", "2X", "-1G", "0", " 5M", "5MB", "nan", "1e999"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        assert_int_equal(polka_memory_parse(bad[i], &bytes), POLKA_ERR_ARG);

    setenv("SLURM_MEM_PER_NODE", "8", 1);
    polka_data_memory_share(0, 4);
    polka_read_options automatic = {0};
    size_t limit = dataio_memory_limit(&automatic);
    assert_int_equal(limit, 2u << 20);
    assert_non_null(strstr(dataio_memory_origin(limit), "8 MB of the Slurm job on this node, "
                                                        "shared by 4 processes"));
    const char *path = write_text("share.svm", "1 1:1 300:2\n-1 2:1 299:1\n1 3:1\n");
    polka_data_info info;
    CHECK_OK(polka_data_scan(path, NULL, &info));
    polka_read_options tiny = {.memory_limit = 1000};
    polka_dataset data;
    assert_int_equal(polka_data_read(path, &tiny, &info, NULL, NULL, &data, NULL), POLKA_ERR_MEM);
    assert_null(strstr(polka_error_message(), "data.memory")); /* an explicit limit: no origin */
    polka_data_memory_share(12345, 4);                         /* data.memory = 12345 */
    assert_int_equal(dataio_memory_limit(&automatic), 12345);
    polka_data_memory_share(0, 1);
    unsetenv("SLURM_MEM_PER_NODE");
    assert_true(dataio_memory_limit(&automatic) > (2u << 20));
    polka_data_info_free(&info);
}

/* Defect 9: magnitudes whose ‖x‖² overflows are refused at read time, with the line. */
static void test_magnitudes(void **state) {
    (void)state;
    const char *norm = "the sample's squared norm overflows a double";
    expect_scan_error(write_text("big.svm", "1 1:1\n-1 1:1e200 2:1\n"), NULL, POLKA_ERR_FORMAT,
                      "big.svm:2: the sample's squared norm overflows a double");
    expect_scan_error(write_text("wide.svm", "1 1:1e308\n-1 1:-1e308\n"), NULL, POLKA_ERR_FORMAT,
                      norm);
    expect_scan_error(write_text("big.csv", "a,b,label\n1,2,0\n3,4,1\n1e160,1,0\n"), NULL,
                      POLKA_ERR_FORMAT, "big.csv:4: the sample's squared norm overflows");
    /* a test file is checked the same way */
    polka_data_info info;
    CHECK_OK(polka_data_scan(write_text("fine.svm", "1 1:1\n-1 1:2\n"), NULL, &info));
    expect_read_error(write_text("test.svm", "1 1:1\n1 1:-1e300\n"), NULL, &info,
                      "test.svm:2: the sample's squared norm overflows");
    polka_data_info_free(&info);

    /* values under the norm's limit whose statistics overflow (range, variance) */
    char text[4096];
    size_t used = 0;
    for (int i = 0; i < 100; i++)
        used += (size_t)snprintf(text + used, sizeof text - used, "%d 1:%s1e153\n", i % 2,
                                 i % 2 ? "-" : "");
    expect_scan_error(write_text("spread.svm", text), NULL, POLKA_ERR_FORMAT,
                      "spread.svm: feature 1: its values, from -1e+153 to 1e+153, overflow its "
                      "statistics");
}

/* Defect 9: scaling refuses to leave a non-finite value (a test value far outside a tiny
 * training range). */
static void test_scale_overflow(void **state) {
    (void)state;
    polka_data_info info;
    CHECK_OK(polka_data_scan(write_text("tiny.svm", "0 1:0 2:1\n1 1:1e-300 2:2\n"), NULL, &info));
    polka_dataset data;
    CHECK_OK(polka_data_read(write_text("far.svm", "0 1:0 2:1\n1 1:1e10 2:1\n"), NULL, &info, NULL,
                             NULL, &data, NULL));
    assert_int_equal(polka_data_scale(&data, &info, POLKA_SCALE_UNIT), POLKA_ERR_FORMAT);
    assert_non_null(strstr(polka_error_message(), "sample 2: feature 1 is inf after unit scaling "
                                                  "with the statistics of"));
    polka_dataset_free(&data);
    CHECK_OK(polka_data_read(write_text("near.svm", "0 1:0 2:1\n1 1:1e-300 2:1\n"), NULL, &info,
                             NULL, NULL, &data, NULL));
    CHECK_OK(polka_data_scale(&data, &info, POLKA_SCALE_UNIT));
    /* (1e-300 − 0)·fl(1/1e-300), all normal: two roundings of 1 [Higham02, §2.2] */
    assert_true(fabs(data.x[2] - 1.0) <= test_gamma(2));
    polka_dataset_free(&data);
    polka_data_info_free(&info);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_idx_header_beyond_data), cmocka_unit_test(test_libsvm_too_sparse),
        cmocka_unit_test(test_memory_limit),           cmocka_unit_test(test_read_keeping_nothing),
        cmocka_unit_test(test_memory_share),           cmocka_unit_test(test_magnitudes),
        cmocka_unit_test(test_scale_overflow),
    };
    return cmocka_run_group_tests(tests, make_tmp_dir, remove_tmp_dir);
}
