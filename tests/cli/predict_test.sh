#!/usr/bin/env bash
# predict_test.sh POLKA PYTHON DIR: a run on LIBSVM files written by `polka data multidist`
# equals the run on the generator itself, and `polka predict` on the saved model gives
# exactly the accuracy the run logged last (for every agent of a 4-agent MPI run too).
set -euo pipefail
polka=$1 python=$2 dir=$3
mkdir -p "$dir"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1
small=(--set data.n_train=1200 --set data.n_test=300 --set learner.batch=2)
"$polka" data multidist -o "$dir/md.svm" "${small[@]}" >/dev/null
files=(--set data.source=file --set data.train="$dir/md.svm" --set data.test="$dir/md.svm.t")
a=$("$polka" run --quiet --centralized "${small[@]}" | grep -v "samples/s\|start-up")
b=$("$polka" run --quiet --centralized "${small[@]}" "${files[@]}" --set run.output="$dir/central.h5" | grep -v "samples/s\|start-up")
if [ "$a" != "$b" ]; then printf 'FAIL: generator run\n%s\nfile run\n%s\n' "$a" "$b"; exit 1; fi
echo "ok: the file run equals the generator run"
mpiexec --oversubscribe -n 4 "$polka" run --quiet "${small[@]}" "${files[@]}" --set net.graph=ring \
    --set run.output="$dir/net.h5" >/dev/null
check() { # check RUN AGENT
    local logged predicted
    logged=$("$python" -c "import h5py; print(repr(float(h5py.File('$1','r')['metrics/test_score'][-1, $2])))")
    predicted=$("$polka" predict --model "$1:$2" --data "$dir/md.svm.t" --output "$dir/pred.txt" | awk '{print $2}')
    if ! "$python" -c "import sys; sys.exit(float('$logged') != float('$predicted'))"; then
        echo "FAIL: $1 agent $2: logged $logged, predicted $predicted"; exit 1
    fi
    [ "$(wc -l <"$dir/pred.txt")" -eq 300 ] || { echo "FAIL: predictions file"; exit 1; }
    echo "ok: $1 agent $2: predict gives the logged accuracy $predicted"
}
check "$dir/central.h5" 0
for agent in 0 1 2 3; do check "$dir/net.h5" "$agent"; done
