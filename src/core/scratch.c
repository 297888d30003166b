/*
 * Scratch shared by the learners and KOMPs of a thread (scratch_impl.h). Thread-local, so
 * learners on different threads never share a buffer; users are counted per thread.
 */
#include "scratch_impl.h"

#include <stdlib.h>

static _Thread_local double *buffers[POLKA_SCRATCH_KINDS];
static _Thread_local size_t sizes[POLKA_SCRATCH_KINDS];
static _Thread_local size_t users;

polka_status polka_scratch_get(polka_scratch_kind kind, size_t count, double **out) {
    if (count > sizes[kind]) {
        size_t size = sizes[kind] ? sizes[kind] : 256;
        while (size < count) size *= 2;
        double *next = realloc(buffers[kind], size * sizeof *next);
        POLKA_CHECK(next != NULL, POLKA_ERR_MEM, "out of memory for %zu doubles of scratch", size);
        buffers[kind] = next;
        sizes[kind] = size;
    }
    *out = buffers[kind];
    return POLKA_OK;
}

void polka_scratch_hold(void) {
    users++;
}

void polka_scratch_release(void) {
    if (users > 0) users--;
    if (users > 0) return;
    for (int k = 0; k < POLKA_SCRATCH_KINDS; k++) {
        free(buffers[k]);
        buffers[k] = NULL;
        sizes[k] = 0;
    }
}
