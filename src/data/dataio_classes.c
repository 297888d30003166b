/* Every sample's class, recorded by a scan when asked (polka_read_options.row_classes): a
 * file source that keeps only some rows must know the class of every row before it reads
 * them (the class-skewed splits draw the j-th row of a class). */
#include "data/dataio_impl.h"

#include <stdlib.h>

int dataio_label_class(const polka_data_info *info, double label, size_t *c) {
    size_t lo = 0, hi = info->classes;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (info->labels[mid] < label)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == info->classes || info->labels[lo] != label) return 0;
    *c = lo;
    return 1;
}

/* The fewest bytes that hold a class index below classes. */
static size_t class_bytes(size_t classes) {
    return classes <= 256 ? 1 : classes <= 65536 ? 2 : 4;
}

polka_status dataio_row_classes(const dataio_stats *stats, polka_data_info *info) {
    size_t n = stats->n, width = class_bytes(info->classes);
    /* the labels in file order (8 bytes a sample, held by the scan) and their classes */
    double bytes = (8.0 + (double)width) * (double)n, limit = (double)stats->memory_limit;
    POLKA_CHECK(bytes <= limit, POLKA_ERR_MEM,
                "%s: the labels and classes of %zu samples take %s, over the memory limit "
                "of %s%s",
                info->path, n, dataio_size_text(bytes), dataio_size_text(limit),
                dataio_memory_origin(stats->memory_limit));
    POLKA_CHECK(info->classes <= UINT32_MAX, POLKA_ERR_FORMAT, "%zu classes are too many",
                info->classes);
    unsigned char *row = malloc((n ? n : 1) * width);
    POLKA_CHECK(row, POLKA_ERR_MEM, "%s: out of memory for the classes of %zu samples", info->path,
                n);
    for (size_t i = 0; i < n; i++) {
        size_t c = 0;
        dataio_label_class(info, stats->labels[i], &c); /* every label is in the map */
        if (width == 1)
            row[i] = (unsigned char)c;
        else if (width == 2)
            ((uint16_t *)(void *)row)[i] = (uint16_t)c;
        else
            ((uint32_t *)(void *)row)[i] = (uint32_t)c;
    }
    info->row_class = row;
    info->row_class_bytes = width;
    return POLKA_OK;
}

size_t polka_data_row_class(const polka_data_info *info, size_t i) {
    const void *row = info->row_class;
    if (info->row_class_bytes == 1) return ((const unsigned char *)row)[i];
    if (info->row_class_bytes == 2) return ((const uint16_t *)row)[i];
    return ((const uint32_t *)row)[i];
}
