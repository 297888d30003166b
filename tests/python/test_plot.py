"""polka.plot's figures, and python/polka/plot_cli.py, their command line, on real run files."""
import importlib.util
import math
import os
import re
import signal
import subprocess
import sys

import pytest
from matplotlib.figure import Figure

import polka
from conftest import SOURCE, gamma, graph_file, make_run, polka_cli

PNG = b"\x89PNG\r\n\x1a\n"


PLOT_PY = os.path.join(SOURCE, "python", "polka", "plot_cli.py")


def plot_script(*args):
    """python/polka/plot_cli.py with args, as the experiment scripts run it: its stdout."""
    done = subprocess.run([sys.executable, PLOT_PY, *map(str, args)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def plot_module():
    """python/polka/plot_cli.py, loaded in this process (a python start costs seconds)."""
    spec = importlib.util.spec_from_file_location("plot_command_line", PLOT_PY)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def plot_main(plot_module):
    """python/polka/plot_cli.py's main."""
    return plot_module.main


@pytest.fixture
def plot_cli(plot_main, capsys):
    """python/polka/plot_cli.py's main with args: what it printed."""
    def run(*args):
        capsys.readouterr()
        plot_main([str(arg) for arg in args])
        return capsys.readouterr().out
    return run


def assert_png(path):
    with open(path, "rb") as f:
        assert f.read(8) == PNG


def test_run_figure_panels(decentralized, centralized, faulty):
    assert isinstance(polka.plot.run(decentralized, central=centralized), Figure)
    assert len(polka.plot.run(decentralized).axes) == 3
    assert len(polka.plot.run(faulty).axes) == 5  # the faults panel and its twin axis
    assert polka.plot.had_faults(polka.open(faulty)) and not polka.plot.had_faults(polka.open(decentralized))


def test_command_line_writes_a_png(decentralized, centralized, tmp_path):
    out = tmp_path / "run.png"
    assert plot_script("run", decentralized, "--centralized", centralized, "-o", out) == f"wrote {out}\n"
    assert_png(out)


def test_command_line_says_what_polka_refuses(plot_main, tmp_path):
    with pytest.raises(SystemExit, match=r"^plot_cli.py: cannot open run file '.*nothing.h5': No such file"):
        plot_main(["run", str(tmp_path / "nothing.h5"), "-o", str(tmp_path / "x.png")])


def test_compare_and_sweep_figures(decentralized, centralized, faulty, tmp_path):
    polka.plot.compare([decentralized, faulty], central=centralized).savefig(tmp_path / "compare.png")
    assert_png(tmp_path / "compare.png")
    table, central = polka.plot.sweep_table([decentralized, faulty, centralized])
    assert table[["topology", "c"]].values.tolist() == [["er_16_p0.2", 0.5], ["ring", 1.0]]
    assert central == [polka.open(centralized).values("test_score")[-1, 0]]
    assert len(polka.plot.sweep([decentralized, faulty, centralized]).axes) == 2


def test_lambda2_of_a_ring(runs, centralized, tmp_path, plot_cli):
    ring = make_run(runs / "ring16.h5", {"net.graph": graph_file("ring_16.txt")})
    lines = plot_cli("lambda2", ring, centralized, "-o", tmp_path / "l2.png").splitlines()
    assert lines[0] == f"wrote {tmp_path / 'l2.png'}"
    fields = dict(re.findall(r"(\w+)=\s*(\S+)", lines[1]))
    assert lines[1].split()[0] == "ring_16"
    assert fields["lambda2"] == f"{2 - 2 * math.cos(2 * math.pi / 16):.4g}"
    # the same final_error of the same file, printed with the same format: the same digits
    assert fields["error"] == f"{polka.plot.final_error(polka.open(ring)):.3f}"
    assert lines[2].split()[0] == "centralized"


def test_faults_table(decentralized, faulty, centralized, tmp_path, plot_cli):
    out = plot_cli("faults", decentralized, faulty, "--centralized", centralized, "--key", "fault.link_loss",
                   "-o", tmp_path / "faults.png").splitlines()
    assert out[0].split() == ["split", "agents", "fault.link_loss", "error%", "disagreement", "max", "order"]
    assert [line.split()[:3] for line in out[1:3]] == [["iid", "8", "0.2"], ["iid", "16", "0"]]
    assert out[3].startswith("   central") and out[-1] == f"wrote {tmp_path / 'faults.png'}"


def test_drift_scores_the_frozen_model_as_polka(runs, tmp_path):
    drift = {"data.drift": 0.002, "net.agents": 4}
    agents = make_run(runs / "drift_agents.h5", {**drift, "net.graph": "ring"})
    central = make_run(runs / "drift_central.h5", {**drift, "run.mode": "centralized"})
    frozen = make_run(runs / "drift_frozen.h5", {**drift, "run.mode": "centralized", "run.passes": 0.5})
    polka_cli("data", "multidist", "-o", runs / "drift.svm", "--set", "data.n_train=800", "--set", "data.n_test=200")
    test_x, test_y = polka.plot.read_libsvm(runs / "drift.svm.t", 2)
    curves, numbers = polka.plot.drift_curves(agents, central, frozen, test_x, test_y)
    # the frozen learner's last model, turned to the phase it stopped at, as its run file scored it:
    # the same count k of the n errors, 100·fl(k/n) here (γ_2) and 100·(1 − fl((n − k)/n)) in polka
    # (a rounding each of the quotient, 1 − it and ·100): within 100·γ_5, one error being 100/n
    assert abs(numbers["stopped_last_here"] - numbers["stopped_last_file"]) <= 100 * gamma(5)
    assert curves["stop"] == 400 and curves["frozen"][-1] != curves["frozen"][0]
    figure = polka.plot.drift(agents, central, frozen, test_x, test_y)
    assert figure.axes[0].child_axes[0].get_xlabel() == "rotation of the classes (degrees)"


def test_split_histogram(tmp_path):
    polka_cli("data", "split", "-o", tmp_path / "split.csv", "--set", "net.agents=4", "--set", "data.split=shards")
    assert len(polka.plot.split(tmp_path / "split.csv").axes[0].patches) == 4 * 5  # agents × classes


def test_split_figure_replaces_an_earlier_one_whole(tmp_path):
    figure = tmp_path / "split.png"
    figure.write_bytes(b"an earlier figure")
    polka_cli("data", "split", "-o", figure, "--set", "net.agents=4", "--set", "data.split=shards")
    assert_png(figure)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["split.png", "split.png.csv"]


class HalfWritten:
    """A figure whose saving stops after some bytes: interrupted (SIGINT), or SIGTERM."""

    def __init__(self, stop):
        self.stop = stop

    def savefig(self, file, **options):
        file.write(b"\x89PNG half a figure")
        file.flush()
        if self.stop == "sigint":
            raise KeyboardInterrupt
        os.kill(os.getpid(), signal.SIGTERM)


@pytest.mark.parametrize("stop", ["sigint", "sigterm"])
def test_interrupted_plot_leaves_the_earlier_file_whole(plot_module, tmp_path, stop):
    figure = tmp_path / "fig.png"
    figure.write_bytes(b"an earlier figure")
    previous = plot_module.exit_on_sigterm()
    try:
        with pytest.raises(KeyboardInterrupt if stop == "sigint" else SystemExit):
            plot_module.save(HalfWritten(stop), str(figure))
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert figure.read_bytes() == b"an earlier figure"
    assert [p.name for p in tmp_path.iterdir()] == ["fig.png"]  # no temporary file left
