#!/usr/bin/env python3
"""Plots of polka run files (HDF5): the command line of the package's polka.plot, which polka
data split runs too. Needs h5py, numpy, pandas, xarray, networkx and matplotlib (Debian:
python3-*); run it with the system python, by path (it finds the package it is part of):
/usr/bin/python3 python/polka/plot_cli.py in the source tree, or the installed package's
plot_cli.py; or as a module where the package is on the path: python3 -m polka.plot_cli.

  plot_cli.py run DECENTRALIZED.h5 [--centralized CENTRAL.h5] [--label TEXT] -o OUT.png
      test score vs samples per agent (each agent faint, mean bold, centralized dashed),
      disagreement vs round (log scale) and model order vs round, side by side.
  plot_cli.py compare A.h5 B.h5 ... [--centralized CENTRAL.h5] [--labels a,b,...] [--x clock] -o OUT.png
      mean test score and disagreement of several decentralized runs in one figure; --x clock
      plots both against the rows' virtual time (lockstep and async.engine = events alike).
  plot_cli.py sweep RUN.h5 ... -o OUT.png
      final mean score and disagreement per topology, one line per penalty c.
  plot_cli.py lambda2 RUN.h5 ... -o OUT.png
      final mean error (or MSE) and disagreement against the graph's algebraic connectivity
      λ₂ (from /config/graph), one marker per topology and size, one colour per penalty c;
      centralized runs as horizontal lines.
  plot_cli.py drift AGENTS.h5 --centralized CENTRAL.h5 --frozen FROZEN.h5 --test TEST.svm -o OUT.png
      a drifting multidist stream: test error against the present distribution over time of the
      agents (mean, band = best..worst), centralized POLK, and the model of FROZEN.h5 (a
      learner that stopped learning at its last sample), evaluated here on TEST.svm (the test
      set at phase 0, `polka data multidist`) turned by data.drift x samples, as polka does.
  plot_cli.py faults RUN.h5 ... [--centralized C.h5 ...] [--key fault.link_loss] -o OUT.png
      final mean error (or MSE) and disagreement against one fault setting (--key), one line
      per data split and network size; centralized runs as horizontal lines. Prints the table.
  plot_cli.py split HIST.csv -o OUT.png
      the per-agent class histogram written by `polka data split` (stacked bars, one per agent).

`plot_cli.py run` adds a fourth panel when the run had faults: messages lost per agent and
round, the fraction of agents offline and the mean age of the values used, per log interval.
"""
import argparse
import contextlib
import os
import secrets
import signal
import sys


def import_polka():
    """The polka package this file is part of. Run by path, python put this file's folder
    (polka/, whose module names would shadow others) first on sys.path: its parent goes
    there instead, so that the package beside this file is the one imported."""
    if __name__ == "__main__" and not __package__:
        here = os.path.dirname(os.path.realpath(__file__))
        sys.path[:] = [p for p in sys.path if os.path.realpath(p or ".") != here]
        sys.path.insert(0, os.path.dirname(here))
    import polka
    import polka.plot
    return polka


polka = import_polka()


def write_whole(output, write):
    """Writes OUTPUT as polka writes its outputs: write(file) fills OUTPUT.XXXXXX.tmp beside
    it (O_EXCL, never an existing file), renamed over OUTPUT once whole, so a failed or
    interrupted write leaves no partial file and an earlier OUTPUT whole."""
    folder = os.path.dirname(os.path.abspath(output))
    while True:
        temp = os.path.join(folder, f"{os.path.basename(output)}.{secrets.token_hex(3)}.tmp")
        try:
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
            break
        except FileExistsError:
            continue
    try:
        with os.fdopen(fd, "wb") as file:
            write(file)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temp, output)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    print(f"wrote {output}")


def save(figure, output):
    """The figure into OUTPUT, whole (write_whole); the format is OUTPUT's extension."""
    extension = os.path.splitext(output)[1][1:].lower()
    write_whole(output, lambda file: figure.savefig(file, dpi=110, format=extension or None))


def plot_lambda2(args):
    table = polka.plot.lambda2_table(args.runs)
    save(polka.plot.lambda2(args.runs), args.output)
    points = table[table.topology != "centralized"].sort_values(["c", "lambda2"])
    for p in points.itertuples():
        print(f"{p.topology:>12} N={p.agents:<6} c={p.c:<4g} lambda2={p.lambda2:10.4g}  "
              f"error={p.error:7.3f}  disagreement={p.disagreement:.4g}")
    for p in table[table.topology == "centralized"].itertuples():
        print(f"{'centralized':>12} N={p.agents:<6} error={p.error:7.3f}")


def plot_drift(args):
    agents = polka.open(args.decentralized)
    test_x, test_y = polka.plot.read_libsvm(args.test, int(agents.settings["data.dim"]))
    save(polka.plot.drift(agents, args.centralized, args.frozen, test_x, test_y), args.output)
    _, n = polka.plot.drift_curves(agents, args.centralized, args.frozen, test_x, test_y)
    print("tracking error (mean test error over the second half): "
          f"{agents.agents} agents {n['agents']:.2f} %, centralized {n['centralized']:.2f} %, "
          f"stopped learner {n['stopped']:.2f} %")
    # the check that this evaluation is polka's: the last model at the phase it stopped at
    print(f"stopped learner's last model at its last sample: {n['stopped_last_here']:.2f} % (plot_cli.py), "
          f"{n['stopped_last_file']:.2f} % (its run file)")


def plot_faults(args):
    table = polka.plot.faults_table(args.runs, args.key)
    centrals = [polka.open(path) for path in (args.centralized or [])]
    unit = "%" if table.classification.iloc[0] else ""
    print(f"{'split':>10} {'agents':>6} {args.key:>18} {'error' + unit:>10} {'disagreement':>13} {'max order':>9}")
    for row in table.itertuples(index=False):
        split, agents, x, err, dis, order = row[:6]
        print(f"{split:>10} {agents:>6} {x:>18g} {err:>10.3f} {dis:>13.4g} {order:>9.0f}")
    for run in centrals:
        print(f"{'central':>10} {'':>6} {'':>18} {polka.plot.final_error(run):>10.3f}  ({run.path})")
    save(polka.plot.faults(args.runs, args.key, centrals), args.output)


def parser():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    for name, runs in (("run", "decentralized"), ("compare", "runs"), ("sweep", "runs"),
                       ("lambda2", "runs"), ("drift", "decentralized"), ("faults", "runs"),
                       ("split", "histogram")):
        command = sub.add_parser(name)
        command.add_argument(runs, nargs="+" if runs == "runs" else None)
        command.add_argument("-o", "--output", required=True)
        if name in ("run", "compare", "drift"):
            command.add_argument("--centralized", required=name == "drift")
    sub.choices["run"].add_argument("--label")
    sub.choices["compare"].add_argument("--labels")
    sub.choices["compare"].add_argument("--x", choices=("samples", "clock"), default="samples")
    sub.choices["drift"].add_argument("--frozen", required=True)
    sub.choices["drift"].add_argument("--test", required=True)
    sub.choices["faults"].add_argument("--centralized", action="append")
    sub.choices["faults"].add_argument("--key", default="fault.link_loss")
    return p


def exit_on_sigterm():
    """SIGTERM (polka data split stopped, a job's end) unwinds like SIGINT, through save()'s
    removal of its temporary file. Returns the handler it replaced."""
    return signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))


def main(argv):
    exit_on_sigterm()
    args = parser().parse_args(argv)
    figures = {
        "run": lambda: polka.plot.run(args.decentralized, args.centralized, args.label),
        "compare": lambda: polka.plot.compare(args.runs, args.centralized,
                                              args.labels.split(",") if args.labels else None,
                                              args.x),
        "sweep": lambda: polka.plot.sweep(args.runs),
        "split": lambda: polka.plot.split(args.histogram),
    }
    commands = {"lambda2": plot_lambda2, "drift": plot_drift, "faults": plot_faults}
    try:
        if args.command in figures:
            save(figures[args.command](), args.output)
        else:
            commands[args.command](args)
    except polka.PolkaError as error:
        raise SystemExit(f"plot_cli.py: {error}")


if __name__ == "__main__":
    main(sys.argv[1:])
