/**
 * @file checkerboard.h
 * @brief The 2-D checkerboard stream (the BSGD paper's benchmark, Wang et al. 2012).
 *
 * A board of `board` × `board` unit cells on [0, board)²: x is uniform on the board and the
 * label is (⌊x₀⌋ + ⌊x₁⌋) mod 2 (2 classes). With `side` > 0 the board is scaled to
 * [0, side)² (cells of side/board). Counter-based like the multidist generator: sample
 * `index` of `stream` is a pure function of (seed, stream, index).
 */
#ifndef POLKA_CHECKERBOARD_H
#define POLKA_CHECKERBOARD_H

#include <stddef.h>
#include <stdint.h>

#include "polka/data.h"
#include "polka/error.h"

typedef struct {
    size_t board; /**< cells per side (4 for the usual 4×4 board) */
    double side;  /**< length of the board's side; 0 = board (unit cells) */
    uint64_t seed;
} polka_checkerboard_params;

typedef struct polka_checkerboard_s polka_checkerboard;

/** The input dimension of the checkerboard: always 2. */
#define POLKA_CHECKERBOARD_DIM 2

/** Returns NULL when the parameters are valid, else a message. Pure. */
const char *polka_checkerboard_check(const polka_checkerboard_params *params);

/** Creates the generator; the caller owns it. */
polka_status polka_checkerboard_create(const polka_checkerboard_params *params,
                                       polka_checkerboard **out);
void polka_checkerboard_free(polka_checkerboard **gen);

/** Sample `index` of `stream` into x (2 numbers) and *y (0 or 1). Pure given the generator. */
void polka_checkerboard_sample(const polka_checkerboard *gen, uint64_t stream, uint64_t index,
                               double *x, double *y);

/** Fills data (allocated for n points, p = 2) with samples first..first+n−1 of stream. */
void polka_checkerboard_fill(const polka_checkerboard *gen, uint64_t stream, uint64_t first,
                             polka_dataset *data);

#endif
