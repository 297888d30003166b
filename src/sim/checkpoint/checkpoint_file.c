/* The checkpoint file (checkpoint_impl.h): every rank writes its own agents' part of one file
 * through parallel HDF5 (MPI-IO), under a temporary name that rank 0 renames over the
 * checkpoint once the file is whole and its digest written; on resume every rank opens the
 * file and reads its own agents (any number of ranks: the agents are named, not the ranks). */
#include <errno.h>
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/checkpoint/checkpoint_impl.h"
#include "io/runfile_impl.h"
#include "sim/checkpoint/checkpoint_h5_impl.h"
#include "polka/net.h"
#include "polka/paths.h"

/* Rank 0 writes the metric rows in blocks of at most this many bytes (or one row). */
#define ROW_BLOCK_BYTES ((size_t)16 << 20)

hid_t polka_ckpt_memory_type(polka_state_type type) {
    return type == POLKA_STATE_F64   ? H5T_NATIVE_DOUBLE
           : type == POLKA_STATE_U64 ? H5T_NATIVE_UINT64
                                     : H5T_NATIVE_UCHAR;
}

hid_t polka_ckpt_file_type(polka_state_type type) {
    return type == POLKA_STATE_F64   ? H5T_IEEE_F64LE
           : type == POLKA_STATE_U64 ? H5T_STD_U64LE
                                     : H5T_STD_U8LE;
}

polka_status polka_ckpt_create_array(hid_t loc, const char *name, polka_state_type type,
                                     uint64_t count, const char *path, hid_t *out) {
    hsize_t dims[1] = {count};
    hid_t space = H5Screate_simple(1, dims, NULL), create = H5Pcreate(H5P_DATASET_CREATE);
    /* no fill values: every byte is written once, by its rank */
    int ok = space >= 0 && create >= 0 && H5Pset_fill_time(create, H5D_FILL_TIME_NEVER) >= 0 &&
             H5Pset_alloc_time(create, H5D_ALLOC_TIME_EARLY) >= 0;
    *out = ok ? H5Dcreate2(loc, name, polka_ckpt_file_type(type), space, H5P_DEFAULT, create,
                           H5P_DEFAULT)
              : -1;
    if (create >= 0) H5Pclose(create);
    if (space >= 0) H5Sclose(space);
    return *out >= 0 ? POLKA_OK : polka_h5_fail("create dataset", name, path);
}

/* One named array as a 1-D dataset: created by every rank (collective: its failure is every
 * rank's), its values written by the rank that passes data (independent transfer). A failed
 * write goes into *written, and the caller goes on to the next collective step with the others
 * (the statuses are agreed at the end). */
polka_status polka_ckpt_write_array(hid_t loc, const char *name, polka_state_type type,
                                    const void *data, uint64_t count, const char *path,
                                    polka_status *written) {
    hid_t set = -1;
    POLKA_CALL(polka_ckpt_create_array(loc, name, type, count, path, &set));
    if (data != NULL && count > 0 &&
        H5Dwrite(set, polka_ckpt_memory_type(type), H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0)
        *written = polka_h5_first(*written, polka_h5_fail("write dataset", name, path));
    return polka_h5_close(&set, path);
}

/* Rows [first, first + count) of h (width doubles each) at their place in the dataset. */
static polka_status write_row_block(hid_t set, const polka_history *h, size_t first, size_t count,
                                    double *block, const char *path) {
    for (size_t r = 0; r < count; r++)
        POLKA_CALL(polka_history_row(h, first + r, block + r * h->width));
    int ok = polka_ckpt_range_io(set, H5T_NATIVE_DOUBLE, (uint64_t)first * h->width,
                                 (uint64_t)count * h->width, block, 1);
    return ok ? POLKA_OK : polka_h5_fail("write dataset", "metrics", path);
}

/* history/metrics: rows × width values, created by every rank, written by rank 0 (h) in blocks
 * of rows (its rows wait in a spill file, not in memory). */
static polka_status write_rows(hid_t group, const polka_history *h, size_t rows, size_t width,
                               const char *path, polka_status *written) {
    hid_t set = -1;
    POLKA_CALL(
        polka_ckpt_create_array(group, "metrics", POLKA_STATE_F64, rows * width, path, &set));
    size_t per_block = width ? ROW_BLOCK_BYTES / (width * sizeof(double)) : 1;
    if (per_block == 0) per_block = 1;
    int writes = h != NULL && rows > 0 && width > 0 && h->width == width;
    double *block = writes ? malloc(per_block * width * sizeof *block) : NULL;
    polka_status status = !writes || block ? POLKA_OK
                                           : polka_error_set(POLKA_ERR_MEM, "out of memory for the "
                                                                            "metric rows");
    for (size_t r = 0; writes && status == POLKA_OK && r < rows; r += per_block)
        status =
            write_row_block(set, h, r, rows - r < per_block ? rows - r : per_block, block, path);
    free(block);
    *written = polka_h5_first(*written, status);
    return polka_h5_close(&set, path);
}

/* A fixed-length string attribute (the reader refuses variable-length ones: libhdf5 reading a
 * damaged variable-length attribute may hang, fuzz defect 4). */
static polka_status attr_text(hid_t file, const char *name, const char *value, const char *path) {
    hid_t type = H5Tcopy(H5T_C_S1), space = H5Screate(H5S_SCALAR);
    hid_t attr = type >= 0 && space >= 0 && H5Tset_size(type, strlen(value) + 1) >= 0
                     ? H5Acreate2(file, name, type, space, H5P_DEFAULT, H5P_DEFAULT)
                     : -1;
    int ok = attr >= 0 && H5Awrite(attr, type, value) >= 0;
    if (attr >= 0) H5Aclose(attr);
    if (space >= 0) H5Sclose(space);
    if (type >= 0) H5Tclose(type);
    return ok ? POLKA_OK : polka_h5_fail("write attribute", name, path);
}

/* What rank 0 alone knows and every rank needs to create the same objects: the lengths of the
 * texts and of the metric rows, the signal (the one rank 0 saw: each rank's own may differ),
 * and the temporary file's name. */
typedef struct {
    uint64_t settings, inputs, rows, width, signal;
    char tmp[POLKA_PATH_LEN + POLKA_TEMP_SUFFIX_LEN];
} file_header;

/* Rank 0's texts of the root (settings, inputs) and the temporary file. */
typedef struct {
    char *settings, *inputs;
    const polka_history *history;
} root_texts;

static polka_status make_header(const polka_plan *plan, const polka_history *history, int signal,
                                root_texts *texts, file_header *header) {
    char path[POLKA_PATH_LEN];
    polka_plan_checkpoint_path(plan, path, sizeof path);
    POLKA_CALL(polka_ckpt_settings_text(plan, &texts->settings));
    POLKA_CALL(polka_ckpt_inputs_text(plan, &texts->inputs));
    POLKA_CALL(polka_temp_create(path, header->tmp, sizeof header->tmp)); /* never another's */
    texts->history = history;
    header->settings = strlen(texts->settings);
    header->inputs = strlen(texts->inputs);
    header->rows = history->rows;
    header->width = history->width;
    header->signal = (uint64_t)(int64_t)signal;
    return POLKA_OK;
}

/* The root's attributes (every rank the same values), texts and metric rows (rank 0's). */
static polka_status write_root(hid_t file, const polka_sim_point *point, size_t agents,
                               const file_header *header, const root_texts *texts,
                               polka_status *written) {
    const char *tmp = header->tmp;
    POLKA_CALL(attr_text(file, "format", POLKA_CKPT_FORMAT_NAME, tmp));
    POLKA_CALL(polka_h5_attr_u64(file, "format_version", POLKA_CKPT_FORMAT_VERSION, tmp));
    POLKA_CALL(attr_text(file, "polka_version", POLKA_VERSION, tmp));
    POLKA_CALL(attr_text(file, "int8_scale", POLKA_CKPT_INT8_SCALE, tmp));
    POLKA_CALL(polka_h5_attr_u64(file, "round", point->round, tmp));
    POLKA_CALL(polka_h5_attr_double(file, "next_log", point->next_log, tmp));
    POLKA_CALL(polka_h5_attr_u64(file, "rows", point->rows, tmp));
    POLKA_CALL(polka_h5_attr_u64(file, "agents", agents, tmp));
    POLKA_CALL(polka_h5_attr_i64(file, "signal", (int64_t)header->signal, tmp));
    POLKA_CALL(polka_ckpt_write_array(file, "settings", POLKA_STATE_U8,
                                      texts ? texts->settings : NULL, header->settings, tmp,
                                      written));
    POLKA_CALL(polka_ckpt_write_array(file, "inputs", POLKA_STATE_U8, texts ? texts->inputs : NULL,
                                      header->inputs, tmp, written));
    hid_t group = -1;
    POLKA_CALL(polka_ckpt_group(file, "history", tmp, &group));
    const polka_history *h = texts ? texts->history : NULL;
    polka_status status = polka_ckpt_write_array(group, "round", POLKA_STATE_F64,
                                                 h ? h->round : NULL, header->rows, tmp, written);
    if (status == POLKA_OK)
        status = polka_ckpt_write_array(group, "samples", POLKA_STATE_F64, h ? h->samples : NULL,
                                        header->rows, tmp, written);
    if (status == POLKA_OK)
        status = write_rows(group, h, header->rows, header->width, tmp, written);
    return polka_h5_first(status, polka_h5_close(&group, tmp));
}

/* The temporary file, created by every rank (MPI-IO), its links and attributes compact. */
static polka_status create_file(MPI_Comm comm, const char *tmp, hid_t *file) {
    hid_t access = H5Pcreate(H5P_FILE_ACCESS), create = H5Pcreate(H5P_FILE_CREATE);
    int ok = access >= 0 && create >= 0 && H5Pset_fapl_mpio(access, comm, MPI_INFO_NULL) >= 0 &&
             H5Pset_libver_bounds(access, H5F_LIBVER_V110, H5F_LIBVER_V110) >= 0 &&
             polka_ckpt_compact(create);
    *file = ok ? H5Fcreate(tmp, H5F_ACC_TRUNC, create, access) : -1;
    if (create >= 0) H5Pclose(create);
    if (access >= 0) H5Pclose(access);
    return *file >= 0 ? POLKA_OK : polka_h5_fail("create checkpoint", NULL, tmp);
}

/* Everything but the digest, collectively into the open file. */
static polka_status write_contents(hid_t file, MPI_Comm comm, const polka_sim_point *point,
                                   size_t agents, const size_t *order,
                                   const polka_ckpt_layout *layout, polka_state *const *states,
                                   const file_header *header, const root_texts *texts) {
    polka_status written = POLKA_OK; /* rank 0's writes of the root's arrays */
    polka_status status = write_root(file, point, agents, header, texts, &written);
    hid_t group = -1;
    if (status == POLKA_OK) status = polka_ckpt_group(file, "agents", header->tmp, &group);
    if (status == POLKA_OK)
        status = polka_ckpt_write_states(group, comm, layout, states, header->tmp);
    if (status == POLKA_OK)
        status = polka_ckpt_write_index(group, comm, agents, order, layout, header->tmp);
    status = polka_h5_first(status, polka_h5_close(&group, header->tmp));
    return polka_h5_first(status, written);
}

/* Rank 0, once the other ranks' parts are in: the digest into the file (opened alone, read
 * back: what HDF5 wrote opens and reads), then flushed to the disk and renamed over path. */
static polka_status seal_file(const char *tmp, const char *path) {
    hid_t file = H5Fopen(tmp, H5F_ACC_RDWR, H5P_DEFAULT);
    if (file < 0) return polka_h5_fail("open the written checkpoint", NULL, tmp);
    polka_status status = polka_ckpt_write_digest(file, tmp);
    status = polka_h5_first(status, polka_h5_close(&file, tmp));
    polka_ckpt_unreserve(tmp);
    if (status == POLKA_OK) status = polka_temp_commit(tmp, path);
    return status;
}

/* The bytes the file will take, reserved on the disk by rank 0 before anything is written
 * (posix_fallocate would change the file's size; Linux's fallocate keeps it): a full disk is
 * one plain error here, not a write failing inside HDF5's collective calls. */
static polka_status reserve(MPI_Comm comm, const char *tmp, const file_header *header,
                            const polka_ckpt_layout *layout, size_t agents) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    polka_status status = POLKA_OK;
    if (rank == 0) {
        uint64_t bytes = layout->total + 24 * (uint64_t)agents + header->settings + header->inputs +
                         8 * header->rows * (2 + header->width) + POLKA_CKPT_METADATA_BYTES;
        int code = polka_ckpt_reserve(tmp, bytes);
        if (code != 0)
            status = polka_error_set(POLKA_ERR_IO, "cannot write checkpoint '%s': %s", tmp,
                                     strerror(code));
    }
    return polka_net_agree(comm, status);
}

/* Rank 0's header to every rank. */
static polka_status share_header(MPI_Comm comm, file_header *header) {
    uint64_t words[5] = {header->settings, header->inputs, header->rows, header->width,
                         header->signal};
    POLKA_CALL(polka_net_check(MPI_Bcast(words, 5, MPI_UINT64_T, 0, comm), "MPI_Bcast"));
    POLKA_CALL(polka_net_check(MPI_Bcast(header->tmp, sizeof header->tmp, MPI_CHAR, 0, comm),
                               "MPI_Bcast"));
    header->settings = words[0], header->inputs = words[1], header->rows = words[2];
    header->width = words[3], header->signal = words[4];
    return POLKA_OK;
}

/* Collective: the file under header->tmp, all of it but the digest. */
static polka_status write_parts(MPI_Comm comm, const polka_sim_point *point, size_t agents,
                                const size_t *order, const polka_ckpt_layout *layout,
                                polka_state *const *states, const file_header *header,
                                const root_texts *texts) {
    polka_h5_quiet();
    hid_t file = -1;
    polka_status status = polka_net_agree(comm, create_file(comm, header->tmp, &file));
    if (status == POLKA_OK) status = reserve(comm, header->tmp, header, layout, agents);
    if (status == POLKA_OK)
        status = write_contents(file, comm, point, agents, order, layout, states, header, texts);
    status = polka_h5_first(status, polka_h5_close(&file, header->tmp));
    return polka_net_agree(comm, status);
}

polka_status polka_ckpt_write(const polka_plan *plan, MPI_Comm comm, const polka_sim_point *point,
                              size_t agents, const size_t *order, size_t count,
                              polka_state *const *states, const polka_history *history,
                              int signal) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    file_header header = {0};
    root_texts texts = {0};
    polka_ckpt_layout layout = {0};
    polka_status status =
        rank == 0 ? make_header(plan, history, signal, &texts, &header) : POLKA_OK;
    status = polka_net_agree(comm, status);
    polka_status shared = share_header(comm, &header);
    if (status == POLKA_OK) status = shared;
    if (status == POLKA_OK) status = polka_ckpt_plan_states(comm, count, states, &layout);
    if (status == POLKA_OK)
        status = write_parts(comm, point, agents, order, &layout, states, &header,
                             rank == 0 ? &texts : NULL);
    if (rank == 0 && status == POLKA_OK) {
        char path[POLKA_PATH_LEN];
        polka_plan_checkpoint_path(plan, path, sizeof path);
        status = seal_file(header.tmp, path);
    }
    if (rank == 0 && status != POLKA_OK && header.tmp[0] != '\0') unlink(header.tmp);
    polka_ckpt_layout_free(&layout);
    free(texts.settings);
    free(texts.inputs);
    return polka_net_agree(comm, status);
}
