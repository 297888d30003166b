/* The data file readers: IDX, LIBSVM and CSV read back, the label map, statistics, scaling,
 * and one clear message for every malformed file. Files are written into a temporary dir. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <zlib.h>

#include "data/dataio_impl.h"
#include "polka/dataio.h"
#include "dataio_files.h"
#include "test_util.h"

/* Per-feature statistics of a dense n×p array, computed apart: the mean from a compensated sum
 * (Sum2: within u|S| + γ_{n−1}²·Σ|x| of the exact sum [Ogita, Rump & Oishi 2005, Prop. 4.5;
 * Higham02, §4.3]), the variance in two passes about it.
 * The scan (one chunk: these files are below 16 MiB) sums x − shift (shift a value of the
 * feature, so |x − shift| ≤ R = max − min) and (x − shift)²: s1 within γ_{n+1}·nR and s2
 * within γ_{n+1}·Σ(x − shift)² ≤ γ_{n+1}·n(var + R²) [Higham02, §4.2]; var = (s2 − s1²/n)/n
 * adds 2|s1|·Δs1/n ≤ 2γ_{n+1}·nR² and two roundings. The variances are compared (the square
 * root would divide the error by 2σ, 0 for a constant feature). */
static void check_stats(const polka_data_info *info, const double *x, size_t n, size_t p) {
    assert_int_equal(info->n, n);
    assert_int_equal(info->p, p);
    double u = TEST_UNIT, dn = (double)n;
    for (size_t j = 0; j < p; j++) {
        double lo = x[j], hi = x[j], sum = 0.0, err = 0.0, abs_sum = 0.0, dev = 0.0;
        for (size_t i = 0; i < n; i++) {
            double v = x[i * p + j], t = sum + v, z = t - sum; /* TwoSum [Higham02, §4.3] */
            err += (sum - (t - z)) + (v - z);
            sum = t;
            abs_sum += fabs(v);
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
        }
        double mean = (sum + err) / dn, range = hi - lo;
        for (size_t i = 0; i < n; i++) dev += (x[i * p + j] - mean) * (x[i * p + j] - mean);
        double var = dev / dn;
        polka_feature_stats f = polka_data_feature(info, j);
        assert_true(f.min == lo && f.max == hi);
        /* the oracle's mean: Sum2's bound and the quotient's rounding; the scan's: Δs1 / n and
         * the roundings of s1/n and shift + s1/n */
        double mean_oracle = 2 * u * fabs(mean) + test_gamma(n) * test_gamma(n) * abs_sum / dn;
        double mean_scan = test_gamma(n + 1) * range + u * (range + fabs(mean));
        assert_true(fabs(f.mean - mean) <= mean_oracle + mean_scan);
        /* the oracle's variance: γ_{n+2} (a subtraction, a square, n − 1 sums, /n) of var plus
         * its mean's error squared (Σ(x − m̂)² = Σ(x − m)² + n(m − m̂)²); the scan's: Δs2/n,
         * 2|s1|Δs1/n², s1²/n's two roundings and two more; sqrt, then σ·σ here: γ_3 */
        double r2 = range * range;
        double var_oracle =
            test_gamma(n + 2) * var + (1 + test_gamma(n + 2)) * mean_oracle * mean_oracle;
        double var_scan = test_gamma(n + 1) * (var + 3 * r2) + test_gamma(2) * (r2 + var);
        assert_true(fabs(f.stddev * f.stddev - var) <= var_oracle + var_scan + test_gamma(3) * var);
    }
}

static void test_names(void **state) {
    (void)state;
    polka_file_format format = POLKA_FORMAT_AUTO;
    CHECK_OK(polka_file_format_parse("csv", &format));
    assert_int_equal(format, POLKA_FORMAT_CSV);
    assert_string_equal(polka_file_format_name(POLKA_FORMAT_LIBSVM), "libsvm");
    assert_int_equal(polka_file_format_parse("hdf5", &format), POLKA_ERR_ARG);
    assert_non_null(strstr(polka_error_message(), "'hdf5'"));
    polka_scale_kind kind = POLKA_SCALE_NONE;
    CHECK_OK(polka_scale_kind_parse("standard", &kind));
    assert_int_equal(kind, POLKA_SCALE_STANDARD);
    assert_string_equal(polka_scale_kind_name(POLKA_SCALE_UNIT), "unit");
    assert_int_equal(polka_scale_kind_parse("minmax", &kind), POLKA_ERR_ARG);
    assert_int_equal(polka_file_format_guess("d/train-images-idx3-ubyte.gz"), POLKA_FORMAT_IDX);
    assert_int_equal(polka_file_format_guess("t10k-images-idx3-ubyte"), POLKA_FORMAT_IDX);
    assert_int_equal(polka_file_format_guess("data/iris.csv"), POLKA_FORMAT_CSV);
    assert_int_equal(polka_file_format_guess("data/iris.csv.gz"), POLKA_FORMAT_CSV);
    assert_int_equal(polka_file_format_guess("idx.d/a9a.t"), POLKA_FORMAT_LIBSVM);
    assert_int_equal(polka_file_format_guess("a9a"), POLKA_FORMAT_LIBSVM);
}

/* The fast number parser against strtod: the same value (bit for bit) and the same end. */
static void check_strtod(const char *text) {
    char *end_fast = NULL, *end_ref = NULL;
    double fast = dataio_strtod(text, &end_fast), ref = strtod(text, &end_ref);
    if (memcmp(&fast, &ref, sizeof fast) != 0 || end_fast != end_ref)
        fail_msg("'%s': %.17g (end +%td) against strtod %.17g (end +%td)", text, fast,
                 end_fast - text, ref, end_ref - text);
}

static void test_strtod_matches_reference(void **state) {
    (void)state;
    static const char *const cases[] = {
        "0",
        "-0",
        "+0",
        "1",
        "+1",
        "-1",
        "2.5",
        "-.5",
        ".5",
        "5.",
        ".",
        "-",
        "+",
        "",
        "1e5",
        "1e",
        "1e+",
        "1E-3",
        "1e22",
        "1e23",
        "1e-22",
        "1.5e-300",
        "1e400",
        "0x1p3",
        "0x",
        "inf",
        "-Inf",
        "nan",
        "1.5.3",
        "1,5",
        "1:2",
        "12abc",
        "00012",
        "0.00000000000000000000000001",
        "9007199254740993",
        "900719925474099.3",
        "123456789012345678901234567890",
        "4.9406564584124654e-324",
        "1e-1000000",
        "1e1000000",
        " 1",
        "3#",
        "255",
        "0.1",
        "0.3",
        "2.2250738585072014e-308",
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) check_strtod(cases[k]);
    static const char *const formats[] = {"%.17g", "%g", "%.3f", "%.15g", "%e", "%.0f", "%.9g"};
    double values[4000];
    fill_uniform(values, 4000, -4, 4, 11);
    char text[64];
    for (size_t i = 0; i < 4000; i++) {
        double v = i % 4 == 0 ? values[i] : pow(10.0, 6 * values[i]) * (values[i] > 0 ? 1 : -1);
        for (size_t f = 0; f < sizeof formats / sizeof *formats; f++) {
            snprintf(text, sizeof text, formats[f], v);
            check_strtod(text);
        }
        snprintf(text, sizeof text, "%d", (int)(1e4 * values[i]));
        check_strtod(text);
    }
}

/* ---- LIBSVM ------------------------------------------------------------------------------ */

static const char libsvm_train[] = "# written by hand\n"
                                   "+1 1:0.5 3:-2 # a trailing comment\n"
                                   "-1 2:1.5\n"
                                   "+1\n"
                                   "\n"
                                   "-1 1:1 2:2 3:3\r\n"
                                   "   \n"
                                   "+1 3:4\n"
                                   "-1\t1:-1   2:0.25";
static const double libsvm_x[6 * 3] = {0.5, 0, -2, 0, 1.5, 0, 0,  0,    0,
                                       1,   2, 3,  0, 0,   4, -1, 0.25, 0};
static const double libsvm_class[6] = {1, 0, 1, 0, 1, 0};

static void test_libsvm_read_back(void **state) {
    (void)state;
    const char *path = write_text("train.svm", libsvm_train);
    polka_data_info info;
    CHECK_OK(polka_data_scan(path, NULL, &info));
    assert_int_equal(info.classes, 2);
    assert_true(info.labels[0] == -1.0 && info.labels[1] == 1.0);
    check_stats(&info, libsvm_x, 6, 3);

    polka_dataset data;
    uint64_t *index = NULL;
    CHECK_OK(polka_data_read(path, NULL, &info, NULL, NULL, &data, &index));
    assert_int_equal(data.n, 6);
    assert_int_equal(data.p, 3);
    assert_int_equal(data.classes, 2);
    assert_memory_equal(data.x, libsvm_x, sizeof libsvm_x);
    assert_memory_equal(data.y, libsvm_class, sizeof libsvm_class);
    for (uint64_t i = 0; i < 6; i++) assert_int_equal(index[i], i);
    free(index);
    polka_dataset_free(&data);

    size_t calls = 0;
    CHECK_OK(polka_data_read(path, NULL, &info, keep_every_third, &calls, &data, &index));
    assert_int_equal(calls, 6);
    assert_int_equal(data.n, 2);
    assert_int_equal(index[0], 0);
    assert_int_equal(index[1], 3);
    assert_memory_equal(data.x, libsvm_x, 3 * sizeof *data.x);
    assert_memory_equal(data.x + 3, libsvm_x + 9, 3 * sizeof *data.x);
    assert_true(data.y[0] == 1.0 && data.y[1] == 0.0);
    free(index);
    polka_dataset_free(&data);
    polka_data_info_free(&info);
    assert_null(info.labels);
    polka_data_info_free(&info); /* twice is fine */
}

static void test_libsvm_gzip_and_long_lines(void **state) {
    (void)state;
    enum { P = 40000 };
    size_t cap = 2 * (size_t)P * 24 + 64, len = 0;
    char *text = malloc(cap);
    assert_non_null(text);
    for (int line = 0; line < 2; line++) {
        len += (size_t)snprintf(text + len, cap - len, "%d", line ? 7 : 3);
        for (int j = 1; j <= P; j++)
            len += (size_t)snprintf(text + len, cap - len, " %d:%g", j, j * 0.5 + line);
        len += (size_t)snprintf(text + len, cap - len, "\n");
    }
    const char *plain = write_bytes("long.svm", text, len, 0);
    const char *gz = write_bytes("long.svm.gz", text, len, 1);
    free(text);
    polka_data_info info;
    CHECK_OK(polka_data_scan(gz, NULL, &info));
    assert_int_equal(info.p, P);
    polka_dataset a, b;
    CHECK_OK(polka_data_read(plain, NULL, &info, NULL, NULL, &a, NULL));
    CHECK_OK(polka_data_read(gz, NULL, &info, NULL, NULL, &b, NULL));
    assert_int_equal(a.n, 2);
    assert_memory_equal(a.x, b.x, 2 * P * sizeof *a.x);
    assert_true(a.x[P - 1] == P * 0.5 && a.x[2 * P - 1] == P * 0.5 + 1);
    assert_true(a.y[0] == 0 && a.y[1] == 1);
    polka_dataset_free(&a);
    polka_dataset_free(&b);
    polka_data_info_free(&info);
}

static void test_label_map_and_regression(void **state) {
    (void)state;
    const char *path = write_text("labels.svm", "3 1:1\n2.5 1:2\n-1 1:3\n3 1:4\n+2.5 1:5\n");
    polka_data_info info;
    CHECK_OK(polka_data_scan(path, NULL, &info));
    assert_int_equal(info.classes, 3);
    assert_true(info.labels[0] == -1 && info.labels[1] == 2.5 && info.labels[2] == 3);
    polka_dataset data;
    CHECK_OK(polka_data_read(path, NULL, &info, NULL, NULL, &data, NULL));
    const double want[5] = {2, 1, 0, 2, 1};
    assert_memory_equal(data.y, want, sizeof want);
    polka_dataset_free(&data);

    /* a test file: a smaller dimension is fine, a new label or a larger index is not */
    const char *small = write_text("small.svm", "-1\n3\n");
    CHECK_OK(polka_data_read(small, NULL, &info, NULL, NULL, &data, NULL));
    assert_true(data.n == 2 && data.p == 1 && data.x[0] == 0 && data.y[1] == 2);
    polka_dataset_free(&data);
    expect_read_error(write_text("newlabel.svm", "3 1:1\n\n4 1:2\n"), NULL, &info,
                      "newlabel.svm:3: label 4 is not one of the 3 classes");
    expect_read_error(write_text("wide.svm", "3 1:1\n3 1:1 2:5\n"), NULL, &info,
                      "wide.svm:2: feature index 2 is beyond the training data's dimension 1");
    polka_read_options regression = {.regression = 1};
    assert_int_equal(polka_data_read(path, &regression, &info, NULL, NULL, &data, NULL),
                     POLKA_ERR_ARG);
    polka_data_info_free(&info);

    CHECK_OK(polka_data_scan(path, &regression, &info));
    assert_int_equal(info.classes, 0);
    assert_null(info.labels);
    CHECK_OK(polka_data_read(path, &regression, &info, NULL, NULL, &data, NULL));
    const double values[5] = {3, 2.5, -1, 3, 2.5};
    assert_int_equal(data.classes, 0);
    assert_memory_equal(data.y, values, sizeof values);
    polka_dataset_free(&data);
    polka_data_info_free(&info);
}

/* A scan asked for every sample's class records them in file order, in the fewest bytes. */
static void test_row_classes(void **state) {
    (void)state;
    const char *path = write_text("rows.svm", "3 1:1\n2.5 1:2\n-1 1:3\n3 1:4\n+2.5 1:5\n");
    polka_data_info info;
    CHECK_OK(polka_data_scan(path, NULL, &info));
    assert_null(info.row_class); /* not asked */
    polka_data_info_free(&info);
    polka_read_options options = {.row_classes = 1};
    CHECK_OK(polka_data_scan(path, &options, &info));
    assert_int_equal(info.row_class_bytes, 1);
    const size_t want[5] = {2, 1, 0, 2, 1};
    for (size_t i = 0; i < 5; i++) assert_int_equal(polka_data_row_class(&info, i), want[i]);
    polka_data_info_free(&info);
    /* 300 classes take two bytes a sample; labels in reverse order */
    char text[300 * 12], *at = text;
    for (int i = 299; i >= 0; i--) at += sprintf(at, "%d 1:1\n", i);
    const char *many = write_text("many.svm", text);
    CHECK_OK(polka_data_scan(many, &options, &info));
    assert_int_equal(info.classes, 300);
    assert_int_equal(info.row_class_bytes, 2);
    for (size_t i = 0; i < 300; i++) assert_int_equal(polka_data_row_class(&info, i), 299 - i);
    polka_data_info_free(&info);
    /* counted against the memory limit: 300 × (8 + 2) bytes */
    options.memory_limit = 2000;
    expect_scan_error(many, &options, POLKA_ERR_MEM, "the labels and classes of 300 samples");
}

static void test_libsvm_errors(void **state) {
    (void)state;
    static const struct {
        const char *name, *text, *want;
    } cases[] = {
        {"order.svm", "1 1:0.5\n\n1 3:1 2:1\n", "order.svm:3: index 2 after index 3 (indices must"},
        {"repeat.svm", "1 1:1 1:2\n", "repeat.svm:1: index 1 after index 1"},
        {"zero.svm", "1 2:1\n-1 0:1\n", "zero.svm:2: index 0 (indices start at 1)"},
        {"negative.svm", "1 -3:1\n", "negative.svm:1: index in '-3:1' is < 1"},
        {"nan.svm", "# c\n1 1:1\n1 1:nan\n", "nan.svm:3: value in '1:nan' is not finite"},
        {"inf.svm", "1 1:-inf\n", "inf.svm:1: value in '1:-inf' is not finite"},
        {"nanlabel.svm", "nan 1:1\n", "nanlabel.svm:1: label 'nan' is not finite"},
        {"label.svm", "1 1:1\nabc 1:1\n", "label.svm:2: label 'abc' is not a number"},
        {"value.svm", "1 1:1x\n", "value.svm:1: value in '1:1x' is not a number"},
        {"novalue.svm", "1 1: 2\n", "novalue.svm:1: value in '1:' is not a number"},
        {"pair.svm", "1 1:1 qid:3 2:1\n", "pair.svm:1: 'qid:3' is not index:value"},
        {"bare.svm", "1 1:1 2\n", "bare.svm:1: '2' is not index:value"},
        {"huge.svm", "1 99999999999999999999:1\n", "huge.svm:1: index in"},
        {"empty.svm", "", "empty.svm: no samples"},
        {"comments.svm", "# only\n\n# comments\n", "comments.svm: no samples"},
        {"nofeatures.svm", "1\n-1\n", "nofeatures.svm: no features"},
        {"binary.svm", "1 1:1\n1 2:\0\n", "binary.svm:2: NUL byte"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        size_t len = strlen(cases[k].text);
        if (strcmp(cases[k].name, "binary.svm") == 0) len = 12;
        const char *path = write_bytes(cases[k].name, cases[k].text, len, 0);
        expect_scan_error(path, NULL, POLKA_ERR_FORMAT, cases[k].want);
    }
    const char *missing = tmp_path("missing.svm");
    expect_scan_error(missing, NULL, POLKA_ERR_IO, "No such file or directory");
    expect_scan_error(tmp_dir, NULL, POLKA_ERR_IO, "cannot read");
}

/* A test file without samples is an error like an empty training file, not 0 of 0 correct. */
static void test_read_empty_test_files(void **state) {
    (void)state;
    polka_data_info info;
    CHECK_OK(polka_data_scan(write_text("full.svm", libsvm_train), NULL, &info));
    expect_read_error(write_text("empty_test.svm", ""), NULL, &info, "empty_test.svm: no samples");
    expect_read_error(write_text("comment_test.svm", "# only\n\n  # comments\n"), NULL, &info,
                      "comment_test.svm: no samples");
    polka_dataset data; /* keeping none of the samples of a file that has some is fine */
    CHECK_OK(polka_data_read(write_text("one.svm", "1 1:2\n"), NULL, &info, keep_none, NULL, &data,
                             NULL));
    assert_int_equal(data.n, 0);
    polka_dataset_free(&data);
    polka_data_info_free(&info);

    CHECK_OK(polka_data_scan(write_text("full.csv", "a,label\n1,0\n2,1\n"), NULL, &info));
    expect_read_error(write_text("header_test.csv", "a,label\n\n"), NULL, &info,
                      "header_test.csv: no samples");
    polka_data_info_free(&info);
}

/* ---- CSV --------------------------------------------------------------------------------- */

static const char csv_train[] = "\"x1\", \"label\" ,x2\n"
                                "1.5, 1, -2\n"
                                " 0,0,3\n"
                                "\n"
                                "2,1,4.25\r\n"
                                "-1e-3,\"0\",7\n";
static const double csv_x[4 * 2] = {1.5, -2, 0, 3, 2, 4.25, -1e-3, 7};

static void test_csv_read_back(void **state) {
    (void)state;
    const char *path = write_text("train.csv", csv_train);
    polka_data_info info;
    CHECK_OK(polka_data_scan(path, NULL, &info));
    assert_int_equal(info.classes, 2);
    check_stats(&info, csv_x, 4, 2);
    polka_dataset data;
    uint64_t *index = NULL;
    CHECK_OK(polka_data_read(path, NULL, &info, NULL, NULL, &data, NULL));
    assert_int_equal(data.n, 4);
    assert_memory_equal(data.x, csv_x, sizeof csv_x);
    const double want[4] = {1, 0, 1, 0};
    assert_memory_equal(data.y, want, sizeof want);
    polka_dataset_free(&data);
    CHECK_OK(polka_data_read(path, NULL, &info, keep_every_third, NULL, &data, &index));
    assert_int_equal(data.n, 2);
    assert_true(index[0] == 0 && index[1] == 3);
    assert_true(data.x[2] == -1e-3 && data.x[3] == 7 && data.y[1] == 0);
    free(index);
    polka_dataset_free(&data);

    expect_read_error(write_text("narrow.csv", "label,x1\n1,2\n"), NULL, &info,
                      "narrow.csv:1: 1 feature columns, but the training data has 2");
    expect_read_error(write_text("csvlabel.csv", "x1,label,x2\n1,1,1\n1,2,1\n"), NULL, &info,
                      "csvlabel.csv:3: label 2 is not one of the 2 classes");
    polka_data_info_free(&info);
}

/* A test CSV must have the training header: columns are never matched by position alone. */
static void test_csv_test_header_must_match(void **state) {
    (void)state;
    const char *path = write_text("header_train.csv", csv_train);
    polka_data_info info;
    CHECK_OK(polka_data_scan(path, NULL, &info));
    assert_int_equal(info.columns, 3);
    assert_string_equal(info.column_names[1], "label");
    char want[600];
    snprintf(want, sizeof want,
             "swapped.csv:1: column 1 is 'x2', but in the training file '%s' it "
             "is 'x1'",
             path);
    expect_read_error(write_text("swapped.csv", "x2,label,x1\n1,1,2\n"), NULL, &info, want);
    expect_read_error(write_text("moved.csv", "x1,x2,label\n1,2,1\n"), NULL, &info,
                      "moved.csv:1: column 2 is 'x2'");
    expect_read_error(write_text("renamed.csv", "\n x1 ,label,y\n1,1,2\n"), NULL, &info,
                      "renamed.csv:2: column 3 is 'y'");
    polka_dataset data; /* quotes and blanks around the names do not matter */
    CHECK_OK(polka_data_read(write_text("same.csv", "\"x1\" ,label, \"x2\"\n1,1,2\n"), NULL, &info,
                             NULL, NULL, &data, NULL));
    assert_true(data.n == 1 && data.x[0] == 1 && data.x[1] == 2 && data.y[0] == 1);
    polka_dataset_free(&data);
    polka_data_info_free(&info);

    /* a training file without a header: a CSV test file is read by position */
    CHECK_OK(polka_data_scan(write_text("two.svm", "0 1:1 2:2\n1 2:1\n"), NULL, &info));
    assert_null(info.column_names);
    CHECK_OK(polka_data_read(write_text("any.csv", "b,a,label\n3,4,1\n"), NULL, &info, NULL, NULL,
                             &data, NULL));
    assert_true(data.x[0] == 3 && data.x[1] == 4);
    polka_dataset_free(&data);
    polka_data_info_free(&info);
}

static void test_csv_other_label_column(void **state) {
    (void)state;
    polka_data_info info;
    polka_dataset data;

    /* another label column; regression */
    const char *named = write_text("named.csv", "a,b,target\n1,2,0.5\n3,4,-7.25\n");
    polka_read_options options = {.label_column = "target", .regression = 1};
    CHECK_OK(polka_data_scan(named, &options, &info));
    CHECK_OK(polka_data_read(named, &options, &info, NULL, NULL, &data, NULL));
    const double named_x[4] = {1, 2, 3, 4}, named_y[2] = {0.5, -7.25};
    assert_memory_equal(data.x, named_x, sizeof named_x);
    assert_memory_equal(data.y, named_y, sizeof named_y);
    polka_dataset_free(&data);
    polka_data_info_free(&info);
}

static void test_csv_errors(void **state) {
    (void)state;
    static const struct {
        const char *name, *text, *want;
    } cases[] = {
        {"nolabel.csv", "a, \"b\",c\n1,2,3\n",
         "nolabel.csv:1: no label column 'label' in the "
         "header ('a', 'b', 'c')"},
        {"twice.csv", "label,a,label\n1,2,3\n", "twice.csv:1: label column 'label' appears twice"},
        {"fields.csv", "a,label\n1,2\n\n1,2,3\n", "fields.csv:4: 3 fields, but the header"},
        {"short.csv", "a,label\n1\n", "short.csv:2: 1 fields, but the header (line 1) has 2"},
        {"junk.csv", "a,label\n1,2\n1x,2\n", "junk.csv:3: column 1 ('a'): '1x' is not a number"},
        {"empty_field.csv", "a,label\n ,2\n", "empty_field.csv:2: column 1 ('a') is empty"},
        {"nan.csv", "a,label\n1,2\n3,NaN\n", "nan.csv:3: column 2 ('label'): 'NaN' is not finite"},
        {"inf.csv", "a,label\ninf,1\n", "inf.csv:2: column 1 ('a'): 'inf' is not finite"},
        {"onlylabel.csv", "label\n1\n", "onlylabel.csv:1: no feature columns"},
        {"empty.csv", "", "empty.csv: empty file"},
        {"header.csv", "a,label\n", "header.csv: no samples"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++)
        expect_scan_error(write_text(cases[k].name, cases[k].text), NULL, POLKA_ERR_FORMAT,
                          cases[k].want);
    polka_read_options options = {.label_column = "y"};
    expect_scan_error(write_text("noy.csv", "label,x\n1,2\n"), &options, POLKA_ERR_FORMAT,
                      "noy.csv:1: no label column 'y' in the header ('label', 'x')");
}

/* ---- IDX --------------------------------------------------------------------------------- */

enum { IDX_N = 7, IDX_ROWS = 2, IDX_COLS = 3, IDX_P = IDX_ROWS * IDX_COLS };

static void put_be32(unsigned char *b, uint32_t v) {
    b[0] = (unsigned char)(v >> 24);
    b[1] = (unsigned char)(v >> 16);
    b[2] = (unsigned char)(v >> 8);
    b[3] = (unsigned char)v;
}

static unsigned char pixel(size_t i, size_t j) {
    return (unsigned char)((i * 37 + j * 101 + 5) % 256);
}

/* An images file of n records of 2×3 pixels (bytes: its length, cut to keep when smaller). */
static size_t idx_images(unsigned char *b, uint32_t magic, uint32_t n) {
    put_be32(b, magic);
    put_be32(b + 4, n);
    put_be32(b + 8, IDX_ROWS);
    put_be32(b + 12, IDX_COLS);
    for (size_t i = 0; i < IDX_N; i++)
        for (size_t j = 0; j < IDX_P; j++) b[16 + i * IDX_P + j] = pixel(i, j);
    return 16 + IDX_N * IDX_P;
}

static size_t idx_labels(unsigned char *b, uint32_t magic, uint32_t n) {
    put_be32(b, magic);
    put_be32(b + 4, n);
    for (size_t i = 0; i < IDX_N; i++) b[8 + i] = (unsigned char)(2 * (i % 3) + 1);
    return 8 + IDX_N;
}

static void test_idx_read_back(void **state) {
    (void)state;
    unsigned char images[16 + IDX_N * IDX_P], labels[8 + IDX_N];
    size_t ni = idx_images(images, 0x803, IDX_N), nl = idx_labels(labels, 0x801, IDX_N);
    const char *paths[2] = {write_bytes("a-idx3-ubyte", images, ni, 0),
                            write_bytes("a-idx3-ubyte.gz", images, ni, 1)};
    polka_read_options options = {.labels_path = write_bytes("a-idx1-ubyte.gz", labels, nl, 1)};
    double x[IDX_N * IDX_P];
    for (size_t k = 0; k < IDX_N * IDX_P; k++) x[k] = pixel(k / IDX_P, k % IDX_P);
    polka_dataset data[2];
    for (int gz = 0; gz < 2; gz++) {
        polka_data_info info;
        CHECK_OK(polka_data_scan(paths[gz], &options, &info));
        assert_int_equal(info.classes, 3);
        assert_true(info.labels[0] == 1 && info.labels[1] == 3 && info.labels[2] == 5);
        check_stats(&info, x, IDX_N, IDX_P);
        CHECK_OK(polka_data_read(paths[gz], &options, &info, NULL, NULL, &data[gz], NULL));
        assert_int_equal(data[gz].n, IDX_N);
        assert_int_equal(data[gz].p, IDX_P);
        assert_memory_equal(data[gz].x, x, sizeof x);
        for (size_t i = 0; i < IDX_N; i++) assert_true(data[gz].y[i] == (double)(i % 3));
        polka_dataset kept;
        uint64_t *index = NULL;
        CHECK_OK(
            polka_data_read(paths[gz], &options, &info, keep_every_third, NULL, &kept, &index));
        assert_int_equal(kept.n, 3);
        for (size_t k = 0; k < 3; k++) {
            assert_int_equal(index[k], 3 * k);
            assert_memory_equal(kept.x + k * IDX_P, x + 3 * k * IDX_P, IDX_P * sizeof *x);
        }
        free(index);
        polka_dataset_free(&kept);
        polka_data_info_free(&info);
    }
    assert_memory_equal(data[0].x, data[1].x, sizeof x);
    assert_memory_equal(data[0].y, data[1].y, IDX_N * sizeof *data[0].y);
    polka_dataset_free(&data[0]);
    polka_dataset_free(&data[1]);
}

static void test_idx_other_shapes(void **state) {
    (void)state;
    /* 4 dims: 3 records of 2x1x2 values; and 1 dim: 3 records of one value */
    unsigned char four[4 + 16 + 12], one[4 + 4 + 3], labels[8 + 3];
    put_be32(four, 0x804);
    put_be32(four + 4, 3);
    put_be32(four + 8, 2);
    put_be32(four + 12, 1);
    put_be32(four + 16, 2);
    for (int k = 0; k < 12; k++) four[20 + k] = (unsigned char)(10 * k);
    put_be32(one, 0x801);
    put_be32(one + 4, 3);
    one[8] = 9, one[9] = 8, one[10] = 7;
    put_be32(labels, 0x801);
    put_be32(labels + 4, 3);
    labels[8] = 0, labels[9] = 1, labels[10] = 0;
    polka_read_options options = {.format = POLKA_FORMAT_IDX,
                                  .labels_path = write_bytes("l3", labels, sizeof labels, 0)};
    polka_data_info info;
    CHECK_OK(polka_data_scan(write_bytes("four", four, sizeof four, 0), &options, &info));
    assert_int_equal(info.p, 4);
    assert_true(info.max[3] == 110 && info.min[0] == 0);
    expect_read_error(write_bytes("one", one, sizeof one, 0), &options, &info,
                      "records of 1 values (1), but the training data has 4");
    polka_data_info_free(&info);
    CHECK_OK(polka_data_scan(tmp_path("one"), &options, &info));
    assert_int_equal(info.p, 1);
    assert_true(info.min[0] == 7 && info.max[0] == 9 && info.mean[0] == 8);
    polka_data_info_free(&info);
}

static void test_idx_errors(void **state) {
    (void)state;
    unsigned char images[16 + IDX_N * IDX_P], labels[8 + IDX_N];
    size_t ni = idx_images(images, 0x803, IDX_N), nl = idx_labels(labels, 0x801, IDX_N);
    polka_read_options options = {.labels_path = write_bytes("l-idx1-ubyte", labels, nl, 0)};
    const char *good = write_bytes("good-idx3-ubyte", images, ni, 0);

    idx_images(images, 0x12345678, IDX_N);
    expect_scan_error(write_bytes("magic-idx3-ubyte", images, ni, 0), &options, POLKA_ERR_FORMAT,
                      "byte offset 0: bad magic number 0x12345678");
    idx_images(images, 0xD03, IDX_N);
    expect_scan_error(write_bytes("float-idx3-ubyte", images, ni, 0), &options, POLKA_ERR_FORMAT,
                      "byte offset 2: unsupported IDX data type 0x0d (float)");
    idx_images(images, 0x803, IDX_N);
    expect_scan_error(write_bytes("cut-idx3-ubyte.gz", images, ni - 4, 1), &options,
                      POLKA_ERR_FORMAT,
                      "byte offset 54: truncated in record 6: the header announces 7 records of 6");
    expect_scan_error(write_bytes("hdr-idx3-ubyte", images, 10, 0), &options, POLKA_ERR_FORMAT,
                      "byte offset 10: truncated header (3 dimensions announced)");
    expect_scan_error(write_bytes("tiny-idx3-ubyte", images, 2, 0), &options, POLKA_ERR_FORMAT,
                      "byte offset 2: file too short for an IDX header");
    unsigned char longer[sizeof images + 1];
    memcpy(longer, images, ni);
    longer[ni] = 1;
    expect_scan_error(write_bytes("long-idx3-ubyte", longer, ni + 1, 0), &options, POLKA_ERR_FORMAT,
                      "byte offset 58: data after the 7 records");
    idx_images(images, 0x803, IDX_N + 1);
    /* gzipped: a plain file this short is refused by its size first */
    expect_scan_error(write_bytes("more-idx3-ubyte.gz", images, ni, 1), &options, POLKA_ERR_FORMAT,
                      "l-idx1-ubyte: byte offset 4: 7 labels, but the images file");

    /* the labels file */
    polka_read_options bad = options;
    idx_labels(labels, 0x801, IDX_N - 1);
    bad.labels_path = write_bytes("count-idx1-ubyte", labels, nl - 1, 0);
    expect_scan_error(bad.labels_path, NULL, POLKA_ERR_ARG, "needs a labels file");
    polka_data_info info;
    assert_int_equal(polka_data_scan(good, &bad, &info), POLKA_ERR_FORMAT);
    assert_non_null(strstr(polka_error_message(), "count-idx1-ubyte: byte offset 4: 6 labels, but "
                                                  "the images file"));
    idx_labels(labels, 0x801, IDX_N);
    bad.labels_path = write_bytes("cutlabels-idx1-ubyte.gz", labels, nl - 2, 1);
    assert_int_equal(polka_data_scan(good, &bad, &info), POLKA_ERR_FORMAT);
    assert_non_null(strstr(polka_error_message(), "cutlabels-idx1-ubyte.gz: byte offset 13: "
                                                  "truncated at label 5"));
    bad.labels_path = write_bytes("cutlabels-idx1-ubyte", labels, nl - 2, 0);
    assert_int_equal(polka_data_scan(good, &bad, &info), POLKA_ERR_FORMAT);
    assert_non_null(
        strstr(polka_error_message(),
               "cutlabels-idx1-ubyte: byte offset 8: truncated: the header announces 7 "
               "records of 1 bytes (7 bytes), but the file has 5 bytes after the header"));
    idx_labels(labels, 0x803, IDX_N);
    bad.labels_path = write_bytes("dims-idx1-ubyte", labels, nl, 0);
    assert_int_equal(polka_data_scan(good, &bad, &info), POLKA_ERR_FORMAT);
    assert_non_null(strstr(polka_error_message(), "dims-idx1-ubyte: byte offset 0: bad magic "
                                                  "number 0x00000803 (expected 0x00000801"));
    bad.labels_path = tmp_path("nolabels-idx1-ubyte");
    assert_int_equal(polka_data_scan(good, &bad, &info), POLKA_ERR_IO);
    assert_non_null(strstr(polka_error_message(), "nolabels-idx1-ubyte"));

    /* a test file whose labels are not classes of the training file */
    CHECK_OK(polka_data_scan(good, &options, &info));
    unsigned char other[8 + IDX_N];
    idx_labels(other, 0x801, IDX_N);
    other[8 + 4] = 200;
    bad.labels_path = write_bytes("other-idx1-ubyte", other, nl, 0);
    polka_dataset data;
    assert_int_equal(polka_data_read(good, &bad, &info, NULL, NULL, &data, NULL), POLKA_ERR_FORMAT);
    assert_non_null(strstr(polka_error_message(), "other-idx1-ubyte: record 4 (byte offset 12): "
                                                  "label 200 is not one of the 3 classes"));
    assert_null(data.x);
    polka_data_info_free(&info);

    /* a corrupt gzip stream */
    idx_images(images, 0x803, IDX_N);
    const char *path = write_bytes("z-idx3-ubyte.gz", images, ni, 1);
    FILE *file = fopen(path, "r+b");
    assert_non_null(file);
    assert_int_equal(fseek(file, 20, SEEK_SET), 0);
    fputc(0xff, file);
    fputc(0xff, file);
    fclose(file);
    assert_int_not_equal(polka_data_scan(path, &options, &info), POLKA_OK);
    assert_non_null(strstr(polka_error_message(), "z-idx3-ubyte.gz"));
}

/* ---- scaling ----------------------------------------------------------------------------- */

static void test_scaling_uses_train_statistics(void **state) {
    (void)state;
    const char *train = write_text("scale_train.csv", "a,b,c,label\n0,5,1,0\n2,5,3,1\n4,5,8,0\n");
    const char *test = write_text("scale_test.csv", "a,b,c,label\n1,7,2,1\n6,5,0,0\n");
    polka_data_info info;
    CHECK_OK(polka_data_scan(train, NULL, &info));
    double sa = sqrt(8.0 / 3.0), mc = 4.0, sc = sqrt((9.0 + 1.0 + 16.0) / 3.0);
    /* sums of small integers are exact in any order: σ is sqrt(S/3) to the quotient's rounding
     * (halved by sqrt) and sqrt's, here and in the scan: under 4u [Higham02, §2.2] */
    double sigma_tol = test_gamma(4);
    assert_true(close_rel(info.stddev[0], sa, sigma_tol) && info.stddev[1] == 0);
    assert_true(info.mean[2] == mc && close_rel(info.stddev[2], sc, sigma_tol));

    polka_dataset data;
    CHECK_OK(polka_data_read(test, NULL, &info, NULL, NULL, &data, NULL));
    polka_data_scale(&data, &info, POLKA_SCALE_UNIT);
    const double unit[6] = {0.25, 0, 1.0 / 7, 1.5, 0, -1.0 / 7};
    /* (x − min)·fl(1/range), x − min exact: two roundings; the quotient here one */
    for (int k = 0; k < 6; k++) assert_true(close_rel(data.x[k], unit[k], test_gamma(3)));
    polka_dataset_free(&data);

    CHECK_OK(polka_data_read(test, NULL, &info, NULL, NULL, &data, NULL));
    polka_data_scale(&data, &info, POLKA_SCALE_STANDARD);
    const double standard[6] = {-1 / sa, 0, (2 - mc) / sc, 4 / sa, 0, -mc / sc};
    /* (x − mean)·fl(1/σ), x − mean exact (integer means): two roundings and σ's 4u; one here */
    for (int k = 0; k < 6; k++) assert_true(close_rel(data.x[k], standard[k], test_gamma(7)));
    polka_data_scale(&data, &info, POLKA_SCALE_NONE);
    assert_true(close_rel(data.x[0], -1 / sa, test_gamma(7)));
    polka_dataset_free(&data);

    /* the training data itself: [0, 1] with min 0 and max 1; mean 0 and stddev 1 */
    CHECK_OK(polka_data_read(train, NULL, &info, NULL, NULL, &data, NULL));
    polka_data_scale(&data, &info, POLKA_SCALE_UNIT);
    assert_true(data.x[0] == 0 && data.x[6] == 1 && data.x[2] == 0 && data.x[8] == 1);
    polka_dataset_free(&data);
    CHECK_OK(polka_data_read(train, NULL, &info, NULL, NULL, &data, NULL));
    polka_data_scale(&data, &info, POLKA_SCALE_STANDARD);
    for (size_t j = 0; j < 3; j++) {
        double sum = 0, sq = 0, abs_sum = 0;
        for (size_t i = 0; i < 3; i++) {
            double v = data.x[i * 3 + j];
            sum += v;
            sq += v * v;
            abs_sum += fabs(v);
        }
        /* v = (x − mean)·f with one f and Σ(x − mean) = 0 exactly: each product's rounding and
         * the two sums' [Higham02, §3.1] */
        assert_true(fabs(sum) <= test_gamma(3) * abs_sum);
        /* Σv²/3 = f²σ²: f = 1/σ to 2.5u (var's quotient halved, sqrt, 1/σ), squared 5u; v² 3u
         * (v's rounding twice, the square), the sums 2u, /3 u */
        assert_true(j == 1 ? sq == 0 : close_rel(sq / 3, 1, test_gamma(11)));
    }
    polka_dataset_free(&data);
    polka_data_info_free(&info);
}

/* Sparse statistics with a shift far from zero stay accurate. */
static void test_scan_statistics_accuracy(void **state) {
    (void)state;
    enum { N = 1000 };
    char *text = malloc(N * 48);
    assert_non_null(text);
    double x[N * 2];
    size_t len = 0;
    for (int i = 0; i < N; i++) {
        x[2 * i] = 1e8 + (i % 7) * 0.001;
        x[2 * i + 1] = i % 4 == 0 ? 0.0 : i * 0.5;
        if (i % 4 == 0)
            len += (size_t)sprintf(text + len, "%d 1:%.17g\n", i % 2, x[2 * i]);
        else
            len +=
                (size_t)sprintf(text + len, "%d 1:%.17g 2:%.17g\n", i % 2, x[2 * i], x[2 * i + 1]);
    }
    polka_data_info info;
    CHECK_OK(polka_data_scan(write_bytes("accuracy.svm", text, len, 0), NULL, &info));
    free(text);
    check_stats(&info, x, N, 2);
    polka_data_info_free(&info);
}

/* ---- Fashion-MNIST ----------------------------------------------------------------------- */

#define FASHION "/usr/share/datasets/fashion-mnist/"

static double seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void test_fashion_mnist(void **state) {
    (void)state;
    struct stat st;
    if (stat(FASHION "train-images-idx3-ubyte.gz", &st) != 0) {
        print_message("Fashion-MNIST not installed (apt-get install dataset-fashion-mnist)\n");
        skip();
    }
    double start = seconds();
    polka_read_options train_options = {.labels_path = FASHION "train-labels-idx1-ubyte.gz"};
    polka_read_options test_options = {.labels_path = FASHION "t10k-labels-idx1-ubyte.gz"};
    polka_data_info info;
    CHECK_OK(polka_data_scan(FASHION "train-images-idx3-ubyte.gz", &train_options, &info));
    double scanned = seconds();
    polka_dataset train, test;
    CHECK_OK(polka_data_read(FASHION "train-images-idx3-ubyte.gz", &train_options, &info, NULL,
                             NULL, &train, NULL));
    double read = seconds();
    CHECK_OK(polka_data_read(FASHION "t10k-images-idx3-ubyte.gz", &test_options, &info, NULL, NULL,
                             &test, NULL));
    double done = seconds();
    print_message("Fashion-MNIST: scan train %.3f s, read train %.3f s, read test %.3f s\n",
                  scanned - start, read - scanned, done - read);
    assert_int_equal(info.n, 60000);
    assert_int_equal(info.p, 784);
    assert_int_equal(info.classes, 10);
    for (size_t k = 0; k < 10; k++) assert_true(info.labels[k] == (double)k);
    assert_true(train.n == 60000 && train.p == 784 && train.classes == 10);
    assert_true(test.n == 10000 && test.p == 784 && test.classes == 10);
    size_t counts[10] = {0};
    for (size_t i = 0; i < test.n; i++) counts[(int)test.y[i]]++;
    for (size_t c = 0; c < 10; c++) assert_int_equal(counts[c], 1000);
    double top = 0;
    for (size_t j = 0; j < 784; j++) top = info.max[j] > top ? info.max[j] : top;
    assert_true(top == 255 && info.min[0] == 0);
    polka_dataset_free(&train);
    polka_dataset_free(&test);
    polka_data_info_free(&info);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_strtod_matches_reference),
        cmocka_unit_test(test_libsvm_read_back),
        cmocka_unit_test(test_libsvm_gzip_and_long_lines),
        cmocka_unit_test(test_label_map_and_regression),
        cmocka_unit_test(test_row_classes),
        cmocka_unit_test(test_libsvm_errors),
        cmocka_unit_test(test_read_empty_test_files),
        cmocka_unit_test(test_csv_read_back),
        cmocka_unit_test(test_csv_test_header_must_match),
        cmocka_unit_test(test_csv_other_label_column),
        cmocka_unit_test(test_csv_errors),
        cmocka_unit_test(test_idx_read_back),
        cmocka_unit_test(test_idx_other_shapes),
        cmocka_unit_test(test_idx_errors),
        cmocka_unit_test(test_scaling_uses_train_statistics),
        cmocka_unit_test(test_scan_statistics_accuracy),
        cmocka_unit_test(test_fashion_mnist),
    };
    return cmocka_run_group_tests(tests, make_tmp_dir, remove_tmp_dir);
}
