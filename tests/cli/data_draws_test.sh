#!/bin/sh
# data_draws_test.sh POLKA: the points of `polka data multidist` are counter-based, so the
# training file does not depend on the number of test points and a longer test file starts
# with the shorter one. experiments/compare_libsvm.sh relies on this to score the same
# trained models on a larger test set (N_TEST).
set -eu
polka=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$polka" data multidist -o "$dir/short" --set data.n_train=300 --set data.n_test=20 >/dev/null
"$polka" data multidist -o "$dir/long" --set data.n_train=300 --set data.n_test=500 >/dev/null
cmp "$dir/short" "$dir/long"
[ "$(wc -l <"$dir/short.t")" -eq 20 ] && [ "$(wc -l <"$dir/long.t")" -eq 500 ]
head -n 20 "$dir/long.t" | cmp - "$dir/short.t"
# ... and another run.seed draws other points.
"$polka" data multidist -o "$dir/other" --set data.n_train=300 --set data.n_test=20 --set run.seed=2 >/dev/null
if cmp -s "$dir/short" "$dir/other"; then
    echo "run.seed 2 drew the same training points as run.seed 1" >&2
    exit 1
fi
