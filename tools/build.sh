#!/usr/bin/env bash
# Configures and builds polka into BUILD_DIR (default: build). Extra arguments go to cmake.
# SOURCE_DIR (default: this tree) builds another checkout the same way, e.g. an older
# revision's, whatever folder that revision kept its own build script in.
set -euo pipefail
root=${SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}
build=${BUILD_DIR:-$root/build}
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
cmake --build "$build" -j"$(nproc)"
