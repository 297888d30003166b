/* Private pieces of the HDF5 run file: the writer's state and small HDF5 helpers. */
#ifndef POLKA_RUNFILE_IMPL_H
#define POLKA_RUNFILE_IMPL_H

#include <hdf5.h>
#include <stdint.h>

#include "polka/runfile.h"

struct polka_runfile_s {
    MPI_Comm comm;
    int rank, size;
    char *path;
    size_t agents, metric_count, rows;
    size_t stride, logged; /* the columns are agents 0, stride, 2 stride, ...: logged of them */
    hid_t file;            /* the run file (MPI-IO driver) */
    hid_t metrics;         /* /metrics */
    hid_t xfer;            /* collective transfer property list */
    hid_t *columns;        /* metric_count 2-D datasets */
    char **names;          /* their names, for messages */
    hid_t round, samples;
    double *scratch;     /* agents doubles: one column of an append */
    polka_status broken; /* set when an append left the datasets out of step */
};

/** Silences HDF5's own printing of its error stack (process-wide; idempotent). */
void polka_h5_quiet(void);

/**
 * Records POLKA_ERR_HDF5 "cannot WHAT 'OBJECT' in 'PATH' (HDF5: innermost message)" and
 * clears HDF5's error stack. object may be NULL.
 */
polka_status polka_h5_fail(const char *what, const char *object, const char *path);

/** Closes an identifier of any kind (a negative one is skipped) and sets it to -1. */
polka_status polka_h5_close(hid_t *id, const char *path);

/** keep when it is an error, else next: the first error of a sequence. */
polka_status polka_h5_first(polka_status keep, polka_status next);

/** A scalar attribute (all ranks of a parallel file call these with the same value). */
polka_status polka_h5_attr_string(hid_t obj, const char *name, const char *value, const char *path);
polka_status polka_h5_attr_u64(hid_t obj, const char *name, uint64_t value, const char *path);
polka_status polka_h5_attr_i64(hid_t obj, const char *name, int64_t value, const char *path);
polka_status polka_h5_attr_double(hid_t obj, const char *name, double value, const char *path);

/** Opens group name under loc, creating it when missing. */
polka_status polka_h5_group(hid_t loc, const char *name, const char *path, hid_t *out);

/** Removes the link name under loc when it exists (to rewrite an object). */
polka_status polka_h5_unlink(hid_t loc, const char *name, const char *path);

/**
 * A contiguous dataset of doubles or uint64 (type) with dims (rank 1 or 2); when data is not
 * NULL it is written with the default (independent) transfer. Collective in a parallel file
 * except for the write: pass data on the writing rank only.
 */
polka_status polka_h5_dataset(hid_t loc, const char *name, hid_t type, int rank,
                              const hsize_t *dims, const void *data, const char *path);

/** Collective: H5Fflush of the whole run file. */
polka_status polka_runfile_flush(polka_runfile *log);

/* The reader's pieces, for the readers in other files (runfile_read.c has the details). */
hid_t polka_runfile_reader_file_id(const polka_runfile_reader *run);
const char *polka_runfile_reader_path(const polka_runfile_reader *run);
/** A numeric attribute holding one value, converted to mem_type. */
polka_status polka_h5_read_number(hid_t obj, const char *name, const char *where, hid_t mem_type,
                                  void *value, const char *path);
/** An integer attribute in [low, high] (a float one is refused). */
polka_status polka_h5_read_integer(hid_t obj, const char *name, const char *where, int64_t low,
                                   int64_t high, int64_t *value, const char *path);
/** An attribute of any type as text. */
polka_status polka_h5_read_text(hid_t obj, const char *name, const char *where, char *out,
                                size_t size, const char *path);
/** Opens dataset name under loc; POLKA_ERR_FORMAT "has no WHAT 'NAME'" when missing. */
polka_status polka_h5_open_dataset(hid_t loc, const char *name, const char *what, const char *path,
                                   hid_t *out);
/** POLKA_ERR_FORMAT when the dataset declares more storage than the whole file. */
polka_status polka_h5_check_storage(hid_t dataset, const char *what, const char *name,
                                    const char *path);

/** The rank (1 or 2) and dimensions of a dataset. */
polka_status polka_h5_dataset_dims(hid_t dataset, int *rank, hsize_t *dims, const char *name,
                                   const char *path);

/** polka_net_agree over the log's communicator. */
polka_status polka_runfile_agree(const polka_runfile *log, polka_status local);

#endif
