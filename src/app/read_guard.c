/* A deadline on reading a run file: some damaged HDF5 files make libhdf5 itself loop forever
 * (a global heap collection whose object sizes wrap the parse pointer; h5py hangs on them too),
 * and no check before the read can see it. The serial commands arm an alarm around the read;
 * when it fires, the process prints one message and exits 1. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app_impl.h"

static char message[1024];
static size_t message_len;

static void on_alarm(int signal_number) {
    (void)signal_number;
    /* only async-signal-safe calls: the message was built when the alarm was armed */
    ssize_t written = write(STDERR_FILENO, message, message_len);
    (void)written;
    _exit(1);
}

polka_status polka_app_read_timeout_parse(const char *text, unsigned *seconds) {
    char *end = NULL;
    unsigned long value = strtoul(text, &end, 10);
    POLKA_CHECK(text[0] >= '0' && text[0] <= '9' && *end == '\0' && value <= 86400, POLKA_ERR_ARG,
                "--read-timeout: '%s' is not a number of seconds in [0, 86400]", text);
    *seconds = (unsigned)value;
    return POLKA_OK;
}

void polka_app_read_deadline(const char *command, const char *path, unsigned seconds) {
    if (seconds == 0) return; /* no deadline */
    int len = snprintf(message, sizeof message,
                       "polka %s: run file '%s' not read within %u s: it is damaged in a way "
                       "that makes libhdf5 loop (--read-timeout sets the limit)\n",
                       command, path, seconds);
    message_len = len < 0 ? 0 : (size_t)len < sizeof message ? (size_t)len : sizeof message - 1;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_alarm;
    sigemptyset(&action.sa_mask);
    sigaction(SIGALRM, &action, NULL);
    alarm(seconds);
}

void polka_app_read_done(void) {
    alarm(0);
}
