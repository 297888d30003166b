/* The rounding bounds of test_slkl.c: the noise of the dense oracle of SLKL's objective, the
 * conditioning of H, the drift of the tracked F (tolerances are derived: test_util.h). */
#ifndef POLKA_TEST_SLKL_BOUNDS_H
#define POLKA_TEST_SLKL_BOUNDS_H

#include <lapacke.h>
#include <stdlib.h>
#include <string.h>

#include "polka/kernel.h"
#include "polka/slkl.h"
#include "test_util.h"

/* The columns c_m = K[:, m]/√k(x_m, x_m) of the candidates (n×M, by polka_kernel_eval) and
 * q = CᵀC (M×M): the test's copy, for the bounds below. */
static void candidate_columns(const polka_kernel *kernel, const double *x, size_t n, size_t p,
                              const size_t *cand, size_t big_m, double *cols, double *q) {
    for (size_t m = 0; m < big_m; m++) {
        const double *xm = x + cand[m] * p;
        double root = sqrt(polka_kernel_eval(kernel, xm, xm, p));
        for (size_t i = 0; i < n; i++)
            cols[i * big_m + m] = polka_kernel_eval(kernel, x + i * p, xm, p) / root;
    }
    for (size_t r = 0; r < big_m; r++)
        for (size_t s = 0; s < big_m; s++) {
            double sum = 0.0;
            for (size_t i = 0; i < n; i++) sum += cols[i * big_m + r] * cols[i * big_m + s];
            q[r * big_m + s] = sum;
        }
}

/*
 * H = D⁻¹ + C_AᵀC_A/Λ over the active kernels (G = H⁻¹, slkl.c), by dsyev: returns κ₂(H);
 * with scaled, λ_min of S⁻¹HS⁻¹ (S² = diag H) in *scaled. 1 when nothing is active.
 */
static double h_kappa(const double *q, size_t big_m, const double *mu, double lam, double *scaled) {
    size_t m0 = 0, *act = malloc(big_m * sizeof *act);
    for (size_t m = 0; m < big_m; m++)
        if (mu[m] > 0) act[m0++] = m;
    double kappa = 1.0;
    if (scaled) *scaled = 1.0;
    if (m0 > 0) {
        double *h = malloc(m0 * m0 * sizeof *h), *eig = malloc(m0 * sizeof *eig);
        for (size_t r = 0; r < m0; r++)
            for (size_t s = 0; s < m0; s++)
                h[r * m0 + s] = q[act[r] * big_m + act[s]] / lam + (r == s ? 1.0 / mu[act[r]] : 0);
        double *hs = malloc(m0 * m0 * sizeof *hs);
        for (size_t r = 0; r < m0; r++)
            for (size_t s = 0; s < m0; s++)
                hs[r * m0 + s] = h[r * m0 + s] / sqrt(h[r * m0 + r] * h[s * m0 + s]);
        assert_int_equal(LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'N', 'L', m0, h, m0, eig), 0);
        kappa = eig[m0 - 1] / eig[0];
        assert_int_equal(LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'N', 'L', m0, hs, m0, eig), 0);
        if (scaled) *scaled = eig[0];
        free(h);
        free(hs);
        free(eig);
    }
    free(act);
    return kappa;
}

/*
 * The absolute error of polka_slkl_objective_ref (n points, M candidates) at a μ with
 * Σ|μ_m| = mu_abs and T = Σ|μ_m|‖c_m‖²: A = ΛI + C diag(μ)Cᵀ is formed within γ_{M+1}·C|μ|Cᵀ
 * (dgemm and the scaling [Higham02 §3.5]; a PSD matrix of trace T) and the shift's u, and
 * dposv is backward stable, |ΔA| ≤ γ_{3n+1}|R̂ᵀ||R̂| (Thm 10.4), a PSD Gram matrix of trace
 * ‖R̂‖_F² ≤ tr Â/(1 − γ_{n+1}) (Thm 10.3): A + E with ‖E‖₂ ≤ eΛ,
 * e = (γ_{M+2}(Λ + T) + γ_{4n+M+4}(nΛ + T))/Λ. A ⪰ ΛI gives ‖r‖ ≤ ‖y‖/Λ, so
 * |Λyᵀ(r̂ − r)| ≤ Λ‖E‖‖r‖‖r̂‖ ≤ e‖y‖²/(1 − e); the dot and the product γ_{n+1}‖y‖²/(1 − e);
 * νΣμ and the sum γ_{M+2}(‖y‖² + νΣ|μ|).
 */
static double objective_noise(double yy, double lam, double nu, size_t n, size_t big_m, double t,
                              double mu_abs) {
    double e = (test_gamma((double)big_m + 2) * (lam + t) +
                test_gamma(4.0 * n + big_m + 4) * ((double)n * lam + t)) /
               lam;
    return (e + test_gamma((double)n + 1)) * yy / (1 - e) +
           test_gamma((double)big_m + 2) * (yy + nu * mu_abs);
}

/* T = Σ_m |μ_m|‖c_m‖² and Σ_m |μ_m| (cn: the M squared column norms). */
static double trace_k(const double *mu, const double *cn, size_t big_m, double *mu_abs) {
    double t = 0.0;
    *mu_abs = 0.0;
    for (size_t m = 0; m < big_m; m++) {
        t += fabs(mu[m]) * cn[m];
        *mu_abs += fabs(mu[m]);
    }
    return t;
}

/*
 * The tracked F (and a, b) come from G = H⁻¹, kept by rank-one updates and refreshed by
 * Cholesky (slkl.c). To first order each value is exact for an H perturbed by γ_N relative,
 * N = 3(m0 + U) + 4 (the factorisation [Higham02 Thm 10.4], three roundings per update since
 * it), which moves zᵀGz/Λ ≤ ‖y‖² by κ(H)γ_N of it; the tracked F adds the steps since the
 * refresh, each as accurate: within κ(H)·γ_N·(‖y‖² + Σ|ΔF|). A first-order bound.
 */
static double drift_bound(double kappa, size_t m0, size_t updates, double yy, double steps) {
    return kappa * test_gamma(3.0 * (double)(m0 + updates) + 4) * (yy + steps);
}

/*
 * How far one update may raise the tracked F. A step t adds ΔF = −Λa²t/(1 + tb) + νt, ≤ 0
 * (choose_step) up to its rounding γ_5(Λa²|t|/(1 + tb) + ν|t|) and the sum's u|F|; a refresh
 * replaces the tracked F by one from the new G: both within drift_bound of F (refreshed).
 */
static double rise_bound(const polka_slkl_update *u, double nu, double refreshed) {
    double t = u->mu_new - u->mu_old, la2 = nu - u->d1, b = la2 > 0 ? u->d2 / (2 * la2) : 0;
    double step = la2 * fabs(t) / (1 + t * b) + nu * fabs(t);
    return test_gamma(5) * step + TEST_UNIT * fabs(u->f_old) + refreshed;
}

/* What a test keeps beside an SLKL run for the bounds: the columns, CᵀC, ‖c_m‖², ‖y‖². */
typedef struct {
    size_t n, big_m;
    double lam, nu, yy;
    double *cols, *q, *cn;
} slkl_bounds;

static slkl_bounds bounds_create(const polka_slkl *slkl, const polka_slkl_params *params,
                                 const polka_dataset *data) {
    slkl_bounds bd = {.n = data->n, .big_m = polka_slkl_candidates(slkl), .nu = params->nu};
    bd.lam = (double)data->n * params->lambda;
    bd.cols = malloc(bd.n * bd.big_m * sizeof *bd.cols);
    bd.q = malloc(bd.big_m * bd.big_m * sizeof *bd.q);
    bd.cn = malloc(bd.big_m * sizeof *bd.cn);
    candidate_columns(&params->kernel, data->x, bd.n, data->p, polka_slkl_candidate_index(slkl),
                      bd.big_m, bd.cols, bd.q);
    for (size_t m = 0; m < bd.big_m; m++) bd.cn[m] = bd.q[m * bd.big_m + m];
    for (size_t i = 0; i < bd.n; i++) bd.yy += data->y[i] * data->y[i];
    return bd;
}

static void bounds_free(slkl_bounds *bd) {
    free(bd->cols);
    free(bd->q);
    free(bd->cn);
}

/* objective_noise at μ, with |μ_m| allowed to grow by spread (the steps of a difference) */
static double noise_at(const slkl_bounds *bd, const double *mu, size_t m, double spread) {
    double mu_abs, t = trace_k(mu, bd->cn, bd->big_m, &mu_abs);
    t += m < bd->big_m ? spread * bd->cn[m] : 0.0;
    return objective_noise(bd->yy, bd->lam, bd->nu, bd->n, bd->big_m, t, mu_abs + spread);
}

/* The drift of the tracked F since the last refresh of G. */
typedef struct {
    size_t refresh, changes; /* the run's refresh period; μ changes since its last refresh */
    double steps, kappa;     /* Σ|ΔF| since it; the largest κ(H) seen since it */
} drift_state;

/* Follows one update (the library refreshes after every refresh-th change of μ, slkl.c):
 * returns how far it may raise the tracked F. */
static double drift_follow(drift_state *ds, const slkl_bounds *bd, const polka_slkl *slkl,
                           const polka_slkl_update *u, size_t it) {
    int changed = u->mu_new != u->mu_old;
    ds->changes += (size_t)changed;
    ds->steps += fabs(u->f_new - u->f_old);
    int refreshed = changed && ds->refresh > 0 && ds->changes >= ds->refresh;
    if (refreshed || it % 100 == 99)
        ds->kappa = fmax(ds->kappa, h_kappa(bd->q, bd->big_m, polka_slkl_mu(slkl), bd->lam, NULL));
    double allowed = 0.0;
    if (refreshed) {
        allowed =
            2 * drift_bound(ds->kappa, polka_slkl_active(slkl), ds->changes, bd->yy, ds->steps);
        ds->changes = 0;
        ds->steps = 0.0;
        ds->kappa = h_kappa(bd->q, bd->big_m, polka_slkl_mu(slkl), bd->lam, NULL);
    }
    return rise_bound(u, bd->nu, allowed);
}

#endif
