#!/usr/bin/env bash
# Fashion-MNIST, 16 agents beside centralized POLK, on this machine, one after the
# other: experiments/configs/fashion_mnist_16.ini run by 16 agents on RANKS ranks (i.i.d.
# split, its graph and method) and by centralized POLK (--centralized, net.method = penalty:
# one learner on the union of the same 16 streams, the same learner settings but its own step,
# configs/fashion_mnist.ini's η; the .ini's run.central_batch = learner.batch).
# Prints for each: test accuracy (agents: the mean), model points (agents: the mean), total
# CPU seconds (user + sys of every rank), wall seconds and the per-stage profile: the agents'
# stage timers summed over agents (/metrics time_compute: drawing and predicting the round's
# points, time_exchange: messages and the neighbours' values, time_update: the step with its
# KOMP). The timers are wall clocks: on a loaded machine they include the time the process
# waited for a core, and exchange the time a rank waited for the other; then the gap in
# points and the ratio of the CPU times.
#
#   experiments/fashion_16.sh [--set key=value ...]   (the settings go to both runs)
#   Environment: RANKS [2], OUT [out/fashion_16], POLKA, CONFIG [configs/fashion_mnist_16.ini]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/tools/fashion_setup.sh"
out=${OUT:-$outdir/fashion_16}
config=${CONFIG:-$root/experiments/configs/fashion_mnist_16.ini}
ranks=${RANKS:-2}
mkdir -p "$out"

timed() { # name command...: runs it, its output in OUT/name.log, "user sys wall" in name.time
    local name=$1
    shift
    /usr/bin/time -f "%U %S %e" -o "$out/$name.time" "$@" >"$out/$name.log" 2>&1 ||
        { cat "$out/$name.log" >&2; exit 1; }
}

# the comparison is centralized POLK whatever the agents' method (a random-feature method's
# --centralized would run centralized random features), at POLK's own step: the one
# configs/fashion_mnist.ini chose for it on the validation split (a random-feature method's
# step moves θ on the features and is chosen for it, in the agents' .ini)
central_eta=$(awk -F'[ =]+' '$1 == "eta" { print $2 }' "$root/experiments/configs/fashion_mnist.ini")
[ -n "$central_eta" ] || { echo "fashion_16.sh: no eta in configs/fashion_mnist.ini" >&2; exit 1; }
timed central "$polka" run --config "$config" --centralized --set net.method=penalty \
    --set learner.eta="$central_eta" --set run.output="$out/central.h5" "$@"
timed agents16 mpirun --oversubscribe -n "$ranks" "$polka" run --config "$config" \
    --set run.output="$out/agents16.h5" "$@"

/usr/bin/python3 - "$out" <<'PY'
import sys
import h5py
import numpy as np

out = sys.argv[1]
rows = {}
print(f"{'run':<34} {'test_acc':>8} {'points':>7} {'cpu_s':>7} {'wall_s':>7} "
      f"{'compute_s':>9} {'exchange_s':>10} {'update_s':>8}")
for name, label in (("central", "centralized POLK"), ("agents16", "16 agents")):
    with open(f"{out}/{name}.time") as f:
        user, sys_, wall = (float(v) for v in f.read().split())
    with h5py.File(f"{out}/{name}.h5", "r") as run:
        m = run["metrics"]
        acc = float(np.mean(m["test_score"][-1]))
        points = float(np.mean(m["model_order"][-1]))
        stages = [float(np.sum(m[k][-1])) for k in ("time_compute", "time_exchange", "time_update")]
    rows[name] = (acc, user + sys_)
    print(f"{label:<34} {100 * acc:8.2f} {points:7.0f} {user + sys_:7.0f} {wall:7.0f} "
          f"{stages[0]:9.1f} {stages[1]:10.1f} {stages[2]:8.1f}")
gap = 100 * (rows["central"][0] - rows["agents16"][0])
ratio = rows["agents16"][1] / rows["central"][1]
print(f"16 agents: {gap:.2f} points under centralized at {ratio:.2f}x its CPU "
      f"(target: within 1 point at <= 2x)")
PY
