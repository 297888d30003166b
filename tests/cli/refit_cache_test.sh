#!/usr/bin/env bash
# refit_cache_test.sh POLKA PYTHON DIR: learner.refit_memory keeps the refit's kernel rows
# between its squared-hinge passes; on several blocks of training rows (3 000 rows, blocks of
# 512) the run is the same as recomputing them: compare_runs.py, models bit for bit.
set -euo pipefail
polka=$1 python=$2 dir=$3
tests=$(cd "$(dirname "$0")/.." && pwd)
rm -rf "$dir" && mkdir -p "$dir"
for memory in 0 64; do
    "$polka" run --quiet --centralized --set data.n_train=3000 --set data.n_test=200 \
        --set learner.refit=1e-4 --set learner.refit_iterations=3 \
        --set learner.refit_memory=$memory --set run.output="$dir/memory$memory.h5" >/dev/null
done
"$python" "$tests/python/compare_runs.py" "$dir/memory0.h5" "$dir/memory64.h5"
