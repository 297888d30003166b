#!/usr/bin/env bash
# ckpt_inputs_test.sh DIR: a checkpoint records its data files (size, mtime, digest) and a
# resume compares them: the same file resumes, a touched copy (another
# mtime, the same bytes) resumes, a regenerated file of the same name is refused by name,
# whether its size changed or not. Environment: POLKA, PY.
set -u
dir=$1
fail() { echo "FAIL: $*"; exit 1; }
tests=$(cd "$(dirname "$0")/.." && pwd)
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
"$PY" - <<'PY'
import random
random.seed(1)
for name, n in (("train.svm", 600), ("test.svm", 200)):
    with open(name, "w") as f:
        for i in range(n):
            c = random.randint(0, 2)
            f.write(f"{c} 1:{random.gauss(c, 1):.4f} 2:{random.gauss(-c, 1):.4f}\n")
PY
set_=(--set data.source=file --set data.train=train.svm --set data.test=test.svm --set run.log_every=200)
"$POLKA" run --quiet "${set_[@]}" --set run.checkpoint_every=50 --set run.checkpoint=d.ckpt \
    --set run.output=full.h5 >/dev/null || fail "the run failed"
resume() { "$POLKA" run --quiet "${set_[@]}" --resume d.ckpt --set run.checkpoint=again.ckpt --set run.output="$1" 2>&1 >/dev/null; }
out=$(resume same.h5) || fail "the same files: $out"
cp train.svm copy.svm && mv copy.svm train.svm # the same bytes, another mtime
touch -d '2001-01-01' train.svm
out=$(resume touched.h5) || fail "a copy of the same bytes: $out"
"$PY" "$tests/python/compare_runs.py" full.h5 touched.h5 || fail "the resumed run differs"
sed -i '1s/^./7/' train.svm # regenerated: the same size, other bytes
out=$(resume other.h5) && fail "a regenerated data file of the same size was resumed"
echo "$out"
echo "$out" | grep -q "^polka run: cannot resume from 'd.ckpt': data.train 'train.svm' is not the file it was written with (12614 bytes then, 12614 now, other contents)" ||
    fail "not the expected message"
echo "1 1:0 2:0" >>train.svm
out=$(resume longer.h5) && fail "a longer data file was resumed"
echo "$out"
echo "$out" | grep -q "(12614 bytes then, 12624 now): a resumed run must read the same data" ||
    fail "not the expected message"
echo PASS
