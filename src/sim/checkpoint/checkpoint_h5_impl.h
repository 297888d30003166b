/* The HDF5 side of a checkpoint file, shared by its writer and its reader. */
#ifndef POLKA_SIM_CHECKPOINT_H5_H
#define POLKA_SIM_CHECKPOINT_H5_H

#include <hdf5.h>
#include <mpi.h>
#include <stdint.h>

#include "polka/state.h"

/* Bytes reserved on the disk for a checkpoint's HDF5 metadata beside its arrays' bytes. */
#define POLKA_CKPT_METADATA_BYTES ((uint64_t)48 << 10)

/* The element type of an entry in memory (native) and in the file (little endian). */
hid_t polka_ckpt_memory_type(polka_state_type type);
hid_t polka_ckpt_file_type(polka_state_type type);

/* Adds size bytes to a 64-bit FNV-1a hash (start from 0xcbf29ce484222325). */
void polka_fnv1a(uint64_t *hash, const void *data, size_t size);

/* The element count of a 1-D dataset as the file stores it, and its type: exactly one of the
 * entry types, no filter, as many bytes stored as the count says, no more than file_size (a
 * dataset that declares more elements than the file holds is refused before anything is
 * allocated for it); -1 when it is not such a dataset. */
hssize_t polka_ckpt_stored_count(hid_t set, hsize_t file_size, polka_state_type *type);

/* Values [first, first + count) of a 1-D dataset read into buf, or written from it (write 1),
 * as memory_type (an independent transfer): 1, or 0 on failure. */
int polka_ckpt_range_io(hid_t set, hid_t memory_type, uint64_t first, uint64_t count, void *buf,
                        int write);

/* The digest of an open checkpoint (checkpoint_digest.c: every root attribute but "digest" and
 * every dataset, in a canonical order; agents/states by its count alone, its bytes being
 * covered agent by agent by agents/digest), its "digest" attribute written, and read back. */
polka_status polka_ckpt_digest(hid_t file, uint64_t *digest);
polka_status polka_ckpt_write_digest(hid_t file, const char *path);
polka_status polka_ckpt_read_digest(hid_t file, const char *path, uint64_t *saved);

/* checkpoint_h5.c: a creation list's links and attributes kept in the (checksummed) object
 * header (1 on success), and a new group made so. */
int polka_ckpt_compact(hid_t create);
polka_status polka_ckpt_group(hid_t loc, const char *name, const char *path, hid_t *out);

/* checkpoint_file.c: a 1-D dataset of count values, allocated at once and never filled (every
 * byte is written once); and one created by every rank of a parallel file with data written by
 * the rank that passes it, a failed write recorded in *written (the ranks go on together). */
polka_status polka_ckpt_create_array(hid_t loc, const char *name, polka_state_type type,
                                     uint64_t count, const char *path, hid_t *out);
polka_status polka_ckpt_write_array(hid_t loc, const char *name, polka_state_type type,
                                    const void *data, uint64_t count, const char *path,
                                    polka_status *written);

/* checkpoint_states.c: where a rank's agents go in /agents/states. */
typedef struct {
    size_t count;      /* this rank's agents */
    uint64_t *lengths; /* bytes of each one's packed state (polka_state_pack) */
    uint64_t *digests; /* FNV-1a of those bytes, set as they are written */
    uint64_t base;     /* offset of this rank's first byte: the bytes of the ranks before */
    uint64_t total;    /* bytes of every rank's agents */
    size_t pieces;     /* collective writes: the most any rank needs */
    uint64_t largest;  /* bytes of this rank's largest piece */
} polka_ckpt_layout;

/* Collective: the layout of this rank's count agents (states). */
polka_status polka_ckpt_plan_states(MPI_Comm comm, size_t count, polka_state *const *states,
                                    polka_ckpt_layout *layout);
void polka_ckpt_layout_free(polka_ckpt_layout *layout);
/* Collective: /agents/states (in group "agents" of a file open on every rank of comm), each
 * rank its agents' packed states at its offset, taking their digests. */
polka_status polka_ckpt_write_states(hid_t group, MPI_Comm comm, const polka_ckpt_layout *layout,
                                     polka_state *const *states, const char *path);
/* Collective, after polka_ckpt_write_states: /agents/offset, length and digest, by agent id
 * (order: every rank's ids rank by rank, NULL for 0 .. agents - 1; rank 0 writes them). */
polka_status polka_ckpt_write_index(hid_t group, MPI_Comm comm, size_t agents, const size_t *order,
                                    const polka_ckpt_layout *layout, const char *path);

/* bytes of the disk reserved for path (0, or the errno that refused them: ENOSPC), and what
 * was reserved past its end given back once it is written (best effort). */
int polka_ckpt_reserve(const char *path, uint64_t bytes);
void polka_ckpt_unreserve(const char *path);

#endif
