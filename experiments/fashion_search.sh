#!/usr/bin/env bash
# Chooses POLK's settings for Fashion-MNIST on a validation split of the TRAINING set (fit on
# the first 50 000 training images, score on the last 10 000; the test set is not read):
# one line per setting with the validation accuracy, model order and CPU time (or, for a run
# that failed or was stopped, its exit status and message).
#
#   experiments/fashion_search.sh "kp=0.73 passes=1" "kp=0.4 passes=1" ...
#   A word key=value sets learner.key (passes: run.passes); a dotted one is a full key, e.g.
#   "passes=1 run.mode=decentralized net.agents=16 net.graph=er net.p=0.5 net.share=samples"
#   (16 agents in this one process; the accuracy is their mean).
#   Environment: SPLIT [out/fashion_split] (files of tools/fashion_split.py)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
split=${SPLIT:-$root/out/fashion_split}
[ -f "$split/val.svm" ] || python3 "$root/tools/fashion_split.py" "$split"
export OPENBLAS_NUM_THREADS=1
polka=${POLKA:-$root/build/polka}
printf '%-40s %8s %7s %9s %9s\n' setting val_acc order cpu_s wall_s
for setting in "$@"; do
    args=()
    for kv in $setting; do
        key=${kv%%=*}
        case $key in
        passes) args+=(--set "run.$kv") ;;
        *.*) args+=(--set "$kv") ;; # a full key: net.agents=16, run.mode=decentralized, ...
        *) args+=(--set "learner.$kv") ;;
        esac
    done
    log=$(mktemp) code=0
    /usr/bin/time -f "%U %S %e" -o "$log.time" "$polka" run \
        --config "$root/experiments/configs/fashion_mnist.ini" \
        --set data.train="$split/fit.svm" --set data.test="$split/val.svm" \
        --set data.train_labels= --set data.test_labels= --set run.log_every=1000000000 \
        --set run.output="$log.h5" "${args[@]}" >"$log" 2>&1 || code=$?
    if [ "$code" -ne 0 ]; then # no result: say why, never a row of a stopped run's numbers
        printf '%-40s failed (exit %s): %s\n' "$setting" "$code" "$(grep -m1 '^polka' "$log")"
        rm -f "$log" "$log.time" "$log.h5"
        continue
    fi
    acc=$(awk '/summary: test error/ { printf "%.4f", 1 - $4 / 100 }' "$log") # agents' mean
    order=$(grep -oE 'model order [0-9.]+' "$log" | awk '{print $3}')
    read -r user sys wall <"$log.time"
    printf '%-40s %8s %7s %9.1f %9.1f\n' "$setting" "$acc" "$order" "$(echo "$user + $sys" | bc)" "$wall"
    rm -f "$log" "$log.time" "$log.h5"
done
