/* The final refit (src/core/refit.c) against a brute-force oracle: the least-squares weights
 * on the kept dictionary, the squared-hinge steps that never raise their objective, and the
 * settings it refuses. */
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "polka/kernel.h"
#include "polka/learner.h"
#include "polka/model.h"
#include "test_util.h"

#define N      300 /* training rows */
#define P      2   /* features */
#define C      3   /* classes */
#define PI     3.14159265358979323846
#define LAMBDA 1e-2

/* Three classes: the label is the angular sector of a point uniform on [-1, 1]². */
typedef struct {
    double x[N * P], y[N];
} rows_data;

static void make_rows(rows_data *data) {
    fill_uniform(data->x, N * P, -1.0, 1.0, 7);
    for (size_t i = 0; i < N; i++) {
        double angle = atan2(data->x[i * P + 1], data->x[i * P]) + PI;
        data->y[i] = floor(angle / (2.0 * PI / C));
        if (data->y[i] >= C) data->y[i] = C - 1;
    }
}

static polka_status give_rows(void *context, size_t first, size_t count, double *x, double *y) {
    const rows_data *data = context;
    memcpy(x, data->x + first * P, count * P * sizeof *x);
    memcpy(y, data->y + first, count * sizeof *y);
    return POLKA_OK;
}

/* A POLK learner after one pass over the rows (its dictionary is what the refit keeps). */
static polka_learner *trained(const rows_data *data, polka_loss_kind loss) {
    polka_learner_params params = polka_learner_defaults();
    params.kernel.sigma = 0.5;
    params.loss.kind = loss;
    params.kp = 0.1;
    polka_learner *learner = NULL;
    CHECK_OK(polka_learner_create(&params, P, C, &learner));
    for (size_t i = 0; i < N; i++)
        CHECK_OK(polka_learner_step(learner, data->x + i * P, data->y + i, 1, NULL));
    return learner;
}

static double target(double y, size_t k) {
    return (size_t)y == k ? 1.0 : -1.0;
}

/*
 * This test's copy of the refit's normal equations on the kept dictionary: K_nD and K_DD by
 * polka_kernel_eval, their gaps to the library's polka_kernel_block values, A = K_nDᵀK_nD +
 * nλK_DD and the refit's jitter j = 1e-10·tr A/m (refit.c: a parameter of the algorithm, so
 * the oracle solves with it too), and bounds: |A_lib − A| ≤ da entrywise (the gaps, nλ's
 * product u, dsyrk's γ_{n+1} [Higham02 §3.5]); ‖E‖₂ for the library's solve of
 * (A + jI)w = b: ‖da‖_F, its jitter's difference (its trace: 1e-10/m·Σda_rr, γ_{m+3}j), the
 * shift's u, and dpotrf/dpotrs's |ΔA| ≤ γ_{3m+1}|R̂ᵀ||R̂| (Thm 10.4; a PSD Gram matrix of trace
 * ≤ tr Â/(1 − γ_{m+1})); λ_lo ≤ λ_min(A + jI), from dsyev within m·ε·λ_max [LAPACK Users'
 * Guide §4.7.1, p(n) = n] and the formation's γ_{n+2}·A (all entries are positive).
 */
typedef struct {
    size_t m;
    double *k, *gap, *kdd, *gdd, *a, *da;
    double jitter, e_norm, lam_lo;
} normal_eqs;

static normal_eqs normal_create(const polka_model *model, const rows_data *data, double lambda) {
    size_t m = polka_model_order(model);
    const double *d = polka_model_dictionary(model);
    const polka_kernel *kernel = polka_model_kernel(model);
    normal_eqs ne = {.m = m};
    ne.k = malloc(N * m * sizeof *ne.k);
    ne.gap = malloc(N * m * sizeof *ne.gap);
    ne.kdd = malloc(m * m * sizeof *ne.kdd);
    ne.gdd = malloc(m * m * sizeof *ne.gdd);
    ne.a = malloc(m * m * sizeof *ne.a);
    ne.da = malloc(m * m * sizeof *ne.da);
    assert_true(ne.k && ne.gap && ne.kdd && ne.gdd && ne.a && ne.da);
    for (size_t i = 0; i < N; i++)
        for (size_t j = 0; j < m; j++) {
            double k = polka_kernel_eval(kernel, data->x + i * P, d + j * P, P);
            ne.k[i * m + j] = k;
            ne.gap[i * m + j] = test_gauss_gap(kernel->sigma, data->x + i * P, d + j * P, P, k);
        }
    for (size_t r = 0; r < m; r++)
        for (size_t s = 0; s < m; s++) {
            double k = polka_kernel_eval(kernel, d + r * P, d + s * P, P);
            ne.kdd[r * m + s] = k;
            ne.gdd[r * m + s] = test_gauss_gap(kernel->sigma, d + r * P, d + s * P, P, k);
        }
    double trace = 0.0, da_f = 0.0, da_trace = 0.0, da_max = 0.0;
    for (size_t r = 0; r < m; r++)
        for (size_t s = 0; s < m; s++) {
            double sum = N * lambda * ne.kdd[r * m + s], da = 0.0;
            for (size_t i = 0; i < N; i++) {
                double kr = ne.k[i * m + r], ks = ne.k[i * m + s];
                double gr = ne.gap[i * m + r], gs = ne.gap[i * m + s];
                sum += kr * ks;
                da += gr * ks + kr * gs + gr * gs;
            }
            ne.a[r * m + s] = sum;
            da += N * lambda * (ne.gdd[r * m + s] + test_gamma(2) * ne.kdd[r * m + s]) +
                  test_gamma(N + 1) * sum;
            ne.da[r * m + s] = da;
            da_f += da * da;
            da_max = fmax(da_max, da);
            if (r == s) {
                trace += sum;
                da_trace += da;
            }
        }
    ne.jitter = 1e-10 * trace / (double)m;
    double *copy = malloc(m * m * sizeof *copy), *eig = malloc(m * sizeof *eig);
    memcpy(copy, ne.a, m * m * sizeof *copy);
    assert_int_equal(LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'N', 'L', m, copy, m, eig), 0);
    double g_chol = test_gamma(3.0 * m + 1) / (1 - test_gamma(m + 1.0));
    ne.e_norm = sqrt(da_f) + 1e-10 / (double)m * da_trace + test_gamma(m + 3.0) * ne.jitter +
                TEST_UNIT * (da_max + trace + ne.jitter) +
                g_chol * (trace + da_trace + m * ne.jitter) * (1 + TEST_UNIT);
    double lam_max = eig[m - 1];
    ne.lam_lo =
        eig[0] - m * DBL_EPSILON * lam_max - test_gamma(N + 2) * trace - sqrt(da_f) + ne.jitter;
    assert_true(ne.lam_lo > 0);
    free(copy);
    free(eig);
    return ne;
}

static void normal_free(normal_eqs *ne) {
    free(ne->k);
    free(ne->gap);
    free(ne->kdd);
    free(ne->gdd);
    free(ne->a);
    free(ne->da);
}

/* The library's right-hand side K̂_nDᵀt against Σ_i k_ir t_i: the gaps and dgemm's γ_n. */
static double rhs_error(const normal_eqs *ne, const double *t) {
    double sum = 0.0;
    for (size_t r = 0; r < ne->m; r++) {
        double e = 0.0;
        for (size_t i = 0; i < N; i++)
            e += (ne->gap[i * ne->m + r] + test_gamma(N) * ne->k[i * ne->m + r]) * fabs(t[i]);
        sum += e * e;
    }
    return sqrt(sum);
}

/* Class c's least-squares weights (A + jI) w = K_nDᵀ t by plain loops, and a bound on
 * ‖(A + jI)w − b‖ for this A and b exactly: the computed residual, its rounding (γ_{m+2}) and
 * the formation's (A: γ_{n+2}·A, the jitter's u, b: γ_n Σ_i k_ir). */
static double oracle_weights(const normal_eqs *ne, const rows_data *data, size_t c, double *w) {
    size_t m = ne->m;
    double *a = malloc(m * m * sizeof *a), *b = malloc(m * sizeof *b);
    assert_non_null(a);
    assert_non_null(b);
    for (size_t r = 0; r < m; r++) {
        b[r] = 0.0;
        for (size_t i = 0; i < N; i++) b[r] += ne->k[i * m + r] * target(data->y[i], c);
    }
    memcpy(a, ne->a, m * m * sizeof *a);
    for (size_t r = 0; r < m; r++) a[r * m + r] += ne->jitter;
    memcpy(w, b, m * sizeof *w);
    gauss_solve(a, w, m);
    double res = 0.0;
    for (size_t r = 0; r < m; r++) {
        double sum = -b[r] + ne->jitter * w[r], scale = fabs(b[r]) + ne->jitter * fabs(w[r]);
        double form = TEST_UNIT * (ne->a[r * m + r] + ne->jitter) * fabs(w[r]);
        for (size_t i = 0; i < N; i++) form += test_gamma(N) * ne->k[i * m + r];
        for (size_t s = 0; s < m; s++) {
            sum += ne->a[r * m + s] * w[s];
            scale += fabs(ne->a[r * m + s] * w[s]);
            form += test_gamma(N + 2) * ne->a[r * m + s] * fabs(w[s]);
        }
        double r_bound = fabs(sum) + test_gamma(m + 2.0) * scale + form;
        res += r_bound * r_bound;
    }
    free(a);
    free(b);
    return sqrt(res);
}

/*
 * The refit's least-squares weights against the oracle's, through the fitted values on the
 * training rows (the weights themselves are as ill-conditioned as K_DD): both to the exact w*
 * of (A + jI)w* = b, w − w* = (A + jI)⁻¹v with ‖v‖ ≤ ‖δb‖ + ‖E‖‖w‖ (library) or the oracle's
 * residual, and K_nDᵀK_nD ⪯ A + jI gives ‖K_nD(A + jI)⁻¹v‖ ≤ ‖v‖/√λ_lo; each fitted value's
 * sum rounds within γ_m Σ_j|k_ij w_j|.
 */
static void test_refit_least_squares(void **state) {
    (void)state;
    static rows_data data;
    make_rows(&data);
    polka_learner *learner = trained(&data, POLKA_LOSS_MULTI_HINGE);
    const polka_model *model = polka_learner_model(learner);
    size_t m = polka_model_order(model);
    assert_true(m > 10 && m < N);
    double *before = malloc(m * P * sizeof *before), *w = malloc(m * sizeof *w);
    assert_non_null(before);
    assert_non_null(w);
    memcpy(before, polka_model_dictionary(model), m * P * sizeof *before);
    normal_eqs ne = normal_create(model, &data, LAMBDA);
    polka_refit_settings settings = {LAMBDA, 0, 0};
    CHECK_OK(polka_learner_refit(learner, N, give_rows, &data, &settings));
    model = polka_learner_model(learner);
    assert_int_equal(polka_model_order(model), m); /* the dictionary stays, point for point */
    assert_memory_equal(polka_model_dictionary(model), before, m * P * sizeof *before);
    const double *fitted = polka_model_weights(model);
    double t[N];
    for (size_t c = 0; c < C; c++) {
        double res = oracle_weights(&ne, &data, c, w), wn = 0.0;
        for (size_t i = 0; i < N; i++) t[i] = target(data.y[i], c);
        for (size_t j = 0; j < m; j++) wn += fitted[j * C + c] * fitted[j * C + c];
        double v = (rhs_error(&ne, t) + ne.e_norm * sqrt(wn) + res) / sqrt(ne.lam_lo);
        for (size_t i = 0; i < N; i++) {
            double f = 0.0, f_oracle = 0.0, terms = 0.0;
            for (size_t j = 0; j < m; j++) {
                f += ne.k[i * m + j] * fitted[j * C + c];
                f_oracle += ne.k[i * m + j] * w[j];
                terms += ne.k[i * m + j] * (fabs(fitted[j * C + c]) + fabs(w[j]));
            }
            double tol = v + test_gamma((double)m) * terms;
            if (fabs(f - f_oracle) > tol)
                fail_msg("class %zu, row %zu: f %.12g, oracle %.12g (bound %g)", c, i, f, f_oracle,
                         tol);
        }
    }
    normal_free(&ne);
    free(before);
    free(w);
    polka_learner_free(&learner);
}

/*
 * Σ_i Σ_k max(0, 1 − t f)² + nλ Σ_k w_kᵀ K_DD w_k: the squared hinge the steps descend, with
 * the bounds of a step: in *rounding, this sum's
 * own error (each f within δ = γ_m Σ|k w|, so each slack² within (2s + δ)δ; the sum
 * γ_{nC+m²C+2} of Σ|terms|) plus its distance to the objective on the library's kernel values
 * (gap: f moves by Σ_j gap_ij|w_j|, the penalty by Σ|w_a|gap_ab|w_b|); in *moved, Σ δf² with
 * δf the library's f against this one (dgemm on its values: δ + Σ gap|w|).
 */
static double hinge_objective(const normal_eqs *ne, const polka_model *model, const rows_data *data,
                              double lambda, double *rounding, double *moved) {
    size_t m = polka_model_order(model);
    const double *w = polka_model_weights(model);
    double sum = 0.0, terms = 0.0, err = 0.0, shift = 0.0;
    *moved = 0.0;
    for (size_t i = 0; i < N; i++)
        for (size_t c = 0; c < C; c++) {
            double f = 0.0, fa = 0.0, ga = 0.0, t = target(data->y[i], c);
            for (size_t j = 0; j < m; j++) {
                f += ne->k[i * m + j] * w[j * C + c];
                fa += ne->k[i * m + j] * fabs(w[j * C + c]);
                ga += ne->gap[i * m + j] * fabs(w[j * C + c]);
            }
            double slack = fmax(0.0, 1.0 - t * f), delta = test_gamma((double)m) * fa;
            sum += slack * slack;
            terms += slack * slack;
            err += (2 * slack + delta) * delta;
            shift += (2 * slack + delta + ga) * ga;
            *moved += (delta + ga) * (delta + ga);
        }
    for (size_t a = 0; a < m; a++)
        for (size_t b = 0; b < m; b++)
            for (size_t c = 0; c < C; c++) {
                double term = N * lambda * w[a * C + c] * ne->kdd[a * m + b] * w[b * C + c];
                sum += term;
                terms += fabs(term);
                shift += N * lambda * fabs(w[a * C + c]) * ne->gdd[a * m + b] * fabs(w[b * C + c]);
            }
    *rounding = err + test_gamma((double)N * C + (double)m * m * C + 2) * terms + shift;
    return sum;
}

/*
 * Each squared-hinge step lowers (never raises) the objective O, and several lower it clearly.
 * The step W ← (A + jI)⁻¹K_nDᵀZ minimises the majoriser q(W) + j‖W‖² (q ≥ O, equal at W_old
 * up to Σδf², the library's f being within δf of the exact), so in exact arithmetic O rises
 * by at most j‖W_old‖² + Σδf². The computed step is W* + (A + jI)⁻¹v, ‖v‖ ≤ ‖E‖‖W‖ + ‖δb‖,
 * which moves O by at most ∇ᵀ(A + jI)⁻¹v (convexity, ∇ at the computed step) ≤
 * ‖(A + jI)^{−1/2}∇‖‖v‖/√λ_lo ≤ 4√O‖v‖/√λ_lo (∇ = −2K_nDᵀ(t∘s) + 2nλK_DDW and both terms
 * of A dominate theirs). Both objectives round (hinge_objective).
 */
static void test_refit_hinge_descends(void **state) {
    (void)state;
    static rows_data data;
    make_rows(&data);
    polka_learner *learner = trained(&data, POLKA_LOSS_MULTI_HINGE);
    const double lambda = LAMBDA / 10;
    normal_eqs ne = normal_create(polka_learner_model(learner), &data, lambda);
    size_t m = ne.m;
    double previous = INFINITY, first = 0, previous_round = 0.0, previous_sq = 0.0;
    double previous_moved = 0.0, *old = calloc(m * C, sizeof *old), z[N];
    assert_non_null(old);
    for (size_t iterations = 0; iterations <= 6; iterations++) {
        polka_refit_settings settings = {lambda, iterations, 0};
        CHECK_OK(polka_learner_refit(learner, N, give_rows, &data, &settings));
        const polka_model *model = polka_learner_model(learner);
        const double *w = polka_model_weights(model);
        double rounding, moved, sq = 0.0, db = 0.0;
        double objective = hinge_objective(&ne, model, &data, lambda, &rounding, &moved);
        for (size_t e = 0; e < m * C; e++) sq += w[e] * w[e];
        /* Z's entries: ±1, or f at the previous weights (within 1 of this test's) */
        for (size_t c = 0; c < C; c++) {
            for (size_t i = 0; i < N; i++) {
                double f = 0.0;
                for (size_t j = 0; j < m; j++) f += ne.k[i * m + j] * fabs(old[j * C + c]);
                z[i] = fmax(1.0, f + 1);
            }
            double e = rhs_error(&ne, z);
            db += e * e;
        }
        double step =
            4 * sqrt(objective + rounding) * (ne.e_norm * sqrt(sq) + sqrt(db)) / sqrt(ne.lam_lo);
        double allowed =
            ne.jitter * previous_sq + previous_moved + step + rounding + previous_round;
        if (iterations == 0) first = objective;
        if (objective > previous + allowed)
            fail_msg("step %zu raised the squared hinge: %.12g after %.12g (bound %g)", iterations,
                     objective, previous, allowed);
        previous = objective;
        previous_round = rounding;
        previous_sq = sq;
        previous_moved = moved;
        memcpy(old, w, m * C * sizeof *old);
    }
    assert_true(previous < 0.95 * first);
    free(old);
    normal_free(&ne);
    polka_learner_free(&learner);
}

/* The rows, counting the calls (the cached refit reads them in its first pass only). */
typedef struct {
    rows_data *data;
    size_t calls;
} counted_rows;

static polka_status give_counted_rows(void *context, size_t first, size_t count, double *x,
                                      double *y) {
    counted_rows *counted = context;
    counted->calls++;
    return give_rows(counted->data, first, count, x, y);
}

/* The squared-hinge passes on the kept kernel rows (learner.refit_memory) give the weights of
 * the recomputing passes bit for bit, reading the training rows once; too little memory
 * recomputes. */
static void test_refit_cache_same_weights(void **state) {
    (void)state;
    static rows_data data;
    make_rows(&data);
    double *weights[3] = {0};
    size_t calls[3], m = 0, memories[3] = {0, (size_t)1 << 30, 8 * N};
    for (size_t run = 0; run < 3; run++) {
        polka_learner *learner = trained(&data, POLKA_LOSS_MULTI_HINGE);
        counted_rows counted = {&data, 0};
        polka_refit_settings settings = {LAMBDA / 10, 4, memories[run]};
        CHECK_OK(polka_learner_refit(learner, N, give_counted_rows, &counted, &settings));
        const polka_model *model = polka_learner_model(learner);
        m = polka_model_order(model);
        weights[run] = malloc(m * C * sizeof *weights[run]);
        assert_non_null(weights[run]);
        memcpy(weights[run], polka_model_weights(model), m * C * sizeof *weights[run]);
        calls[run] = counted.calls;
        polka_learner_free(&learner);
    }
    assert_int_equal(calls[0], 5); /* N < one block: a call per pass, 1 + 4 */
    assert_int_equal(calls[1], 1);
    assert_int_equal(calls[2], 5); /* 8N bytes hold one row of m > 1 points: no cache */
    assert_memory_equal(weights[0], weights[1], m * C * sizeof *weights[0]);
    assert_memory_equal(weights[0], weights[2], m * C * sizeof *weights[0]);
    for (size_t run = 0; run < 3; run++) free(weights[run]);
}

static void test_refit_refusals(void **state) {
    (void)state;
    polka_learner_params params = polka_learner_defaults();
    assert_null(polka_learner_refit_check(&params, 3));
    params.loss.kind = POLKA_LOSS_SQUARE;
    assert_null(polka_learner_refit_check(&params, 0));
    assert_non_null(strstr(polka_learner_refit_check(&params, 1), "classification loss only"));
    params.loss.kind = POLKA_LOSS_NOVELTY;
    assert_non_null(strstr(polka_learner_refit_check(&params, 0), "novelty"));
    params = polka_learner_defaults();
    params.offset = 1;
    assert_non_null(strstr(polka_learner_refit_check(&params, 0), "learner.offset = 0"));
    static rows_data data;
    make_rows(&data);
    polka_learner *learner = trained(&data, POLKA_LOSS_MULTI_HINGE);
    polka_refit_settings settings = {0.0, 0, 0};
    assert_int_equal(polka_learner_refit(learner, N, give_rows, &data, &settings), POLKA_ERR_ARG);
    assert_non_null(strstr(polka_error_message(), "lambda > 0"));
    polka_learner_free(&learner);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_refit_least_squares),
        cmocka_unit_test(test_refit_hinge_descends),
        cmocka_unit_test(test_refit_cache_same_weights),
        cmocka_unit_test(test_refit_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
