/* libFuzzer: the edge-list graph parser (polka_graph_parse, which polka_graph_read calls). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "polka/graph.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = malloc(size + 1);
    if (text == NULL) return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    polka_graph *g = NULL;
    if (polka_graph_parse(text, "fuzz", &g) == POLKA_OK) polka_graph_free(&g);
    polka_error_clear();
    free(text);
    return 0;
}
