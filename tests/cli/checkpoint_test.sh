#!/usr/bin/env bash
# checkpoint_test.sh MODE DIR RANKS RESUME_RANKS [SETTINGS...]: a run interrupted and resumed
# from its checkpoint ends with the run file of the uninterrupted run, field by field
# (compare_runs.py: every metric row but the timers, every final model byte for byte).
#   MODE periodic:  checkpoints every $EVERY rounds and runs to the end (the checkpoints do
#                   not change the run); resumed from the last checkpoint on RESUME_RANKS.
#   MODE signal:    SIG$SIGNAL (default TERM; to mpirun, or to polka with RANKS = 0: no mpirun)
#                   once the CSV file holds a random number of rows (in the first half of
#                   the run); the run must stop with its one line
#                   and exit 75 (without mpirun: then a second SIGTERM follows while it
#                   saves, which must change nothing), then is resumed.
#   MODE kill9:     checkpoints every $EVERY rounds, killed with SIGKILL (the whole process
#                   group) at a random row, resumed from the last checkpoint on disk.
# Environment: POLKA, PY (python3 with h5py), MPIEXEC, EVERY (rounds), HERE (tests dir),
# RESUME_SET (settings of the resumed run only, e.g. "--set net.placement=block").
set -u
. "$HERE/lib/proc_clock.sh"
mode=$1 dir=$2 ranks=$3 resume_ranks=$4
shift 4
settings=("$@")
rm -rf "$dir" && mkdir -p "$dir" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
launch() { # launch NP ARGS...: polka alone (NP 0) or under mpirun
    local np=$1
    shift
    if [ "$np" -eq 0 ]; then "$POLKA" "$@"; else $MPIEXEC --oversubscribe -n "$np" "$POLKA" "$@"; fi
}
np_full=$ranks
launch "$np_full" run --quiet "${settings[@]}" --set run.output="$dir/full.h5" >"$dir/full.out" 2>&1 ||
    fail "the uninterrupted run failed: $(cat "$dir/full.out")"
rows=$("$PY" -c "import h5py,sys; print(h5py.File(sys.argv[1])['metrics/round'].shape[0])" "$dir/full.h5")
ck="$dir/run.ckpt"
run_args=(run --quiet "${settings[@]}" --set run.output="$dir/cut.h5" --set run.csv="$dir/cut.csv"
    --set run.checkpoint="$ck")

# waits until the CSV file of the interrupted run holds more than $1 log steps (of $agents rows)
wait_rows() {
    local want=$1 pid=$2 agents
    agents=$("$PY" -c "import h5py,sys; print(h5py.File(sys.argv[1])['metrics/test_score'].shape[1])" "$dir/full.h5")
    for _ in $(seq 1 600); do
        local have=0 csv
        # the CSV grows under its temporary name (renamed at the run's end)
        csv=$(ls "$dir"/cut.csv.*.tmp 2>/dev/null | head -1)
        [ -f "$csv" ] && have=$(( ($(wc -l <"$csv") - 1) / agents ))
        [ "$have" -gt "$want" ] && return 0
        kill -0 "$pid" 2>/dev/null || return 1
        sleep 0.05
    done
    return 1
}

case $mode in
periodic)
    launch "$ranks" "${run_args[@]}" --set run.checkpoint_every="$EVERY" >"$dir/cut.out" 2>&1 ||
        fail "the checkpointing run failed: $(cat "$dir/cut.out")"
    "$PY" "$HERE/python/compare_runs.py" "$dir/full.h5" "$dir/cut.h5" >/dev/null ||
        fail "checkpointing changed the run: $("$PY" "$HERE/python/compare_runs.py" "$dir/full.h5" "$dir/cut.h5")"
    ;;
signal | kill9)
    target=$(( 1 + RANDOM % (rows > 4 ? rows / 2 : 1) ))
    signal=${SIGNAL:-TERM}
    extra=()
    [ "$mode" = kill9 ] && extra=(--set run.checkpoint_every="$EVERY")
    setsid bash -c 'exec "$@"' _ $( [ "$ranks" -eq 0 ] || echo "$MPIEXEC --oversubscribe -n $ranks" ) \
        "$POLKA" "${run_args[@]}" "${extra[@]}" >"$dir/cut.out" 2>&1 &
    pid=$!
    wait_rows "$target" "$pid" || fail "the run ended before row $target: $(cat "$dir/cut.out")"
    if [ "$mode" = signal ]; then
        kill -"$signal" "$pid"
        # a second signal while it finishes its round and saves (mpirun would abort the job on
        # a second TERM of its own, so only polka alone gets it), once its handler took the
        # first (two pending signals are one)
        [ "$ranks" -ne 0 ] || { taken "$pid" "$(kill -l "$signal")"; kill -"$signal" "$pid" 2>/dev/null; }
    else
        kill -KILL -- -"$pid"
    fi
    wait "$pid"
    code=$?
    if [ "$mode" = signal ]; then
        [ "$(grep -c "^polka run: stopped by SIG$signal after round" "$dir/cut.out")" -eq 1 ] ||
            fail "no one line saying where the checkpoint is: $(cat "$dir/cut.out")"
        [ "$ranks" -ne 0 ] || [ "$code" -eq 75 ] || fail "exit status $code, not 75"
    fi
    echo "interrupted ($mode) after log step $target of $rows, exit $code"
    # every rank of the killed run gone: mpirun's ranks are not in its process group and, once
    # orphaned, run on until they notice; they hold the locks of their outputs, which the
    # resumed run writes too (the checkpoint's settings)
    for _ in $(seq 1 300); do pgrep -f -- "run.output=$dir/cut.h5" >/dev/null || break; sleep 0.1; done
    ;;
*) fail "unknown mode $mode" ;;
esac
[ -f "$ck" ] || fail "no checkpoint $ck"
"$PY" -c "import h5py,sys; a=h5py.File(sys.argv[1]).attrs; print('checkpoint at round', a['round'], 'rows', a['rows'], 'signal', a['signal'])" "$ck"
# RESUME_SET: settings of the resumed run only (another net.placement)
read -r -a resume_set <<< "${RESUME_SET:-}"
launch "$resume_ranks" run --quiet "${settings[@]}" "${resume_set[@]}" \
    --set run.output="$dir/resumed.h5" --resume "$ck" >"$dir/resumed.out" 2>&1 ||
    fail "the resumed run failed: $(cat "$dir/resumed.out")"
except=()
[ "$resume_ranks" = "$ranks" ] && [ -z "${RESUME_SET:-}" ] || except=(--except disagreement)
"$PY" "$HERE/python/compare_runs.py" "$dir/full.h5" "$dir/resumed.h5" "${except[@]}" ||
    fail "the resumed run differs from the uninterrupted one"
