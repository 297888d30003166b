#include "polka/kernel.h"

#include <cblas.h>
#include <math.h>
#include <stdlib.h>

#include "exp_impl.h"
#include "thin_impl.h"

static const char *const kernel_names[] = {"gaussian", "laplacian", "polynomial", "linear"};

const char *polka_kernel_kind_name(polka_kernel_kind kind) {
    return polka_name_at(kernel_names, POLKA_COUNT(kernel_names), (int)kind);
}

polka_status polka_kernel_kind_parse(const char *name, polka_kernel_kind *kind) {
    int index;
    POLKA_CALL(polka_name_find(name, kernel_names, POLKA_COUNT(kernel_names), "kernel", &index));
    *kind = (polka_kernel_kind)index;
    return POLKA_OK;
}

const char *polka_kernel_check(const polka_kernel *kernel) {
    if (kernel->kind != POLKA_KERNEL_LINEAR && !(kernel->sigma > 0))
        return "learner.sigma must be > 0 (the kernel bandwidth)";
    if (kernel->kind == POLKA_KERNEL_POLYNOMIAL && kernel->degree < 1)
        return "learner.degree must be >= 1 (the polynomial kernel degree)";
    return NULL;
}

/* The kernel as a function of the squared distance and the inner product (the radial ones as
 * polka_thin_radial evaluates them, entry for entry). */
POLKA_EXP_CLONES
static double kernel_from_parts(const polka_kernel *kernel, double sqdist, double dot) {
    switch (kernel->kind) {
    case POLKA_KERNEL_GAUSSIAN:
        return polka_exp(sqdist * polka_gaussian_scale(kernel->sigma));
    case POLKA_KERNEL_LAPLACIAN:
        return polka_exp(sqrt(sqdist) * polka_laplacian_scale(kernel->sigma));
    case POLKA_KERNEL_POLYNOMIAL:
        return pow(dot / (kernel->sigma * kernel->sigma) + kernel->coef0, kernel->degree);
    case POLKA_KERNEL_LINEAR:
        return dot;
    }
    return NAN;
}

double polka_kernel_eval(const polka_kernel *kernel, const double *x, const double *y, size_t p) {
    double sqdist = 0.0, dot = 0.0;
    for (size_t k = 0; k < p; k++) {
        double diff = x[k] - y[k];
        sqdist += diff * diff;
        dot += x[k] * y[k];
    }
    return kernel_from_parts(kernel, sqdist, dot);
}

void polka_sqnorms(const double *x, size_t n, size_t p, double *out) {
    for (size_t i = 0; i < n; i++) out[i] = cblas_ddot((int)p, x + i * p, 1, x + i * p, 1);
}

polka_status polka_kernel_block(const polka_kernel *kernel, const double *x, size_t n,
                                const double *d, const double *d_sqnorm, size_t m, size_t p,
                                double *k_out) {
    if (n == 0 || m == 0) return POLKA_OK;
    /* k_out <- X Dᵀ (n×m), the inner products. */
    if (n <= POLKA_THIN_ROWS)
        polka_thin_dots(x, n, d, m, p, k_out);
    else
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)n, (int)m, (int)p, 1.0, x, (int)p,
                    d, (int)p, 0.0, k_out, (int)m);
    if (kernel->kind == POLKA_KERNEL_LINEAR) return POLKA_OK;
    int radial = kernel->kind != POLKA_KERNEL_POLYNOMIAL;
    double *dn = NULL;
    if (radial && d_sqnorm == NULL) {
        dn = malloc(m * sizeof *dn);
        POLKA_CHECK_ALLOC(dn);
        polka_sqnorms(d, m, p, dn);
        d_sqnorm = dn;
    }
    for (size_t i = 0; i < n; i++) {
        double *row = k_out + i * m;
        if (radial) {
            double xn = cblas_ddot((int)p, x + i * p, 1, x + i * p, 1);
            polka_thin_radial(row, m, xn, d_sqnorm, kernel->kind == POLKA_KERNEL_LAPLACIAN,
                              kernel->sigma);
            continue;
        }
        for (size_t j = 0; j < m; j++) row[j] = kernel_from_parts(kernel, 0.0, row[j]);
    }
    free(dn);
    return POLKA_OK;
}

void polka_kernel_block_ref(const polka_kernel *kernel, const double *x, size_t n, const double *d,
                            size_t m, size_t p, double *k_out) {
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < m; j++)
            k_out[i * m + j] = polka_kernel_eval(kernel, x + i * p, d + j * p, p);
}
