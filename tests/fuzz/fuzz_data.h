/* The data file harnesses' common part: scan, read and scale a file as a run does. */
#ifndef POLKA_FUZZ_DATA_H
#define POLKA_FUZZ_DATA_H

#include "polka/dataio.h"

/* The memory limit of the harnesses (bytes), small: a large one costs every input that reaches it
 * its time. */
#define FUZZ_DATA_MEMORY_LIMIT ((size_t)1 << 20)

/* Scans path as a training file and, when it is valid, reads it back (all samples, then every
 * other one) and scales it both ways. Aborts when a read or scale that succeeded left a
 * non-finite value, or when the read disagrees with the scan. */
void fuzz_data_run(const char *path, const polka_read_options *options);

#endif
