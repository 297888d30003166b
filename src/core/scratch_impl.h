/* Scratch shared by the learners of a thread (scratch.c). */
#ifndef POLKA_SCRATCH_IMPL_H
#define POLKA_SCRATCH_IMPL_H

#include <stddef.h>

#include "polka/error.h"

/* One buffer per use, so that a caller's scratch never overlaps another's that is live. */
typedef enum {
    POLKA_SCRATCH_KOMP,        /* KOMP's bordering and flush (komp_lazy.c) */
    POLKA_SCRATCH_LEARNER,     /* an update's gradient rows and kept points (learner.c) */
    POLKA_SCRATCH_MAINTENANCE, /* the budget maintenance's projection (maintenance.c) */
    POLKA_SCRATCH_KINDS
} polka_scratch_kind;

/*
 * Scratch that holds nothing from one call to the next, shared by every learner and KOMP of
 * the calling thread instead of one per agent: a rank's agents run one after another, so
 * 16 384 agents need one buffer, not 16 384. No result and no checkpoint depends on it.
 * The buffer of `kind` grows to at least `count` doubles (never shrinks while it has users);
 * *out is valid until the next call for the same kind.
 */
polka_status polka_scratch_get(polka_scratch_kind kind, size_t count, double **out);

/** A learner or KOMP starts using the thread's scratch. */
void polka_scratch_hold(void);

/** ... and stops: the thread's buffers are freed with their last user. */
void polka_scratch_release(void);

#endif
