#!/usr/bin/env bash
# run_kill_test.sh POLKA PYTHON DIR: a `polka run` killed with SIGKILL midway leaves the file
# of an earlier run under the real name whole, and its own rows in its temporary file
# (NAME.XXXXXX.tmp), which h5py reads, with every row written before the kill complete.
set -u
polka=$1 python=$2 dir=$3
tests=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$dir"
file=$dir/killed.h5
rm -f "$file" "$file".*.tmp "$file".lock
echo "an earlier run's file" > "$file"
before=$(sha256sum < "$file")
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1
# long enough to be killed midway: a million samples, a log step every 2000
timeout 120 mpiexec --oversubscribe -n 2 "$polka" run --quiet --set net.graph=line \
    --set data.n_train=1000000 --set run.log_every=2000 --set run.output="$file" &
launcher=$!
# wait for at least two log steps to be on disk
rows=0
for _ in $(seq 1 200); do
    tmp=$(ls "$file".*.tmp 2>/dev/null | head -1)
    [ -n "$tmp" ] && rows=$("$python" -c "import h5py; print(h5py.File('$tmp', 'r')['metrics/round'].shape[0])" 2>/dev/null || echo 0)
    [ "$rows" -ge 2 ] && break
    sleep 0.1
done
ranks=$(pgrep -f -- "run.output=$file" | grep -v "^$launcher\$")
kill -KILL $ranks "$launcher" 2>/dev/null
wait "$launcher" 2>/dev/null
sleep 0.5
pkill -KILL -f -- "run.output=$file" 2>/dev/null
if [ "${rows:-0}" -lt 2 ]; then echo "FAIL: the run never logged two rows"; exit 1; fi
if [ "$(sha256sum < "$file")" != "$before" ]; then echo "FAIL: the earlier file changed"; exit 1; fi
"$python" "$tests/python/check_run.py" "$tmp" 2 --partial
