#!/usr/bin/env bash
# tests/slurm/slurm_cluster.sh stops everything it started whatever happens: killed (TERM) while a
# job runs, it leaves no daemon, job step or job process of its cluster, nor its folder.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bash "$here/slurm_cluster.sh" bash -c '
    . "$0"
    job=$(slurm_submit --output=/dev/null --wrap "sleep 300")
    slurm_wait "$job" RUNNING 60 || exit 1
    echo "$SLURM_CLUSTER_DIR" >"$1/dir"
    sleep 300' "$here/slurm_cluster.sh" "$work" &
wrapper=$!
for _ in $(seq 600); do
    [ -s "$work/dir" ] && break
    kill -0 "$wrapper" 2>/dev/null || break
    sleep 0.1
done
if [ ! -s "$work/dir" ]; then
    wait "$wrapper"
    status=$?
    [ "$status" -eq 77 ] && exit 77
    echo "FAIL: the job did not start (helper exit $status)"
    exit 1
fi
dir=$(cat "$work/dir")
echo "killing the helper (TERM) while its job runs; cluster $dir"
kill -TERM "$wrapper"
wait "$wrapper"
echo "helper exit $?"
left=$(grep -lsxzF "POLKA_SLURM_CLUSTER=$dir" /proc/[0-9]*/environ | cut -d/ -f3 | paste -sd,)
if [ -n "$left" ]; then
    ps -o pid,args -p "$left"
    echo "FAIL: processes of the cluster left"
    exit 1
fi
[ -e "$dir" ] && { echo "FAIL: $dir left"; exit 1; }
echo "ok: no daemon, job step or job process left, folder removed"
