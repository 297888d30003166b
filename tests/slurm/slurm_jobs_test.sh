#!/usr/bin/env bash
# The batch scripts as users submit them, under the private Slurm of tests/slurm/slurm_cluster.sh:
#
#   tests/slurm/slurm_cluster.sh tests/slurm/slurm_jobs_test.sh run POLKA WORK    sbatch slurm/run.sbatch
#   tests/slurm/slurm_cluster.sh tests/slurm/slurm_jobs_test.sh sweep POLKA WORK  sbatch --array sweep.sbatch
#   tests/slurm/slurm_cluster.sh tests/slurm/slurm_jobs_test.sh million POLKA WORK
#       AGENTS=64 GRAPH=rgg sbatch --ntasks=4 slurm/million.sbatch (10^6 agents' settings)
#   tests/slurm/slurm_cluster.sh tests/slurm/slurm_jobs_test.sh memory POLKA WORK
#       sbatch --mem=14M slurm/run.sbatch on a 9.6 MB file: one task reads it, two tasks (7 MB
#       each: data.memory = auto shares the job's memory among its ranks) are refused by name
#   tests/slurm/slurm_cluster.sh tests/slurm/slurm_jobs_test.sh preempt POLKA WORK
#       sbatch slurm/run.sbatch, signalled (scancel --signal=USR1 --batch) midway: it checkpoints,
#       requeues itself, resumes and ends with the run file of an uninterrupted job (the same
#       metric rows but the timers, the same final models byte for byte: compare_runs.py)
#   tests/slurm/slurm_cluster.sh tests/slurm/slurm_jobs_test.sh term|cancel POLKA WORK
#       sbatch slurm/run.sbatch, then `scancel --signal=TERM --full` (preemption's signal):
#       a checkpoint, no requeue, resumed by the next submission; or a plain `scancel`:
#       CANCELLED, not requeued
#
# submits from the repository's root with the job logs and run files under WORK, waits for
# the jobs (scontrol: no accounting here), says which launcher the job picked and reads every
# run file with h5py (tests/python/check_run.py). LAUNCH in the environment overrides the launcher;
# EXPECT_LAUNCHER, when set, is the launcher every job must have picked.
set -euo pipefail
tests=$(cd "$(dirname "$0")/.." && pwd)
root=$(dirname "$tests")
# shellcheck source=tests/slurm/slurm_cluster.sh
. "$tests/slurm/slurm_cluster.sh"
mode=$1 polka=$2 work=$3
[ -n "${SLURM_CONF:-}" ] || { echo "run me under tests/slurm/slurm_cluster.sh" >&2; exit 2; }
rm -rf "$work"
mkdir -p "$work"
cd "$root"
small="--set data.n_train=800 --set data.n_test=400 --set run.log_every=400"
# The preempted and signalled jobs: 120 000 samples on 6 agents, 12 s on 2 ranks of this 2-core
# machine (24 s at 240 000, so each such test spent about 70 s on its three jobs), so the
# checkpoint at 2 s and the signal after round 2 000 come mid-run.
long="--set data.n_train=120000 --set data.n_test=400 --set run.log_every=3000 --set net.agents=6"

check() { # FILE AGENTS: the run file read with h5py
    echo "reading $1"
    /usr/bin/python3 "$tests/python/check_run.py" "$1" "$2"
}

finish() { # JOB LOGS...: waits for the job(s), prints the launcher lines, fails with the logs
    local job=$1
    shift
    echo "waiting for job $job"
    if ! slurm_wait_done "$job" 180; then
        slurm_show_logs "$@"
        exit 1
    fi
    grep -h '^polka: launcher:' "$@" | sort | uniq -c
    if [ -n "${EXPECT_LAUNCHER:-}" ] &&
        grep -h '^polka: launcher:' "$@" | grep -vq "^polka: launcher: $EXPECT_LAUNCHER "; then
        echo "FAIL: the job did not pick $EXPECT_LAUNCHER"
        exit 1
    fi
}

case $mode in
    run)
        job=$(OUTPUT=$work/run.h5 POLKA=$polka SETTINGS="--set net.graph=ring $small" \
            slurm_submit --ntasks=4 --time=00:05:00 --output="$work/polka-%j.out" \
            slurm/run.sbatch)
        echo "submitted sbatch --ntasks=4 slurm/run.sbatch: job $job"
        finish "$job" "$work/polka-$job.out"
        check "$work/run.h5" 4
        ;;
    million)
        # slurm/million.sbatch at a small size: its settings (GRAPH=rgg: a random geometric graph
        # of 1.25 ln N mean degree, METIS placement, 200 samples per agent) on 64 agents, 4 tasks
        job=$(AGENTS=64 LOG_AGENTS=64 GRAPH=rgg OUTPUT=$work/million.h5 POLKA=$polka \
            SETTINGS="--set data.n_test=400" slurm_submit --ntasks=4 --mem-per-cpu=200M \
            --time=00:05:00 --output="$work/million-%j.out" slurm/million.sbatch)
        echo "submitted AGENTS=64 sbatch --ntasks=4 slurm/million.sbatch: job $job"
        finish "$job" "$work/million-$job.out"
        grep -h '^summary: mode decentralized, agents 64, rounds 200,\|^summary: placement partition' \
            "$work/million-$job.out"
        [ "$(grep -c '^summary: mode decentralized, agents 64, rounds 200,\|^summary: placement partition' \
            "$work/million-$job.out")" = 2 ] || { echo "FAIL: not the million run's settings"; exit 1; }
        check "$work/million.h5" 64
        ;;
    sweep)
        export OUT=$work/sweep POLKA=$polka TOPOLOGIES=graphs/ring_4.txt CS="0 1" EXTRA=$small
        n=$(experiments/sweep.sh --count)
        job=$(slurm_submit --array=0-$((n - 1)) --ntasks=4 --time=00:05:00 \
            --output="$work/sweep-%A_%a.out" slurm/sweep.sbatch)
        echo "submitted sbatch --array=0-$((n - 1)) slurm/sweep.sbatch: job $job"
        logs=()
        for ((k = 0; k < n; k++)); do logs+=("$work/sweep-${job}_$k.out"); done
        finish "$job" "${logs[@]}"
        check "$OUT/central_n4_kp0.04_s1.h5" 1
        for c in $CS; do check "$OUT/ring_4_n4_c${c}_kp0.04_s1.h5" 4; done
        ;;
    memory)
        # 400 samples of 3000 listed features: 9.6 MB dense, every rank reads the test set
        awk 'BEGIN { srand(1); for (i = 0; i < 400; i++) { line = i % 2;
             for (j = 1; j <= 3000; j++) line = line " " j ":" sprintf("%.3f", rand()); print line } }' \
            >"$work/wide.svm"
        export POLKA=$polka SETTINGS="--set data.source=file --set data.train=$work/wide.svm
            --set data.test=$work/wide.svm --set net.graph=complete --set net.agents=2
            --set run.passes=0.1"
        one=$(OUTPUT=$work/one.h5 slurm_submit --ntasks=1 --mem=14M --time=00:05:00 \
            --output="$work/one-%j.out" slurm/run.sbatch)
        finish "$one" "$work/one-$one.out"
        check "$work/one.h5" 2
        two=$(OUTPUT=$work/two.h5 slurm_submit --ntasks=2 --mem=14M --time=00:05:00 \
            --output="$work/two-%j.out" slurm/run.sbatch)
        slurm_wait "$two" "$SLURM_TERMINAL" 180 || { slurm_show_logs "$work/two-$two.out"; exit 1; }
        want="over the memory limit of 7.0 MB (data.memory = auto: 14 MB of the Slurm job on this node, shared by 2 processes)"
        grep -F "$want" "$work/two-$two.out" ||
            { echo "FAIL: the two-task job was not refused by its share"; slurm_show_logs "$work/two-$two.out"; exit 1; }
        slurm_job_states "$two" | grep -qv ' COMPLETED ' || { echo "FAIL: the job completed"; exit 1; }
        ;;
    preempt)
        export POLKA=$polka SETTINGS=$long
        full=$(OUTPUT=$work/full.h5 slurm_submit --ntasks=2 --time=00:05:00 \
            --output="$work/full-%j.out" slurm/run.sbatch)
        # one job at a time: two 2-rank jobs on the one node, one of them requeued, made Open
        # MPI's shared-memory transport of the other crash once (srun --mpi=pmix)
        finish "$full" "$work/full-$full.out"
        job=$(OUTPUT=$work/cut.h5 slurm_submit --ntasks=2 --time=00:05:00 \
            --output="$work/cut-%j.out" slurm/run.sbatch)
        echo "submitted an uninterrupted job $full and job $job, which will be preempted"
        slurm_wait "$job" RUNNING 60
        for _ in $(seq 600); do grep -q '^round 2000 ' "$work/cut-$job.out" 2>/dev/null && break; sleep 0.2; done
        echo "scancel --signal=USR1 --batch $job"
        scancel --signal=USR1 --batch "$job"
        slurm_wait "$job" 'COMPLETED [1-9]' 240 || { slurm_show_logs "$work/cut-$job.out"; exit 1; }
        finish "$job" "$work/cut-$job.out"
        grep -h '^polka run: stopped by SIGUSR1\|^polka: stopped\|^polka: resuming' "$work/cut-$job.out"
        slurm_job_states "$job" | grep -q ' COMPLETED [1-9]' ||
            { echo "FAIL: the job was not requeued"; exit 1; }
        grep -q '^polka: resuming from' "$work/cut-$job.out" ||
            { echo "FAIL: the requeued job did not resume"; exit 1; }
        [ ! -e "$work/cut.h5.ckpt" ] || { echo "FAIL: the finished job left its checkpoint"; exit 1; }
        check "$work/cut.h5" 6
        /usr/bin/python3 "$tests/python/compare_runs.py" "$work/full.h5" "$work/cut.h5"
        ;;
    term | cancel)
        # term: `scancel --signal=TERM --full`, what every process of a job gets on preemption
        # (srun included, which then kills its step at once): a checkpoint is left (the
        # periodic one, CHECKPOINT_SECONDS = 2 here), the job ends without requeueing itself
        # (Slurm requeues a preempted job by itself), and the job submitted again resumes and
        # ends with the run file of an uninterrupted job.
        # cancel: a user's plain `scancel`: the job ends CANCELLED, not requeued.
        export POLKA=$polka SETTINGS=$long CHECKPOINT_SECONDS=2
        submit_cut() {
            OUTPUT=$work/cut.h5 slurm_submit --ntasks=2 --time=00:05:00 \
                --output="$work/cut-%j.out" slurm/run.sbatch
        }
        job=$(submit_cut)
        slurm_wait "$job" RUNNING 60
        for _ in $(seq 600); do grep -q '^checkpoint: round' "$work/cut-$job.out" 2>/dev/null && break; sleep 0.2; done
        if [ "$mode" = term ]; then
            echo "scancel --signal=TERM --full $job"
            scancel --signal=TERM --full "$job"
        else
            echo "scancel $job"
            scancel "$job"
        fi
        slurm_wait "$job" "$SLURM_TERMINAL" 120 || { slurm_show_logs "$work/cut-$job.out"; exit 1; }
        sleep 3 # a requeue (the bug) shows as PENDING after the job's end
        slurm_job_states "$job"
        grep -h '^polka run: \|^polka: ' "$work/cut-$job.out" || true
        slurm_job_states "$job" | grep -q ' 0$' || { echo "FAIL: the job requeued itself"; exit 1; }
        if [ "$mode" = cancel ]; then
            slurm_job_states "$job" | grep -q ' CANCELLED ' || { echo "FAIL: not CANCELLED"; exit 1; }
            exit 0
        fi
        [ -f "$work/cut.h5.ckpt" ] ||
            { echo "FAIL: no checkpoint"; slurm_show_logs "$work/cut-$job.out"; exit 1; }
        again=$(submit_cut)
        finish "$again" "$work/cut-$again.out"
        grep -q '^polka: resuming from' "$work/cut-$again.out" || { echo "FAIL: no resume"; exit 1; }
        full=$(OUTPUT=$work/full.h5 slurm_submit --ntasks=2 --time=00:05:00 \
            --output="$work/full-%j.out" slurm/run.sbatch)
        finish "$full" "$work/full-$full.out"
        check "$work/cut.h5" 6
        /usr/bin/python3 "$tests/python/compare_runs.py" "$work/full.h5" "$work/cut.h5"
        ;;
    *)
        echo "usage: $0 run|million|sweep|memory|preempt|term|cancel POLKA WORK" >&2
        exit 2
        ;;
esac
