#!/usr/bin/env bash
# older_models_test.sh POLKA PYTHON MPIEXEC DIR: a run file's models in the older layout (a
# group /models/agent_NNNN per agent, written by polka before the concatenated /models; made
# here from a new file by tests/python/run_models.py's to_agent_groups) give polka predict the same
# predictions as the new layout, agent by agent; compare_runs.py reads both layouts alike.
set -euo pipefail
polka=$1 python=$2 mpiexec=$3 dir=$4
tests=$(cd "$(dirname "$0")/.." && pwd)
rm -rf "$dir" && mkdir -p "$dir"
settings=(--set net.agents=5 --set data.n_train=1000 --set data.n_test=200)
$mpiexec --oversubscribe -n 2 "$polka" run --quiet "${settings[@]}" --set run.output="$dir/new.h5" \
    >/dev/null
"$polka" data multidist -o "$dir/md.svm" "${settings[@]}" >/dev/null
cp "$dir/new.h5" "$dir/older.h5"
"$python" - "$dir/older.h5" "$tests/python" <<'PY'
import sys
import h5py
sys.path.insert(0, sys.argv[2])
import run_models  # noqa: E402
with h5py.File(sys.argv[1], "r+") as f:
    run_models.to_agent_groups(f)
    assert sorted(f["models"]) == [f"agent_{a:04d}" for a in range(5)], sorted(f["models"])
PY
for agent in 0 2 4; do
    "$polka" predict --model "$dir/new.h5:$agent" --data "$dir/md.svm.t" --output "$dir/new_$agent.txt" >/dev/null
    "$polka" predict --model "$dir/older.h5:$agent" --data "$dir/md.svm.t" --output "$dir/older_$agent.txt" >/dev/null
    cmp "$dir/new_$agent.txt" "$dir/older_$agent.txt" ||
        { echo "FAIL: agent $agent predicts otherwise from the older layout"; exit 1; }
done
"$python" "$tests/python/compare_runs.py" "$dir/new.h5" "$dir/older.h5"
echo "PASS: the older layout predicts as the new one (agents 0, 2, 4)"
