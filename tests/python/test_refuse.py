"""Files polka.open refuses (one message) or reads with a warning: checkpoints, files that are
not run files, run files of other polka versions, a run killed while it logged."""
import os
import shutil
import sys

import h5py
import numpy as np
import pytest

import polka
from conftest import make_run


def test_checkpoint_is_refused(runs):
    path = make_run(runs / "ckpt.h5", {"run.mode": "centralized", "net.agents": 4, "run.checkpoint_every": 20})
    checkpoint = path + ".ckpt"
    assert os.path.exists(checkpoint)
    with pytest.raises(polka.RunFileError) as refused:
        polka.open(checkpoint)
    message = str(refused.value)
    assert message.startswith(f"'{checkpoint}' is a polka checkpoint (round ")
    assert f"polka run --resume {checkpoint}" in message


def test_text_file_is_refused(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("not a run\n")
    with pytest.raises(polka.RunFileError, match=r"^'.*notes.txt' is not an HDF5 file$"):
        polka.open(path)


def test_other_hdf5_file_is_refused(tmp_path):
    path = tmp_path / "other.h5"
    with h5py.File(path, "w") as f:
        f["data"] = np.arange(3)
    with pytest.raises(polka.RunFileError, match=r"^'.*other.h5' is not a polka run file \(no /metrics\)$"):
        polka.open(path)


def test_missing_file_is_refused(tmp_path):
    with pytest.raises(polka.RunFileError, match="cannot open run file '.*nothing.h5': No such file"):
        polka.open(tmp_path / "nothing.h5")


def changed_copy(source, target, change):
    """A copy of the run file source at target, changed by change(h5py.File)."""
    shutil.copy(source, target)
    with h5py.File(target, "r+") as f:
        change(f)
    return target


def test_older_run_file_is_read_with_a_warning(decentralized, tmp_path):
    def drop_fault_metrics(f):
        for name in ("messages_lost", "rounds_offline", "value_age"):
            del f["metrics"][name]
    path = changed_copy(decentralized, tmp_path / "older.h5", drop_fault_metrics)
    with pytest.warns(polka.RunFileVersionWarning, match="without the metrics messages_lost, rounds_offline, value_age"):
        run = polka.open(path)
    assert "value_age" not in run.metrics and len(run.metric_names) == len(polka.runfile.CURRENT_METRICS) - 3
    assert np.isnan(run.summary["value_age"]) and run.summary["score_mean"] == polka.open(decentralized).summary["score_mean"]


@pytest.mark.parametrize("part, message", [
    ("metrics/test_score", "has no metric 'test_score'"),
    ("metrics/round", "has no metric 'round'"),
    ("config", r"is not a polka run file \(no /config\)"),
])
def test_run_file_without_a_part_is_refused(decentralized, tmp_path, part, message):
    def drop(f):
        del f[part]
    path = changed_copy(decentralized, tmp_path / "damaged.h5", drop)
    with pytest.raises(polka.RunFileError, match=message):
        polka.open(path)


def test_metrics_without_agents_are_refused(decentralized, tmp_path):
    def drop(f):
        del f["metrics"].attrs["agents"]
    path = changed_copy(decentralized, tmp_path / "noagents.h5", drop)
    with pytest.raises(polka.RunFileError, match=r"/metrics has no attribute 'agents'"):
        polka.open(path)


def test_newer_polka_is_read_with_a_warning(decentralized, tmp_path):
    def newer(f):
        f["config"].attrs["polka_version"] = "99.0.0"
    path = changed_copy(decentralized, tmp_path / "newer.h5", newer)
    with pytest.warns(polka.RunFileVersionWarning, match="written by polka 99.0.0, newer than this package"):
        polka.open(path)


def test_last_row_a_kill_left_unwritten_is_left_out(decentralized, tmp_path):
    def extend(f):
        for data in f["metrics"].values():
            data.resize(data.shape[0] + 1, axis=0)  # polka's fill value: NaN
    path = changed_copy(decentralized, tmp_path / "killed.h5", extend)
    whole, killed = polka.open(decentralized), polka.open(path)
    assert killed.rows == whole.rows and killed.summary == whole.summary


def huge_dictionary(f):
    del f["models/dictionary"]
    f["models"].create_dataset("dictionary", shape=(1 << 20, 1 << 20), dtype=float)


def wrapped_degree(f):
    f["models"].attrs["kernel"] = "polynomial"
    f["models"].attrs["degree"] = (1 << 32) + 3


def nan_weight(f):  # agent 0's first row
    f["models/weights"][0, 0] = np.nan


def nan_rho(f):  # agent 0's margin
    f["models/rho"][0] = np.nan


def rho_without_tube(f):
    del f["models/tube"]


def short_rho(f):
    del f["models/rho"]
    f["models"]["rho"] = np.ones(3)


@pytest.mark.parametrize("damage, message, others", [
    (nan_rho, r"/rho\[0\] = nan is not finite", True),
    (rho_without_tube, r"is damaged: .*tube", False),
    (short_rho, r"/rho \(3,\) does not hold one value per agent \(16\)", False),
    (huge_dictionary, r"dictionary declares \(1048576, 1048576\) values \(8796093022208 bytes\) but the file stores 0", False),
    (wrapped_degree, r"degree 4294967299 is outside \[1, 64\]", False),
    (nan_weight, "the model is corrupt", True),
])
def test_damaged_model_is_refused(decentralized, tmp_path, damage, message, others):
    run = polka.open(changed_copy(decentralized, tmp_path / "model.h5", damage))
    with pytest.raises(polka.RunFileError, match=f"/models.*{message}"):
        run.model(0)
    if others:  # the damage is in agent 0's rows alone
        assert run.model(1).order > 0


def test_older_models_layout_is_read(decentralized, tmp_path):
    """The files of polka before the concatenated models (a group per agent) read the same."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import run_models  # tests/python/run_models.py
    older = polka.open(changed_copy(decentralized, tmp_path / "older.h5", run_models.to_agent_groups))
    run = polka.open(decentralized)
    assert len(older.models) == len(run.models) > 1
    for agent in run.models:
        a, b = older.model(agent), run.model(agent)
        assert a.dictionary.tobytes() == b.dictionary.tobytes()
        assert a.weights.tobytes() == b.weights.tobytes() and a.order == b.order > 0


def test_absurd_agents_are_refused(decentralized, tmp_path):
    def absurd(f):
        f["metrics"].attrs["agents"] = np.uint64(1 << 61)
    with pytest.raises(polka.RunFileError, match="/metrics attribute 'agents' is 2305843009213693952"):
        polka.open(changed_copy(decentralized, tmp_path / "agents.h5", absurd))


def negative_sigma(f):
    f["models"].attrs["sigma"] = -1.0


def test_model_of_negative_bandwidth_is_refused(decentralized, tmp_path):
    """As polka predict refuses it: a Gaussian kernel of bandwidth −1 is no model."""
    run = polka.open(changed_copy(decentralized, tmp_path / "sigma.h5", negative_sigma))
    with pytest.raises(polka.RunFileError, match=r"/models.*sigma -1.0 is not a kernel bandwidth \(> 0\)"):
        run.model(0)


@pytest.mark.parametrize("agent", ["1", 1.0, True, None])
def test_agent_that_is_no_integer_is_refused(decentralized, agent):
    with pytest.raises(polka.PolkaError, match=r"an agent is an integer 0 \.\. 15, not "):
        polka.open(decentralized).model(agent)


def test_numpy_integer_names_an_agent(decentralized):
    run = polka.open(decentralized)
    assert run.model(np.int64(3)).agent == 3


def test_points_that_are_not_finite_are_refused(decentralized):
    model = polka.open(decentralized).model(0)
    with pytest.raises(polka.PolkaError, match=r"point 1 has the value nan \(feature 0\), which is not finite"):
        model.predict([[0.5, 0.5], [np.nan, 0.0]])


def edge_outside(f):
    edges = f["config/graph/edges"][...]
    edges[0, 1] = 99
    del f["config/graph/edges"]
    f["config/graph"]["edges"] = edges


def self_loop(f):
    edges = f["config/graph/edges"][...]
    edges[2, 1] = edges[2, 0]
    del f["config/graph/edges"]
    f["config/graph"]["edges"] = edges


def more_nodes(f):
    f["config/graph"].attrs["nodes"] = np.uint64(17)


@pytest.mark.parametrize("damage, message", [
    (edge_outside, r"edge 0 \(\d+, 99\) names a node outside 0 \.\. 15"),
    (self_loop, r"edge 2 joins node \d+ to itself"),
    (more_nodes, r"has 17 nodes but the run 16 agents"),
])
def test_damaged_graph_is_refused(decentralized, tmp_path, damage, message):
    with pytest.raises(polka.RunFileError, match=f"/config/graph.*{message}"):
        polka.open(changed_copy(decentralized, tmp_path / "graph.h5", damage))
