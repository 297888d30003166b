#!/usr/bin/env bash
# Regenerates every figure of docs/figures/ (docs/guide.md shows them; README.md beside this
# file says what each is) from a built polka: the runs go into a temporary folder, removed at
# the end, and docs/figures/draw.py draws the PNGs from their run files. Nothing else is
# written. Every run is a pure function of its settings and seeds, so the figures come out the
# same on every machine and any number of ranks (one rank here: net.agents = 16 on it).
#
#   bash docs/figures/make.sh [POLKA]     POLKA: the polka binary [$POLKA, else build/polka]
#                                         Environment: PYTHON [/usr/bin/python3: Debian's
#                                         numpy, h5py, pandas, xarray, networkx, matplotlib]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
polka=${1:-${POLKA:-$root/build/polka}}
[ -x "$polka" ] || { echo "make.sh: no polka at '$polka': build it (tools/build.sh) or name it" >&2; exit 1; }
python=${PYTHON:-/usr/bin/python3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Open MPI's session files, matplotlib's cache and no __pycache__ in python/: all in $tmp
export TMPDIR=$tmp MPLCONFIGDIR=$tmp/matplotlib PYTHONDONTWRITEBYTECODE=1 OPENBLAS_NUM_THREADS=1
start=$(date +%s)

# The quickstart's run: 16 agents, multidist (5 000 training samples, one pass), the paper's
# penalty c = 1 on graphs/er_16_p0.2.txt; non-i.i.d.: each agent's classes from Dir(0.1),
# with polka's symmetric penalty (the paper's stays near 64 % error there)
base=(--config "$root/experiments/configs/decentralized_multidist.ini" --set net.agents=16)
er=$root/graphs/er_16_p0.2.txt
iid=(--set data.split=iid)
dir=(--set data.split=dirichlet --set data.alpha=0.1 --set net.penalty=symmetric)
rf=(--set net.features=256 --set net.admm_rho=0.05) # the random-feature methods' knobs

run() { # NAME SETTINGS...: $tmp/NAME.h5, its output in $tmp/NAME.log (shown if it fails)
    local name=$1
    shift
    "$polka" run --quiet "${base[@]}" "$@" --set run.output="$tmp/$name.h5" > "$tmp/$name.log" 2>&1 ||
        { cat "$tmp/$name.log" >&2; echo "make.sh: run '$name' failed" >&2; exit 1; }
}

# decentralized_vs_centralized.png, and the centralized levels of the others
for split in iid dir; do
    declare -n settings=$split
    run "er_$split" "${settings[@]}" --set net.graph="$er"
    run "central_$split" "${settings[@]}" --centralized
done

# topologies.png: the same runs on nine graphs of 16 nodes, λ₂ from `polka graph info`
graphs=(line "--kind line" ring "--kind ring" star "--kind star" grid "--kind grid"
        torus "--kind torus" smallworld "--kind smallworld --k 2 --rewire 0.1"
        er "--kind er --p 0.2" rgg "--kind rgg --radius 0.4" complete "--kind complete")
for ((g = 0; g < ${#graphs[@]}; g += 2)); do
    name=${graphs[g]} file=$tmp/${graphs[g]}.txt
    # shellcheck disable=SC2086
    "$polka" graph generate ${graphs[g + 1]} --n 16 --connected -o "$file" > /dev/null
    printf '%s\t%s\n' "$name" "$("$polka" graph info "$file" | awk '/^algebraic/ {print $3}')" >> "$tmp/lambda2.tsv"
    for split in iid dir; do
        declare -n settings=$split
        if [ "$name" = er ]; then cp "$tmp/er_$split.h5" "$tmp/graph_${split}_$name.h5"; continue; fi # the same run
        run "graph_${split}_$name" "${settings[@]}" --set net.graph="$file"
    done
done

# methods.png, faults.png, codecs.png: the ER runs again, one thing changed
for split in iid dir; do
    declare -n settings=$split
    for method in rf-diffusion dkla coke; do
        run "method_${split}_$method" "${settings[@]}" --set net.graph="$er" --set net.method=$method "${rf[@]}"
    done
    for loss in 0.2 0.5; do
        run "loss_${split}_$loss" "${settings[@]}" --set net.graph="$er" --set fault.link_loss=$loss
    done
    for codec in float32 float16 int8; do
        run "codec_${split}_$codec" "${settings[@]}" --set net.graph="$er" \
            --set net.codec_points=$codec --set net.codec_values=$codec
    done
done

# splits.png: what each agent learns from, counted by `polka data split`
"$polka" data split "${base[@]}" "${iid[@]}" -o "$tmp/split_iid.csv" > /dev/null
"$polka" data split "${base[@]}" "${dir[@]}" -o "$tmp/split_dir.csv" > /dev/null

# drift.png (experiments/drift_tracking.sh's figure): one turn of the classes over two passes
drift=(--set run.passes=2 --set data.drift=0.00062832 --set run.log_every=320)
"$polka" data multidist "${base[@]}" -o "$tmp/multidist.svm" > /dev/null # the test set: .t
run drift_agents "${drift[@]}" --set net.graph="$er"
run drift_central "${drift[@]}" --centralized
run drift_frozen "${drift[@]}" --centralized --set run.passes=0.32 # stops at 1 600 samples

echo "runs: $(($(date +%s) - start)) s"
"$python" "$here/draw.py" "$tmp" "$here"
echo "make.sh: $(($(date +%s) - start)) s in all"
