#!/usr/bin/env bash
# resumable.sh CHECKPOINT COMMAND...: runs a `polka run` command (COMMAND, launcher included)
# so that a preempted Slurm job finishes by itself (slurm/run.sbatch, slurm/sweep.sbatch):
# - COMMAND gets --set run.checkpoint=CHECKPOINT, and --resume CHECKPOINT when the file exists
#   (a requeued job goes on where it stopped);
# - USR1 or TERM to this script (sbatch --signal=B:USR1@120, preemption) goes to COMMAND's
#   launcher, which passes it to the ranks: they finish their round, write the checkpoint and
#   exit with 75; the job then requeues itself (scontrol requeue, with sbatch --requeue);
# - a run that ends well removes its checkpoint.
# Exits with COMMAND's status (0 after a requeue). Run it with exec from the batch script:
# Slurm's B: signals reach the batch shell only.
set -uo pipefail
checkpoint=$1
shift
resume=()
if [ -f "$checkpoint" ]; then
    echo "polka: resuming from $checkpoint (start ${SLURM_RESTART_COUNT:-0})"
    resume=(--resume "$checkpoint")
fi
signalled=
forward() {
    signalled=$1
    kill -"$1" "$child" 2>/dev/null || true
}
trap 'forward USR1' USR1
trap 'forward TERM' TERM
"$@" --set run.checkpoint="$checkpoint" "${resume[@]}" &
child=$!
code=0
while :; do # a trapped signal ends wait early: wait again for the ranks
    wait "$child"
    code=$?
    kill -0 "$child" 2>/dev/null || break
done
if [ "$code" -eq 0 ]; then
    rm -f "$checkpoint"
    exit 0
fi
if [ -n "$signalled" ] && [ -f "$checkpoint" ]; then
    echo "polka: stopped on $signalled with a checkpoint (exit $code); requeueing"
    if [ -n "${SLURM_JOB_ID:-}" ]; then scontrol requeue "$SLURM_JOB_ID"; fi
    exit 0
fi
exit "$code"
