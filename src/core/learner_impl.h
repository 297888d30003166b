/* Private layout of the learner, shared by learner.c and its checkpoint (learner_state.c). */
#ifndef POLKA_LEARNER_IMPL_H
#define POLKA_LEARNER_IMPL_H

#include "control_impl.h"

/*
 * KOMP: the kernel rows of the points predicted at since the last update. The update borders
 * the same points into KOMP's inverse and takes their rows from here instead of reading the
 * dictionary a second time (half the memory traffic of a POLK step at M in the thousands).
 */
typedef struct {
    double *x, *k;       /* count × p points, count × m their kernel rows */
    size_t count, m;     /* rows kept; the model order they were computed against */
    size_t x_cap, k_cap; /* doubles allocated */
    uint64_t version;    /* the model's version then (model_impl.h) */
} learner_rows;

/* What the const accessors may update: NORMA's scale, the ν-trick's pending counts, the
 * largest target seen and the predicted kernel rows. */
typedef struct {
    double scale;          /* norma: true weights = scale × the model's stored weights */
    double pending_hits;   /* ν-trick indicators recorded by loss_grad since the last update */
    double pending_points; /* points they were recorded on */
    double y_max;          /* max |y| over the targets loss_grad has seen */
    learner_rows rows;
} learner_cache;

struct polka_learner_s {
    polka_learner_params params;
    size_t classes, outputs;
    polka_loss loss;       /* the loss with its current (adapted) ρ and ε */
    uint64_t steps;        /* updates taken */
    double *offset;        /* C: b (zeros unless params.offset) */
    double *output_offset; /* C: the suffix average's b */
    polka_model *model;
    const polka_control_ops *control; /* the entry of params.control */
    void *part; /* what the control keeps beside the model (KOMP's inverse, a budget's ids) */
    polka_komp_stats last;
    learner_cache *cache;
    double *scratch; /* 3 × n×C + n×p: weight rows, f values, gradients, kept points */
    size_t scratch_rows;
};

#endif
