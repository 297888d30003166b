# Sourced by the experiment and Slurm scripts once they have set root (the source tree, or an
# installed share/polka). Sets polka, the binary they run: $POLKA; else the source tree's
# build/polka; else the installed one (cmake --install writes its bin directory, relative to
# root, in installed_bindir below); else polka on PATH. Sets outdir, under which results go by
# default: the source tree's out/, or ./out for an installed copy (its prefix may be
# read-only). Sets polka_plot, the plot command line they run with the system python:
# $POLKA_PLOT (as polka data split does); else the source tree's python/polka/plot_cli.py;
# else the installed package's (its folder relative to root: installed_pythondir).
installed_bindir=
installed_pythondir=
if [ -n "${POLKA:-}" ]; then
    polka=$POLKA
elif [ -x "$root/build/polka" ]; then
    polka=$root/build/polka
elif [ -n "$installed_bindir" ] && [ -x "$root/$installed_bindir/polka" ]; then
    polka=$root/$installed_bindir/polka
elif command -v polka >/dev/null 2>&1; then
    polka=$(command -v polka)
else
    echo "polka not found: build it (tools/build.sh), put it on PATH or set POLKA" >&2
    exit 1
fi
if [ -z "$installed_bindir" ]; then outdir=$root/out; else outdir=$PWD/out; fi
if [ -n "${POLKA_PLOT:-}" ]; then
    polka_plot=$POLKA_PLOT
elif [ -f "$root/python/polka/plot_cli.py" ]; then
    polka_plot=$root/python/polka/plot_cli.py
else
    polka_plot=$root/$installed_pythondir/polka/plot_cli.py
fi
