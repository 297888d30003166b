/* Writes the manual page polka(1), or with --markdown the key reference docs/keys.md, to the
 * file named by its last argument: run at build time, so both come from the same key table
 * as `polka help` (and need no MPI start-up). */
#include <stdio.h>
#include <string.h>

#include "app_impl.h"
#include "help_impl.h"

int main(int argc, char **argv) {
    int markdown = argc == 3 && strcmp(argv[1], "--markdown") == 0;
    if (argc != 2 && !markdown) {
        fprintf(stderr, "usage: polka_man OUTPUT.1 | polka_man --markdown OUTPUT.md\n");
        return 2;
    }
    FILE *out = fopen(argv[argc - 1], "w");
    if (out == NULL) {
        perror(argv[argc - 1]);
        return 1;
    }
    if (markdown)
        polka_app_print_markdown(out);
    else
        polka_app_print_man(out);
    return fclose(out) == 0 ? 0 : 1;
}
