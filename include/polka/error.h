/**
 * @file error.h
 * @brief Status codes and the error-propagation macros used by every module.
 *
 * Every function that can fail returns a polka_status. On failure it records one
 * human-readable message (polka_error_message()), which the caller either adds
 * context to or hands up unchanged. Only the command-line tool prints and exits.
 *
 * The message buffer is thread-local: it is the only state the library keeps.
 */
#ifndef POLKA_ERROR_H
#define POLKA_ERROR_H

#include <stdarg.h>
#include <stddef.h>

typedef enum {
    POLKA_OK = 0,
    POLKA_ERR_ARG,     /**< an invalid parameter or argument */
    POLKA_ERR_MEM,     /**< an allocation failed */
    POLKA_ERR_IO,      /**< a file could not be read or written */
    POLKA_ERR_FORMAT,  /**< a file's contents do not parse */
    POLKA_ERR_NUMERIC, /**< a factorisation failed or a value is not finite */
    POLKA_ERR_MPI,     /**< an MPI call failed, or another rank failed */
    POLKA_ERR_HDF5,    /**< an HDF5 call failed */
    POLKA_STOPPED,     /**< the run stopped on a signal after writing a checkpoint */
    POLKA_INTERRUPTED, /**< a signal stopped the run where no checkpoint could be written */
} polka_status;

/** Records a printf-style message as the current error and returns code. */
polka_status polka_error_set(polka_status code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/** The message of the last error recorded on this thread ("" when none). */
const char *polka_error_message(void);

/** Clears the current error message. */
void polka_error_clear(void);

/** Short name of a status code ("invalid argument", ...). */
const char *polka_status_name(polka_status code);

/**
 * Finds name among names[0..count) and stores its position in *index. Otherwise records
 * "unknown WHAT 'NAME' (names[0], names[1], ...)" and returns POLKA_ERR_ARG, so that a
 * module's table of names is also the list its error message offers.
 */
polka_status polka_name_find(const char *name, const char *const *names, size_t count,
                             const char *what, int *index);

/** names[index], or "?" when index is outside [0, count). */
const char *polka_name_at(const char *const *names, size_t count, int index);

/** The number of entries of a static array. */
#define POLKA_COUNT(array) (sizeof(array) / sizeof *(array))

/** Evaluates expr (a polka_status); returns it from the caller when not POLKA_OK. */
#define POLKA_CALL(expr)                                                                           \
    do {                                                                                           \
        polka_status polka_call_status_ = (expr);                                                  \
        if (polka_call_status_ != POLKA_OK) return polka_call_status_;                             \
    } while (0)

/** Returns code with a formatted message from the caller when cond is false. */
#define POLKA_CHECK(cond, code, ...)                                                               \
    do {                                                                                           \
        if (!(cond)) return polka_error_set((code), __VA_ARGS__);                                  \
    } while (0)

/** Returns POLKA_ERR_MEM from the caller when ptr is NULL. */
#define POLKA_CHECK_ALLOC(ptr)                                                                     \
    POLKA_CHECK((ptr) != NULL, POLKA_ERR_MEM, "out of memory at %s:%d", __FILE__, __LINE__)

#endif
