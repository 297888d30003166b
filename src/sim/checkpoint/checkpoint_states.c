/* The agents' part of a checkpoint (checkpoint_h5_impl.h): each rank packs its agents' states
 * and writes them, in pieces of bounded size, into /agents/states at its own offset (the ranks
 * before it hold the bytes before), with collective writes; rank 0 writes the index by agent
 * id (/agents/offset, /agents/length, /agents/digest). No rank holds more than a piece of
 * packed states, and no MPI or HDF5 count is a byte count of all of them. */
#define _GNU_SOURCE /* fallocate */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/runfile_impl.h"
#include "polka/net.h"
#include "sim/checkpoint/checkpoint_h5_impl.h"

/* Bytes of packed states a rank writes per collective call (at least one agent's). */
#define PIECE_BYTES ((uint64_t)64 << 20)

#define FNV_OFFSET 0xcbf29ce484222325ull

int polka_ckpt_reserve(const char *path, uint64_t bytes) {
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) return errno;
    int code = 0;
#ifdef FALLOC_FL_KEEP_SIZE
    if (fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, (off_t)bytes) != 0) code = errno;
    if (code == EOPNOTSUPP || code == ENOSYS) code = 0; /* no reservation here: best effort */
#else
    (void)bytes;
#endif
    close(fd);
    return code;
}

void polka_ckpt_unreserve(const char *path) {
#ifdef FALLOC_FL_PUNCH_HOLE
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    off_t end = fd >= 0 ? lseek(fd, 0, SEEK_END) : -1;
    /* the blocks reserved past the file's end are given back (best effort) */
    if (end >= 0)
        (void)fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, end,
                        (off_t)POLKA_CKPT_METADATA_BYTES + end);
    if (fd >= 0) close(fd);
#else
    (void)path;
#endif
}

/* The agents [first, *next) of one piece: at least one, then as many as fit PIECE_BYTES. */
static uint64_t take_piece(const polka_ckpt_layout *layout, size_t first, size_t *next) {
    uint64_t bytes = 0;
    size_t k = first;
    while (k < layout->count && (k == first || bytes + layout->lengths[k] <= PIECE_BYTES))
        bytes += layout->lengths[k++];
    *next = k;
    return bytes;
}

void polka_ckpt_layout_free(polka_ckpt_layout *layout) {
    free(layout->lengths);
    free(layout->digests);
    *layout = (polka_ckpt_layout){0};
}

polka_status polka_ckpt_plan_states(MPI_Comm comm, size_t count, polka_state *const *states,
                                    polka_ckpt_layout *layout) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    *layout = (polka_ckpt_layout){.count = count};
    layout->lengths = calloc(count ? count : 1, sizeof *layout->lengths);
    layout->digests = calloc(count ? count : 1, sizeof *layout->digests);
    polka_status status = layout->lengths && layout->digests
                              ? POLKA_OK
                              : polka_error_set(POLKA_ERR_MEM, "out of memory for a checkpoint");
    POLKA_CALL(polka_net_agree(comm, status));
    uint64_t mine[3] = {0, 0, 0}; /* bytes, pieces, the largest piece */
    for (size_t k = 0; k < count; k++) {
        layout->lengths[k] = polka_state_packed_size(states[k]);
        mine[0] += layout->lengths[k];
    }
    for (size_t k = 0, next = 0; k < count; k = next, mine[1]++) {
        uint64_t bytes = take_piece(layout, k, &next);
        mine[2] = bytes > mine[2] ? bytes : mine[2];
    }
    uint64_t before = 0, sums[2] = {0, 0};
    uint64_t most[2] = {0, 0}, wants[2] = {mine[1], mine[2]};
    POLKA_CALL(
        polka_net_check(MPI_Exscan(mine, &before, 1, MPI_UINT64_T, MPI_SUM, comm), "MPI_Exscan"));
    POLKA_CALL(polka_net_check(MPI_Allreduce(mine, sums, 1, MPI_UINT64_T, MPI_SUM, comm),
                               "MPI_Allreduce"));
    POLKA_CALL(polka_net_check(MPI_Allreduce(wants, most, 2, MPI_UINT64_T, MPI_MAX, comm),
                               "MPI_Allreduce"));
    layout->base = rank == 0 ? 0 : before; /* MPI_Exscan leaves rank 0's undefined */
    layout->total = sums[0];
    layout->pieces = (size_t)most[0];
    layout->largest = mine[2];
    return POLKA_OK;
}

/* One collective write of bytes at `at` of the dataset (none: this rank has nothing left). */
static polka_status write_piece(hid_t set, hid_t xfer, const unsigned char *buffer, uint64_t at,
                                uint64_t bytes, const char *path) {
    hsize_t start[1] = {at}, count[1] = {bytes}, one[1] = {bytes ? bytes : 1};
    hid_t file_space = H5Dget_space(set), memory = H5Screate_simple(1, one, NULL);
    int ok = file_space >= 0 && memory >= 0;
    if (ok && bytes > 0)
        ok = H5Sselect_hyperslab(file_space, H5S_SELECT_SET, start, NULL, count, NULL) >= 0;
    else if (ok)
        ok = H5Sselect_none(file_space) >= 0 && H5Sselect_none(memory) >= 0;
    ok = ok && H5Dwrite(set, H5T_NATIVE_UCHAR, memory, file_space, xfer, buffer) >= 0;
    if (memory >= 0) H5Sclose(memory);
    if (file_space >= 0) H5Sclose(file_space);
    return ok ? POLKA_OK : polka_h5_fail("write dataset", "agents/states", path);
}

/* Agents [first, next) packed into buffer, each one's digest taken. */
static void pack_piece(const polka_ckpt_layout *layout, polka_state *const *states, size_t first,
                       size_t next, unsigned char *buffer) {
    for (size_t k = first; k < next; k++) {
        polka_state_pack_into(states[k], buffer);
        layout->digests[k] = FNV_OFFSET;
        polka_fnv1a(&layout->digests[k], buffer, layout->lengths[k]);
        buffer += layout->lengths[k];
    }
}

polka_status polka_ckpt_write_states(hid_t group, MPI_Comm comm, const polka_ckpt_layout *layout,
                                     polka_state *const *states, const char *path) {
    hid_t set = -1, xfer = H5Pcreate(H5P_DATASET_XFER);
    polka_status status =
        polka_ckpt_create_array(group, "states", POLKA_STATE_U8, layout->total, path, &set);
    if (status == POLKA_OK && (xfer < 0 || H5Pset_dxpl_mpio(xfer, H5FD_MPIO_COLLECTIVE) < 0))
        status = polka_h5_fail("set the collective transfer of", "agents/states", path);
    unsigned char *buffer = malloc(layout->largest ? layout->largest : 1);
    if (status == POLKA_OK && buffer == NULL)
        status = polka_error_set(POLKA_ERR_MEM, "out of memory for a %llu-byte piece of checkpoint",
                                 (unsigned long long)layout->largest);
    status = polka_net_agree(comm, status);
    int go = status == POLKA_OK;
    uint64_t at = layout->base;
    /* every rank joins every collective write (a failed write on one rank does not stop it:
     * the others would wait in the next), with nothing once its own are done */
    for (size_t p = 0, first = 0, next = 0; go && p < layout->pieces; p++, first = next) {
        uint64_t bytes = take_piece(layout, first, &next);
        pack_piece(layout, states, first, next, buffer);
        polka_status wrote = write_piece(set, xfer, buffer, at, bytes, path);
        status = polka_h5_first(status, wrote);
        at += bytes;
    }
    free(buffer);
    if (xfer >= 0) H5Pclose(xfer);
    return polka_h5_first(status, polka_h5_close(&set, path));
}

/* Rank 0: every rank's (length, digest) pairs, rank by rank (NULL elsewhere). */
static polka_status gather_pairs(MPI_Comm comm, size_t agents, const polka_ckpt_layout *layout,
                                 uint64_t **all) {
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    POLKA_CHECK(2 * (uint64_t)agents <= INT_MAX, POLKA_ERR_ARG,
                "a checkpoint holds fewer than %d agents", INT_MAX / 2);
    int mine = (int)(2 * layout->count), *counts = NULL, *displs = NULL;
    uint64_t *pairs = malloc(2 * (layout->count ? layout->count : 1) * sizeof *pairs);
    if (rank == 0) {
        counts = malloc((size_t)size * sizeof *counts);
        displs = malloc((size_t)size * sizeof *displs);
        *all = malloc(2 * (agents ? agents : 1) * sizeof **all);
    }
    polka_status status =
        pairs && (rank != 0 || (counts && displs && *all))
            ? POLKA_OK
            : polka_error_set(POLKA_ERR_MEM, "out of memory for a checkpoint's index");
    status = polka_net_agree(comm, status);
    for (size_t k = 0; status == POLKA_OK && k < layout->count; k++)
        pairs[2 * k] = layout->lengths[k], pairs[2 * k + 1] = layout->digests[k];
    if (status == POLKA_OK)
        status = polka_net_check(MPI_Gather(&mine, 1, MPI_INT, counts, 1, MPI_INT, 0, comm),
                                 "MPI_Gather");
    for (int r = 0; status == POLKA_OK && rank == 0 && r < size; r++)
        displs[r] = r == 0 ? 0 : displs[r - 1] + counts[r - 1];
    if (status == POLKA_OK)
        status = polka_net_check(MPI_Gatherv(pairs, mine, MPI_UINT64_T, rank == 0 ? *all : NULL,
                                             counts, displs, MPI_UINT64_T, 0, comm),
                                 "MPI_Gatherv");
    free(pairs), free(counts), free(displs);
    return status;
}

/* Rank 0: the index by agent id from the pairs in rank order (order[k]: the id of the k-th). */
static polka_status index_by_id(const uint64_t *pairs, size_t agents, const size_t *order,
                                uint64_t *index) {
    uint64_t *offset = index, *length = index + agents, *digest = index + 2 * agents, at = 0;
    for (size_t a = 0; a < agents; a++) length[a] = UINT64_MAX;
    for (size_t k = 0; k < agents; k++) {
        size_t id = order ? order[k] : k;
        POLKA_CHECK(id < agents && length[id] == UINT64_MAX, POLKA_ERR_ARG,
                    "the ranks' agents are not agents 0 .. %zu, each once (agent %zu)", agents - 1,
                    id);
        offset[id] = at, length[id] = pairs[2 * k], digest[id] = pairs[2 * k + 1];
        at += pairs[2 * k];
    }
    return POLKA_OK;
}

polka_status polka_ckpt_write_index(hid_t group, MPI_Comm comm, size_t agents, const size_t *order,
                                    const polka_ckpt_layout *layout, const char *path) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    uint64_t *pairs = NULL, *index = NULL;
    polka_status status = gather_pairs(comm, agents, layout, &pairs);
    if (status == POLKA_OK && rank == 0) {
        index = malloc(3 * (agents ? agents : 1) * sizeof *index);
        status = index ? index_by_id(pairs, agents, order, index)
                       : polka_error_set(POLKA_ERR_MEM, "out of memory for a checkpoint's index");
    }
    free(pairs);
    status = polka_net_agree(comm, status);
    static const char *const names[3] = {"offset", "length", "digest"};
    polka_status written = POLKA_OK; /* rank 0's writes */
    for (int k = 0; k < 3 && status == POLKA_OK; k++)
        status = polka_ckpt_write_array(group, names[k], POLKA_STATE_U64,
                                        index ? index + (size_t)k * agents : NULL, agents, path,
                                        &written);
    free(index);
    return polka_h5_first(status, written);
}
