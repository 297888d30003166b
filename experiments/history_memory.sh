#!/usr/bin/env bash
# Rank 0 kept every metric row of the run in memory (the rows a checkpoint carries:
# 15 metrics × N doubles a row). Now they wait in an unlinked spill file beside the checkpoint
# and are read back a block at a time when one is written. N agents (default 16 384) on 2 ranks,
# a log step every round (ROUNDS rounds, default 100, so ROUNDS rows of 1.97 MB at N = 16 384),
# run.log_test = 50: the largest rank's peak memory and the whole job's, for an earlier build
# (BEFORE) and this one, side by side, with the test error to show the runs agree.
#
#   experiments/history_memory.sh      Environment: BEFORE [none: this tree only] (a polka
#                                      binary of the tree before, e.g. built from f9e554e),
#                                      N [16384], ROUNDS [100], OUT [out/history_memory], POLKA
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/tools/locate.sh"
out=${OUT:-$outdir/history_memory}
n=${N:-16384}
rounds=${ROUNDS:-100}
mkdir -p "$out"
cd "$out" # the spill file and any checkpoint go here
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1

settings=(--set net.agents="$n" --set net.graph=er --set net.p="$(awk -v n="$n" 'BEGIN { print 8 / (n - 1) }')"
    --set net.join=1 --set data.n_train=$((n * rounds)) --set run.log_every="$n"
    --set run.log_test=50)
row_mb=$(awk -v n="$n" 'BEGIN { printf "%.2f", n * 15 * 8 / 1048576 }')
echo "# N = $n agents on 2 ranks, $rounds log steps: $rounds rows of $row_mb MiB"
printf '%-8s %14s %12s %8s %9s\n' binary largest_MB all_MB wall_s error%
for which in before after; do
    bin=$polka
    if [ "$which" = before ]; then
        [ -n "${BEFORE:-}" ] || continue
        bin=$BEFORE
    fi
    start=$(date +%s.%N)
    text=$(mpirun --oversubscribe -n 2 "$bin" run --quiet "${settings[@]}")
    end=$(date +%s.%N)
    awk -v which="$which" -v wall="$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')" '
        /peak memory/ { match($0, /peak memory [0-9]+/); largest = substr($0, RSTART + 12, RLENGTH - 12)
                        match($0, /[0-9]+ MB in all/); all = substr($0, RSTART, RLENGTH - 10) }
        /test error/ { e = $4 }
        END { printf "%-8s %14s %12s %8.1f %9s\n", which, largest, all, wall, e }' <<<"$text"
done
