#!/usr/bin/env bash
# Exact SVM on Fashion-MNIST, the reference of experiments/fashion_accuracy.sh: LIBSVM's own
# svm-train (Debian libsvm-tools) on the 60 000 training images, RBF kernel of the same
# bandwidth as polka's (gamma = 1/(2 sigma^2), sigma = 5), C = 10, kernel cache CACHE_MB,
# then svm-predict on the 10 000 test images. Prints CPU and wall seconds, SVs and accuracy.
# SPLIT=validation trains on the validation split's fit part (the first 50 000 training images)
# and predicts its last 10 000 instead: exact SVM's number on the split polka's settings are
# chosen on (its model, predictions and times are validation.model, .pred and .time in OUT).
#
#   experiments/fashion_libsvm.sh      Environment: OUT [out/fashion_libsvm], SIGMA [5],
#                                      C [10], CACHE_MB [2000], SPLIT [test] | validation
# Pixels are divided by 255 (tools/fashion_split.py), the usual [0, 1] scaling.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$root/out/fashion_libsvm}
sigma=${SIGMA:-5} c=${C:-10} cache=${CACHE_MB:-2000} split=${SPLIT:-test}
case $split in
    test) train=train.svm predict=test.svm model=model pred=pred times=train.time ;;
    validation) train=fit.svm predict=val.svm model=validation.model pred=validation.pred
        times=validation.time ;;
    *) echo "fashion_libsvm.sh: SPLIT must be test or validation, not '$split'" >&2; exit 2 ;;
esac
"$root/tools/need_fashion_mnist.sh"
command -v svm-train >/dev/null || apt-get install -y libsvm-tools >/dev/null
mkdir -p "$out"
[ -s "$out/train.svm" ] || /usr/bin/python3 "$root/tools/fashion_split.py" "$out"
gamma=$(awk -v s="$sigma" 'BEGIN { printf "%.10g", 1 / (2 * s * s) }')
/usr/bin/time -f "%U %S %e %M" -o "$out/$times" \
    svm-train -q -c "$c" -g "$gamma" -m "$cache" "$out/$train" "$out/$model" >/dev/null
read -r user sys wall peak_kb <"$out/$times"
acc=$(svm-predict "$out/$predict" "$out/$model" "$out/$pred" |
    sed -n 's/.*Accuracy = \([0-9.]*\)%.*/\1/p')
printf 'libsvm svm-train: C %s gamma %s (sigma %s): %s SVs, %s accuracy %s %%, ' \
    "$c" "$gamma" "$sigma" "$(sed -n 's/^total_sv //p' "$out/$model")" "$split" "$acc"
printf 'train %.0f s CPU (%.0f s wall, %.0f MB peak)\n' "$(echo "$user + $sys" | bc)" "$wall" \
    "$(echo "$peak_kb / 1024" | bc)"
