/* Reading an INI config file without a limit on a line's length (config_file.c). */
#ifndef POLKA_CONFIG_FILE_IMPL_H
#define POLKA_CONFIG_FILE_IMPL_H

#include "polka/error.h"

/** A key's entry: 0 stops the reading at its line. */
typedef int (*polka_ini_handler)(void *user, const char *section, const char *name,
                                 const char *value);

/**
 * Reads the INI file path (a regular file: a FIFO or device is refused without waiting on it)
 * and calls handler for every `name = value` (or `name: value`) under its `[section]`.
 * Whole-line comments start with ';' or '#', whatever their length; an inline comment starts
 * with ';' after a blank. *line: 0, or the first line that does not parse or that the handler
 * refused. POLKA_ERR_IO when the file cannot be read.
 */
polka_status polka_ini_read(const char *path, polka_ini_handler handler, void *user, int *line);

#endif
