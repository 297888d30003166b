"""Running polka from Python: `polka run` under mpirun (or srun inside a Slurm allocation),
its error as a Python exception, its run file opened."""
import os
import shutil
import subprocess
import sys
import tempfile
import threading

from .errors import PolkaError, RunFailed
from .runfile import Run


def find_polka(polka=None):
    """The polka binary: polka, else $POLKA, else the one this package was built or installed
    with (recorded in _where.py), else polka on PATH."""
    if polka:
        return os.fspath(polka)
    if os.environ.get("POLKA"):
        return os.environ["POLKA"]
    try:
        from ._where import POLKA  # written by the build (absolute) or the install (relative)
        recorded = os.path.normpath(os.path.join(os.path.dirname(__file__), POLKA))
        if os.access(recorded, os.X_OK):
            return recorded
    except ImportError:  # the source tree's copy: nothing recorded
        pass
    found = shutil.which("polka")
    if found is None:
        raise PolkaError("polka not found: build it (tools/build.sh) and use the build's "
                         "python/ folder, install it, put it on PATH, set POLKA or pass polka=")
    return found


def _cores():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def _srun_has_pmix():
    try:
        listed = subprocess.run(["srun", "--mpi=list"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return any(line.strip() == "pmix" for line in (listed.stdout + listed.stderr).splitlines())


def launcher_for(ranks):
    """The command that starts ranks MPI processes (slurm/launcher.sh's choice inside a Slurm
    allocation: srun --mpi=pmix where Slurm has PMIx, else mpirun; outside, mpirun, with
    --oversubscribe beyond this machine's cores; one rank outside Slurm: polka alone)."""
    if os.environ.get("SLURM_JOB_ID"):
        if shutil.which("srun") and _srun_has_pmix():
            return ["srun", "--mpi=pmix", "-n", str(ranks)]
        return ["mpirun", "-n", str(ranks)]
    if ranks == 1:
        return []
    oversubscribe = ["--oversubscribe"] if ranks > _cores() else []
    return ["mpirun", *oversubscribe, "-n", str(ranks)]


def _setting_text(value):
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):
        return repr(value)  # the shortest text that reads back as the same double
    return os.fspath(value) if isinstance(value, os.PathLike) else str(value)


def command(settings, ranks=1, agents=None, config=None, polka=None, launcher=None, quiet=True):
    """The argument list of the run (see run)."""
    if not isinstance(ranks, int) or ranks < 1:
        raise PolkaError(f"ranks must be a positive integer, not {ranks!r}")
    settings = dict(settings)
    if agents is not None:
        settings["net.agents"] = agents
    args = list(launcher) if launcher is not None else launcher_for(ranks)
    args += [find_polka(polka), "run"]
    if config is not None:
        args += ["--config", os.fspath(config)]
    for key, value in settings.items():
        args += ["--set", f"{key}={_setting_text(value)}"]
    args += ["--quiet"] if quiet else ["--progress=plain"]
    return args


def _failure_message(stderr, returncode, program):
    """polka's own message (the first line it wrote: every rank writes the same one), else the
    launcher's first line."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip().strip("-")]
    ours = [line for line in lines if line.startswith("polka")]
    if ours:
        return ours[0]
    if not lines:
        return f"{program} ended with exit status {returncode} and no message"
    message = f"{program} failed (exit status {returncode}): {lines[0]}"
    if "as root" in lines[0]:
        message += " (set OMPI_ALLOW_RUN_AS_ROOT=1 and OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1)"
    return message


def _stream(process, echo):
    """Reads the process's stdout and stderr to their end (stdout echoed when asked)."""
    errors = []
    reader = threading.Thread(target=lambda: errors.append(process.stderr.read()))
    reader.start()
    out = []
    for line in process.stdout:
        out.append(line)
        if echo:
            sys.stdout.write(line)
            sys.stdout.flush()
    reader.join()
    process.wait()
    return "".join(out), "".join(errors)


def run(settings=None, ranks=1, agents=None, config=None, output=None, polka=None,
        launcher=None, echo=False):
    """Runs `polka run` and returns its run file, opened (a Run).

    settings: {'section.key': value} (as --set; defaults < config < settings); ranks: MPI
    processes; agents: net.agents; config: an INI file; output: the run file (default:
    settings' run.output, else a new file in a temporary folder); polka: the binary (default:
    find_polka()); launcher: the command before it, e.g. ['mpirun', '-n', '4'] (default:
    launcher_for(ranks)); echo: print polka's output as it comes (else --quiet).
    As root, Open MPI's mpirun needs OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    in the environment. A failed run raises RunFailed with polka's message; a finished one
    keeps what polka printed in the Run's attribute log."""
    settings = dict(settings or {})
    if output is not None:
        settings["run.output"] = os.fspath(output)
    if not settings.get("run.output"):
        folder = tempfile.mkdtemp(prefix="polka-run-")
        settings["run.output"] = os.path.join(folder, "run.h5")
    args = command(settings, ranks, agents, config, polka, launcher, quiet=not echo)
    try:
        process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    except OSError as error:
        raise PolkaError(f"cannot start {args[0]}: {error.strerror}") from None
    stdout, stderr = _stream(process, echo)
    if process.returncode != 0:
        raise RunFailed(_failure_message(stderr, process.returncode, args[0]), args, process.returncode,
                        stdout, stderr)
    result = Run(settings["run.output"])
    result.log = stdout
    return result
