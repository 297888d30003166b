#!/usr/bin/env bash
# Decentralized runs (16 agents) against centralized POLK on the same streams:
# topology × penalty c → final mean/worst test error, disagreement, model order, bytes/round.
#
#   experiments/network_table.sh [--set key=value ...]   (extra settings apply to every run)
# Environment: POLKA (binary, default build/polka), AGENTS (16), TOPOLOGIES, CS.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/tools/locate.sh"
agents=${AGENTS:-16}
topologies=${TOPOLOGIES:-"graphs/er_16_p0.2.txt graphs/ring_16.txt graphs/torus_4x4.txt graphs/star_16.txt"}
cs=${CS:-"0 0.5 1 2"}
config=$root/experiments/configs/decentralized_multidist.ini
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1

# summary lines -> "error worst order max_order disagreement bytes samples/s"
parse() {
    awk '/test error/ { err = $4; sub(/,/, "", $11); worst = 100 * (1 - $11) }
         /model order/ { order = $4; sub(/\),?/, "", $6); maxo = $6; sps = $7 }
         /disagreement/ { dis = $3; sub(/,/, "", dis); bytes = $4 }
         END { printf "%s %.2f %s %s %s %s %s", err, worst, order, maxo, (dis == "" ? "0" : dis), (bytes == "" ? "0" : bytes), sps }'
}

extra=("$@")
printf '%-22s %5s | %9s %9s %8s %8s %12s %11s %10s\n' topology c "mean_err%" "worst%" order max_ord disagreement bytes/round samples/s
for batch in 0 1; do
    label="centralized (B=$([ $batch = 0 ] && echo "N" || echo 1))"
    set -- $("$polka" run --quiet --config "$config" --centralized --set net.agents="$agents" \
        --set run.central_batch=$batch "${extra[@]}" | parse)
    printf '%-22s %5s | %9s %9s %8s %8s %12s %11s %10s\n' "$label" - "$1" "$2" "$3" "$4" - - "$7"
done
for topo in $topologies; do
    for c in $cs; do
        set -- $(mpirun --oversubscribe -n "$agents" "$polka" run --quiet --config "$config" \
            --set net.graph="$root/$topo" --set net.c="$c" "${extra[@]}" | parse)
        printf '%-22s %5s | %9s %9s %8s %8s %12s %11s %10s\n' "$(basename "$topo" .txt)" "$c" "$1" "$2" "$3" "$4" "$5" "$6" "$7"
    done
done
