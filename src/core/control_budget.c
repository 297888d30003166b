/*
 * The budget controls: BSGD ([WCV12]) keeps at most learner.budget points,
 * removing, projecting or merging the smallest term while there are more; NBSGD ([LNNP16])
 * runs the same maintenance only with probability min(β/t, 1) per point beyond the budget
 * (maintenance.c, nbsgd.c). Their part is the maintenance: the ids of the model's points and
 * the suffix average of the iterates (learner.suffix > 0).
 */
#include <math.h>
#include <stdlib.h>

#include "learner_impl.h"

static polka_status budget_create(polka_learner *learner, size_t p) {
    polka_maintenance *state = NULL;
    POLKA_CALL(polka_maintenance_create(&learner->params, learner->control->rule, p,
                                        learner->outputs, &state));
    learner->part = state;
    return POLKA_OK;
}

static void budget_free(void *part) {
    polka_maintenance *state = part;
    polka_maintenance_free(&state);
}

/*
 * [LNNP16], Alg. 2 and 3 (line "if L2 is used and λ ≤ 1"): with the square loss the
 * optimum lies in the ball of radius y_max/√λ (its Thm. 1), so the iterate is projected onto
 * it, w ← w · min(1, R/‖w‖_H) with ‖w‖²_H = Σ_ij w_i·w_j k(x_i, x_j). y_max is the largest
 * |y| seen so far (the paper's max over the distribution is not known online).
 */
static polka_status project_to_ball(polka_learner *learner) {
    double lambda = learner->params.lambda;
    if (learner->loss.kind != POLKA_LOSS_SQUARE || !(lambda > 0 && lambda <= 1)) return POLKA_OK;
    double sqnorm = 0.0, radius = learner->cache->y_max / sqrt(lambda);
    POLKA_CALL(polka_model_sqnorm(learner->model, &sqnorm));
    if (sqnorm > radius * radius) polka_model_scale(learner->model, radius / sqrt(sqnorm));
    return POLKA_OK;
}

static polka_status budget_order(polka_learner *learner, uint64_t t, double eta, size_t first,
                                 size_t added) {
    (void)eta;
    polka_maintenance *bounded = learner->part;
    POLKA_CALL(polka_maintenance_appended(bounded, learner->model, first));
    POLKA_CALL(polka_maintenance_apply(bounded, learner->model, t, added, &learner->last));
    POLKA_CALL(project_to_ball(learner));
    if (bounded->average)
        polka_average_accumulate(bounded->average, learner->model, bounded->ids, learner->offset,
                                 t);
    return POLKA_OK;
}

static polka_status save_bounded(const polka_maintenance *b, size_t order, polka_state *s) {
    POLKA_CALL(polka_learner_put_sizes(s, "budget.ids", b->ids, order));
    POLKA_CALL(polka_state_put_u64(s, "budget.next_id", b->next_id));
    const polka_average *a = b->average;
    if (a == NULL) return POLKA_OK;
    POLKA_CALL(polka_state_put_u64(s, "average.start", a->start));
    POLKA_CALL(polka_state_put_u64(s, "average.count", a->count));
    POLKA_CALL(polka_learner_put_f64s(s, "average.points", a->x, a->n * a->p));
    POLKA_CALL(polka_learner_put_f64s(s, "average.weight_sums", a->wsum, a->n * a->c));
    return polka_learner_put_f64s(s, "average.offset_sums", a->bsum, a->c);
}

/* The suffix average: its points, then its sums (indexed by the budget's ids, all below
 * next_id: polka_average_accumulate). */
static polka_status restore_average(polka_average *a, size_t next_id, const polka_state *s) {
    POLKA_CALL(polka_state_get_u64(s, "average.start", &a->start));
    POLKA_CALL(polka_state_get_u64(s, "average.count", &a->count));
    size_t values = 0;
    POLKA_CALL(polka_state_size(s, "average.points", &values));
    POLKA_CHECK(a->p > 0 && values % a->p == 0, POLKA_ERR_FORMAT,
                "the checkpoint's average points do not fit the data's dimension");
    double *points = malloc((values ? values : 1) * sizeof *points);
    POLKA_CHECK_ALLOC(points);
    polka_status status = polka_learner_get_f64s(s, "average.points", points, values);
    a->n = 0;
    for (size_t i = 0; i < values / a->p && status == POLKA_OK; i++)
        status = polka_average_add_point(a, points + i * a->p);
    free(points);
    POLKA_CALL(status);
    POLKA_CHECK(next_id <= a->n, POLKA_ERR_FORMAT,
                "the checkpoint's average knows %zu points, its budget gave %zu ids", a->n,
                next_id);
    POLKA_CALL(polka_learner_get_f64s(s, "average.weight_sums", a->wsum, a->n * a->c));
    POLKA_CALL(polka_learner_get_f64s(s, "average.offset_sums", a->bsum, a->c));
    a->stale = 1;
    return POLKA_OK;
}

static polka_status restore_bounded(polka_maintenance *b, size_t order, const polka_state *s) {
    if (order > b->ids_cap) {
        size_t *ids = realloc(b->ids, order * sizeof *ids);
        POLKA_CHECK_ALLOC(ids);
        b->ids = ids;
        b->ids_cap = order;
    }
    POLKA_CALL(polka_learner_get_sizes(s, "budget.ids", b->ids, order));
    POLKA_CALL(polka_learner_get_sizes(s, "budget.next_id", &b->next_id, 1));
    for (size_t j = 0; j < order; j++)
        POLKA_CHECK(b->ids[j] < b->next_id, POLKA_ERR_FORMAT,
                    "the checkpoint's budget id %zu (%zu) is not below its next id %zu", j,
                    b->ids[j], b->next_id);
    return b->average ? restore_average(b->average, b->next_id, s) : POLKA_OK;
}

static polka_status budget_save(const polka_learner *learner, polka_state *s) {
    return save_bounded(learner->part, learner->model->m, s);
}

static polka_status budget_restore(polka_learner *learner, const polka_state *s) {
    return restore_bounded(learner->part, learner->model->m, s);
}

/* The dictionary holds up to the budget, and at least the points of one update. */
static size_t budget_rows(const polka_learner_params *params, size_t batch) {
    return params->budget > batch ? params->budget : batch;
}

static polka_average *budget_average(const polka_learner *learner) {
    const polka_maintenance *bounded = learner->part;
    polka_average *average = bounded->average;
    return average && average->count > 0 ? average : NULL;
}

static const char *check_budget(const polka_learner_params *params) {
    return params->budget < 1 ? "learner.budget must be >= 1" : NULL;
}

static const char *check_merge(const polka_learner_params *params) {
    if (params->budget < 1) return "learner.budget must be >= 1";
    if (params->kernel.kind != POLKA_KERNEL_GAUSSIAN)
        return "learner.control = bsgd-merge needs the gaussian kernel";
    return NULL;
}

static const polka_budget_rule remove_rule = {polka_maintain_remove, 0};
static const polka_budget_rule project_rule = {polka_maintain_project, 0};
static const polka_budget_rule merge_rule = {polka_maintain_merge, 0};
static const polka_budget_rule gated_remove_rule = {polka_maintain_remove, 1};
static const polka_budget_rule gated_project_rule = {polka_maintain_project, 1};

/* The operations every budget control shares; name, help, rule and check are its own. */
#define BUDGET_OPS                                                                                 \
    .create = budget_create, .free = budget_free, .append = POLKA_APPEND_NONZERO,                  \
    .order = budget_order, .save = budget_save, .restore = budget_restore,                         \
    .rows_held = budget_rows, .average = budget_average

const polka_control_ops polka_control_bsgd_remove = {
    .name = "bsgd-remove",
    .help = "BSGD, at most learner.budget points: remove the smallest term",
    .rule = &remove_rule,
    .check = check_budget,
    BUDGET_OPS,
};

const polka_control_ops polka_control_bsgd_project = {
    .name = "bsgd-project",
    .help = "BSGD: project the smallest term onto the others (learner.neighbours)",
    .rule = &project_rule,
    .check = check_budget,
    BUDGET_OPS,
};

const polka_control_ops polka_control_bsgd_merge = {
    .name = "bsgd-merge",
    .help = "BSGD: merge the smallest term with a partner (gaussian kernel)",
    .rule = &merge_rule,
    .check = check_merge,
    BUDGET_OPS,
};

const polka_control_ops polka_control_nbsgd_remove = {
    .name = "nbsgd-remove",
    .help = "NBSGD: remove, per point beyond the budget w.p. min(learner.beta/t, 1)",
    .rule = &gated_remove_rule,
    .check = check_budget,
    BUDGET_OPS,
};

const polka_control_ops polka_control_nbsgd_project = {
    .name = "nbsgd-project",
    .help = "NBSGD: project, per point beyond the budget w.p. min(learner.beta/t, 1)",
    .rule = &gated_project_rule,
    .check = check_budget,
    BUDGET_OPS,
};
