/*
 * NORMA ([KSW04]): truncation of the kernel expansion to
 * its newest τ terms, and the ν-trick that adapts the margin ρ or the tube ε online.
 *
 * The decay of the weights by (1 − η_t λ) per step is the learner's global scale
 * (learner.c, POLKA_DECAY_SCALE): the rows here are the stored weights, true weights =
 * scale × stored. The norma entry of the control table is at the end.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "learner_impl.h"

/*
 * ‖Σ_{i<n} w_i k(d_i, ·)‖²_H of the first n rows = Σ_c w_cᵀ K w_c, from one kernel block.
 * Returns −1 when the scratch cannot be allocated (the statistic is then unknown).
 */
static double head_sqnorm(const polka_model *model, size_t n, double scale) {
    if (n == 1) { /* the usual case: one term, ‖w‖² k(x, x) */
        double sq = 0.0;
        for (size_t k = 0; k < model->c; k++) sq += model->weights[k] * model->weights[k];
        return scale * scale * sq *
               polka_kernel_eval(&model->kernel, model->dict, model->dict, model->p);
    }
    double *gram = malloc(n * n * sizeof *gram);
    if (gram == NULL) return -1.0;
    double total = 0.0;
    if (polka_kernel_block(&model->kernel, model->dict, n, model->dict, model->sqnorm, n, model->p,
                           gram) != POLKA_OK) {
        free(gram);
        return -1.0;
    }
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            double dot = 0.0;
            for (size_t k = 0; k < model->c; k++)
                dot += model->weights[i * model->c + k] * model->weights[j * model->c + k];
            total += gram[i * n + j] * dot;
        }
    free(gram);
    return scale * scale * total;
}

/* Removes the first n rows in one move (the oldest terms). */
static void drop_oldest(polka_model *model, size_t n) {
    size_t keep = model->m - n;
    memmove(model->dict, model->dict + n * model->p, keep * model->p * sizeof *model->dict);
    memmove(model->weights, model->weights + n * model->c,
            keep * model->c * sizeof *model->weights);
    memmove(model->sqnorm, model->sqnorm + n, keep * sizeof *model->sqnorm);
    model->m = keep;
}

/*
 * Drops the oldest rows of model until at most tau remain (NORMA's truncation, [KSW04]
 * §II-C). The model's weights are the stored ones; true weights are scale × stored.
 * Adds the dropped rows to stats->removed and the squared norm of what they carried to
 * stats->sqerror.
 */
static polka_status truncate_oldest(polka_model *model, size_t tau, double scale,
                                    polka_komp_stats *stats) {
    POLKA_CHECK(tau > 0, POLKA_ERR_ARG, "NORMA truncation needs tau >= 1");
    if (model->m <= tau) return POLKA_OK;
    size_t n = model->m - tau;
    /* ‖f − f_trunc‖_H: Proposition 1 of [KSW04] bounds it by (1 − ηλ)^τ C X / λ. */
    double dropped = head_sqnorm(model, n, scale);
    POLKA_CHECK(dropped >= 0, POLKA_ERR_MEM, "out of memory for NORMA's truncation error");
    drop_oldest(model, n);
    stats->removed += n;
    stats->sqerror += dropped;
    return POLKA_OK;
}

int polka_norma_adapts(polka_loss_kind kind) {
    return kind == POLKA_LOSS_SOFT_MARGIN || kind == POLKA_LOSS_NOVELTY ||
           kind == POLKA_LOSS_EPS_INSENSITIVE;
}

int polka_norma_indicator(const polka_loss *loss, const double *f, double y) {
    switch (loss->kind) {
    case POLKA_LOSS_SOFT_MARGIN:
        return (y > 0.5 ? 1.0 : -1.0) * f[0] <= loss->rho;
    case POLKA_LOSS_NOVELTY:
        return f[0] < loss->rho;
    case POLKA_LOSS_EPS_INSENSITIVE:
        return fabs(y - f[0]) > loss->epsilon;
    default:
        return 0;
    }
}

/*
 * ν-classification ([KSW04] §III-A) minimises max(0, ρ − y g) − νρ: ∂/∂ρ = σ − ν.
 * Novelty (§III-B) minimises max(0, ρ − f) − νρ: the same with σ = 1{f < ρ}, so that in
 * the long run a fraction ν of the points is novel (ρ_T − ρ_0 = η(νT − #novel)).
 * ν-regression (§III-C) minimises max(0, |y − f| − ε) + νε: ∂/∂ε = ν − σ.
 */
void polka_norma_adapt(polka_loss *loss, double nu, double eta, double mean_indicator) {
    switch (loss->kind) {
    case POLKA_LOSS_SOFT_MARGIN:
        loss->rho = fmax(0.0, loss->rho + eta * (nu - mean_indicator));
        break;
    case POLKA_LOSS_NOVELTY:
        loss->rho += eta * (nu - mean_indicator);
        break;
    case POLKA_LOSS_EPS_INSENSITIVE:
        loss->epsilon = fmax(0.0, loss->epsilon + eta * (mean_indicator - nu));
        break;
    default:
        break;
    }
}

static const char *norma_check(const polka_learner_params *params) {
    return params->tau < 1 ? "learner.tau must be >= 1" : NULL;
}

static polka_status norma_order(polka_learner *learner, uint64_t t, double eta, size_t first,
                                size_t added) {
    (void)t, (void)eta, (void)first, (void)added;
    return truncate_oldest(learner->model, learner->params.tau, learner->cache->scale,
                           &learner->last);
}

const polka_control_ops polka_control_norma = {
    .name = "norma",
    .help = "NORMA: keep the newest learner.tau terms",
    .check = norma_check,
    .append = POLKA_APPEND_NONZERO,
    .decay = POLKA_DECAY_SCALE,
    .order = norma_order,
};
