/**
 * @file kernel.h
 * @brief Reproducing kernels and the evaluation of kernel blocks.
 *
 * All matrices are dense, row-major: a set of n points in p dimensions is an n×p
 * array. A kernel is a small value type (no allocation).
 */
#ifndef POLKA_KERNEL_H
#define POLKA_KERNEL_H

#include <stddef.h>

#include "polka/error.h"

typedef enum {
    POLKA_KERNEL_GAUSSIAN,   /**< exp(-‖x−d‖² / (2σ²)) */
    POLKA_KERNEL_LAPLACIAN,  /**< exp(-‖x−d‖ / σ) */
    POLKA_KERNEL_POLYNOMIAL, /**< (x·d / σ² + coef0)^degree */
    POLKA_KERNEL_LINEAR,     /**< x·d */
} polka_kernel_kind;

typedef struct {
    polka_kernel_kind kind;
    double sigma; /**< bandwidth (Gaussian, Laplacian) or scale (polynomial) */
    int degree;   /**< polynomial degree */
    double coef0; /**< polynomial offset */
} polka_kernel;

/** Returns NULL when the kernel's parameters are valid, else a message. Pure. */
const char *polka_kernel_check(const polka_kernel *kernel);

/** Parses "gaussian", "laplacian", "polynomial" or "linear". */
polka_status polka_kernel_kind_parse(const char *name, polka_kernel_kind *kind);

/** The name of a kernel kind. Pure. */
const char *polka_kernel_kind_name(polka_kernel_kind kind);

/** k(x, y) for two p-vectors. Pure. */
double polka_kernel_eval(const polka_kernel *kernel, const double *x, const double *y, size_t p);

/**
 * The kernel block K[i][j] = k(x_i, d_j) (n×m, row-major) with BLAS level 3:
 * ‖x−d‖² = ‖x‖² + ‖d‖² − 2x·d from one dgemm.
 * @param d_sqnorm ‖d_j‖² for the m points of D, or NULL to compute them here.
 */
polka_status polka_kernel_block(const polka_kernel *kernel, const double *x, size_t n,
                                const double *d, const double *d_sqnorm, size_t m, size_t p,
                                double *k_out);

/** The same block by plain loops over polka_kernel_eval: the test reference. */
void polka_kernel_block_ref(const polka_kernel *kernel, const double *x, size_t n, const double *d,
                            size_t m, size_t p, double *k_out);

/** ‖x_i‖² for the n rows of x. */
void polka_sqnorms(const double *x, size_t n, size_t p, double *out);

#endif
