#!/usr/bin/env bash
# Three data-file defects polka once had (6: an IDX header announcing more than the file holds,
# 7: the 27-byte LIBSVM file "1 1:0.5 16777216:1", 9: magnitudes that overflow the kernels):
# crafts their data files and runs `polka run` on each,
# printing polka's message, exit code, time and peak memory (before the fixes: 64 s and
# 3.1 GB for the IDX file, 1.6 GB for the 27-byte LIBSVM file, exit 0 with NaN models for
# the large magnitudes). Usage: experiments/repro_data_limits.sh [PATH/TO/polka]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
polka=${1:-$root/build/polka}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$work" <<'PY'
import gzip, struct, sys
w = sys.argv[1]
# defect 6: 60 records of 5000x10000 bytes announced, 500 bytes of data, gzipped (~600 bytes)
head = struct.pack('>IIII', 0x803, 60, 5000, 10000)
with gzip.open(f'{w}/huge-idx3-ubyte.gz', 'wb') as f: f.write(head + bytes(500))
# the same with 4000000-byte records (under the record limit), gzipped and plain
head = struct.pack('>IIII', 0x803, 60, 2000, 2000)
with gzip.open(f'{w}/cut-idx3-ubyte.gz', 'wb') as f: f.write(head + bytes(500))
with open(f'{w}/cut-idx3-ubyte', 'wb') as f: f.write(head + bytes(500))
with gzip.open(f'{w}/labels-idx1-ubyte.gz', 'wb') as f:
    f.write(struct.pack('>II', 0x801, 60) + bytes(k % 2 for k in range(60)))
# defect 7: the 27-byte file, and ten such lines
open(f'{w}/one.svm', 'w').write('1 1:0.5 16777216:1\n')
open(f'{w}/ten.svm', 'w').write(''.join(f'{k % 2} 1:0.5 16777216:1\n' for k in range(10)))
# defect 9: features of +-1e308 (scaled) and 1e200 (unscaled)
open(f'{w}/wide.svm', 'w').write(''.join(f'{k % 2} 1:{"-" if k % 2 else ""}1e308 2:{k}\n'
                                         for k in range(40)))
open(f'{w}/big.svm', 'w').write(''.join(f'{k % 2} 1:1e200 2:{k}\n' for k in range(40)))
PY
run() {
    local name=$1
    shift
    local start=$SECONDS code=0
    /usr/bin/time -f '%M' -o "$work/mem" "$polka" run --set data.source=file \
        --set run.output="$work/out.h5" "$@" >/dev/null 2>"$work/err" ||
        code=$?
    printf '%-34s exit %d, %3d s, %5d MB: %s\n' "$name" "$code" $((SECONDS - start)) \
        $(($(tail -1 "$work/mem") / 1024)) "$(grep '^polka' "$work/err" | head -1)"
}
# the training file is the test file too
train() { echo --set data.train="$1" --set data.test="$1"; }
idx=(--set data.format=idx --set data.train_labels="$work/labels-idx1-ubyte.gz"
     --set data.test_labels="$work/labels-idx1-ubyte.gz")
run "6: IDX 60 x 50 MB announced (gz)" "${idx[@]}" $(train "$work/huge-idx3-ubyte.gz")
run "6: IDX 60 x 4 MB announced (gz)" "${idx[@]}" $(train "$work/cut-idx3-ubyte.gz")
run "6: IDX 60 x 4 MB announced (plain)" "${idx[@]}" $(train "$work/cut-idx3-ubyte")
run "7: LIBSVM 1 1:0.5 16777216:1" $(train "$work/one.svm")
run "7: LIBSVM ten such lines" $(train "$work/ten.svm")
for control in norma komp; do
    run "9: +-1e308, scale unit, $control" $(train "$work/wide.svm") --set data.scale=unit \
        --set learner.control=$control
    run "9: 1e200, scale none, $control" $(train "$work/big.svm") --set data.scale=none \
        --set learner.control=$control
done
