/* Private layout of the learner, shared by learner.c and its checkpoint (learner_state.c). */
#ifndef POLKA_LEARNER_IMPL_H
#define POLKA_LEARNER_IMPL_H

#include "control_impl.h"

/*
 * KOMP: the kernel rows of the points predicted at since the last update. The update borders
 * the same points into KOMP's inverse and takes their rows from here instead of reading the
 * dictionary a second time (half the memory traffic of a POLK step at M in the thousands).
 * Every prediction is a block of points; the rows of a block predicted with
 * polka_learner_predict_transient are not stored (a neighbour's points, which the update does
 * not learn from: a 16 384-agent rank would hold them all at once) and are recomputed, the
 * whole block as the prediction computed it, should KOMP still ask for one.
 */
typedef struct {
    size_t first, n; /* rows first … first + n − 1 of the points */
    size_t k_at;     /* where their kernel rows start in k, or NOT_STORED */
} learner_block;

typedef struct {
    double *x, *k;         /* count × p points; the stored blocks' kernel rows (n × m each) */
    size_t count, m;       /* points kept; the model order they were computed against */
    size_t k_used;         /* doubles of k in use */
    size_t x_cap, k_cap;   /* doubles allocated */
    learner_block *blocks; /* one per prediction since the last reset */
    size_t nblocks, blocks_cap;
    size_t recomputed; /* 1 + the block last recomputed into the scratch, 0: none */
    uint64_t version;  /* the model's version then (model_impl.h) */
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
    /* The thread's shared scratch (scratch_impl.h) as the current call laid it out:
     * 3 × n×C + n×p: weight rows, f values, gradients, kept points */
    double *scratch;
    size_t scratch_rows;
    int holds_scratch; /* counted among the scratch's users */
};

/** Offers komp the rows predict kept (stored, or recomputed on demand) if they were computed
 * against the first `first` points as they still are, then forgets them: the update changes
 * the model. The arrays stay until the next prediction, after the compression reads them. */
void polka_learner_offer_rows(polka_learner *learner, polka_komp *komp, size_t first);

#endif
