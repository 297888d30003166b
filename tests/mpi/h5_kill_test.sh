#!/bin/sh
# h5_kill_test.sh MPIEXEC TEST_H5LOG PYTHON CHECK_H5_PY [PERIOD_MS]
# Starts `test_runfile --slow FILE 10 PERIOD_MS` on 2 ranks (a row every PERIOD_MS = 50 ms),
# kills the ranks and then mpiexec with SIGKILL about a second after the first row, and
# checks with h5py that FILE opens and holds the same number (>= 1) of complete rows in
# every metric. What it starts is killed by pid (the ranks write theirs next to FILE), and
# the ranks stop by themselves after 10 s in any case. PERIOD_MS = 0 appends continuously,
# so that the kill lands inside an append (a stress test; not run by ctest).
mpiexec=$1
test_bin=$2
python=$3
check=$4
period=${5:-50}
dir=$(mktemp -d "${TMPDIR:-/tmp}/polka_h5kill.XXXXXX") || exit 1
file=$dir/killed.h5
launcher=""

rank_pids() {
    cat "$file".pid.* 2>/dev/null
}

cleanup() {
    for pid in $(rank_pids) $launcher; do kill -KILL "$pid" 2>/dev/null; done
    rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

"$mpiexec" --oversubscribe -n 2 "$test_bin" --slow "$file" 10 "$period" &
launcher=$!

# Wait (at most 30 s) until both ranks have written their pid and the first row is written.
tries=0
while [ "$(rank_pids | wc -l)" -lt 2 ] || [ ! -e "$file.started" ]; do
    tries=$((tries + 1))
    if [ $tries -gt 300 ] || ! kill -0 "$launcher" 2>/dev/null; then
        echo "FAIL: the writer did not start"
        exit 1
    fi
    sleep 0.1
done
sleep 1
if ! kill -0 "$launcher" 2>/dev/null; then
    echo "FAIL: the writer ended before it was killed"
    exit 1
fi
pids=$(rank_pids)
echo "killing ranks $(echo $pids) and mpiexec $launcher with SIGKILL"
kill -KILL $pids
# Give mpiexec up to 2 s to reap its dead ranks (no zombies left), then kill it too.
tries=0
while kill -0 "$launcher" 2>/dev/null && [ $tries -lt 20 ]; do
    tries=$((tries + 1))
    sleep 0.1
done
kill -KILL "$launcher" 2>/dev/null
wait "$launcher" 2>/dev/null
launcher=""

timeout 60 "$python" "$check" --killed "$file"
