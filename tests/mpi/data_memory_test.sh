#!/usr/bin/env bash
# data_memory_test.sh POLKA MPIEXEC DIR: data.memory. The automatic limit is the
# node's memory shared by the ranks on it: a Slurm job's --mem of 14 MB (SLURM_MEM_PER_NODE, as
# srun exports it) holds the 9.6 MB test file on one rank, and is refused by name on two (7 MB
# each, every rank reads the whole test set); an explicit data.memory overrides the share.
set -euo pipefail
polka=$1 mpiexec=$2 dir=$3
tests=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$dir" && cd "$dir"
# 400 samples of 3000 listed features: dense, 9.6 MB held
awk 'BEGIN { srand(1); for (i = 0; i < 400; i++) { line = i % 2;
     for (j = 1; j <= 3000; j++) line = line " " j ":" sprintf("%.3f", rand()); print line } }' \
    >wide.svm
run=(run --quiet --set data.source=file --set data.train=wide.svm --set data.test=wide.svm
     --set net.graph=complete --set run.passes=0.1)
export SLURM_MEM_PER_NODE=14
"$mpiexec" -x SLURM_MEM_PER_NODE --oversubscribe -n 1 "$polka" "${run[@]}" >/dev/null
echo "one rank: the 14 MB are its own"
sh "$tests/lib/expect_fail.sh" \
    'over the memory limit of 7.0 MB \(data.memory = auto: 14 MB of the Slurm job on this node, shared by 2 processes\)' \
    "$mpiexec" -x SLURM_MEM_PER_NODE --oversubscribe -n 2 "$polka" "${run[@]}"
sh "$tests/lib/expect_fail.sh" 'wide.svm:[0-9]+: .* over the memory limit of 5.0 MB$' \
    "$mpiexec" -x SLURM_MEM_PER_NODE --oversubscribe -n 2 "$polka" "${run[@]}" --set data.memory=5M
"$mpiexec" -x SLURM_MEM_PER_NODE --oversubscribe -n 2 "$polka" "${run[@]}" --set data.memory=64M \
    >/dev/null
echo "two ranks with data.memory = 64M: read"
