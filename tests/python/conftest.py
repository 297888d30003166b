"""Fixtures of the Python package's tests (tests/python.cmake runs them under ctest).

POLKA_BUILD_DIR names the build tree: its python/ holds the package under test, its polka
makes the run files the tests read. By hand:
    POLKA_BUILD_DIR=build /usr/bin/python3 -m pytest tests/python
"""
import os
import subprocess
import sys

import pytest

BUILD = os.environ.get("POLKA_BUILD_DIR")
if not BUILD:
    raise RuntimeError("set POLKA_BUILD_DIR to the build tree (tests/python.cmake does)")
BUILD = os.path.abspath(BUILD)
sys.path.insert(0, os.path.join(BUILD, "python"))
os.environ.pop("POLKA", None)  # polka.run must find the build's polka by itself

import polka  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # tests/python: rounding.py
from rounding import gamma  # noqa: E402,F401  (the tests import it from here)

SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
POLKA = os.path.join(BUILD, "polka")
MPIEXEC = os.environ.get("MPIEXEC", "mpirun")
# Small runs: 800 training samples, 200 test points, a log row every 100 samples.
SMALL = {"data.n_train": 800, "data.n_test": 200, "run.log_every": 100}

assert polka.__file__.startswith(os.path.join(BUILD, "python")), f"testing {polka.__file__}, not the build's"


def polka_cli(*args, ranks=1, check=True):
    """The build's polka with args (under MPIEXEC -n ranks when ranks > 1): CompletedProcess."""
    launcher = [MPIEXEC, "--oversubscribe", "-n", str(ranks)] if ranks > 1 else []
    done = subprocess.run(launcher + [POLKA, *map(str, args)], capture_output=True, text=True, timeout=120)
    if check and done.returncode != 0:
        raise AssertionError(f"polka {' '.join(map(str, args))} failed:\n{done.stderr}")
    return done


def set_options(settings):
    """--set key=value for each setting."""
    return [item for key, value in settings.items() for item in ("--set", f"{key}={value}")]


def make_run(path, settings, ranks=1):
    """A run file made by the build's polka run with SMALL and settings; returns its path."""
    polka_cli("run", "--quiet", *set_options({**SMALL, **settings, "run.output": path}), ranks=ranks)
    return str(path)


def graph_file(name):
    return os.path.join(SOURCE, "graphs", name)


@pytest.fixture(scope="session")
def runs(tmp_path_factory):
    return tmp_path_factory.mktemp("runs")


@pytest.fixture(scope="session")
def decentralized(runs):
    """16 agents on 2 ranks on graphs/er_16_p0.2.txt, c = 0.5, multidist."""
    return make_run(runs / "decentralized.h5", {"net.graph": graph_file("er_16_p0.2.txt"), "net.c": 0.5}, ranks=2)


@pytest.fixture(scope="session")
def centralized(runs):
    """Centralized POLK on the union of 16 agents' streams."""
    return make_run(runs / "centralized.h5", {"run.mode": "centralized", "net.agents": 16})


@pytest.fixture(scope="session")
def faulty(runs):
    """8 agents on a ring that lose messages, go offline and get late values."""
    return make_run(runs / "faulty.h5", {"net.graph": "ring", "net.agents": 8, "fault.link_loss": 0.2,
                                         "fault.offline": 0.1, "fault.delay": 1})
