/* The file source of a stream: the training rows an agent needs, read once, and the test set. */
#ifndef POLKA_SIM_STREAM_FILE_H
#define POLKA_SIM_STREAM_FILE_H

#include <stdint.h>

#include "polka/config.h"
#include "polka/data.h"
#include "polka/dataio.h"

typedef struct polka_filedata_s polka_filedata;

/**
 * Scans the training file (dimension, label map, statistics) and reads the rows that agent
 * `agent` of `agents` (batch samples per round) can draw: for the i.i.d. split only its own
 * share; for the skewed split, or agent < 0 (a centralized run, the serial reference), all.
 */
polka_status polka_filedata_load(const polka_config *config, size_t agents, size_t batch,
                                 long agent, polka_filedata **out);
void polka_filedata_free(polka_filedata **data);

/** The training file's facts: samples, dimension, classes (0: regression). */
const polka_data_info *polka_filedata_info(const polka_filedata *data);

/** Training rows this stream holds (all, or one agent's share). */
size_t polka_filedata_rows(const polka_filedata *data);

/** Training row i (0-based in the file) into x and *y; an error if this stream did not keep it. */
polka_status polka_filedata_row(const polka_filedata *data, uint64_t i, double *x, double *y);

/** A uniformly drawn training row of class c (skewed split), from the uniform u in (0, 1). */
polka_status polka_filedata_row_of_class(const polka_filedata *data, size_t c, double u, double *x,
                                         double *y);

/** Reads and scales the whole test file with the training label map and statistics. */
polka_status polka_filedata_test(const polka_filedata *data, const polka_config *config,
                                 polka_dataset *test);

#endif
