#!/usr/bin/env bash
# Before/after on Fashion-MNIST, side by side in one script: `polka run` of base revisions
# (default f272c14, before the rank-one KOMP updates, and 4e65593, before the thin-operand
# kernels and the reused kernel rows) and of this tree on the same settings, then the
# per-stage profile of this tree (bench/bench_fashion.c) beside each stage's bound.
# CPU seconds are the fair clock on a shared machine; wall seconds are printed too.
#
#   experiments/fashion_speed.sh [--set key=value ...]   Environment: BASE_REVS
#   ["f272c14 4e65593"], PASSES [1] (fraction of the 60 000 images), OUT [out/fashion_speed]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$root/out/fashion_speed}
revs=${BASE_REVS:-f272c14 4e65593}
passes=${PASSES:-1}
mkdir -p "$out"
"$root/tools/build.sh"
for rev in $revs; do
    [ -x "$out/$rev/build/polka" ] && continue
    rm -rf "${out:?}/$rev" && mkdir -p "$out/$rev"
    git -C "$root" archive "$rev" | tar -x -C "$out/$rev"
    SOURCE_DIR="$out/$rev" BUILD_DIR="$out/$rev/build" "$root/tools/build.sh" >/dev/null
done
export OPENBLAS_NUM_THREADS=1
d=/usr/share/datasets/fashion-mnist
printf '%-10s %9s %7s %8s %8s\n' version test_acc order cpu_s wall_s
for version in $revs this; do
    polka=$root/build/polka
    [ "$version" = this ] || polka=$out/$version/build/polka
    /usr/bin/time -f "%U %S %e" -o "$out/$version.time" "$polka" run \
        --config "$root/experiments/configs/fashion_mnist.ini" --set run.passes="$passes" \
        --set run.output="$out/$version.h5" "$@" >"$out/$version.log" 2>&1
    read -r user sys wall <"$out/$version.time"
    printf '%-10s %9s %7s %8.1f %8.1f\n' "$version" \
        "$(grep -oE 'min acc [0-9.]+' "$out/$version.log" | awk '{print $3}')" \
        "$(grep -oE 'model order [0-9.]+' "$out/$version.log" | awk '{print $3}')" \
        "$(echo "$user + $sys" | bc)" "$wall"
done
n=$(awk -v p="$passes" 'BEGIN { printf "%d", p * 60000 }')
"$root/build/bench_fashion" $d/train-images-idx3-ubyte.gz $d/train-labels-idx1-ubyte.gz \
    $d/t10k-images-idx3-ubyte.gz $d/t10k-labels-idx1-ubyte.gz "$n"
