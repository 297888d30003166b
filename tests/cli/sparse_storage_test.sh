#!/usr/bin/env bash
# data.storage: the same LIBSVM data stored dense and sparse give the same run,
# byte for byte: every dataset of the run files but the timings (h5py), the CSV metrics but
# the timing columns, and polka predict's output. Runs on 2 ranks (4 agents, i.i.d. and
# class-skewed splits), centralized, a batch learner, each scaling. Then the 27-byte
# file "1 1:0.5 16777216:1" (part huge): stored in bytes, and refused clearly where its
# dimension's dense rows cannot fit (under ulimit -v, which an ASan build cannot take).
#   sparse_storage_test.sh POLKA MPIEXEC PYTHON DIR compare|huge
set -euo pipefail
polka=$1 mpiexec=$2 python=$3 dir=$4 part=$5
rm -rf "$dir"
mkdir -p "$dir"
if [ "$part" = huge ]; then
    # The 27-byte file: with sparse storage it is read (the data take bytes), but every
    # dense row of it takes 128 MB; where the batch and dictionary rows cannot fit, one clear
    # error before anything is allocated.
    printf '1 1:0.5 16777216:1\n' >"$dir/one.svm"
    one="--set data.source=file --set data.train=$dir/one.svm --set data.test=$dir/one.svm"
    set +e
    out=$(ulimit -v 3000000 && "$polka" run --quiet $one --set learner.control=bsgd-merge \
        --set learner.budget=100 --set run.output="$dir/one.h5" 2>&1)
    code=$?
    set -e
    want="16777216 features: their statistics (196 bytes, kept for the 1 that occurs) and the"
    want="$want run's dense rows of them (12928.0 MB, 808 bytes per feature)"
    echo "$out" | grep -qF "$want" || { echo "FAIL: the 27-byte file (exit $code): $out"; exit 1; }
    [ "$code" -ne 0 ] || { echo "FAIL: exit 0 on the 27-byte file"; exit 1; }
    echo "ok: refused under ulimit -v 3 GB: $out"
    # Ten such lines of two classes pass that check (KOMP has no budget to count), and the
    # model outgrows the address space: the message names the model, not a source line.
    for i in 1 2 3 4 5; do printf '1 1:0.5 16777216:1\n2 2:0.5 16777215:1\n'; done >"$dir/ten.svm"
    ten="--set data.source=file --set data.train=$dir/ten.svm --set data.test=$dir/ten.svm"
    set +e
    out=$(ulimit -v 2000000 && "$polka" run --quiet $ten --set run.mode=centralized \
        --set data.memory=1900M --set run.output="$dir/ten.h5" 2>&1)
    code=$?
    set -e
    want="out of memory for a model of 16 points of 16777216 features (2147 MB; a point is 134.2 MB)"
    echo "$out" | grep -qF "$want" || { echo "FAIL: the ten-line file (exit $code): $out"; exit 1; }
    [ "$code" -ne 0 ] || { echo "FAIL: exit 0 on the ten-line file"; exit 1; }
    echo "ok: the model's growth refused by name: $out"
    exit 0
fi
# 3 classes, 300 features, about 6 % of them listed (negative values too), a test file whose
# largest index is below the training file's
"$python" - "$dir" <<'PY'
import random, sys
d = sys.argv[1]
def write(path, n, seed, top):
    rng = random.Random(seed)
    with open(path, 'w') as f:
        for i in range(n):
            c = rng.randrange(3)
            feats = sorted(rng.sample(range(1, top + 1), 18))
            vals = [rng.gauss(1.5 if j % 3 == c else -0.5, 1.0) for j in feats]
            f.write(str(c) + ''.join(f' {j}:{v:.6g}' for j, v in zip(feats, vals)) + '\n')
write(f'{d}/train.svm', 700, 1, 300)
write(f'{d}/test.svm', 250, 2, 290)
PY
data="--set data.source=file --set data.train=$dir/train.svm --set data.test=$dir/test.svm
      --set learner.sigma=4"
net="--set net.graph=ring --set net.agents=4"
# run NAME RANKS ARGS...: the run with dense and with sparse storage
run() {
    local name=$1 ranks=$2
    shift 2
    for storage in dense sparse; do
        "$mpiexec" --oversubscribe -n "$ranks" "$polka" run --quiet $data "$@" \
            --set data.storage=$storage --set run.output="$dir/$name.$storage.h5" \
            --set run.csv="$dir/$name.$storage.csv" >/dev/null
    done
    "$python" - "$dir/$name.dense.h5" "$dir/$name.sparse.h5" <<'PY'
import sys, h5py
a, b = (h5py.File(p, 'r') for p in sys.argv[1:3])
names = []
a.visititems(lambda n, o: names.append(n) if isinstance(o, h5py.Dataset) else None)
timing = ('time_', 'wall_time', 'timing/')
compared = [n for n in names if not any(t in n for t in timing)]
assert any(n.endswith('dictionary') for n in compared), compared
for n in compared:
    x, y = a[n][()], b[n][()]
    if x.dtype != y.dtype or x.shape != y.shape or x.tobytes() != y.tobytes():
        sys.exit(f'FAIL: {n} differs between dense and sparse storage')
print(f'  {len(compared)} datasets equal byte for byte', end='')
PY
    # the CSV without its timing columns (time_*)
    for storage in dense sparse; do
        awk -F, 'NR == 1 { for (k = 1; k <= NF; k++) keep[k] = $k !~ /^time_/ }
                 { line = ""; for (k = 1; k <= NF; k++) if (keep[k]) line = line "," $k; print line }' \
            "$dir/$name.$storage.csv" >"$dir/$name.$storage.cut"
    done
    cmp -s "$dir/$name.dense.cut" "$dir/$name.sparse.cut" ||
        { echo; echo "FAIL: $name: the CSV metrics differ"; exit 1; }
    echo ", CSV equal ($(($(wc -l <"$dir/$name.dense.cut") - 1)) rows): ok $name"
}
run iid_standard 2 $net --set data.scale=standard --set run.log_test=60 --set learner.batch=4
run skewed_unit 2 $net --set data.scale=unit --set data.split=skewed --set learner.control=norma
run central_none 1 --centralized --set data.scale=none --set learner.control=bsgd-merge \
    --set learner.budget=40
run krr_unit 1 --centralized --set data.scale=unit --set learner.loss=square \
    --set learner.control=krr --set data.n_train=300
# polka predict reads the data as the run did (data.storage from the run file)
for storage in dense sparse; do
    "$polka" predict --model "$dir/iid_standard.$storage.h5" --data "$dir/test.svm" \
        --output "$dir/predict.$storage.txt" >"$dir/predict.$storage.out"
done
cmp "$dir/predict.dense.txt" "$dir/predict.sparse.txt"
sed 's/\.dense\.h5/.h5/' "$dir/predict.dense.out" >"$dir/predict.dense.cut"
sed 's/\.sparse\.h5/.h5/' "$dir/predict.sparse.out" >"$dir/predict.sparse.cut"
cmp "$dir/predict.dense.cut" "$dir/predict.sparse.cut"
echo "ok: polka predict: the same $(wc -l <"$dir/predict.dense.txt") predictions and score: $(cut -d' ' -f1-2 "$dir/predict.dense.cut")"

