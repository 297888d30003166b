#!/usr/bin/env bash
# ckpt_full_disk_test.sh DIR: periodic checkpoints onto a file system that fills up after the
# first one. The run must go on to its end (exit 0, the same run file as an
# uninterrupted run) with a warning per checkpoint not written, leave no temporary file, and
# the checkpoint on the full disk must be the first one, whole: a resume from it ends with the
# uninterrupted run's file. The small file system is a tmpfs mounted for the test (root, as in
# CI); where mounting is not allowed the test says so and is skipped (exit 77: `ulimit -f`
# would fail MPI's own start-up files first).
# Environment: POLKA, PY (python3 with h5py), HERE (tests dir).
set -u
dir=$1
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$dir" && mkdir -p "$dir/small" || exit 1
settings=(--set data.n_train=800 --set run.log_every=250)
"$POLKA" run --quiet "${settings[@]}" --set run.output="$dir/full.h5" >/dev/null ||
    fail "the uninterrupted run failed"
mount -t tmpfs -o size=180k tmpfs "$dir/small" || { echo "SKIP: cannot mount a tmpfs"; exit 77; }
trap 'umount "$dir/small"' EXIT
echo "a 180 KB tmpfs: room for one checkpoint (about 100 KB), not for a second beside it"
ck=$dir/small/run.ckpt
"$POLKA" run --quiet "${settings[@]}" --set run.checkpoint_every=200 --set run.checkpoint="$ck" \
    --set run.output="$dir/cut.h5" >"$dir/cut.out" 2>"$dir/cut.err"
code=$?
cat "$dir/cut.err"
[ "$code" -eq 0 ] || fail "the run exited $code"
grep -q "^polka run: warning: the checkpoint after round 400 was not written (cannot .* checkpoint '.*run\.ckpt\.[A-Za-z0-9]*\.tmp': No space left on device); the run goes on, and '.*run\.ckpt' keeps the one of round 200$" "$dir/cut.err" ||
    fail "no warning for the checkpoint of round 400"
[ "$(ls "$dir/small")" = run.ckpt ] || fail "a temporary file was left: $(ls "$dir/small")"
"$PY" "$HERE/python/compare_runs.py" "$dir/full.h5" "$dir/cut.h5" || fail "the run went on differently"
round=$("$PY" -c "import h5py,sys; print(h5py.File(sys.argv[1]).attrs['round'])" "$ck")
[ "$round" = 200 ] || fail "the checkpoint on the full disk is of round $round, not 200"
"$POLKA" run --quiet "${settings[@]}" --resume "$ck" --set run.checkpoint="$dir/again.ckpt" \
    --set run.output="$dir/resumed.h5" >/dev/null || fail "the resume from the kept checkpoint failed"
"$PY" "$HERE/python/compare_runs.py" "$dir/full.h5" "$dir/resumed.h5" || fail "the resumed run differs"
echo "PASS"
