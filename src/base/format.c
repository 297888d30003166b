/* Numbers as text (polka/format.h). */
#include "polka/format.h"

#include <stdio.h>
#include <stdlib.h>

void polka_format_double(char *buf, size_t size, double x) {
    for (int digits = 1; digits <= 17; digits++) {
        snprintf(buf, size, "%.*g", digits, x);
        if (strtod(buf, NULL) == x) return;
    }
}
