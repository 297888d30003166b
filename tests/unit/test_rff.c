/* Random Fourier features and the random-feature methods (rff.h, rff_methods.h): the kernel
 * they approximate, their gradients, and DKLA / COKE / rf-diffusion on a ring of agents. */
#include <stdlib.h>
#include <string.h>

#include "polka/graph.h"
#include "polka/kernel.h"
#include "polka/rff.h"
#include "polka/rff_methods.h"
#include "polka/rff_network_ref.h"
#include "test_util.h"

enum { AGENTS = 6, PER_AGENT = 40, DIM = 2, FEATURES = 32 };

/* A_d = |b_d| + Σ_k |ω_dk x_k|: ω_d·x + b_d in any order is within γ_{p+1}·A_d [Higham02
 * §3.1]; then cos (glibc: within 1 ulp, 2u) is within γ_{p+1}A_d + 2u of cos(ω_d·x + b_d). */
static double feature_scale(const polka_rff *rff, size_t d, const double *x) {
    double a = fabs(rff->phase[d]);
    for (size_t k = 0; k < rff->dim; k++) a += fabs(rff->omega[d * rff->dim + k] * x[k]);
    return a;
}

/* ------------------------------------------------------------------------------ helpers */

/* Every agent's fixed data set: points, their features and labels, agents × PER_AGENT. */
typedef struct {
    polka_rff rff;
    double x[AGENTS * PER_AGENT * DIM], z[AGENTS * PER_AGENT * FEATURES], y[AGENTS * PER_AGENT];
    polka_rff_batch batch[AGENTS];
} agents_data;

/* Regression targets sin(3 x1) + cos(2 x2)/2 + noise, or (classes > 0) the class of the
 * point's angle sector. Agent a's points are shifted by a/AGENTS: the local data differ. */
static void fill_agents(agents_data *data, size_t classes, uint64_t seed) {
    CHECK_OK(polka_rff_draw(FEATURES, DIM, 0.8, seed, &data->rff));
    fill_uniform(data->x, AGENTS * PER_AGENT * DIM, -1, 1, seed + 1);
    double noise[AGENTS * PER_AGENT];
    fill_uniform(noise, AGENTS * PER_AGENT, -0.1, 0.1, seed + 2);
    for (size_t k = 0; k < AGENTS * PER_AGENT; k++) {
        double *x = data->x + k * DIM;
        x[0] += (double)(k / PER_AGENT) / AGENTS;
        double angle = atan2(x[1], x[0]) + 3.141592653589793;
        data->y[k] = classes ? floor(angle / (6.283185307179586 / (double)classes))
                             : sin(3 * x[0]) + 0.5 * cos(2 * x[1]) + noise[k];
        if (classes && data->y[k] >= (double)classes) data->y[k] = (double)classes - 1;
    }
    polka_rff_map(&data->rff, data->x, AGENTS * PER_AGENT, data->z);
    for (size_t a = 0; a < AGENTS; a++)
        data->batch[a] = (polka_rff_batch){
            .z = data->z + a * PER_AGENT * FEATURES, .y = data->y + a * PER_AGENT, .n = PER_AGENT};
}

/* The ring of AGENTS agents with Metropolis weights, as adjacency lists. */
typedef struct {
    size_t offsets[AGENTS + 1], adj[2 * AGENTS];
    double weight[2 * AGENTS];
    polka_rff_graph graph;
} ring_graph;

static void make_ring(ring_graph *ring) {
    polka_graph *g = NULL;
    CHECK_OK(polka_graph_generate(&(polka_graph_spec){.kind = POLKA_GRAPH_RING, .n = AGENTS}, &g));
    CHECK_OK(polka_graph_set_weights(g, POLKA_WEIGHTS_METROPOLIS));
    ring->offsets[0] = 0;
    for (size_t i = 0; i < AGENTS; i++) {
        size_t degree = polka_graph_degree(g, i), first = ring->offsets[i];
        memcpy(ring->adj + first, polka_graph_neighbors(g, i), degree * sizeof(size_t));
        memcpy(ring->weight + first, polka_graph_neighbor_weights(g, i), degree * sizeof(double));
        ring->offsets[i + 1] = first + degree;
    }
    polka_graph_free(&g);
    ring->graph = (polka_rff_graph){
        .agents = AGENTS, .offsets = ring->offsets, .adj = ring->adj, .weight = ring->weight};
}

static polka_rff_problem square_problem(void) {
    return (polka_rff_problem){
        .features = FEATURES, .outputs = 1, .loss = {.kind = POLKA_LOSS_SQUARE}, .lambda = 1e-3};
}

/* ----------------------------------------------------------------------------- features */

/* z(x)ᵀz(y) → exp(−‖x−y‖²/(2σ²)) with an error of order 1/√D (each of the D terms has a
 * standard deviation below 1): seeded, so the bound 4/√D either always holds or never. */
static void test_features_approximate_the_gaussian_kernel(void **state) {
    (void)state;
    enum { PAIRS = 20, P = 3 };
    polka_kernel kernel = {.kind = POLKA_KERNEL_GAUSSIAN, .sigma = 0.9};
    double x[2 * PAIRS * P];
    fill_uniform(x, 2 * PAIRS * P, -1, 1, 11);
    double mean_error[3];
    size_t sizes[3] = {64, 1024, 16384};
    for (size_t s = 0; s < 3; s++) {
        polka_rff rff;
        CHECK_OK(polka_rff_draw(sizes[s], P, kernel.sigma, 5, &rff));
        double *z = malloc(2 * PAIRS * sizes[s] * sizeof *z);
        assert_non_null(z);
        polka_rff_map(&rff, x, 2 * PAIRS, z);
        mean_error[s] = 0.0;
        for (size_t k = 0; k < PAIRS; k++) {
            const double *zx = z + 2 * k * sizes[s], *zy = zx + sizes[s];
            double dot = 0.0;
            const double *a = x + 2 * k * P, *b = a + P;
            /* z = fl(√(2/D))·ĉ (2/D exact), so zx·zy = (2/D)ĉxĉy(1 + θ_5) and this sum adds
             * γ_D; polka_rff_kernel_ref sums D products (γ_D, 2/D exact); the two cosines of
             * each feature are within 2(γ_{p+1}A_d + 2u): within
             * 2γ_{D+6}Σ|zx zy| + (2/D)Σ_d(δ_d(x) + δ_d(y))(1 + 2u) */
            double spread = 0.0, terms = 0.0;
            for (size_t d = 0; d < sizes[s]; d++) {
                dot += zx[d] * zy[d];
                terms += fabs(zx[d] * zy[d]);
                spread += 2 * (test_gamma(P + 1) * feature_scale(&rff, d, a) + 2 * TEST_UNIT) +
                          2 * (test_gamma(P + 1) * feature_scale(&rff, d, b) + 2 * TEST_UNIT);
            }
            double tol = 2 * test_gamma((double)sizes[s] + 6) * terms +
                         2.0 / (double)sizes[s] * spread * (1 + 2 * TEST_UNIT);
            assert_true(fabs(dot - polka_rff_kernel_ref(&rff, a, b)) <= tol);
            double error = fabs(dot - polka_kernel_eval(&kernel, a, b, P));
            assert_true(error <= 4.0 / sqrt((double)sizes[s]));
            mean_error[s] += error / PAIRS;
        }
        free(z);
        polka_rff_free(&rff);
    }
    assert_true(mean_error[2] < mean_error[1] && mean_error[1] < mean_error[0]);
}

/* The features are a pure function of the seed; the first D of a larger draw are a smaller
 * draw; adopting stored arrays gives the same map; bad shapes are refused by name. */
static void test_features_are_a_function_of_the_seed(void **state) {
    (void)state;
    polka_rff small, large, again, other, adopted;
    CHECK_OK(polka_rff_draw(8, 3, 0.5, 42, &small));
    CHECK_OK(polka_rff_draw(16, 3, 0.5, 42, &large));
    CHECK_OK(polka_rff_draw(8, 3, 0.5, 42, &again));
    CHECK_OK(polka_rff_draw(8, 3, 0.5, 43, &other));
    assert_memory_equal(small.omega, large.omega, 8 * 3 * sizeof(double));
    assert_memory_equal(small.phase, large.phase, 8 * sizeof(double));
    assert_memory_equal(small.omega, again.omega, 8 * 3 * sizeof(double));
    assert_true(memcmp(small.omega, other.omega, 8 * 3 * sizeof(double)) != 0);
    CHECK_OK(polka_rff_adopt(8, 3, 0.5, 42, small.omega, small.phase, &adopted));
    double x[3] = {0.1, -0.4, 0.7}, z1[8], z2[8];
    polka_rff_map(&small, x, 1, z1);
    polka_rff_map(&adopted, x, 1, z2);
    assert_memory_equal(z1, z2, sizeof z1);
    polka_rff bad = {0};
    assert_int_equal(polka_rff_draw(8, 3, 0.0, 1, &bad), POLKA_ERR_ARG);
    assert_non_null(strstr(polka_error_message(), "learner.sigma"));
    assert_int_equal(polka_rff_draw(0, 3, 1.0, 1, &bad), POLKA_ERR_ARG);
    small.omega[4] = NAN;
    assert_int_equal(polka_rff_adopt(8, 3, 0.5, 42, small.omega, small.phase, &bad), POLKA_ERR_ARG);
    assert_null(bad.omega);
    polka_rff *all[] = {&small, &large, &again, &other, &adopted};
    for (size_t k = 0; k < 5; k++) polka_rff_free(all[k]);
}

/* ------------------------------------------------------------------------------ model */

/*
 * The loss along an output at |f_c| ≤ big (loss.c; exp, log and log1p within 1 ulp, 2u):
 * |∂ℓ| and Σ_c|∂_cℓ|, |∂²ℓ| and |∂³ℓ| (logistic: σ(1 − σ) ≤ 1/4, |σ(1 − σ)(1 − 2σ)| ≤ 1/(6√3),
 * the same for log Σ e^{f_c} along f_c; square: 1 and 0), the Lipschitz constant of ∂_cℓ in
 * max-norm, |ℓ|, and the absolute errors of polka_loss_eval and of its gradient.
 */
typedef struct {
    double d1, d1_sum, d2, d3, lip, lmax, noise, grad_err;
} loss_bounds;

static loss_bounds bounds_of(const polka_loss *loss, size_t c, double y, double big) {
    const double logistic_d3 = 1.0 / (6.0 * sqrt(3.0));
    switch (loss->kind) {
    case POLKA_LOSS_SQUARE: { /* r²/2, r = f − y; the gradient r */
        double r = big + fabs(y);
        return (loss_bounds){r, r, 1, 0, 1, r * r / 2, test_gamma(4) * r * r / 2, TEST_UNIT * r};
    }
    case POLKA_LOSS_LOGISTIC: /* z + log1p(e^{−z}) or log1p(e^z); −y/(1 + e^{yf}) */
        return (loss_bounds){1,
                             1,
                             0.25,
                             logistic_d3,
                             0.25,
                             big + log(2.0),
                             test_gamma(4) * (1 + big),
                             test_gamma(4)};
    case POLKA_LOSS_MULTI_LOGISTIC: { /* Σ e^{f_k − top} within θ, its log, two additions */
        double theta = test_gamma((double)c + 1) + TEST_UNIT * 2 * big;
        return (loss_bounds){1,
                             2,
                             0.25,
                             logistic_d3,
                             0.5,
                             2 * big + log((double)c),
                             theta / (1 - theta) + test_gamma(3) * (2 * big + log((double)c)),
                             theta / (1 - theta) + test_gamma(2)};
    }
    default:
        fail_msg("no bounds for the loss %s", polka_loss_kind_name(loss->kind));
    }
    return (loss_bounds){0};
}

/*
 * F(θ) = (1/n)Σ_i ℓ(z_iᵀθ, y_i) + λ‖θ‖²/2 along θ_dc, |t| ≤ h ≤ 1/4: |∂ʲF| ≤
 * (1/n)Σ_i |∂ʲℓ|·|z_id|ʲ (+ λ(|θ_dc| + h) for j = 1). polka_rff_objective is within η: f_i by
 * dgemm within γ_D·Σ_d|z_id θ_dc| (moving ℓ by Σ_c|∂_cℓ| times that), the loss's noise, the
 * mean γ_{n+1}|ℓ|, λ‖θ‖²/2 by ddot γ_{DC+2}; θ_dc ± h round to within u(|θ_dc| + h), times
 * |∂F|, and the difference's own sums. h balances truncation and rounding (h³ = 3η/∂³F; a
 * quadratic has none: h = 2⁻¹⁰), test_fd1_bound. The gradient λθ + Zᵀ∇ℓ/n rounds within
 * γ_{n+2}((1/n)Σ_i|z_id||∂ℓ| + λ|θ_dc|), and each ∇ℓ moves with f_i (its Lipschitz constant)
 * and rounds (the loss's own).
 */
static void check_gradient(polka_rff_problem problem, size_t classes) {
    agents_data *data = calloc(1, sizeof *data);
    assert_non_null(data);
    fill_agents(data, classes, 21);
    size_t len = FEATURES * problem.outputs, c = problem.outputs;
    const polka_rff_batch *batch = &data->batch[1];
    double theta[FEATURES * 3], grad[FEATURES * 3], n = (double)batch->n;
    fill_uniform(theta, len, -0.5, 0.5, 22);
    CHECK_OK(polka_rff_gradient(&problem, batch, theta, grad, NULL));
    double theta2 = 0.0, y_max = 0.0;
    for (size_t j = 0; j < len; j++) theta2 += (fabs(theta[j]) + 0.25) * (fabs(theta[j]) + 0.25);
    for (size_t i = 0; i < batch->n; i++) y_max = fmax(y_max, fabs(batch->y[i]));
    for (size_t k = 0; k < len; k++) {
        size_t d = k / c;
        double saved = theta[k], up, down;
        /* |f_ic| ≤ big and Σ_d|z_id θ_dc| ≤ zt while θ_k moves by up to 1/4; the means of
         * |z_id|, z_id² and |z_id|³ */
        double big = 0.0, zt = 0.0, z1 = 0.0, z2 = 0.0, z3 = 0.0;
        for (size_t i = 0; i < batch->n; i++) {
            const double *z = batch->z + i * FEATURES;
            for (size_t cc = 0; cc < c; cc++) {
                double f = 0.0, a = 0.25 * fabs(z[d]);
                for (size_t dd = 0; dd < FEATURES; dd++) {
                    f += z[dd] * theta[dd * c + cc];
                    a += fabs(z[dd] * theta[dd * c + cc]);
                }
                big = fmax(big, fabs(f) + 0.25 * fabs(z[d]));
                zt = fmax(zt, a);
            }
            z1 += fabs(z[d]) / n;
            z2 += z[d] * z[d] / n;
            z3 += pow(fabs(z[d]), 3) / n;
        }
        loss_bounds lb = bounds_of(&problem.loss, c, classes ? 0.0 : y_max, big);
        double d1 = lb.d1 * z1 + problem.lambda * (fabs(saved) + 0.25), d3 = lb.d3 * z3;
        double eta = lb.d1_sum * test_gamma(FEATURES) * zt + lb.noise +
                     test_gamma(n + 1) * lb.lmax +
                     test_gamma((double)len + 2) * problem.lambda * theta2 / 2;
        double h = d3 > 0 ? cbrt(3 * eta / d3) : 0x1p-10;
        assert_true(h <= 0.25);
        theta[k] = saved + h;
        CHECK_OK(polka_rff_objective(&problem, batch, theta, &up));
        theta[k] = saved - h;
        CHECK_OK(polka_rff_objective(&problem, batch, theta, &down));
        theta[k] = saved;
        double fd = (up - down) / (2 * h);
        double noise =
            eta + d1 * TEST_UNIT * (fabs(saved) + h) + TEST_UNIT * (fabs(up) + fabs(down)) / 2;
        double grad_err = test_gamma(n + 2) * (lb.d1 * z1 + problem.lambda * fabs(saved)) +
                          z1 * (lb.lip * test_gamma(FEATURES) * zt + lb.grad_err);
        double tol = test_fd1_bound(h, d3, noise) + test_gamma(2) * fabs(fd) + grad_err;
        assert_true(fabs(fd - grad[k]) <= tol);
    }
    polka_rff_free(&data->rff);
    free(data);
}

/* G = Zᵀ∇ℓ/n + λθ is the derivative of f_i (central differences) for smooth losses. */
static void test_gradient_matches_finite_differences(void **state) {
    (void)state;
    polka_rff_problem square = square_problem();
    square.lambda = 0.3;
    check_gradient(square, 0);
    check_gradient((polka_rff_problem){.features = FEATURES,
                                       .outputs = 3,
                                       .loss = {.kind = POLKA_LOSS_MULTI_LOGISTIC},
                                       .lambda = 0.05},
                   3);
    check_gradient((polka_rff_problem){.features = FEATURES,
                                       .outputs = 1,
                                       .loss = {.kind = POLKA_LOSS_LOGISTIC},
                                       .lambda = 0.0},
                   2);
}

/*
 * The centralized ridge solution zeroes Σ_i ∇f_i, and is refused for other losses. θ̂ solves
 * (Ĝ + AλI + ΔA)θ̂ = r̂ with Ĝ = Σ_a Z_aᵀZ_a/n_a and r̂ = Σ_a Z_aᵀy_a/n_a formed within
 * γ_{n+A+2} of Σ_a (1/n_a)|Z_a|ᵀ|Z_a| and (1/n_a)|Z_a|ᵀ|y_a| (dgemm, dgemv with β = 1
 * [Higham02 §3.5]), the shift within u, and |ΔA| ≤ γ_{3D+1}|R̂ᵀ||R̂| (Thm 10.4), a PSD Gram
 * matrix of trace ≤ tr Â/(1 − γ_{D+1}) (Thm 10.3): the exact Σ_a ∇f_a(θ̂) is within
 * γ_{n+A+2}Q_k + u·Â_kk|θ_k| + γ_{3D+1}tr Â‖θ̂‖/(1 − γ_{D+1}), Q = Σ_a (1/n_a)|Z_a|ᵀ(|Z_a||θ̂| +
 * |y_a|). Each polka_rff_gradient rounds within γ_{D+n+3}(1/n)(|Z|ᵀ(|Z||θ̂| + |y|))_k +
 * γ_{n+2}λ|θ_k|, and this sum adds γ_{A−1}Σ_a|∇_k|.
 */
static void test_central_ridge_is_the_minimiser(void **state) {
    (void)state;
    agents_data *data = calloc(1, sizeof *data);
    assert_non_null(data);
    fill_agents(data, 0, 31);
    polka_rff_problem problem = square_problem();
    double star[FEATURES], total[FEATURES] = {0}, grad[FEATURES], q[FEATURES] = {0};
    double grads[FEATURES] = {0}, diag[FEATURES] = {0}, trace = 0.0, norm = 0.0;
    CHECK_OK(polka_rff_central_ridge(&problem, data->batch, AGENTS, star));
    for (size_t a = 0; a < AGENTS; a++) {
        const polka_rff_batch *batch = &data->batch[a];
        CHECK_OK(polka_rff_gradient(&problem, batch, star, grad, NULL));
        for (size_t k = 0; k < FEATURES; k++) {
            total[k] += grad[k];
            grads[k] += fabs(grad[k]);
        }
        for (size_t i = 0; i < batch->n; i++) {
            const double *z = batch->z + i * FEATURES;
            double zt = fabs(batch->y[i]);
            for (size_t k = 0; k < FEATURES; k++) zt += fabs(z[k] * star[k]);
            for (size_t k = 0; k < FEATURES; k++) {
                q[k] += fabs(z[k]) * zt / (double)batch->n;
                diag[k] += z[k] * z[k] / (double)batch->n;
            }
        }
    }
    for (size_t k = 0; k < FEATURES; k++) {
        diag[k] += AGENTS * problem.lambda;
        trace += diag[k] * (1 + TEST_UNIT);
        norm += star[k] * star[k];
    }
    double g_chol = test_gamma(3 * FEATURES + 1) / (1 - test_gamma(FEATURES + 1));
    for (size_t k = 0; k < FEATURES; k++) {
        double tol = test_gamma(2 * PER_AGENT + AGENTS + FEATURES + 5) * q[k] +
                     (TEST_UNIT * diag[k] + test_gamma(PER_AGENT + 2) * AGENTS * problem.lambda) *
                         fabs(star[k]) +
                     g_chol * trace * sqrt(norm) + test_gamma(AGENTS) * grads[k];
        assert_true(fabs(total[k]) <= tol);
    }
    problem.loss.kind = POLKA_LOSS_HUBER;
    assert_int_equal(polka_rff_central_ridge(&problem, data->batch, AGENTS, star), POLKA_ERR_ARG);
    assert_non_null(strstr(polka_error_message(), "square loss"));
    polka_rff_free(&data->rff);
    free(data);
}

/* ---------------------------------------------------------------------------- methods */

/* Runs ADMM rounds until every agent is within 1e-6 (relative) of target or max_rounds;
 * returns the rounds it took (max_rounds + 1: never) and the transmissions in *sent. */
static size_t rounds_to_converge(const agents_data *data, const ring_graph *ring,
                                 const polka_rff_admm *admm, const double *target,
                                 size_t max_rounds, uint64_t *sent) {
    polka_rff_problem problem = square_problem();
    polka_rff_net_ref net;
    CHECK_OK(polka_rff_net_ref_create(&ring->graph, FEATURES, &net));
    size_t rounds = max_rounds + 1;
    for (size_t k = 1; k <= max_rounds && rounds > max_rounds; k++) {
        CHECK_OK(
            polka_rff_net_ref_admm_round(&net, &ring->graph, &problem, data->batch, admm, NULL));
        if (polka_rff_net_ref_max_distance(&net, target) <= 1e-6) rounds = k;
    }
    *sent = net.transmissions;
    polka_rff_net_ref_free(&net);
    return rounds;
}

/* The fixed problem of the method tests: data, ring, θ*, and each agent's exact primal. */
typedef struct {
    agents_data data;
    ring_graph ring;
    double star[FEATURES];
    polka_dkla_exact exact[AGENTS];
} admm_setup;

static admm_setup *setup_admm(void) {
    admm_setup *s = calloc(1, sizeof *s);
    assert_non_null(s);
    fill_agents(&s->data, 0, 41);
    make_ring(&s->ring);
    polka_rff_problem problem = square_problem();
    CHECK_OK(polka_rff_central_ridge(&problem, s->data.batch, AGENTS, s->star));
    for (size_t a = 0; a < AGENTS; a++)
        CHECK_OK(polka_dkla_exact_init(&problem, &s->data.batch[a], &s->exact[a]));
    return s;
}

static void free_admm(admm_setup *s) {
    for (size_t a = 0; a < AGENTS; a++) polka_dkla_exact_free(&s->exact[a]);
    polka_rff_free(&s->data.rff);
    free(s);
}

/* DKLA with the exact primal reaches the centralized solution (relative distance ≤ 1e-6 at
 * every agent); COKE reaches it too with fewer transmissions. */
static void test_dkla_and_coke_reach_the_central_solution(void **state) {
    (void)state;
    admm_setup *s = setup_admm();
    polka_rff_admm dkla = {.rho = 0.01, .exact = s->exact};
    uint64_t dkla_sent, coke_sent;
    size_t dkla_rounds = rounds_to_converge(&s->data, &s->ring, &dkla, s->star, 3000, &dkla_sent);
    polka_rff_admm coke = {.rho = 0.01, .alpha = 0.5, .mu = 0.98, .exact = s->exact};
    size_t coke_rounds = rounds_to_converge(&s->data, &s->ring, &coke, s->star, 3000, &coke_sent);
    print_message("dkla: %zu rounds, %llu transmissions; coke: %zu rounds, %llu transmissions\n",
                  dkla_rounds, (unsigned long long)dkla_sent, coke_rounds,
                  (unsigned long long)coke_sent);
    assert_true(dkla_rounds <= 3000);
    assert_true(coke_rounds <= 3000);
    assert_true(coke_sent <= 0.75 * (double)dkla_sent);
    free_admm(s);
}

/* With α = 0 COKE never censors and is DKLA bit for bit; the linearized primal with the
 * full local gradient also reaches θ*. */
static void test_coke_without_censoring_is_dkla(void **state) {
    (void)state;
    admm_setup *s = setup_admm();
    polka_rff_problem problem = square_problem();
    polka_rff_net_ref a, b;
    CHECK_OK(polka_rff_net_ref_create(&s->ring.graph, FEATURES, &a));
    CHECK_OK(polka_rff_net_ref_create(&s->ring.graph, FEATURES, &b));
    polka_rff_admm dkla = {.rho = 0.01, .eta = 1.0}, coke = {.rho = 0.01, .eta = 1.0, .mu = 0.9};
    for (size_t k = 0; k < 50; k++) {
        CHECK_OK(
            polka_rff_net_ref_admm_round(&a, &s->ring.graph, &problem, s->data.batch, &dkla, NULL));
        CHECK_OK(
            polka_rff_net_ref_admm_round(&b, &s->ring.graph, &problem, s->data.batch, &coke, NULL));
    }
    assert_memory_equal(a.theta, b.theta, AGENTS * FEATURES * sizeof(double));
    assert_int_equal(a.transmissions, AGENTS * 50);
    polka_rff_net_ref_free(&a);
    polka_rff_net_ref_free(&b);
    uint64_t sent;
    size_t rounds = rounds_to_converge(&s->data, &s->ring, &dkla, s->star, 20000, &sent);
    print_message("linearized dkla: %zu rounds\n", rounds);
    assert_true(rounds <= 20000);
    free_admm(s);
}

/* rf-diffusion (Metropolis weights) lowers Σ_i f_i(θ_i) on a 3-class logistic problem; the
 * uniform weights of a ring (row sum 2) are refused. */
static void test_rf_diffusion_decreases_the_loss(void **state) {
    (void)state;
    agents_data *data = calloc(1, sizeof *data);
    ring_graph ring;
    assert_non_null(data);
    fill_agents(data, 3, 51);
    make_ring(&ring);
    polka_rff_problem problem = {
        .features = FEATURES, .outputs = 3, .loss = {.kind = POLKA_LOSS_MULTI_LOGISTIC}};
    polka_rff_net_ref net;
    CHECK_OK(polka_rff_net_ref_create(&ring.graph, FEATURES * 3, &net));
    double before = 0.0, after = 0.0, value;
    for (size_t a = 0; a < AGENTS; a++) {
        CHECK_OK(polka_rff_objective(&problem, &data->batch[a], net.theta, &value));
        before += value;
    }
    for (size_t k = 0; k < 300; k++)
        CHECK_OK(polka_rff_net_ref_diffusion_round(&net, &ring.graph, &problem, data->batch, 1.0));
    for (size_t a = 0; a < AGENTS; a++) {
        CHECK_OK(
            polka_rff_objective(&problem, &data->batch[a], net.theta + a * FEATURES * 3, &value));
        after += value;
    }
    print_message("rf-diffusion: sum of local losses %.4f -> %.4f\n", before, after);
    assert_true(after < 0.6 * before);
    double ones[2] = {1.0, 1.0}, self;
    assert_int_equal(polka_rf_diffusion_self_weight(ones, 2, &self), POLKA_ERR_ARG);
    assert_non_null(strstr(polka_error_message(), "metropolis"));
    polka_rff_net_ref_free(&net);
    polka_rff_free(&data->rff);
    free(data);
}

/*
 * CHOCO's combine keeps the network's average whatever the copies ψ̂ lag (symmetric weights:
 * a path 0 – 1 – 2 with Metropolis weights 1/3 and 1/3), where the dense combination with
 * lagging copies does not; with exact copies (ψ̂ = ψ) and γ = 1 both are the same average.
 * CHOCO's terms t_ij = fl(a·fl(ψ̂_j − ψ̂_i)) are exactly −t_ji (the same a; rounding is odd),
 * so Σ_i θ_i is Σ_i ψ_i up to each θ_i's deg_i additions, γ_{deg}(|ψ_i| + Σ_j|t_ij|), and this
 * test's sums, γ_2 of Σ|θ_i| and of Σ|ψ_i| [Higham02 §3.1]. The dense combination rounds
 * within γ_{deg+1}(self|ψ_i| + Σ_j w|ψ̂_j|), self = fl(1 − deg/3) within u of its value.
 */
static void test_choco_combine_keeps_the_average(void **state) {
    (void)state;
    enum { N = 3, LEN = 4 };
    double psi[N][LEN], copy[N][LEN], theta[N][LEN], dense[N][LEN];
    fill_uniform(&psi[0][0], N * LEN, -1, 1, 11);
    fill_uniform(&copy[0][0], N * LEN, -1, 1, 12); /* copies far off the variables */
    const double third = 1.0 / 3.0;
    const double *of[N][2] = {{copy[1]}, {copy[0], copy[2]}, {copy[1]}};
    const double weights[N][2] = {{third}, {third, third}, {third}};
    const size_t degree[N] = {1, 2, 1};
    for (int exact = 0; exact <= 1; exact++) {
        if (exact) memcpy(copy, psi, sizeof copy);
        for (size_t i = 0; i < N; i++) {
            polka_rff_neighbours nb = {.count = degree[i], .vars = of[i], .weight = weights[i]};
            double self = 1.0 - third * (double)degree[i];
            polka_rf_choco_combine(LEN, exact ? 1.0 : 0.3, psi[i], copy[i], &nb, theta[i]);
            polka_rf_diffusion_combine(LEN, self, psi[i], &nb, dense[i]);
        }
        for (size_t k = 0; k < LEN; k++) {
            double want = psi[0][k] + psi[1][k] + psi[2][k], sums = 0.0, choco = 0.0;
            double dense_err = 0.0, err[N];
            for (size_t i = 0; i < N; i++) {
                double self = 1.0 - third * (double)degree[i], step = exact ? 1.0 : 0.3;
                double terms = fabs(psi[i][k]), dense_terms = self * fabs(psi[i][k]);
                double diffs = 0.0;
                for (size_t j = 0; j < degree[i]; j++) {
                    terms += fabs(step * third * (of[i][j][k] - copy[i][k]));
                    diffs += step * third * fabs(of[i][j][k] - copy[i][k]);
                    dense_terms += third * fabs(of[i][j][k]);
                }
                choco += test_gamma((double)degree[i]) * terms;
                dense_err +=
                    test_gamma(degree[i] + 1.0) * dense_terms + TEST_UNIT * self * fabs(psi[i][k]);
                err[i] = test_gamma(degree[i] + 2.0) * (fabs(psi[i][k]) + diffs + dense_terms) +
                         TEST_UNIT * self * fabs(psi[i][k]);
                sums += fabs(theta[i][k]) + fabs(psi[i][k]);
            }
            double sum = theta[0][k] + theta[1][k] + theta[2][k];
            assert_true(fabs(sum - want) <= choco + test_gamma(3) * sums);
            double dense_sum = dense[0][k] + dense[1][k] + dense[2][k], dense_abs = 0.0;
            for (size_t i = 0; i < N; i++) dense_abs += fabs(dense[i][k]) + fabs(psi[i][k]);
            if (exact)
                for (size_t i = 0; i < N; i++)
                    assert_true(fabs(theta[i][k] - dense[i][k]) <= err[i]);
            else /* beyond what rounding alone could do */
                assert_true(fabs(dense_sum - want) > dense_err + test_gamma(3) * dense_abs);
        }
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_choco_combine_keeps_the_average),
        cmocka_unit_test(test_features_approximate_the_gaussian_kernel),
        cmocka_unit_test(test_features_are_a_function_of_the_seed),
        cmocka_unit_test(test_gradient_matches_finite_differences),
        cmocka_unit_test(test_central_ridge_is_the_minimiser),
        cmocka_unit_test(test_dkla_and_coke_reach_the_central_solution),
        cmocka_unit_test(test_coke_without_censoring_is_dkla),
        cmocka_unit_test(test_rf_diffusion_decreases_the_loss),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
