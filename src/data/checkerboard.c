#include "polka/checkerboard.h"

#include <math.h>
#include <stdlib.h>

#include "polka/rng.h"

struct polka_checkerboard_s {
    polka_checkerboard_params params;
    double cell; /* side of one cell */
};

const char *polka_checkerboard_check(const polka_checkerboard_params *params) {
    if (params->board < 1) return "checkerboard board must be >= 1";
    if (!(params->side >= 0) || !isfinite(params->side)) return "checkerboard side must be >= 0";
    return NULL;
}

polka_status polka_checkerboard_create(const polka_checkerboard_params *params,
                                       polka_checkerboard **out) {
    const char *why = polka_checkerboard_check(params);
    POLKA_CHECK(why == NULL, POLKA_ERR_ARG, "%s", why);
    polka_checkerboard *gen = calloc(1, sizeof *gen);
    POLKA_CHECK_ALLOC(gen);
    gen->params = *params;
    double side = params->side > 0 ? params->side : (double)params->board;
    gen->cell = side / (double)params->board;
    *out = gen;
    return POLKA_OK;
}

void polka_checkerboard_free(polka_checkerboard **gen) {
    if (gen == NULL || *gen == NULL) return;
    free(*gen);
    *gen = NULL;
}

/* The cell index of a coordinate, clamped to the board against rounding at the edge. */
static uint64_t cell_of(double coordinate, size_t board) {
    uint64_t cell = (uint64_t)coordinate;
    return cell < board ? cell : board - 1;
}

void polka_checkerboard_sample(const polka_checkerboard *gen, uint64_t stream, uint64_t index,
                               double *x, double *y) {
    size_t board = gen->params.board;
    polka_rng rng = polka_rng_start(gen->params.seed, stream, index);
    double u0 = (double)board * polka_rng_uniform(&rng);
    double u1 = (double)board * polka_rng_uniform(&rng);
    x[0] = gen->cell * u0;
    x[1] = gen->cell * u1;
    *y = (double)((cell_of(u0, board) + cell_of(u1, board)) % 2);
}

void polka_checkerboard_fill(const polka_checkerboard *gen, uint64_t stream, uint64_t first,
                             polka_dataset *data) {
    for (size_t i = 0; i < data->n; i++)
        polka_checkerboard_sample(gen, stream, first + i, data->x + i * data->p, data->y + i);
}
