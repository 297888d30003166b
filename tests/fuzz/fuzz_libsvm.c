/* libFuzzer: the LIBSVM reader (scan, read, scale). */
#include <stdint.h>

#include "fuzz_data.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    polka_read_options options = {.format = POLKA_FORMAT_LIBSVM};
    fuzz_data_run(fuzz_file(0, "data.svm", data, size, 0), &options);
    return 0;
}
