/*
 * Scratch shared by the learners and KOMPs of a thread (scratch_impl.h). Thread-local, so
 * learners on different threads never share a buffer; users are counted per thread.
 */
#include "scratch_impl.h"

#include <stdlib.h>

static _Thread_local void *buffers[POLKA_SCRATCH_KINDS];
static _Thread_local size_t sizes[POLKA_SCRATCH_KINDS];
static _Thread_local size_t users;

void *polka_scratch(polka_scratch_kind kind, size_t bytes) {
    if (bytes > sizes[kind] || buffers[kind] == NULL) {
        size_t size = sizes[kind] ? sizes[kind] : 2048;
        while (size < bytes) size *= 2;
        void *next = realloc(buffers[kind], size);
        if (next == NULL) {
            polka_error_set(POLKA_ERR_MEM, "out of memory for %zu bytes of scratch", size);
            return NULL;
        }
        buffers[kind] = next;
        sizes[kind] = size;
    }
    return buffers[kind];
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
