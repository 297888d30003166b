#!/usr/bin/env bash
# A drifting multidist stream (issue 18): the classes turn about the origin by data.drift
# radians per training sample, one full turn over the run (2 passes, 10 000 samples); the test
# set follows (every log step measures against the present distribution).
#  1. OUT/drift_tracking.png: test error over time of 16 agents (ER graph p = 0.2, paper
#     penalty c = 1) against centralized POLK on the union and a learner that stops learning
#     after 1600 samples (centralized POLK, frozen; evaluated by plot.py drift).
#  2. A table: step size η and parsimony K_p against tracking (mean test error over the second
#     half of the run) and model order, 16 agents.
#
#   experiments/drift_tracking.sh     Environment: OUT [out/drift], POLKA [build/polka],
#                                     ETAS ["0.05 0.2"], KPS ["0.02 0.1"] (the figure's runs:
#                                     η 0.1, K_p 0.04)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
polka=${POLKA:-$root/build/polka}
out=${OUT:-$root/out/drift}
etas=${ETAS:-"0.05 0.2"}
kps=${KPS:-"0.02 0.1"}
config=$root/experiments/configs/decentralized_multidist.ini
graph=$root/graphs/er_16_p0.2.txt
drift=0.00062832 # 2π / 10 000 samples: one turn over the run
common=(--config "$config" --set run.passes=2 --set data.drift=$drift --set run.log_every=320)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1
mkdir -p "$out"

"$polka" data multidist --config "$config" -o "$out/multidist.svm" >/dev/null # test set: .t
mpirun --oversubscribe -n 16 "$polka" run --quiet "${common[@]}" --set net.graph="$graph" \
    --set run.output="$out/agents.h5" >/dev/null
"$polka" run --quiet "${common[@]}" --centralized --set net.agents=16 \
    --set run.output="$out/central.h5" >/dev/null
"$polka" run --quiet "${common[@]}" --centralized --set net.agents=16 --set run.passes=0.32 \
    --set run.output="$out/frozen.h5" >/dev/null
/usr/bin/python3 "$root/experiments/plot.py" drift "$out/agents.h5" --centralized "$out/central.h5" \
    --frozen "$out/frozen.h5" --test "$out/multidist.svm.t" -o "$out/drift_tracking.png"

# tracking error: the mean over agents and over the log steps of the second half of the run
summary() {
    /usr/bin/python3 - "$1" <<'PY'
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "r") as f:
    m = f["metrics"]
    samples = np.asarray(m["samples"]); err = 100 * (1 - np.asarray(m["test_score"]))
    order = np.asarray(m["model_order"])
half = samples > samples[-1] / 2
print(f"{err[half].mean():.2f} {err[-1].mean():.2f} {order[half].mean():.1f} {order[-1].max():.0f}")
PY
}
printf '%-6s %-6s | %14s %11s %15s %9s\n' eta kp "tracking_err%" "final_err%" "mean_order(2nd)" max_order
for eta in $etas; do
    for kp in $kps; do
        file=$out/agents_eta${eta}_kp$kp.h5
        mpirun --oversubscribe -n 16 "$polka" run --quiet "${common[@]}" --set net.graph="$graph" \
            --set learner.eta="$eta" --set learner.kp="$kp" --set run.log_every=500 \
            --set run.output="$file" >/dev/null
        set -- $(summary "$file")
        printf '%-6s %-6s | %14s %11s %15s %9s\n' "$eta" "$kp" "$1" "$2" "$3" "$4"
    done
done
for name in agents central frozen; do
    printf 'figure run %-8s tracking_err%% final_err%% order: %s\n' "$name" "$(summary "$out/$name.h5")"
done
