#!/usr/bin/env bash
# The quick tier, for daily work: builds polka with its tests into BUILD_DIR (default
# build-test, the full suite's directory, so a change rebuilds only what it touched) and runs
# the tests labelled quick (tests/CMakeLists.txt says which), POLKA_TEST_JOBS at once (default
# 4 a core, as run_all.sh). Arguments go to ctest. The full suite, which CI runs, is
# tests/run_all.sh.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/tools/install_deps.sh"
export BUILD_DIR=${BUILD_DIR:-$root/build-test}
start=$(date +%s)
"$root/tools/build.sh" -DPOLKA_WERROR=ON -DPOLKA_TESTS=ON
echo "quick: build in $(($(date +%s) - start)) s"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_pml=${OMPI_MCA_pml:-ob1} # as run_all.sh: skips the transports' probes
start=$(date +%s)
(cd "$BUILD_DIR" && ctest --output-on-failure -j"${POLKA_TEST_JOBS:-$((4 * $(nproc)))}" -L quick "$@")
echo "quick: $(cd "$BUILD_DIR" && ctest -N -L quick | sed -n 's/^Total Tests: //p') tests in $(($(date +%s) - start)) s"
