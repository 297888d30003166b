#!/usr/bin/env bash
# The field's standard non-i.i.d. splits (issue 18): 16 agents on an Erdős–Rényi graph
# (p = 0.2) learning multidist, Dirichlet label skew α ∈ {100, 1, 0.1} and shards
# k ∈ {1, 2} classes per agent; the paper's penalty and the symmetric one, c ∈ {0, 1},
# beside centralized POLK on the union of the same streams. Prints the table (mean and
# worst agent's test error, model order, and the mean error over centralized's), and writes
# OUT/hist_<split>.png (the realised class histogram, `polka data split`) and
# OUT/paper_vs_symmetric_<split>.png (c = 1, named by the split).
#
#   experiments/splits_table.sh     Environment: OUT [out/splits], CS ["0 1"],
#                                   SPLITS ["dirichlet:0.1 dirichlet:1 dirichlet:100 shards:1 shards:2"],
#                                   POLKA [build/polka], LOG_EVERY [500]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
polka=${POLKA:-$root/build/polka}
out=${OUT:-$root/out/splits}
cs=${CS:-"0 1"}
splits=${SPLITS:-"dirichlet:0.1 dirichlet:1 dirichlet:100 shards:1 shards:2"}
config=$root/experiments/configs/decentralized_multidist.ini
log_every=${LOG_EVERY:-500}
graph=$root/graphs/er_16_p0.2.txt
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1
mkdir -p "$out"

parse() { # summary lines -> "mean_err worst_err order"
    awk '/test error/ { err = $4; sub(/,/, "", $11); worst = 100 * (1 - $11) }
         /model order/ { order = $4 }
         END { printf "%s %.2f %s", err, worst, order }'
}

row() { printf '%-15s %-12s %3s | %9s %9s %7s %9s\n' "$@"; }
row split penalty c "mean_err%" "worst%" order x_central
for spec in $splits; do
    split=${spec%%:*} value=${spec#*:}
    case $split in
        dirichlet) sets=(--set data.split=dirichlet --set data.alpha="$value") name="dirichlet_a$value" ;;
        shards) sets=(--set data.split=shards --set data.shards="$value") name="shards_k$value" ;;
        *) echo "unknown split $spec" >&2; exit 2 ;;
    esac
    sets+=(--set run.log_every="$log_every")
    "$polka" data split --config "$config" "${sets[@]}" --set net.agents=16 \
        -o "$out/hist_$name.png" >/dev/null
    central=$out/central_$name.h5
    set -- $("$polka" run --quiet --config "$config" --centralized --set net.agents=16 \
        "${sets[@]}" --set run.output="$central" | parse)
    central_err=$1
    row "$split ${value}" centralized - "$1" "$2" "$3" 1.00
    for penalty in paper symmetric; do
        for c in $cs; do
            file=$out/${name}_${penalty}_c$c.h5
            set -- $(mpirun --oversubscribe -n 16 "$polka" run --quiet --config "$config" \
                --set net.graph="$graph" "${sets[@]}" --set net.penalty="$penalty" \
                --set net.c="$c" --set run.output="$file" | parse)
            row "$split ${value}" "$penalty" "$c" "$1" "$2" "$3" \
                "$(awk -v a="$1" -v b="$central_err" 'BEGIN { printf "%.2f", a / b }')"
        done
    done
    /usr/bin/python3 "$root/experiments/plot.py" compare "$out/${name}_paper_c1.h5" \
        "$out/${name}_symmetric_c1.h5" --labels "paper c=1,symmetric c=1" \
        --centralized "$central" -o "$out/paper_vs_symmetric_$name.png" >/dev/null
done
echo "figures: $out/hist_*.png $out/paper_vs_symmetric_*.png"
