/*
 * Arrays in pages of their own (pages_impl.h). Thousands of agents each re-size an array now
 * and then (KOMP's G_base as the model grows, its pending terms at every flush): in the heap,
 * the old sizes stay behind as holes that nothing reuses once the models have grown (a
 * quarter of a 16 384-agent rank's heap was such holes). Mapped on its own with room to
 * grow, an array costs the pages written, and gives back those it no longer needs.
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS and MADV_DONTNEED beside _POSIX_C_SOURCE (glibc) */
#include "pages_impl.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static size_t page_round(size_t count) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE) / sizeof(double);
    return (count + page - 1) / page * page;
}

static void release(polka_pages *pages) {
    if (pages->mapped)
        munmap(pages->data, pages->capacity * sizeof *pages->data);
    else
        free(pages->data);
    *pages = (polka_pages){0};
}

polka_status polka_pages_reserve(polka_pages *pages, size_t count, size_t keep) {
    if (count <= pages->capacity) {
        if (count > pages->high) pages->high = count;
        return POLKA_OK;
    }
    /* half again to grow into: a page not written costs nothing */
    size_t capacity = page_round(count + count / 2);
    void *mapped = mmap(NULL, capacity * sizeof(double), PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    double *data = mapped == MAP_FAILED ? NULL : mapped;
    if (data == NULL) { /* e.g. the mappings ran out (vm.max_map_count) */
        capacity = count;
        data = malloc(capacity * sizeof *data);
    }
    POLKA_CHECK(data != NULL, POLKA_ERR_MEM, "out of memory for %zu doubles", count);
    if (keep > 0) memcpy(data, pages->data, keep * sizeof *data);
    release(pages);
    *pages = (polka_pages){
        .data = data, .capacity = capacity, .high = count, .mapped = mapped != MAP_FAILED};
    return POLKA_OK;
}

void polka_pages_trim(polka_pages *pages, size_t count) {
    size_t from = page_round(count), to = page_round(pages->high);
    if (pages->mapped && to > from)
        madvise(pages->data + from, (to - from) * sizeof *pages->data, MADV_DONTNEED);
    pages->high = count;
}

void polka_pages_free(polka_pages *pages) {
    release(pages);
}
