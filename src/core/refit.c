/*
 * The final refit (learner.refit = λ > 0): after the online passes, the weights of the kept
 * dictionary D (m points) are solved for on the n training points, one output per class with
 * targets t = ±1 (one output: the label or the target itself). First regularised least
 * squares,
 *
 *   W = argmin_W (1/n) Σ_i ‖k(x_i, D) W − t_i‖² + λ tr(Wᵀ K_DD W)
 *     ⇔ (K_nDᵀ K_nD + nλ K_DD) W = K_nDᵀ T      (m × m, SPD for λ > 0 and K_DD ≻ 0),
 *
 * then (learner.refit_iterations, classification) steps towards the squared hinge
 * Σ_i max(0, 1 − t_i f(x_i))² + nλ‖f‖² with the same matrix A = K_nDᵀ K_nD + nλ K_DD: its
 * Hessian K_SDᵀ K_SD + nλ K_DD (S: the rows inside the margin) is ⪯ A, so the step
 * W ← W − A⁻¹ ∇ is a majorise-minimise step (the objective never rises), and it equals
 * W ← A⁻¹ K_nDᵀ Z with z_i = t_i inside the margin and z_i = f(x_i) outside: one more pass
 * over the data and two triangular solves with A's Cholesky factor, kept.
 *
 * The online steps chose D (the points KOMP kept); their weights are a noisy SGD iterate, and
 * this is the minimiser over span k(D, ·), in passes over the data in blocks: K_nD is never
 * held whole (REFIT_BLOCK rows at a time). Cost: n·m·(p + m) flops, one m × m Cholesky, then
 * n·m·(p + 2C) per iteration, or n·m·2C when the kernel rows fit learner.refit_memory and are
 * kept from the first pass (n·m doubles: the same values, so the same result).
 */
#include <cblas.h>
#include <lapacke.h>
#include <stdlib.h>
#include <string.h>

#include "learner_impl.h"
#include "model_impl.h"
#include "polka/stop.h"

/* Training rows per block: a block's kernel rows are REFIT_BLOCK × m doubles. */
#define REFIT_BLOCK 512

/* The least-squares targets of rows y: ±1 codes of the class when there are several outputs,
 * else the value itself (a binary label ±1, or a regression target). */
static void refit_targets(const double *y, size_t count, size_t c, double *t) {
    for (size_t i = 0; i < count; i++) {
        if (c == 1) {
            t[i] = y[i];
            continue;
        }
        for (size_t k = 0; k < c; k++) t[i * c + k] = (size_t)y[i] == k ? 1.0 : -1.0;
    }
}

/* The squared hinge's targets: t where the margin t·f < 1, else f itself (no pull). */
static void hinge_targets(const double *f, size_t count, size_t c, double *t) {
    for (size_t e = 0; e < count * c; e++)
        if (t[e] * f[e] >= 1.0) t[e] = f[e];
}

typedef struct {
    double *normal; /* m × m, lower half: nλ K_DD + K_nDᵀ K_nD, then its Cholesky factor */
    double *rhs;    /* m × c: K_nDᵀ T (or Z), then W */
    double *w;      /* m × c: the weights of the pass (the iterations' f) */
    double *x, *y;  /* a block of rows: REFIT_BLOCK × p, REFIT_BLOCK */
    double *k, *t;  /* its kernel rows REFIT_BLOCK × m, its targets REFIT_BLOCK × c */
    double *f;      /* its values REFIT_BLOCK × c */
    double *cache;  /* n × m kernel rows of the whole training set, or NULL: recomputed */
    double *labels; /* n labels beside the cache */
} refit_work;

static void refit_free(refit_work *w) {
    free(w->normal);
    free(w->rhs);
    free(w->w);
    free(w->x);
    free(w->y);
    free(w->k);
    free(w->t);
    free(w->f);
    free(w->cache);
    free(w->labels);
}

/* The cache of the n × m kernel rows when they fit in memory bytes (and malloc gives them:
 * without, the passes recompute the same rows). */
static void refit_alloc_cache(refit_work *w, size_t n, size_t m, size_t memory) {
    if (memory / sizeof(double) / n < m) return;
    w->cache = malloc(n * m * sizeof *w->cache);
    w->labels = malloc(n * sizeof *w->labels);
    if (w->cache && w->labels) return;
    free(w->cache);
    free(w->labels);
    w->cache = w->labels = NULL;
}

static polka_status refit_alloc(refit_work *w, size_t m, size_t p, size_t c) {
    w->normal = malloc(m * m * sizeof *w->normal);
    w->rhs = calloc(m * c, sizeof *w->rhs);
    w->w = malloc(m * c * sizeof *w->w);
    w->x = malloc(REFIT_BLOCK * p * sizeof *w->x);
    w->y = malloc(REFIT_BLOCK * sizeof *w->y);
    w->k = malloc(REFIT_BLOCK * m * sizeof *w->k);
    w->t = malloc(REFIT_BLOCK * c * sizeof *w->t);
    w->f = malloc(REFIT_BLOCK * c * sizeof *w->f);
    POLKA_CHECK(w->normal && w->rhs && w->w && w->x && w->y && w->k && w->t && w->f, POLKA_ERR_MEM,
                "learner.refit: out of memory for the %zu × %zu normal equations", m, m);
    return POLKA_OK;
}

/* The kernel rows (*k, count × m) and labels (*y) of training rows first .. first + count − 1:
 * computed on the first pass (into the cache when there is one), then read from the cache. */
static polka_status refit_rows(const polka_model *model, size_t first, size_t count,
                               polka_rows_fn rows, void *context, int again, refit_work *w,
                               const double **k, const double **y) {
    double *kernel = w->cache ? w->cache + first * model->m : w->k;
    double *labels = w->cache ? w->labels + first : w->y;
    *k = kernel;
    *y = labels;
    if (again && w->cache) return POLKA_OK;
    POLKA_CALL(rows(context, first, count, w->x, labels));
    return polka_kernel_block(&model->kernel, w->x, count, model->dict, model->sqnorm, model->m,
                              model->p, kernel);
}

/* One pass over the n training rows: rhs = K_nDᵀ T (first pass, normal += K_nDᵀ K_nD) or,
 * with hinge, K_nDᵀ Z at the weights w->w. */
static polka_status refit_pass(const polka_model *model, size_t n, polka_rows_fn rows,
                               void *context, int hinge, refit_work *w) {
    size_t m = model->m, c = model->c;
    memset(w->rhs, 0, m * c * sizeof *w->rhs);
    for (size_t first = 0; first < n; first += REFIT_BLOCK) {
        size_t count = n - first < REFIT_BLOCK ? n - first : REFIT_BLOCK;
        const double *k, *y;
        POLKA_CALL(refit_rows(model, first, count, rows, context, hinge, w, &k, &y));
        refit_targets(y, count, c, w->t);
        if (hinge) {
            cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)count, (int)c, (int)m, 1.0,
                        k, (int)m, w->w, (int)c, 0.0, w->f, (int)c);
            hinge_targets(w->f, count, c, w->t);
        } else {
            cblas_dsyrk(CblasRowMajor, CblasLower, CblasTrans, (int)m, (int)count, 1.0, k, (int)m,
                        1.0, w->normal, (int)m);
        }
        cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)m, (int)c, (int)count, 1.0, k,
                    (int)m, w->t, (int)c, 1.0, w->rhs, (int)c);
        POLKA_CALL(polka_stop_check("learner.refit"));
    }
    return POLKA_OK;
}

/* The Cholesky factor of the normal matrix, in place; a jitter of 1e-10 × the mean diagonal
 * keeps it through round-off when nλ is tiny beside the data term. */
static polka_status refit_factor(size_t m, refit_work *w) {
    double trace = 0.0;
    for (size_t j = 0; j < m; j++) trace += w->normal[j * m + j];
    double jitter = 1e-10 * trace / (double)m;
    for (size_t j = 0; j < m; j++) w->normal[j * m + j] += jitter;
    lapack_int info =
        LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'L', (lapack_int)m, w->normal, (lapack_int)m);
    POLKA_CHECK(info == 0, POLKA_ERR_NUMERIC,
                "learner.refit: the %zu × %zu normal equations are not positive definite (dpotrf "
                "info %d); raise learner.refit",
                m, m, (int)info);
    return POLKA_OK;
}

/* W = A⁻¹ rhs into w->w with A's factor. */
static void refit_solve(size_t m, size_t c, refit_work *w) {
    LAPACKE_dpotrs(LAPACK_ROW_MAJOR, 'L', (lapack_int)m, (lapack_int)c, w->normal, (lapack_int)m,
                   w->rhs, (lapack_int)c);
    memcpy(w->w, w->rhs, m * c * sizeof *w->w);
}

const char *polka_learner_refit_check(const polka_learner_params *params, size_t iterations) {
    if (params->loss.kind == POLKA_LOSS_NOVELTY)
        return "learner.refit fits labels or targets: the novelty loss has none";
    if (params->offset) return "learner.refit fits no offset: set learner.offset = 0";
    if (params->suffix > 0)
        return "learner.refit replaces the last iterate: set learner.suffix = 0";
    if (iterations > 0 && !polka_loss_is_classification(params->loss.kind))
        return "learner.refit_iterations steps towards the squared hinge: a classification loss "
               "only (regression: the least-squares refit is the solution)";
    return NULL;
}

/* The least-squares pass, the factor, then the hinge iterations, into w->w. */
static polka_status refit_fit(const polka_model *model, size_t n, polka_rows_fn rows, void *context,
                              const polka_refit_settings *settings, refit_work *w) {
    size_t m = model->m, c = model->c;
    POLKA_CALL(polka_kernel_block(&model->kernel, model->dict, m, model->dict, model->sqnorm, m,
                                  model->p, w->normal));
    double scale = (double)n * settings->lambda;
    for (size_t e = 0; e < m * m; e++) w->normal[e] *= scale;
    POLKA_CALL(refit_pass(model, n, rows, context, 0, w));
    POLKA_CALL(refit_factor(m, w));
    refit_solve(m, c, w);
    for (size_t it = 0; it < settings->iterations; it++) {
        POLKA_CALL(refit_pass(model, n, rows, context, 1, w));
        refit_solve(m, c, w);
    }
    return POLKA_OK;
}

polka_status polka_learner_refit(polka_learner *learner, size_t n, polka_rows_fn rows,
                                 void *context, const polka_refit_settings *settings) {
    const char *why = polka_learner_refit_check(&learner->params, settings->iterations);
    POLKA_CHECK(why == NULL, POLKA_ERR_ARG, "%s", why);
    POLKA_CHECK(settings->lambda > 0 && n > 0, POLKA_ERR_ARG,
                "learner.refit needs lambda > 0 and training rows (lambda %g, %zu rows)",
                settings->lambda, n);
    polka_model *model = learner->model;
    size_t m = model->m, c = model->c;
    if (m == 0) return POLKA_OK; /* nothing kept: the zero function stays */
    refit_work w = {0};
    polka_status status = refit_alloc(&w, m, model->p, c);
    if (settings->iterations > 0) refit_alloc_cache(&w, n, m, settings->memory);
    if (status == POLKA_OK) status = refit_fit(model, n, rows, context, settings, &w);
    if (status == POLKA_OK) {
        memcpy(model->weights, w.w, m * c * sizeof *w.w);
        learner->cache->scale = 1.0; /* the weights are the function's own (NORMA's scale) */
    }
    refit_free(&w);
    return status;
}
