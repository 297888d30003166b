#!/usr/bin/env bash
# predict_checks.sh POLKA PYTHON DIR CASE: `polka predict` on run files that a run wrote
# and then someone changed (h5py), and on runs whose loss has parameters. CASE is one of
#   outputs    weights with a column count other than the run's outputs, and other shapes
#   config     a /config that `polka run` would refuse (a huge data.classes)
#   nonfinite  a NaN or an infinity in the model
#   losses     soft-margin, huber and novelty models: predict scores as the run logged
#   format     the run's data.format is used for --data (a CSV file named .txt)
#   unit_norm  data.unit_norm = 1: predict normalises the data as the run did (generated, dense
#              and sparse files); sparse test rows a scaling gave a base are refused by name
set -euo pipefail
polka=$1 python=$2 dir=$3/$4 case=$4
expect_fail=$(dirname "$0")/../lib/expect_fail.sh
rm -rf "$dir"
mkdir -p "$dir"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1
small=(--set data.n_train=500 --set data.n_test=200)

# edit RUN PYTHON-STATEMENTS: a copy of RUN as $dir/edited.h5, changed with h5py (f: the file,
# m: /models, whose datasets' first rows are agent 0's model: kind kernel-expansions).
edit() {
    cp "$1" "$dir/edited.h5"
    "$python" -c "
import h5py, numpy as np
f = h5py.File('$dir/edited.h5', 'r+')
m = f['models']
def replace(name, value):
    del m[name]
    m[name] = value
$2
f.close()"
}

# fails REGEX: predict on $dir/edited.h5 fails with one message matching REGEX.
fails() {
    sh "$expect_fail" "$1" "$polka" predict --model "$dir/edited.h5" --data "$dir/md.svm.t" \
        --output "$dir/pred.txt" || { echo "FAIL: expected '$1'"; exit 1; }
    echo "ok: refused with '$1'"
}

multidist_run() { # multidist_run RUN [--set ...]: data files and a run on the generator
    "$polka" data multidist -o "$dir/md.svm" "${small[@]}" "${@:2}" >/dev/null
    "$polka" run --quiet "${small[@]}" "${@:2}" --set run.output="$1" >/dev/null
}

case_outputs() {
    multidist_run "$dir/run.h5"
    edit "$dir/run.h5" "replace('weights', np.zeros((m['weights'].shape[0], 7)))"
    fails "model has 7 outputs but the run has 5 classes"
    edit "$dir/run.h5" "replace('weights', np.zeros((m['weights'].shape[0], 1)))"
    fails "model has 1 outputs but the run has 5 classes"
    edit "$dir/run.h5" "replace('dictionary', np.zeros((m['dictionary'].shape[0], 3)))"
    fails "model has dimension 3 but the data 2"
    edit "$dir/run.h5" "replace('dictionary', np.zeros((m['dictionary'].shape[0] + 1, 2)))"
    fails "dictionary rows but [0-9]+ weight rows"
}

case_config() {
    multidist_run "$dir/run.h5"
    edit "$dir/run.h5" "f['config'].attrs['data.classes'] = np.uint64(2**62)"
    fails "run file '.*edited.h5': /config: data.classes: 4611686018427387904 is too large"
    edit "$dir/run.h5" "f['config'].attrs['data.classes'] = np.uint64(200000)"
    fails "run file '.*edited.h5': /config: data.classes must be <= 100000"
    edit "$dir/run.h5" "f['config'].attrs['learner.sigma'] = -1.0"
    fails "/config: learner.sigma must be > 0"
    sh "$expect_fail" "data.classes must be <= " "$polka" run --set data.classes=200000
}

case_nonfinite() {
    multidist_run "$dir/run.h5"
    edit "$dir/run.h5" "m['dictionary'][0, 0] = np.nan"
    fails "model is corrupt: .*dictionary.* not finite"
    edit "$dir/run.h5" "m['weights'][1, 2] = -np.inf"
    fails "model is corrupt: .*weights.* not finite"
    edit "$dir/run.h5" "m['rho'][0] = np.nan"
    fails "model is corrupt: /models/rho\\[0\\] = nan is not finite"
    edit "$dir/run.h5" "del m['tube']"
    fails "/models holds rho but not tube: the file is damaged"
    edit "$dir/run.h5" "replace('rho', np.ones(7))"
    fails "/models/rho does not hold one value per agent"
}

# same_as_logged RUN DATA: predict's score equals the run's last logged test score to the last
# digit, and its mean loss the logged test loss to the printed digits; the score is named as
# the run names it (accuracy, mse or flagged).
same_as_logged() {
    local out logged name
    out=$("$polka" predict --model "$1" --data "$2" --output "$dir/pred.txt")
    echo "$out"
    name=$(echo "$out" | awk '{print $1}')
    logged=$("$python" -c "
import h5py
f = h5py.File('$1', 'r')
print(repr(float(f['metrics/test_score'][-1, 0])), '%.6g' % f['metrics/test_loss'][-1, 0])")
    "$python" -c "
import sys
name, score, loss = '$name', float('$(echo "$out" | awk '{print $2}')'), '$(echo "$out" | awk '{print $NF}')'
logged_score, logged_loss = '$logged'.split()
want = '$3'
if name != want or score != float(logged_score) or float(loss) != float(logged_loss):
    sys.exit('FAIL: $1: predicted %s %r loss %s, logged %s %s loss %s' % (
        name, score, loss, want, logged_score, logged_loss))
print('ok: $1: predict gives the logged', name, score, 'and loss', loss)"
}

case_losses() {
    local margin=(--set learner.loss=soft-margin --set data.classes=2 --set learner.rho=2)
    "$polka" data multidist -o "$dir/two.svm" "${small[@]}" --set data.classes=2 >/dev/null
    "$polka" run --quiet "${small[@]}" "${margin[@]}" --set run.output="$dir/margin.h5" >/dev/null
    same_as_logged "$dir/margin.h5" "$dir/two.svm.t" accuracy
    multidist_run "$dir/novelty.h5" --set learner.loss=novelty --set learner.rho=0.5
    same_as_logged "$dir/novelty.h5" "$dir/md.svm.t" flagged
    local files=(--set data.source=file --set data.train="$dir/md.svm" --set data.test="$dir/md.svm.t")
    "$polka" run --quiet "${files[@]}" --set learner.loss=novelty --set learner.rho=0.5 \
        --set run.output="$dir/novelty_file.h5" >/dev/null
    same_as_logged "$dir/novelty_file.h5" "$dir/md.svm.t" flagged
    # learner.nu > 0 adapts each agent's rho (and tube, below): the run file keeps them
    multidist_run "$dir/novelty_nu.h5" --set learner.loss=novelty --set learner.nu=0.05 \
        --set net.agents=4
    same_as_logged "$dir/novelty_nu.h5" "$dir/md.svm.t" flagged
    "$python" -c "
import numpy as np
rng = np.random.default_rng(3)
for name, n in (('sinc.svm', 400), ('sinc.svm.t', 150)):
    x = rng.uniform(-3, 3, n)
    y = np.sinc(x) + 0.3 * rng.standard_normal(n)
    with open('$dir/' + name, 'w') as out:
        for xi, yi in zip(x, y): out.write('%.17g 1:%.17g\n' % (yi, xi))"
    "$polka" run --quiet --set data.source=file --set data.train="$dir/sinc.svm" \
        --set data.test="$dir/sinc.svm.t" --set learner.loss=huber --set learner.delta=0.1 \
        --set run.output="$dir/huber.h5" >/dev/null
    same_as_logged "$dir/huber.h5" "$dir/sinc.svm.t" mse
    "$polka" run --quiet --set data.source=file --set data.train="$dir/sinc.svm" \
        --set data.test="$dir/sinc.svm.t" --set learner.loss=eps-insensitive --set learner.nu=0.3 \
        --set run.mode=centralized --set run.output="$dir/tube.h5" >/dev/null
    same_as_logged "$dir/tube.h5" "$dir/sinc.svm.t" mse
}

case_format() {
    "$polka" data multidist -o "$dir/md.svm" "${small[@]}" >/dev/null
    "$python" -c "
for name in ('md.svm', 'md.svm.t'):
    with open('$dir/' + name) as rows, open('$dir/' + name.replace('md.svm', 'a') + '.txt', 'w') as out:
        out.write('x1,x2,label\n')
        for row in rows:
            label, *features = row.split()
            values = dict(f.split(':') for f in features)
            out.write('%s,%s,%s\n' % (values.get('1', '0'), values.get('2', '0'), label))"
    "$polka" run --quiet "${small[@]}" --set data.source=file --set data.format=csv \
        --set data.train="$dir/a.txt" --set data.test="$dir/a.t.txt" \
        --set run.output="$dir/csv.h5" >/dev/null
    same_as_logged "$dir/csv.h5" "$dir/a.t.txt" accuracy
    "$polka" predict --model "$dir/csv.h5" --data "$dir/md.svm.t" --format libsvm >/dev/null
    echo "ok: --format libsvm reads a LIBSVM file for a CSV run"
}

case_unit_norm() {
    local norm=(--set data.unit_norm=1)
    "$polka" data multidist -o "$dir/md.svm" "${small[@]}" >/dev/null # raw samples
    "$polka" run --quiet "${small[@]}" "${norm[@]}" --set run.output="$dir/generated.h5" >/dev/null
    same_as_logged "$dir/generated.h5" "$dir/md.svm.t" accuracy
    local files=(--set data.source=file --set data.train="$dir/md.svm" --set data.test="$dir/md.svm.t")
    "$polka" run --quiet "${files[@]}" "${norm[@]}" --set data.scale=standard \
        --set run.output="$dir/dense.h5" >/dev/null
    same_as_logged "$dir/dense.h5" "$dir/md.svm.t" accuracy
    "$polka" run --quiet "${files[@]}" "${norm[@]}" --set data.storage=sparse \
        --set run.output="$dir/sparse.h5" >/dev/null
    same_as_logged "$dir/sparse.h5" "$dir/md.svm.t" accuracy
    # the normalisation changes the run: not the same accuracy as without it
    "$polka" run --quiet "${files[@]}" --set data.storage=sparse --set run.output="$dir/plain.h5" \
        >/dev/null
    "$python" -c "
import h5py, sys
a, b = (h5py.File('$dir/' + n, 'r')['metrics/test_score'][-1, 0] for n in ('sparse.h5', 'plain.h5'))
sys.exit(0 if a != b else 'FAIL: data.unit_norm = 1 left the test score unchanged')"
    sh "$expect_fail" "^polka run: data.unit_norm = 1 cannot scale the sparse rows of '.*md.svm.t': 2 features read as non-zero where a row does not list them" \
        "$polka" run --quiet "${files[@]}" "${norm[@]}" --set data.storage=sparse \
        --set data.scale=standard --set run.output="$dir/refused.h5"
    echo "ok: sparse rows with a base refused"
    # polka data writes the samples such a run learns from: every row of norm 1
    "$polka" data multidist -o "$dir/unit.svm" "${small[@]}" "${norm[@]}" >/dev/null
    "$python" -c "
import sys
for name in ('unit.svm', 'unit.svm.t'):
    for line in open('$dir/' + name):
        fields = line.split()[1:]
        norm = sum(float(f.split(':')[1]) ** 2 for f in fields)
        # %.17g: the doubles polka divided; k values: the norm² γ_k, sqrt and x/norm a rounding
        # each (twice in the square), ** 2 1 ulp, the sum γ_{k-1}: γ_{2k+5} [Higham02, §3.1]
        n = 2 * len(fields) + 5
        gamma = n * sys.float_info.epsilon / 2 / (1 - n * sys.float_info.epsilon / 2)
        if abs(norm - 1) > gamma: sys.exit('FAIL: %s: a row of squared norm %r' % (name, norm))
print('ok: polka data multidist --set data.unit_norm=1 writes rows of norm 1')"
}

"case_$case"
