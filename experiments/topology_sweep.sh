#!/usr/bin/env bash
# A topology sweep at the sizes where topology matters: N agents (default 256) on ring, torus,
# Erdős–Rényi, random geometric, small-world and star graphs, c ∈ {0, 1}, many agents per rank,
# beside centralized POLK on the union of the same streams; then the figure of final error and
# disagreement against each graph's algebraic connectivity λ₂ (OUT/lambda2.png).
#
#   experiments/topology_sweep.sh     Environment: SIZES ["256"], TOPOLOGIES ["ring torus er
#                                     rgg smallworld star"], CS ["0 1"], OUT [out/topology],
#                                     RANKS [the cores], POLKA
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/tools/locate.sh"
export OUT=${OUT:-$outdir/topology}
export SIZES=${SIZES:-256} CS=${CS:-"0 1"}
export TOPOLOGIES=${TOPOLOGIES:-"ring torus er rgg smallworld star"}
n_train=$((200 * ${SIZES##* }))
# 200 training samples per agent; metrics on 500 test points until the last log step
export EXTRA="--set data.n_train=$n_train --set run.log_every=$((n_train / 4)) --set run.log_test=500 ${EXTRA:-}"
start=$(date +%s)
"$root/experiments/sweep.sh"
echo "sweep: $(($(date +%s) - start)) s on $(nproc) cores"
/usr/bin/python3 "$polka_plot" lambda2 "$OUT"/*.h5 -o "$OUT/lambda2.png"
