/*
 * polka data split: the realised per-agent class histogram of a configuration (the samples of
 * each class every agent learns from over the run), printed, and written as CSV or a figure.
 */
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "app_impl.h"
#include "polka/paths.h"
#include "polka/sim.h"

extern char **environ;

static void print_histogram(const polka_plan *plan, const polka_class_histogram *h) {
    printf("data.split = %s, %zu agents, %llu training samples (data.source = %s)\n",
           polka_split_kind_name(plan->data.split), h->agents, (unsigned long long)h->samples,
           polka_source_kind_name(plan->data.source));
    printf("%6s", "agent");
    for (size_t c = 0; c < h->classes; c++) printf(" %6zu", c);
    printf(" %7s\n", "total");
    for (size_t a = 0; a < h->agents; a++) {
        size_t total = 0;
        printf("%6zu", a);
        for (size_t c = 0; c < h->classes; c++) {
            printf(" %6zu", h->counts[a * h->classes + c]);
            total += h->counts[a * h->classes + c];
        }
        printf(" %7zu\n", total);
    }
}

/* agent,class_0,...: one row per agent; the first comment line names the configuration. */
typedef struct {
    const polka_plan *plan;
    const polka_class_histogram *h;
} split_table;

static polka_status write_csv(const char *path, void *context) {
    const polka_plan *plan = ((const split_table *)context)->plan;
    const polka_class_histogram *h = ((const split_table *)context)->h;
    FILE *out = fopen(path, "w");
    POLKA_CHECK(out != NULL, POLKA_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
    char alpha[64] = "";
    if (plan->data.split == POLKA_SPLIT_DIRICHLET)
        snprintf(alpha, sizeof alpha, " alpha=%g", plan->data.split_knobs.alpha);
    if (plan->data.split == POLKA_SPLIT_SHARDS)
        snprintf(alpha, sizeof alpha, " k=%zu", plan->data.split_knobs.shards);
    fprintf(out, "# split=%s%s quantity_sigma=%g source=%s\nagent",
            polka_split_kind_name(plan->data.split), alpha, plan->data.quantity_sigma,
            polka_source_kind_name(plan->data.source));
    for (size_t c = 0; c < h->classes; c++) fprintf(out, ",class_%zu", c);
    for (size_t a = 0; a < h->agents; a++) {
        fprintf(out, "\n%zu", a);
        for (size_t c = 0; c < h->classes; c++) fprintf(out, ",%zu", h->counts[a * h->classes + c]);
    }
    fprintf(out, "\n");
    int failed = ferror(out) | (fclose(out) != 0);
    POLKA_CHECK(!failed, POLKA_ERR_IO, "error while writing '%s'", path);
    return POLKA_OK;
}

/* python/polka/plot_cli.py split CSV -o FIGURE, with the system python (POLKA_PYTHON,
 * POLKA_PLOT). */
static polka_status draw_figure(const char *csv, const char *figure) {
    const char *python = getenv("POLKA_PYTHON") ? getenv("POLKA_PYTHON") : "/usr/bin/python3";
    const char *plot = getenv("POLKA_PLOT") ? getenv("POLKA_PLOT") : POLKA_PLOT_SCRIPT;
    char *args[] = {(char *)python, (char *)plot, "split", (char *)csv, "-o", (char *)figure, NULL};
    pid_t pid;
    fflush(stdout); /* the table before the plotter's line */
    int error = posix_spawn(&pid, python, NULL, NULL, args, environ), code = 0;
    POLKA_CHECK(error == 0, POLKA_ERR_IO, "cannot run %s: %s", python, strerror(error));
    POLKA_CHECK(waitpid(pid, &code, 0) == pid && WIFEXITED(code) && WEXITSTATUS(code) == 0,
                POLKA_ERR_IO, "%s %s split %s -o %s failed (the CSV is written)", python, plot, csv,
                figure);
    return POLKA_OK;
}

static int ends_with(const char *text, const char *suffix) {
    size_t n = strlen(text), k = strlen(suffix);
    return n >= k && strcmp(text + n - k, suffix) == 0;
}

polka_status polka_data_split_outputs(const char *output, char *csv, size_t size) {
    csv[0] = '\0';
    if (output == NULL) return POLKA_OK;
    int figure =
        ends_with(output, ".png") || ends_with(output, ".pdf") || ends_with(output, ".svg");
    POLKA_CHECK(figure || ends_with(output, ".csv"), POLKA_ERR_ARG,
                "-o '%s': the table is FILE.csv, a figure FILE.png, .pdf or .svg", output);
    int written = snprintf(csv, size, figure ? "%s.csv" : "%s", output);
    POLKA_CHECK(written > 0 && (size_t)written < size, POLKA_ERR_ARG, "-o: path too long");
    return POLKA_OK;
}

polka_status polka_data_split(const polka_plan *plan, int ranks, const char *output) {
    polka_class_histogram h;
    POLKA_CALL(polka_sim_class_histogram(plan, (size_t)ranks, &h));
    print_histogram(plan, &h);
    char csv[POLKA_PATH_LEN + 8]; /* a figure has its numbers beside it, FIGURE.csv */
    polka_status status = polka_data_split_outputs(output, csv, sizeof csv);
    split_table table = {plan, &h};
    if (status == POLKA_OK && csv[0]) status = polka_write_through_temp(csv, write_csv, &table);
    if (status == POLKA_OK && csv[0] && strcmp(csv, output) != 0) status = draw_figure(csv, output);
    polka_class_histogram_free(&h);
    return status;
}
