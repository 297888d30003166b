#!/usr/bin/env bash
# same_results.sh BEFORE AFTER: two polka builds give the same results, side by side — the
# quickstart's two runs (16 agents on ER p = 0.2 on 2 ranks with net.agents, and centralized
# POLK on their union), experiments/symmetric_table.sh (paper against symmetric penalty,
# skewed and i.i.d.) and one pass of centralized POLK on Fashion-MNIST
# (experiments/configs/fashion_mnist.ini), and small runs of the breadth (breadth(), below:
# the random-feature methods decentralized and centralized, the event engine, lost messages on
# a graph redrawn every 20 rounds, privacy clipping, a checkpoint and its resume on 3 ranks,
# a run on one rank). Each run file of AFTER is compared with BEFORE's by
# tests/python/compare_runs.py (every metric but the timers bit for bit, every final model byte for
# byte). BEFORE, AFTER: polka binaries (e.g. a build of an older commit and build/polka).
#
#   tools/same_results.sh OLD/polka build/polka   Environment: OUT [out/same_results],
#                                                       FASHION [1] (0: skip Fashion-MNIST)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
[ $# -eq 2 ] || { echo "usage: same_results.sh BEFORE_POLKA AFTER_POLKA" >&2; exit 2; }
before=$(realpath "$1") after=$(realpath "$2")
out=${OUT:-$root/out/same_results}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1
config=$root/experiments/configs/decentralized_multidist.ini
graph=$root/graphs/er_16_p0.2.txt
compare=("/usr/bin/python3" "$root/tests/python/compare_runs.py")

runs() { # POLKA DIR: the quickstart's runs and the Fashion-MNIST pass into DIR
    local polka=$1 dir=$2
    mkdir -p "$dir"
    mpirun --oversubscribe -n 2 "$polka" run --quiet --config "$config" --set net.agents=16 \
        --set net.graph="$graph" --set run.output="$dir/decentralized.h5"
    "$polka" run --quiet --config "$config" --centralized --set net.agents=16 \
        --set run.output="$dir/centralized.h5"
    if [ "${FASHION:-1}" = 1 ]; then
        "$root/tools/need_fashion_mnist.sh"
        /usr/bin/time -f "fashion one pass: %U s user" "$polka" run --quiet \
            --config "$root/experiments/configs/fashion_mnist.ini" \
            --set run.output="$dir/fashion.h5" 2>&1 | tail -1
    fi
    POLKA=$polka OUT=$dir/symmetric "$root/experiments/symmetric_table.sh" >"$dir/symmetric.txt"
    breadth "$polka" "$dir/breadth"
}

breadth() { # POLKA DIR: small runs through every floor of src/sim
    local polka=$1 dir=$2 small=(--config "$config" --set data.n_train=1000 --set data.n_test=400
        --set run.log_every=200 --set net.agents=8)
    mkdir -p "$dir"
    for method in rf-diffusion dkla coke; do
        mpirun --oversubscribe -n 2 "$polka" run --quiet "${small[@]}" --set net.method=$method \
            --set run.output="$dir/$method.h5"
        "$polka" run --quiet "${small[@]}" --centralized --set net.method=$method \
            --set run.output="$dir/${method}_central.h5"
    done
    mpirun --oversubscribe -n 2 "$polka" run --quiet "${small[@]}" --set async.engine=events \
        --set run.output="$dir/events.h5"
    mpirun --oversubscribe -n 2 "$polka" run --quiet "${small[@]}" --set fault.link_loss=0.2 \
        --set net.resample_every=20 --set run.output="$dir/faults_epochs.h5"
    mpirun --oversubscribe -n 2 "$polka" run --quiet "${small[@]}" --set privacy.clip=1 \
        --set privacy.sample_epsilon=1 --set run.output="$dir/privacy.h5"
    "$polka" run --quiet "${small[@]}" --set run.output="$dir/one_rank.h5"
    mpirun --oversubscribe -n 3 "$polka" run --quiet "${small[@]}" --set run.checkpoint_every=2 \
        --set run.checkpoint="$dir/resumed.ckpt" --set run.output="$dir/checkpointed.h5"
    mpirun --oversubscribe -n 2 "$polka" run --quiet --resume "$dir/resumed.ckpt" \
        --set run.output="$dir/resumed.h5"
}

final_score() { # run file -> mean final test score over the agents
    /usr/bin/python3 -c "import h5py,sys; f=h5py.File(sys.argv[1],'r'); \
print('%.6f' % f['metrics/test_score'][-1].mean())" "$1"
}

echo "== before: $before"
runs "$before" "$out/before"
echo "== after: $after"
runs "$after" "$out/after"
echo "== side by side"
printf "%-34s %12s %12s  %s\n" "run file" before after "compare_runs.py"
differ=0
for file in $(cd "$out/before" && find . -name '*.h5' | sort); do
    verdict=$("${compare[@]}" "$out/before/$file" "$out/after/$file" 2>&1 | tail -1) || differ=1
    printf "%-34s %12s %12s  %s\n" "${file#./}" "$(final_score "$out/before/$file")" \
        "$(final_score "$out/after/$file")" "${verdict:-same}"
done
echo "== symmetric_table.sh"
diff <(grep -v '^figures:' "$out/before/symmetric.txt") \
    <(grep -v '^figures:' "$out/after/symmetric.txt") && cat "$out/after/symmetric.txt" || differ=1
[ "$differ" = 0 ] && echo "same results" || { echo "RESULTS DIFFER"; exit 1; }
