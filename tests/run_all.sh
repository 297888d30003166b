#!/usr/bin/env bash
# Installs what is missing, builds polka with warnings as errors and runs every test (ctest).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/experiments/install_deps.sh"
export BUILD_DIR=${BUILD_DIR:-$root/build-test}
"$root/experiments/build.sh" -DPOLKA_WERROR=ON -DPOLKA_TESTS=ON
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
cd "$BUILD_DIR"
ctest --output-on-failure -j"$(nproc)" "$@"
# Fuzz smoke (issue 13): every libFuzzer harness builds and runs a few seconds (tests/fuzz).
"$root/tests/fuzz/smoke.sh"
