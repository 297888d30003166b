/* The metric rows of a run's log steps so far (history.c): what the run file's rows hold,
 * kept by rank 0 for the end of the run and carried by its checkpoints. */
#ifndef POLKA_SIM_HISTORY_IMPL_H
#define POLKA_SIM_HISTORY_IMPL_H

#include <stddef.h>

#include "polka/error.h"

/* The metric rows of the log steps so far (rank 0 / a serial run): the run file's rows. Their
 * rounds and samples are in memory; the rows themselves (width doubles each, 12 MB at 10^5
 * agents) are in memory, in a spill file (polka_history_spill), or read from a checkpoint one
 * at a time (read_row), so that rank 0 does not hold every row of a long run. */
typedef struct {
    size_t rows, cap, width; /* width: agents × metric doubles */
    double *round, *samples;
    double *metrics; /* in memory: rows × width */
    int spilled, fd; /* 1: row r at byte r·width·8 of the unlinked file fd */
    polka_status (*read_row)(const void *source, size_t r, double *row); /* or this */
    const void *source;
} polka_history;

/* Keeps the rows from now on in an unlinked file of directory dir (O_TMPFILE, else a mkstemp
 * name unlinked at once: nothing is left there, whatever happens); in memory when it cannot. */
void polka_history_spill(polka_history *history, const char *dir);

polka_status polka_history_add(polka_history *history, double round, double samples,
                               const double *row);

/* Row r's width doubles into row. */
polka_status polka_history_row(const polka_history *history, size_t r, double *row);
void polka_history_free(polka_history *history);

#endif
