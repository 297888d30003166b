/* The run file's writer: creation, one row per log step, closing. Collective throughout.
 * Creating and closing agree on a status after every collective HDF5 call, so that a failure
 * on one rank stops every rank at the same point instead of leaving the others in a
 * collective. A row takes a few dozen collective HDF5 calls and is written at every log
 * step: it is agreed once, after its last call (polka_runfile_append_agents; a rank stops at
 * its first HDF5 error and waits at most POLKA_NET_FAILED_WAIT for the others, as with any
 * failure inside a library's collective call). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runfile_impl.h"
#include "polka/net.h"

/* Rows per chunk of a metric, bounded so that a chunk stays under about 1 MiB. */
#define RUNFILE_CHUNK_ROWS  64
#define RUNFILE_CHUNK_BYTES ((size_t)1 << 20)

/* ---- checks of the arguments ------------------------------------------------------------ */

static polka_status check_name(const char *name, size_t m) {
    POLKA_CHECK(name != NULL && name[0] != '\0', POLKA_ERR_ARG, "metric %zu has no name", m);
    POLKA_CHECK(strchr(name, '/') == NULL && strcmp(name, ".") != 0, POLKA_ERR_ARG,
                "metric name '%s' contains '/'", name);
    POLKA_CHECK(strcmp(name, "round") != 0 && strcmp(name, "samples") != 0, POLKA_ERR_ARG,
                "metric name '%s' is reserved", name);
    return POLKA_OK;
}

static polka_status check_create(const char *path, size_t agents, size_t metric_count,
                                 const char *const *names) {
    POLKA_CHECK(path != NULL && path[0] != '\0', POLKA_ERR_ARG, "run file: empty path");
    POLKA_CHECK(agents > 0, POLKA_ERR_ARG, "run file '%s': needs at least one agent", path);
    POLKA_CHECK(metric_count == 0 || names != NULL, POLKA_ERR_ARG, "run file '%s': no names", path);
    for (size_t m = 0; m < metric_count; m++) {
        POLKA_CALL(check_name(names[m], m));
        for (size_t k = 0; k < m; k++)
            POLKA_CHECK(strcmp(names[k], names[m]) != 0, POLKA_ERR_ARG,
                        "run file '%s': metric '%s' named twice", path, names[m]);
    }
    return POLKA_OK;
}

/* ---- creation ---------------------------------------------------------------------------- */

static polka_status alloc_log(const char *path, MPI_Comm comm, size_t agents, size_t metric_count,
                              const char *const *names, polka_runfile **out) {
    polka_runfile *log = calloc(1, sizeof *log);
    POLKA_CHECK_ALLOC(log);
    *out = log; /* freed by polka_runfile_close even when half built */
    log->comm = comm;
    MPI_Comm_rank(comm, &log->rank);
    MPI_Comm_size(comm, &log->size);
    log->file = log->metrics = log->xfer = log->round = log->samples = H5I_INVALID_HID;
    log->agents = agents;
    log->stride = 1;
    log->logged = agents;
    log->path = malloc(strlen(path) + 1);
    log->columns = malloc((metric_count + 1) * sizeof *log->columns);
    log->names = calloc(metric_count + 1, sizeof *log->names);
    log->scratch = malloc(agents * sizeof *log->scratch);
    POLKA_CHECK_ALLOC(log->path);
    POLKA_CHECK_ALLOC(log->columns);
    POLKA_CHECK_ALLOC(log->names);
    POLKA_CHECK_ALLOC(log->scratch);
    strcpy(log->path, path);
    for (size_t m = 0; m < metric_count; m++) {
        log->columns[m] = H5I_INVALID_HID;
        log->names[m] = malloc(strlen(names[m]) + 1);
        POLKA_CHECK_ALLOC(log->names[m]);
        strcpy(log->names[m], names[m]);
        log->metric_count = m + 1;
    }
    return POLKA_OK;
}

/* Rank 0 checks that the path can be created and written (a few KiB, as the file's first
 * flush), for a plain message (POLKA_ERR_IO): a write failing inside HDF5's collective calls
 * leaves the other ranks waiting there (see POLKA_NET_FAILED_WAIT). */
static polka_status probe_path(const polka_runfile *log) {
    if (log->rank != 0) return POLKA_OK;
    FILE *file = fopen(log->path, "wb");
    POLKA_CHECK(file != NULL, POLKA_ERR_IO, "cannot create run file '%s': %s", log->path,
                strerror(errno));
    static const char zeros[4096];
    int failed = fwrite(zeros, 1, sizeof zeros, file) != sizeof zeros || fflush(file) != 0;
    int code = errno;
    failed |= fclose(file) != 0;
    if (!failed) return POLKA_OK;
    return polka_error_set(POLKA_ERR_IO, "cannot write run file '%s': %s", log->path,
                           strerror(code ? code : errno));
}

static polka_status open_file(polka_runfile *log) {
    polka_h5_quiet();
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl < 0) return polka_h5_fail("create the file access list of", NULL, log->path);
    polka_status status = POLKA_OK;
    if (H5Pset_fapl_mpio(fapl, log->comm, MPI_INFO_NULL) < 0 ||
        H5Pset_coll_metadata_write(fapl, 1) < 0)
        status = polka_h5_fail("set the MPI-IO driver for", NULL, log->path);
    if (status == POLKA_OK) {
        log->file = H5Fcreate(log->path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
        if (log->file < 0) {
            status = polka_h5_fail("create run file", NULL, log->path);
            status = polka_error_set(POLKA_ERR_IO, "%s", polka_error_message());
        }
    }
    status = polka_h5_first(status, polka_h5_close(&fapl, log->path));
    if (status != POLKA_OK) return status;
    log->xfer = H5Pcreate(H5P_DATASET_XFER);
    if (log->xfer < 0 || H5Pset_dxpl_mpio(log->xfer, H5FD_MPIO_COLLECTIVE) < 0)
        return polka_h5_fail("create the collective transfer list of", NULL, log->path);
    return POLKA_OK;
}

/* The dataset creation list of an extendible metric: chunked, NaN where never written. */
static polka_status metric_dcpl(int rank, const hsize_t *chunk, const char *name, const char *path,
                                hid_t *out) {
    const double fill = NAN;
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    if (dcpl < 0) return polka_h5_fail("create the creation list of", name, path);
    if (H5Pset_chunk(dcpl, rank, chunk) < 0 ||
        H5Pset_fill_value(dcpl, H5T_NATIVE_DOUBLE, &fill) < 0) {
        polka_status status = polka_h5_fail("set the chunks of", name, path);
        (void)polka_h5_close(&dcpl, path);
        return status;
    }
    *out = dcpl;
    return POLKA_OK;
}

/* An extendible dataset under /metrics: (0) or (0 × agents) when columns > 0. */
static polka_status create_metric(polka_runfile *log, const char *name, size_t columns,
                                  const char *description, hid_t *out) {
    int rank = columns > 0 ? 2 : 1;
    size_t rows = RUNFILE_CHUNK_BYTES / (sizeof(double) * (columns > 0 ? columns : 1));
    rows = rows < 1 ? 1 : rows > RUNFILE_CHUNK_ROWS ? RUNFILE_CHUNK_ROWS : rows;
    hsize_t dims[2] = {0, columns}, maxdims[2] = {H5S_UNLIMITED, columns};
    hsize_t chunk[2] = {rows, columns};
    if (columns == 0) chunk[0] = RUNFILE_CHUNK_ROWS * 16;
    hid_t dcpl = H5I_INVALID_HID;
    POLKA_CALL(metric_dcpl(rank, chunk, name, log->path, &dcpl));
    polka_status status = POLKA_OK;
    hid_t space = H5Screate_simple(rank, dims, maxdims);
    if (space < 0) status = polka_h5_fail("create the dataspace of", name, log->path);
    if (status == POLKA_OK) {
        *out =
            H5Dcreate2(log->metrics, name, H5T_IEEE_F64LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        if (*out < 0) status = polka_h5_fail("create dataset /metrics", name, log->path);
    }
    if (status == POLKA_OK && description != NULL)
        status = polka_h5_attr_string(*out, "description", description, log->path);
    status = polka_h5_first(status, polka_h5_close(&space, log->path));
    return polka_h5_first(status, polka_h5_close(&dcpl, log->path));
}

static polka_status create_group(polka_runfile *log) {
    POLKA_CALL(polka_h5_group(log->file, "metrics", log->path, &log->metrics));
    POLKA_CALL(polka_h5_attr_u64(log->metrics, "agents", (uint64_t)log->agents, log->path));
    if (log->stride == 1) return POLKA_OK; /* every agent: the layout of before */
    return polka_h5_attr_u64(log->metrics, "agent_stride", (uint64_t)log->stride, log->path);
}

/* Keeps message and code of an error across the collective clean-up of a failed log. */
static polka_status discard(polka_runfile **log, polka_status status) {
    char message[1024];
    snprintf(message, sizeof message, "%s", polka_error_message());
    (void)polka_runfile_close(log);
    return polka_error_set(status, "%s", message);
}

static polka_status build(polka_runfile *log, const char *const *descriptions) {
    polka_status status = polka_runfile_agree(log, probe_path(log));
    if (status == POLKA_OK) status = polka_runfile_agree(log, open_file(log));
    if (status == POLKA_OK) status = polka_runfile_agree(log, create_group(log));
    if (status == POLKA_OK)
        status = polka_runfile_agree(
            log, create_metric(log, "round", 0, "simulation round of the row", &log->round));
    if (status == POLKA_OK)
        status = polka_runfile_agree(
            log,
            create_metric(log, "samples", 0, "training samples seen (all agents)", &log->samples));
    for (size_t m = 0; m < log->metric_count && status == POLKA_OK; m++)
        status = polka_runfile_agree(log, create_metric(log, log->names[m], log->logged,
                                                        descriptions ? descriptions[m] : NULL,
                                                        &log->columns[m]));
    if (status == POLKA_OK) status = polka_runfile_agree(log, polka_runfile_flush(log));
    return status;
}

polka_status polka_runfile_create(const char *path, MPI_Comm comm, size_t agents,
                                  size_t metric_count, const char *const *metric_names,
                                  const char *const *descriptions, polka_runfile **out) {
    return polka_runfile_create_strided(path, comm, agents, 1, metric_count, metric_names,
                                        descriptions, out);
}

polka_status polka_runfile_create_strided(const char *path, MPI_Comm comm, size_t agents,
                                          size_t stride, size_t metric_count,
                                          const char *const *metric_names,
                                          const char *const *descriptions, polka_runfile **out) {
    polka_status status = check_create(path, agents, metric_count, metric_names);
    if (status == POLKA_OK && stride == 0)
        status = polka_error_set(POLKA_ERR_ARG, "run file '%s': agent stride 0", path);
    polka_runfile *log = NULL;
    if (status == POLKA_OK)
        status = alloc_log(path, comm, agents, metric_count, metric_names, &log);
    if (log != NULL && stride > 0) {
        log->stride = stride;
        log->logged = (agents + stride - 1) / stride;
    }
    status = polka_net_agree(comm, status);
    if (status != POLKA_OK) {
        if (log != NULL) log->comm = MPI_COMM_NULL; /* nothing collective to undo */
        return discard(&log, status);
    }
    status = build(log, descriptions);
    if (status != POLKA_OK) return discard(&log, status);
    *out = log;
    return POLKA_OK;
}

/* ---- appending a row --------------------------------------------------------------------- */

static polka_status check_append(const polka_runfile *log, const size_t *agents, size_t count,
                                 const double *values) {
    POLKA_CHECK(log->broken == POLKA_OK, POLKA_ERR_HDF5,
                "run file '%s' is unusable after an earlier error", log->path);
    for (size_t a = 0; a < count; a++)
        POLKA_CHECK(agents[a] < log->agents && (a == 0 || agents[a] > agents[a - 1]), POLKA_ERR_ARG,
                    "run file '%s': rank %d appends agents %zu..%zu of %zu", log->path, log->rank,
                    agents[0], agents[count - 1] + 1, log->agents);
    POLKA_CHECK(count == 0 || values != NULL, POLKA_ERR_ARG, "run file '%s': no values", log->path);
    return POLKA_OK;
}

static polka_status extend(polka_runfile *log, hid_t dataset, const char *name) {
    hsize_t dims[2] = {log->rows + 1, log->logged};
    if (H5Dset_extent(dataset, dims) < 0)
        return polka_h5_fail("extend dataset /metrics", name, log->path);
    return POLKA_OK;
}

/* Every dataset one row longer. Not agreed (see polka_runfile_append_agents): a rank stops at
 * its first error, every rank takes the same calls otherwise. */
static polka_status extend_all(polka_runfile *log) {
    polka_status status = extend(log, log->round, "round");
    if (status == POLKA_OK) status = extend(log, log->samples, "samples");
    for (size_t m = 0; m < log->metric_count && status == POLKA_OK; m++)
        status = extend(log, log->columns[m], log->names[m]);
    return status;
}

/* The selections of one row: 1-D (the rank-0 values) and 2-D (this rank's agents). */
typedef struct {
    hid_t mem1, file1, mem2, file2;
} row_spaces;

/* This rank's cells of row `row` (the columns of its logged agents): one hyperslab per run of
 * consecutive columns (one for a block of agents; a point selection would make HDF5's
 * collective write far slower). The agents increase, so the file's order of the cells is the
 * order of the values. */
static int select_agents(hid_t space, size_t row, const size_t *columns, size_t count) {
    int failed = 0;
    H5S_seloper_t op = H5S_SELECT_SET;
    for (size_t a = 0; a < count && !failed;) {
        size_t end = a + 1;
        while (end < count && columns[end] == columns[end - 1] + 1) end++;
        hsize_t start[2] = {row, columns[a]}, block[2] = {1, end - a};
        failed = H5Sselect_hyperslab(space, op, start, NULL, block, NULL) < 0;
        op = H5S_SELECT_OR;
        a = end;
    }
    return failed;
}

static polka_status select_row(const polka_runfile *log, const size_t *agents, size_t count,
                               row_spaces *s) {
    hsize_t one = 1, n = count > 0 ? count : 1, rows = log->rows + 1;
    hsize_t dims[2] = {rows, log->logged}, at = log->rows;
    s->mem1 = H5Screate_simple(1, &one, NULL);
    s->file1 = H5Screate_simple(1, &rows, NULL);
    s->mem2 = H5Screate_simple(1, &n, NULL);
    s->file2 = H5Screate_simple(2, dims, NULL);
    if (s->mem1 < 0 || s->file1 < 0 || s->mem2 < 0 || s->file2 < 0)
        return polka_h5_fail("create the dataspaces of a row of", NULL, log->path);
    int failed = log->rank == 0 ? H5Sselect_elements(s->file1, H5S_SELECT_SET, 1, &at) < 0
                                : H5Sselect_none(s->file1) < 0 || H5Sselect_none(s->mem1) < 0;
    if (count > 0)
        failed |= select_agents(s->file2, log->rows, agents, count);
    else
        failed |= H5Sselect_none(s->file2) < 0 || H5Sselect_none(s->mem2) < 0;
    if (failed) return polka_h5_fail("select a row of", NULL, log->path);
    return POLKA_OK;
}

static polka_status close_row(row_spaces *s, const char *path) {
    polka_status status = polka_h5_close(&s->mem1, path);
    status = polka_h5_first(status, polka_h5_close(&s->file1, path));
    status = polka_h5_first(status, polka_h5_close(&s->mem2, path));
    return polka_h5_first(status, polka_h5_close(&s->file2, path));
}

static polka_status write_cells(polka_runfile *log, hid_t dataset, const char *name, hid_t mem,
                                hid_t file, const double *data) {
    if (H5Dwrite(dataset, H5T_NATIVE_DOUBLE, mem, file, log->xfer, data) < 0)
        return polka_h5_fail("write a row of /metrics", name, log->path);
    return POLKA_OK;
}

/* Not agreed, like extend_all. */
static polka_status write_row(polka_runfile *log, const row_spaces *s, double round, double samples,
                              size_t count, const double *values) {
    polka_status status = write_cells(log, log->round, "round", s->mem1, s->file1, &round);
    if (status == POLKA_OK)
        status = write_cells(log, log->samples, "samples", s->mem1, s->file1, &samples);
    for (size_t m = 0; m < log->metric_count && status == POLKA_OK; m++) {
        for (size_t a = 0; a < count; a++) log->scratch[a] = values[a * log->metric_count + m];
        status = write_cells(log, log->columns[m], log->names[m], s->mem2, s->file2, log->scratch);
    }
    return status;
}

polka_status polka_runfile_flush(polka_runfile *log) {
    if (H5Fflush(log->file, H5F_SCOPE_GLOBAL) < 0)
        return polka_h5_fail("flush run file", NULL, log->path);
    return POLKA_OK;
}

/* The logged ones of a rank's agents (stride > 1): their columns and their rows of values,
 * in place (the caller's copies). */
static size_t keep_logged(const polka_runfile *log, size_t *columns, double *values, size_t count) {
    size_t kept = 0, width = log->metric_count;
    for (size_t a = 0; a < count; a++) {
        if (columns[a] % log->stride != 0) continue;
        columns[kept] = columns[a] / log->stride;
        memmove(values + kept * width, values + a * width, width * sizeof *values);
        kept++;
    }
    return kept;
}

/* A row's cells (columns of the file) and its collective calls; checked: the status of the
 * rank's arguments (an error joins the calls with no cells and is returned). */
static polka_status write_appended(polka_runfile *log, double round, double samples,
                                   const size_t *columns, size_t count, const double *values,
                                   polka_status checked) {
    row_spaces s = {H5I_INVALID_HID, H5I_INVALID_HID, H5I_INVALID_HID, H5I_INVALID_HID};
    polka_status status = select_row(log, columns, count, &s);
    if (status == POLKA_OK) {
        status = extend_all(log);
        if (status == POLKA_OK) log->rows++;
        if (status != POLKA_OK) log->broken = status;
    }
    if (status == POLKA_OK) status = write_row(log, &s, round, samples, count, values);
    if (status == POLKA_OK) status = polka_runfile_flush(log);
    status = polka_h5_first(status, close_row(&s, log->path));
    return polka_h5_first(checked, status);
}

/* A row of a rank whose arguments were bad still joins every collective call, with no cells. */
static polka_status append_row(polka_runfile *log, double round, double samples,
                               const size_t *agents, size_t count, const double *values) {
    polka_status checked = check_append(log, agents, count, values);
    if (checked != POLKA_OK && log->broken != POLKA_OK) return checked;
    if (checked != POLKA_OK) count = 0;
    if (log->stride == 1 || count == 0)
        return write_appended(log, round, samples, agents, count, values, checked);
    size_t *columns = malloc(count * sizeof *columns);
    double *kept = malloc(count * log->metric_count * sizeof *kept);
    if (columns != NULL && kept != NULL) {
        memcpy(columns, agents, count * sizeof *columns);
        memcpy(kept, values, count * log->metric_count * sizeof *kept);
        count = keep_logged(log, columns, kept, count);
    } else {
        checked = polka_error_set(POLKA_ERR_MEM, "out of memory for a log row");
        count = 0; /* still joins the collective calls */
    }
    polka_status status = write_appended(log, round, samples, columns, count, kept, checked);
    free(columns);
    free(kept);
    return status;
}

polka_status polka_runfile_append_agents(polka_runfile *log, double round, double samples,
                                         const size_t *agents, size_t count, const double *values) {
    return append_row(log, round, samples, agents, count, values);
}

polka_status polka_runfile_append(polka_runfile *log, double round, double samples,
                                  size_t first_agent, size_t count, const double *values) {
    size_t *agents = malloc((count ? count : 1) * sizeof *agents);
    polka_status status =
        agents ? POLKA_OK : polka_error_set(POLKA_ERR_MEM, "out of memory for %zu agents", count);
    for (size_t a = 0; agents && a < count; a++) agents[a] = first_agent + a;
    if (status == POLKA_OK) status = check_append(log, agents, count, values);
    status = polka_runfile_agree(log, status); /* a bad argument leaves the file as it was */
    if (status == POLKA_OK) {
        status = polka_runfile_agree(log, append_row(log, round, samples, agents, count, values));
        if (status != POLKA_OK) log->broken = status; /* the ranks' rows may differ now */
    }
    free(agents);
    return status;
}

/* ---- closing ------------------------------------------------------------------------------ */

static polka_status close_ids(polka_runfile *log) {
    polka_status status = polka_h5_close(&log->round, log->path);
    status = polka_h5_first(status, polka_h5_close(&log->samples, log->path));
    for (size_t m = 0; m < log->metric_count; m++)
        status = polka_h5_first(status, polka_h5_close(&log->columns[m], log->path));
    status = polka_h5_first(status, polka_h5_close(&log->metrics, log->path));
    status = polka_h5_first(status, polka_h5_close(&log->xfer, log->path));
    return polka_h5_first(status, polka_h5_close(&log->file, log->path));
}

polka_status polka_runfile_close(polka_runfile **log) {
    if (log == NULL || *log == NULL) return POLKA_OK;
    polka_runfile *l = *log;
    /* after a wait gave up on the other ranks, closing (collective in HDF5) would wait for
     * them again: the job is about to be aborted, the file is left as it is */
    int stalled = polka_net_stalled();
    polka_status status = l->path != NULL && !stalled ? close_ids(l) : POLKA_OK;
    if (l->comm != MPI_COMM_NULL && !stalled) status = polka_runfile_agree(l, status);
    for (size_t m = 0; m < l->metric_count; m++) free(l->names[m]);
    free(l->names);
    free(l->columns);
    free(l->scratch);
    free(l->path);
    free(l);
    *log = NULL;
    return status;
}
