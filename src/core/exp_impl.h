/* exp(x) in plain arithmetic, for the radial kernels (kernel.c, thin.c). */
#ifndef POLKA_EXP_IMPL_H
#define POLKA_EXP_IMPL_H

#include <math.h>
#include <stdint.h>
#include <string.h>

/* One copy of a function for x86-64-v4 (AVX-512 and FMA), one for v3 (AVX2 and FMA) and one
 * for the baseline, chosen when the program loads by the CPU's features: where polka_exp is
 * hot (thin.c's loops, kernel.c). All round alike: C11 forbids contracting a·b + c into an FMA,
 * and polka_exp's fmas are explicit (the baseline calls glibc's fma, correctly rounded, 30×
 * slower than the instruction). GCC only: clang 14 emits no symbol for a clone list whose
 * function its own file never calls (the fuzzing build, which uses clang, failed to link). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define POLKA_EXP_CLONES                                                                           \
    __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define POLKA_EXP_CLONES
#endif

/* Below this exp(x) is subnormal: polka_exp returns 0 (libm: subnormals down to -745.13). */
#define POLKA_EXP_LOW (-708.3964185322641)
/* Above this 2^k overflows the exponent field: polka_exp returns +inf (libm: from 709.78). */
#define POLKA_EXP_HIGH 709.43

/*
 * e^x without a library call, so that a loop of it vectorises (thin.c: 8 lanes with AVX-512,
 * where glibc's exp is one call per entry, a third of a decentralized run's time) and rounds
 * alike at every vector width and instruction set: every multiply-add is an explicit fma(),
 * one rounding, whether it is an instruction (thin.c's clones for x86-64-v3 and v4, and
 * kernel.c's) or glibc's fma (correctly rounded in software where the CPU has none). C11
 * forbids contracting the plain a·b + c left (CMake sets no -ffast-math).
 *
 *   x = k·ln 2 + r,  k = round(x / ln 2),  |r| ≤ ln 2 / 2 (+ an ulp),
 *   e^x = 2^k · Σ_{n ≤ 13} rⁿ / n!   (truncation |r|¹⁴/14! ≤ 4·10⁻¹⁸ relative).
 *
 * k is rounded by adding 1.5·2^52, which leaves k in the low bits of the sum; ln 2 is split
 * in two (Cody–Waite, fdlibm's constants: ln2_hi has 21 trailing zero bits, so k·ln2_hi is
 * exact for |k| ≤ 2^21, and x − k·ln2_hi too) so that r carries no cancellation error. 2^k is
 * built in the exponent field: the sum's bits plus 1023, shifted by 52, is (k + 1023)·2^52
 * modulo 2^64. Horner's 13 steps are 13 fmas (26 operations without): on a CPU that runs one
 * 512-bit operation a cycle the exponential is throughput-bound, and 1.7× faster so. Within
 * 2 ulp of a correctly rounded e^x on [POLKA_EXP_LOW, POLKA_EXP_HIGH] (test_kernel); NaN
 * gives NaN.
 */
static inline double polka_exp(double x) {
    const double round_shift = 6755399441055744.0; /* 1.5·2^52 */
    const double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
    double t = fma(x, 1.4426950408889634, round_shift);
    double k = t - round_shift;
    double r = fma(-k, ln2_lo, fma(-k, ln2_hi, x));
    double p = 1.0 / 6227020800.0; /* 1/13!, then Horner down to 1/0! */
    p = fma(p, r, 1.0 / 479001600.0);
    p = fma(p, r, 1.0 / 39916800.0);
    p = fma(p, r, 1.0 / 3628800.0);
    p = fma(p, r, 1.0 / 362880.0);
    p = fma(p, r, 1.0 / 40320.0);
    p = fma(p, r, 1.0 / 5040.0);
    p = fma(p, r, 1.0 / 720.0);
    p = fma(p, r, 1.0 / 120.0);
    p = fma(p, r, 1.0 / 24.0);
    p = fma(p, r, 1.0 / 6.0);
    p = fma(p, r, 0.5);
    p = fma(p, r, 1.0);
    p = fma(p, r, 1.0);
    uint64_t bits;
    memcpy(&bits, &t, sizeof bits);
    bits = (bits + 1023u) << 52;
    double scale;
    memcpy(&scale, &bits, sizeof scale);
    double y = p * scale;
    y = x < POLKA_EXP_LOW ? 0.0 : y;
    return x > POLKA_EXP_HIGH ? INFINITY : y;
}

/* The radial kernels' exponents: k(s) = e^{s·scale} of the squared distance s (Gaussian) or of
 * √s (Laplacian), a product where a quotient per entry cost a vector division. */
static inline double polka_gaussian_scale(double sigma) {
    return -1.0 / (2.0 * sigma * sigma);
}
static inline double polka_laplacian_scale(double sigma) {
    return -1.0 / sigma;
}

#endif
