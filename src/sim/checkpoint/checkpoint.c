/* When a run checkpoints: the signals that stop it, the periodic saves, the file's name, the
 * settings it must match, and the metric rows it carries. */
#define _GNU_SOURCE /* O_TMPFILE */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/checkpoint/checkpoint_impl.h"
#include "polka/paths.h"
#include "polka/sim.h"
#include "polka/stop.h"
#include "sim/driver/sim_impl.h"

/* Seconds a process may go on after a SIGTERM, SIGINT or SIGUSR1 before it ends at once
 * (STOP_LAST_RESORT): only a call that polls nothing (a LAPACK factorisation, a blocking
 * read, a collective of a library) takes that long; the waits on other ranks give up
 * earlier (polka_net_wait), and writing the checkpoint disarms it. */
#define STOP_LAST_RESORT 45
#define TEXT(x)          #x
#define NUMBER_TEXT(x)   TEXT(x)

static void say(const char *text) {
    ssize_t ignored = write(STDERR_FILENO, text, strlen(text));
    (void)ignored;
}

/* The last resort: async-signal-safe calls only. */
static void on_alarm(int number) {
    (void)number;
    int stop = polka_stop_signal();
    say("polka run: still running " NUMBER_TEXT(STOP_LAST_RESORT) " s after ");
    say(polka_stop_signal_name(stop));
    say(" (stuck in a call that polls nothing): ended now, without a checkpoint\n");
    _exit(128 + stop);
}

/* The first signal is recorded (polka/stop.h): the round finishes, the ranks agree, then they
 * save and stop; the loops outside a round return at once. A second SIGINT (a second Ctrl-C)
 * ends the process at once; a second SIGTERM or SIGUSR1 (a launcher's copy) changes nothing. */
static void on_signal(int number) {
    if (number == SIGINT && polka_stop_signal() != 0) {
        say("polka run: a second SIGINT: ended now, without a checkpoint\n");
        _exit(128 + SIGINT);
    }
    if (polka_stop_signal() == 0) alarm(STOP_LAST_RESORT);
    polka_stop_note(number);
}

void polka_sim_catch_signals(void) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    sigaction(SIGTERM, &action, NULL);
    sigaction(SIGINT, &action, NULL);
    sigaction(SIGUSR1, &action, NULL);
    action.sa_handler = on_alarm;
    sigaction(SIGALRM, &action, NULL);
}

int polka_ckpt_signal(void) {
    return polka_stop_signal();
}

void polka_ckpt_saving(void) {
    alarm(0); /* the checkpoint's writing takes as long as it takes */
}

int polka_ckpt_wish(const polka_plan *plan, uint64_t round, uint64_t rounds, double last_save) {
    if (round >= rounds) return POLKA_CKPT_NONE; /* the run ends anyway */
    if (polka_stop_signal()) return POLKA_CKPT_STOP;
    size_t every = plan->run.checkpoint_every;
    if (every > 0 && round % every == 0) return POLKA_CKPT_SAVE;
    double seconds = plan->run.checkpoint_seconds;
    if (seconds > 0 && polka_now() - last_save >= seconds) return POLKA_CKPT_SAVE;
    return POLKA_CKPT_NONE;
}

void polka_ckpt_path(const polka_plan *plan, char *out, size_t size) {
    if (plan->run.checkpoint[0] != '\0')
        snprintf(out, size, "%s", plan->run.checkpoint);
    else if (plan->run.output[0] != '\0')
        snprintf(out, size, "%s.ckpt", plan->run.output);
    else
        snprintf(out, size, "polka.ckpt");
}

polka_status polka_ckpt_check_path(const polka_plan *plan) {
    const polka_run_spec *run = &plan->run;
    if (polka_control_is_batch(plan->learner.params.control)) return POLKA_OK; /* never saves */
    if (run->checkpoint[0] == '\0' && run->checkpoint_every == 0 && run->checkpoint_seconds <= 0)
        return POLKA_OK;
    char path[POLKA_PATH_LEN], dir[POLKA_PATH_LEN];
    polka_ckpt_path(plan, path, sizeof path);
    struct stat info;
    POLKA_CHECK(stat(path, &info) != 0 || !S_ISDIR(info.st_mode), POLKA_ERR_ARG,
                "run.checkpoint: '%s' is a directory (name a file in it)", path);
    polka_path_dir(path, dir, sizeof dir);
    POLKA_CHECK(stat(dir, &info) == 0 && S_ISDIR(info.st_mode), POLKA_ERR_ARG,
                "run.checkpoint: the directory '%s' of '%s' does not exist (create it first)", dir,
                path);
    POLKA_CHECK(access(dir, W_OK | X_OK) == 0, POLKA_ERR_ARG,
                "run.checkpoint: cannot write into the directory '%s' of '%s': %s", dir, path,
                strerror(errno));
    return POLKA_OK;
}

polka_status polka_ckpt_settings_text(const polka_plan *plan, char **out) {
    size_t count = 0, used = 0, cap = 4096;
    const polka_config_key *keys = polka_config_keys(&count);
    char *text = malloc(cap);
    POLKA_CHECK_ALLOC(text);
    text[0] = '\0';
    for (size_t k = 0; k < count; k++) {
        char value[POLKA_PATH_LEN + 64];
        polka_config_get(&plan->settings, &keys[k], value, sizeof value);
        size_t need = strlen(keys[k].name) + strlen(value) + 5;
        if (used + need >= cap) {
            cap = 2 * (used + need);
            char *grown = realloc(text, cap);
            if (grown == NULL) free(text);
            POLKA_CHECK_ALLOC(grown);
            text = grown;
        }
        used += (size_t)snprintf(text + used, cap - used, "%s = %s\n", keys[k].name, value);
    }
    *out = text;
    return POLKA_OK;
}

void polka_history_spill(polka_history *h, const char *dir) {
    if (h->spilled || h->rows > 0) return;
    int fd = -1;
#ifdef O_TMPFILE
    fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
#endif
    if (fd < 0) { /* a file system without O_TMPFILE: a fresh name, unlinked at once */
        char name[4096];
        snprintf(name, sizeof name, "%s/.polka-rows-XXXXXX", dir);
        fd = mkstemp(name);
        if (fd >= 0 && unlink(name) != 0) {
            close(fd);
            fd = -1;
        }
    }
    if (fd < 0) return; /* kept in memory */
    h->spilled = 1;
    h->fd = fd;
}

static polka_status history_grow(polka_history *h) {
    size_t cap = h->cap ? 2 * h->cap : 16;
    double *rounds = realloc(h->round, cap * sizeof *rounds);
    if (rounds) h->round = rounds;
    double *samples_ = realloc(h->samples, cap * sizeof *samples_);
    if (samples_) h->samples = samples_;
    double *metrics = h->spilled ? NULL : realloc(h->metrics, cap * h->width * sizeof *metrics);
    if (metrics) h->metrics = metrics;
    POLKA_CHECK(rounds && samples_ && (metrics || h->spilled), POLKA_ERR_MEM,
                "out of memory for the metric rows of a checkpoint");
    h->cap = cap;
    return POLKA_OK;
}

/* The bytes of row r in the spill file, written or read whole (EINTR and short transfers). */
static polka_status spill_io(const polka_history *h, size_t r, double *row, int write) {
    size_t bytes = h->width * sizeof *row, done = 0;
    off_t at = (off_t)r * (off_t)bytes;
    while (done < bytes) {
        ssize_t got = write ? pwrite(h->fd, (char *)row + done, bytes - done, at + (off_t)done)
                            : pread(h->fd, (char *)row + done, bytes - done, at + (off_t)done);
        if (got < 0 && errno == EINTR) continue;
        POLKA_CHECK(got > 0, POLKA_ERR_IO, "cannot %s the metric rows' spill file: %s",
                    write ? "write" : "read", got < 0 ? strerror(errno) : "it is short");
        done += (size_t)got;
    }
    return POLKA_OK;
}

polka_status polka_history_add(polka_history *h, double round, double samples, const double *row) {
    if (h->rows == h->cap) POLKA_CALL(history_grow(h));
    if (h->spilled)
        POLKA_CALL(spill_io(h, h->rows, (double *)row, 1));
    else
        memcpy(h->metrics + h->rows * h->width, row, h->width * sizeof *row);
    h->round[h->rows] = round;
    h->samples[h->rows] = samples;
    h->rows++;
    return POLKA_OK;
}

polka_status polka_history_row(const polka_history *h, size_t r, double *row) {
    if (h->read_row) return h->read_row(h->source, r, row);
    if (h->spilled) return spill_io(h, r, row, 0);
    memcpy(row, h->metrics + r * h->width, h->width * sizeof *row);
    return POLKA_OK;
}

void polka_history_free(polka_history *h) {
    free(h->round);
    free(h->samples);
    free(h->metrics);
    if (h->spilled) close(h->fd);
    *h = (polka_history){.width = h->width};
}
