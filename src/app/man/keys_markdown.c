/* docs/keys.md, the key reference in Markdown (polka_man --markdown): the key table by
 * section and the lists of kinds, rendered from the pieces polka help and the manual page
 * print (help_impl.h); no text of its own beyond the page's frame. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "app_impl.h"
#include "help_impl.h"

/* The page's first line: where it comes from and how to write it again. */
static const char generated_note[] =
    "<!-- generated from the key table by polka_man --markdown; do not edit. Regenerate: "
    "cmake --build build --target polka_keys_doc -->";

/* Whether the character at c, outside a code span, takes a backslash: every one that can
 * start inline markup or end a table cell; '_' only where it can emphasise, at a word's edge
 * (CommonMark leaves intraword underscores alone: learner.log_every stays as it is). */
static int md_special(const char *text, const char *c) {
    if (*c != '\0' && strchr("\\`*[]<>|~$&", *c) != NULL) return 1;
    if (*c != '_') return 0;
    return c == text || !isalnum((unsigned char)c[-1]) || !isalnum((unsigned char)c[1]);
}

/* A code span from its opening backtick to its closing one: verbatim, but in a table cell a
 * '|' escaped (GFM ends the cell there even inside a span). */
static void md_code(FILE *out, const char *open, const char *close, int cell) {
    for (const char *c = open; c <= close; c++) {
        if (cell && *c == '|') fputc('\\', out);
        fputc(*c, out);
    }
}

/* Text as Markdown: `code` spans kept, special characters escaped, and in a table cell a line
 * break made a space. */
static void md(FILE *out, const char *text, int cell) {
    for (const char *c = text; *c; c++) {
        const char *close = *c == '`' ? strchr(c + 1, '`') : NULL;
        if (close != NULL) {
            md_code(out, c, close, cell);
            c = close;
        } else if (cell && *c == '\n') {
            fputc(' ', out);
        } else {
            if (md_special(text, c)) fputc('\\', out);
            fputc(*c, out);
        }
    }
}

/* A value as a code span in a table cell, "(empty)" for an empty one. */
static void md_value(FILE *out, const char *value) {
    if (value[0] == '\0') {
        fputs("(empty)", out);
        return;
    }
    fputc('`', out);
    for (const char *c = value; *c; c++) {
        if (*c == '|') fputc('\\', out);
        fputc(*c, out);
    }
    fputc('`', out);
}

/* The anchor GitHub gives a heading: lower case, spaces as hyphens, other punctuation
 * dropped ("[run]" -> run, "Model-order controls" -> model-order-controls). */
static void md_anchor(FILE *out, const char *heading) {
    for (const char *c = heading; *c; c++) {
        if (isalnum((unsigned char)*c) || *c == '-' || *c == '_')
            fputc(tolower((unsigned char)*c), out);
        else if (*c == ' ')
            fputc('-', out);
    }
}

/* A contents line: a link to the heading, and what it holds. */
static void md_contents_line(FILE *out, const char *heading, size_t entries, const char *what) {
    fputs("- [", out);
    md(out, heading, 0);
    fputs("](#", out);
    md_anchor(out, heading);
    fprintf(out, "): %zu %s\n", entries, what);
}

static size_t section_keys(const char *section) {
    size_t count = 0, found = 0;
    const polka_config_key *keys = polka_config_keys(&count);
    for (size_t k = 0; k < count; k++)
        found += (size_t)polka_help_in_section(keys[k].name, section);
    return found;
}

static size_t list_entries(const polka_help_list *list) {
    char text[512];
    const char *name = NULL;
    size_t k = 0;
    while (list->entry(k, &name, text, sizeof text) != NULL) k++;
    return k;
}

static void md_contents(FILE *out, char sections[][POLKA_HELP_SECTION_SIZE], size_t count) {
    fputs("## Contents\n\n", out);
    char heading[POLKA_HELP_SECTION_SIZE + 2];
    for (size_t s = 0; s < count; s++) {
        snprintf(heading, sizeof heading, "[%s]", sections[s]);
        md_contents_line(out, heading, section_keys(sections[s]), "keys");
    }
    size_t lists_count = 0;
    const polka_help_list *lists = polka_help_lists(&lists_count);
    for (size_t t = 0; t < lists_count; t++)
        md_contents_line(out, lists[t].heading, list_entries(&lists[t]), "kinds");
}

/* A key's row: name, default, and its help with its type and facts. */
static void md_key(FILE *out, const polka_config_key *key) {
    char facts[160];
    polka_help_key_facts(key, facts, sizeof facts);
    fputs("| ", out);
    md_value(out, key->name);
    fputs(" | ", out);
    md_value(out, key->fallback);
    fputs(" | ", out);
    md(out, key->help, 1);
    fprintf(out, " (%s%s", polka_help_type(key), facts[0] ? "; " : "");
    md(out, facts, 1);
    fputs(") |\n", out);
}

static void md_section(FILE *out, const char *section) {
    fputs("\n## \\[", out);
    md(out, section, 0);
    fputs("\\]\n\n| key | default | meaning |\n| --- | --- | --- |\n", out);
    size_t count = 0;
    const polka_config_key *keys = polka_config_keys(&count);
    for (size_t k = 0; k < count; k++)
        if (polka_help_in_section(keys[k].name, section)) md_key(out, &keys[k]);
}

static void md_list(FILE *out, const polka_help_list *list) {
    fputs("\n## ", out);
    md(out, list->heading, 0);
    fputs("\n\n", out);
    md(out, list->title, 0);
    fputs("\n\n| name | meaning |\n| --- | --- |\n", out);
    char text[512];
    const char *name = NULL, *line;
    for (size_t k = 0; (line = list->entry(k, &name, text, sizeof text)) != NULL; k++) {
        fputs("| ", out);
        md_value(out, name);
        fputs(" | ", out);
        md(out, line, 1);
        fputs(" |\n", out);
    }
}

void polka_app_print_markdown(FILE *out) {
    fprintf(out, "%s\n\n# polka configuration keys\n\npolka: ", generated_note);
    md(out, polka_help_summary, 0);
    fputs(". Every key with its default and meaning, then the kinds some keys choose between; "
          "`polka help` prints the same table, as does the manual page polka(1).\n\n",
          out);
    char settings[512];
    md(out, polka_help_settings(settings, sizeof settings), 0);
    fputs("\n\n", out);
    char sections[POLKA_HELP_SECTIONS_MAX][POLKA_HELP_SECTION_SIZE];
    size_t count = polka_help_sections(sections, POLKA_HELP_SECTIONS_MAX);
    md_contents(out, sections, count);
    for (size_t s = 0; s < count; s++) md_section(out, sections[s]);
    size_t lists_count = 0;
    const polka_help_list *lists = polka_help_lists(&lists_count);
    for (size_t t = 0; t < lists_count; t++) md_list(out, &lists[t]);
}
