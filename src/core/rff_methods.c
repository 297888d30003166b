/* The local steps of rf-diffusion, DKLA and COKE (rff_methods.h; the equations are there). */
#include "polka/rff_methods.h"

#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* out += scale · Σ_j nb_j, the neighbours in the order given. */
static void add_neighbours(size_t len, double scale, const polka_rff_neighbours *nb, double *out) {
    for (size_t j = 0; j < nb->count; j++)
        for (size_t k = 0; k < len; k++) out[k] += scale * nb->vars[j][k];
}

/* ------------------------------------------------------------------ rf-diffusion */

polka_status polka_rf_diffusion_self_weight(const double *weight, size_t count,
                                            double *self_weight) {
    double sum = 0.0;
    for (size_t j = 0; j < count; j++) sum += weight[j];
    /* a Metropolis row sums to 1 up to rounding: allow that, not more */
    POLKA_CHECK(sum <= 1.0 + 1e-12, POLKA_ERR_ARG,
                "rf-diffusion: an agent's neighbour weights sum to %g > 1, so the combination is "
                "no average; use net.weights = metropolis",
                sum);
    *self_weight = sum >= 1.0 ? 0.0 : 1.0 - sum;
    return POLKA_OK;
}

polka_status polka_rf_diffusion_adapt(const polka_rff_problem *problem,
                                      const polka_rff_batch *batch, double eta, const double *theta,
                                      double *psi) {
    memcpy(psi, theta, problem->features * problem->outputs * sizeof *psi);
    return polka_rff_sgd_step(problem, batch, eta, psi);
}

void polka_rf_diffusion_combine(size_t len, double self_weight, const double *psi,
                                const polka_rff_neighbours *nb, double *theta) {
    for (size_t k = 0; k < len; k++) theta[k] = self_weight * psi[k];
    for (size_t j = 0; j < nb->count; j++)
        for (size_t k = 0; k < len; k++) theta[k] += nb->weight[j] * nb->vars[j][k];
}

void polka_rf_choco_combine(size_t len, double step, const double *psi, const double *own_copy,
                            const polka_rff_neighbours *nb, double *theta) {
    memcpy(theta, psi, len * sizeof *theta);
    for (size_t j = 0; j < nb->count; j++) {
        double a = step * nb->weight[j];
        for (size_t k = 0; k < len; k++) theta[k] += a * (nb->vars[j][k] - own_copy[k]);
    }
}

/* ------------------------------------------------------------------ DKLA and COKE */

static polka_status check_admm(double rho, double eta_inverse) {
    POLKA_CHECK(rho > 0 && isfinite(rho), POLKA_ERR_ARG,
                "DKLA: the ADMM penalty rho must be > 0 and finite (got %g)", rho);
    POLKA_CHECK(eta_inverse > 0 && isfinite(eta_inverse), POLKA_ERR_ARG,
                "DKLA: the step size must be > 0 and finite (got 1/%g)", eta_inverse);
    return POLKA_OK;
}

polka_status polka_dkla_primal_linearized(const polka_rff_problem *problem,
                                          const polka_rff_batch *batch, double rho, double eta,
                                          const double *theta, const double *shared,
                                          const double *gamma, const polka_rff_neighbours *nb,
                                          double *theta_new) {
    POLKA_CALL(check_admm(rho, 1.0 / eta));
    size_t len = problem->features * problem->outputs;
    /* the gradient goes straight into theta_new, which the numerator then overwrites */
    POLKA_CALL(polka_rff_gradient(problem, batch, theta, theta_new, NULL));
    double degree = (double)nb->count;
    for (size_t k = 0; k < len; k++)
        theta_new[k] = theta[k] / eta + rho * degree * shared[k] - theta_new[k] - gamma[k];
    add_neighbours(len, rho, nb, theta_new);
    double denominator = 1.0 / eta + 2.0 * rho * degree;
    for (size_t k = 0; k < len; k++) theta_new[k] /= denominator;
    return POLKA_OK;
}

void polka_dkla_dual(size_t len, double rho, const double *shared, const polka_rff_neighbours *nb,
                     double *gamma) {
    for (size_t j = 0; j < nb->count; j++)
        for (size_t k = 0; k < len; k++) gamma[k] += rho * (shared[k] - nb->vars[j][k]);
}

void polka_dkla_exact_free(polka_dkla_exact *exact) {
    if (exact == NULL) return;
    free(exact->vectors);
    free(exact->values);
    free(exact->rhs);
    *exact = (polka_dkla_exact){0};
}

polka_status polka_dkla_exact_init(const polka_rff_problem *problem, const polka_rff_batch *data,
                                   polka_dkla_exact *out) {
    POLKA_CALL(polka_rff_check_square(problem, "DKLA's exact primal"));
    POLKA_CHECK(data->n > 0, POLKA_ERR_ARG, "DKLA's exact primal: the agent has no data");
    size_t D = problem->features;
    polka_dkla_exact ex = {.features = D};
    ex.vectors = calloc(D * D, sizeof *ex.vectors);
    ex.values = malloc(D * sizeof *ex.values);
    ex.rhs = calloc(D, sizeof *ex.rhs);
    if (ex.vectors == NULL || ex.values == NULL || ex.rhs == NULL) {
        polka_dkla_exact_free(&ex);
        return polka_error_set(POLKA_ERR_MEM, "DKLA: out of memory for a %zu×%zu matrix", D, D);
    }
    /* H_i = Z_iᵀZ_i / n_i and b_i = Z_iᵀy_i / n_i, then H_i = QΛQᵀ */
    polka_rff_normal_add(data, D, 1.0 / (double)data->n, ex.vectors, ex.rhs);
    lapack_int info = LAPACKE_dsyevd(LAPACK_ROW_MAJOR, 'V', 'L', (lapack_int)D, ex.vectors,
                                     (lapack_int)D, ex.values);
    if (info != 0) {
        polka_dkla_exact_free(&ex);
        return polka_error_set(POLKA_ERR_NUMERIC,
                               "DKLA: the eigendecomposition of Z'Z/n (%zu×%zu) failed (dsyevd "
                               "info %d)",
                               D, D, (int)info);
    }
    *out = ex;
    return POLKA_OK;
}

polka_status polka_dkla_exact_primal(const polka_dkla_exact *exact,
                                     const polka_rff_problem *problem, double rho,
                                     const double *shared, const double *gamma,
                                     const polka_rff_neighbours *nb, double *theta_new) {
    POLKA_CALL(check_admm(rho, 1.0));
    size_t D = exact->features;
    POLKA_CHECK(problem->features == D && problem->outputs == 1, POLKA_ERR_ARG,
                "DKLA's exact primal: built for %zu features and one output, called with %zu "
                "and %zu",
                D, problem->features, problem->outputs);
    double degree = (double)nb->count, shift = problem->lambda + 2.0 * rho * degree;
    POLKA_CHECK(shift > 0, POLKA_ERR_ARG,
                "DKLA's exact primal: an agent without neighbours needs learner.lambda > 0");
    double *r = malloc(2 * D * sizeof *r), *u = r + D;
    POLKA_CHECK_ALLOC(r);
    /* r = b_i − γ_i + ρ Σ_j (θ̂_i + θ̂_j) */
    for (size_t k = 0; k < D; k++) r[k] = exact->rhs[k] - gamma[k] + rho * degree * shared[k];
    add_neighbours(D, rho, nb, r);
    /* θ = Q (Λ + shift I)⁻¹ Qᵀ r */
    cblas_dgemv(CblasRowMajor, CblasTrans, (int)D, (int)D, 1.0, exact->vectors, (int)D, r, 1, 0.0,
                u, 1);
    for (size_t k = 0; k < D; k++) u[k] /= exact->values[k] + shift;
    cblas_dgemv(CblasRowMajor, CblasNoTrans, (int)D, (int)D, 1.0, exact->vectors, (int)D, u, 1, 0.0,
                theta_new, 1);
    free(r);
    return POLKA_OK;
}

double polka_coke_threshold(double alpha, double mu, uint64_t round) {
    return alpha * pow(mu, (double)round);
}

int polka_coke_censor(size_t len, const double *theta, double threshold, double *shared) {
    double sq = 0.0;
    for (size_t k = 0; k < len; k++) sq += (shared[k] - theta[k]) * (shared[k] - theta[k]);
    if (sqrt(sq) < threshold) return 0;
    memcpy(shared, theta, len * sizeof *shared);
    return 1;
}
