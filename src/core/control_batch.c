/*
 * The batch regression learners of learner.control, centralized and on the square loss: SLKL
 * ([MPARG11], slkl.c) and exact kernel ridge regression (krr.c). They learn from the whole
 * training set at once (polka_batch_fit); the run reports their model through the job's log.
 */
#include <stdio.h>

#include "control_impl.h"
#include "polka/slkl.h"

/* What every batch learner needs: ridge regression on the square loss. */
static const char *check_regression(const polka_learner_params *params) {
    if (params->loss.kind != POLKA_LOSS_SQUARE)
        return "learner.control = slkl/krr fit the square loss: set learner.loss = square";
    if (!(params->lambda > 0)) return "learner.lambda must be > 0 for slkl/krr";
    return NULL;
}

static const char *check_krr(const polka_learner_params *params,
                             const polka_batch_settings *settings) {
    (void)settings;
    const char *why = check_regression(params);
    return why ? why : polka_kernel_check(&params->kernel);
}

static const char *check_slkl(const polka_learner_params *params,
                              const polka_batch_settings *settings) {
    const char *why = check_regression(params);
    if (why) return why;
    if (!(params->nu > 0))
        return "learner.control = slkl needs learner.nu > 0 (the l1 penalty on the kernel "
               "weights; [MPARG11]: 0.01)";
    if (!(settings->tol >= 0 && settings->tol < 1)) return "learner.tol must be in [0, 1)";
    return polka_kernel_check(&params->kernel);
}

static polka_status fit_krr(polka_batch_job *job, polka_model **out, size_t *rounds) {
    const polka_learner_params *params = job->params;
    POLKA_CALL(polka_krr_fit(&params->kernel, job->x, job->y, job->n, job->p, params->lambda, out));
    *rounds = 1;
    return job->log(job->context, *out, 1);
}

/* SLKL in chunks of log_every coordinate updates, a log call after each chunk. */
static polka_status iterate_slkl(polka_batch_job *job, polka_slkl *slkl, size_t cap, size_t *done) {
    int converged = 0;
    *done = 0;
    while (!converged && *done < cap) {
        polka_slkl_stats stats;
        size_t every = job->log_every, chunk = every < cap - *done ? every : cap - *done;
        POLKA_CALL(polka_slkl_run_for(slkl, chunk, &stats));
        *done += stats.iterations;
        converged = stats.converged;
        polka_model *model = NULL;
        POLKA_CALL(polka_slkl_model(slkl, &model));
        polka_status status = job->log(job->context, model, *done);
        polka_model_free(&model);
        POLKA_CALL(status);
        if (job->progress) job->progress(job->context, *done, cap);
    }
    snprintf(job->note, sizeof job->note,
             "slkl: %zu updates, %s, %zu of %zu kernels active, F = %.6g", *done,
             converged ? "converged" : "stopped at learner.max_iter", polka_slkl_active(slkl),
             polka_slkl_candidates(slkl), polka_slkl_objective(slkl));
    return POLKA_OK;
}

static polka_status fit_slkl(polka_batch_job *job, polka_model **out, size_t *rounds) {
    polka_slkl_params params = polka_slkl_defaults();
    params.kernel = job->params->kernel;
    params.lambda = job->params->lambda;
    params.nu = job->params->nu;
    params.candidates = job->settings.candidates;
    params.tol = job->settings.tol;
    params.seed = job->seed;
    polka_slkl *slkl = NULL;
    POLKA_CALL(polka_slkl_create(&params, job->x, job->y, job->n, job->p, &slkl));
    size_t max_iter = job->settings.max_iter;
    size_t cap = max_iter ? max_iter : 1000 * polka_slkl_candidates(slkl);
    polka_status status = iterate_slkl(job, slkl, cap, rounds);
    if (status == POLKA_OK) status = polka_slkl_model(slkl, out);
    polka_slkl_free(&slkl);
    return status;
}

const polka_control_ops polka_control_slkl = {
    .name = "slkl",
    .help = "batch, centralized, square loss: SLKL ([MPARG11]; learner.nu, learner.tol)",
    .batch = 1,
    .check_batch = check_slkl,
    .fit = fit_slkl,
};

const polka_control_ops polka_control_krr = {
    .name = "krr",
    .help = "batch, centralized, square loss: exact kernel ridge regression",
    .batch = 1,
    .check_batch = check_krr,
    .fit = fit_krr,
};

const char *polka_batch_check(const polka_learner_params *params,
                              const polka_batch_settings *settings) {
    const polka_control_ops *control = polka_control_of(params->control);
    if (control == NULL || !control->batch) return "learner.control is not a batch learner";
    return control->check_batch(params, settings);
}

polka_status polka_batch_fit(polka_batch_job *job, polka_model **out, size_t *rounds) {
    const polka_control_ops *control = polka_control_of(job->params->control);
    POLKA_CHECK(control && control->batch, POLKA_ERR_ARG,
                "learner.control = %s is not a batch learner",
                polka_control_kind_name(job->params->control));
    job->note[0] = '\0';
    return control->fit(job, out, rounds);
}
