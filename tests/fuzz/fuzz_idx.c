/* libFuzzer: the IDX reader, plain and gzipped. The input is a flags byte (bit 0: gzip the
 * images file, bit 1: gzip the labels file), the labels file's length L (2 bytes, little
 * endian), the labels file (L bytes) and the images file (the rest). */
#include <stdint.h>

#include "fuzz_data.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 3 || size > 65536) return 0; /* fuzz_file compresses up to 64 KB */
    size_t labels = fuzz_u16(data + 1);
    if (labels > size - 3) labels = size - 3;
    const uint8_t *rest = data + 3;
    polka_read_options options = {.format = POLKA_FORMAT_IDX};
    options.labels_path = fuzz_file(1, "labels", rest, labels, data[0] & 2);
    const char *images = fuzz_file(0, "images", rest + labels, size - 3 - labels, data[0] & 1);
    fuzz_data_run(images, &options);
    return 0;
}
