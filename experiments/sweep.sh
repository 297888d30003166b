#!/usr/bin/env bash
# Sweep driver: topology × network size × penalty c × parsimony K_p × seed, one HDF5 run file
# per point, plus one centralized baseline per (size, K_p, seed). Runs sequentially on a
# laptop, or one point per task of a Slurm job array (slurm/sweep.sbatch). A topology is a
# graph file (its size is its node count) or a generator name (ring, line, star, complete,
# grid, torus, er, rgg, smallworld, ba) drawn at every size of SIZES; er and rgg get the
# edge probability / radius of mean degree max(4, 1.25 ln N), which keeps them connected.
# The agents of a run are placed on RANKS ranks (many agents per rank).
#
#   experiments/sweep.sh                 run every point (skips points whose file exists)
#   experiments/sweep.sh --list          print the points, numbered from 0
#   experiments/sweep.sh --count         print how many points there are
#   experiments/sweep.sh --point K       run point K only (a job-array task)
#
# Environment (defaults in brackets):
#   OUT [out/sweep]  CONFIG [experiments/configs/decentralized_multidist.ini]
#   TOPOLOGIES ["graphs/er_16_p0.2.txt graphs/ring_16.txt graphs/torus_4x4.txt graphs/star_16.txt"]
#   SIZES ["16"] (generated topologies)  RANKS [SLURM_NTASKS, else the cores; at most N]
#   CS ["0 0.5 1 2"]  KPS ["0.04"]  SEEDS ["1"]  EXTRA [""] (more --set options for every run)
#   POLKA [build/polka]  LAUNCH ["mpirun --oversubscribe -n"] (srun: LAUNCH="srun -n")
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
config=${CONFIG:-$root/experiments/configs/decentralized_multidist.ini}
topologies=${TOPOLOGIES:-"graphs/er_16_p0.2.txt graphs/ring_16.txt graphs/torus_4x4.txt graphs/star_16.txt"}
sizes=${SIZES:-"16"}
cs=${CS:-"0 0.5 1 2"}
kps=${KPS:-"0.04"}
seeds=${SEEDS:-"1"}
. "$root/tools/locate.sh"
out=${OUT:-$outdir/sweep}
launch=${LAUNCH:-"mpirun --oversubscribe -n"}
export OMPI_ALLOW_RUN_AS_ROOT=${OMPI_ALLOW_RUN_AS_ROOT:-1} OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=${OMPI_ALLOW_RUN_AS_ROOT_CONFIRM:-1}
export OPENBLAS_NUM_THREADS=1

is_file() { [ -f "$root/$1" ] || [ -f "$1" ]; }

path_of() { if [ -f "$root/$1" ]; then echo "$root/$1"; else echo "$1"; fi; }

sizes_of() { # topology -> the sizes it is run at
    if is_file "$1"; then nodes "$(path_of "$1")"; else echo "$sizes"; fi
}

points() { # one line per point: kind topology size c kp seed
    local all_sizes
    all_sizes=$(for topo in $topologies; do sizes_of "$topo"; done | tr ' ' '\n' | sort -nu)
    for seed in $seeds; do
        for kp in $kps; do
            for n in $all_sizes; do echo "central - $n - $kp $seed"; done
            for topo in $topologies; do
                for n in $(sizes_of "$topo"); do
                    for c in $cs; do echo "decentral $topo $n $c $kp $seed"; done
                done
            done
        done
    done
}

nodes() { # the node count of a topology file (the largest id + 1, or its "# nodes:" header)
    awk '/^# *nodes:/ { print $3; exit } /^[0-9]/ { if ($1 > m) m = $1; if ($2 > m) m = $2 }
         END { if (m != "") print m + 1 }' "$1" | head -n 1
}

graph_settings() { # topology size -> the --set options of its graph
    local topo=$1 n=$2
    if is_file "$topo"; then echo "--set net.graph=$(path_of "$topo")"; return; fi
    local degree
    degree=$(awk -v n="$n" 'BEGIN { d = 1.25 * log(n); if (d < 4) d = 4; if (d > n - 1) d = n - 1; print d }')
    case $topo in
        er) echo "--set net.graph=er --set net.p=$(awk -v d="$degree" -v n="$n" 'BEGIN { printf "%.6g", d / (n - 1) }')" ;;
        rgg) echo "--set net.graph=rgg --set net.radius=$(awk -v d="$degree" -v n="$n" 'BEGIN { printf "%.6g", sqrt(d / (3.14159265 * n)) }')" ;;
        *) echo "--set net.graph=$topo" ;;
    esac
}

ranks_for() { # agents -> the ranks of its run
    local n=$1 r=${RANKS:-${SLURM_NTASKS:-$(nproc)}}
    [ "$r" -le "$n" ] || r=$n
    echo "$r"
}

# A point is done when its run file exists and no checkpoint says it is unfinished.
done_already() {
    [ -s "$1" ] && [ ! -e "$1.ckpt" ] && { echo "exists: $1"; return 0; }
    return 1
}

# Every run checkpoints into FILE.ckpt and resumes from it (slurm/resumable.sh); a job-array
# task (--point) becomes the script, so that Slurm's signals to the batch shell reach it.
resumable=$root/slurm/resumable.sh

run_point() {
    set -- $1
    local kind=$1 topo=$2 n=$3 c=$4 kp=$5 seed=$6 file
    mkdir -p "$out"
    if [ "$kind" = central ]; then
        file=$out/central_n${n}_kp${kp}_s${seed}.h5
        done_already "$file" && return
        $resumable "$file.ckpt" "$polka" run --quiet --config "$config" --centralized --set net.agents="$n" \
            --set learner.kp="$kp" --set run.seed="$seed" --set run.output="$file" ${EXTRA:-}
    else
        file=$out/$(basename "$topo" .txt)_n${n}_c${c}_kp${kp}_s${seed}.h5
        done_already "$file" && return
        # shellcheck disable=SC2046
        $resumable "$file.ckpt" $launch "$(ranks_for "$n")" "$polka" run --quiet --config "$config" \
            --set net.agents="$n" $(graph_settings "$topo" "$n") --set net.c="$c" \
            --set learner.kp="$kp" --set run.seed="$seed" --set run.output="$file" ${EXTRA:-} </dev/null
    fi
    echo "wrote $file"
}

case "${1:-}" in
    --list) points | nl -v0 ;;
    --count) points | wc -l ;;
    --point)
        resumable="exec $resumable"
        run_point "$(points | sed -n "$(( $2 + 1 ))p")"
        ;;
    "") points | while read -r line; do run_point "$line"; done ;;
    *) echo "usage: $0 [--list | --count | --point K]" >&2; exit 2 ;;
esac
