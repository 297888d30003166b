#!/usr/bin/env bash
# What preemption needs from the private cluster, with a plain shell job (the polka job is
# slurm_jobs_test.sh preempt): the batch script gets USR1 from `scancel --signal=USR1 --batch`,
# requeues itself (scontrol requeue) and its second run (SLURM_RESTART_COUNT=1) completes.
#
#   tests/slurm/slurm_cluster.sh tests/slurm/slurm_requeue_test.sh WORK
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/slurm/slurm_cluster.sh
. "$here/slurm_cluster.sh"
work=$1
rm -rf "$work"
mkdir -p "$work"
cat >"$work/job.sh" <<'JOB'
#!/usr/bin/env bash
#SBATCH --requeue
#SBATCH --open-mode=append
restart=${SLURM_RESTART_COUNT:-0}
trap 'echo "run $restart: USR1, requeue"; kill "$sleeper"; scontrol requeue "$SLURM_JOB_ID"; exit 0' USR1
echo "run $restart: started"
[ "$restart" -ge 1 ] && { echo "run $restart: done"; exit 0; }
sleep 300 &
sleeper=$!
wait
JOB
job=$(slurm_submit --output="$work/job.out" "$work/job.sh")
echo "submitted job $job"
slurm_wait "$job" RUNNING 60
for _ in $(seq 300); do grep -q started "$work/job.out" 2>/dev/null && break; sleep 0.2; done
echo "scancel --signal=USR1 --batch $job"
scancel --signal=USR1 --batch "$job"
slurm_wait "$job" 'COMPLETED [1-9]' 120 || { slurm_show_logs "$work/job.out"; exit 1; }
cat "$work/job.out"
# (slurmstepd may add its "CANCELLED ... DUE TO JOB REQUEUE" line: only the job's lines count)
diff <(printf 'run 0: started\nrun 0: USR1, requeue\nrun 1: started\nrun 1: done\n') <(grep "^run " "$work/job.out")
echo "ok: signalled, requeued and completed on its second run"
