#!/usr/bin/env bash
# Fashion-MNIST at full strength, side by side on this machine:
#   1. centralized POLK, experiments/configs/fashion_mnist.ini with the settings SETTINGS
#      (chosen by experiments/fashion_search.sh on a validation split of the training set);
#   2. 16 agents with the same learner settings, i.i.d. split, Erdős–Rényi graph (p = 0.5,
#      c = 1), all on RANKS ranks (many agents per rank);
#   2b. the same with net.share = samples (the labels travel with the points) on ER p = SHARE_P;
#   3. exact SVM: LIBSVM's svm-train with the same sigma and C = 10
#      (experiments/fashion_libsvm.sh; LIBSVM=0 skips it, its result is kept in OUT).
# Prints one table: test accuracy, model size, CPU and wall seconds.
#
#   experiments/fashion_accuracy.sh    Environment: SETTINGS ["learner.schedule=linear learner.epsilon=0.3 learner.eta=1 run.passes=4"],
#                                      RANKS [2], OUT [out/fashion_accuracy], LIBSVM [1],
#                                      RUNS ["central agents16 shared16"]: the polka runs to do;
#                                      a run left out shows its kept result from OUT, marked,
#                                      SHARE_P [0.5]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/tools/fashion_setup.sh"
out=${OUT:-$outdir/fashion_accuracy}
ranks=${RANKS:-2}
mkdir -p "$out"
sets=()
settings=${SETTINGS:-learner.schedule=linear learner.epsilon=0.3 learner.eta=1 run.passes=4}
for kv in $settings; do sets+=(--set "$kv"); done
config=$root/experiments/configs/fashion_mnist.ini
runs=${RUNS:-central agents16 shared16}
declare -A accuracy # by run name, for the gaps
share_p=${SHARE_P:-0.5}

timed() { # name command... -> "cpu_s wall_s" of the command, its output in $out/name.log
    local name=$1
    shift
    /usr/bin/time -f "%U %S %e" -o "$out/$name.time" "$@" >"$out/$name.log" 2>&1 ||
        { cat "$out/$name.log" >&2; exit 1; }
    read -r user sys wall <"$out/$name.time"
    echo "$(echo "$user + $sys" | bc) $wall"
}

summary() { # name -> "accuracy order" from the run's summary (mean over agents)
    awk '/test error/ { acc = 1 - $4 / 100 } /model order/ { order = $4 }
         END { printf "%.4f %s\n", acc, order }' "$out/$1.log"
}

row() { # learner accuracy size cpu wall
    printf '%-50s %9s %12s %9.0f %9.0f\n' "$@"
}

# run name "learner label" polka-arguments...: runs it when RUNS names it, else reads the row
# of its kept log (marked "kept": a result of an earlier run of this script, same OUT)
run() {
    local name=$1 label=$2 cpu user sys wall acc order
    shift 2
    if [[ " $runs " == *" $name "* ]]; then
        read -r cpu wall <<<"$(timed "$name" "$@")"
    elif [ -s "$out/$name.time" ]; then
        read -r user sys wall <"$out/$name.time"
        cpu=$(echo "$user + $sys" | bc) label="$label, kept"
    else
        return 0
    fi
    read -r acc order <<<"$(summary "$name")"
    [ "$name" = central ] || order="$order/agent"
    row "$label" "$acc" "$order" "$cpu" "$wall"
    accuracy[$name]=$acc
}

# the 16 agents of a decentralized run: the same learner settings, i.i.d. split, net.c = 1
agents16=(mpirun --oversubscribe -n "$ranks" "$polka" run --config "$config" "${sets[@]}"
    --set run.mode=decentralized --set net.agents=16 --set net.graph=er --set net.c=1)

gap() { # name label: the points it stays under centralized
    [ -n "${accuracy[central]:-}" ] && [ -n "${accuracy[$1]:-}" ] || return 0
    printf 'gap to centralized, %s: %.2f points\n' "$2" \
        "$(echo "(${accuracy[central]} - ${accuracy[$1]}) * 100" | bc -l)"
}

printf 'settings: %s\n' "$settings"
printf '%-50s %9s %12s %9s %9s\n' learner test_acc model_size cpu_s wall_s
run central "POLK, centralized" "$polka" run --config "$config" "${sets[@]}" \
    --set run.output="$out/central.h5"
run agents16 "16 agents, ER p=0.5, $ranks ranks (mean)" "${agents16[@]}" --set net.p=0.5 \
    --set run.output="$out/agents16.h5"
run shared16 "16 agents, shared samples, ER p=$share_p (mean)" "${agents16[@]}" --set net.p="$share_p" \
    --set net.share=samples --set run.output="$out/shared16.h5"
gap agents16 "16 agents (paper)"
gap shared16 "16 agents (shared samples)"
if [ "${LIBSVM:-1}" = 1 ]; then
    OUT="$out/libsvm" "$root/experiments/fashion_libsvm.sh"
elif [ -s "$out/libsvm/train.time" ]; then
    echo "(svm-train not rerun; last result in $out/libsvm)"
fi
