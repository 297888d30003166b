#!/bin/sh
# run.log_test: the log steps before the last score the first K test points, the last log step
# the whole test set. So the last CSV row equals a run's without the key, an earlier one not.
#   log_test_test.sh POLKA DIR
set -eu
polka=$1 dir=$2
mkdir -p "$dir"
common="--centralized --set data.n_train=600 --set data.n_test=400 --set run.log_every=200"
"$polka" run --quiet $common --set run.csv="$dir/all.csv" > /dev/null
"$polka" run --quiet $common --set run.log_test=37 --set run.csv="$dir/subset.csv" > /dev/null
score() { sed -n "$2p" "$1" | cut -d, -f4; } # row N (the header is row 1)
rows=$(wc -l < "$dir/all.csv")
[ "$(score "$dir/all.csv" "$rows")" = "$(score "$dir/subset.csv" "$rows")" ] ||
    { echo "FAIL: the last log step did not score the whole test set"; exit 1; }
[ "$(score "$dir/all.csv" 2)" != "$(score "$dir/subset.csv" 2)" ] ||
    { echo "FAIL: the first log step scored the whole test set"; exit 1; }
# 37 test points: a score is a multiple of 1/37, fl(k/37) printed with 17 digits (exact): times
# 37 it is k to two roundings, 37·γ_2 with γ_2 = 2u/(1 − 2u) = eps/(1 − eps) [Higham02, §3.1]
awk -F, 'NR == 2 { e = 2.220446049250313e-16; t = 37 * e / (1 - e); k = $4 * 37
                   if (k - int(k + 0.5) > t || int(k + 0.5) - k > t) exit 1 }' \
    "$dir/subset.csv" || { echo "FAIL: the first log step did not score 37 points"; exit 1; }
echo "ok: first row $(score "$dir/subset.csv" 2) on 37 points, last row $(score "$dir/subset.csv" "$rows") on all"
