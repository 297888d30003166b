#!/usr/bin/env bash
# watchdog_test.sh POLKA DIR RANK: a 4-rank `polka run` with run.watchdog = 5 whose rank RANK
# gets SIGSTOP once the run is under way ends within the test's timeout, with exit code
# non-zero and one message naming rank RANK (without the watchdog it would wait forever).
# The rank is stopped once it has used a second of CPU (its setup's collectives behind it),
# however loaded the machine (proc_clock.sh); the watchdog's 5 s are wall time by design, and
# the run must end within HANG_SECONDS of the stop (a wall-clock bound from the launch failed at
# ctest -j8 beside the sanitizer pass: the rank took 92 s to use its first second of CPU).
set -u
polka=$1 dir=$2 stop=$3
. "$(cd "$(dirname "$0")/../lib" && pwd)/proc_clock.sh"
mkdir -p "$dir"
err=$dir/watchdog_rank$stop.err
tag=watchdog-test-$stop-$$
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1
mpiexec --oversubscribe -n 4 "$polka" run --quiet --set data.n_train=4000000 \
    --set data.n_test=100 --set run.log_every=4000000 --set run.watchdog=5 \
    --set "run.csv=$dir/$tag.csv" 2>"$err" &
launcher=$!
# the rank's pid, from its environment, once all four ranks run
victim=""
for _ in $(seq 1 300); do
    for pid in $(pgrep -f -- "$tag"); do
        rank=$(tr '\0' '\n' </proc/"$pid"/environ 2>/dev/null | sed -n 's/^OMPI_COMM_WORLD_RANK=//p')
        [ "$rank" = "$stop" ] && victim=$pid
    done
    [ -n "$victim" ] && [ "$(pgrep -f -- "$tag" | wc -l)" -ge 5 ] && break
    sleep 0.1
done
if [ -z "$victim" ]; then echo "FAIL: rank $stop never started"; kill "$launcher"; exit 1; fi
cpu_reaches "$victim" 1 # under way: past the setup's collectives
kill -STOP "$victim"
start=$(date +%s)
for _ in $(seq 1 $((HANG_SECONDS * 10))); do kill -0 "$launcher" 2>/dev/null || break; sleep 0.1; done
hung=0
if kill -0 "$launcher" 2>/dev/null; then
    hung=1
    pkill -KILL -f -- "$tag"
    kill -KILL "$launcher" 2>/dev/null
fi
wait "$launcher"
code=$?
[ "$hung" = 0 ] || code=124
took=$(($(date +%s) - start))
kill -KILL "$victim" 2>/dev/null
echo "--- exit $code after ${took} s, stderr:"
cat "$err"
status=0
if [ "$code" -eq 0 ]; then echo "FAIL: exit code 0"; status=1; fi
if [ "$code" -eq 124 ]; then echo "FAIL: still running $HANG_SECONDS s after the stop (the stopped rank stalled the run)"; status=1; fi
if ! grep -q "^polka run: watchdog: rank $stop did not reach .* within 5 s (stopped or stalled)" "$err"; then
    echo "FAIL: no message naming rank $stop"; status=1
fi
if [ "$(grep -c '^polka' "$err")" -ne 1 ]; then echo "FAIL: not exactly one polka line"; status=1; fi
exit $status
