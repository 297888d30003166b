#!/usr/bin/env bash
# What the fault machinery costs a fault-free run: the same fault-free runs with two polka
# binaries (OLD: before faults existed, NEW: with them), alternated REPEAT times, N agents on
# 2 ranks; prints the loop's samples/s of each and checks that both give the same figures.
#
#   OLD=/path/to/old/polka NEW=build/polka experiments/faults_overhead.sh
#   Environment: NS ["256 4096"], REPEAT [3]
set -euo pipefail
old=${OLD:?set OLD to a polka binary built before the faults}
new=${NEW:?set NEW to a polka binary with the faults}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1
echo "machine: $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
for n in ${NS:-"256 4096"}; do
    p=$("$(dirname "$0")/../tools/er_p.sh" "$n")
    args=(run --set net.agents="$n" --set net.graph=er --set net.p="$p"
          --set data.n_train=$((100 * n)) --set run.log_every=1000000000000 --set run.log_test=200)
    for k in $(seq "${REPEAT:-3}"); do
        for which in old new; do
            bin=$old; [ "$which" = new ] && bin=$new
            text=$(mpirun --oversubscribe -n 2 "$bin" "${args[@]}" 2>&1)
            rate=$(awk '/^summary: model order/ { for (i = 1; i <= NF; i++) if ($i ~ /samples\/s/) print $(i - 1) }' <<< "$text")
            figures=$(grep -E "summary: (test error|disagreement)" <<< "$text" | tr -s ' ')
            echo "N=$n run $k $which: $rate samples/s"
            eval "figures_$which=\$figures"
        done
        [ "$figures_old" = "$figures_new" ] || { echo "the figures differ:"; echo "$figures_old"; echo "$figures_new"; exit 1; }
    done
    echo "N=$n: same test error, disagreement and bytes with both binaries"
done
