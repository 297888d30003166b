/* Private interface between the learner (learner.c) and its model-order controls:
 * NORMA (norma.c), the BSGD budget maintenance (maintenance.c), NBSGD's gate and the suffix
 * average (nbsgd.c). */
#ifndef POLKA_CONTROL_IMPL_H
#define POLKA_CONTROL_IMPL_H

#include <stdint.h>

#include "model_impl.h"
#include "polka/learner.h"

/* ---- NORMA (norma.c) ---- */

/*
 * Drops the oldest rows of model until at most tau remain (NORMA's truncation, paper 004
 * §II-C). The model's weights are the stored ones; true weights are scale × stored.
 * Adds the dropped rows to stats->removed and the squared norm of what they carried to
 * stats->sqerror.
 */
polka_status polka_norma_truncate(polka_model *model, size_t tau, double scale,
                                  polka_komp_stats *stats);

/*
 * The ν-trick's indicator of one point (paper 004 §III): 1 for a margin error y f ≤ ρ
 * (soft-margin), a novel point f < ρ (novelty), a point outside the tube |y − f| > ε
 * (eps-insensitive); 0 otherwise and for the other losses.
 */
int polka_norma_indicator(const polka_loss *loss, const double *f, double y);

/* 1 when the ν-trick adapts a parameter of this loss. */
int polka_norma_adapts(polka_loss_kind kind);

/*
 * Moves ρ or ε by the step eta given the mean indicator of the last batch:
 * soft margin ρ ← max(0, ρ + η(ν − σ̄)); novelty ρ ← ρ + η(ν − σ̄);
 * ε-insensitive ε ← max(0, ε + η(σ̄ − ν)) (the gradients of −νρ and +νε in the losses).
 */
void polka_norma_adapt(polka_loss *loss, double nu, double eta, double mean_indicator);

/* ---- Budget maintenance (maintenance.c) and NBSGD (nbsgd.c) ---- */

/* The suffix average Σ_{t > start} w_t / count over every point that was ever in the model,
 * indexed by the point's id (the ids of polka_maintenance). */
typedef struct {
    size_t p, c;
    uint64_t start;    /* iterates with t > start are averaged */
    uint64_t count;    /* iterates averaged so far */
    size_t n, cap;     /* ids known */
    double *x;         /* cap × p: each id's point */
    double *wsum;      /* cap × c: Σ_t of its weight row */
    double *bsum;      /* c: Σ_t of the offset */
    polka_model *view; /* the materialised average */
    int stale;         /* view is older than the sums */
} polka_average;

typedef struct {
    polka_control_kind kind;
    size_t budget, neighbours;
    double beta, jitter;
    uint64_t seed;
    size_t *ids; /* per model row: the id of its point */
    size_t ids_cap;
    size_t next_id;
    double *work; /* the thread's shared scratch (scratch_impl.h), work_size doubles */
    size_t work_size;
    size_t *index_work; /* ... and index_size indices */
    size_t index_size;
    polka_average *average; /* NULL unless suffix > 0 */
} polka_maintenance;

polka_status polka_maintenance_create(const polka_learner_params *params, size_t p, size_t c,
                                      polka_maintenance **out);
void polka_maintenance_free(polka_maintenance **state);

/* Gives ids to the model's rows first..M−1, just appended (and records their points in the
 * suffix average). */
polka_status polka_maintenance_appended(polka_maintenance *state, const polka_model *model,
                                        size_t first);

/*
 * The maintenance after update t appended `added` points: BSGD while the order passes B;
 * NBSGD once per added point beyond B with probability min(β/t, 1). stats as in
 * polka_learner_last_stats.
 */
polka_status polka_maintenance_apply(polka_maintenance *state, polka_model *model, uint64_t t,
                                     size_t added, polka_komp_stats *stats);

/* NBSGD's gate: 1 when maintenance draw r of update t fires, with probability min(β/t, 1). */
int polka_nbsgd_fires(const polka_maintenance *state, uint64_t t, uint64_t r);

/* The suffix average: iterates t > (1 − suffix)·horizon are averaged. */
polka_status polka_average_create(size_t p, size_t c, double suffix, uint64_t horizon,
                                  polka_average **out);
void polka_average_free(polka_average **average);
/* Records a new id's point. */
polka_status polka_average_add_point(polka_average *average, const double *x);
/* Adds iterate t (model rows with their ids, offset b) when t is in the suffix. */
void polka_average_accumulate(polka_average *average, const polka_model *model, const size_t *ids,
                              const double *offset, uint64_t t);
/* The average as a model (materialised on demand), and its offset into b (c numbers). */
polka_status polka_average_model(polka_average *average, const polka_model *like,
                                 const polka_model **out, double *offset);

#endif
