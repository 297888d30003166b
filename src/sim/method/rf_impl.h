/*
 * The random-feature methods (rf-diffusion, dkla, coke): every agent holds θ_i (D×C) on the
 * random Fourier features of learner.sigma drawn from run.seed (rff.h), the same features on
 * every rank; a round sends one variable of D·C doubles to the neighbours (one phase) and
 * never a sample. The local steps are rff_methods.h's; this is what they share as methods of
 * the fabric (method_impl.h): the agent's arrays, its batch, the neighbours' last variables,
 * prediction, the model and the checkpoint.
 */
#ifndef POLKA_SIM_RF_H
#define POLKA_SIM_RF_H

#include "polka/rff_methods.h"
#include "sim/method/method_impl.h"

typedef struct {
    polka_rff_problem problem;
    const polka_rff *features; /* shared by the process's agents (rf_features_take) */
    size_t len;                /* D·C */
    size_t classes;            /* the data's (0: regression) */
    double *theta;             /* θ_i */
    double *shared;            /* θ̂_i: what the neighbours hold of it (dkla: θ_i; coke: sent) */
    double *gamma;             /* γ_i, the ADMM duals (dkla, coke) */
    double *next;              /* the round's new θ_i, or ψ_i (rf-diffusion) */
    double *nbr;               /* degree × len: each neighbour's last variable heard */
    const double **nbr_vars;   /* degree: pointers into nbr */
    /* the batches of a window of rounds, mapped in one product (rf_agent.c): W·b × p, W·b,
     * W·b × D; they hold the rounds [window_first, window_end) (none while window_end is 0) */
    double *x, *y, *z;
    size_t window_rounds; /* W */
    uint64_t window_first, window_end;
    uint64_t run_rounds; /* the rounds the run plays: no window reaches past them */
    double *f;           /* b × C: θ_i's values at the batch, before it learns from it */
    size_t batch_n;      /* samples learned from this round (0: none) */
    size_t batch_at;     /* the round's batch: rows [batch_at, batch_at + b) of the window */
    double eta, rho;
    double consensus_step;   /* rf-diffusion, sparsifier: CHOCO's γ (net.codec_gamma; 0: off) */
    double alpha, mu;        /* coke's censoring threshold h(k) = α μ^k */
    int exact;               /* net.rf_solve = exact: the exact primal on the first batch */
    polka_dkla_exact solver; /* exact: built from the first batch learned from */
} polka_rf;

static inline polka_rf *polka_rf_of(const polka_agent *agent) {
    return (polka_rf *)agent->state;
}

/* Ops the three methods share (rf_agent.c). */
/* one vector of D·C numbers out, nothing back */
void polka_rf_layout(const polka_plan *plan, const polka_data_facts *facts, size_t outputs,
                     polka_block_layout layout[2]);
polka_status polka_rf_check(const polka_plan *plan);
polka_status polka_rf_init(polka_agent *agent, const polka_plan *plan,
                           const polka_data_facts *facts);
void polka_rf_free(polka_agent *agent);
polka_status polka_rf_rewire(polka_agent *agent, const size_t *old_neighbors, size_t old_degree);
polka_status polka_rf_predict(const polka_agent *agent, const double *x, size_t n, double *f);
/* every point of a data set: its features mapped once per log step for all agents */
polka_status polka_rf_test_values(const polka_agent *agent, const polka_dataset *data, double *f);
double polka_rf_score(const polka_agent *agent, const double *f, const double *y, size_t n,
                      double *loss);
size_t polka_rf_order(const polka_agent *agent);
polka_status polka_rf_model(const polka_agent *agent, polka_model **out);
/* collective: the shared features once and every agent's θ (runfile_rff.c) */
polka_status polka_rf_write_models(polka_runfile *h5, const polka_agent *agents, const size_t *ids,
                                   size_t count);
polka_status polka_rf_save(const polka_agent *agent, polka_state *state);
polka_status polka_rf_restore(polka_agent *agent, const polka_state *state);

/** Rounds of a window (rf_agent.c): ⌈32/batch⌉, fewer when the windows of the run's `agents`
 * would pass 256 MiB, at least 1. A function of the run's settings alone. */
size_t polka_rf_window_rounds(size_t agents, size_t batch, size_t features, size_t dim);
/** Draws the round's batch (when the agent learns in it) and maps it to features, with the
 * rest of its window when the window is not mapped yet; the online error and the training
 * loss of θ_i on it go to the counters. */
polka_status polka_rf_draw_batch(polka_agent *agent, const polka_stream *stream);
/** The batch as rff_methods.h takes it (n = 0 when the agent does not learn this round). */
polka_rff_batch polka_rf_batch(const polka_agent *agent);
/** Files the variables heard this round (agent->received) as the neighbours' last ones and
 * returns them all, heard now or before, as rff_methods.h takes them. */
polka_rff_neighbours polka_rf_neighbours(polka_agent *agent);
/** One ADMM primal step (dkla and coke): θ_i^k into rf->next, linearized or exact. */
polka_status polka_rf_admm_primal(polka_agent *agent);
/** The sending side of an ADMM round (dkla.c): the primal step, then θ_i to the neighbours —
 * always when rf->alpha is 0 (dkla), only when it moved by h(k) = α μ^k otherwise (coke). */
polka_status polka_rf_admm_prepare(polka_agent *agent, const polka_stream *stream);
/** The ADMM dual ascent γ_i += ρ Σ_j (θ̂_i − θ̂_j) with the neighbours' last variables heard
 * (dkla.c; coke's update too). */
polka_status polka_rf_admm_dual(polka_agent *agent);

#define POLKA_RF_OPS                                                                               \
    .layout = polka_rf_layout, .free = polka_rf_free, .rewire = polka_rf_rewire,                   \
    .predict = polka_rf_predict, .test_values = polka_rf_test_values, .score = polka_rf_score,     \
    .order = polka_rf_order, .model = polka_rf_model, .write_models = polka_rf_write_models,       \
    .save = polka_rf_save, .restore = polka_rf_restore

#endif
