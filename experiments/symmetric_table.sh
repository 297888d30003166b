#!/usr/bin/env bash
# The paper's penalty against polka's symmetric one (penalty at the neighbours' points too),
# 16 agents on an Erdős–Rényi graph (p = 0.2), class-skewed (each agent mostly k = 2 of the
# 5 classes) and i.i.d. multidist, beside centralized POLK on the union of the same streams.
# Writes every run to OUT (HDF5) and the figure OUT/paper_vs_symmetric_<split>.png.
#
#   experiments/symmetric_table.sh           Environment: OUT [out/symmetric], CS ["0 0.5 1 1.5"],
#                                            SPLITS ["skewed iid"], POLKA [build/polka]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/tools/locate.sh"
out=${OUT:-$outdir/symmetric}
cs=${CS:-"0 0.5 1 1.5"}
splits=${SPLITS:-"skewed iid"}
config=$root/experiments/configs/decentralized_multidist.ini
graph=$root/graphs/er_16_p0.2.txt
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1
mkdir -p "$out"

parse() { # summary lines -> "mean_err worst_err order bytes"
    awk '/test error/ { err = $4; sub(/,/, "", $11); worst = 100 * (1 - $11) }
         /model order/ { order = $4 }
         /disagreement/ { dis = $3; sub(/,/, "", dis); bytes = $4 }
         END { printf "%s %.2f %s %s %s", err, worst, order, (bytes == "" ? "0" : bytes), (dis == "" ? "0" : dis) }'
}

printf '%-8s %-10s %5s | %9s %9s %7s %11s %12s %8s\n' split penalty c "mean_err%" "worst%" order bytes/round disagreement "x_central"
for split in $splits; do
    central=$out/central_${split}.h5
    set -- $("$polka" run --quiet --config "$config" --centralized --set net.agents=16 \
        --set data.split="$split" --set run.output="$central" | parse)
    central_err=$1
    printf '%-8s %-10s %5s | %9s %9s %7s %11s %12s %8s\n' "$split" centralized - "$1" "$2" "$3" - - 1.00
    for penalty in paper symmetric; do
        for c in $cs; do
            file=$out/${split}_${penalty}_c${c}.h5
            set -- $(mpirun --oversubscribe -n 16 "$polka" run --quiet --config "$config" \
                --set net.graph="$graph" --set data.split="$split" --set net.penalty="$penalty" \
                --set net.c="$c" --set run.output="$file" | parse)
            printf '%-8s %-10s %5s | %9s %9s %7s %11s %12s %8s\n' "$split" "$penalty" "$c" "$1" "$2" "$3" "$4" "$5" \
                "$(awk -v a="$1" -v b="$central_err" 'BEGIN { printf "%.2f", a / b }')"
        done
    done
    /usr/bin/python3 "$polka_plot" compare "$out/${split}_paper_c1.h5" "$out/${split}_symmetric_c1.h5" \
        --labels "paper c=1,symmetric c=1" --centralized "$central" -o "$out/paper_vs_symmetric_${split}.png" >/dev/null
done
echo "figures: $out/paper_vs_symmetric_*.png"
