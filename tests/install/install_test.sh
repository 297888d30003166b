#!/usr/bin/env bash
# install_test.sh BUILD_DIR MPIEXEC: installs polka into a temporary prefix and uses it from
# there with nothing from the source or build tree (a scratch directory, POLKA unset, PATH
# without the build): the installed scripts find the installed binary, a short decentralized
# run on 2 ranks through the installed slurm/run.sbatch, then `polka report`, a sweep point
# through the installed slurm/sweep.sbatch, --version, the manual page; the Python package
# imported from the prefix by /usr/bin/python3, driving the installed polka, and the installed
# plot_cli.py (where the installed locate.sh says) finding it by itself.
set -euo pipefail
build=$1 mpiexec=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null
cd "$work"
unset POLKA
export PATH=/usr/local/bin:/usr/bin:/bin
share=$prefix/share/polka
fail() { echo "FAIL: $*"; exit 1; }

found=$(root=$share && . "$share/tools/locate.sh" && echo "$polka")
[ "$found" = "$share/../../bin/polka" ] || fail "the installed locate.sh finds '$found'"
[ "$(cd "$(dirname "$found")" && pwd)" = "$prefix/bin" ] || fail "not the installed binary"
ldd "$prefix/bin/polka" | grep -q "not found" && fail "the installed polka misses libraries"

LAUNCH="$mpiexec --oversubscribe -n 2" OUTPUT=$work/run.h5 \
    SETTINGS="--set net.graph=line --set data.n_train=400 --set data.n_test=200 --set run.log_every=200" \
    bash "$share/slurm/run.sbatch" >run.log 2>&1 || { cat run.log; fail "installed run.sbatch"; }
grep summary run.log
"$prefix/bin/polka" report "$work/run.h5" | tee report.txt
grep -Eq "run.h5 +decentralized +2 " report.txt || fail "report: no decentralized run of 2 agents"

# A sweep point as a job-array task: the installed sweep.sbatch, sweep.sh and graphs/, output ./out.
SLURM_ARRAY_TASK_ID=1 LAUNCH="$mpiexec --oversubscribe -n" TOPOLOGIES=graphs/line_2.txt CS=1 \
    EXTRA="--set data.n_train=400 --set data.n_test=200" bash "$share/slurm/sweep.sbatch" >sweep.log 2>&1 ||
    { cat sweep.log; fail "installed sweep.sbatch"; }
[ -s "$work/out/sweep/line_2_n2_c1_kp0.04_s1.h5" ] || { cat sweep.log; fail "no sweep file in ./out"; }
"$prefix/bin/polka" report "$work/out/sweep/line_2_n2_c1_kp0.04_s1.h5" | grep -Eq "decentralized +2 " ||
    fail "report of the sweep point"

"$prefix/bin/polka" --version | tee version.txt
grep -Eq '^HDF5: [0-9]+\.[0-9]+\.[0-9]+ \(parallel\)$' version.txt || fail "--version: HDF5"
grep -Eq '^MPI: +[^ ].*\(MPI standard [0-9]\.[0-9]\)$' version.txt || fail "--version: MPI"
grep -Eq '^BLAS: [^ ]' version.txt || fail "--version: BLAS"
grep -q '^\.B learner\.kp$' "$prefix/share/man/man1/polka.1" || fail "man page without learner.kp"
# The Python package: in lib/python3.X/dist-packages (X of /usr/bin/python3), which Debian's
# python reads under /usr and /usr/local; here, a prefix of its own, through PYTHONPATH.
pydir=$prefix/lib/python$(/usr/bin/python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')/dist-packages
PYTHONPATH=$pydir /usr/bin/python3 - "$prefix" "$work/py.h5" <<'PY' || fail "the installed Python package"
import os, sys
import polka
prefix, output = sys.argv[1], sys.argv[2]
assert polka.__file__.startswith(prefix + "/"), polka.__file__
assert os.path.samefile(polka.find_polka(), prefix + "/bin/polka"), polka.find_polka()
run = polka.run({"net.graph": "line", "data.n_train": 400, "data.n_test": 200, "run.log_every": 200},
                ranks=2, agents=2, output=output)
assert run.agents == 2 and run.facts["mpi_size"] == 2 and run.graph.number_of_edges() == 1, run
print(f"installed package: {polka.__file__}, {run}")
PY
plot=$(root=$share && . "$share/tools/locate.sh" && echo "$polka_plot")
/usr/bin/python3 "$plot" run "$work/py.h5" -o "$work/py.png" || fail "installed plot_cli.py ($plot)"
[ -s "$work/py.png" ] || fail "installed plot_cli.py wrote no figure"
echo "installed polka ran from $prefix"
