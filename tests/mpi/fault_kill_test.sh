#!/usr/bin/env bash
# fault_kill_test.sh POLKA PYTHON DIR: a faulty network is still one MPI job. A `polka run`
# on 2 ranks with lost messages, late values and a changing graph, one rank killed with
# SIGKILL midway: the whole run ends by itself within seconds, non-zero, nothing is left under
# the run file's name, and its temporary file is readable with every row written before the
# kill (mpiexec ends the other ranks too, so the file stays as they left it).
set -u
polka=$1 python=$2 dir=$3
tests=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$dir"
file=$dir/fault_killed.h5
rm -f "$file" "$file".*.tmp "$file".lock
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1
timeout 120 mpiexec --oversubscribe -n 2 "$polka" run --quiet --set net.agents=8 \
    --set net.graph=er --set net.p=0.5 --set fault.link_loss=0.3 --set fault.delay=2 \
    --set net.resample_every=50 --set data.n_train=1000000 --set run.log_every=2000 \
    --set run.output="$file" > "$dir/fault_killed.log" 2>&1 &
launcher=$!
rows=0
for _ in $(seq 1 300); do
    tmp=$(ls "$file".*.tmp 2>/dev/null | head -1)
    [ -n "$tmp" ] && rows=$("$python" -c "import h5py; print(h5py.File('$tmp', 'r')['metrics/round'].shape[0])" 2>/dev/null || echo 0)
    [ "$rows" -ge 2 ] && break
    sleep 0.1
done
victim=$(pgrep -f -- "run.output=$file" | grep -v "^$launcher\$" | grep -v "^$$\$" | tail -1)
[ -n "$victim" ] || { echo "FAIL: no rank to kill"; kill -KILL "$launcher"; exit 1; }
echo "killing one rank ($victim) with SIGKILL after $rows rows"
start=$(date +%s)
kill -KILL "$victim"
wait "$launcher"
code=$?
took=$(($(date +%s) - start))
pkill -KILL -f -- "run.output=$file" 2>/dev/null
echo "the run ended in $took s with exit $code"
if [ "$code" -eq 0 ] || [ "$code" -eq 124 ]; then
    echo "FAIL: exit $code (0: as if nothing happened; 124: it hung)"; cat "$dir/fault_killed.log"; exit 1
fi
if [ "$took" -gt 30 ]; then echo "FAIL: $took s to end"; exit 1; fi
if [ -e "$file" ]; then echo "FAIL: the failed run left '$file'"; exit 1; fi
"$python" "$tests/python/check_run.py" "$tmp" 8 --partial
