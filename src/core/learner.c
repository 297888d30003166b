#include "polka/learner.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const control_names[] = {"komp", "none"};

struct polka_learner_s {
    polka_learner_params params;
    size_t classes, outputs;
    double budget;
    polka_model *model;
    polka_komp *komp;
    polka_komp_stats last;
    double *scratch; /* 3 × n×C: weight rows, f values and gradients of a step */
    size_t scratch_rows;
};

polka_status polka_control_kind_parse(const char *name, polka_control_kind *kind) {
    for (size_t k = 0; k < sizeof control_names / sizeof *control_names; k++) {
        if (strcmp(name, control_names[k]) == 0) {
            *kind = (polka_control_kind)k;
            return POLKA_OK;
        }
    }
    return polka_error_set(POLKA_ERR_ARG, "unknown model-order control '%s' (komp, none)", name);
}

const char *polka_control_kind_name(polka_control_kind kind) {
    return control_names[kind];
}

double polka_learner_budget(const polka_learner_params *params) {
    return params->epsilon >= 0 ? params->epsilon : params->kp * pow(params->eta, 1.5);
}

const char *polka_learner_check(const polka_learner_params *params) {
    const char *why = polka_kernel_check(&params->kernel);
    if (why) return why;
    if (!(params->eta > 0) || !isfinite(params->eta)) return "learner.eta must be > 0";
    if (!(params->lambda >= 0) || !isfinite(params->lambda)) return "learner.lambda must be >= 0";
    if (!(params->eta * params->lambda < 1)) return "learner.eta * learner.lambda must be < 1";
    if (params->epsilon < 0 && !(params->kp >= 0)) return "learner.kp must be >= 0";
    if (!isfinite(params->epsilon)) return "learner.epsilon must be finite";
    if (!(params->jitter >= 0 && params->jitter < 1e-2))
        return "learner.jitter must be in [0, 0.01)";
    return NULL;
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
    learner->classes = classes;
    learner->outputs = polka_loss_outputs(params->loss.kind, classes);
    learner->budget = polka_learner_budget(params);
    polka_status status = polka_model_create(&params->kernel, p, learner->outputs, &learner->model);
    if (status == POLKA_OK) status = polka_komp_create(params->jitter, &learner->komp);
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
    polka_komp_free(&(*learner)->komp);
    free((*learner)->scratch);
    free(*learner);
    *learner = NULL;
}

const polka_model *polka_learner_model(const polka_learner *learner) {
    return learner->model;
}

size_t polka_learner_outputs(const polka_learner *learner) {
    return learner->outputs;
}

polka_komp_stats polka_learner_last_stats(const polka_learner *learner) {
    return learner->last;
}

polka_status polka_learner_predict(const polka_learner *learner, const double *x, size_t n,
                                   double *f_out) {
    return polka_model_eval(learner->model, x, n, f_out);
}

double polka_learner_loss_grad(const polka_learner *learner, const double *f, const double *y,
                               size_t n, double *grad) {
    size_t c = learner->outputs;
    double total = 0.0;
    for (size_t b = 0; b < n; b++)
        total +=
            polka_loss_eval(&learner->params.loss, f + b * c, c, y[b], grad ? grad + b * c : NULL);
    return total;
}

static polka_status reserve_scratch(polka_learner *learner, size_t rows) {
    if (rows <= learner->scratch_rows) return POLKA_OK;
    double *scratch = realloc(learner->scratch, 3 * rows * learner->outputs * sizeof *scratch);
    POLKA_CHECK_ALLOC(scratch);
    learner->scratch = scratch;
    learner->scratch_rows = rows;
    return POLKA_OK;
}

polka_status polka_learner_update(polka_learner *learner, const double *x, size_t n,
                                  const double *g) {
    return polka_learner_update_batch(learner, x, n, g, (double)n);
}

polka_status polka_learner_update_batch(polka_learner *learner, const double *x, size_t n,
                                        const double *g, double batch) {
    const polka_learner_params *params = &learner->params;
    size_t c = learner->outputs;
    POLKA_CHECK(batch > 0, POLKA_ERR_ARG, "update batch must be > 0");
    POLKA_CALL(reserve_scratch(learner, n));
    double *rows = learner->scratch;
    double factor = -params->eta / batch;
    for (size_t k = 0; k < n * c; k++) {
        POLKA_CHECK(isfinite(g[k]), POLKA_ERR_NUMERIC,
                    "non-finite gradient: the iterates diverged (lower learner.eta or net.c)");
        rows[k] = factor * g[k];
    }
    /* f̃ = (1 − ηλ) f − (η/B) Σ_b ∇ℓ_b k(x_b, ·)  (POLK eq. 11) */
    polka_model_scale(learner->model, 1.0 - params->eta * params->lambda);
    POLKA_CALL(polka_model_append(learner->model, x, n, rows));
    learner->last = (polka_komp_stats){0};
    if (params->control == POLKA_CONTROL_KOMP)
        POLKA_CALL(
            polka_komp_compress(learner->komp, learner->model, learner->budget, &learner->last));
    return POLKA_OK;
}

polka_status polka_learner_step(polka_learner *learner, const double *x, const double *y, size_t n,
                                double *loss_out) {
    POLKA_CALL(reserve_scratch(learner, n));
    double *f = learner->scratch + n * learner->outputs;
    POLKA_CALL(polka_model_eval(learner->model, x, n, f));
    double *grad = f + n * learner->outputs;
    double total = polka_learner_loss_grad(learner, f, y, n, grad);
    if (loss_out) *loss_out = total / (double)n;
    return polka_learner_update(learner, x, n, grad);
}

double polka_learner_score(const polka_learner *learner, const double *f, const double *y, size_t n,
                           double *mean_loss) {
    size_t c = learner->outputs;
    double hits = 0.0, sqerr = 0.0, loss = 0.0;
    for (size_t i = 0; i < n; i++) {
        double prediction = polka_loss_predict(&learner->params.loss, f + i * c, c);
        loss += polka_loss_eval(&learner->params.loss, f + i * c, c, y[i], NULL);
        hits += prediction == y[i];
        sqerr += (prediction - y[i]) * (prediction - y[i]);
    }
    if (mean_loss) *mean_loss = n ? loss / (double)n : 0.0;
    if (n == 0) return 0.0;
    return learner->classes > 0 ? hits / (double)n : sqerr / (double)n;
}

polka_status polka_learner_evaluate(const polka_learner *learner, const double *x, const double *y,
                                    size_t n, double *score, double *mean_loss) {
    double *f = malloc((n ? n : 1) * learner->outputs * sizeof *f);
    POLKA_CHECK_ALLOC(f);
    polka_status status = polka_model_eval(learner->model, x, n, f);
    if (status == POLKA_OK) *score = polka_learner_score(learner, f, y, n, mean_loss);
    free(f);
    return status;
}
