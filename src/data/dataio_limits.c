/* What data may cost and hold: the memory limit (the process's, polka/memory.h, unless the
 * options give one), the sparsity rule, finite magnitudes, and scaling (which must leave finite
 * values). The rules are described in polka/dataio.h. */
#include "data/dataio_impl.h"
#include "polka/memory.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double MB = 1024.0 * 1024.0;

size_t dataio_memory_limit(const polka_read_options *options) {
    if (options->memory_limit > 0) return options->memory_limit;
    return polka_data_memory_limit();
}

const char *dataio_memory_origin(size_t limit) {
    return polka_data_memory_origin(limit);
}

const char *dataio_size_text(double bytes) {
    static char texts[4][32];
    static unsigned next;
    char *text = texts[next++ % 4];
    if (bytes < 0.1 * MB)
        snprintf(text, sizeof texts[0], "%.0f byte%s", bytes, bytes == 1 ? "" : "s");
    else
        snprintf(text, sizeof texts[0], "%.1f MB", bytes / MB);
    return text;
}

polka_status polka_memory_parse(const char *text, size_t *bytes) {
    if (strcmp(text, "auto") == 0) {
        *bytes = 0;
        return POLKA_OK;
    }
    char *end = NULL;
    errno = 0;
    double value = text[0] >= '0' && text[0] <= '9' ? strtod(text, &end) : -1.0;
    const char *units = "KMGT", *unit = end && *end ? strchr(units, *end) : NULL;
    if (unit) value *= pow(1024.0, (double)(unit - units + 1)), end++;
    POLKA_CHECK(value >= 1.0 && errno == 0 && end && *end == '\0' && value < (double)SIZE_MAX,
                POLKA_ERR_ARG,
                "data.memory: '%s' is neither auto nor a number of bytes (e.g. 512M, 2G)", text);
    *bytes = (size_t)value;
    return POLKA_OK;
}

polka_status dataio_stats_fit(const dataio_stats *stats, size_t p) {
    /* dense: 48 bytes of running sums per feature in the scan and 32 in the info it returns;
     * sparse: per feature that occurs (with the next one), 48 of sums and two 16-byte cells of
     * the table, room for as many again as the arrays grow, and 36 in the info (its index) */
    size_t counted = stats->sparse ? stats->slots + 1 : p;
    double bytes = (stats->sparse ? 2.0 * 80.0 + 36.0 : 80.0) * (double)counted;
    double caller = (double)stats->feature_bytes * (double)p;
    double limit = (double)stats->memory_limit;
    if (bytes + caller <= limit) return POLKA_OK;
    char kept[96] = ""; /* sparse: the features whose statistics are kept */
    if (stats->sparse)
        snprintf(kept, sizeof kept, "kept for the %zu that occur%s", counted,
                 counted == 1 ? "s" : "");
    if (caller == 0)
        return polka_error_set(POLKA_ERR_MEM,
                               "the statistics of %zu features%s%s%s take %s, over the memory "
                               "limit of %s%s",
                               p, *kept ? " (" : "", kept, *kept ? ")" : "",
                               dataio_size_text(bytes), dataio_size_text(limit),
                               dataio_memory_origin(stats->memory_limit));
    return polka_error_set(POLKA_ERR_MEM,
                           "%zu features: their statistics (%s%s%s) and the run's dense rows of "
                           "them (%s, %zu bytes per feature) take %s, over the memory "
                           "limit of %s%s",
                           p, dataio_size_text(bytes), *kept ? ", " : "", kept,
                           dataio_size_text(caller), stats->feature_bytes,
                           dataio_size_text(bytes + caller), dataio_size_text(limit),
                           dataio_memory_origin(stats->memory_limit));
}

/* The sparsity rule: n samples of p features stored dense, for `values` listed values. */
static polka_status check_density(double n, size_t p, double values) {
    double dense = n * (double)p;
    if (dense <= (double)POLKA_DATAIO_DENSE_FLOOR || dense <= POLKA_DATAIO_MAX_SPARSITY * values)
        return POLKA_OK;
    return polka_error_set(POLKA_ERR_FORMAT,
                           "%.0f samples of %zu features are %.3g values stored dense, for %.0f "
                           "values in the file: dense storage refuses data more than %d times "
                           "sparser than that (sparse storage keeps only the listed values: "
                           "data.storage = auto or sparse)",
                           n, p, dense, values, POLKA_DATAIO_MAX_SPARSITY);
}

polka_status dataio_stats_grow_sparse(dataio_stats *stats, size_t p, size_t nnz) {
    stats->values += (double)nnz;
    if (p <= stats->p) return POLKA_OK;
    if (stats->dense_storage) POLKA_CALL(check_density((double)stats->n + 1, p, stats->values));
    POLKA_CALL(dataio_stats_fit(stats, p)); /* the sums grow per slot (dataio_stats_slot) */
    stats->p = p;
    return POLKA_OK;
}

polka_status dataio_stats_check_density(const dataio_stats *stats, const char *path) {
    /* a dense format lists every value; sparse storage keeps only the listed ones */
    if (stats->dense_rows > 0 || !stats->dense_storage) return POLKA_OK;
    polka_status status = check_density((double)stats->n, stats->p, stats->values);
    if (status != POLKA_OK) return polka_error_set(status, "%s: %s", path, polka_error_message());
    return POLKA_OK;
}

int dataio_norm_finite(const double *x, size_t count) {
    double sum = 0.0;
    for (size_t j = 0; j < count; j++) sum += x[j] * x[j];
    return isfinite(sum);
}

/* ---- scaling ----------------------------------------------------------------------------- */

void dataio_scale_terms(const polka_data_info *info, polka_scale_kind kind, size_t j, double *shift,
                        double *factor) {
    dataio_terms_of(polka_data_feature(info, j), kind, shift, factor);
}

void dataio_terms_of(polka_feature_stats f, polka_scale_kind kind, double *shift, double *factor) {
    /* zeros (a feature that never occurs): a shift 0 and a factor 0 */
    if (kind == POLKA_SCALE_UNIT) {
        double range = f.max - f.min;
        *shift = f.min;
        *factor = range > 0 ? 1.0 / range : 0.0;
    } else {
        *shift = f.mean;
        *factor = f.stddev > 0 ? 1.0 / f.stddev : 0.0;
    }
}

static void scale_feature(polka_dataset *data, const polka_data_info *info, polka_scale_kind kind,
                          size_t j) {
    double shift, factor;
    dataio_scale_terms(info, kind, j, &shift, &factor);
    size_t p = data->p;
    for (size_t i = 0; i < data->n; i++) {
        double *x = data->x + i * p + j;
        *x = (*x - shift) * factor;
    }
}

int dataio_scaled_too_large(double x) {
    return !(isfinite(x) && fabs(x) < 1e150);
}

polka_status dataio_scale_error(const polka_data_info *info, polka_scale_kind kind, size_t i,
                                size_t j, double x_j) {
    polka_feature_stats f = polka_data_feature(info, j);
    return polka_error_set(POLKA_ERR_FORMAT,
                           "sample %zu: feature %zu is %g after %s scaling with the statistics of "
                           "'%s' (from %g to %g, mean %g, standard deviation %g): its squared "
                           "norm is not finite",
                           i + 1, j + 1, x_j, polka_scale_kind_name(kind),
                           info->path ? info->path : "(the training data)", f.min, f.max, f.mean,
                           f.stddev);
}

/* The error for dense row i (p values x) whose ‖x‖² is not finite. */
static polka_status dense_scale_error(const double *x, size_t p, const polka_data_info *info,
                                      polka_scale_kind kind, size_t i) {
    size_t j = 0;
    while (j + 1 < p && !dataio_scaled_too_large(x[j])) j++;
    return dataio_scale_error(info, kind, i, j, x[j]);
}

polka_status polka_data_scale(polka_dataset *data, const polka_data_info *info,
                              polka_scale_kind kind) {
    if (kind == POLKA_SCALE_NONE || data->p != info->p) return POLKA_OK;
    if (data->sparse) return dataio_scale_sparse(data, info, kind);
    for (size_t j = 0; j < data->p; j++) scale_feature(data, info, kind, j);
    for (size_t i = 0; i < data->n; i++)
        if (!dataio_norm_finite(data->x + i * data->p, data->p))
            return dense_scale_error(data->x + i * data->p, data->p, info, kind, i);
    return POLKA_OK;
}
