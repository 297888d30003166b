#!/bin/sh
# Centralized POLK (one pass) against batch LIBSVM on exactly the same multidist points.
#
#   experiments/compare_libsvm.sh [POLKA_BINARY] [MEANS_SEED ...]
#
# For each draw of the mixture means: `polka data multidist` writes the LIBSVM files;
# svm-train (RBF, gamma = 1/(2 sigma^2), the same sigma as POLK) picks C by 5-fold
# cross-validation on the training set, then is scored on the test set; POLK runs the
# multi-hinge and multi-logistic configs in experiments/configs. Prints one row per draw.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
polka=${1:-$here/../build/polka}
[ $# -gt 0 ] && shift
seeds=${*:-7}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
command -v svm-train >/dev/null || { echo "svm-train not found (apt-get install libsvm-tools)" >&2; exit 1; }

sigma=$(sed -n 's/^sigma *= *//p' "$here/configs/multidist_hinge.ini")
gamma=$(awk -v s="$sigma" 'BEGIN { printf "%.10g", 1 / (2 * s * s) }')

polk() { # polk CONFIG SEED -> "error order samples/s"
    "$polka" run --quiet --config "$here/configs/$1" --set data.means_seed="$2" |
        awk '/test error/ { err = $4 } /model order/ { order = $4; sps = $7 } END { print err, order, sps }'
}

printf '%-6s | %-8s %-9s %-7s | %-10s %-7s %-8s | %-10s %-7s %-8s\n' seed C libsvm_err SVs \
    hinge_err order gap logist_err order gap
for seed in $seeds; do
    "$polka" data multidist -o "$work/md" --set data.means_seed="$seed" >/dev/null
    best_c=1 best_cv=0
    for c in 0.1 1 10 100 1000; do
        cv=$(svm-train -q -v 5 -c "$c" -g "$gamma" "$work/md" | sed -n 's/.*Accuracy = \([0-9.]*\)%.*/\1/p')
        if awk -v a="$cv" -v b="$best_cv" 'BEGIN { exit !(a > b) }'; then best_c=$c best_cv=$cv; fi
    done
    svm-train -q -c "$best_c" -g "$gamma" "$work/md" "$work/model" >/dev/null
    acc=$(svm-predict "$work/md.t" "$work/model" "$work/pred" | sed -n 's/.*Accuracy = \([0-9.]*\)%.*/\1/p')
    svs=$(sed -n 's/^total_sv //p' "$work/model")
    lib_err=$(awk -v a="$acc" 'BEGIN { printf "%.2f", 100 - a }')
    set -- $(polk multidist_hinge.ini "$seed")
    h_err=$1 h_order=$2
    set -- $(polk multidist_logistic.ini "$seed")
    l_err=$1 l_order=$2
    printf '%-6s | %-8s %-9s %-7s | %-10s %-7s %-8s | %-10s %-7s %-8s\n' "$seed" "$best_c" "$lib_err" "$svs" \
        "$h_err" "$h_order" "$(awk -v a="$h_err" -v b="$lib_err" 'BEGIN { printf "%+.2f", a - b }')" \
        "$l_err" "$l_order" "$(awk -v a="$l_err" -v b="$lib_err" 'BEGIN { printf "%+.2f", a - b }')"
done
