"""polka.open on run files the build's polka wrote: settings, metrics, summary, graph."""
import math
import re

import h5py
import numpy as np
import pytest

import polka
from conftest import graph_file, make_run, polka_cli


def test_settings_are_typed(decentralized):
    run = polka.open(decentralized)
    assert run.settings["net.c"] == 0.5 and isinstance(run.settings["net.c"], float)
    assert run.settings["run.seed"] == 1 and isinstance(run.settings["run.seed"], int)
    assert run.settings["learner.kernel"] == "gaussian"
    assert run.settings["net.graph"] == graph_file("er_16_p0.2.txt")
    assert run.facts["mpi_size"] == 2 and run.facts["mode"] == "decentralized"
    assert all("." in key for key in run.settings) and "polka_version" in run.facts


def test_metrics_match_the_file(decentralized):
    run = polka.open(decentralized)
    ds = run.metrics
    with h5py.File(decentralized, "r") as f:
        assert ds.sizes == {"round": f["metrics/round"].shape[0], "agent": 16}
        np.testing.assert_array_equal(ds["round"], f["metrics/round"][...])
        np.testing.assert_array_equal(ds["samples"], f["metrics/samples"][...])
        for name in f["metrics"]:
            if name not in ("round", "samples"):
                np.testing.assert_array_equal(ds[name], f["metrics"][name][...])
                assert ds[name].attrs["description"] == f["metrics"][name].attrs["description"]
    assert set(ds.data_vars) == set(polka.runfile.CURRENT_METRICS)


def test_table_is_tidy(decentralized):
    run = polka.open(decentralized)
    table, ds = run.table, run.metrics
    assert len(table) == run.rows * run.agents
    assert list(table.columns[:3]) == ["round", "samples", "agent"]
    indexed = table.set_index(["round", "agent"])
    for round_, agent in [(ds["round"][0], 0), (ds["round"][-1], 15), (ds["round"][3], 7)]:
        row = indexed.loc[(int(round_), agent)]
        assert row["test_score"] == ds["test_score"].sel(round=round_, agent=agent)
        assert row["samples"] == ds["samples"].sel(round=round_)


def report_row(path):
    """`polka report PATH` as {header: cell}."""
    lines = polka_cli("report", path).stdout.splitlines()
    return dict(zip(lines[0].split(), lines[1].split()))


@pytest.mark.parametrize("which", ["decentralized", "centralized", "faulty"])
def test_summary_is_polka_report(which, request):
    path = request.getfixturevalue(which)
    summary, report = polka.open(path).summary, report_row(path)
    names = {"mode": "mode", "agents": "agents", "rows": "rows", "rounds": "rounds", "score": "score",
             "score_mean": "mean", "score_min": "min", "score_max": "max",
             "disagreement": "disagreement", "order": "order", "max_order": "max_order",
             "bytes_per_round": "bytes/round", "lost_per_round": "lost/round",
             "offline": "offline", "value_age": "value_age", "samples_out": "samples_out",
             "receivers": "receivers", "epsilon": "epsilon"}
    for ours, theirs in names.items():
        cell = report[theirs]
        if isinstance(summary[ours], str):
            assert summary[ours] == cell, ours
        elif cell == "-":
            assert math.isnan(summary[ours]), ours
        else:
            assert float(f"{summary[ours]:.6g}") == float(cell), ours


def read_graph_file(path):
    """The edges of a graph file (graphs/README.md: 'u v [w]' lines, '#' comments)."""
    edges = set()
    for line in open(path):
        fields = line.split("#")[0].split()
        if fields:
            edges.add(tuple(sorted((int(fields[0]), int(fields[1])))))
    return edges


def test_graph_is_the_runs(decentralized):
    graph = polka.open(decentralized).graph
    assert graph.number_of_nodes() == 16
    assert {tuple(sorted(e)) for e in graph.edges()} == read_graph_file(graph_file("er_16_p0.2.txt"))
    for u, v, weight in graph.edges(data="weight"):  # net.weights = metropolis
        # polka's 1.0 / (1.0 + d): the same correctly rounded quotient of the same small integer
        assert weight == 1.0 / (1 + max(graph.degree(u), graph.degree(v)))


def test_generated_graph_has_the_runs_edges(runs):
    path = make_run(runs / "star.h5", {"net.graph": "star", "net.agents": 6})
    graph = polka.open(path).graph
    assert sorted(graph.degree(), key=lambda d: -d[1])[0] == (0, 5)
    assert graph.number_of_edges() == polka.open(path).facts["edges"] == 5


def test_centralized_run(centralized):
    run = polka.open(centralized)
    assert run.mode == "centralized" and run.agents == 1 and run.topology == "centralized"
    with pytest.raises(polka.RunFileError, match="centralized run without a graph"):
        run.graph


def test_models_by_agent(decentralized):
    run = polka.open(decentralized)
    assert len(run.models) == 16 and sorted(run.models) == list(range(16))
    orders = run.metrics["model_order"].isel(round=-1).values
    for agent in (0, 9, 15):
        model = run.models[agent]
        assert model.order == orders[agent] and model.dim == 2 and model.outputs == 5
    with pytest.raises(polka.RunFileError, match="no model for agent 16"):
        run.model(16)


def test_version_is_polkas():
    first = polka_cli("--version").stdout.splitlines()[0]
    assert re.fullmatch(r"polka (\S+)", first).group(1) == polka.__version__
