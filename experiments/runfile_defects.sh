#!/usr/bin/env bash
# runfile_defects.sh [POLKA]: replays the run-file, graph and MPI defects polka once
# had (the cases 1-5, 8, 10a, 10b, the stalled rank, the full CSV file) against POLKA (default
# build/polka) and prints, for each, the exit code, the seconds taken and polka's message.
# The crafted run files come from tests/python/craft_runfiles.py (h5py). A case is killed after
# LIMIT seconds (default 75), and the serial commands get at most 4 GB of address space
# (ulimit -v), so that a build without the fixes can be replayed on a shared machine.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
polka=$(realpath "${1:-$root/build/polka}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1
/usr/bin/python3 "$root/tests/python/craft_runfiles.py" "$work" >/dev/null
cd "$work" || exit 1

limit=${LIMIT:-75} # above the default --read-timeout (60 s)

# case NAME COMMAND...: runs COMMAND (at most LIMIT s) and prints its outcome.
case_() {
    local name=$1
    shift
    local start=$SECONDS
    timeout "$limit" "$@" >"$work/out" 2>"$work/err"
    local code=$?
    local message
    message=$(grep -h '^polka\|^mse\|^diameter' "$work/err" "$work/out" | head -2)
    [ "$code" -eq 124 ] && message="(killed after $limit s: hang)"
    printf '%-22s exit %3d  %3d s  %s\n' "$name" "$code" $((SECONDS - start)) "$message"
}

# the serial commands with at most 4 GB of address space
capped=(sh -c 'ulimit -v 4000000 && exec "$@"' capped)

case_ "1 agents=2^61" "${capped[@]}" "$polka" report agents_overflow.h5
case_ "2 1-D metrics" "${capped[@]}" "$polka" report metrics_1d.h5
case_ "3 2^31x2^33 model" "${capped[@]}" "$polka" predict --model model_huge.h5 --data data.svm
case_ "4a kernel type" "${capped[@]}" "$polka" predict --model kernel_type.h5 --data data.svm
case_ "4b heap loop" "${capped[@]}" "$polka" predict --model heap_loop.h5 --data data.svm
case_ "5 /dev/full, 4 ranks" mpiexec --oversubscribe -n 4 "$polka" run --quiet \
    --set run.output=/dev/full
case_ "5 /dev/full, 1 rank" "$polka" run --quiet --set run.output=/dev/full
case_ "5 disk full midway" mpiexec --oversubscribe -n 4 sh -c "trap '' XFSZ; ulimit -f 100; \
    exec $polka run --quiet --set data.n_train=4000 --set data.n_test=100 \
    --set run.log_every=100 --set run.output=$work/midway.h5"
# the path written directly: `polka graph generate` also computed the exact diameter
awk 'BEGIN { for (i = 0; i < 1000000; i++) print i, i + 1 }' >path.txt
case_ "8 path of 10^6 edges" sh -c "'$polka' graph info path.txt | grep diameter >&2"
case_ "10a 0-row model" "${capped[@]}" "$polka" predict --model zero_rows.h5 --data data.svm
case_ "10b degree 2^32+3" "${capped[@]}" "$polka" predict --model degree_wrap.h5 --data data.svm
case_ "CSV on /dev/full" mpiexec --oversubscribe -n 3 "$polka" run --quiet \
    --set run.csv=/dev/full --set data.n_train=600 --set data.n_test=100
case_ "SIGSTOP rank 2" sh -c "bash '$root/tests/mpi/watchdog_test.sh' '$polka' '$work' 2 | grep '^polka' >&2"
