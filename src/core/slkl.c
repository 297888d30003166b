/*
 * SLKL: stochastic coordinate Newton descent on the weights of a conic combination of
 * rank-1 Nyström kernels ([MPARG11], Algorithm 2). The maths is in include/polka/slkl.h.
 */
#include "polka/slkl.h"

#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "polka/rng.h"
#include "polka/stop.h"

/* Streams under params.seed: the candidate subset S and the coordinate draws. */
enum { STREAM_CANDIDATES = 1, STREAM_COORDS = 2 };

#define NOT_ACTIVE ((size_t)-1)

struct polka_slkl_s {
    polka_slkl_params params;
    size_t n, p, big_m; /* data size, dimension, M = |S| */
    size_t window, max_iter;
    double shift; /* Λ = nλ */
    double yy;    /* ‖y‖² = F(0) */
    size_t *cand; /* M training indices */
    double *xc;   /* M×p candidate points */
    double *diag; /* k(x_m, x_m) */
    double *cols; /* n×M, column m is c_m */
    double *y;    /* n targets (for the oracle) */
    double *q;    /* M×M, CᵀC over all candidates */
    double *z;    /* M, Cᵀy */
    double *mu;   /* M */
    size_t m0;    /* active kernels */
    size_t *act;  /* m0 candidate indices of the active kernels */
    size_t *pos;  /* M: position in act, or NOT_ACTIVE */
    double *zact; /* m0: z over the active kernels */
    double *g;    /* G = (D⁻¹ + CᵀC/Λ)⁻¹ over the active kernels, m0×m0, leading dim M */
    double *w;    /* scratch M: CᵀC[act, m], or a column of G */
    double *gw;   /* scratch M: G w */
    double f;     /* F(μ) */
    double *hist; /* ring of window + 1 values of F */
    size_t iter, changes, safeguarded, refreshes;
    polka_rng rng;
};

polka_slkl_params polka_slkl_defaults(void) {
    return (polka_slkl_params){
        .kernel = {.kind = POLKA_KERNEL_GAUSSIAN, .sigma = 1.0},
        .lambda = 1e-3,
        .nu = 0.01,
        .tol = 1e-4,
        .refresh = 500,
        .step = POLKA_SLKL_NEWTON,
        .seed = 1,
    };
}

const char *polka_slkl_check(const polka_slkl_params *params) {
    const char *why = polka_kernel_check(&params->kernel);
    if (why != NULL) return why;
    if (!(params->lambda > 0)) return "slkl.lambda must be > 0";
    if (!(params->nu > 0)) return "slkl.nu must be > 0";
    if (!(params->tol >= 0)) return "slkl.tol must be >= 0";
    if (params->step != POLKA_SLKL_NEWTON && params->step != POLKA_SLKL_EXACT)
        return "slkl.step must be newton or exact";
    return NULL;
}

int polka_slkl_converged(double f_old, double f_new, double tol) {
    return f_old - f_new < tol * f_old;
}

double polka_nystrom_rank1(const polka_kernel *kernel, const double *x, const double *xprime,
                           const double *xi, size_t p) {
    return polka_kernel_eval(kernel, x, xi, p) * polka_kernel_eval(kernel, xi, xprime, p) /
           polka_kernel_eval(kernel, xi, xi, p);
}

/* ----------------------------------------------------------------------------- set-up */

/* S: the first M entries of a partial Fisher–Yates shuffle of 0..n−1. */
static polka_status draw_candidates(polka_slkl *s) {
    size_t *perm = malloc(s->n * sizeof *perm);
    POLKA_CHECK_ALLOC(perm);
    for (size_t i = 0; i < s->n; i++) perm[i] = i;
    polka_rng rng = polka_rng_start(s->params.seed, STREAM_CANDIDATES, 0);
    for (size_t i = 0; i < s->big_m; i++) {
        size_t j = i + (size_t)polka_rng_below(&rng, s->n - i);
        size_t tmp = perm[i];
        perm[i] = perm[j];
        perm[j] = tmp;
    }
    memcpy(s->cand, perm, s->big_m * sizeof *perm);
    free(perm);
    return POLKA_OK;
}

/* The columns c_m = K[:, m] / √k(x_m, x_m), CᵀC and Cᵀy. */
static polka_status build_columns(polka_slkl *s, const double *x) {
    size_t n = s->n, p = s->p, big_m = s->big_m;
    for (size_t m = 0; m < big_m; m++) {
        memcpy(s->xc + m * p, x + s->cand[m] * p, p * sizeof *s->xc);
        s->diag[m] = polka_kernel_eval(&s->params.kernel, s->xc + m * p, s->xc + m * p, p);
        POLKA_CHECK(s->diag[m] > 0, POLKA_ERR_NUMERIC,
                    "SLKL: k(x, x) = %g at candidate %zu (training point %zu): no Nyström kernel",
                    s->diag[m], m, s->cand[m]);
    }
    POLKA_CALL(polka_kernel_block(&s->params.kernel, x, n, s->xc, NULL, big_m, p, s->cols));
    for (size_t m = 0; m < big_m; m++)
        cblas_dscal((int)n, 1.0 / sqrt(s->diag[m]), s->cols + m, (int)big_m);
    cblas_dsyrk(CblasRowMajor, CblasUpper, CblasTrans, (int)big_m, (int)n, 1.0, s->cols, (int)big_m,
                0.0, s->q, (int)big_m);
    for (size_t r = 0; r < big_m; r++)
        for (size_t c = 0; c < r; c++) s->q[r * big_m + c] = s->q[c * big_m + r];
    cblas_dgemv(CblasRowMajor, CblasTrans, (int)n, (int)big_m, 1.0, s->cols, (int)big_m, s->y, 1,
                0.0, s->z, 1);
    return POLKA_OK;
}

static polka_status alloc_state(polka_slkl *s) {
    size_t n = s->n, p = s->p, big_m = s->big_m;
    s->cand = malloc(big_m * sizeof *s->cand);
    s->xc = malloc(big_m * p * sizeof *s->xc);
    s->diag = malloc(big_m * sizeof *s->diag);
    s->cols = malloc(n * big_m * sizeof *s->cols);
    s->y = malloc(n * sizeof *s->y);
    s->q = malloc(big_m * big_m * sizeof *s->q);
    s->z = malloc(big_m * sizeof *s->z);
    s->mu = calloc(big_m, sizeof *s->mu);
    s->act = malloc(big_m * sizeof *s->act);
    s->pos = malloc(big_m * sizeof *s->pos);
    s->zact = malloc(big_m * sizeof *s->zact);
    s->g = malloc(big_m * big_m * sizeof *s->g);
    s->w = malloc(big_m * sizeof *s->w);
    s->gw = malloc(big_m * sizeof *s->gw);
    s->hist = malloc((s->window + 1) * sizeof *s->hist);
    if (!s->cand || !s->xc || !s->diag || !s->cols || !s->y || !s->q || !s->z || !s->mu ||
        !s->act || !s->pos || !s->zact || !s->g || !s->w || !s->gw || !s->hist)
        return polka_error_set(POLKA_ERR_MEM, "SLKL: out of memory for n = %zu, M = %zu", n, big_m);
    for (size_t m = 0; m < big_m; m++) s->pos[m] = NOT_ACTIVE;
    return POLKA_OK;
}

polka_status polka_slkl_create(const polka_slkl_params *params, const double *x, const double *y,
                               size_t n, size_t p, polka_slkl **out) {
    const char *why = polka_slkl_check(params);
    POLKA_CHECK(why == NULL, POLKA_ERR_ARG, "SLKL: %s", why);
    POLKA_CHECK(n > 0 && p > 0, POLKA_ERR_ARG, "SLKL: empty data (n = %zu, p = %zu)", n, p);
    POLKA_CHECK(params->candidates <= n, POLKA_ERR_ARG,
                "SLKL: %zu candidates asked from %zu points", params->candidates, n);
    polka_slkl *s = calloc(1, sizeof *s);
    POLKA_CHECK_ALLOC(s);
    s->params = *params;
    s->n = n;
    s->p = p;
    s->big_m = params->candidates ? params->candidates : n;
    s->window = params->window ? params->window : s->big_m;
    s->max_iter = params->max_iter ? params->max_iter : 1000 * s->big_m;
    s->shift = (double)n * params->lambda;
    s->rng = polka_rng_start(params->seed, STREAM_COORDS, 0);
    polka_status status = alloc_state(s);
    if (status == POLKA_OK) {
        memcpy(s->y, y, n * sizeof *s->y);
        s->yy = cblas_ddot((int)n, y, 1, y, 1);
        s->f = s->yy; /* μ⁰ = 0: F = yᵀ(I + 0)⁻¹y */
        s->hist[0] = s->f;
        status = draw_candidates(s);
    }
    if (status == POLKA_OK) status = build_columns(s, x);
    if (status != POLKA_OK) {
        polka_slkl_free(&s);
        return status;
    }
    *out = s;
    return POLKA_OK;
}

void polka_slkl_free(polka_slkl **slkl) {
    if (slkl == NULL || *slkl == NULL) return;
    polka_slkl *s = *slkl;
    free(s->cand);
    free(s->xc);
    free(s->diag);
    free(s->cols);
    free(s->y);
    free(s->q);
    free(s->z);
    free(s->mu);
    free(s->act);
    free(s->pos);
    free(s->zact);
    free(s->g);
    free(s->w);
    free(s->gw);
    free(s->hist);
    free(s);
    *slkl = NULL;
}

/* ------------------------------------------------------------------- the coordinate step */

/*
 * a = yᵀR c_m and b = c_mᵀR c_m with R = I/Λ − C G Cᵀ/Λ² (eq. 22), from CᵀC and Cᵀy only:
 * w = Cᵀc_m, gw = G w; O(m0²).
 */
static void coord_ab(const polka_slkl *s, size_t m, double *w, double *gw, double *a, double *b) {
    size_t m0 = s->m0, ld = s->big_m;
    const double *qrow = s->q + m * ld;
    for (size_t j = 0; j < m0; j++) w[j] = qrow[s->act[j]];
    double zgw = 0.0, wgw = 0.0;
    if (m0 > 0) {
        cblas_dsymv(CblasRowMajor, CblasUpper, (int)m0, 1.0, s->g, (int)ld, w, 1, 0.0, gw, 1);
        zgw = cblas_ddot((int)m0, s->zact, 1, gw, 1);
        wgw = cblas_ddot((int)m0, w, 1, gw, 1);
    }
    double lam = s->shift;
    *a = s->z[m] / lam - zgw / (lam * lam);
    *b = fmax(0.0, qrow[m] / lam - wgw / (lam * lam)); /* R is PD: b < 0 is rounding */
}

/* F(μ + t e_m) − F(μ) = −Λa²t/(1 + tb) + νt (Sherman–Morrison along the coordinate). */
static double step_change(double lam, double nu, double a, double b, double t) {
    return -lam * a * a * t / (1.0 + t * b) + nu * t;
}

/* The minimiser over t ≥ −μ of that convex function: (1 + tb)² = Λa²/ν. */
static double exact_step(double lam, double nu, double a, double b, double mu) {
    double la2 = lam * a * a;
    if (!(b > 0)) return la2 > nu ? 0.0 : -mu; /* b = 0 only when c_m = 0 (then a = 0) */
    double t = (sqrt(la2 / nu) - 1.0) / b;
    return t < -mu ? -mu : t;
}

/* The Newton step of eq. 19 with the curvature 2Λa²b of eq. 21, safeguarded (slkl.h). */
static double choose_step(const polka_slkl *s, double a, double b, double mu, double d1, double d2,
                          int *safeguarded) {
    double lam = s->shift, nu = s->params.nu;
    *safeguarded = 0;
    if (s->params.step == POLKA_SLKL_EXACT) return exact_step(lam, nu, a, b, mu);
    double mu_new = d2 > 0 ? fmax(0.0, mu - d1 / d2) : 0.0;
    double t = mu_new - mu;
    if (t == 0.0 || step_change(lam, nu, a, b, t) <= 0.0) return t;
    *safeguarded = 1;
    t = exact_step(lam, nu, a, b, mu);
    return step_change(lam, nu, a, b, t) <= 0.0 ? t : 0.0;
}

/* G ← G − coef·g gᵀ with g a copy of G's column j (eqs. 25–26). */
static void rank1_column(polka_slkl *s, size_t j, double coef) {
    size_t m0 = s->m0, ld = s->big_m;
    for (size_t i = 0; i < m0; i++) s->w[i] = s->g[i * ld + j];
    cblas_dger(CblasRowMajor, (int)m0, (int)m0, -coef, s->w, 1, s->w, 1, s->g, (int)ld);
}

/* Case 3 (eq. 26): drops active kernel j, moving the last one into its place. */
static void deactivate(polka_slkl *s, size_t j) {
    size_t ld = s->big_m, last = s->m0 - 1;
    rank1_column(s, j, 1.0 / s->g[j * ld + j]);
    if (j != last) {
        for (size_t i = 0; i < s->m0; i++) s->g[j * ld + i] = s->g[last * ld + i];
        for (size_t i = 0; i < s->m0; i++) s->g[i * ld + j] = s->g[i * ld + last];
        s->act[j] = s->act[last];
        s->zact[j] = s->zact[last];
        s->pos[s->act[j]] = j;
    }
    s->m0--;
}

/* Case 4 (eq. 27): borders G with candidate m; s->gw holds G Cᵀc_m, b = c_mᵀR c_m. */
static void activate(polka_slkl *s, size_t m, double mu_new, double b) {
    size_t m0 = s->m0, ld = s->big_m;
    double sc = 1.0 / (1.0 / mu_new + b);
    for (size_t i = 0; i < m0; i++) s->w[i] = -sc / s->shift * s->gw[i]; /* v */
    if (m0 > 0)
        cblas_dger(CblasRowMajor, (int)m0, (int)m0, 1.0 / sc, s->w, 1, s->w, 1, s->g, (int)ld);
    for (size_t i = 0; i < m0; i++) s->g[m0 * ld + i] = s->g[i * ld + m0] = s->w[i];
    s->g[m0 * ld + m0] = sc;
    s->act[m0] = m;
    s->zact[m0] = s->z[m];
    s->pos[m] = m0;
    s->m0++;
}

/* Applies μ_m: old → new to G and the active set (cases 1–4, eqs. 24–27). */
static void apply_change(polka_slkl *s, size_t m, double mu_old, double mu_new, double b) {
    size_t j = s->pos[m];
    if (mu_old > 0 && mu_new > 0) {
        double delta = 1.0 / mu_new - 1.0 / mu_old; /* case 2, eq. 25 */
        rank1_column(s, j, delta / (1.0 + delta * s->g[j * s->big_m + j]));
    } else if (mu_old > 0) {
        deactivate(s, j);
        s->pos[m] = NOT_ACTIVE;
    } else if (mu_new > 0) {
        activate(s, m, mu_new, b);
    }
    s->mu[m] = mu_new;
}

/* F = ‖y‖² − zᵀG z/Λ + νΣμ (eqs. 14 and 22), from the current G. */
static double objective_from_g(const polka_slkl *s) {
    size_t m0 = s->m0;
    double quad = 0.0, sum = 0.0;
    if (m0 > 0) {
        cblas_dsymv(CblasRowMajor, CblasUpper, (int)m0, 1.0, s->g, (int)s->big_m, s->zact, 1, 0.0,
                    s->gw, 1);
        quad = cblas_ddot((int)m0, s->zact, 1, s->gw, 1);
    }
    for (size_t j = 0; j < m0; j++) sum += s->mu[s->act[j]];
    return s->yy - quad / s->shift + s->params.nu * sum;
}

/* H = D⁻¹ + C_AᵀC_A/Λ over the active kernels into h (leading dimension ld). */
static void g_inverse(const polka_slkl *s, double *h, size_t ld) {
    for (size_t r = 0; r < s->m0; r++) {
        const double *qrow = s->q + s->act[r] * s->big_m;
        for (size_t c = 0; c < s->m0; c++) h[r * ld + c] = qrow[s->act[c]] / s->shift;
        h[r * ld + r] += 1.0 / s->mu[s->act[r]];
    }
}

/* Rebuilds G from a fresh Cholesky of G⁻¹ (eq. 23) and F from it. */
static polka_status refresh(polka_slkl *s) {
    size_t m0 = s->m0, ld = s->big_m;
    s->changes = 0;
    if (m0 == 0) return POLKA_OK;
    g_inverse(s, s->g, ld);
    lapack_int info = LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'U', (lapack_int)m0, s->g, (lapack_int)ld);
    POLKA_CHECK(info == 0, POLKA_ERR_NUMERIC, "SLKL: Cholesky of G^-1 failed (dpotrf %d, m0 = %zu)",
                (int)info, m0);
    info = LAPACKE_dpotri(LAPACK_ROW_MAJOR, 'U', (lapack_int)m0, s->g, (lapack_int)ld);
    POLKA_CHECK(info == 0, POLKA_ERR_NUMERIC, "SLKL: inverse of G^-1 failed (dpotri %d, m0 = %zu)",
                (int)info, m0);
    for (size_t r = 0; r < m0; r++)
        for (size_t c = 0; c < r; c++) s->g[r * ld + c] = s->g[c * ld + r];
    s->f = objective_from_g(s);
    s->refreshes++;
    return POLKA_OK;
}

polka_status polka_slkl_iterate(polka_slkl *s, polka_slkl_update *update) {
    size_t m = (size_t)polka_rng_below(&s->rng, s->big_m);
    double a, b;
    coord_ab(s, m, s->w, s->gw, &a, &b);
    double lam = s->shift, la2 = lam * a * a;
    double d1 = s->params.nu - la2, d2 = 2.0 * la2 * b; /* eqs. 20–21 */
    double mu_old = s->mu[m], f_old = s->f;
    int safeguarded = 0;
    double t = choose_step(s, a, b, mu_old, d1, d2, &safeguarded);
    double mu_new = t <= -mu_old ? 0.0 : mu_old + t;
    if (mu_new != mu_old) {
        s->f += step_change(lam, s->params.nu, a, b, mu_new - mu_old);
        apply_change(s, m, mu_old, mu_new, b);
        s->changes++;
        if (s->params.refresh > 0 && s->changes >= s->params.refresh) POLKA_CALL(refresh(s));
    }
    s->safeguarded += (size_t)safeguarded;
    s->iter++;
    s->hist[s->iter % (s->window + 1)] = s->f;
    if (update != NULL)
        *update = (polka_slkl_update){.coord = m,
                                      .mu_old = mu_old,
                                      .mu_new = mu_new,
                                      .d1 = d1,
                                      .d2 = d2,
                                      .f_old = f_old,
                                      .f_new = s->f,
                                      .safeguarded = safeguarded};
    return POLKA_OK;
}

polka_status polka_slkl_run(polka_slkl *s, polka_slkl_stats *stats) {
    return polka_slkl_run_for(s, s->max_iter, stats);
}

polka_status polka_slkl_run_for(polka_slkl *s, size_t max_iter, polka_slkl_stats *stats) {
    size_t first = s->iter, safe0 = s->safeguarded, refresh0 = s->refreshes;
    int converged = 0;
    while (!converged && s->iter - first < max_iter) {
        POLKA_CALL(polka_stop_check("SLKL's coordinate updates"));
        POLKA_CALL(polka_slkl_iterate(s, NULL));
        if (s->iter >= s->window) {
            double f_then = s->hist[(s->iter - s->window) % (s->window + 1)];
            converged = polka_slkl_converged(f_then, s->f, s->params.tol);
        }
    }
    if (stats != NULL)
        *stats = (polka_slkl_stats){.iterations = s->iter - first,
                                    .active = s->m0,
                                    .objective = s->f,
                                    .converged = converged,
                                    .safeguarded = s->safeguarded - safe0,
                                    .refreshes = s->refreshes - refresh0};
    return POLKA_OK;
}

/* ------------------------------------------------------------------------- the results */

polka_status polka_slkl_model(const polka_slkl *s, polka_model **out) {
    size_t m0 = s->m0, p = s->p;
    polka_model *model = NULL;
    POLKA_CALL(polka_model_create(&s->params.kernel, p, 1, &model));
    double *h = malloc((m0 ? m0 * m0 : 1) * sizeof *h), *u = malloc((m0 ? m0 : 1) * sizeof *u);
    double *d = malloc((m0 ? m0 * p : 1) * sizeof *d);
    polka_status status = POLKA_OK;
    if (h == NULL || u == NULL || d == NULL)
        status = polka_error_set(POLKA_ERR_MEM, "SLKL: out of memory for the model");
    if (status == POLKA_OK && m0 > 0) {
        /* u = G z from a fresh factorisation of G⁻¹; β_j = u_j / (Λ √k(x_j, x_j)) (eq. 17) */
        g_inverse(s, h, m0);
        memcpy(u, s->zact, m0 * sizeof *u);
        lapack_int info =
            LAPACKE_dposv(LAPACK_ROW_MAJOR, 'U', (lapack_int)m0, 1, h, (lapack_int)m0, u, 1);
        if (info != 0)
            status = polka_error_set(POLKA_ERR_NUMERIC,
                                     "SLKL: Cholesky of G^-1 failed (dposv %d, m0 = %zu)",
                                     (int)info, m0);
        for (size_t j = 0; j < m0 && status == POLKA_OK; j++) {
            size_t m = s->act[j];
            u[j] /= s->shift * sqrt(s->diag[m]);
            memcpy(d + j * p, s->xc + m * p, p * sizeof *d);
        }
        if (status == POLKA_OK) status = polka_model_append(model, d, m0, u);
    }
    free(h);
    free(u);
    free(d);
    if (status != POLKA_OK) {
        polka_model_free(&model);
        return status;
    }
    *out = model;
    return POLKA_OK;
}

double polka_slkl_objective(const polka_slkl *s) {
    return s->f;
}

size_t polka_slkl_active(const polka_slkl *s) {
    return s->m0;
}

size_t polka_slkl_candidates(const polka_slkl *s) {
    return s->big_m;
}

const double *polka_slkl_mu(const polka_slkl *s) {
    return s->mu;
}

const size_t *polka_slkl_candidate_index(const polka_slkl *s) {
    return s->cand;
}

polka_status polka_slkl_derivatives(const polka_slkl *s, size_t m, double *d1, double *d2) {
    POLKA_CHECK(m < s->big_m, POLKA_ERR_ARG, "SLKL: coordinate %zu of %zu", m, s->big_m);
    double *w = malloc(2 * s->big_m * sizeof *w);
    POLKA_CHECK_ALLOC(w);
    double a, b;
    coord_ab(s, m, w, w + s->big_m, &a, &b);
    free(w);
    *d1 = s->params.nu - s->shift * a * a;
    *d2 = 2.0 * s->shift * a * a * b;
    return POLKA_OK;
}

polka_status polka_slkl_objective_ref(const polka_slkl *s, const double *mu, double *out) {
    size_t n = s->n, big_m = s->big_m;
    double *scaled = malloc(n * big_m * sizeof *scaled), *a = malloc(n * n * sizeof *a);
    double *r = malloc(n * sizeof *r);
    polka_status status = POLKA_OK;
    if (scaled == NULL || a == NULL || r == NULL)
        status = polka_error_set(POLKA_ERR_MEM, "SLKL oracle: out of memory (n = %zu)", n);
    if (status == POLKA_OK) {
        /* A = ΛI + C diag(μ) Cᵀ, then r = A⁻¹y and F = Λ yᵀr + νΣμ (eq. 14) */
        for (size_t i = 0; i < n; i++)
            for (size_t m = 0; m < big_m; m++)
                scaled[i * big_m + m] = s->cols[i * big_m + m] * mu[m];
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)n, (int)n, (int)big_m, 1.0,
                    scaled, (int)big_m, s->cols, (int)big_m, 0.0, a, (int)n);
        for (size_t i = 0; i < n; i++) a[i * n + i] += s->shift;
        memcpy(r, s->y, n * sizeof *r);
        lapack_int info =
            LAPACKE_dposv(LAPACK_ROW_MAJOR, 'L', (lapack_int)n, 1, a, (lapack_int)n, r, 1);
        if (info != 0)
            status = polka_error_set(
                POLKA_ERR_NUMERIC, "SLKL oracle: Lambda*I + K(mu) is not PD (dposv %d)", (int)info);
    }
    if (status == POLKA_OK) {
        double sum = 0.0;
        for (size_t m = 0; m < big_m; m++) sum += mu[m];
        *out = s->shift * cblas_ddot((int)n, s->y, 1, r, 1) + s->params.nu * sum;
    }
    free(scaled);
    free(a);
    free(r);
    return status;
}
