/* Arrays in pages of their own (pages.c). */
#ifndef POLKA_PAGES_IMPL_H
#define POLKA_PAGES_IMPL_H

#include <stddef.h>

#include "polka/error.h"

/*
 * An array of doubles in an anonymous mapping of its own, mapped with room to grow: a page
 * costs memory once it is written, and trimming gives the pages past a point back. (Where a
 * mapping cannot be made, the heap, without the trimming.)
 */
typedef struct {
    double *data;
    size_t capacity; /* doubles mapped (or allocated) */
    size_t high;     /* the most doubles reserved since the last trim: the pages in use */
    int mapped;
} polka_pages;

/** Room for `count` doubles; when the array must move, its first `keep` go with it. */
polka_status polka_pages_reserve(polka_pages *pages, size_t count, size_t keep);

/** Gives back the pages past the first `count` doubles (their contents are then undefined:
 * write before reading). */
void polka_pages_trim(polka_pages *pages, size_t count);

void polka_pages_free(polka_pages *pages);

#endif
