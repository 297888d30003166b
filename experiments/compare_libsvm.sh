#!/bin/sh
# Centralized POLK (one pass) against batch LIBSVM on exactly the same multidist points.
#
#   experiments/compare_libsvm.sh [POLKA_BINARY] [MEANS_SEED ...]
#
# Environment:
#   DRAWS="1"     run.seed values: independent draws of the training and test points from
#                 the mixture (default: the default draw only)
#   N_TEST=2500   test points per draw. The training points come from their own stream and do
#                 not depend on N_TEST, so a larger N_TEST scores the very same trained models
#                 with less sampling noise (the standard error of one error rate near 30 % is
#                 0.9 points on 2500 test points, 0.15 on 100 000).
#
# For each draw of the mixture means and of the points: `polka data multidist` writes the
# LIBSVM files; svm-train (RBF, gamma = 1/(2 sigma^2), the same sigma as POLK) picks C by
# 5-fold cross-validation on the training set, then is scored on the test set; POLK runs the
# multi-hinge and multi-logistic configs in experiments/configs on the same points. Prints
# one row per draw and, for several rows, the mean and standard deviation of the gaps.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
[ $# -gt 0 ] && POLKA=$1
. "$root/tools/locate.sh"
[ $# -gt 0 ] && shift
seeds=${*:-7}
draws=${DRAWS:-1}
n_test=${N_TEST:-2500}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
command -v svm-train >/dev/null || { echo "svm-train not found (apt-get install libsvm-tools)" >&2; exit 1; }

sigma=$(sed -n 's/^sigma *= *//p' "$here/configs/multidist_hinge.ini")
gamma=$(awk -v s="$sigma" 'BEGIN { printf "%.10g", 1 / (2 * s * s) }')

polk() { # polk CONFIG MEANS_SEED DRAW -> "error order"
    "$polka" run --quiet --config "$here/configs/$1" --set data.means_seed="$2" --set run.seed="$3" \
        --set data.n_test="$n_test" | awk '/test error/ { err = $4 } /model order/ { order = $4 } END { print err, order }'
}

libsvm() { # libsvm MEANS_SEED DRAW -> "C error SVs" on the files $work/md, $work/md.t
    "$polka" data multidist -o "$work/md" --set data.means_seed="$1" --set run.seed="$2" \
        --set data.n_test="$n_test" >/dev/null
    best_c=1 best_cv=0
    for c in 0.1 1 10 100 1000; do
        cv=$(svm-train -q -v 5 -c "$c" -g "$gamma" "$work/md" | sed -n 's/.*Accuracy = \([0-9.]*\)%.*/\1/p')
        if awk -v a="$cv" -v b="$best_cv" 'BEGIN { exit !(a > b) }'; then best_c=$c best_cv=$cv; fi
    done
    svm-train -q -c "$best_c" -g "$gamma" "$work/md" "$work/model" >/dev/null
    acc=$(svm-predict "$work/md.t" "$work/model" "$work/pred" | sed -n 's/.*Accuracy = \([0-9.]*\)%.*/\1/p')
    echo "$best_c $(awk -v a="$acc" 'BEGIN { printf "%.2f", 100 - a }') $(sed -n 's/^total_sv //p' "$work/model")"
}

echo "sigma $sigma, $n_test test points per draw"
printf '%-6s %-5s | %-6s %-10s %-6s | %-9s %-6s %-7s | %-10s %-6s %-7s\n' seed draw C libsvm_err SVs \
    hinge_err order gap logist_err order gap
for seed in $seeds; do
    for draw in $draws; do
        set -- $(libsvm "$seed" "$draw") $(polk multidist_hinge.ini "$seed" "$draw") \
            $(polk multidist_logistic.ini "$seed" "$draw")
        awk -v s="$seed" -v d="$draw" -v c="$1" -v le="$2" -v sv="$3" -v he="$4" -v ho="$5" -v lo="$6" -v oo="$7" \
            'BEGIN { printf "%-6s %-5s | %-6s %-10s %-6s | %-9s %-6s %+-7.2f | %-10s %-6s %+-7.2f\n",
                     s, d, c, le, sv, he, ho, he - le, lo, oo, lo - le }'
    done
done | tee "$work/rows"
awk -F'|' '{ split($3, h, " "); split($4, l, " "); hg += h[3]; hh += h[3] * h[3]; lg += l[3]; ll += l[3] * l[3]; n++ }
    END { if (n < 2) exit
          mh = hg / n; ml = lg / n
          printf "mean of %d rows: hinge gap %+.2f (sd %.2f), logistic gap %+.2f (sd %.2f)\n",
                 n, mh, sqrt(hh / n - mh * mh), ml, sqrt(ll / n - ml * ml) }' "$work/rows"
