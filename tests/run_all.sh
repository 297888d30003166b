#!/usr/bin/env bash
# Installs what is missing, builds polka with warnings as errors and runs every test (ctest);
# then again in an AddressSanitizer + UndefinedBehaviorSanitizer build (build-asan beside
# BUILD_DIR; POLKA_SANITIZE=ON halts on the first UBSan report). Tests that cannot run under
# ASan, or whose code another test already runs there at a fraction of the time, carry the
# ctest label no_asan (say why where the label is set). Leak detection is off:
# Open MPI and HDF5 keep memory to their exit, which LeakSanitizer reports as leaks.
# POLKA_SKIP_ASAN=1 skips the second pass.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/experiments/install_deps.sh"
export BUILD_DIR=${BUILD_DIR:-$root/build-test}
asan_dir=${ASAN_BUILD_DIR:-$(dirname "$BUILD_DIR")/build-asan}
"$root/experiments/build.sh" -DPOLKA_WERROR=ON -DPOLKA_TESTS=ON
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# Every MPI_Init probes UCX and the cm transports (ofi, psm) before Open MPI falls back to ob1,
# which it picks on a machine without such hardware (pml_base_verbose): 0.37 s a process start,
# 0.16 s with ob1 named, the same transport. The suite starts polka and mpirun thousands of times.
export OMPI_MCA_pml=${OMPI_MCA_pml:-ob1}
start=$(date +%s)
(cd "$BUILD_DIR" && ctest --output-on-failure -j"$(nproc)" "$@")
echo "run_all: test suite in $(($(date +%s) - start)) s"
# Fuzz smoke (issue 13): every libFuzzer harness builds and runs a few seconds (tests/fuzz).
start=$(date +%s)
"$root/tests/fuzz/smoke.sh"
echo "run_all: fuzz smoke in $(($(date +%s) - start)) s"
[ "${POLKA_SKIP_ASAN:-0}" = 1 ] && exit 0
start=$(date +%s)
BUILD_DIR=$asan_dir "$root/experiments/build.sh" -DPOLKA_WERROR=ON -DPOLKA_TESTS=ON -DPOLKA_SANITIZE=ON
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1
(cd "$asan_dir" && ctest --output-on-failure -j"$(nproc)" -LE no_asan "$@")
echo "run_all: ASan + UBSan build and suite in $(($(date +%s) - start)) s"
