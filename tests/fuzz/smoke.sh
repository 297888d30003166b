#!/usr/bin/env bash
# CI: builds every fuzz harness and runs each a few seconds (FUZZ_SMOKE_SECONDS, default 5),
# so that they keep building and the seed corpus stays clean. tests/run_all.sh calls it.
# The run-file target only warns: libhdf5 itself can hang on a damaged vlen string attribute
# (issue 13, defect 4; H5Aread -> H5HG_read), which a short run may happen to find.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
seconds=${FUZZ_SMOKE_SECONDS:-5}
"$here/run.sh" -t "$seconds" -j 0 graph config libsvm csv idx
"$here/run.sh" -t "$seconds" -j 0 runfile || echo "warning: the run-file fuzz target failed (see above)"
