/*
 * Budget maintenance of BSGD ([WCV12], as in BudgetedSVM [DLVW13]) and NBSGD ([LNNP16] §6).
 *
 * The victim is always the point m with the smallest ‖w_m‖² k(x_m, x_m) ([LNNP16] eq. 5;
 * for radial kernels the smallest weight norm). Then:
 * - remove: f ← f − w_m k(x_m, ·), degradation ‖w_m‖² k_mm;
 * - project: w_m k(x_m, ·) is replaced by its least-squares projection onto the span of the
 *   points S (all others, or the `neighbours` most correlated: the k nearest of [LNNP16] §6.2.2):
 *   β = K_SS⁻¹ k_Sm (Cholesky of the |S|×|S| Gram matrix, O(|S|³) per maintenance),
 *   w_S ← w_S + β w_mᵀ, degradation ‖w_m‖² (k_mm − k_Smᵀ β);
 * - merge (Gaussian kernel): m and the partner n that loses least become one point
 *   z = h x_m + (1 − h) x_n with weight w_z = w_m k(x_m, z) + w_n k(x_n, z), which is the
 *   projection of w_m k(x_m,·) + w_n k(x_n,·) onto k(z,·) (k(z,z) = 1). With a = k(x_m, x_n),
 *   k(x_m, z) = a^{(1−h)²} and k(x_n, z) = a^{h²}, so the degradation
 *   ‖w_m‖² + ‖w_n‖² + 2a w_m·w_n − ‖w_z‖² is minimised by maximising ‖w_z‖² over h ∈ [0, 1]
 *   by golden-section search, for every candidate partner (O(B) searches; BSGD, merging).
 *   (BudgetedSVM also searches h outside [0, 1] when the weights' signs differ; here h stays
 *   in [0, 1], and such partners just lose more and are rarely chosen.)
 */
#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/scratch_impl.h"
#include "control_impl.h"

#define DEFAULT_JITTER    1e-10
#define GOLDEN_ITERATIONS 30 /* the bracket shrinks by 0.618^30 ≈ 5e-7 */

polka_status polka_maintenance_create(const polka_learner_params *params,
                                      const polka_budget_rule *rule, size_t p, size_t c,
                                      polka_maintenance **out) {
    polka_maintenance *state = calloc(1, sizeof *state);
    POLKA_CHECK_ALLOC(state);
    state->rule = rule;
    state->budget = params->budget;
    state->neighbours = params->neighbours;
    state->beta = params->beta;
    state->jitter = params->jitter > 0 ? params->jitter : DEFAULT_JITTER;
    state->seed = params->seed;
    if (params->suffix > 0) {
        polka_status status =
            polka_average_create(p, c, params->suffix, params->horizon, &state->average);
        if (status != POLKA_OK) {
            polka_maintenance_free(&state);
            return status;
        }
    }
    *out = state;
    return POLKA_OK;
}

void polka_maintenance_free(polka_maintenance **state) {
    if (state == NULL || *state == NULL) return;
    free((*state)->ids);
    polka_average_free(&(*state)->average);
    free(*state);
    *state = NULL;
}

/* The thread's shared scratch (scratch_impl.h): size doubles and `indices` indices. */
static polka_status reserve_work(polka_maintenance *state, size_t size, size_t indices) {
    state->work = polka_scratch(POLKA_SCRATCH_MAINTENANCE, size * sizeof *state->work);
    state->index_work =
        polka_scratch(POLKA_SCRATCH_INDICES, (indices ? indices : 1) * sizeof *state->index_work);
    if (state->work == NULL || state->index_work == NULL) return POLKA_ERR_MEM;
    state->work_size = size;
    state->index_size = indices;
    return POLKA_OK;
}

polka_status polka_maintenance_appended(polka_maintenance *state, const polka_model *model,
                                        size_t first) {
    if (model->m > state->ids_cap) {
        size_t cap = state->ids_cap ? state->ids_cap : 64;
        while (cap < model->m) cap *= 2;
        size_t *ids = realloc(state->ids, cap * sizeof *ids);
        POLKA_CHECK_ALLOC(ids);
        state->ids = ids;
        state->ids_cap = cap;
    }
    for (size_t j = first; j < model->m; j++) {
        state->ids[j] = state->next_id++;
        if (state->average)
            POLKA_CALL(polka_average_add_point(state->average, model->dict + j * model->p));
    }
    return POLKA_OK;
}

static void remove_row(polka_maintenance *state, polka_model *model, size_t j) {
    memmove(state->ids + j, state->ids + j + 1, (model->m - j - 1) * sizeof *state->ids);
    polka_model_remove(model, j);
}

static double row_sqnorm(const polka_model *model, size_t j) {
    const double *w = model->weights + j * model->c;
    return cblas_ddot((int)model->c, w, 1, w, 1);
}

static double self_kernel(const polka_model *model, size_t j) {
    const double *x = model->dict + j * model->p;
    return polka_kernel_eval(&model->kernel, x, x, model->p);
}

/* The point with the smallest ‖w_j‖² k(x_j, x_j) ([LNNP16] eq. 5). */
static size_t smallest_term(const polka_model *model) {
    size_t best = 0;
    double best_cost = INFINITY;
    for (size_t j = 0; j < model->m; j++) {
        double cost = row_sqnorm(model, j) * self_kernel(model, j);
        if (cost < best_cost) {
            best_cost = cost;
            best = j;
        }
    }
    return best;
}

static void remove_smallest(polka_maintenance *state, polka_model *model, polka_komp_stats *stats) {
    size_t j = smallest_term(model);
    stats->sqerror += row_sqnorm(model, j) * self_kernel(model, j);
    stats->removed++;
    remove_row(state, model, j);
}

/*
 * The projection set S for point j into set (k indices): all others, or the k with the
 * largest correlation k(x_j, x_i)/√k(x_i, x_i) (the k nearest for radial kernels).
 * krow holds k(x_j, x_i) for all i; score has room for k numbers. Returns |S|.
 */
static size_t projection_set(const polka_maintenance *state, const polka_model *model, size_t j,
                             const double *krow, double *score, size_t *set) {
    size_t others = model->m - 1;
    size_t k = state->neighbours == 0 || state->neighbours >= others ? others : state->neighbours;
    if (k == others) {
        for (size_t i = 0, s = 0; i < model->m; i++)
            if (i != j) set[s++] = i;
        return k;
    }
    /* insertion into a sorted list of the k best so far: O(M k) */
    size_t filled = 0;
    for (size_t i = 0; i < model->m; i++) {
        if (i == j) continue;
        double value = krow[i] / sqrt(self_kernel(model, i));
        if (filled == k && value <= score[k - 1]) continue;
        size_t pos = filled < k ? filled++ : k - 1;
        while (pos > 0 && score[pos - 1] < value) {
            score[pos] = score[pos - 1];
            set[pos] = set[pos - 1];
            pos--;
        }
        score[pos] = value;
        set[pos] = i;
    }
    return k;
}

/* Solves (K_SS + jitter·diag) β = k_Sj by Cholesky; gram (k×k) is overwritten. */
static polka_status solve_projection(const polka_maintenance *state, const polka_model *model,
                                     const size_t *set, size_t k, double *xs, double *gram,
                                     double *beta) {
    for (size_t s = 0; s < k; s++)
        memcpy(xs + s * model->p, model->dict + set[s] * model->p, model->p * sizeof *xs);
    POLKA_CALL(polka_kernel_block(&model->kernel, xs, k, xs, NULL, k, model->p, gram));
    for (size_t s = 0; s < k; s++) gram[s * k + s] *= 1.0 + state->jitter;
    lapack_int info =
        LAPACKE_dposv(LAPACK_ROW_MAJOR, 'L', (lapack_int)k, 1, gram, (lapack_int)k, beta, 1);
    POLKA_CHECK(info == 0, POLKA_ERR_NUMERIC,
                "budget projection: the Gram matrix of %zu points is not positive definite "
                "(LAPACK info %d); raise learner.jitter",
                k, (int)info);
    return POLKA_OK;
}

polka_status polka_maintain_project(polka_maintenance *state, polka_model *model,
                                    polka_komp_stats *stats) {
    size_t m = model->m, p = model->p, c = model->c, j = smallest_term(model);
    if (m < 2) {
        remove_smallest(state, model, stats);
        return POLKA_OK;
    }
    /* work: krow (m) | β (m) | score (m) | xs (m·p) | gram (m²); indices: the set S */
    POLKA_CALL(reserve_work(state, 3 * m + m * p + m * m, m));
    double *krow = state->work, *beta = krow + m, *score = beta + m, *xs = score + m;
    double *gram = xs + m * p;
    size_t *set = state->index_work;
    POLKA_CALL(polka_kernel_block(&model->kernel, model->dict + j * p, 1, model->dict,
                                  model->sqnorm, m, p, krow));
    size_t k = projection_set(state, model, j, krow, score, set);
    for (size_t s = 0; s < k; s++) beta[s] = krow[set[s]];
    POLKA_CALL(solve_projection(state, model, set, k, xs, gram, beta));
    double explained = 0.0;
    for (size_t s = 0; s < k; s++) explained += krow[set[s]] * beta[s];
    const double *wj = model->weights + j * c;
    stats->sqerror += row_sqnorm(model, j) * fmax(0.0, self_kernel(model, j) - explained);
    for (size_t s = 0; s < k; s++) /* w_S ← w_S + β w_jᵀ */
        cblas_daxpy((int)c, beta[s], wj, 1, model->weights + set[s] * c, 1);
    stats->removed++;
    stats->folded++;
    remove_row(state, model, j);
    return POLKA_OK;
}

/* ‖w_z‖² at h for ln a = log_a: nm a^{2(1−h)²} + nn a^{2h²} + 2 dmn a^{(1−h)² + h²}. */
static double merged_sqnorm(double h, double log_a, double nm, double nn, double dmn) {
    double u = (1.0 - h) * (1.0 - h), v = h * h;
    return nm * exp(2.0 * u * log_a) + nn * exp(2.0 * v * log_a) + 2.0 * dmn * exp((u + v) * log_a);
}

/* The h ∈ [0, 1] maximising ‖w_z‖² (golden section, endpoints checked); returns the max. */
static double best_merge(double log_a, double nm, double nn, double dmn, double *h_out) {
    const double ratio = 0.6180339887498949;
    double lo = 0.0, hi = 1.0;
    double h1 = hi - ratio * (hi - lo), h2 = lo + ratio * (hi - lo);
    double q1 = merged_sqnorm(h1, log_a, nm, nn, dmn), q2 = merged_sqnorm(h2, log_a, nm, nn, dmn);
    for (int it = 0; it < GOLDEN_ITERATIONS; it++) {
        if (q1 < q2) {
            lo = h1;
            h1 = h2;
            q1 = q2;
            h2 = lo + ratio * (hi - lo);
            q2 = merged_sqnorm(h2, log_a, nm, nn, dmn);
        } else {
            hi = h2;
            h2 = h1;
            q2 = q1;
            h1 = hi - ratio * (hi - lo);
            q1 = merged_sqnorm(h1, log_a, nm, nn, dmn);
        }
    }
    double h = q1 > q2 ? h1 : h2, best = fmax(q1, q2);
    double q0 = merged_sqnorm(0.0, log_a, nm, nn, dmn), qe = merged_sqnorm(1.0, log_a, nm, nn, dmn);
    if (q0 > best) {
        best = q0;
        h = 0.0;
    }
    if (qe > best) {
        best = qe;
        h = 1.0;
    }
    *h_out = h;
    return best;
}

static double sqdist(const double *x, const double *y, size_t p) {
    double total = 0.0;
    for (size_t k = 0; k < p; k++) total += (x[k] - y[k]) * (x[k] - y[k]);
    return total;
}

/* The partner n of m whose merge loses least; *h_out its h, returns the degradation. */
static double best_partner(const polka_model *model, size_t m, size_t *n_out, double *h_out) {
    size_t p = model->p, c = model->c;
    const double *xm = model->dict + m * p, *wm = model->weights + m * c;
    double nm = row_sqnorm(model, m), two_s2 = 2.0 * model->kernel.sigma * model->kernel.sigma;
    double best = INFINITY;
    for (size_t n = 0; n < model->m; n++) {
        if (n == m) continue;
        const double *wn = model->weights + n * c;
        double log_a = -sqdist(xm, model->dict + n * p, p) / two_s2;
        double nn = row_sqnorm(model, n), dmn = cblas_ddot((int)c, wm, 1, wn, 1), h = 0.0;
        double kept = best_merge(log_a, nm, nn, dmn, &h);
        double loss = nm + nn + 2.0 * exp(log_a) * dmn - kept;
        if (loss < best) {
            best = loss;
            *n_out = n;
            *h_out = h;
        }
    }
    return fmax(0.0, best);
}

polka_status polka_maintain_merge(polka_maintenance *state, polka_model *model,
                                  polka_komp_stats *stats) {
    size_t p = model->p, c = model->c, m = smallest_term(model), n = 0;
    if (model->m < 2) {
        remove_smallest(state, model, stats);
        return POLKA_OK;
    }
    double h = 0.0;
    stats->sqerror += best_partner(model, m, &n, &h);
    POLKA_CALL(reserve_work(state, p + c, 0));
    double *z = state->work, *wz = z + p;
    const double *xm = model->dict + m * p, *xn = model->dict + n * p;
    double log_a = -sqdist(xm, xn, p) / (2.0 * model->kernel.sigma * model->kernel.sigma);
    double km = exp((1.0 - h) * (1.0 - h) * log_a), kn = exp(h * h * log_a);
    for (size_t k = 0; k < p; k++) z[k] = h * xm[k] + (1.0 - h) * xn[k];
    for (size_t k = 0; k < c; k++)
        wz[k] = model->weights[m * c + k] * km + model->weights[n * c + k] * kn;
    remove_row(state, model, m > n ? m : n);
    remove_row(state, model, m > n ? n : m);
    POLKA_CALL(polka_model_append(model, z, 1, wz));
    stats->removed++;
    return polka_maintenance_appended(state, model, model->m - 1);
}

polka_status polka_maintain_remove(polka_maintenance *state, polka_model *model,
                                   polka_komp_stats *stats) {
    remove_smallest(state, model, stats);
    return POLKA_OK;
}

polka_status polka_maintenance_apply(polka_maintenance *state, polka_model *model, uint64_t t,
                                     size_t added, polka_komp_stats *stats) {
    const polka_budget_rule *rule = state->rule;
    if (!rule->nonparametric) {
        while (model->m > state->budget) POLKA_CALL(rule->maintain(state, model, stats));
        return POLKA_OK;
    }
    /* NBSGD ([LNNP16] Alg. 3): each point added beyond B triggers one maintenance with
     * probability min(β/t, 1). */
    for (size_t r = 0; r < added && model->m > state->budget; r++)
        if (polka_nbsgd_fires(state, t, r)) POLKA_CALL(rule->maintain(state, model, stats));
    return POLKA_OK;
}
