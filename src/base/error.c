#include "polka/error.h"

#include <stdio.h>
#include <string.h>

#define POLKA_ERROR_CAPACITY 1024

static _Thread_local char error_text[POLKA_ERROR_CAPACITY];

polka_status polka_error_set(polka_status code, const char *fmt, ...) {
    /* Format into a copy: the arguments may point into error_text itself. */
    char text[POLKA_ERROR_CAPACITY];
    va_list args;
    va_start(args, fmt);
    vsnprintf(text, sizeof text, fmt, args);
    va_end(args);
    memcpy(error_text, text, sizeof text);
    return code;
}

const char *polka_error_message(void) {
    return error_text;
}

void polka_error_clear(void) {
    error_text[0] = '\0';
}

polka_status polka_name_find(const char *name, const char *const *names, size_t count,
                             const char *what, int *index) {
    for (size_t k = 0; k < count; k++) {
        if (strcmp(name, names[k]) == 0) {
            *index = (int)k;
            return POLKA_OK;
        }
    }
    char choices[POLKA_ERROR_CAPACITY / 2] = "";
    size_t used = 0;
    for (size_t k = 0; k < count && used < sizeof choices; k++)
        used += (size_t)snprintf(choices + used, sizeof choices - used, "%s%s", k ? ", " : "",
                                 names[k]);
    return polka_error_set(POLKA_ERR_ARG, "unknown %s '%s' (%s)", what, name, choices);
}

const char *polka_name_at(const char *const *names, size_t count, int index) {
    return index >= 0 && (size_t)index < count ? names[index] : "?";
}

const char *polka_status_name(polka_status code) {
    switch (code) {
    case POLKA_OK:
        return "ok";
    case POLKA_ERR_ARG:
        return "invalid argument";
    case POLKA_ERR_MEM:
        return "out of memory";
    case POLKA_ERR_IO:
        return "input/output error";
    case POLKA_ERR_FORMAT:
        return "format error";
    case POLKA_ERR_NUMERIC:
        return "numerical error";
    case POLKA_ERR_MPI:
        return "MPI error";
    case POLKA_ERR_HDF5:
        return "HDF5 error";
    case POLKA_STOPPED:
        return "stopped on a signal";
    case POLKA_INTERRUPTED:
        return "interrupted by a signal";
    }
    return "unknown error";
}
