#!/usr/bin/env bash
# A drifting multidist stream: the classes turn about the origin by data.drift
# radians per training sample, one full turn over the run (2 passes, 10 000 samples); the test
# set follows (every log step measures against the present distribution).
#  1. OUT/drift_tracking.png: test error over time of 16 agents (ER graph p = 0.2, paper
#     penalty c = 1) against centralized POLK on the union and a learner that stops learning
#     after 1600 samples (centralized POLK, frozen; evaluated by plot_cli.py drift).
#  2. Tables: step size η and parsimony K_p (and the regulariser λ, by which the expansion
#     forgets: (1 − ηλ) per step) against tracking (mean test error over the second half of
#     the run) and model order, for 16 agents and for centralized POLK. The figure's runs:
#     η 0.1, K_p 0.04, λ 1e-4 (experiments/configs/decentralized_multidist.ini).
# Runs are pure functions of their settings: a run file already in OUT is reused (delete OUT
# to run everything again).
#
#   experiments/drift_tracking.sh     Environment: OUT [out/drift], POLKA [build/polka],
#                                     AGENT_POINTS ["eta:kp:lambda ..."], LAMBDAS, CENTRAL_ETAS,
#                                     CENTRAL_KPS
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/tools/locate.sh"
out=${OUT:-$outdir/drift}
points=${AGENT_POINTS:-"0.05:0.02:1e-4 0.05:0.1:1e-4 0.2:0.02:1e-4 0.2:0.1:1e-4 0.2:0.1:0.05"}
config=$root/experiments/configs/decentralized_multidist.ini
graph=$root/graphs/er_16_p0.2.txt
drift=0.00062832 # 2π / 10 000 samples: one turn over the run
common=(--config "$config" --set run.passes=2 --set data.drift=$drift --set run.log_every=320)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1
mkdir -p "$out"

run() { # OUTPUT.h5 COMMAND...: runs the polka command into OUTPUT.h5 unless it is there
    local file=$1
    shift
    [ -f "$file" ] || "$@" --set run.output="$file" >/dev/null
}

"$polka" data multidist --config "$config" -o "$out/multidist.svm" >/dev/null # test set: .t
run "$out/agents.h5" mpirun --oversubscribe -n 16 "$polka" run --quiet "${common[@]}" \
    --set net.graph="$graph"
run "$out/central.h5" "$polka" run --quiet "${common[@]}" --centralized --set net.agents=16
run "$out/frozen.h5" "$polka" run --quiet "${common[@]}" --centralized --set net.agents=16 \
    --set run.passes=0.32
/usr/bin/python3 "$polka_plot" drift "$out/agents.h5" --centralized "$out/central.h5" \
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
row() { printf '%-6s %-6s %-7s | %14s %11s %15s %9s\n' "$@"; }

printf '\n16 agents (ER p = 0.2, paper penalty, c = 1):\n'
row eta kp lambda "tracking_err%" "final_err%" "mean_order(2nd)" max_order
for point in $points; do
    IFS=: read -r eta kp lambda <<<"$point"
    file=$out/agents_eta${eta}_kp$kp.h5
    [ "$lambda" = 1e-4 ] || file=$out/agents_eta${eta}_kp${kp}_lambda$lambda.h5
    run "$file" mpirun --oversubscribe -n 16 "$polka" run --quiet "${common[@]}" \
        --set net.graph="$graph" --set learner.eta="$eta" --set learner.kp="$kp" \
        --set learner.lambda="$lambda" --set run.log_every=500
    row "$eta" "$kp" "$lambda" $(summary "$file")
done

printf '\ncentralized POLK on the union:\n'
row eta kp lambda "tracking_err%" "final_err%" "mean_order(2nd)" max_order
for lambda in ${LAMBDAS:-1e-4 0.05}; do
    for eta in ${CENTRAL_ETAS:-0.1 0.5 1}; do
        for kp in ${CENTRAL_KPS:-0.02 0.04 0.1}; do
            file=$out/central_eta${eta}_kp${kp}_lambda$lambda.h5
            run "$file" "$polka" run --quiet "${common[@]}" --centralized --set net.agents=16 \
                --set learner.eta="$eta" --set learner.kp="$kp" --set learner.lambda="$lambda"
            row "$eta" "$kp" "$lambda" $(summary "$file")
        done
    done
done
