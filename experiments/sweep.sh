#!/usr/bin/env bash
# Sweep driver: topology × penalty c × parsimony K_p × seed, one HDF5 run file per point,
# plus one centralized baseline per (K_p, seed). Runs sequentially on a laptop, or one point
# per task of a Slurm job array (slurm/sweep.sbatch).
#
#   experiments/sweep.sh                 run every point (skips points whose file exists)
#   experiments/sweep.sh --list          print the points, numbered from 0
#   experiments/sweep.sh --count         print how many points there are
#   experiments/sweep.sh --point K       run point K only (a job-array task)
#
# Environment (defaults in brackets):
#   OUT [out/sweep]  CONFIG [experiments/configs/decentralized_multidist.ini]
#   TOPOLOGIES ["graphs/er_16_p0.2.txt graphs/ring_16.txt graphs/torus_4x4.txt graphs/star_16.txt"]
#   CS ["0 0.5 1 2"]  KPS ["0.04"]  SEEDS ["1"]  EXTRA [""] (more --set options for every run)
#   POLKA [build/polka]  LAUNCH ["mpirun --oversubscribe -n"] (srun: LAUNCH="srun -n")
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
config=${CONFIG:-$root/experiments/configs/decentralized_multidist.ini}
topologies=${TOPOLOGIES:-"graphs/er_16_p0.2.txt graphs/ring_16.txt graphs/torus_4x4.txt graphs/star_16.txt"}
cs=${CS:-"0 0.5 1 2"}
kps=${KPS:-"0.04"}
seeds=${SEEDS:-"1"}
. "$root/experiments/locate.sh"
out=${OUT:-$outdir/sweep}
launch=${LAUNCH:-"mpirun --oversubscribe -n"}
export OMPI_ALLOW_RUN_AS_ROOT=${OMPI_ALLOW_RUN_AS_ROOT:-1} OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=${OMPI_ALLOW_RUN_AS_ROOT_CONFIRM:-1}
export OPENBLAS_NUM_THREADS=1

points() { # one line per point: kind topology c kp seed
    for seed in $seeds; do
        for kp in $kps; do
            echo "central - - $kp $seed"
            for topo in $topologies; do
                for c in $cs; do echo "decentral $topo $c $kp $seed"; done
            done
        done
    done
}

nodes() { # the node count of a topology file (the largest id + 1, or its "# nodes:" header)
    awk '/^# *nodes:/ { print $3; exit } /^[0-9]/ { if ($1 > m) m = $1; if ($2 > m) m = $2 }
         END { if (m != "") print m + 1 }' "$1" | head -n 1
}

run_point() {
    set -- $1
    local kind=$1 topo=$2 c=$3 kp=$4 seed=$5 file
    mkdir -p "$out"
    if [ "$kind" = central ]; then
        local agents
        agents=$(nodes "$root/${topologies%% *}")
        file=$out/central_kp${kp}_s${seed}.h5
        [ -s "$file" ] && { echo "exists: $file"; return; }
        "$polka" run --quiet --config "$config" --centralized --set net.agents="$agents" \
            --set learner.kp="$kp" --set run.seed="$seed" --set run.output="$file" ${EXTRA:-}
    else
        file=$out/$(basename "$topo" .txt)_c${c}_kp${kp}_s${seed}.h5
        [ -s "$file" ] && { echo "exists: $file"; return; }
        $launch "$(nodes "$root/$topo")" "$polka" run --quiet --config "$config" \
            --set net.graph="$root/$topo" --set net.c="$c" --set learner.kp="$kp" \
            --set run.seed="$seed" --set run.output="$file" ${EXTRA:-} </dev/null
    fi
    echo "wrote $file"
}

case "${1:-}" in
    --list) points | nl -v0 ;;
    --count) points | wc -l ;;
    --point) run_point "$(points | sed -n "$(( $2 + 1 ))p")" ;;
    "") points | while read -r line; do run_point "$line"; done ;;
    *) echo "usage: $0 [--list | --count | --point K]" >&2; exit 2 ;;
esac
