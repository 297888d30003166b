/* When a run checkpoints: the signals that stop it, the periodic saves, where the file may be
 * written, and the settings it must match. */
#include <errno.h>
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
#include "sim/plan/plan_impl.h"

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

void polka_ckpt_catch_signals(void) {
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

polka_status polka_ckpt_check_path(const polka_plan *plan) {
    const polka_run_spec *run = &plan->run;
    if (polka_control_is_batch(plan->learner.params.control)) return POLKA_OK; /* never saves */
    if (run->checkpoint[0] == '\0' && run->checkpoint_every == 0 && run->checkpoint_seconds <= 0)
        return POLKA_OK;
    char path[POLKA_PATH_LEN], dir[POLKA_PATH_LEN];
    polka_plan_checkpoint_path(plan, path, sizeof path);
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
