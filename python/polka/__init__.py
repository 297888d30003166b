"""polka from Python: run files as pandas and xarray, runs and sweeps driven from a notebook.

    import polka
    run = polka.open("out/quickstart/decentralized.h5")
    run.settings["net.c"], run.metrics.test_score.mean("agent"), run.table, run.graph, run.summary
    run.model(3).values(points)                     # agent 3's f, as `polka predict` computes it
                                                    # (Model, or RandomFeatureModel for dkla, ...)
    sweep = polka.open_many("out/sweep/*.h5")       # one row per run, the differing settings
    new = polka.run({"net.c": 0.5}, ranks=2, agents=16)   # `polka run` under mpirun
    polka.plot.run(new).savefig("new.png")

Reading needs h5py, numpy, pandas, xarray and networkx; plots matplotlib (Debian's
python3-* packages: run with /usr/bin/python3).
"""
import importlib

from .driver import find_polka, run
from .errors import PolkaError, RunFailed, RunFileError, RunFileVersionWarning
from .model import Model, RandomFeatureModel
from .runfile import Run, open_run as open
from .sweep import open_many
from .version import __version__

__all__ = ["open", "open_many", "run", "find_polka", "plot", "Run", "Model", "RandomFeatureModel", "PolkaError",
           "RunFileError", "RunFailed", "RunFileVersionWarning", "__version__"]


def __getattr__(name):
    """polka.plot, imported when first used (matplotlib and pandas take a second to load)."""
    if name == "plot":
        return importlib.import_module(".plot", __name__)
    raise AttributeError(f"module 'polka' has no attribute '{name}'")
