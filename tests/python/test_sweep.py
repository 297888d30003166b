"""polka.open_many: the runs of a sweep in one DataFrame, the settings that differ as columns."""
import pytest

import polka
from conftest import make_run

POINTS = [{"net.graph": "ring", "net.c": 0.0}, {"net.graph": "ring", "net.c": 1.0},
          {"net.graph": "complete", "net.c": 1.0}]


@pytest.fixture(scope="module")
def sweep(runs):
    folder = runs / "sweep"
    folder.mkdir()
    return [make_run(folder / f"point{k}.h5", {**point, "net.agents": 4}) for k, point in enumerate(POINTS)]


def test_differing_settings_are_columns(sweep):
    frame = polka.open_many(sweep)
    assert list(frame.columns[:3]) == ["path", "net.c", "net.graph"]
    assert "learner.eta" not in frame and "run.output" not in frame  # the same, and each run's own
    assert frame["path"].tolist() == sweep
    assert frame[["net.graph", "net.c"]].values.tolist() == [[p["net.graph"], p["net.c"]] for p in POINTS]
    for row, path in zip(frame.itertuples(), sweep):
        assert row.score_mean == polka.open(path).summary["score_mean"]
    assert frame.groupby("net.graph").size().to_dict() == {"complete": 1, "ring": 2}


def test_glob_gives_the_same_frame(sweep):
    folder = sweep[0].rsplit("/", 1)[0]
    assert polka.open_many(f"{folder}/point*.h5").equals(polka.open_many(sweep))


def test_every_row_of_every_run(sweep):
    frame = polka.open_many(sweep, rows="all")
    runs = [polka.open(path) for path in sweep]
    assert len(frame) == sum(run.rows * run.agents for run in runs)
    assert list(frame.columns[:6]) == ["path", "net.c", "net.graph", "round", "samples", "agent"]
    last = frame[(frame["path"] == sweep[2]) & (frame["round"] == runs[2].rounds[-1])]
    assert last["test_score"].tolist() == runs[2].values("test_score")[-1].tolist()


def test_one_run_has_no_differing_settings(sweep):
    assert list(polka.open_many(sweep[0]).columns[:2]) == ["path", "mode"]


def test_nothing_matches(tmp_path):
    with pytest.raises(polka.PolkaError, match=r"no run files match '.*/\*\.h5'"):
        polka.open_many(str(tmp_path / "*.h5"))


def test_bad_rows_argument(sweep):
    with pytest.raises(polka.PolkaError, match="rows is 'final' or 'all'"):
        polka.open_many(sweep, rows="last")
