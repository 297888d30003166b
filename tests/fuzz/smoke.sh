#!/usr/bin/env bash
# CI: builds every fuzz harness and runs each a few seconds (FUZZ_SMOKE_SECONDS, default 5),
# so that they keep building and the seed corpus stays clean. tests/run_all.sh calls it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
exec "$here/run.sh" -t "${FUZZ_SMOKE_SECONDS:-5}" -j 0
