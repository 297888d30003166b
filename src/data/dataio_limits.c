/* What data may cost and hold: the memory limit, the sparsity rule, finite magnitudes, and
 * scaling (which must leave finite values). The rules are described in polka/dataio.h. */
#include "data/dataio_impl.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static const double MB = 1024.0 * 1024.0;

/* MemAvailable of /proc/meminfo in bytes, or 0 when it cannot be read. */
static size_t mem_available(void) {
    FILE *f = fopen("/proc/meminfo", "r");
    if (f == NULL) return 0;
    char line[256];
    unsigned long long kb = 0;
    while (fgets(line, sizeof line, f) != NULL)
        if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) break;
    fclose(f);
    return kb > SIZE_MAX / 1024 ? SIZE_MAX : (size_t)kb * 1024;
}

static size_t below_limit(size_t bytes, int resource) {
    struct rlimit limit;
    if (getrlimit(resource, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return bytes;
    return limit.rlim_cur < bytes ? (size_t)limit.rlim_cur : bytes;
}

/* The first number of a file (a cgroup's memory.max or memory.current), or 0 ("max", none). */
static double read_number(const char *dir, const char *name) {
    char path[512];
    snprintf(path, sizeof path, "/sys/fs/cgroup%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    if (f == NULL) return 0.0;
    double value = 0.0;
    if (fscanf(f, "%lf", &value) != 1) value = 0.0;
    fclose(f);
    return value;
}

/* The headroom of this process's cgroup (v2: memory.max − memory.current), or 0 unlimited. */
static double cgroup_headroom(void) {
    FILE *f = fopen("/proc/self/cgroup", "r");
    if (f == NULL) return 0.0;
    char line[512], dir[480] = "";
    while (fgets(line, sizeof line, f) != NULL)
        if (sscanf(line, "0::%479s", dir) == 1) break;
    fclose(f);
    if (dir[0] == '\0') return 0.0;
    if (strcmp(dir, "/") == 0) dir[0] = '\0';
    double max = read_number(dir, "memory.max"), used = read_number(dir, "memory.current");
    return max > 0 ? fmax(max - used, 1.0) : 0.0;
}

/* The Slurm job's memory on this node in bytes (--mem or --mem-per-cpu), or 0. */
static double slurm_memory(void) {
    const char *node = getenv("SLURM_MEM_PER_NODE"), *cpu = getenv("SLURM_MEM_PER_CPU");
    const char *cpus = getenv("SLURM_CPUS_ON_NODE");
    double mb = node ? atof(node) : cpu && cpus ? atof(cpu) * atof(cpus) : 0.0;
    return mb > 0 ? mb * MB : 0.0;
}

static struct {
    size_t limit;     /* polka_data_memory_share: bytes, or 0 (automatic) */
    unsigned sharers; /* processes sharing the node (0 read as 1) */
    size_t automatic; /* the last automatic limit, and what it came from */
    char origin[200];
} share;

void polka_data_memory_share(size_t limit, unsigned sharers) {
    share.limit = limit;
    share.sharers = sharers;
}

/* The node's available memory (the least of what the machine, the cgroup and Slurm allow),
 * divided among the processes sharing it; share.origin says so. */
static size_t node_share(void) {
    double bytes = (double)mem_available();
    if (bytes == 0) {
        long pages = sysconf(_SC_AVPHYS_PAGES), size = sysconf(_SC_PAGESIZE);
        bytes = pages > 0 && size > 0 ? (double)pages * (double)size : (double)SIZE_MAX;
    }
    const char *from = "available on this node";
    double cgroup = cgroup_headroom(), slurm = slurm_memory();
    if (cgroup > 0 && cgroup < bytes) bytes = cgroup, from = "left in this job's cgroup";
    if (slurm > 0 && slurm < bytes) bytes = slurm, from = "of the Slurm job on this node";
    unsigned sharers = share.sharers ? share.sharers : 1;
    snprintf(share.origin, sizeof share.origin,
             " (data.memory = auto: %.0f MB %s, shared by %u process%s)", bytes / MB, from, sharers,
             sharers == 1 ? "" : "es");
    double mine = bytes / sharers;
    return mine < 0x1p63 ? (size_t)mine : SIZE_MAX;
}

size_t dataio_memory_limit(const polka_read_options *options) {
    if (options->memory_limit > 0) return options->memory_limit;
    if (share.limit > 0) return share.limit;
    size_t node = node_share();
    share.automatic = below_limit(below_limit(node, RLIMIT_AS), RLIMIT_DATA);
    if (share.automatic < node) /* the process's own limit is the smaller */
        snprintf(share.origin, sizeof share.origin, " (ulimit -v or -d of this process)");
    return share.automatic;
}

const char *dataio_memory_origin(size_t limit) {
    return share.limit == 0 && limit == share.automatic ? share.origin : "";
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

size_t polka_data_memory_limit(void) {
    return dataio_memory_limit(&(polka_read_options){0});
}

const char *polka_data_memory_origin(size_t limit) {
    return dataio_memory_origin(limit);
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
