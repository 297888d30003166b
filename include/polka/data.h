/**
 * @file data.h
 * @brief Data sets, the synthetic stream generators and the LIBSVM text writer.
 *
 * A data set holds n points and their targets: class indices 0..K−1 stored as doubles
 * (classification, classes = K) or real values (regression, classes = 0). The points are
 * stored dense (x: n×p, row-major) or, for LIBSVM files read with sparse storage, as sparse
 * rows (polka_sparse_rows); polka_dataset_row() and polka_dataset_eval() read either.
 */
#ifndef POLKA_DATA_H
#define POLKA_DATA_H

#include <stddef.h>
#include <stdint.h>

#include "polka/error.h"

/**
 * Sparse rows (compressed sparse row): row i lists value[k] at feature index[k] for
 * k in [start[i], start[i+1]), features increasing; every value the file listed is kept, zeros
 * included. A feature the row does not list reads as its base: base[b] for the feature
 * base_index[b], +0 for any other. Scaling (polka_data_scale, scaled set) replaces each listed
 * value v by (v − shift_j)·factor_j and makes the bases (0 − shift_j)·factor_j of the features
 * where that is not +0, so a row reads as the very doubles the dense storage of the same file
 * holds after the same scaling; the bases take memory only for the features that occur in the
 * training file.
 */
typedef struct {
    double *value;   /**< nnz */
    uint32_t *index; /**< nnz, 0-based features */
    size_t *start;   /**< n + 1 */
    size_t nnz;
    int scaled;           /**< 1: the values are scaled (polka_data_scale) */
    size_t bases;         /**< the features whose absence does not read as +0 */
    uint32_t *base_index; /**< bases, increasing (NULL when bases is 0) */
    double *base;         /**< bases: what the feature reads as where a row does not list it */
} polka_sparse_rows;

typedef struct {
    size_t n, p;
    size_t classes;            /**< number of classes; 0 for regression */
    double *x;                 /**< n×p (dense storage), or NULL when sparse holds the points */
    double *y;                 /**< n */
    polka_sparse_rows *sparse; /**< the points stored sparse, or NULL (dense) */
} polka_dataset;

/** Allocates x and y for n points; the caller frees them with polka_dataset_free. */
polka_status polka_dataset_alloc(polka_dataset *data, size_t n, size_t p, size_t classes);

/** Frees x, y and the sparse rows and zeroes the struct; NULL-safe. */
void polka_dataset_free(polka_dataset *data);

/** x (p doubles) divided by its Euclidean norm, summed in index order (the same bits on every
 *  rank); a zero x stays zero (data.unit_norm). */
void polka_unit_norm_row(double *x, size_t p);

/** Every point of data divided by its Euclidean norm (polka_unit_norm_row). Sparse storage:
 *  the listed values of each row; refused (POLKA_ERR_ARG, naming the file `path`) when some feature
 *  reads as non-zero where a row does not list it (a scaling's base), since a row's base
 *  values cannot take its own factor. */
polka_status polka_dataset_unit_norm(polka_dataset *data, const char *path);

/** Point i of data as p dense doubles into row (dense: copied; sparse: expanded). */
void polka_dataset_row(const polka_dataset *data, size_t i, double *row);

/** Points first..first+count−1 as dense rows: a pointer into data->x (dense storage), or
 *  buffer (count×p doubles) filled with them (sparse storage). */
const double *polka_dataset_rows(const polka_dataset *data, size_t first, size_t count,
                                 double *buffer);

/** Rows a sparse data set expands at a time for polka_dataset_eval(): a multiple of the 256
 *  rows polka_model_eval() works on, as many as fit in 32 MB (fewer than 256 only when 256
 *  rows of p features do not fit: then at least 1). */
size_t polka_dataset_block_rows(size_t p);

/** Evaluates count dense rows x into f (count × the caller's outputs). */
typedef polka_status (*polka_rows_eval_fn)(const void *context, const double *x, size_t count,
                                           double *f);

/**
 * f (n × outputs) = eval(context, the points of data): in one call on data->x (dense storage),
 * or block by block of polka_dataset_block_rows(p) expanded rows (sparse storage), so a sparse
 * data set is never expanded whole. A model evaluated by rows gives the same doubles either
 * way (polka_model_eval works on blocks of 256 rows).
 */
polka_status polka_dataset_eval(const polka_dataset *data, size_t outputs, polka_rows_eval_fn eval,
                                const void *context, double *f);

/** Writes a data set (dense storage) in LIBSVM text format ("label i:v ..." with 1-based
 *  indices). */
polka_status polka_dataset_write_libsvm(const polka_dataset *data, const char *path);

/**
 * Streams of a generator: each is an independent counter-based sequence. SPLIT: the split's
 * draw for network sample g (index g); AGENT: a split's per-agent draws (index: the agent);
 * SHUFFLE: a split's one-off draws (index 0); ACTIVE: quantity skew (index a: agent a's rate;
 * agents + t·agents + a: whether agent a learns in round t); LINK, OFFLINE, DELAY, GOSSIP:
 * the network's faults (index: the round; sub: the agent or the directed edge, fault.c).
 */
enum {
    POLKA_STREAM_TRAIN = 1,
    POLKA_STREAM_TEST = 2,
    POLKA_STREAM_SPLIT = 3,
    POLKA_STREAM_AGENT = 4,
    POLKA_STREAM_SHUFFLE = 5,
    POLKA_STREAM_ACTIVE = 6,
    POLKA_STREAM_LINK = 7,
    POLKA_STREAM_OFFLINE = 8,
    POLKA_STREAM_DELAY = 9,
    POLKA_STREAM_GOSSIP = 10,
    POLKA_STREAM_SPEED = 11,   /* async: an agent's speed (index: the agent) */
    POLKA_STREAM_COMPUTE = 12, /* async: one update's time (index: the update; sub: the agent) */
    POLKA_STREAM_LATENCY = 13, /* async: one message's delay (index: seq; sub: edge, phase) */
    POLKA_STREAM_JOIN = 14     /* graph: where a component is joined (index: the component) */
};

/**
 * The POLK "multidist" Gaussian mixture ([KWSR19] §5.2, docs/design.md): K classes with centres
 * θ_c = (cos 2πc/K, sin 2πc/K) (zero beyond the first two coordinates), `components`
 * means per class μ_{c,m} ~ N(θ_c, mean_var·I) drawn from means_seed; a sample draws y and m
 * uniformly and x ~ N(μ_{y,m}, sample_var·I).
 */
typedef struct {
    size_t classes, components, dim;
    double mean_var, sample_var;
    uint64_t seed, means_seed;
} polka_multidist_params;

typedef struct polka_multidist_s polka_multidist;

/** Returns NULL when the parameters are valid, else a message. Pure. */
const char *polka_multidist_check(const polka_multidist_params *params);

/** Draws the component means; the caller owns the generator. */
polka_status polka_multidist_create(const polka_multidist_params *params, polka_multidist **out);
void polka_multidist_free(polka_multidist **gen);

/** Sample `index` of `stream` into x (dim numbers) and *y. Pure given the generator. */
void polka_multidist_sample(const polka_multidist *gen, uint64_t stream, uint64_t index, double *x,
                            double *y);

/** Sample `index` of `stream` conditioned on class c (the component is still drawn). */
void polka_multidist_sample_class(const polka_multidist *gen, uint64_t stream, uint64_t index,
                                  size_t c, double *x);

/** Fills data (already allocated for n points) with samples first..first+n−1 of stream. */
void polka_multidist_fill(const polka_multidist *gen, uint64_t stream, uint64_t first,
                          polka_dataset *data);

#endif
