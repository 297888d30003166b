/* The scan and the scaling of a LIBSVM file of a huge dimension keep
 * statistics only for the features that occur. "1 1:0.5 16777216:1" (2^24 features) took
 * 550 MB to 1 GB before (the info's four arrays of 2^24 doubles, then the scaling's three);
 * dataio.cmake runs this test under ulimit -v 100 MB (it needs less than 40 MB), where any one
 * of those arrays back (128 MB) fails it. No row of the dimension is expanded here. */
#include <stdlib.h>
#include <string.h>

#include "dataio_files.h"
#include "polka/dataio.h"
#include "test_util.h"

#define WIDE ((size_t)1 << 24)

/* Feature 1, 2 and 2^24 occur (0-based 0, 1, 2^24 − 1); feature 3 only in the test file. */
static const char train_text[] = "1 1:0.5 16777216:1\n-1 2:1 16777216:3\n";
static const char test_text[] = "1 3:7 16777216:5\n";

static void assert_stats(const polka_data_info *info, size_t j, double min, double max, double mean,
                         double stddev) {
    polka_feature_stats f = polka_data_feature(info, j);
    if (f.min != min || f.max != max || f.mean != mean || f.stddev != stddev)
        fail_msg("feature %zu: %g %g %g %g, not %g %g %g %g", j + 1, f.min, f.max, f.mean, f.stddev,
                 min, max, mean, stddev);
}

/* The storage a run's data.storage = auto picks: sparse for these files. */
static const polka_read_options automatic = {.storage = POLKA_STORAGE_AUTO};

static void scan_wide(polka_data_info *info) {
    CHECK_OK(polka_data_scan(write_text("wide.svm", train_text), &automatic, info));
    assert_int_equal(info->p, WIDE);
    assert_int_equal(info->features, 3);
    const uint32_t want[3] = {0, 1, WIDE - 1};
    assert_memory_equal(info->feature, want, sizeof want);
}

static void test_scan_keeps_features_that_occur(void **state) {
    (void)state;
    polka_data_info info;
    scan_wide(&info);
    assert_stats(&info, 0, 0, 0.5, 0.25, 0.25);
    assert_stats(&info, 1, 0, 1, 0.5, 0.5);
    assert_stats(&info, WIDE - 1, 1, 3, 2, 1);
    /* the implicit zero column, on either side of the entries */
    assert_stats(&info, 2, 0, 0, 0, 0);
    assert_stats(&info, WIDE / 2, 0, 0, 0, 0);
    assert_stats(&info, WIDE - 2, 0, 0, 0, 0);
    assert_true(polka_data_sparse_pays(&info));
    polka_data_info_free(&info);
}

/* Reads path with info (sparse, as the automatic storage picks) and scales it. */
static void read_scaled(const char *path, const polka_data_info *info, polka_scale_kind kind,
                        polka_dataset *data) {
    CHECK_OK(polka_data_read(path, &automatic, info, NULL, NULL, data, NULL));
    assert_non_null(data->sparse);
    CHECK_OK(polka_data_scale(data, info, kind));
    assert_true(data->sparse->scaled);
}

static void test_scaling_keeps_bases_that_occur(void **state) {
    (void)state;
    polka_data_info info;
    scan_wide(&info);
    polka_dataset data;
    /* unit: only feature 2^24 (from 1 to 3) moves an absent value: 0 → (0 − 1)/2 */
    read_scaled(tmp_path("wide.svm"), &info, POLKA_SCALE_UNIT, &data);
    const double unit[4] = {1, 0, 1, 1};
    assert_memory_equal(data.sparse->value, unit, sizeof unit);
    assert_int_equal(data.sparse->bases, 1);
    assert_int_equal(data.sparse->base_index[0], WIDE - 1);
    assert_true(data.sparse->base[0] == -0.5);
    polka_dataset_free(&data);
    /* standard: every feature that occurs has a mean, none of the others */
    read_scaled(tmp_path("wide.svm"), &info, POLKA_SCALE_STANDARD, &data);
    const double standard[4] = {1, -1, 1, 1};
    assert_memory_equal(data.sparse->value, standard, sizeof standard);
    const uint32_t based[3] = {0, 1, WIDE - 1};
    const double base[3] = {-1, -1, -2};
    assert_int_equal(data.sparse->bases, 3);
    assert_memory_equal(data.sparse->base_index, based, sizeof based);
    assert_memory_equal(data.sparse->base, base, sizeof base);
    polka_dataset_free(&data);
    /* a test value of a feature the training file never lists scales to 0 */
    read_scaled(write_text("wide.svm.t", test_text), &info, POLKA_SCALE_UNIT, &data);
    const double test[2] = {0, 2};
    assert_memory_equal(data.sparse->value, test, sizeof test);
    polka_dataset_free(&data);
    polka_data_info_free(&info);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scan_keeps_features_that_occur),
        cmocka_unit_test(test_scaling_keeps_bases_that_occur),
    };
    return cmocka_run_group_tests(tests, make_tmp_dir, remove_tmp_dir);
}
