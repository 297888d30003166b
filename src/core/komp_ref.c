/* The brute-force KOMP oracle: a pseudo-inverse per candidate (O(M⁴) per removal). */
#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model_impl.h"
#include "polka/komp.h"

/* Relative cut-off below which eigenvalues count as zero in the pseudo-inverse. */
#define PINV_CUTOFF 1e-12

/* pinv of the symmetric n×n matrix a (overwritten), into out; work holds n×n + n doubles. */
static polka_status symmetric_pinv(double *a, size_t n, double *out, double *work) {
    double *eigval = work + n * n;
    lapack_int info =
        LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'V', 'L', (lapack_int)n, a, (lapack_int)n, eigval);
    POLKA_CHECK(info == 0, POLKA_ERR_NUMERIC, "KOMP oracle: eigen-decomposition failed (%d)",
                (int)info);
    double top = fabs(eigval[n - 1]);
    /* work ← V diag(1/λ) on the kept eigenvalues; out ← work Vᵀ */
    for (size_t r = 0; r < n; r++)
        for (size_t k = 0; k < n; k++)
            work[r * n + k] = eigval[k] > PINV_CUTOFF * top ? a[r * n + k] / eigval[k] : 0.0;
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)n, (int)n, (int)n, 1.0, work, (int)n,
                a, (int)n, 0.0, out, (int)n);
    return POLKA_OK;
}

typedef struct {
    size_t m, c;                           /* original order, outputs */
    const double *k;                       /* jittered Gram of the original dictionary, m×m */
    const double *w;                       /* original weights, m×c */
    double total;                          /* ‖f̃‖² */
    double *sub, *pinv, *work, *cross, *v; /* scratch */
} oracle;

/* Projects f̃ onto the points in keep[0..n): weights into o->v, returns the squared error. */
static polka_status project(oracle *o, const size_t *keep, size_t n, double *sqerror) {
    size_t m = o->m, c = o->c;
    for (size_t r = 0; r < n; r++)
        for (size_t s = 0; s < n; s++) o->sub[r * n + s] = o->k[keep[r] * m + keep[s]];
    POLKA_CALL(symmetric_pinv(o->sub, n, o->pinv, o->work));
    /* cross = K[keep, :] W̃ (n×c), v = pinv · cross */
    for (size_t r = 0; r < n; r++)
        cblas_dgemv(CblasRowMajor, CblasTrans, (int)m, (int)c, 1.0, o->w, (int)c,
                    o->k + keep[r] * m, 1, 0.0, o->cross + r * c, 1);
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)c, (int)n, 1.0, o->pinv,
                (int)n, o->cross, (int)c, 0.0, o->v, (int)c);
    /* At the projection, ‖f̃ − f‖² = ‖f̃‖² − vᵀ K[keep, :] W̃. */
    *sqerror = o->total - cblas_ddot((int)(n * c), o->v, 1, o->cross, 1);
    return POLKA_OK;
}

static polka_status oracle_run(oracle *o, polka_model *model, double eps, polka_komp_stats *stats) {
    size_t m = o->m, c = o->c, n = m;
    size_t *keep = malloc(m * sizeof *keep), *trial = malloc(m * sizeof *trial);
    double *best_v = malloc(2 * m * c * sizeof *best_v); /* kept rows, then a parked trial */
    polka_status status = POLKA_OK;
    if (keep == NULL || trial == NULL || best_v == NULL)
        status = polka_error_set(POLKA_ERR_MEM, "out of memory");
    for (size_t r = 0; r < m && status == POLKA_OK; r++) keep[r] = r;
    memcpy(best_v, o->w, m * c * sizeof *best_v);
    double current = 0.0;
    while (status == POLKA_OK && n > 0) {
        double best_err = INFINITY;
        size_t best_j = 0;
        for (size_t j = 0; j < n && status == POLKA_OK; j++) {
            size_t t = 0;
            for (size_t r = 0; r < n; r++)
                if (r != j) trial[t++] = keep[r];
            double err = 0.0;
            if (t > 0)
                status = project(o, trial, t, &err);
            else
                err = o->total;
            if (status == POLKA_OK && err < best_err) {
                best_err = err;
                best_j = j;
                memcpy(best_v + n * c, o->v, t * c * sizeof *best_v); /* park it past n rows */
            }
        }
        if (status != POLKA_OK || best_err > eps * eps) break;
        memmove(keep + best_j, keep + best_j + 1, (n - best_j - 1) * sizeof *keep);
        n--;
        memcpy(best_v, best_v + (n + 1) * c, n * c * sizeof *best_v);
        current = best_err;
        stats->removed++;
    }
    if (status == POLKA_OK) {
        double *dict = malloc((n ? n : 1) * model->p * sizeof *dict);
        if (dict == NULL) status = polka_error_set(POLKA_ERR_MEM, "out of memory");
        for (size_t r = 0; r < n && dict; r++)
            memcpy(dict + r * model->p, model->dict + keep[r] * model->p, model->p * sizeof *dict);
        if (status == POLKA_OK) status = polka_model_assign(model, dict, best_v, n);
        free(dict);
        stats->sqerror = current;
    }
    free(keep);
    free(trial);
    free(best_v);
    return status;
}

polka_status polka_komp_compress_bruteforce(polka_model *model, double eps, double jitter,
                                            polka_komp_stats *stats) {
    polka_komp_stats local = {0};
    if (stats == NULL) stats = &local;
    *stats = (polka_komp_stats){0};
    size_t m = model->m, c = model->c;
    if (m == 0) return POLKA_OK;
    if (jitter <= 0) jitter = 1e-10;
    oracle o = {.m = m, .c = c, .w = model->weights};
    double *k = malloc(m * m * sizeof *k);
    double *w = malloc(m * c * sizeof *w);
    o.sub = malloc(m * m * sizeof *o.sub);
    o.pinv = malloc(m * m * sizeof *o.pinv);
    o.work = malloc((m * m + m) * sizeof *o.work);
    o.cross = malloc(m * c * sizeof *o.cross);
    o.v = malloc(m * c * sizeof *o.v);
    polka_status status = POLKA_ERR_MEM;
    if (k && w && o.sub && o.pinv && o.work && o.cross && o.v)
        status = polka_kernel_block(&model->kernel, model->dict, m, model->dict, model->sqnorm, m,
                                    model->p, k);
    else
        polka_error_set(status, "out of memory for the KOMP oracle at M = %zu", m);
    if (status == POLKA_OK) {
        for (size_t r = 0; r < m; r++) k[r * m + r] *= 1.0 + jitter;
        memcpy(w, model->weights, m * c * sizeof *w);
        o.k = k;
        o.w = w;
        /* ‖f̃‖² = tr(W̃ᵀ K W̃) */
        double *kw = o.cross;
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)c, (int)m, 1.0, k,
                    (int)m, w, (int)c, 0.0, kw, (int)c);
        o.total = cblas_ddot((int)(m * c), w, 1, kw, 1);
        status = oracle_run(&o, model, eps, stats);
    }
    free(k);
    free(w);
    free(o.sub);
    free(o.pinv);
    free(o.work);
    free(o.cross);
    free(o.v);
    return status;
}

polka_status polka_model_sqdistance(const polka_model *f, const polka_model *g, double *out) {
    POLKA_CHECK(f->p == g->p && f->c == g->c, POLKA_ERR_ARG, "models of different shapes");
    polka_model *diff = NULL;
    POLKA_CALL(polka_model_clone(f, &diff));
    polka_status status = polka_model_reserve(diff, f->m + g->m);
    if (status == POLKA_OK) {
        size_t first = diff->m;
        status = polka_model_append(diff, g->dict, g->m, g->weights);
        for (size_t r = first; status == POLKA_OK && r < diff->m; r++)
            for (size_t k = 0; k < diff->c; k++) diff->weights[r * diff->c + k] *= -1.0;
    }
    if (status == POLKA_OK) status = polka_model_sqnorm(diff, out);
    polka_model_free(&diff);
    return status;
}
