#!/usr/bin/env bash
# The full test suite (CI runs it through .ci/run; the quick tier is tests/quick.sh). Installs
# what is missing, builds polka with warnings as errors and runs every test (ctest); runs the
# numerical tests again under the other OpenBLAS kernel families this CPU can run and with
# OpenBLAS's own thread count (blas_kernels.py); builds and runs every fuzz harness a few
# seconds (tests/fuzz/smoke.sh); then every test again in an AddressSanitizer +
# UndefinedBehaviorSanitizer build (build-asan beside BUILD_DIR; POLKA_SANITIZE=ON halts on the
# first UBSan report). Tests that cannot run under ASan, or whose code another test already
# runs there at a fraction of the time, carry the ctest label no_asan (say why where the label
# is set). Leak detection is off: Open MPI and HDF5 keep memory to their exit, which
# LeakSanitizer reports as leaks. POLKA_SKIP_ASAN=1 skips the sanitizer pass.
#
# Most tests wait more than they compute (process starts, MPI's launch, a program's own
# timeouts): ctest runs POLKA_TEST_JOBS of them at once (default 4 per core; a test that
# computes on several processes counts as several, its PROCESSORS). The sanitizer build starts
# beside the plain build, at a lower priority, and its pass goes on beside the plain pass, the
# BLAS kernels' pass and the fuzz smoke (at most POLKA_ASAN_JOBS tests at once, default 2 per
# core). At the same priority and 4 tests a core the sanitizer pass ended sooner but the plain
# chain later (741 s against 724 s), and a 4-rank test needed 92 s for its first CPU second. The tests that bound a reaction time
# measure the process's own CPU time, so the load does not turn them red (tests/lib/proc_clock.sh).
# Each part writes its log under BUILD_DIR/run_all/, printed when the part ends; the exit
# status is the first failing part's.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/tools/install_deps.sh"
export BUILD_DIR=${BUILD_DIR:-$root/build-test}
asan_dir=${ASAN_BUILD_DIR:-$(dirname "$BUILD_DIR")/build-asan}
jobs=${POLKA_TEST_JOBS:-$((4 * $(nproc)))}
asan_jobs=${POLKA_ASAN_JOBS:-$((2 * $(nproc)))}
suite_start=$(date +%s)

# part NAME COMMAND...: runs COMMAND with its output in the part's log, then prints the log
# and the part's time; returns COMMAND's status.
part() {
    local name=$1 start status=0
    shift
    start=$(date +%s)
    "$@" >"$logs/$name.log" 2>&1 || status=$?
    cat "$logs/$name.log"
    echo "run_all: $name $([ $status -eq 0 ] && echo passed || echo "FAILED ($status)") in $(($(date +%s) - start)) s"
    return $status
}

logs=$BUILD_DIR/run_all
rm -rf "$logs"
mkdir -p "$logs"

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# Every MPI_Init probes UCX and the cm transports (ofi, psm) before Open MPI falls back to ob1,
# which it picks on a machine without such hardware (pml_base_verbose): 0.37 s a process start,
# 0.16 s with ob1 named, the same transport. The suite starts polka and mpirun thousands of times.
export OMPI_MCA_pml=${OMPI_MCA_pml:-ob1}

plain() { (cd "$BUILD_DIR" && ctest --output-on-failure -j"$jobs" "$@"); }
kernels() { /usr/bin/python3 "$root/tests/blas_kernels.py" "$BUILD_DIR"; }
asan_build() {
    BUILD_DIR=$asan_dir nice -n 10 "$root/tools/build.sh" -DPOLKA_WERROR=ON \
        -DPOLKA_TESTS=ON -DPOLKA_SANITIZE=ON
}
fuzz() { "$root/tests/fuzz/smoke.sh"; }
asan() {
    export ASAN_OPTIONS=detect_leaks=0:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1
    (cd "$asan_dir" && ctest --output-on-failure -j"$asan_jobs" -LE no_asan "$@")
}

# kill_tree PID: the process and all it started (the sanitizer chain, when the build fails).
kill_tree() {
    local child
    for child in $(pgrep -P "$1"); do kill_tree "$child"; done
    kill "$1" 2>/dev/null || true
}

# The sanitizer build (at a lower priority) and its pass behind, from the start; the plain
# build, its pass, the BLAS kernels' and the fuzz smoke in front.
status=0
behind=""
if [ "${POLKA_SKIP_ASAN:-0}" != 1 ]; then
    (part asan_build asan_build && part asan_tests asan "$@") &
    behind=$!
fi
start=$(date +%s)
if ! "$root/tools/build.sh" -DPOLKA_WERROR=ON -DPOLKA_TESTS=ON; then
    [ -z "$behind" ] || kill_tree "$behind"
    echo "run_all: the build FAILED" >&2
    exit 1
fi
echo "run_all: build in $(($(date +%s) - start)) s"
part tests plain "$@" || status=$?
part blas_kernels kernels || { [ $status -ne 0 ] || status=$?; }
part fuzz_smoke fuzz || { [ $status -ne 0 ] || status=$?; }
if [ -n "$behind" ]; then wait "$behind" || { [ $status -ne 0 ] || status=$?; }; fi
echo "run_all: $([ $status -eq 0 ] && echo passed || echo FAILED) in $(($(date +%s) - suite_start)) s"
exit $status
