# Sourced by the tests that bound how fast a process reacts (signal_stop_test.sh,
# watchdog_test.sh): a process's own CPU time, read from /proc, which a loaded machine does not
# stretch as it stretches the wall clock, and waits for a state instead of fixed sleeps.
# HANG_SECONDS (default 60) bounds every wait.
HANG_SECONDS=${HANG_SECONDS:-60}
ticks=$(getconf CLK_TCK)

# cpu PID: the CPU seconds (user + system) process PID has used; empty once it is gone
cpu() {
    local stat
    stat=$(cat /proc/"$1"/stat 2>/dev/null) || return 0
    stat=${stat##*) } # the fields after "pid (comm) ": utime and stime are the 12th and 13th
    echo "$stat" | awk -v t="$ticks" '{ printf "%.2f\n", ($12 + $13) / t }'
}

# cpu_reaches PID SECONDS: waits until PID has used SECONDS of CPU (its work under way)
cpu_reaches() {
    local used
    for _ in $(seq 1 $((HANG_SECONDS * 20))); do
        used=$(cpu "$1")
        [ -z "$used" ] && { echo "FAIL: process $1 ended before using $2 s of CPU"; exit 1; }
        (($(echo "$used >= $2" | bc))) && return 0
        sleep 0.05
    done
    echo "FAIL: process $1 used only $used s of CPU in $HANG_SECONDS s"
    exit 1
}

# follow PID: polls PID until it ends; cpu_after is the CPU it used after cpu_at_signal, to
# within one poll (50 ms)
follow() {
    local used last=$cpu_at_signal
    while used=$(cpu "$1") && [ -n "$used" ]; do
        last=$used
        sleep 0.05
    done
    cpu_after=$(echo "$last - $cpu_at_signal" | bc)
}

# taken PID SIGNAL: waits until PID has taken SIGNAL (delivered to its handler: no longer
# pending for the process or its main thread)
taken() {
    local bit=$((1 << ($2 - 1))) shared own
    for _ in $(seq 1 $((HANG_SECONDS * 20))); do
        shared=$(sed -n 's/^ShdPnd:\t*//p' /proc/"$1"/status 2>/dev/null)
        own=$(sed -n 's/^SigPnd:\t*//p' /proc/"$1"/status 2>/dev/null)
        [ -z "$shared" ] && return 0 # ended
        ((((0x$shared | 0x$own) & bit) == 0)) && return 0
        sleep 0.05
    done
    echo "FAIL: signal $2 still pending for process $1 after $HANG_SECONDS s"
    exit 1
}

# handled PID [SIGNAL]: waits, up to 15 s, until PID catches SIGNAL (default 15, SIGTERM): its
# handler is installed (SigCgt)
handled() {
    local bit=$((1 << (${2:-15} - 1))) mask
    for _ in $(seq 1 300); do
        mask=$(sed -n 's/^SigCgt:\t*//p' /proc/"$1"/status 2>/dev/null)
        [ -n "$mask" ] && (((0x$mask & bit) != 0)) && return 0
        sleep 0.05
    done
    echo "FAIL: process $1 never caught signal ${2:-15} (in 15 s)"
    exit 1
}
