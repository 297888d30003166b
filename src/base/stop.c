/* The stop request of a signal (polka/stop.h). The handler writes the time, then the number:
 * both volatile, so a reader that sees the number sees the time. */
#include <signal.h>
#include <time.h>

#include "polka/stop.h"

static volatile sig_atomic_t requested; /* the signal, 0 when none */
static volatile time_t requested_sec;   /* CLOCK_MONOTONIC of the first request */
static volatile long requested_nsec;

void polka_stop_note(int number) {
    if (requested == 0) {
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now); /* async-signal-safe (POSIX) */
        requested_sec = now.tv_sec;
        requested_nsec = now.tv_nsec;
    }
    requested = number;
}

int polka_stop_signal(void) {
    return requested;
}

const char *polka_stop_signal_name(int number) {
    return number == SIGTERM   ? "SIGTERM"
           : number == SIGINT  ? "SIGINT"
           : number == SIGUSR1 ? "SIGUSR1"
                               : "a signal";
}

polka_status polka_stop_check(const char *what) {
    int number = requested;
    if (number == 0) return POLKA_OK;
    return polka_error_set(POLKA_INTERRUPTED, "stopped by %s during %s",
                           polka_stop_signal_name(number), what);
}

double polka_stop_seconds(void) {
    if (requested == 0) return 0.0;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - requested_sec) + 1e-9 * (double)(now.tv_nsec - requested_nsec);
}

int polka_stop_overdue(void) {
    return polka_stop_seconds() > POLKA_STOP_GRACE;
}

polka_status polka_stop_check_overdue(const char *what) {
    return polka_stop_overdue() ? polka_stop_check(what) : POLKA_OK;
}

void polka_stop_reset(void) {
    requested = 0;
}
