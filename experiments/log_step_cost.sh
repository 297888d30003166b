#!/usr/bin/env bash
# What one log step costs a decentralized run, before and after "one agreement per log step":
# N agents on 2 ranks (ER graph of tools/er_p.sh, 24 rounds of batch 1, run file on,
# metrics on run.log_test = 100 test points), once with a log step every round
# (run.log_every = 1) and once with the last round's only. The difference over the 23 extra
# log steps gives the CPU seconds (user + system of all processes) and the MPI collective
# calls (tools/mpi_count.c, preloaded: polka's and libhdf5's) per log step, for the
# base revision (a git worktree built under /tmp) and this tree side by side.
#
#   experiments/log_step_cost.sh      Environment: NS ["256 1024 4096"], BASE [c2f8580],
#                                     POLKA [this tree's build/polka], WORK [/tmp/polka_log_cost]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/tools/locate.sh"
ns=${NS:-"256 1024 4096"}
base=${BASE:-c2f8580}
work=${WORK:-/tmp/polka_log_cost}
mkdir -p "$work"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1

if [ ! -x "$work/base/build/polka" ]; then # the base revision, built once
    [ -d "$work/base" ] || git -C "$root" worktree add --detach "$work/base" "$base" >&2
    SOURCE_DIR=$work/base BUILD_DIR=$work/base/build "$root/tools/build.sh" >&2
fi
mpicc -O2 -shared -fPIC "$root/tools/mpi_count.c" -o "$work/libmpi_count.so"

# binary, N, log_every -> "cpu_seconds collectives allreduces" of one run
measure() {
    local n=$1 every=$3 p count=$work/count.txt cpu
    p=$("$root/tools/er_p.sh" "$n")
    rm -f "$count" "$work/run.h5"
    /usr/bin/time -o "$work/time.txt" -f "%U %S" mpirun --oversubscribe -n 2 \
        -x LD_PRELOAD="$work/libmpi_count.so" -x POLKA_MPI_COUNT="$count" \
        "$2" run --quiet --set net.agents="$n" --set net.graph=er --set net.p="$p" \
        --set data.n_train=$((24 * n)) --set run.log_test=100 --set run.log_every="$every" \
        --set run.output="$work/run.h5" > "$work/last.log" 2>&1 ||
        { echo "FAILED: $2 (N = $n)" >&2; cat "$work/last.log" >&2; exit 1; }
    cpu=$(tail -1 "$work/time.txt")
    awk -v cpu="$cpu" '$2 == 0 { c = $4; a = $6 } END { split(cpu, t, " ");
        printf "%.3f %d %d\n", t[1] + t[2], c, a }' "$count"
}

# binary, N -> "seconds collectives allreduces" per log step
per_step() {
    local every rare
    every=$(measure "$2" "$1" 1)
    rare=$(measure "$2" "$1" 1000000000000)
    echo "$every $rare" | awk '{ printf "%.4f %.1f %.1f\n", ($1 - $4) / 23, ($2 - $5) / 23,
                                 ($3 - $6) / 23 }'
}

printf '%6s | %-32s | %-32s\n' "" "base $base" "this tree"
printf '%6s | %9s %11s %10s | %9s %11s %10s\n' N cpu_s/step collect/step allred/step \
    cpu_s/step collect/step allred/step
for n in $ns; do
    # shellcheck disable=SC2046
    printf '%6s | %9s %11s %10s | %9s %11s %10s\n' "$n" $(per_step "$work/base/build/polka" "$n") \
        $(per_step "$polka" "$n")
done
