/* The HDF5 side of a checkpoint file, shared by its writer and its reader. */
#ifndef POLKA_SIM_CHECKPOINT_H5_H
#define POLKA_SIM_CHECKPOINT_H5_H

#include <hdf5.h>
#include <stdint.h>

#include "polka/state.h"

/* The path of agent's group, "agents/BBBBBB/NNNNNN", and of the group of agents it is in,
 * "agents/BBBBBB" (BBBBBB: the first agent of that group). */
void polka_ckpt_agent_path(size_t agent, char *out, size_t size);
void polka_ckpt_group_path(size_t agent, char *out, size_t size);

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

/* The digest of an open checkpoint (checkpoint_digest.c: every root attribute but "digest" and
 * every dataset, in a canonical order), its "digest" attribute written, and read back. */
polka_status polka_ckpt_digest(hid_t file, uint64_t *digest);
polka_status polka_ckpt_write_digest(hid_t file, const char *path);
polka_status polka_ckpt_read_digest(hid_t file, const char *path, uint64_t *saved);

/* checkpoint_image.c: a new file in memory, its bytes (checked: they open, and their digest is
 * the one they hold; the caller frees them), and those bytes into a file, flushed to the
 * disk. */
hid_t polka_ckpt_create_in_memory(const char *name);
/* A new group whose links stay in its (checksummed) object header. */
polka_status polka_ckpt_group(hid_t loc, const char *name, const char *path, hid_t *out);
polka_status polka_ckpt_image(hid_t file, const char *tmp, void **image, size_t *size);
polka_status polka_ckpt_write_image(const char *tmp, const void *image, size_t size);

#endif
