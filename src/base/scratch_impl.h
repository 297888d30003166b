/* Scratch shared by the learners of a thread (scratch.c). */
#ifndef POLKA_SCRATCH_IMPL_H
#define POLKA_SCRATCH_IMPL_H

#include <stddef.h>

#include "polka/error.h"

/* One buffer per use, so that a caller's scratch never overlaps another's that is live. */
typedef enum {
    POLKA_SCRATCH_KOMP,        /* KOMP's bordering and flush (komp_lazy.c) */
    POLKA_SCRATCH_LEARNER,     /* an update's gradient rows and kept points (learner.c) */
    POLKA_SCRATCH_ROWS,        /* kernel rows recomputed for KOMP (learner.c) */
    POLKA_SCRATCH_MAINTENANCE, /* the budget maintenance's projection and merge */
    POLKA_SCRATCH_INDICES,     /* ... and its projection set (maintenance.c) */
    POLKA_SCRATCH_KINDS
} polka_scratch_kind;

/*
 * Scratch that holds nothing from one call to the next, shared by every learner and KOMP of
 * the calling thread instead of one per agent: a rank's agents run one after another, so
 * 16 384 agents need one buffer, not 16 384. No result and no checkpoint depends on it.
 * Returns the buffer of `kind`, grown to at least `bytes` (it never shrinks while it has
 * users), valid until the next call for the same kind; NULL when out of memory (error set).
 */
void *polka_scratch(polka_scratch_kind kind, size_t bytes);

/** A learner or KOMP starts using the thread's scratch. */
void polka_scratch_hold(void);

/** ... and stops: the thread's buffers are freed with their last user. */
void polka_scratch_release(void);

#endif
