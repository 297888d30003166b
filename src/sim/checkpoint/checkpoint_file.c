/* The checkpoint file (checkpoint_impl.h): rank 0 gathers every agent's state and writes
 * them into a temporary file renamed over the checkpoint; on resume every rank opens the
 * file and reads its own agents (any number of ranks: the agents are named, not the ranks). */
#include <fcntl.h>
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/checkpoint/checkpoint_impl.h"
#include "io/h5log_impl.h"
#include "sim/checkpoint/checkpoint_h5_impl.h"
#include "polka/net.h"
#include "polka/paths.h"

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

/* One named array as a 1-D dataset. */
static polka_status write_array(hid_t loc, const char *name, polka_state_type type,
                                const void *data, size_t count, const char *path) {
    hsize_t dims[1] = {count};
    hid_t space = H5Screate_simple(1, dims, NULL);
    if (space < 0) return polka_h5_fail("create the dataspace of", name, path);
    hid_t set = H5Dcreate2(loc, name, polka_ckpt_file_type(type), space, H5P_DEFAULT, H5P_DEFAULT,
                           H5P_DEFAULT);
    polka_status status = POLKA_OK;
    if (set < 0)
        status = polka_h5_fail("create dataset", name, path);
    else if (count > 0 &&
             H5Dwrite(set, polka_ckpt_memory_type(type), H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0)
        status = polka_h5_fail("write dataset", name, path);
    status = polka_h5_first(status, polka_h5_close(&set, path));
    return polka_h5_first(status, polka_h5_close(&space, path));
}

void polka_ckpt_group_path(size_t agent, char *out, size_t size) {
    snprintf(out, size, "agents/%06zu", agent / POLKA_CKPT_GROUP_AGENTS * POLKA_CKPT_GROUP_AGENTS);
}

void polka_ckpt_agent_path(size_t agent, char *out, size_t size) {
    size_t first = agent / POLKA_CKPT_GROUP_AGENTS * POLKA_CKPT_GROUP_AGENTS;
    snprintf(out, size, "agents/%06zu/%06zu", first, agent);
}

static polka_status write_agent(hid_t file, size_t id, const polka_state *state, const char *path) {
    char name[64];
    polka_ckpt_agent_path(id, name, sizeof name);
    hid_t group = -1;
    if (id % POLKA_CKPT_GROUP_AGENTS == 0) { /* the first agent of its group */
        polka_ckpt_group_path(id, name, sizeof name);
        POLKA_CALL(polka_ckpt_group(file, name, path, &group));
        POLKA_CALL(polka_h5_close(&group, path));
        polka_ckpt_agent_path(id, name, sizeof name);
    }
    POLKA_CALL(polka_ckpt_group(file, name, path, &group));
    polka_status status = POLKA_OK;
    for (size_t k = 0; k < polka_state_count(state) && status == POLKA_OK; k++) {
        const char *entry;
        polka_state_type type;
        size_t count;
        const void *data;
        polka_state_entry(state, k, &entry, &type, &count, &data);
        status = write_array(group, entry, type, data, count, path);
    }
    return polka_h5_first(status, polka_h5_close(&group, path));
}

static polka_status write_history(hid_t file, const polka_history *h, const char *path) {
    hid_t group = -1;
    POLKA_CALL(polka_ckpt_group(file, "history", path, &group));
    polka_status status = write_array(group, "round", POLKA_STATE_F64, h->round, h->rows, path);
    if (status == POLKA_OK)
        status = write_array(group, "samples", POLKA_STATE_F64, h->samples, h->rows, path);
    if (status == POLKA_OK)
        status =
            write_array(group, "metrics", POLKA_STATE_F64, h->metrics, h->rows * h->width, path);
    return polka_h5_first(status, polka_h5_close(&group, path));
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

static polka_status write_root(hid_t file, const polka_plan *plan, const polka_sim_point *point,
                               size_t agents, int signal, const char *path) {
    POLKA_CALL(attr_text(file, "format", POLKA_CKPT_FORMAT_NAME, path));
    POLKA_CALL(polka_h5_attr_u64(file, "format_version", POLKA_CKPT_FORMAT_VERSION, path));
    POLKA_CALL(attr_text(file, "polka_version", POLKA_VERSION, path));
    POLKA_CALL(polka_h5_attr_u64(file, "round", point->round, path));
    POLKA_CALL(polka_h5_attr_double(file, "next_log", point->next_log, path));
    POLKA_CALL(polka_h5_attr_u64(file, "rows", point->rows, path));
    POLKA_CALL(polka_h5_attr_u64(file, "agents", agents, path));
    POLKA_CALL(polka_h5_attr_i64(file, "signal", signal, path));
    char *settings = NULL, *inputs = NULL;
    POLKA_CALL(polka_ckpt_settings_text(plan, &settings));
    polka_status status =
        write_array(file, "settings", POLKA_STATE_U8, settings, strlen(settings), path);
    free(settings);
    POLKA_CALL(status);
    POLKA_CALL(polka_ckpt_inputs_text(plan, &inputs));
    status = write_array(file, "inputs", POLKA_STATE_U8, inputs, strlen(inputs), path);
    free(inputs);
    return status;
}

static polka_status write_contents(hid_t file, const char *tmp, const polka_plan *plan,
                                   const polka_sim_point *point, size_t agents,
                                   polka_state *const *states, const polka_history *history,
                                   int signal) {
    POLKA_CALL(write_root(file, plan, point, agents, signal, tmp));
    POLKA_CALL(write_history(file, history, tmp));
    hid_t group = -1;
    POLKA_CALL(polka_ckpt_group(file, "agents", tmp, &group));
    polka_status status = POLKA_OK;
    for (size_t a = 0; a < agents && status == POLKA_OK; a++)
        status = write_agent(file, a, states[a], tmp);
    status = polka_h5_first(status, polka_h5_close(&group, tmp));
    if (status == POLKA_OK) status = polka_ckpt_write_digest(file, tmp);
    return status;
}

/* Rank 0: the whole file under tmp, flushed to the disk before the rename. */
static polka_status write_file(const char *tmp, const polka_plan *plan,
                               const polka_sim_point *point, size_t agents,
                               polka_state *const *states, const polka_history *history,
                               int signal) {
    polka_h5_quiet();
    hid_t file = polka_ckpt_create_in_memory(tmp);
    if (file < 0) return polka_h5_fail("create checkpoint", NULL, tmp);
    void *image = NULL;
    size_t size = 0;
    polka_status status = write_contents(file, tmp, plan, point, agents, states, history, signal);
    if (status == POLKA_OK) status = polka_ckpt_image(file, tmp, &image, &size);
    status = polka_h5_first(status, polka_h5_close(&file, tmp));
    if (status == POLKA_OK) status = polka_ckpt_write_image(tmp, image, size);
    free(image);
    return status;
}

static polka_status rename_over(const char *tmp, const char *path) {
    POLKA_CHECK(rename(tmp, path) == 0, POLKA_ERR_IO, "cannot rename '%s' to '%s'", tmp, path);
    char dir[POLKA_PATH_LEN];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = '\0';
    int fd = open(slash ? (dir[0] ? dir : "/") : ".", O_RDONLY);
    if (fd >= 0) {
        (void)fsync(fd); /* the rename itself on the disk (best effort) */
        close(fd);
    }
    return POLKA_OK;
}

/* This rank's states as one block: [u64 length][packed state] per agent. */
static polka_status pack_states(size_t count, polka_state *const *mine, unsigned char **bytes,
                                size_t *used) {
    *bytes = NULL;
    *used = 0;
    for (size_t a = 0; a < count; a++) {
        unsigned char *block = NULL;
        size_t length = 0;
        POLKA_CALL(polka_state_pack(mine[a], &block, &length));
        unsigned char *grown = realloc(*bytes, *used + 8 + length);
        if (grown == NULL) free(block);
        POLKA_CHECK(grown != NULL, POLKA_ERR_MEM, "out of memory for a checkpoint");
        *bytes = grown;
        uint64_t word = length;
        memcpy(*bytes + *used, &word, 8);
        memcpy(*bytes + *used + 8, block, length);
        *used += 8 + length;
        free(block);
    }
    return POLKA_OK;
}

/* Rank 0: the other ranks' blocks (agents `from` .. agents − 1, in block order) unpacked. */
static polka_status unpack_states(const unsigned char *at, size_t size, size_t from, size_t agents,
                                  polka_state **all) {
    const unsigned char *end = at + size;
    for (size_t a = from; a < agents; a++) {
        uint64_t block = 0;
        POLKA_CHECK(end - at >= 8, POLKA_ERR_MPI, "a rank sent too few agent states");
        memcpy(&block, at, 8);
        POLKA_CHECK((uint64_t)(end - at - 8) >= block, POLKA_ERR_MPI, "a state block is cut");
        POLKA_CALL(polka_state_unpack(at + 8, (size_t)block, &all[a]));
        at += 8 + block;
    }
    return POLKA_OK;
}

/* A rank's packed states go to rank 0 in messages of at most this many bytes: an MPI count
 * is an int, and 10^5 agents' states are gigabytes. */
#define STATE_MESSAGE_BYTES ((size_t)1 << 30)

/* Rank 0: the bytes of each other rank, in order, at their offsets in everything. */
static polka_status receive_states(MPI_Comm comm, int size, const uint64_t *lengths,
                                   unsigned char *everything) {
    size_t at = 0;
    for (int r = 1; r < size; r++)
        for (size_t done = 0; done < lengths[r];) {
            size_t piece = lengths[r] - done;
            piece = piece < STATE_MESSAGE_BYTES ? piece : STATE_MESSAGE_BYTES;
            POLKA_CALL(polka_net_check(
                MPI_Recv(everything + at, (int)piece, MPI_BYTE, r, 0, comm, MPI_STATUS_IGNORE),
                "MPI_Recv"));
            at += piece, done += piece;
        }
    return POLKA_OK;
}

static polka_status send_states(MPI_Comm comm, const unsigned char *bytes, size_t used) {
    for (size_t done = 0; done < used;) {
        size_t piece = used - done < STATE_MESSAGE_BYTES ? used - done : STATE_MESSAGE_BYTES;
        POLKA_CALL(
            polka_net_check(MPI_Send(bytes + done, (int)piece, MPI_BYTE, 0, 0, comm), "MPI_Send"));
        done += piece;
    }
    return POLKA_OK;
}

/* Rank 0: room for the bytes all ranks send (lengths gathered from every rank). */
static polka_status states_room(int size, const uint64_t *lengths, unsigned char **everything,
                                size_t *total) {
    *total = 0;
    for (int r = 0; r < size; r++) *total += (size_t)lengths[r];
    *everything = malloc(*total ? *total : 1);
    POLKA_CHECK(*everything != NULL, POLKA_ERR_MEM,
                "out of memory for the checkpoint: rank 0 gathers %zu bytes of agent states",
                *total);
    return POLKA_OK;
}

/* Every agent's state on rank 0 (all[], rank by rank): its own agents' as they are, the
 * others' packed, sent and unpacked. */
static polka_status gather_states(MPI_Comm comm, size_t agents, size_t count,
                                  polka_state *const *mine, polka_state **all) {
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    unsigned char *bytes = NULL, *everything = NULL;
    size_t used = 0, total = 0;
    polka_status status = rank == 0 ? POLKA_OK : pack_states(count, mine, &bytes, &used);
    uint64_t length = used, *lengths = rank == 0 ? calloc((size_t)size, sizeof *lengths) : NULL;
    if (status == POLKA_OK && rank == 0 && lengths == NULL)
        status = polka_error_set(POLKA_ERR_MEM, "out of memory");
    status = polka_net_agree(comm, status);
    if (status == POLKA_OK)
        status = polka_net_check(
            MPI_Gather(&length, 1, MPI_UINT64_T, lengths, 1, MPI_UINT64_T, 0, comm), "MPI_Gather");
    if (status == POLKA_OK && rank == 0) status = states_room(size, lengths, &everything, &total);
    status = polka_net_agree(comm, status);
    if (status == POLKA_OK)
        status = rank == 0 ? receive_states(comm, size, lengths, everything)
                           : send_states(comm, bytes, used);
    if (rank == 0 && status == POLKA_OK) {
        for (size_t a = 0; a < count; a++) all[a] = mine[a];
        status = unpack_states(everything, total, count, agents, all);
    }
    free(bytes), free(lengths), free(everything);
    return status;
}

polka_status polka_ckpt_write(const polka_plan *plan, MPI_Comm comm, const polka_sim_point *point,
                              size_t agents, const size_t *order, size_t count,
                              polka_state *const *states, const polka_history *history,
                              int signal) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    size_t n = agents ? agents : 1;
    polka_state **ranked = rank == 0 ? calloc(n, sizeof *ranked) : NULL; /* rank by rank */
    polka_state **all = rank == 0 ? calloc(n, sizeof *all) : NULL;       /* by agent id */
    polka_status status = rank == 0 && (all == NULL || ranked == NULL)
                              ? polka_error_set(POLKA_ERR_MEM, "out of memory")
                              : POLKA_OK;
    status = polka_net_agree(comm, status);
    if (status == POLKA_OK) status = gather_states(comm, agents, count, states, ranked);
    if (status == POLKA_OK && rank == 0) {
        for (size_t k = 0; k < agents; k++) all[order ? order[k] : k] = ranked[k];
        char path[POLKA_PATH_LEN], tmp[POLKA_PATH_LEN + POLKA_TEMP_SUFFIX_LEN];
        polka_ckpt_path(plan, path, sizeof path);
        status = polka_temp_create(path, tmp, sizeof tmp); /* this run's own: never another's */
        if (status == POLKA_OK) {
            status = write_file(tmp, plan, point, agents, all, history, signal);
            if (status == POLKA_OK) status = rename_over(tmp, path);
            if (status != POLKA_OK) unlink(tmp);
        }
    }
    for (size_t k = count; ranked && k < agents; k++) polka_state_free(&ranked[k]); /* others' */
    free(ranked);
    free(all);
    return polka_net_agree(comm, status);
}
