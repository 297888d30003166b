#!/usr/bin/env bash
# log_step_collectives_test.sh POLKA LIBMPI_COUNT DIR: a decentralized log step (16 agents on
# 2 ranks, run file and CSV on) makes exactly one status agreement and one reduction of the
# network average (two MPI_Iallreduce: both polled, so that a stopped rank cannot hold the
# others in a call that polls nothing), and one gather (MPI_Igatherv), besides libhdf5's
# collectives: counted by the PMPI interposer tools/mpi_count.c over a run with a log step
# every round and one with the last round's only (8 rounds: 7 log steps more).
set -euo pipefail
polka=$1 lib=$2 dir=$3
mkdir -p "$dir"
count() { # log_every -> the counter line of rank 1
    rm -f "$dir/count.txt"
    mpiexec --oversubscribe -n 2 -x LD_PRELOAD="$lib" -x POLKA_MPI_COUNT="$dir/count.txt" \
        "$polka" run --quiet --set net.agents=16 --set data.n_train=128 --set data.n_test=50 \
        --set run.log_every="$1" --set run.output="$dir/steps.h5" --set run.csv="$dir/steps.csv" \
        > /dev/null
    grep '^rank 1 ' "$dir/count.txt"
}
every=$(count 1)
rare=$(count 1000000000)
echo "every round: $every"
echo "last round:  $rare"
field() { # line, name -> the count after name (0 when absent)
    awk -v k="$2" '{ for (i = 1; i < NF; i++) if ($i == k) { print $(i + 1); f = 1 } }
                   END { if (!f) print 0 }' <<< "$1"
}
status=0
for expected in Iallreduce:2 Igatherv:1 Gatherv:0; do
    name=${expected%:*} want=${expected#*:}
    per=$((($(field "$every" "$name") - $(field "$rare" "$name")) / 7))
    echo "$name per log step: $per"
    [ "$per" -eq "$want" ] || { echo "FAIL: $name per log step is $per, expected $want"; status=1; }
done
exit $status
