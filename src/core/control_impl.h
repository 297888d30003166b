/* Private interface between the learner (learner.c) and its model-order controls: the table
 * of their operations (control.c; one entry per file: control_komp.c, control_budget.c,
 * control_batch.c, norma.c), NORMA (norma.c), the BSGD budget maintenance (maintenance.c),
 * NBSGD's gate and the suffix average (nbsgd.c). */
#ifndef POLKA_CONTROL_IMPL_H
#define POLKA_CONTROL_IMPL_H

#include <stdint.h>

#include "model_impl.h"
#include "polka/learner.h"
#include "polka/state.h"

/* ---- The table of controls (control.c) ---- */

typedef struct polka_average_s polka_average;

/* Which points of an update the model gains. */
typedef enum {
    POLKA_APPEND_ALL,     /* every point (none) */
    POLKA_APPEND_NONZERO, /* the points whose coefficient row is not all zero */
} polka_append_policy;

/* How f ← (1 − η_t λ) f is applied. */
typedef enum {
    POLKA_DECAY_EAGER, /* every stored weight is scaled */
    POLKA_DECAY_SCALE, /* through one global scale, folded before it underflows (norma) */
} polka_decay_policy;

/*
 * A model-order control, or a batch learner (batch = 1: only name, help, check_batch and fit).
 * The learner calls, in an update: decay (by `decay`), append (by `append`), then order. Every
 * operation may be NULL where the control has nothing to do.
 */
typedef struct {
    const char *name; /* as learner.control spells it */
    const char *help; /* one line for polka --help: what it does, the keys it reads */
    int batch;
    const void *rule; /* the entry's own constants (a budget's maintenance), or NULL */
    /* NULL when the control's own parameters are valid, else why not (before the common ones) */
    const char *(*check)(const polka_learner_params *params);
    /* Sets learner->part: what the control keeps beside the model (free: frees it). */
    polka_status (*create)(polka_learner *learner, size_t p);
    void (*free)(void *part);
    polka_append_policy append;
    polka_decay_policy decay;
    int keeps_rows; /* predict keeps the kernel rows of its points for the update (learner_rows) */
    /* 1: its error bound may remove a step whole, so a run can end with the zero function, which
     * the drivers refuse as learnt (KOMP: polka_control_may_learn_nothing) */
    int drops_steps;
    /* The control after update t appended `added` points at rows first.. of the model. */
    polka_status (*order)(polka_learner *learner, uint64_t t, double eta, size_t first,
                          size_t added);
    /* The part's state into / from a checkpoint (after the model's). */
    polka_status (*save)(const polka_learner *learner, polka_state *state);
    polka_status (*restore)(polka_learner *learner, const polka_state *state);
    /* Dense rows held beside a batch (polka_control_rows_held); NULL: one batch. */
    size_t (*rows_held)(const polka_learner_params *params, size_t batch);
    /* The suffix average of the iterates, once it has started; NULL: the control has none. */
    polka_average *(*average)(const polka_learner *learner);
    /* batch learners (polka_batch_check, polka_batch_fit) */
    const char *(*check_batch)(const polka_learner_params *params,
                               const polka_batch_settings *settings);
    polka_status (*fit)(polka_batch_job *job, polka_model **out, size_t *rounds);
} polka_control_ops;

/* The entries, one per line of POLKA_CONTROL_LIST: polka_control_komp, … */
#define POLKA_CONTROL_EXTERN(id, entry) extern const polka_control_ops polka_control_##entry;
POLKA_CONTROL_LIST(POLKA_CONTROL_EXTERN)
#undef POLKA_CONTROL_EXTERN

/* The entry of a control kind; NULL when the kind is out of range. */
const polka_control_ops *polka_control_of(polka_control_kind kind);

/* Checkpoint helpers of the learner's state (learner_state.c): doubles by reference (a
 * checkpoint is written before the learner moves on), size_t arrays as uint64. */
polka_status polka_learner_put_f64s(polka_state *s, const char *name, const double *v, size_t n);
polka_status polka_learner_get_f64s(const polka_state *s, const char *name, double *v, size_t n);
polka_status polka_learner_put_sizes(polka_state *s, const char *name, const size_t *v, size_t n);
polka_status polka_learner_get_sizes(const polka_state *s, const char *name, size_t *v, size_t n);

/*
 * The ν-trick's indicator of one point ([KSW04] §III): 1 for a margin error y f ≤ ρ
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
struct polka_average_s {
    size_t p, c;
    uint64_t start;    /* iterates with t > start are averaged */
    uint64_t count;    /* iterates averaged so far */
    size_t n, cap;     /* ids known */
    double *x;         /* cap × p: each id's point */
    double *wsum;      /* cap × c: Σ_t of its weight row */
    double *bsum;      /* c: Σ_t of the offset */
    polka_model *view; /* the materialised average */
    int stale;         /* view is older than the sums */
};

typedef struct polka_maintenance_s polka_maintenance;

/* A budget's maintenance: what happens to the smallest term, and when. */
typedef struct {
    /* One maintenance on a model over budget: remove, project or merge the smallest term. */
    polka_status (*maintain)(polka_maintenance *state, polka_model *model, polka_komp_stats *stats);
    int nonparametric; /* NBSGD: each point beyond B triggers it with probability min(β/t, 1) */
} polka_budget_rule;

struct polka_maintenance_s {
    const polka_budget_rule *rule;
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
};

polka_status polka_maintenance_create(const polka_learner_params *params,
                                      const polka_budget_rule *rule, size_t p, size_t c,
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

/* The maintenances of the budget rules (the smallest term by ‖w_m‖² k(x_m, x_m)). */
polka_status polka_maintain_remove(polka_maintenance *state, polka_model *model,
                                   polka_komp_stats *stats);
polka_status polka_maintain_project(polka_maintenance *state, polka_model *model,
                                    polka_komp_stats *stats);
polka_status polka_maintain_merge(polka_maintenance *state, polka_model *model,
                                  polka_komp_stats *stats);

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
