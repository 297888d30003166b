/* Reading an INI config file (config_file_impl.h): the file is read whole, then line by line
 * with no limit on a line's length. A library parser with a fixed line buffer (inih: 200
 * bytes) cut long lines into pieces, so that the tail of a long comment became a line of its
 * own — a commented-out "eta = 0.05" was applied — and a long path did not parse. */
#include "io/config_file_impl.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "polka/paths.h"

/* A config file larger than this is not one (a data file named by mistake). */
#define CONFIG_FILE_MAX ((size_t)16 << 20)

/* The whole of path, NUL-terminated, in *text (free() it). */
static polka_status read_whole(const char *path, char **text) {
    int fd = -1;
    POLKA_CALL(polka_open_regular(path, "config file", &fd));
    struct stat info;
    polka_status status = fstat(fd, &info) == 0 && (size_t)info.st_size <= CONFIG_FILE_MAX
                              ? POLKA_OK
                              : polka_error_set(POLKA_ERR_IO,
                                                "config file '%s' is larger than 16 MiB: it is no "
                                                "config file",
                                                path);
    size_t size = status == POLKA_OK ? (size_t)info.st_size : 0, used = 0;
    *text = status == POLKA_OK ? malloc(size + 1) : NULL;
    if (status == POLKA_OK && *text == NULL)
        status = polka_error_set(POLKA_ERR_MEM, "out of memory");
    while (status == POLKA_OK && used < size) {
        ssize_t got = read(fd, *text + used, size - used);
        if (got <= 0) {
            status = polka_error_set(POLKA_ERR_IO, "cannot read config file '%s': %s", path,
                                     got < 0 ? strerror(errno) : "it shrank while read");
            break;
        }
        used += (size_t)got;
    }
    close(fd);
    if (status == POLKA_OK && memchr(*text, '\0', used) != NULL)
        status = polka_error_set(POLKA_ERR_FORMAT,
                                 "config file '%s' has a NUL byte: it is no "
                                 "text file",
                                 path);
    if (status != POLKA_OK) {
        free(*text);
        *text = NULL;
        return status;
    }
    (*text)[used] = '\0';
    return POLKA_OK;
}

/* Blanks off both ends of s, in place. */
static char *trim(char *s) {
    while (isspace((unsigned char)*s)) s++;
    size_t len = strlen(s);
    while (len > 0 && isspace((unsigned char)s[len - 1])) s[--len] = '\0';
    return s;
}

/* A value without its inline comment (';' after a blank, as inih and Python's configparser). */
static char *strip_inline_comment(char *value) {
    for (char *at = value; *at; at++)
        if (*at == ';' && at > value && isspace((unsigned char)at[-1])) *at = '\0';
    return trim(value);
}

/* One line (blanks and comment lines are nothing); 0 when it does not parse or the handler
 * refused it. A line is trimmed first: an indented line is a key of its own, never more of
 * the value above it. */
static int parse_line(char *line, char *section, size_t section_size, polka_ini_handler handler,
                      void *user) {
    line = trim(line);
    if (line[0] == '\0' || line[0] == ';' || line[0] == '#') return 1; /* whole-line comment */
    if (line[0] == '[') {
        char *end = strchr(line, ']');
        if (end == NULL) return 0;
        *end = '\0';
        snprintf(section, section_size, "%s", trim(line + 1));
        return 1;
    }
    size_t name_len = strcspn(line, "=:");
    if (line[name_len] == '\0') return 0; /* no '=' or ':' */
    line[name_len] = '\0';
    return handler(user, section, trim(line), strip_inline_comment(line + name_len + 1));
}

polka_status polka_ini_read(const char *path, polka_ini_handler handler, void *user, int *line) {
    char *text = NULL;
    POLKA_CALL(read_whole(path, &text));
    char section[128] = "";
    char *at = text;
    if (strncmp(at, "\xEF\xBB\xBF", 3) == 0) at += 3; /* a UTF-8 byte order mark */
    *line = 0;
    for (int number = 1; at != NULL; number++) {
        char *next = strchr(at, '\n');
        if (next) *next++ = '\0';
        if (!parse_line(at, section, sizeof section, handler, user)) {
            *line = number;
            break;
        }
        at = next;
    }
    free(text);
    return POLKA_OK;
}
