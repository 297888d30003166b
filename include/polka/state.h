/**
 * @file state.h
 * @brief A named set of arrays: what a checkpoint holds of one agent (or of the run).
 *
 * The core saves a learner's state into one (polka_learner_save) and restores it
 * (polka_learner_restore) without knowing where it goes; the checkpoint writes each entry as a
 * named dataset of the agent's group. Entries are doubles, unsigned 64-bit integers or bytes.
 * A state travels between ranks as one block of bytes (polka_state_pack / polka_state_unpack).
 */
#ifndef POLKA_STATE_H
#define POLKA_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "polka/error.h"

typedef enum { POLKA_STATE_F64, POLKA_STATE_U64, POLKA_STATE_U8 } polka_state_type;

typedef struct polka_state_s polka_state;

/** "float64", "uint64" or "uint8" (for messages). */
const char *polka_state_type_name(polka_state_type type);

/** An empty state (the caller owns it). */
polka_status polka_state_create(polka_state **out);
void polka_state_free(polka_state **state);

/** Adds entry name (a copy of count values of type); a name already there is an error. */
polka_status polka_state_put(polka_state *state, const char *name, polka_state_type type,
                             const void *data, size_t count);
/** The same without a copy: the state refers to data, which must stay unchanged until the
 * state is freed (a learner's arrays while a checkpoint is written). */
polka_status polka_state_put_ref(polka_state *state, const char *name, polka_state_type type,
                                 const void *data, size_t count);
/** The same taking data (malloc'ed; freed with the state, or here on an error). */
polka_status polka_state_put_owned(polka_state *state, const char *name, polka_state_type type,
                                   void *data, size_t count);
polka_status polka_state_put_f64(polka_state *state, const char *name, double value);
polka_status polka_state_put_u64(polka_state *state, const char *name, uint64_t value);

/** Entries, and entry k's name, type, count and values (k < polka_state_count). */
size_t polka_state_count(const polka_state *state);
void polka_state_entry(const polka_state *state, size_t k, const char **name,
                       polka_state_type *type, size_t *count, const void **data);

/**
 * Entry name's values: its type must be type and its count `count` (else a format error that
 * names the entry: a checkpoint that does not fit the run).
 */
polka_status polka_state_get(const polka_state *state, const char *name, polka_state_type type,
                             void *data, size_t count);
polka_status polka_state_get_f64(const polka_state *state, const char *name, double *value);
polka_status polka_state_get_u64(const polka_state *state, const char *name, uint64_t *value);
/** The count of entry name (a format error when it is missing). */
polka_status polka_state_size(const polka_state *state, const char *name, size_t *count);

/** The state as one block of bytes (malloc'ed, the caller frees) and back. The block is
 * [u64 entries] then per entry [u64 name length][name][u64 type][u64 count][values], words and
 * values in the host's byte order (little endian on every machine polka runs on; a checkpoint
 * stores these blocks as they are). */
polka_status polka_state_pack(const polka_state *state, unsigned char **bytes, size_t *size);
/** The bytes of that block, and the block written into out (packed_size bytes). */
size_t polka_state_packed_size(const polka_state *state);
void polka_state_pack_into(const polka_state *state, unsigned char *out);
polka_status polka_state_unpack(const unsigned char *bytes, size_t size, polka_state **out);

#endif
