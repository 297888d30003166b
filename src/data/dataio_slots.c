/* A sparse scan's statistics keep one slot per feature that occurs, not one per feature up to
 * the largest index (a 27-byte LIBSVM file naming feature 2^24 took 800 MB of running sums):
 * an open-addressing table maps feature j to its slot in the per-feature arrays. */
#include "data/dataio_impl.h"

#include <stdint.h>
#include <stdlib.h>

#define EMPTY SIZE_MAX

/* Fibonacci hashing: the top bits of j times 2^64/φ, `bits` of them. */
static size_t home(size_t j, unsigned bits) {
    return (size_t)(((uint64_t)j * 0x9E3779B97F4A7C15ull) >> (64 - bits));
}

/* The cell of feature j: its own, or the empty one where it would go. */
static size_t cell_of(const dataio_stats *stats, size_t j) {
    size_t mask = ((size_t)1 << stats->table_bits) - 1;
    size_t h = home(j, stats->table_bits);
    while (stats->table_key[h] != j && stats->table_key[h] != EMPTY) h = (h + 1) & mask;
    return h;
}

/* Doubles the table (64 cells at first) and places the features again. */
static polka_status grow_table(dataio_stats *stats) {
    unsigned bits = stats->table_bits ? stats->table_bits + 1 : 6;
    size_t cells = (size_t)1 << bits,
           old_cells = stats->table_bits ? (size_t)1 << stats->table_bits : 0;
    size_t *key = malloc(cells * sizeof *key), *slot = malloc(cells * sizeof *slot);
    if (key == NULL || slot == NULL) {
        free(key);
        free(slot);
        return polka_error_set(POLKA_ERR_MEM, "out of memory for the features' table");
    }
    for (size_t h = 0; h < cells; h++) key[h] = EMPTY;
    size_t *old_key = stats->table_key, *old_slot = stats->table_slot;
    stats->table_key = key, stats->table_slot = slot, stats->table_bits = bits;
    for (size_t h = 0; h < old_cells; h++) {
        if (old_key[h] == EMPTY) continue;
        size_t c = cell_of(stats, old_key[h]);
        key[c] = old_key[h];
        slot[c] = old_slot[h];
    }
    free(old_key);
    free(old_slot);
    return POLKA_OK;
}

polka_status dataio_stats_slot(dataio_stats *stats, size_t j, size_t *slot) {
    if (2 * (stats->slots + 1) > ((size_t)1 << stats->table_bits) || stats->table_bits == 0)
        POLKA_CALL(grow_table(stats));
    size_t c = cell_of(stats, j);
    if (stats->table_key[c] == j) {
        *slot = stats->table_slot[c];
        return POLKA_OK;
    }
    if (stats->slots == stats->capacity) {
        POLKA_CALL(dataio_stats_fit(stats, stats->p));
        POLKA_CALL(dataio_stats_reserve(stats, stats->slots + 1));
    }
    stats->table_key[c] = j;
    stats->table_slot[c] = *slot = stats->slots++;
    return POLKA_OK;
}

size_t dataio_stats_find(const dataio_stats *stats, size_t j) {
    if (!stats->sparse) return j;
    if (stats->table_bits == 0) return EMPTY;
    size_t c = cell_of(stats, j);
    return stats->table_key[c] == j ? stats->table_slot[c] : EMPTY;
}

void dataio_stats_free_table(dataio_stats *stats) {
    free(stats->table_key);
    free(stats->table_slot);
    stats->table_key = stats->table_slot = NULL;
    stats->table_bits = 0;
}

static int compare_feature(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

polka_status dataio_stats_features(const dataio_stats *stats, uint32_t **features) {
    *features = malloc((stats->slots ? stats->slots : 1) * sizeof **features);
    POLKA_CHECK(*features != NULL, POLKA_ERR_MEM, "out of memory for the %zu features that occur",
                stats->slots);
    size_t cells = stats->table_bits ? (size_t)1 << stats->table_bits : 0, count = 0;
    for (size_t h = 0; h < cells; h++)
        if (stats->table_key[h] != EMPTY) (*features)[count++] = (uint32_t)stats->table_key[h];
    qsort(*features, count, sizeof **features, compare_feature); /* < 2^24 each */
    return POLKA_OK;
}
