#!/usr/bin/env bash
# disagreement_points_test.sh POLKA DIR: with run.log_test = K the disagreement is measured on
# the first K test points at every log step, the last included (docs/guide.md, "Many agents and clusters"), and
# the second pass that needs the network average first evaluates the models there only when
# the agents' test values do not fit in memory (src/sim/driver/decentral.c: 2^23 doubles a rank
# and a quarter of data.memory). 64 agents, 20 000 test points of 5 classes, data.memory = 80M
# (a quarter: 2 621 440 doubles a rank):
#   a  2 ranks (32 agents × 20 000 × 5 = 3 200 000 values: not kept, evaluated again on K
#      points), K = 100
#   b  4 ranks (16 agents, 1 600 000 values: kept), K = 100
#   c  4 ranks, no run.log_test (the disagreement on every point)
# a and b agree on every metric (the disagreement to rounding: f̄'s sum is reduced per rank, and
# a evaluates its values on the K points again, in a product of other rows; bounded with the
# models, of a's run file and of a run stopped at the first step, and the test points);
# the last row of a and c has the same scores (the whole test set) but not the same
# disagreement (100 points against 20 000).
set -euo pipefail
polka=$1 dir=$2
rm -rf "$dir"
mkdir -p "$dir"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1
common=(--quiet --set net.agents=64 --set net.graph=ring --set data.n_train=2560
    --set data.n_test=20000 --set data.memory=80M --set run.log_every=1280)
mpiexec --oversubscribe -n 2 "$polka" run "${common[@]}" --set run.log_test=100 \
    --set run.csv="$dir/a.csv" --set run.output="$dir/a.h5" > /dev/null
mpiexec --oversubscribe -n 2 "$polka" run "${common[@]}" --set run.log_test=100 --set run.passes=0.5 \
    --set run.csv="$dir/half.csv" --set run.output="$dir/half.h5" > /dev/null
mpiexec --oversubscribe -n 4 "$polka" run "${common[@]}" --set run.log_test=100 \
    --set run.csv="$dir/b.csv" > /dev/null
mpiexec --oversubscribe -n 4 "$polka" run "${common[@]}" --set run.csv="$dir/c.csv" > /dev/null
"$polka" data multidist -o "$dir/md.svm" --set net.agents=64 --set data.n_train=2560 \
    --set data.n_test=100 > /dev/null # the runs' first 100 test points (a counter-based stream)
/usr/bin/python3 - "$dir" "$(cd "$(dirname "$0")/../python" && pwd)" <<'PY'
import csv, math, sys
import h5py
d = sys.argv[1]
sys.path.insert(0, sys.argv[2])  # tests/python: run_models, rounding
import run_models  # noqa: E402
from rounding import U, gamma  # noqa: E402
def rows(name):
    with open(f"{d}/{name}.csv") as f:
        return list(csv.DictReader(f))
a, b, c = rows("a"), rows("b"), rows("c")
failures = []
timers = {"time_compute", "time_exchange", "time_update"}
if len(a) != len(b) or len(a) != len(c) or len(a) != 128:
    failures.append(f"rows: {len(a)}, {len(b)}, {len(c)} (expected 128 each)")
AGENTS, POINTS = 64, 100


with open(f"{d}/md.svm.t") as f:
    x_most = max(math.sqrt(sum(float(v.split(":")[1]) ** 2 for v in line.split()[1:])) for line in f)


def step_bounds(path):
    """Per agent: B ≥ |f_c(x)| (Σ_m |w_mc|, a Gaussian kernel: k ≤ 1) and how far two
    evaluations of its f may be apart: each within B·(γ_{p+5}·(‖x‖ + ‖d‖)²/2σ² + 4u + γ_M) of
    the exact one (‖x‖², ‖d‖², x·d and their sum to γ_{p+2}·(‖x‖ + ‖d‖)², the scale's and the
    product's roundings, polka_exp's 2 ulp; K·W, M terms); and the outputs C."""
    with h5py.File(path, "r") as f:
        models = run_models.kernel_models(f)
    out = {}
    for agent, (dictionary, w, attrs) in models.items():
        assert run_models._text(attrs["kernel"]) == "gaussian"
        if len(w) == 0:
            out[agent] = (0.0, 0.0)
            continue
        bound = abs(w).sum(axis=0).max()
        reach = (x_most + math.sqrt((dictionary * dictionary).sum(axis=1).max())) ** 2
        sigma2 = float(attrs["sigma"]) ** 2
        p = dictionary.shape[1]
        out[agent] = (bound, 2 * bound * (gamma(p + 5) * reach / (2 * sigma2) + 4 * U + gamma(len(w))))
    return out, next(iter(models.values()))[1].shape[1]


def disagreement_tol(step, agent, value):
    """f̄ is a sum of the 64 agents' f in another order on 2 ranks and on 4: each within
    γ_n·B̄ of the exact one, 2γ_n·B̄ apart (both from the values of the whole set); agent a's
    values on the K points, a's evaluated again, ε_a apart: so f_a − f̄ is Δ = ε_a + 2γ_n·B̄
    apart. Over the P·C values (f_a − f̄)², Cauchy–Schwarz moves D_a by ≤ 2√(C·D_a)·Δ + C·Δ²,
    and each D_a is computed to γ_{PC+2}."""
    agents, outputs = step
    mean = sum(b for b, _ in agents.values()) / len(agents)
    delta = agents[agent][1] + 2 * gamma(AGENTS) * mean
    return (2 * math.sqrt(outputs * value) * delta + outputs * delta * delta
            + 2 * gamma(POINTS * outputs + 2) * value)


half = rows("half")
first = a[0]["round"]
if [r["order"] for r in half] != [r["order"] for r in a if r["round"] == first]:
    failures.append("the run stopped at the first log step has other models than a's there")
bounds = {first: step_bounds(f"{d}/half.h5"), a[-1]["round"]: step_bounds(f"{d}/a.h5")}
for ra, rb in zip(a, b):
    for key in ra:
        if key in timers:
            continue
        x, y = float(ra[key]), float(rb[key])
        if key == "disagreement":
            same = abs(x - y) <= disagreement_tol(bounds[ra["round"]], int(ra["agent"]), max(x, y))
        else:
            same = x == y
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
