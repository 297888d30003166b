/* The result of a scan: the per-feature statistics (one entry per feature that occurs in a
 * LIBSVM file, every feature of the others), the label map, and reading a feature's statistics
 * back (the rules are described in polka/dataio.h). */
#include "data/dataio_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int compare_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The distinct labels, increasing, into info; sorted in place, or in a copy when every sample's
 * class is wanted (dataio_row_classes maps the labels in file order). */
static polka_status stats_label_map(dataio_stats *stats, polka_data_info *info) {
    if (stats->regression) return POLKA_OK;
    double *sorted = stats->labels;
    if (stats->row_classes) {
        sorted = malloc((stats->n ? stats->n : 1) * sizeof *sorted);
        POLKA_CHECK(sorted, POLKA_ERR_MEM, "out of memory for the labels of %zu samples", stats->n);
        memcpy(sorted, stats->labels, stats->n * sizeof *sorted);
    }
    qsort(sorted, stats->n, sizeof *sorted, compare_double);
    size_t classes = 0;
    for (size_t i = 0; i < stats->n; i++)
        if (classes == 0 || sorted[i] != sorted[classes - 1]) sorted[classes++] = sorted[i];
    info->labels = malloc(classes * sizeof *info->labels);
    if (info->labels) memcpy(info->labels, sorted, classes * sizeof *info->labels);
    if (sorted != stats->labels) free(sorted);
    POLKA_CHECK_ALLOC(info->labels);
    info->classes = classes;
    return stats->row_classes ? dataio_row_classes(stats, info) : POLKA_OK;
}

/* Entry e of info: the statistics over n samples of the sums at `at` (a sparse scan's slot, or
 * the feature of a dense one), count values and n − count zeros. */
static void stats_entry(const dataio_stats *stats, size_t at, size_t e, polka_data_info *info) {
    double n = (double)stats->n;
    size_t count = stats->count[at] + stats->dense_rows;
    size_t zeros = stats->n - count;
    double shift = stats->shift[at];
    double s1 = stats->s1[at] - (double)zeros * shift;
    double s2 = stats->s2[at] + (double)zeros * shift * shift;
    double var = (s2 - s1 * s1 / n) / n;
    info->mean[e] = shift + s1 / n;
    /* an overflow (var NaN or infinite) stays visible: check_entry refuses it */
    info->stddev[e] = var > 0 || isnan(var) ? sqrt(var) : 0.0;
    info->min[e] = count == 0 ? 0.0 : stats->min[at];
    info->max[e] = count == 0 ? 0.0 : stats->max[at];
    if (zeros > 0 && info->min[e] > 0) info->min[e] = 0.0;
    if (zeros > 0 && info->max[e] < 0) info->max[e] = 0.0;
}

/* POLKA_ERR_FORMAT naming info->path and the feature when the statistics of entry e are not
 * finite. */
static polka_status check_entry(const polka_data_info *info, size_t e) {
    double range = info->max[e] - info->min[e];
    if (isfinite(range) && isfinite(info->mean[e]) && isfinite(info->stddev[e])) return POLKA_OK;
    size_t j = info->feature ? info->feature[e] : e;
    return polka_error_set(POLKA_ERR_FORMAT,
                           "%s: feature %zu: its values, from %g to %g, overflow its statistics "
                           "(range %g, mean %g, standard deviation %g): rescale the data",
                           info->path, j + 1, info->min[e], info->max[e], range, info->mean[e],
                           info->stddev[e]);
}

/* The entries' statistics: of the features that occurred (sparse scan), else of all p. */
static polka_status stats_entries(const dataio_stats *stats, polka_data_info *info) {
    size_t features = stats->sparse ? stats->slots : stats->p;
    if (stats->sparse) POLKA_CALL(dataio_stats_features(stats, &info->feature));
    size_t count = features ? features : 1;
    info->min = malloc(count * sizeof *info->min);
    info->max = malloc(count * sizeof *info->max);
    info->mean = malloc(count * sizeof *info->mean);
    info->stddev = malloc(count * sizeof *info->stddev);
    POLKA_CHECK_ALLOC(info->min && info->max && info->mean && info->stddev ? info->min : NULL);
    info->features = features;
    for (size_t e = 0; e < features; e++) {
        size_t at = info->feature ? dataio_stats_find(stats, info->feature[e]) : e;
        stats_entry(stats, at, e, info);
        POLKA_CALL(check_entry(info, e));
    }
    return POLKA_OK;
}

/* The samples' offsets (handed over) and the file's identity, when the scan recorded them. */
static polka_status stats_offsets(dataio_stats *stats, const char *path, polka_data_info *info) {
    struct stat st;
    if (!stats->offsets || stat(path, &st) != 0) return POLKA_OK; /* a whole read then */
    info->sample_offset = stats->offset;
    info->bare_line = stats->bare;
    info->bare_lines = stats->bares;
    stats->offset = stats->bare = NULL;
    info->file_size = (uint64_t)st.st_size;
    info->file_mtime = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
    return POLKA_OK;
}

polka_status dataio_stats_finish(dataio_stats *stats, const char *path, polka_data_info *info) {
    info->n = stats->n;
    info->p = stats->p;
    info->path = malloc(strlen(path) + 1);
    POLKA_CHECK_ALLOC(info->path);
    strcpy(info->path, path);
    info->columns = stats->columns;
    info->column_names = stats->column_names; /* handed over */
    stats->column_names = NULL;
    POLKA_CALL(stats_entries(stats, info));
    POLKA_CALL(stats_offsets(stats, path, info));
    return stats_label_map(stats, info);
}

void polka_data_info_free(polka_data_info *info) {
    if (info == NULL) return;
    free(info->labels);
    free(info->feature);
    free(info->min);
    free(info->max);
    free(info->mean);
    free(info->stddev);
    free(info->path);
    free(info->column_names);
    free(info->row_class);
    free(info->sample_offset);
    free(info->bare_line);
    *info = (polka_data_info){0};
}

int dataio_info_entry(const polka_data_info *info, size_t j, size_t from, size_t *entry) {
    if (info->feature == NULL) {
        *entry = j;
        return j < info->features;
    }
    size_t lo = from, hi = info->features;          /* the entry of j is in [lo, hi) if anywhere */
    if (lo < hi && info->feature[lo] >= j) hi = lo; /* the usual case of a walk: j is next */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (info->feature[mid] < j)
            lo = mid + 1;
        else
            hi = mid;
    }
    *entry = lo;
    return lo < info->features && info->feature[lo] == j;
}

polka_feature_stats polka_data_feature(const polka_data_info *info, size_t j) {
    size_t e = 0;
    if (!dataio_info_entry(info, j, 0, &e)) return (polka_feature_stats){0.0, 0.0, 0.0, 0.0};
    return (polka_feature_stats){info->min[e], info->max[e], info->mean[e], info->stddev[e]};
}
