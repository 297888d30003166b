#!/usr/bin/env bash
# CI: builds every fuzz harness and runs each a few seconds (FUZZ_SMOKE_SECONDS, default 5),
# so that they keep building and the seed corpus stays clean. tests/run_all.sh calls it.
# The run-file target counts faults inside libhdf5 itself (a loop in H5HG_read, a
# heap overflow under H5Aexists) apart ("upstream", run.sh) and fails only on polka's own.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
seconds=${FUZZ_SMOKE_SECONDS:-5}
"$here/run.sh" -t "$seconds" -j 0 graph config libsvm csv idx runfile checkpoint
