/*
 * The learner: functional SGD (POLK eq. 11, NORMA §II: f ← (1 − η_t λ) f − η_t Σ g k(x,·)),
 * the step-size schedules, NORMA's offset and ν-trick, and the calls of the model-order
 * control's operations (the table of control.c).
 */
#include "polka/learner.h"

#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/scratch_impl.h"
#include "komp_impl.h"
#include "learner_impl.h"

/* NORMA's global scale is folded into the stored weights before it can underflow. */
#define SCALE_FLOOR 1e-100
/* Predicted points whose kernel rows are kept for the next update (learner_rows). */
#define ROWS_KEPT 64

static const char *const schedule_names[] = {"constant", "invsqrt", "pegasos", "linear"};

polka_status polka_schedule_kind_parse(const char *name, polka_schedule_kind *kind) {
    int index;
    POLKA_CALL(polka_name_find(name, schedule_names, POLKA_COUNT(schedule_names),
                               "step-size schedule", &index));
    *kind = (polka_schedule_kind)index;
    return POLKA_OK;
}

const char *polka_schedule_kind_name(polka_schedule_kind kind) {
    return polka_name_at(schedule_names, POLKA_COUNT(schedule_names), (int)kind);
}

polka_learner_params polka_learner_defaults(void) {
    return (polka_learner_params){
        .kernel = {.kind = POLKA_KERNEL_GAUSSIAN, .sigma = 0.6, .degree = 3, .coef0 = 1.0},
        .loss = {.kind = POLKA_LOSS_MULTI_HINGE, .epsilon = 0.1, .rho = 1.0, .delta = 1.0},
        .control = POLKA_CONTROL_KOMP,
        .eta = 0.5,
        .lambda = 1e-4,
        .kp = 0.04,
        .epsilon = -1.0,
        .schedule = POLKA_SCHEDULE_CONSTANT,
        .tau = 1000,
        .budget = 100,
        .beta = 1000.0,
    };
}

double polka_learner_step_size(const polka_learner_params *params, uint64_t t) {
    switch (params->schedule) {
    case POLKA_SCHEDULE_INVSQRT:
        return params->eta / sqrt((double)t);
    case POLKA_SCHEDULE_PEGASOS:
        return 1.0 / (params->lambda * (double)t);
    case POLKA_SCHEDULE_LINEAR: {
        double horizon = (double)(params->horizon > 0 ? params->horizon : 1);
        double left = 1.0 - (double)(t - 1) / horizon;
        return params->eta * (left > 1.0 / horizon ? left : 1.0 / horizon);
    }
    default:
        return params->eta;
    }
}

/* 1 − η_t λ; exactly 1 − 1/t under Pegasos (0 at the first step, as in Pegasos). */
static double decay_factor(const polka_learner_params *params, uint64_t t, double eta) {
    if (params->schedule == POLKA_SCHEDULE_PEGASOS) return 1.0 - 1.0 / (double)t;
    return 1.0 - eta * params->lambda;
}

static const char *check_steps(const polka_learner_params *params) {
    if ((unsigned)params->schedule > POLKA_SCHEDULE_LINEAR) return "learner.schedule is unknown";
    if (!(params->eta > 0) || !isfinite(params->eta)) return "learner.eta must be > 0";
    if (!(params->lambda >= 0) || !isfinite(params->lambda)) return "learner.lambda must be >= 0";
    if (params->schedule == POLKA_SCHEDULE_PEGASOS) {
        if (!(params->lambda > 0)) return "learner.schedule = pegasos needs learner.lambda > 0";
    } else if (!(params->eta * params->lambda < 1)) {
        return "learner.eta * learner.lambda must be < 1";
    }
    return NULL;
}

static const char *check_control(const polka_learner_params *params) {
    const polka_control_ops *control = polka_control_of(params->control);
    if (control == NULL) return "learner.control is unknown";
    if (control->batch)
        return "learner.control names a batch learner (slkl, krr): it is run by polka_batch_fit";
    const char *why = control->check ? control->check(params) : NULL;
    if (why) return why;
    if (!(params->beta >= 0) || !isfinite(params->beta)) return "learner.beta must be >= 0";
    if (!(params->suffix >= 0 && params->suffix <= 1)) return "learner.suffix must be in [0, 1]";
    if (params->suffix > 0 && control->average == NULL)
        return "learner.suffix (averaging) needs a bsgd-* or nbsgd-* control";
    if (params->suffix > 0 && params->horizon < 1)
        return "learner.suffix needs learner.horizon >= 1 (the number of updates)";
    return NULL;
}

const char *polka_learner_check(const polka_learner_params *params) {
    const char *why = polka_kernel_check(&params->kernel);
    if (why) return why;
    why = check_steps(params);
    if (why) return why;
    if (params->epsilon < 0 && !(params->kp >= 0)) return "learner.kp must be >= 0";
    if (!isfinite(params->epsilon)) return "learner.epsilon must be finite";
    if (!(params->jitter >= 0 && params->jitter < 1e-2))
        return "learner.jitter must be in [0, 0.01)";
    why = check_control(params);
    if (why) return why;
    if (!(params->nu >= 0 && params->nu <= 1)) return "learner.nu must be in [0, 1]";
    if (params->nu > 0 && !polka_norma_adapts(params->loss.kind))
        return "learner.nu adapts the margin of the soft-margin, novelty and eps-insensitive "
               "losses only (set learner.nu = 0 for this loss)";
    if (params->offset != 0 && params->offset != 1) return "learner.offset must be 0 or 1";
    return NULL;
}

static polka_status create_parts(polka_learner *learner, size_t p) {
    const polka_learner_params *params = &learner->params;
    size_t c = learner->outputs;
    learner->cache = calloc(1, sizeof *learner->cache);
    learner->offset = calloc(c, sizeof *learner->offset);
    learner->output_offset = calloc(c, sizeof *learner->output_offset);
    POLKA_CHECK(learner->cache && learner->offset && learner->output_offset, POLKA_ERR_MEM,
                "out of memory for a learner");
    learner->cache->scale = 1.0;
    polka_scratch_hold();
    learner->holds_scratch = 1;
    POLKA_CALL(polka_model_create(&params->kernel, p, c, &learner->model));
    return learner->control->create ? learner->control->create(learner, p) : POLKA_OK;
}

polka_status polka_learner_create(const polka_learner_params *params, size_t p, size_t classes,
                                  polka_learner **out) {
    const char *why = polka_learner_check(params);
    POLKA_CHECK(why == NULL, POLKA_ERR_ARG, "%s", why);
    why = polka_loss_check(&params->loss, classes);
    POLKA_CHECK(why == NULL, POLKA_ERR_ARG, "%s", why);
    polka_learner *learner = calloc(1, sizeof *learner);
    POLKA_CHECK_ALLOC(learner);
    learner->params = *params;
    learner->loss = params->loss;
    learner->classes = classes;
    learner->outputs = polka_loss_outputs(params->loss.kind, classes);
    learner->control = polka_control_of(params->control);
    polka_status status = create_parts(learner, p);
    if (status != POLKA_OK) {
        polka_learner_free(&learner);
        return status;
    }
    *out = learner;
    return POLKA_OK;
}

void polka_learner_free(polka_learner **learner) {
    if (learner == NULL || *learner == NULL) return;
    polka_model_free(&(*learner)->model);
    if ((*learner)->control->free) (*learner)->control->free((*learner)->part);
    if ((*learner)->cache) {
        free((*learner)->cache->rows.x);
        free((*learner)->cache->rows.k);
        free((*learner)->cache->rows.blocks);
    }
    free((*learner)->cache);
    free((*learner)->offset);
    free((*learner)->output_offset);
    if ((*learner)->holds_scratch) polka_scratch_release();
    free(*learner);
    *learner = NULL;
}

/* Folds NORMA's pending scale into the stored weights (the function is unchanged). */
static void fold_scale(const polka_learner *learner) {
    if (learner->cache->scale == 1.0) return;
    polka_model_scale(learner->model, learner->cache->scale);
    learner->cache->scale = 1.0;
}

const polka_model *polka_learner_model(const polka_learner *learner) {
    fold_scale(learner);
    return learner->model;
}

static polka_average *suffix_average(const polka_learner *learner) {
    return learner->control->average ? learner->control->average(learner) : NULL;
}

polka_status polka_learner_output_model(const polka_learner *learner, const polka_model **out) {
    polka_average *average = suffix_average(learner);
    if (average == NULL) {
        *out = polka_learner_model(learner);
        return POLKA_OK;
    }
    return polka_average_model(average, learner->model, out, learner->output_offset);
}

size_t polka_learner_outputs(const polka_learner *learner) {
    return learner->outputs;
}

uint64_t polka_learner_steps(const polka_learner *learner) {
    return learner->steps;
}

double polka_learner_rho(const polka_learner *learner) {
    return learner->loss.rho;
}

double polka_learner_tube(const polka_learner *learner) {
    return learner->loss.epsilon;
}

const double *polka_learner_offset(const polka_learner *learner) {
    return learner->offset;
}

polka_komp_stats polka_learner_last_stats(const polka_learner *learner) {
    return learner->last;
}

static void add_offset(const double *offset, size_t c, size_t n, double *f) {
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < c; k++) f[i * c + k] += offset[k];
}

#define NOT_STORED ((size_t)-1)

/* Grows *buf to at least count doubles, an eighth to spare. */
static polka_status reserve_doubles(double **buf, size_t *cap, size_t count) {
    if (count <= *cap) return POLKA_OK;
    size_t size = count + count / 8;
    double *next = realloc(*buf, size * sizeof *next);
    POLKA_CHECK_ALLOC(next);
    *buf = next;
    *cap = size;
    return POLKA_OK;
}

/* Room for one more block of points. */
static polka_status reserve_block(learner_rows *rows) {
    if (rows->nblocks < rows->blocks_cap) return POLKA_OK;
    size_t cap = rows->blocks_cap + 4;
    learner_block *blocks = realloc(rows->blocks, cap * sizeof *blocks);
    POLKA_CHECK_ALLOC(blocks);
    rows->blocks = blocks;
    rows->blocks_cap = cap;
    return POLKA_OK;
}

/* polka_model_eval that keeps the points for the next update, and their kernel rows when
 * `store` (learner_rows). Not storing them computes f the same way: polka_model_eval
 * evaluates up to 256 points as one kernel block, as polka_model_eval_keep does. */
static polka_status eval_keeping_rows(const polka_learner *learner, const double *x, size_t n,
                                      double *f_out, int store) {
    learner_rows *rows = &learner->cache->rows;
    const polka_model *model = learner->model;
    if (rows->version != model->version || rows->m != model->m || rows->count + n > ROWS_KEPT) {
        rows->count = rows->nblocks = rows->k_used = 0;
        rows->m = model->m;
        rows->version = model->version;
    }
    size_t p = model->p, m = model->m;
    POLKA_CALL(reserve_doubles(&rows->x, &rows->x_cap, (rows->count + n) * p));
    POLKA_CALL(reserve_block(rows));
    learner_block block = {rows->count, n, store ? rows->k_used : NOT_STORED};
    if (store) {
        POLKA_CALL(reserve_doubles(&rows->k, &rows->k_cap, rows->k_used + n * m + 1));
        POLKA_CALL(polka_model_eval_keep(model, x, n, f_out, rows->k + rows->k_used));
        rows->k_used += n * m;
    } else {
        POLKA_CALL(polka_model_eval(model, x, n, f_out));
    }
    memcpy(rows->x + rows->count * p, x, n * p * sizeof *x);
    rows->blocks[rows->nblocks++] = block;
    rows->count += n;
    return POLKA_OK;
}

/* KOMP's fetch (polka_komp_offer_fetch): kept row j, stored or recomputed with its block. */
static polka_status fetch_row(void *context, size_t j, double *out) {
    const polka_learner *learner = context;
    learner_rows *rows = &learner->cache->rows;
    const polka_model *model = learner->model;
    size_t m = rows->m, b = 0;
    while (j >= rows->blocks[b].first + rows->blocks[b].n) b++;
    const learner_block *block = &rows->blocks[b];
    const double *k = rows->k + (block->k_at == NOT_STORED ? 0 : block->k_at);
    if (block->k_at == NOT_STORED) {
        double *again = polka_scratch(POLKA_SCRATCH_ROWS, block->n * m * sizeof *again);
        if (again == NULL) return POLKA_ERR_MEM;
        /* The whole block, as its prediction computed it: beyond POLKA_THIN_ROWS points a
         * row's bits depend on the rows it is computed with (dgemm). */
        if (rows->recomputed != b + 1)
            POLKA_CALL(polka_kernel_block(&model->kernel, rows->x + block->first * model->p,
                                          block->n, model->dict, model->sqnorm, m, model->p,
                                          again));
        rows->recomputed = b + 1;
        k = again;
    }
    memcpy(out, k + (j - block->first) * m, m * sizeof *out);
    return POLKA_OK;
}

void polka_learner_offer_rows(polka_learner *learner, polka_komp *komp, size_t first) {
    learner_rows *rows = &learner->cache->rows;
    if (rows->count > 0 && rows->version == learner->model->version && rows->m == first) {
        rows->recomputed = 0;
        polka_komp_offer_fetch(komp, rows->x, rows->count, rows->m, fetch_row, learner);
    }
    rows->count = rows->nblocks = rows->k_used = 0;
}

static polka_status predict(const polka_learner *learner, const double *x, size_t n, double *f_out,
                            int store) {
    if (learner->control->keeps_rows && n > 0 && n <= ROWS_KEPT)
        POLKA_CALL(eval_keeping_rows(learner, x, n, f_out, store));
    else
        POLKA_CALL(polka_model_eval(learner->model, x, n, f_out));
    size_t c = learner->outputs;
    if (learner->cache->scale != 1.0 && n > 0)
        cblas_dscal((int)(n * c), learner->cache->scale, f_out, 1);
    if (learner->params.offset) add_offset(learner->offset, c, n, f_out);
    return POLKA_OK;
}

polka_status polka_learner_predict(const polka_learner *learner, const double *x, size_t n,
                                   double *f_out) {
    return predict(learner, x, n, f_out, 1);
}

polka_status polka_learner_predict_transient(const polka_learner *learner, const double *x,
                                             size_t n, double *f_out) {
    return predict(learner, x, n, f_out, 0);
}

polka_status polka_learner_predict_output(const polka_learner *learner, const double *x, size_t n,
                                          double *f_out) {
    if (suffix_average(learner) == NULL) return polka_learner_predict(learner, x, n, f_out);
    const polka_model *average = NULL;
    POLKA_CALL(polka_learner_output_model(learner, &average));
    POLKA_CALL(polka_model_eval(average, x, n, f_out));
    if (learner->params.offset) add_offset(learner->output_offset, learner->outputs, n, f_out);
    return POLKA_OK;
}

double polka_learner_loss_grad(const polka_learner *learner, const double *f, const double *y,
                               size_t n, double *grad) {
    size_t c = learner->outputs;
    double total = 0.0;
    for (size_t b = 0; b < n; b++) {
        total += polka_loss_eval(&learner->loss, f + b * c, c, y[b], grad ? grad + b * c : NULL);
        learner->cache->y_max = fmax(learner->cache->y_max, fabs(y[b]));
    }
    if (learner->params.nu > 0 && polka_norma_adapts(learner->loss.kind)) {
        for (size_t b = 0; b < n; b++)
            learner->cache->pending_hits += polka_norma_indicator(&learner->loss, f + b * c, y[b]);
        learner->cache->pending_points += (double)n;
    }
    return total;
}

/* The thread's shared scratch (scratch_impl.h), laid out for `rows` rows. */
static polka_status reserve_scratch(polka_learner *learner, size_t rows) {
    size_t per_row = 3 * learner->outputs + polka_model_dim(learner->model);
    learner->scratch = polka_scratch(POLKA_SCRATCH_LEARNER, rows * per_row * sizeof(double));
    if (learner->scratch == NULL) return POLKA_ERR_MEM;
    learner->scratch_rows = rows;
    return POLKA_OK;
}

/* rows = factor · g, refusing non-finite coefficients. */
static polka_status gradient_rows(const double *g, size_t count, double factor, double *rows) {
    for (size_t k = 0; k < count; k++) {
        POLKA_CHECK(isfinite(g[k]), POLKA_ERR_NUMERIC,
                    "non-finite gradient: the iterates diverged (lower learner.eta or net.c)");
        rows[k] = factor * g[k];
    }
    return POLKA_OK;
}

/* b ← b − (η/B) Σ_r g_r: the offset's gradient step (NORMA §III), unregularised. */
static void step_offset(polka_learner *learner, const double *g, size_t n, double factor) {
    size_t c = learner->outputs;
    for (size_t r = 0; r < n; r++)
        for (size_t k = 0; k < c; k++) learner->offset[k] += factor * g[r * c + k];
}

/* The ν-trick's step on ρ or ε with the indicators loss_grad recorded. */
static void step_nu(polka_learner *learner, double eta) {
    learner_cache *cache = learner->cache;
    if (cache->pending_points > 0)
        polka_norma_adapt(&learner->loss, learner->params.nu, eta,
                          cache->pending_hits / cache->pending_points);
    cache->pending_hits = 0.0;
    cache->pending_points = 0.0;
}

/* f ← factor·f: eagerly, or (norma) through the global scale, folded before it underflows. */
static void decay(polka_learner *learner, double factor) {
    if (learner->control->decay == POLKA_DECAY_EAGER) {
        polka_model_scale(learner->model, factor);
        return;
    }
    learner->cache->scale *= factor;
    if (learner->cache->scale < SCALE_FLOOR) fold_scale(learner);
}

/*
 * Appends the points with their rows by the control's policy: all of them, or only those with
 * a non-zero row, stored as row / scale (norma). For KOMP this is exact: a zero row costs 0 to
 * remove, so KOMP would drop it first without touching the others.
 * *added = the points appended.
 */
static polka_status append_points(polka_learner *learner, const double *x, size_t n, double *rows,
                                  size_t *added) {
    if (learner->control->append == POLKA_APPEND_ALL) {
        *added = n;
        return polka_model_append(learner->model, x, n, rows);
    }
    size_t c = learner->outputs, p = polka_model_dim(learner->model), kept = 0;
    double *kept_x = learner->scratch + 3 * learner->scratch_rows * c;
    double inverse = 1.0 / learner->cache->scale;
    for (size_t r = 0; r < n; r++) {
        int nonzero = 0;
        for (size_t k = 0; k < c; k++) nonzero |= rows[r * c + k] != 0.0;
        if (!nonzero) continue;
        for (size_t k = 0; k < c; k++) rows[kept * c + k] = rows[r * c + k] * inverse;
        memcpy(kept_x + kept * p, x + r * p, p * sizeof *kept_x);
        kept++;
    }
    *added = kept;
    return kept ? polka_model_append(learner->model, kept_x, kept, rows) : POLKA_OK;
}

polka_status polka_learner_update(polka_learner *learner, const double *x, size_t n,
                                  const double *g) {
    return polka_learner_update_batch(learner, x, n, g, (double)n);
}

polka_status polka_learner_update_batch(polka_learner *learner, const double *x, size_t n,
                                        const double *g, double batch) {
    const polka_learner_params *params = &learner->params;
    POLKA_CHECK(batch > 0, POLKA_ERR_ARG, "update batch must be > 0");
    POLKA_CALL(reserve_scratch(learner, n));
    uint64_t t = learner->steps + 1;
    double eta = polka_learner_step_size(params, t);
    double *rows = learner->scratch;
    POLKA_CALL(gradient_rows(g, n * learner->outputs, -eta / batch, rows));
    learner->steps = t;
    if (params->offset) step_offset(learner, g, n, -eta / batch);
    if (params->nu > 0) step_nu(learner, eta);
    /* f̃ = (1 − η_t λ) f − (η_t/B) Σ_b g_b k(x_b, ·)  (POLK eq. 11) */
    decay(learner, decay_factor(params, t, eta));
    size_t first = polka_model_order(learner->model), added = 0;
    POLKA_CALL(append_points(learner, x, n, rows, &added));
    learner->last = (polka_komp_stats){0};
    return learner->control->order ? learner->control->order(learner, t, eta, first, added)
                                   : POLKA_OK;
}

polka_status polka_learner_step(polka_learner *learner, const double *x, const double *y, size_t n,
                                double *loss_out) {
    POLKA_CALL(reserve_scratch(learner, n));
    double *f = learner->scratch + n * learner->outputs;
    POLKA_CALL(polka_learner_predict(learner, x, n, f));
    double *grad = f + n * learner->outputs;
    double total = polka_learner_loss_grad(learner, f, y, n, grad);
    if (loss_out) *loss_out = total / (double)n;
    return polka_learner_update(learner, x, n, grad);
}

double polka_learner_score(const polka_learner *learner, const double *f, const double *y, size_t n,
                           double *mean_loss) {
    return polka_loss_score(&learner->loss, learner->classes, f, y, n, NULL, mean_loss);
}

polka_status polka_learner_evaluate(const polka_learner *learner, const double *x, const double *y,
                                    size_t n, double *score, double *mean_loss) {
    double *f = malloc((n ? n : 1) * learner->outputs * sizeof *f);
    POLKA_CHECK_ALLOC(f);
    polka_status status = polka_learner_predict_output(learner, x, n, f);
    if (status == POLKA_OK) *score = polka_learner_score(learner, f, y, n, mean_loss);
    free(f);
    return status;
}
