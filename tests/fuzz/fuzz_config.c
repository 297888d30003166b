/* libFuzzer: the configuration. The input is an INI file, then (after a NUL byte, if any)
 * `--set` assignments one a line, applied as polka_config_override; then the plan is built
 * (every setting checked). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "polka/config.h"
#include "polka/plan.h"

static void apply_overrides(polka_config *config, const uint8_t *data, size_t size) {
    char *text = malloc(size + 1);
    if (text == NULL) return;
    memcpy(text, data, size);
    text[size] = '\0';
    for (char *line = text, *next; line != NULL; line = next) {
        next = strchr(line, '\n');
        if (next) *next++ = '\0';
        if (polka_config_override(config, line) != POLKA_OK) polka_error_clear();
    }
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const uint8_t *nul = memchr(data, '\0', size);
    size_t file_size = nul ? (size_t)(nul - data) : size;
    polka_config config;
    polka_config_defaults(&config);
    if (polka_config_load(&config, fuzz_file(0, "config.ini", data, file_size, 0)) != POLKA_OK)
        polka_error_clear();
    if (nul) apply_overrides(&config, nul + 1, size - file_size - 1);
    static polka_plan plan;
    if (polka_plan_build(&config, &plan) != POLKA_OK) polka_error_clear();
    return 0;
}
