#!/usr/bin/env bash
# resumable.sh CHECKPOINT COMMAND...: runs a `polka run` command (COMMAND, launcher included)
# so that a preempted or timed-out Slurm job keeps its work (slurm/run.sbatch, sweep.sbatch):
# - COMMAND gets --set run.checkpoint=CHECKPOINT, --resume CHECKPOINT when the file exists
#   (a requeued or resubmitted job goes on where it stopped), and periodic checkpoints every
#   CHECKPOINT_SECONDS (600; unless COMMAND sets run.checkpoint_seconds itself);
# - USR1 to this script (sbatch --signal=B:USR1@120, before the time limit) goes to COMMAND's
#   launcher, which passes it to the ranks: they finish their round, write the checkpoint and
#   exit with 75; the job then requeues itself (scontrol requeue, with sbatch --requeue);
# - TERM (preemption, scancel) goes to the ranks as USR1 (srun ends its step at once on a
#   TERM of its own, and passes USR1 on): they write the checkpoint; the job does not requeue
#   itself: Slurm requeues a preempted job by itself, and a user's scancel ends the job. When
#   every process of the job gets TERM (preemption, scancel --full), srun kills its step at
#   once and the last periodic checkpoint is what is left;
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
    kill -"$1" "$child" 2>/dev/null || true
}
trap 'signalled=USR1; forward USR1' USR1
trap '[ "$signalled" = USR1 ] || signalled=TERM; forward USR1' TERM # the limit's TERM after USR1
periodic=()
case " $* " in
    *run.checkpoint_seconds=*) ;;
    *) periodic=(--set run.checkpoint_seconds="${CHECKPOINT_SECONDS:-600}") ;;
esac
"$@" "${periodic[@]}" --set run.checkpoint="$checkpoint" "${resume[@]}" &
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
if [ "$signalled" = USR1 ] && [ -f "$checkpoint" ]; then
    echo "polka: stopped on USR1 with a checkpoint (exit $code); requeueing"
    if [ -n "${SLURM_JOB_ID:-}" ]; then scontrol requeue "$SLURM_JOB_ID"; fi
    exit 0
fi
if [ "$signalled" = TERM ] && [ -f "$checkpoint" ]; then
    echo "polka: stopped on TERM (exit $code); checkpoint $checkpoint kept: a job submitted" \
        "again with the same settings resumes from it (remove it to start over)"
fi
exit "$code"
