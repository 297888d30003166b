"""Many run files (a sweep) as one pandas DataFrame, with the settings that differ as columns."""
import glob
import os

from .errors import PolkaError
from .runfile import Run

# Keys that name a run's own files: they differ between any two runs and say nothing of them.
FILE_KEYS = ("run.output", "run.csv", "run.checkpoint")


def run_paths(sources):
    """The run files that sources names: a path, a glob pattern, or a list of them."""
    if isinstance(sources, (str, os.PathLike)):
        sources = [sources]
    paths = []
    for source in map(os.fspath, sources):
        matches = sorted(glob.glob(source)) if glob.has_magic(source) else [source]
        if not matches:
            raise PolkaError(f"no run files match '{source}'")
        paths.extend(matches)
    if not paths:
        raise PolkaError("open_many: no run files given")
    return paths


def differing_settings(runs):
    """The settings keys whose values are not the same in every run (files' own names aside)."""
    keys = sorted({key for run in runs for key in run.settings} - set(FILE_KEYS))
    return [key for key in keys if len({repr(run.settings.get(key)) for run in runs}) > 1]


def open_many(sources, rows="final"):
    """The runs of sources (paths, glob patterns) as one DataFrame: column path, then the
    settings that differ between them, then

    rows="final": one row per run, its summary (the columns of `polka report`);
    rows="all":   one row per log row and agent of every run (each run's `table`)."""
    import pandas as pd
    if rows not in ("final", "all"):
        raise PolkaError(f"open_many: rows is 'final' or 'all', not {rows!r}")
    runs = [Run(path) for path in run_paths(sources)]
    keys = differing_settings(runs)
    frames = []
    for run in runs:
        if rows == "final":
            frame = pd.DataFrame([run.summary])
        else:
            frame = run.table.copy()
        for position, key in enumerate(["path"] + keys):
            frame.insert(position, key, run.path if key == "path" else run.settings.get(key))
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)
