/* Writes the manual page polka(1) to the file named by its argument: run at build time, so
 * the page comes from the same key table as `polka help` (and needs no MPI start-up). */
#include <stdio.h>

#include "app_impl.h"

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: polka_man OUTPUT.1\n");
        return 2;
    }
    FILE *out = fopen(argv[1], "w");
    if (out == NULL) {
        perror(argv[1]);
        return 1;
    }
    polka_app_print_man(out);
    return fclose(out) == 0 ? 0 : 1;
}
