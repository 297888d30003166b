"""polka.run: the build's polka under mpirun, its run file opened, its errors as RunFailed
with polka's own message; the launcher it picks inside and outside a Slurm allocation."""
import os
import stat

import pytest

import polka
from conftest import POLKA, SMALL, polka_cli, set_options


def test_run_returns_the_opened_run(runs):
    run = polka.run({**SMALL, "net.graph": "ring", "net.c": 0.25}, ranks=2, agents=4, output=runs / "driven.h5")
    assert isinstance(run, polka.Run) and run.path == str(runs / "driven.h5")
    assert run.agents == 4 and run.facts["mpi_size"] == 2 and run.settings["net.c"] == 0.25
    assert run.rows == 8 and "summary:" in run.log


def test_run_without_output_writes_a_temporary_file():
    run = polka.run({**SMALL, "run.mode": "centralized"}, config=None)
    assert os.path.basename(os.path.dirname(run.path)).startswith("polka-run-") and run.agents == 1
    os.remove(run.path)
    os.rmdir(os.path.dirname(run.path))


def test_echo_prints_polkas_output(runs, capsys):
    run = polka.run({**SMALL, "run.mode": "centralized"}, output=runs / "echoed.h5", echo=True)
    printed = capsys.readouterr().out
    assert "summary: mode centralized, agents 1" in printed and printed == run.log


@pytest.mark.parametrize("settings, ranks", [({"learner.eta": -1}, 2), ({"learner.bogus": 1}, 1),
                                             ({"net.graph": "/no/such/graph.txt"}, 1)])
def test_failed_run_raises_polkas_message(settings, ranks, runs):
    expected = polka_cli("run", *set_options({**SMALL, **settings, "run.output": runs / "failed.h5"}),
                         check=False).stderr.splitlines()[0]
    assert expected.startswith("polka run: ")
    with pytest.raises(polka.RunFailed) as failed:
        polka.run({**SMALL, **settings}, ranks=ranks, output=runs / "failed.h5")
    assert str(failed.value) == expected and failed.value.returncode != 0


def test_missing_config_file_raises_polkas_message(runs):
    with pytest.raises(polka.RunFailed, match="^polka run: .*no/such.ini"):
        polka.run(SMALL, config="no/such.ini", output=runs / "failed.h5")


def test_polka_is_the_builds_unless_told():
    assert polka.find_polka() == POLKA
    assert polka.find_polka("/opt/other/polka") == "/opt/other/polka"


def test_polka_from_the_environment(monkeypatch):
    monkeypatch.setenv("POLKA", "/opt/env/polka")
    assert polka.find_polka() == "/opt/env/polka"


def fake_srun(folder, lists):
    """An srun on PATH whose --mpi=list prints lists."""
    path = folder / "srun"
    path.write_text(f"#!/bin/sh\nprintf 'MPI plugin types are...\\n{lists}\\n'\n")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)


def test_launcher_outside_slurm(monkeypatch):
    monkeypatch.delenv("SLURM_JOB_ID", raising=False)
    monkeypatch.setattr(polka.driver, "_cores", lambda: 2)
    assert polka.driver.launcher_for(1) == []
    assert polka.driver.launcher_for(2) == ["mpirun", "-n", "2"]
    assert polka.driver.launcher_for(3) == ["mpirun", "--oversubscribe", "-n", "3"]


@pytest.mark.parametrize("lists, launcher", [("\tnone\n\tpmix", ["srun", "--mpi=pmix", "-n", "4"]),
                                             ("\tnone\n\tpmi2", ["mpirun", "-n", "4"])])
def test_launcher_inside_slurm(monkeypatch, tmp_path, lists, launcher):
    fake_srun(tmp_path, lists)
    monkeypatch.setenv("PATH", f"{tmp_path}:{os.environ['PATH']}")
    monkeypatch.setenv("SLURM_JOB_ID", "42")
    assert polka.driver.launcher_for(4) == launcher


def test_command_passes_settings_as_set(monkeypatch):
    args = polka.driver.command({"learner.eta": 0.1, "run.log_test": True}, ranks=1, agents=8,
                                config="c.ini", polka="/bin/polka", launcher=["srun", "-n", "1"])
    assert args == ["srun", "-n", "1", "/bin/polka", "run", "--config", "c.ini", "--set", "learner.eta=0.1",
                    "--set", "run.log_test=1", "--set", "net.agents=8", "--quiet"]
