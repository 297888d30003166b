#!/usr/bin/env bash
# Sparse storage of LIBSVM data: the peak memory of the same run with
# data.storage = dense, sparse and auto, side by side, and whether the runs agree (the CSV
# metrics of every log step but the timing columns, byte for byte; the models are compared in
# tests/cli/sparse_storage_test.sh). Short runs (a fifth of a pass, a twentieth): the data, not the model, set the
# peak. Two data sets:
#   - a generated sparse LIBSVM file of a realistic shape (text categorisation: 10 000
#     training and 2 500 test documents, 20 000 features, 50 listed per document, 0.25 %);
#   - Fashion-MNIST (60 000 + 10 000 images of 784 pixels, half of them 0) written as LIBSVM
#     from the Debian package's IDX files, when they are on disk (nothing is downloaded).
# Peak memory: the run summary's (largest peak resident memory of the ranks).
# Then the 27-byte file "1 1:0.5 16777216:1", dense, sparse and under a memory limit.
#   experiments/sparse_storage.sh [POLKA]     Environment: OUT [/tmp/polka-sparse-storage]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
polka=${1:-$root/build/polka}
out=${OUT:-/tmp/polka-sparse-storage}
fashion=/usr/share/datasets/fashion-mnist
export OPENBLAS_NUM_THREADS=1
mkdir -p "$out"
python3 - "$out" "$fashion" <<'PY'
import gzip, os, random, struct, sys
out, fashion = sys.argv[1:3]
def text(path, n, seed, p=20000, listed=50, classes=2):
    if os.path.exists(path): return
    rng = random.Random(seed)
    with open(path, 'w') as f:
        for _ in range(n):
            c = rng.randrange(classes)
            # 30 % of a document's words from its class's 200 (tf-idf-like values)
            words = set()
            while len(words) < listed:
                if rng.random() < 0.3:
                    words.add(c * 200 + rng.randrange(200) + 1)
                else:
                    words.add(rng.randrange(p) + 1)
            f.write(str(2 * c - 1) + ''.join(f' {j}:{rng.random():.4f}' for j in sorted(words)) + '\n')
text(f'{out}/text.svm', 10000, 1)
text(f'{out}/text.svm.t', 2500, 2)
def idx_to_libsvm(images, labels, path):
    if os.path.exists(path) or not os.path.exists(images): return
    with gzip.open(images) as f:
        n, rows, cols = struct.unpack('>IIII', f.read(16))[1:]
        pixels = f.read()
    with gzip.open(labels) as f:
        ys = f.read()[8:]
    p = rows * cols
    with open(path, 'w') as f:
        for i in range(n):
            x = pixels[i * p:(i + 1) * p]
            f.write(str(ys[i]) + ''.join(f' {j + 1}:{v}' for j, v in enumerate(x) if v) + '\n')
idx_to_libsvm(f'{fashion}/train-images-idx3-ubyte.gz', f'{fashion}/train-labels-idx1-ubyte.gz',
              f'{out}/fashion.svm')
idx_to_libsvm(f'{fashion}/t10k-images-idx3-ubyte.gz', f'{fashion}/t10k-labels-idx1-ubyte.gz',
              f'{out}/fashion.svm.t')
PY

# run NAME STORAGE ARGS...: one run; prints its row of the table
run() {
    local name=$1 storage=$2
    shift 2
    local start=$SECONDS
    "$polka" run --quiet --set data.storage="$storage" --set run.output="$out/$name.$storage.h5" \
        --set run.csv="$out/$name.$storage.csv" "$@" >"$out/$name.$storage.log"
    local peak error
    peak=$(sed -n 's/.*peak memory \([0-9]*\) MB.*/\1/p' "$out/$name.$storage.log")
    error=$(sed -n 's/.*test error \([0-9.]*\) %.*/\1/p' "$out/$name.$storage.log")
    awk -F, 'NR == 1 { for (k = 1; k <= NF; k++) keep[k] = $k !~ /^time_/ }
             { line = ""; for (k = 1; k <= NF; k++) if (keep[k]) line = line "," $k; print line }' \
        "$out/$name.$storage.csv" >"$out/$name.$storage.cut"
    local same="-"
    [ "$storage" = dense ] || { cmp -s "$out/$name.dense.cut" "$out/$name.$storage.cut" &&
        same=yes || same=NO; }
    printf '%-9s %-7s %9s %9s %7s %16s\n' "$name" "$storage" "$peak" $((SECONDS - start)) \
        "$error" "$same"
}
# the file's size, its listed values and what its training samples take dense and sparse
sizes() {
    awk -v name="$1" '{ n++; v += NF - 1; for (k = 2; k <= NF; k++) { split($k, a, ":");
                        if (a[1] > p) p = a[1] } }
        END { printf "%s: %d samples, %d features, %d values listed (%.1f %%): dense %.1f MB, sparse %.1f MB\n",
              name, n, p, v, 100 * v / (n * p), 8 * n * p / 1048576, (12 * v + 8 * n) / 1048576 }' "$2"
}
sizes "text.svm (training)" "$out/text.svm"
[ -f "$out/fashion.svm" ] && sizes "fashion.svm (training)" "$out/fashion.svm"
printf '%-9s %-7s %9s %9s %7s %16s\n' data storage "peak MB" "wall s" "error%" "same as dense"
text=(--set data.source=file --set data.train="$out/text.svm" --set data.test="$out/text.svm.t"
      --centralized --set learner.control=bsgd-remove --set learner.budget=100
      --set learner.sigma=3 --set learner.loss=hinge --set run.passes=0.2
      --set run.log_every=1000)
for storage in dense sparse auto; do run text "$storage" "${text[@]}"; done
if [ -f "$out/fashion.svm" ]; then
    # experiments/configs/fashion_mnist.ini's learner (pixels scaled to [0, 1]), 3 000 images
    fashion=(--config "$root/experiments/configs/fashion_mnist.ini" --set data.format=libsvm
             --set data.train="$out/fashion.svm" --set data.test="$out/fashion.svm.t"
             --set data.train_labels= --set data.test_labels= --set run.passes=0.05
             --set run.log_every=3000)
    for storage in dense sparse auto; do run fashion "$storage" "${fashion[@]}"; done
else
    echo "fashion: $fashion not on disk (Debian package dataset-fashion-mnist): skipped"
fi

# The 27-byte file (one sample, feature 16777216): dense storage refuses it as too
# sparse; stored sparse its data take bytes, but every dense row of its dimension (the batch,
# the dictionary) takes 128 MB and its statistics 1.3 GB, which the scan counts before
# allocating: under a 3 GB limit with a budget of 100 points it is refused.
printf '1 1:0.5 16777216:1\n' >"$out/one.svm"
one=(--set data.source=file --set data.train="$out/one.svm" --set data.test="$out/one.svm"
     --set learner.loss=square --set run.output="$out/one.h5")
tiny() { # tiny LABEL ARGS...: exit code, peak memory (time's), the summary or the error
    local label=$1 start=$SECONDS code=0
    shift
    /usr/bin/time -f '%M' -o "$out/one.mem" "$@" >"$out/one.log" 2>&1 || code=$?
    printf '%-44s exit %d, %3d s, %5d MB peak\n    %s\n' "$label" "$code" \
        $((SECONDS - start)) $(($(tail -1 "$out/one.mem") / 1024)) \
        "$(grep -E '^polka|summary: test' "$out/one.log" | head -1)"
}
tiny "27 bytes, dense" "$polka" run --quiet "${one[@]}" --set data.storage=dense
tiny "27 bytes, auto (sparse)" "$polka" run --quiet "${one[@]}"
tiny "27 bytes, auto, budget 100, ulimit -v 3 GB" bash -c 'ulimit -v 3000000 && exec "$@"' _ \
    "$polka" run --quiet "${one[@]}" --set learner.control=bsgd-merge --set learner.budget=100
