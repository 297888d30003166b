/* The metric rows of the log steps so far: in memory, or in an unlinked spill file. */
#define _GNU_SOURCE /* O_TMPFILE */
#include "sim/metrics/history_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void polka_history_spill(polka_history *h, const char *dir) {
    if (h->spilled || h->rows > 0) return;
    int fd = -1;
#ifdef O_TMPFILE
    fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
#endif
    if (fd < 0) { /* a file system without O_TMPFILE: a fresh name, unlinked at once */
        char name[4096];
        snprintf(name, sizeof name, "%s/.polka-rows-XXXXXX", dir);
        fd = mkstemp(name);
        if (fd >= 0 && unlink(name) != 0) {
            close(fd);
            fd = -1;
        }
    }
    if (fd < 0) return; /* kept in memory */
    h->spilled = 1;
    h->fd = fd;
}

static polka_status history_grow(polka_history *h) {
    size_t cap = h->cap ? 2 * h->cap : 16;
    double *rounds = realloc(h->round, cap * sizeof *rounds);
    if (rounds) h->round = rounds;
    double *samples_ = realloc(h->samples, cap * sizeof *samples_);
    if (samples_) h->samples = samples_;
    double *metrics = h->spilled ? NULL : realloc(h->metrics, cap * h->width * sizeof *metrics);
    if (metrics) h->metrics = metrics;
    POLKA_CHECK(rounds && samples_ && (metrics || h->spilled), POLKA_ERR_MEM,
                "out of memory for the metric rows of a checkpoint");
    h->cap = cap;
    return POLKA_OK;
}

/* The bytes of row r in the spill file, written or read whole (EINTR and short transfers). */
static polka_status spill_io(const polka_history *h, size_t r, double *row, int write) {
    size_t bytes = h->width * sizeof *row, done = 0;
    off_t at = (off_t)r * (off_t)bytes;
    while (done < bytes) {
        ssize_t got = write ? pwrite(h->fd, (char *)row + done, bytes - done, at + (off_t)done)
                            : pread(h->fd, (char *)row + done, bytes - done, at + (off_t)done);
        if (got < 0 && errno == EINTR) continue;
        POLKA_CHECK(got > 0, POLKA_ERR_IO, "cannot %s the metric rows' spill file: %s",
                    write ? "write" : "read", got < 0 ? strerror(errno) : "it is short");
        done += (size_t)got;
    }
    return POLKA_OK;
}

polka_status polka_history_add(polka_history *h, double round, double samples, const double *row) {
    if (h->rows == h->cap) POLKA_CALL(history_grow(h));
    if (h->spilled)
        POLKA_CALL(spill_io(h, h->rows, (double *)row, 1));
    else
        memcpy(h->metrics + h->rows * h->width, row, h->width * sizeof *row);
    h->round[h->rows] = round;
    h->samples[h->rows] = samples;
    h->rows++;
    return POLKA_OK;
}

polka_status polka_history_row(const polka_history *h, size_t r, double *row) {
    if (h->read_row) return h->read_row(h->source, r, row);
    if (h->spilled) return spill_io(h, r, row, 0);
    memcpy(row, h->metrics + r * h->width, h->width * sizeof *row);
    return POLKA_OK;
}

void polka_history_free(polka_history *h) {
    free(h->round);
    free(h->samples);
    free(h->metrics);
    if (h->spilled) close(h->fd);
    *h = (polka_history){.width = h->width};
}
