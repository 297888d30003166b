/*
 * A training file's scan split among the ranks (polka/dataio.h, Chunks): rank r of P
 * scans the chunks [r·C/P, (r+1)·C/P) of the C chunks, the ranks swap their pieces, and each
 * folds every piece in file order. Every rank then holds the info one process's scan gives,
 * bit for bit, having read about 1/P of the file once. A piece numbers its lines from its first;
 * after an error the ranks count their chunks' line ends, so that the message gives the file's
 * line (polka_scan_locate). A gzipped file cannot be read from the middle: every
 * rank scans it whole, as before. Each step ends with the ranks agreeing on its status, so an
 * error anywhere (the first in file order: the lowest failing rank's) ends the scan on all.
 */
#include "sim/driver/sim_impl.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "polka/net.h"

typedef struct {
    MPI_Comm comm;
    int rank, size;
    polka_scan *scan;
    size_t chunks, first, last; /* this rank's chunks [first, last) */
    uint64_t *newlines;         /* every chunk's line ends */
    int *counts, *displacements;
    uint64_t *pieces;
} split_scan;

/* This rank's line ends, then every chunk's (the sum over the ranks: each counts its own). */
static polka_status count_lines(split_scan *s) {
    uint64_t *mine = calloc(s->chunks, sizeof *mine);
    s->newlines = calloc(s->chunks, sizeof *s->newlines);
    polka_status status =
        mine && s->newlines ? POLKA_OK : polka_error_set(POLKA_ERR_MEM, "out of memory");
    if (status == POLKA_OK)
        status = polka_scan_count_lines(s->scan, s->first, s->last, mine + s->first);
    status = polka_net_agree(s->comm, status);
    if (status == POLKA_OK)
        status = polka_net_allreduce(mine, s->newlines, (int)s->chunks, MPI_UINT64_T, MPI_SUM,
                                     s->comm, "the scan's line counts");
    free(mine);
    return status;
}

/* Every rank's piece, in rank order (which is file order), into s->pieces (*words of them). */
static polka_status swap_pieces(split_scan *s, size_t *words) {
    size_t own = 0;
    const uint64_t *piece = polka_scan_piece(s->scan, &own);
    s->counts = calloc((size_t)s->size, sizeof *s->counts);
    s->displacements = calloc((size_t)s->size, sizeof *s->displacements);
    POLKA_CHECK(s->counts && s->displacements, POLKA_ERR_MEM, "out of memory for %d ranks",
                s->size);
    s->counts[s->rank] = own <= INT_MAX ? (int)own : -1;
    int *sizes = calloc((size_t)s->size, sizeof *sizes);
    POLKA_CHECK_ALLOC(sizes);
    polka_status status = polka_net_allreduce(s->counts, sizes, s->size, MPI_INT, MPI_SUM, s->comm,
                                              "the scan's piece sizes");
    memcpy(s->counts, sizes, (size_t)s->size * sizeof *sizes);
    free(sizes);
    POLKA_CALL(status);
    double total = 0.0;
    for (int r = 0; r < s->size; r++) {
        s->displacements[r] = (int)total;
        total += s->counts[r] < 0 ? (double)INT_MAX + 1.0 : (double)s->counts[r];
    }
    POLKA_CHECK(total <= (double)INT_MAX, POLKA_ERR_MEM,
                "the scan's pieces take %.0f words (the rows' labels and line offsets, and "
                "each chunk's statistics), over MPI's count limit of %d",
                total, INT_MAX);
    *words = (size_t)total;
    s->pieces = malloc((*words ? *words : 1) * sizeof *s->pieces);
    POLKA_CHECK(s->pieces, POLKA_ERR_MEM, "out of memory for the scan's %zu words", *words);
    return polka_net_allgatherv(piece, (int)own, MPI_UINT64_T, s->pieces, s->counts,
                                s->displacements, s->comm, "the scan's pieces");
}

/* After a failed scan on some rank: every chunk's line ends, so that the failing ranks' messages
 * give the file's line numbers (a piece numbers its lines from its first). */
static polka_status locate_error(split_scan *s, polka_status status) {
    polka_status counted = count_lines(s);
    if (counted != POLKA_OK) return counted;
    return polka_scan_locate(s->scan, s->first, s->newlines, status);
}

static polka_status split_run(split_scan *s, polka_data_info *info) {
    s->chunks = polka_scan_chunks(s->scan);
    POLKA_CHECK(s->chunks <= INT_MAX, POLKA_ERR_ARG,
                "%zu chunks are too many: a larger data.scan_chunk makes fewer", s->chunks);
    s->first = (size_t)((uint64_t)s->rank * s->chunks / (uint64_t)s->size);
    s->last = (size_t)((uint64_t)(s->rank + 1) * s->chunks / (uint64_t)s->size);
    /* [first, first) is a rank without a chunk: it reads a CSV header only */
    polka_status status = polka_scan_run(s->scan, s->first, s->last);
    int failed = status != POLKA_OK, any = 0;
    POLKA_CALL(
        polka_net_allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, s->comm, "the scan's outcome"));
    if (any) status = locate_error(s, status);
    POLKA_CALL(polka_net_agree(s->comm, status));
    size_t words = 0;
    status = swap_pieces(s, &words);
    POLKA_CALL(polka_net_agree(s->comm, status));
    return polka_net_agree(s->comm, polka_scan_finish(s->scan, s->pieces, words, info));
}

polka_status polka_sim_scan_split(void *context, const char *path,
                                  const polka_read_options *options, polka_data_info *info) {
    *info = (polka_data_info){0};
    split_scan s = {.comm = *(const MPI_Comm *)context};
    MPI_Comm_rank(s.comm, &s.rank);
    MPI_Comm_size(s.comm, &s.size);
    polka_status status = polka_net_agree(s.comm, polka_scan_open(path, options, &s.scan));
    if (status == POLKA_OK && (s.size == 1 || !polka_scan_splits(s.scan))) {
        polka_scan_free(s.scan);
        return polka_net_agree(s.comm, polka_data_scan(path, options, info));
    }
    if (status == POLKA_OK) status = split_run(&s, info);
    polka_scan_free(s.scan);
    free(s.newlines);
    free(s.counts);
    free(s.displacements);
    free(s.pieces);
    return status;
}
