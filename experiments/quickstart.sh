#!/usr/bin/env bash
# The main job: installs what is missing, builds polka and runs centralized POLK on the
# built-in multidist data set. Output goes to out/quickstart/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/experiments/install_deps.sh"
"$root/experiments/build.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
out=$root/out/quickstart
mkdir -p "$out"
echo "== centralized POLK, multidist, multi-class hinge (one pass)"
mpirun -n 1 "$root/build/polka" run --config "$root/experiments/configs/multidist_hinge.ini" | tee "$out/centralized.log"
