#!/usr/bin/env bash
# What the placement saves across ranks: N agents on P ranks placed in contiguous blocks of
# ids (net.placement = block) or in METIS parts of the graph (partition), on a random
# geometric graph, a torus and an Erdős–Rényi graph; short runs (10 rounds, batch 1,
# multidist). Prints the edges that cross ranks and the bytes per round per rank that really
# crossed (mean and largest over the ranks), block beside partition. The random graphs have
# the mean degree of tools/er_p.sh, max(4, 1.25 ln N) (mean degree 4 is connected only
# up to N ≈ 100); the random geometric graph's radius gives that mean degree in the unit
# square (π r² N, a little less at the border). P above the cores is oversubscribed.
#
#   experiments/placement_bytes.sh    Environment: NS ["256 1024"], PS ["2 4"],
#                                     GRAPHS ["rgg torus er"], POLKA
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/tools/locate.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1
log=$(mktemp)
trap 'rm -f "$log"' EXIT

graph_settings() { # graph, N -> its settings
    local p
    p=$("$root/tools/er_p.sh" "$2")
    case $1 in
    er) echo "--set net.graph=er --set net.p=$p" ;;
    rgg) echo "--set net.graph=rgg --set net.radius=$(awk -v p="$p" -v n="$2" \
        'BEGIN { printf "%.4f", sqrt(p * (n - 1) / (3.14159265 * n)) }')" ;;
    *) echo "--set net.graph=$1" ;;
    esac
}

run() { # graph, N, P, placement -> "cut edges mean_bytes max_bytes"
    # shellcheck disable=SC2046
    mpirun --oversubscribe -n "$3" "$polka" run --set net.agents="$2" $(graph_settings "$1" "$2") \
        --set net.placement="$4" --set data.n_train=$((10 * $2)) --set data.n_test=100 \
        --set run.log_every=1000000000000 > "$log" 2>&1 ||
        { echo "FAILED: $1 N=$2 P=$3 $4" >&2; cat "$log" >&2; exit 1; }
    awk '/summary: placement/ { cut = $4; edges = $6 }
         /summary: across ranks/ { mean = $4; sub(/\)/, "", $10); most = $10 }
         END { print cut, edges, mean, most }' "$log"
}

printf '%-6s %5s %2s | %-30s | %-30s\n' "" "" "" "block" "partition"
printf '%-6s %5s %2s | %7s %7s %14s | %7s %7s %14s\n' graph N P cut edges "B/round/rank" \
    cut edges "B/round/rank"
for graph in ${GRAPHS:-rgg torus er}; do
    for n in ${NS:-256 1024}; do
        for p in ${PS:-2 4}; do
            read -r bc be bm bx <<< "$(run "$graph" "$n" "$p" block)"
            read -r pc pe pm px <<< "$(run "$graph" "$n" "$p" partition)"
            printf '%-6s %5s %2s | %7s %7s %7s/%-6s | %7s %7s %7s/%-6s\n' "$graph" "$n" "$p" \
                "$bc" "$be" "$bm" "$bx" "$pc" "$pe" "$pm" "$px"
        done
    done
done
echo "(B/round/rank: mean/largest over the ranks of the bytes sent to other ranks per round)"
