"""Reading a polka run file (HDF5, `run.output` of `polka run`; layout in docs/guide.md, "Reading
results"): settings, metrics as xarray and pandas, models, graph and summary."""
import math
import os
import warnings
from collections.abc import Mapping

import h5py
import numpy as np

from .errors import PolkaError, RunFileVersionWarning, RunFileError
from .model import CLASSIFICATION_LOSSES, Model, RandomFeatureModel
from .version import __version__

# The per-agent metrics this package's polka writes (src/sim/metrics_impl.h), in file order.
CURRENT_METRICS = ("test_score", "test_loss", "train_loss", "model_order", "disagreement",
                   "bytes_sent", "messages_lost", "rounds_offline", "value_age", "wall_time",
                   "time_compute", "time_exchange", "time_update", "online_error",
                   "messages_censored", "samples_out", "receivers", "updates", "clock",
                   "info_age", "noisy_points", "row_releases", "privacy_epsilon",
                   "points_clamped")
# Without these a file is refused: no polka version wrote a run file without them.
REQUIRED_METRICS = ("test_score", "model_order")
RFF_MODELS = "random-features"  # /models "kind" of the random-feature methods (runfile.h)
KERNEL_MODELS = "kernel-expansions"  # /models "kind" of the kernel expansions, concatenated
CHECKPOINT_FORMAT = "polka checkpoint"
# polka's reader's bounds (include/polka/runfile.h): the agents of a run, a polynomial model's
# degree, and how many times its stored bytes a dataset may declare (a damaged header must
# not make the reader allocate gigabytes).
MAX_AGENTS, MAX_DEGREE, MAX_EXPANSION = 1 << 24, 64, 1032


def open_run(path):
    """The run file at path as a Run; RunFileError (one message) when it is not one."""
    return Run(path)


def _text(value):
    return value.decode() if isinstance(value, bytes) else str(value)


def _typed(value):
    """An HDF5 attribute as a Python value: str, int or float."""
    if isinstance(value, np.ndarray) and value.size == 1:
        value = value.reshape(-1)[0]
    if isinstance(value, (bytes, str)):
        return _text(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    return value


def _version(text):
    """'0.1.0' → (0, 1, 0); None when it is not a dotted version."""
    try:
        return tuple(int(part) for part in text.split("."))
    except (AttributeError, ValueError):
        return None


def _whole(dataset, where):
    """A dataset's values as doubles (one h5py read), unless it declares far more bytes than
    the file stores of it."""
    _refuse_inflated(dataset, where)
    return np.asarray(dataset[...], dtype=float)


def _refuse_inflated(dataset, where):
    """Refuses a dataset that declares far more bytes than the file stores of it (as _whole)."""
    declared = math.prod(dataset.shape) * 8
    if declared > MAX_EXPANSION * dataset.id.get_storage_size() + 8:
        raise RunFileError(f"{where} declares {dataset.shape} values ({declared} bytes) but the "
                           f"file stores {dataset.id.get_storage_size()} bytes of it")


# What h5py and numpy raise on a damaged part of a file: OSError (HDF5's own errors), KeyError (a
# missing object), RuntimeError (some damaged headers and heaps), TypeError and ValueError (a
# dataset or attribute of another type or shape), IndexError (fewer elements than declared).
DAMAGED = (OSError, KeyError, RuntimeError, TypeError, ValueError, IndexError)


def _open_hdf5(path):
    """The file opened read-only, after the checks polka makes (exists, HDF5, opens)."""
    if not os.path.exists(path):
        raise RunFileError(f"cannot open run file '{path}': No such file or directory")
    if os.path.isdir(path):
        raise RunFileError(f"cannot open run file '{path}': it is a directory")
    if not h5py.is_hdf5(path):
        raise RunFileError(f"'{path}' is not an HDF5 file")
    try:
        return h5py.File(path, "r")
    except DAMAGED as error:
        raise RunFileError(f"run file '{path}' is damaged: {error}") from None


def _refuse_other_files(f, path):
    """A checkpoint or an HDF5 file that polka did not write as a run file: RunFileError."""
    if _text(f.attrs.get("format", b"")) == CHECKPOINT_FORMAT:
        raise RunFileError(
            f"'{path}' is a polka checkpoint (round {_typed(f.attrs.get('round', '?'))}), not a run "
            f"file: polka run --resume {path} with the run's settings goes on from it and writes "
            "the run file (run.output)")
    for part in ("metrics", "config"):
        if part not in f:
            raise RunFileError(f"'{path}' is not a polka run file (no /{part})")
    if "agents" not in f["metrics"].attrs:
        raise RunFileError(f"'{path}' is not a polka run file (/metrics has no attribute 'agents')")


def _read_config(group):
    """/config's attributes: the settings (keys 'section.key') and the facts polka adds
    (polka_version, mpi_size, mode, edges, edges_cut)."""
    settings, facts = {}, {}
    for name, value in group.attrs.items():
        (settings if "." in name else facts)[name] = _typed(value)
    return dict(sorted(settings.items())), facts


class Run:
    """A polka run file, read at construction (metrics whole; models when asked for).

    Attributes: path, settings (dict of the run's keys, typed), facts (polka_version, mpi_size,
    mode, ...), agents, logged_agents (the agents with metric columns: all, or every S-th with
    run.log_agents), rows (complete log rows), rounds and samples (per row, numpy),
    descriptions (metric → text), timing (stage → [min, mean, max] seconds over ranks)."""

    def __init__(self, path):
        self.path = os.fspath(path)
        with _open_hdf5(self.path) as f:
            try:
                self._read(f)
            except DAMAGED as error:
                raise RunFileError(f"run file '{self.path}' is damaged: {error}") from None
        self._cache = {}

    def _read(self, f):
        _refuse_other_files(f, self.path)
        self.settings, self.facts = _read_config(f["config"])
        self._check_version()
        self.agents = self._read_agents(f["metrics"])
        self.logged_agents = self._read_logged(f["metrics"])
        self._read_metrics(f["metrics"])
        self._graph = self._read_graph(f["config"])
        self.timing = {name: np.asarray(data) for name, data in f["timing"].items()} if "timing" in f else {}
        self._read_models_kind(f)

    # ---- reading ----------------------------------------------------------------------------

    def _read_models_kind(self, f):
        """/models: kernel expansions (concatenated by agent id, or the older agent_NNNN
        groups) or random features (kind attribute)."""
        models = f["models"] if "models" in f else None
        kind = _text(models.attrs["kind"]) if models is not None and "kind" in models.attrs else None
        if kind not in (None, RFF_MODELS, KERNEL_MODELS):
            raise RunFileError(f"run file '{self.path}': /models is of kind '{kind}', which this "
                               f"package does not know ({KERNEL_MODELS}, {RFF_MODELS}, or none: "
                               "kernel expansions by agent)")
        self._rff, self._packed = kind == RFF_MODELS, kind == KERNEL_MODELS
        if models is None:
            self._model_names = []
        elif self._rff:
            self._model_names = [f"agent_{a:04d}" for a in range(models["theta"].shape[0])]
        elif self._packed:
            self._model_names = [f"agent_{a:04d}" for a in range(models["order"].shape[0])]
        else:
            self._model_names = sorted(models)

    def _check_version(self):
        mine, theirs = _version(__version__), _version(self.facts.get("polka_version"))
        if theirs is None:
            raise RunFileError(f"'{self.path}' is not a polka run file (/config has no polka_version)")
        if theirs > mine:
            warnings.warn(f"'{self.path}' was written by polka {self.facts['polka_version']}, newer "
                          f"than this package ({__version__}): what it added is read as it is",
                          RunFileVersionWarning, stacklevel=5)

    def _read_agents(self, metrics):
        agents = _typed(metrics.attrs["agents"])
        if not isinstance(agents, int) or not 1 <= agents <= MAX_AGENTS:
            raise RunFileError(f"run file '{self.path}': /metrics attribute 'agents' is {agents!r}")
        return agents

    def _read_logged(self, metrics):
        """The agents with metric columns: all, or 0, S, 2S, ... (attribute agent_stride S,
        run.log_agents)."""
        stride = _typed(metrics.attrs.get("agent_stride", 1))
        if not isinstance(stride, int) or not 1 <= stride <= MAX_AGENTS:
            raise RunFileError(f"run file '{self.path}': /metrics attribute 'agent_stride' is {stride!r}")
        return np.arange(0, self.agents, stride)

    def _dataset(self, metrics, name, shape_tail):
        """A whole /metrics dataset (one h5py read), checked to be rows × shape_tail."""
        if name not in metrics:
            raise RunFileError(f"run file '{self.path}' has no metric '{name}': written by a polka "
                               f"this package cannot read (polka_version {self.facts['polka_version']})")
        data = metrics[name]
        if not isinstance(data, h5py.Dataset) or data.shape[1:] != shape_tail:
            raise RunFileError(f"run file '{self.path}': metric '{name}' has shape "
                               f"{getattr(data, 'shape', None)}, not rows × {shape_tail or 1}")
        return _whole(data, f"run file '{self.path}': metric '{name}'")

    def _read_metrics(self, metrics):
        names = [n for n in metrics if n not in ("round", "samples")]
        for name in REQUIRED_METRICS:
            if name not in names:
                self._dataset(metrics, name, (len(self.logged_agents),))  # refuses with the message
        missing = [n for n in CURRENT_METRICS if n not in names]
        if missing:
            warnings.warn(f"'{self.path}' was written by a polka without the metrics "
                          f"{', '.join(missing)} (polka_version {self.facts['polka_version']}): "
                          "they are left out", RunFileVersionWarning, stacklevel=5)
        rounds = self._dataset(metrics, "round", ())
        samples = self._dataset(metrics, "samples", ())
        values = {n: self._dataset(metrics, n, (len(self.logged_agents),)) for n in names}
        # a run killed while it logged may leave a last row extended but not written (NaN)
        rows = int(np.isfinite(rounds).cumprod().sum())
        self.rows = min([rows, len(samples)] + [len(v) for v in values.values()])
        self.rounds = rounds[:self.rows].astype(np.int64)
        self.samples = samples[:self.rows].astype(np.int64)
        self._values = {n: v[:self.rows] for n, v in values.items()}
        self.descriptions = {n: _text(metrics[n].attrs.get("description", "")) for n in names}

    def _read_graph(self, config):
        """(nodes, edges E × 2, weights E) of /config/graph, or None (a centralized run)."""
        if "graph" not in config:
            return None
        group = config["graph"]
        edges = np.asarray(group["edges"], dtype=np.int64).reshape(-1, 2)
        nodes, weights = _typed(group.attrs["nodes"]), np.asarray(group["weights"], dtype=float)
        where = f"run file '{self.path}': /config/graph"
        if nodes != self.agents:
            raise RunFileError(f"{where} has {nodes} nodes but the run {self.agents} agents")
        outside = (edges < 0) | (edges >= nodes)
        if outside.any():
            row = int(np.argwhere(outside)[0][0])
            raise RunFileError(f"{where}: edge {row} ({edges[row, 0]}, {edges[row, 1]}) names a node "
                               f"outside 0 .. {nodes - 1}")
        loops = np.flatnonzero(edges[:, 0] == edges[:, 1])
        if loops.size:
            raise RunFileError(f"{where}: edge {loops[0]} joins node {edges[loops[0], 0]} to itself")
        if weights.shape != (len(edges),) or not np.all(np.isfinite(weights)):
            raise RunFileError(f"{where}: {weights.shape} weights for {len(edges)} edges, or weights "
                               "that are not finite")
        return nodes, edges, weights

    # ---- what a run is ----------------------------------------------------------------------

    @property
    def mode(self):
        """'decentralized' or 'centralized'."""
        return self.facts.get("mode", self.settings.get("run.mode", "decentralized"))

    @property
    def loss(self):
        return self.settings.get("learner.loss", "multi-hinge")

    @property
    def classification(self):
        return self.loss in CLASSIFICATION_LOSSES

    @property
    def score_name(self):
        """What test_score holds: 'accuracy', 'mse' or 'flagged' (as `polka report` says)."""
        return "accuracy" if self.classification else "flagged" if self.loss == "novelty" else "mse"

    @property
    def topology(self):
        """The graph's name: its file's stem (er_16_p0.2) or the generator (er); 'centralized'."""
        if self.mode == "centralized":
            return "centralized"
        return os.path.splitext(os.path.basename(str(self.settings.get("net.graph", "?"))))[0]

    @property
    def batch(self):
        """A batch learner (slkl, krr): its rows are updates over the whole training set."""
        return self.settings.get("learner.control") in ("slkl", "krr")

    # ---- metrics ----------------------------------------------------------------------------

    def values(self, name):
        """A per-agent metric as a rows × agents numpy array (the columns: logged_agents)."""
        if name not in self._values:
            raise KeyError(f"'{self.path}' has no metric '{name}' (it has {', '.join(self._values)})")
        return self._values[name]

    @property
    def metric_names(self):
        return list(self._values)

    @property
    def metrics(self):
        """The metrics as an xarray Dataset over round × agent (coordinate samples per round)."""
        if "metrics" not in self._cache:
            import xarray as xr
            data = {n: (("round", "agent"), v, {"description": self.descriptions.get(n, "")})
                    for n, v in self._values.items()}
            coords = {"round": self.rounds, "agent": self.logged_agents, "samples": ("round", self.samples)}
            attrs = {"path": self.path, "mode": self.mode, "score": self.score_name}
            self._cache["metrics"] = xr.Dataset(data, coords=coords, attrs=attrs)
        return self._cache["metrics"]

    @property
    def table(self):
        """The metrics as a tidy pandas DataFrame: one row per log row and agent, columns
        round, samples, agent and one per metric."""
        if "table" not in self._cache:
            import pandas as pd
            logged = len(self.logged_agents)
            columns = {"round": np.repeat(self.rounds, logged),
                       "samples": np.repeat(self.samples, logged),
                       "agent": np.tile(self.logged_agents, self.rows)}
            columns.update({n: v.reshape(-1) for n, v in self._values.items()})
            self._cache["table"] = pd.DataFrame(columns)
        return self._cache["table"]

    @property
    def summary(self):
        """The last log row as `polka report` summarises it (a dict; NaN where the file has no
        such metric or no rows)."""
        last = {n: v[-1] if self.rows else np.array([]) for n, v in self._values.items()}
        round_ = int(self.rounds[-1]) if self.rows else math.nan
        samples = int(self.samples[-1]) if self.rows else math.nan

        def stat(name, how):
            finite = last.get(name, np.array([]))
            finite = finite[np.isfinite(finite)]
            return float(how(finite)) if finite.size else math.nan

        def per_round(total):
            return total / round_ if round_ > 0 else math.nan

        slowest = stat("wall_time", np.max)
        return {"mode": self.mode, "topology": self.topology, "agents": self.agents,
                "rows": self.rows, "rounds": round_, "samples": samples, "score": self.score_name,
                "score_mean": stat("test_score", np.mean), "score_min": stat("test_score", np.min),
                "score_max": stat("test_score", np.max),
                "disagreement": stat("disagreement", np.mean),
                "order": stat("model_order", np.mean), "max_order": stat("model_order", np.max),
                "samples_per_s": samples / slowest if slowest > 0 else math.nan,
                "bytes_per_round": per_round(stat("bytes_sent", np.sum)),
                "lost_per_round": per_round(stat("messages_lost", np.sum)),
                "offline": per_round(stat("rounds_offline", np.mean)),
                "value_age": stat("value_age", np.mean),
                "samples_out": stat("samples_out", np.mean),
                "receivers": stat("receivers", np.mean),
                "epsilon": self._epsilon(stat("samples_out", np.max),
                                         stat("privacy_epsilon", np.max))}

    def _epsilon(self, samples_out, epsilon):
        """As `polka report`: the largest composed epsilon of the agents; inf when own points
        left without privacy.clip, NaN when none left."""
        if not samples_out > 0:
            return math.nan
        return epsilon if self.settings.get("privacy.clip", 0) > 0 else math.inf

    # ---- graph and models -------------------------------------------------------------------

    @property
    def graph(self):
        """The run's graph (/config/graph; under net.resample_every its first epoch) as a
        networkx Graph: nodes 0..N−1, edges with their 'weight' (net.weights)."""
        if self._graph is None:
            raise RunFileError(f"'{self.path}' is a {self.mode} run without a graph (/config/graph)")
        import networkx as nx
        nodes, edges, weights = self._graph
        graph = nx.Graph()
        graph.add_nodes_from(range(nodes))
        graph.add_weighted_edges_from(zip(edges[:, 0].tolist(), edges[:, 1].tolist(), weights.tolist()))
        return graph

    @property
    def models(self):
        """Agent → Model, read from the file when an agent's model is asked for."""
        return _Models(self)

    def model(self, agent=0):
        """Agent agent's final model (its rows of /models, or /models/agent_NNNN)."""
        agent = self._agent_index(agent)
        name = f"agent_{agent:04d}"
        if name not in self._model_names:
            raise RunFileError(f"run file '{self.path}' has no model for agent {agent} "
                               f"({len(self._model_names)} models: a run killed before its end has none)")
        if self._rff:
            return self._rff_model(agent)
        if self._packed:
            return self._packed_model(agent)
        with _open_hdf5(self.path) as f:
            try:
                group = f["models"][name]
                attrs = {k: _typed(v) for k, v in group.attrs.items()}
                where = f"run file '{self.path}': /models/{name}"
                dictionary = _whole(group["dictionary"], f"{where}/dictionary")
                weights = _whole(group["weights"], f"{where}/weights")
            except DAMAGED as error:
                raise RunFileError(f"run file '{self.path}': /models/{name} is damaged: {error}") from None
        self._check_model(name, attrs, dictionary, weights)
        return Model(agent, attrs, dictionary, weights, self.settings)

    def _agent_index(self, agent):
        """agent as an int (a Python or numpy integer; not a string, a float or a bool)."""
        if isinstance(agent, (bool, np.bool_)) or not isinstance(agent, (int, np.integer)):
            raise PolkaError(f"an agent is an integer 0 .. {len(self._model_names) - 1}, not "
                             f"{agent!r} ({type(agent).__name__})")
        return int(agent)

    def _packed_model(self, agent):
        """Agent agent's rows of the concatenated /models/dictionary and /models/weights."""
        name = f"agent_{agent:04d}"
        with _open_hdf5(self.path) as f:
            try:
                models = f["models"]
                attrs = {k: _typed(v) for k, v in models.attrs.items()}
                order, offset = int(models["order"][agent]), int(models["offset"][agent])
                parts = []
                for part in ("dictionary", "weights"):
                    dataset = models[part]
                    _refuse_inflated(dataset, f"run file '{self.path}': /models/{part}")
                    if dataset.ndim != 2 or offset + order > dataset.shape[0]:
                        raise RunFileError(f"run file '{self.path}': /models/{part} {dataset.shape} "
                                           f"has no rows {offset} .. {offset + order} for agent {agent}")
                    parts.append((dataset.shape[0], np.asarray(dataset[offset:offset + order], dtype=float)))
                margins = self._margins(models, agent)
            except DAMAGED as error:
                raise RunFileError(f"run file '{self.path}': /models is damaged: {error}") from None
        (rows, dictionary), (weight_rows, weights) = parts
        if rows != weight_rows:
            raise RunFileError(f"run file '{self.path}': /models has {rows} dictionary rows but "
                               f"{weight_rows} weight rows")
        self._check_model(name, attrs, dictionary, weights)
        return Model(agent, attrs, dictionary, weights, self.settings, margins)

    def _margins(self, models, agent):
        """(rho, tube) of the agent as its run ended (/models/rho and /models/tube, which
        learner.nu > 0 adapts per agent), or None in a file without them (the settings hold)."""
        if "rho" not in models and "tube" not in models:
            return None
        values = []
        for key in ("rho", "tube"):
            dataset = models[key]  # one without the other: KeyError, the file is damaged
            if dataset.ndim != 1 or dataset.shape[0] != len(self._model_names):
                raise RunFileError(f"run file '{self.path}': /models/{key} {dataset.shape} does not "
                                   f"hold one value per agent ({len(self._model_names)})")
            values.append(float(dataset[agent]))
            if not math.isfinite(values[-1]):
                raise RunFileError(f"run file '{self.path}': the model is corrupt: /models/{key}[{agent}] "
                                   f"= {values[-1]} is not finite")
        return tuple(values)

    def _rff_model(self, agent):
        """Agent agent's random-feature model: the shared features and its slab of /models/theta."""
        where = f"run file '{self.path}': /models"
        with _open_hdf5(self.path) as f:
            try:
                models = f["models"]
                attrs = {k: _typed(v) for k, v in models.attrs.items()}
                omega = _whole(models["omega"], f"{where}/omega")
                phase = _whole(models["phase"], f"{where}/phase")
                theta = models["theta"]
                _refuse_inflated(theta, f"{where}/theta")
                shape = theta.shape
                mine = np.asarray(theta[agent], dtype=float)
            except DAMAGED as error:
                raise RunFileError(f"{where} is damaged: {error}") from None
        self._check_rff(attrs, omega, phase, shape, mine)
        return RandomFeatureModel(agent, attrs, omega, phase, mine, self.settings)

    def _check_rff(self, attrs, omega, phase, theta_shape, theta):
        where = f"run file '{self.path}': /models"
        missing = [k for k in ("features", "dim", "outputs", "sigma", "seed") if k not in attrs]
        if missing:
            raise RunFileError(f"{where} has no attribute {', '.join(missing)}")
        d, p, c = attrs["features"], attrs["dim"], attrs["outputs"]
        if (omega.shape != (d, p) or phase.shape != (d,) or len(theta_shape) != 3
                or theta_shape[1:] != (d, c)):
            raise RunFileError(f"{where}: omega {omega.shape}, phase {phase.shape} and theta "
                               f"{theta_shape} do not fit {d} features in {p} dimensions, {c} outputs")
        if not attrs["sigma"] > 0:
            raise RunFileError(f"{where}: sigma {attrs['sigma']} is not > 0")
        if not all(np.all(np.isfinite(a)) for a in (omega, phase, theta)):
            raise RunFileError(f"{where}: the model is corrupt (values that are not finite)")

    def _check_model(self, name, attrs, dictionary, weights):
        where = f"run file '{self.path}': /models/{name}"
        missing = [k for k in ("kernel", "sigma", "degree", "coef0") if k not in attrs]
        if missing:
            raise RunFileError(f"{where} has no attribute {', '.join(missing)}")
        sigma = attrs["sigma"]
        if attrs["kernel"] != "linear" and not (isinstance(sigma, (int, float, np.number)) and
                                                math.isfinite(sigma) and sigma > 0):
            raise RunFileError(f"{where}: sigma {attrs['sigma']!r} is not a kernel bandwidth (> 0)")
        if attrs["kernel"] == "polynomial" and not 1 <= attrs["degree"] <= MAX_DEGREE:
            raise RunFileError(f"{where}: degree {attrs['degree']} is outside [1, {MAX_DEGREE}]")
        if dictionary.ndim != 2 or weights.ndim != 2 or len(dictionary) != len(weights):
            raise RunFileError(f"{where}: dictionary {dictionary.shape} and weights {weights.shape} "
                               "do not make a model")
        if not (np.all(np.isfinite(dictionary)) and np.all(np.isfinite(weights))):
            raise RunFileError(f"{where}: the model is corrupt (values that are not finite)")

    # ---- labels for tables and plots --------------------------------------------------------

    def label(self):
        """'er_16_p0.2, c=1.0, paper', or 'centralized POLK'."""
        if self.mode == "centralized":
            control = self.settings.get("learner.control", "komp")
            return "centralized " + ("POLK" if control == "komp" else control)
        s = self.settings
        return f"{self.topology}, c={s.get('net.c', '?')}, {s.get('net.penalty', 'paper')}"

    def split(self):
        """The data split as a paper states it: 'dirichlet α=0.1', 'shards k=2', ... (+ skew, drift)."""
        s = self.settings
        split = s.get("data.split", "iid")
        text = {"dirichlet": f"dirichlet α={s.get('data.alpha', '?')}",
                "shards": f"shards k={s.get('data.shards', '?')}",
                "skewed": f"skewed {s.get('data.skew_classes', '?')} classes, {s.get('data.skew_fraction', '?')}",
                }.get(split, split)
        if s.get("data.quantity_sigma", 0) > 0:
            text += f", quantity σ={s['data.quantity_sigma']}"
        if s.get("data.drift", 0) > 0:
            text += f", drift {s['data.drift']} rad/sample"
        return text

    def __repr__(self):
        return (f"<polka.Run '{self.path}': {self.mode}, {self.agents} agent(s), {self.rows} rows, "
                f"{self.score_name} {self.summary['score_mean']:.4g}>")


class _Models(Mapping):
    """A run's models by agent, each read when it is asked for."""

    def __init__(self, run):
        self._run = run

    def __getitem__(self, agent):
        return self._run.model(agent)

    def __iter__(self):
        return (int(name.split("_")[1]) for name in self._run._model_names)

    def __len__(self):
        return len(self._run._model_names)
