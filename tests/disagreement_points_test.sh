#!/usr/bin/env bash
# disagreement_points_test.sh POLKA DIR: with run.log_test = K the disagreement is measured on
# the first K test points at every log step, the last included (README "run.log_test"), and
# the second pass that needs the network average first evaluates the models there only when
# the agents' test values do not fit in memory (src/sim/driver/decentral.c, KEPT_TEST_VALUES:
# 2^23 doubles a rank). 64 agents, 270 000 test points:
#   a  2 ranks (32 agents × 270 000 values: not kept, evaluated again on K points), K = 100
#   b  4 ranks (16 agents: kept), K = 100
#   c  4 ranks, no run.log_test (the disagreement on every point)
# a and b agree on every metric (the disagreement to 1e-10: f̄'s sum is reduced per rank);
# the last row of a and c has the same scores (the whole test set) but not the same
# disagreement (100 points against 270 000).
set -euo pipefail
polka=$1 dir=$2
rm -rf "$dir"
mkdir -p "$dir"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1
common=(--quiet --set net.agents=64 --set net.graph=ring --set data.n_train=2560
    --set data.n_test=270000 --set run.log_every=1280)
mpiexec --oversubscribe -n 2 "$polka" run "${common[@]}" --set run.log_test=100 \
    --set run.csv="$dir/a.csv" > /dev/null
mpiexec --oversubscribe -n 4 "$polka" run "${common[@]}" --set run.log_test=100 \
    --set run.csv="$dir/b.csv" > /dev/null
mpiexec --oversubscribe -n 4 "$polka" run "${common[@]}" --set run.csv="$dir/c.csv" > /dev/null
/usr/bin/python3 - "$dir" <<'PY'
import csv, sys
d = sys.argv[1]
def rows(name):
    with open(f"{d}/{name}.csv") as f:
        return list(csv.DictReader(f))
a, b, c = rows("a"), rows("b"), rows("c")
failures = []
timers = {"time_compute", "time_exchange", "time_update"}
if len(a) != len(b) or len(a) != len(c) or len(a) != 128:
    failures.append(f"rows: {len(a)}, {len(b)}, {len(c)} (expected 128 each)")
for ra, rb in zip(a, b):
    for key in ra:
        if key in timers:
            continue
        x, y = float(ra[key]), float(rb[key])
        same = abs(x - y) <= 1e-10 * max(1.0, abs(y)) if key == "disagreement" else x == y
        if not same:
            failures.append(f"round {ra['round']} agent {ra['agent']} {key}: {x!r} on 2 ranks, {y!r} on 4")
last = [r for r in a if r["round"] == a[-1]["round"]]
whole = [r for r in c if r["round"] == c[-1]["round"]]
if [r["score"] for r in last] != [r["score"] for r in whole]:
    failures.append("the last log step's scores differ from a run without run.log_test")
differ = sum(r["disagreement"] != s["disagreement"] for r, s in zip(last, whole))
if differ < len(last) // 2:
    failures.append(f"the last step's disagreement differs from the whole set's for {differ} of {len(last)} agents only")
for f in failures[:10]:
    print("FAIL:", f)
if failures:
    sys.exit(1)
print(f"ok: {len(a)} rows agree on 2 and 4 ranks; last step: scores as on the whole set, "
      f"disagreement {float(last[0]['disagreement']):.6g} on 100 points vs {float(whole[0]['disagreement']):.6g}")
PY
