/* EXPECT for the MPI test programs (no cmocka: every rank runs on after a failure, and the
 * program counts them): a failed check prints "FAIL file:line: message" and counts it in
 * the including file's `failures`. */
#ifndef POLKA_EXPECT_UTIL_H
#define POLKA_EXPECT_UTIL_H

#include <stdio.h>

#include "polka/error.h"

static int failures = 0;

#define EXPECT(cond, ...)                                                                          \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            failures++;                                                                            \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                                   \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
        }                                                                                          \
    } while (0)

#define EXPECT_OK(expr)                                                                            \
    do {                                                                                           \
        polka_status expect_status_ = (expr);                                                      \
        EXPECT(expect_status_ == POLKA_OK, "%s: %s", #expr, polka_error_message());                \
    } while (0)

#endif
