/* What `polka --help`, `polka help`, the manual page and docs/keys.md share: every text and
 * list is written once, in help.c, and each output only renders it. A text may hold `code`
 * spans: printed as they are by the help, in bold by the manual page, as code in Markdown. */
#ifndef POLKA_HELP_IMPL_H
#define POLKA_HELP_IMPL_H

#include <stddef.h>
#include <stdio.h>

#include "polka/config.h"

/** One of the lists of kinds the help prints (methods, controls, graph generators, sources). */
typedef struct {
    const char *heading; /**< "Decentralized methods" (the manual's section, in capitals) */
    const char *title;   /**< the line above the entries: "Decentralized methods (net.method):" */
    /** The k-th entry: its name in *name and its text (may be written into text[size]);
     *  NULL past the last. */
    const char *(*entry)(size_t k, const char **name, char *text, size_t size);
} polka_help_list;

/** The lists, in the order the help prints them, and their number. */
const polka_help_list *polka_help_lists(size_t *count);

/** The command's one-line summary ("decentralized online learning with kernels ..."). */
extern const char polka_help_summary[];

#define POLKA_HELP_SECTION_SIZE 16
#define POLKA_HELP_SECTIONS_MAX 16

/** The key table's sections ("run", "data", ...) in the order they first appear; returns
 *  how many (at most max). */
size_t polka_help_sections(char names[][POLKA_HELP_SECTION_SIZE], size_t max);

/** 1 when key (section.key) is in section. */
int polka_help_in_section(const char *key, const char *section);

/** How settings are given (INI sections, --set, which wins, polka help KEY), into text. */
const char *polka_help_settings(char *text, size_t size);

/** The type of a key's value as the help names it: integer | number | text. */
const char *polka_help_type(const polka_config_key *key);

/** What a key's row adds to its help: whose knob it is, its range, whether a resume may change
 *  it ("split dirichlet; >= 0; may change on resume"); "" when none applies. */
void polka_help_key_facts(const polka_config_key *key, char *out, size_t size);

/** Writes docs/keys.md, the key reference in Markdown (src/app/man/keys_markdown.c, for
 *  polka_man --markdown). */
void polka_app_print_markdown(FILE *out);

#endif
