/* Sparse storage of LIBSVM data: the CSR rows a read hands over, their expansion
 * (bit for bit the dense rows, scaled or not), the storage choice, the memory checks that
 * count the sparse size, and the evaluation in blocks. Every file is written here. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "dataio_files.h"
#include "polka/dataio.h"
#include "test_util.h"

/* Negative values, explicit zeros (kept as listed: "4:0", "2:-0"), a sample without features,
 * blank and comment lines, and a feature (5) that only the test file lists. */
static const char train_text[] = "# comment\n"
                                 "+1 1:0.5 3:-2 4:0 # trailing\n"
                                 "-1 2:1.5\n"
                                 "+1\n"
                                 "\n"
                                 "-1 1:1 2:2 3:3 4:7\r\n"
                                 "+1 2:-0 4:-4\n"
                                 "-1\t1:-1   2:0.25\n";

static const size_t want_start[7] = {0, 3, 4, 4, 8, 10, 12};
static const uint32_t want_index[12] = {0, 2, 3, 1, 0, 1, 2, 3, 1, 3, 0, 1};
static const double want_value[12] = {0.5, -2, 0, 1.5, 1, 2, 3, 7, -0.0, -4, -1, 0.25};

static const polka_read_options sparse_options = {.storage = POLKA_STORAGE_SPARSE};

/* Every row of a (any storage) expands to the very bytes of the same row of b (dense). */
static void assert_rows_equal(const polka_dataset *a, const polka_dataset *b) {
    assert_int_equal(a->n, b->n);
    assert_int_equal(a->p, b->p);
    assert_memory_equal(a->y, b->y, a->n * sizeof *a->y);
    double *row = malloc(a->p * sizeof *row);
    assert_non_null(row);
    for (size_t i = 0; i < a->n; i++) {
        polka_dataset_row(a, i, row);
        if (memcmp(row, b->x + i * b->p, a->p * sizeof *row) != 0)
            fail_msg("row %zu differs between sparse and dense storage", i);
    }
    free(row);
}

static void test_csr_arrays(void **state) {
    (void)state;
    const char *path = write_text("train.svm", train_text);
    polka_data_info info;
    CHECK_OK(polka_data_scan(path, &sparse_options, &info));
    assert_int_equal(info.values, 12);
    assert_int_equal(info.format, POLKA_FORMAT_LIBSVM);
    polka_dataset data;
    uint64_t *index = NULL;
    CHECK_OK(polka_data_read(path, &sparse_options, &info, NULL, NULL, &data, &index));
    assert_null(data.x);
    assert_non_null(data.sparse);
    assert_int_equal(data.n, 6);
    assert_int_equal(data.p, 4);
    assert_int_equal(data.sparse->nnz, 12);
    assert_memory_equal(data.sparse->start, want_start, sizeof want_start);
    assert_memory_equal(data.sparse->index, want_index, sizeof want_index);
    assert_memory_equal(data.sparse->value, want_value, sizeof want_value); /* -0 kept */
    assert_false(data.sparse->scaled);
    for (uint64_t i = 0; i < 6; i++) assert_int_equal(index[i], i);
    free(index);

    polka_dataset dense;
    CHECK_OK(polka_data_read(path, NULL, &info, NULL, NULL, &dense, NULL));
    assert_null(dense.sparse);
    assert_rows_equal(&data, &dense);
    polka_dataset_free(&dense);
    polka_dataset_free(&data);
    assert_null(data.sparse);

    /* a kept subset: samples 0 and 3, offsets from 0 */
    CHECK_OK(polka_data_read(path, &sparse_options, &info, keep_every_third, NULL, &data, &index));
    assert_int_equal(data.n, 2);
    assert_int_equal(index[1], 3);
    assert_int_equal(data.sparse->nnz, 7);
    assert_int_equal(data.sparse->start[1], 3);
    assert_int_equal(data.sparse->start[2], 7);
    assert_true(data.sparse->value[6] == 7.0 && data.sparse->index[6] == 3);
    free(index);
    polka_dataset_free(&data);
    /* none kept, and a test file without a single value: still arrays to free */
    CHECK_OK(polka_data_read(path, &sparse_options, &info, keep_none, NULL, &data, NULL));
    assert_int_equal(data.n, 0);
    assert_non_null(data.sparse);
    polka_dataset_free(&data);
    CHECK_OK(polka_data_read(write_text("empty_rows.svm", "1\n-1\n"), &sparse_options, &info, NULL,
                             NULL, &data, NULL));
    assert_int_equal(data.sparse->nnz, 0);
    assert_int_equal(data.sparse->start[2], 0);
    polka_dataset_free(&data);
    polka_data_info_free(&info);
}

/* Scaled sparse rows are the scaled dense rows, bit for bit, for the training file and for a
 * test file of a smaller dimension; the errors of a test file are those of the dense read. */
static void test_scaled_rows_match_dense(void **state) {
    (void)state;
    const char *train = write_text("scale.svm", train_text);
    const char *test = write_text("scale.svm.t", "-1 1:3 3:-0.125\n+1 2:9\n-1\n");
    polka_data_info info;
    CHECK_OK(polka_data_scan(train, NULL, &info));
    const polka_scale_kind kinds[3] = {POLKA_SCALE_NONE, POLKA_SCALE_UNIT, POLKA_SCALE_STANDARD};
    const char *paths[2] = {train, test};
    for (int k = 0; k < 3; k++) {
        for (int f = 0; f < 2; f++) {
            polka_dataset sparse, dense;
            CHECK_OK(polka_data_read(paths[f], &sparse_options, &info, NULL, NULL, &sparse, NULL));
            CHECK_OK(polka_data_read(paths[f], NULL, &info, NULL, NULL, &dense, NULL));
            CHECK_OK(polka_data_scale(&sparse, &info, kinds[k]));
            CHECK_OK(polka_data_scale(&dense, &info, kinds[k]));
            assert_true(sparse.sparse->scaled == (kinds[k] != POLKA_SCALE_NONE));
            assert_rows_equal(&sparse, &dense);
            polka_dataset_free(&sparse);
            polka_dataset_free(&dense);
        }
    }
    expect_read_error(write_text("wide.svm.t", "1 5:1\n"), &sparse_options, &info,
                      "wide.svm.t:1: feature index 5 is beyond the training data's dimension 4");
    expect_read_error(write_text("label.svm.t", "3 1:1\n"), &sparse_options, &info,
                      "label.svm.t:1: label 3 is not one of the 2 classes");
    polka_data_info_free(&info);
    /* a scaled test value far outside a tiny training range: the dense message */
    CHECK_OK(polka_data_scan(write_text("tiny.svm", "0 1:0 2:1\n1 1:1e-300 2:2\n"), NULL, &info));
    polka_dataset data;
    CHECK_OK(polka_data_read(write_text("far.svm.t", "0 2:1\n1 1:1e10 2:1\n"), &sparse_options,
                             &info, NULL, NULL, &data, NULL));
    assert_int_equal(polka_data_scale(&data, &info, POLKA_SCALE_UNIT), POLKA_ERR_FORMAT);
    assert_non_null(strstr(polka_error_message(), "sample 2: feature 1 is inf after unit scaling"));
    polka_dataset_free(&data);
    polka_data_info_free(&info);
}

/* data.unit_norm: sparse rows divide their listed values, to the very bytes of the dense rows;
 * each non-zero row has norm 1, a row without features stays zero; a scaling that gives
 * unlisted features a base is refused for sparse rows (and done for dense ones). */
static void test_unit_norm_rows(void **state) {
    (void)state;
    const char *train = write_text("norm.svm", train_text);
    polka_data_info info;
    CHECK_OK(polka_data_scan(train, NULL, &info));
    polka_dataset sparse, dense;
    CHECK_OK(polka_data_read(train, &sparse_options, &info, NULL, NULL, &sparse, NULL));
    CHECK_OK(polka_data_read(train, NULL, &info, NULL, NULL, &dense, NULL));
    CHECK_OK(polka_dataset_unit_norm(&sparse, "norm.svm"));
    CHECK_OK(polka_dataset_unit_norm(&dense, "norm.svm"));
    assert_rows_equal(&sparse, &dense);
    for (size_t i = 0; i < dense.n; i++) {
        double sum = 0.0, k = 0;
        for (size_t j = 0; j < dense.p; j++) {
            sum += dense.x[i * dense.p + j] * dense.x[i * dense.p + j];
            k += dense.x[i * dense.p + j] != 0;
        }
        /* k non-zeros: the norm² γ_k; sqrt and x/‖x‖ a rounding each, twice in the square; the
         * squares and their sum here γ_k [Higham02, §3.1]: γ_{2k+4} */
        if (i == 2)
            assert_true(sum == 0.0); /* "+1": no features */
        else
            assert_true(fabs(sum - 1.0) <= test_gamma(2 * k + 4));
    }
    assert_true(dense.x[0] == 0.5 / sqrt(0.25 + 4.0)); /* row 1: (0.5, 0, -2, 0) */
    polka_dataset_free(&sparse);
    polka_dataset_free(&dense);
    CHECK_OK(polka_data_read(train, &sparse_options, &info, NULL, NULL, &sparse, NULL));
    CHECK_OK(polka_data_scale(&sparse, &info, POLKA_SCALE_STANDARD));
    assert_int_equal(polka_dataset_unit_norm(&sparse, "norm.svm"), POLKA_ERR_ARG);
    assert_non_null(strstr(polka_error_message(), "data.unit_norm = 1 cannot scale the sparse rows "
                                                  "of 'norm.svm': 4 features read as non-zero"));
    polka_dataset_free(&sparse);
    CHECK_OK(polka_data_read(train, NULL, &info, NULL, NULL, &dense, NULL));
    CHECK_OK(polka_data_scale(&dense, &info, POLKA_SCALE_STANDARD));
    CHECK_OK(polka_dataset_unit_norm(&dense, "norm.svm"));
    polka_dataset_free(&dense);
    polka_data_info_free(&info);
}

/* auto stores sparse when that is smaller; CSV and IDX are dense; sparse CSV is an error. */
static void test_storage_choice(void **state) {
    (void)state;
    polka_storage storage;
    CHECK_OK(polka_storage_parse("auto", &storage));
    assert_int_equal(storage, POLKA_STORAGE_AUTO);
    assert_string_equal(polka_storage_name(POLKA_STORAGE_SPARSE), "sparse");
    assert_int_equal(polka_storage_parse("csr", &storage), POLKA_ERR_ARG);
    assert_non_null(strstr(polka_error_message(), "dense"));

    polka_read_options autos = {.storage = POLKA_STORAGE_AUTO};
    polka_data_info info;
    polka_dataset data;
    /* 3 samples of 4 features listing 11 values: 12·11 + 24 > 96 bytes dense */
    const char *full =
        write_text("full.svm", "1 1:1 2:2 3:3 4:4\n-1 1:1 2:2 3:3\n1 1:5 2:1 3:1 4:1\n");
    CHECK_OK(polka_data_scan(full, &autos, &info));
    assert_false(polka_data_sparse_pays(&info));
    CHECK_OK(polka_data_read(full, &autos, &info, NULL, NULL, &data, NULL));
    assert_null(data.sparse);
    assert_non_null(data.x);
    polka_dataset_free(&data);
    polka_data_info_free(&info);
    /* two thirds of the values absent: 12·8 + 32 < 8·4·6 */
    const char *half = write_text("half.svm", "1 1:1 6:2\n-1 3:3 4:4\n1 1:1 4:1\n-1 2:2 3:3\n");
    CHECK_OK(polka_data_scan(half, &autos, &info));
    assert_true(polka_data_sparse_pays(&info));
    CHECK_OK(polka_data_read(half, &autos, &info, NULL, NULL, &data, NULL));
    assert_non_null(data.sparse);
    assert_null(data.x);
    polka_dataset_free(&data);
    polka_data_info_free(&info);

    const char *csv = write_text("x.csv", "a,b,label\n0,0,1\n0,1,0\n");
    CHECK_OK(polka_data_scan(csv, &autos, &info));
    assert_false(polka_data_sparse_pays(&info));
    CHECK_OK(polka_data_read(csv, &autos, &info, NULL, NULL, &data, NULL));
    assert_non_null(data.x);
    polka_dataset_free(&data);
    polka_data_info_free(&info);
    expect_scan_error(csv, &sparse_options, POLKA_ERR_ARG, "sparse storage is for LIBSVM files");
}

/* The 27-byte file: too sparse to store dense (refused as before), a few bytes sparse,
 * and its dimension still counted in the scan's memory check for the caller's dense rows. */
static void test_huge_dimension(void **state) {
    (void)state;
    const char *path = write_text("one.svm", "1 1:0.5 16777216:1\n");
    expect_scan_error(path, NULL, POLKA_ERR_FORMAT, "dense storage refuses data more than 1000");
    /* a run of batch 1 and a budget of 100 needs 101 dense rows of 16777216 features */
    polka_read_options run = {.storage = POLKA_STORAGE_AUTO,
                              .memory_limit = (size_t)8 << 30,
                              .feature_bytes = 101 * sizeof(double)};
    expect_scan_error(path, &run, POLKA_ERR_MEM,
                      "one.svm:1: 16777216 features: their statistics (196 bytes, kept for the "
                      "1 that occurs) and the run's dense rows of them (12928.0 MB, 808 bytes "
                      "per feature) take 12928.0 MB, over the memory limit of 8192.0 MB");
    /* (the statistics are kept for the features that occur: 1280 MB of running sums, then
     * 512 MB in the info, before) */
    /* the same shape at 65536 features: scanned and stored in a few bytes */
    polka_data_info info;
    const char *small = write_text("two.svm", "1 1:0.5 65536:1\n-1 7:2\n");
    CHECK_OK(polka_data_scan(small, &run, &info));
    assert_true(polka_data_sparse_pays(&info));
    polka_dataset data;
    CHECK_OK(polka_data_read(small, &run, &info, NULL, NULL, &data, NULL));
    assert_int_equal(data.sparse->nnz, 3);
    assert_int_equal(data.sparse->index[1], 65535);
    polka_dataset_free(&data);
    /* a sparse read counts 12 bytes a value and 24 a sample against the memory limit */
    polka_read_options tight = {.storage = POLKA_STORAGE_SPARSE, .memory_limit = 1000};
    assert_int_equal(polka_data_read(write_text("many.svm.t", "1 1:1 2:1 3:1\n-1 2:1\n1 9:1\n"),
                                     &tight, &info, NULL, NULL, &data, NULL),
                     POLKA_ERR_MEM);
    polka_data_info_free(&info);
    assert_non_null(strstr(polka_error_message(), "many.svm.t:1: 1 samples listing 3 values"));
    assert_null(data.sparse);
}

typedef struct {
    size_t calls, largest, p;
} eval_log;

/* f = the sum of a row's values and their index-weighted sum (2 outputs). */
static polka_status row_sums(const void *context, const double *x, size_t n, double *f) {
    eval_log *log = (eval_log *)context;
    log->calls++;
    log->largest = n > log->largest ? n : log->largest;
    for (size_t i = 0; i < n; i++) {
        f[2 * i] = f[2 * i + 1] = 0.0;
        for (size_t j = 0; j < log->p; j++) {
            f[2 * i] += x[i * log->p + j];
            f[2 * i + 1] += (double)j * x[i * log->p + j];
        }
    }
    return POLKA_OK;
}

/* Sparse data are evaluated in blocks of expanded rows; the values are those of dense data. */
static void test_eval_in_blocks(void **state) {
    (void)state;
    assert_int_equal(polka_dataset_block_rows(784), 20 * 256);
    assert_int_equal(polka_dataset_block_rows(16384), 256);
    assert_int_equal(polka_dataset_block_rows(1 << 20), 4);
    assert_int_equal(polka_dataset_block_rows(1 << 24), 1);
    enum { N = 3000, P = 5000 }; /* blocks of 768 rows: 4 of them */
    char *text = malloc(N * 40);
    assert_non_null(text);
    size_t used = 0;
    for (size_t i = 0; i < N; i++)
        used += (size_t)sprintf(text + used, "%zu %zu:%zu.5 %d:-1\n", i % 2, 1 + i, i, P);
    const char *path = write_text("blocks.svm", text);
    free(text);
    polka_data_info info;
    CHECK_OK(polka_data_scan(path, &sparse_options, &info));
    polka_dataset sparse, dense;
    CHECK_OK(polka_data_read(path, &sparse_options, &info, NULL, NULL, &sparse, NULL));
    CHECK_OK(polka_data_read(path, NULL, &info, NULL, NULL, &dense, NULL));
    CHECK_OK(polka_data_scale(&sparse, &info, POLKA_SCALE_STANDARD));
    CHECK_OK(polka_data_scale(&dense, &info, POLKA_SCALE_STANDARD));
    double *f = malloc(2 * N * sizeof *f), *g = malloc(2 * N * sizeof *g);
    assert_non_null(f);
    assert_non_null(g);
    eval_log a = {.p = P}, b = {.p = P};
    CHECK_OK(polka_dataset_eval(&sparse, 2, row_sums, &a, f));
    CHECK_OK(polka_dataset_eval(&dense, 2, row_sums, &b, g));
    assert_int_equal(a.calls, 4);
    assert_int_equal(a.largest, 768);
    assert_int_equal(b.calls, 1);
    assert_memory_equal(f, g, 2 * N * sizeof *f);
    /* the LIBSVM text of either storage is the same */
    CHECK_OK(polka_dataset_write_libsvm(&sparse, tmp_path("out_sparse.svm")));
    CHECK_OK(polka_dataset_write_libsvm(&dense, tmp_path("out_dense.svm")));
    char *written[2];
    const char *names[2] = {"out_sparse.svm", "out_dense.svm"};
    size_t len[2];
    for (int k = 0; k < 2; k++) {
        FILE *file = fopen(tmp_path(names[k]), "rb");
        assert_non_null(file);
        written[k] = malloc(N * 200);
        assert_non_null(written[k]);
        len[k] = fread(written[k], 1, N * 200, file);
        fclose(file);
    }
    assert_true(len[0] > 0 && len[0] == len[1]);
    assert_memory_equal(written[0], written[1], len[0]);
    free(written[0]);
    free(written[1]);
    free(f);
    free(g);
    polka_dataset_free(&sparse);
    polka_dataset_free(&dense);
    polka_data_info_free(&info);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_csr_arrays),     cmocka_unit_test(test_scaled_rows_match_dense),
        cmocka_unit_test(test_storage_choice), cmocka_unit_test(test_huge_dimension),
        cmocka_unit_test(test_eval_in_blocks), cmocka_unit_test(test_unit_norm_rows),
    };
    return cmocka_run_group_tests(tests, make_tmp_dir, remove_tmp_dir);
}
