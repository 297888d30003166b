/**
 * @file format.h
 * @brief Numbers as text: a double in the fewest digits that read back as the same double.
 */
#ifndef POLKA_FORMAT_H
#define POLKA_FORMAT_H

#include <stddef.h>

/** x with the fewest significant digits (up to 17) that read back as the same double. */
void polka_format_double(char *buf, size_t size, double x);

#endif
