#!/usr/bin/env bash
# log_agents_test.sh POLKA PYTHON MPIEXEC DIR: run.log_agents = 3 of 10 agents keeps the
# metric columns of agents 0, 4, 8 (stride ceil(10/3) = 4) in the run file and the CSV,
# equal bit for bit to those columns of the full run (the timers aside), every final model,
# and the summary over all agents; polka report and the Python package read the file.
# Environment: PYTHONPATH with the polka package.
set -euo pipefail
polka=$1 python=$2 mpiexec=$3 dir=$4
rm -rf "$dir" && mkdir -p "$dir"
run() { # NAME SETTINGS...: 10 agents on 2 ranks into DIR/NAME.{h5,csv,out}
    local name=$1
    shift
    $mpiexec --oversubscribe -n 2 "$polka" run --set net.agents=10 --set net.graph=ring \
        --set data.n_train=2000 --set data.n_test=300 --set run.log_every=500 "$@" \
        --set run.output="$dir/$name.h5" --set run.csv="$dir/$name.csv" >"$dir/$name.out"
}
run full
run some --set run.log_agents=3
diff <(grep "^summary: test error" "$dir/full.out") <(grep "^summary: test error" "$dir/some.out") ||
    { echo "the summary does not cover every agent"; exit 1; }
"$python" - "$dir" "$(cd "$(dirname "$0")/../python" && pwd)" <<'PY'
import csv, sys
import h5py, numpy as np
import polka
sys.path.insert(0, sys.argv[2])  # tests/python: run_models
import run_models  # noqa: E402

d = sys.argv[1]
full, some = h5py.File(f"{d}/full.h5", "r"), h5py.File(f"{d}/some.h5", "r")
assert some["metrics"].attrs["agent_stride"] == 4 and some["metrics"].attrs["agents"] == 10
assert "agent_stride" not in full["metrics"].attrs
for name in full["metrics"]:
    a, b = full["metrics"][name][()], some["metrics"][name][()]
    if a.ndim == 1:
        assert np.array_equal(a, b), name
        continue
    assert b.shape == (a.shape[0], 3), (name, b.shape)
    if name != "wall_time" and not name.startswith("time_"):
        assert a[:, [0, 4, 8]].tobytes() == b.tobytes(), name
models_full, models_some = run_models.kernel_models(full), run_models.kernel_models(some)
assert sorted(models_full) == sorted(models_some) == list(range(10))
for agent in models_full:
    for part in (0, 1):
        assert models_full[agent][part].tobytes() == models_some[agent][part].tobytes()

def rows(path):  # the CSV without its timers
    with open(path) as f:
        return [{k: v for k, v in r.items() if not k.startswith("time_")} for r in csv.DictReader(f)]
logged = [r for r in rows(f"{d}/full.csv") if r["agent"] in ("0", "4", "8")]
assert rows(f"{d}/some.csv") == logged, "CSV rows differ"

run = polka.open(f"{d}/some.h5")
assert list(run.logged_agents) == [0, 4, 8] and run.agents == 10
assert run.values("test_score").shape == (run.rows, 3)
assert list(run.metrics["agent"].values) == [0, 4, 8]
print("log_agents: agents 0, 4, 8 of 10 logged, the same cells as the full run")
PY
"$polka" report "$dir/some.h5" | grep -E "some.h5 +decentralized +10 " >/dev/null ||
    { echo "polka report: $("$polka" report "$dir/some.h5")"; exit 1; }
