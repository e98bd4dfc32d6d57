"""The first run on a cold cache of compiled code (after an install or an update) compiles
the solver's kernels before it starts and says so, on the command line and in the
workbench's solver process; a warm cache says nothing."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

import solver
import solver.analysis.warmup as warmup
from app import solver_process
from solver import cli

PENDULUM = Path(__file__).resolve().parents[2] / "examples" / "pendulum.json"


@pytest.fixture
def cold(monkeypatch):
    """A cold cache: ``warm`` records its calls and reports one stage."""
    calls = []

    def warm(progress=None, force=False):
        calls.append(progress)
        if progress is not None:
            progress("compiling the solver: time steps (0 s)")
        return 12.0

    monkeypatch.setattr(warmup, "is_compiled", lambda: bool(calls))
    monkeypatch.setattr(warmup, "warm", warm)
    return calls


def test_cli_run_compiles_first_and_says_so(cold, capsys, tmp_path):
    csv = tmp_path / "out.csv"
    assert cli.main(["run", str(PENDULUM), "--t-end", "0.01", "--csv", str(csv)]) == 0
    err = capsys.readouterr().err
    assert len(cold) == 1
    assert "compiling the solver's code once" in err
    assert "biela: compiling the solver: time steps" in err
    assert "compiled in 12 s" in err
    assert csv.exists()


def test_cli_check_quiet_says_only_that_it_compiles(cold, capsys):
    assert cli.main(["check", "-q", str(PENDULUM)]) == 0
    err = capsys.readouterr().err
    assert len(cold) == 1 and cold[0] is None  # no progress lines
    assert "compiling the solver's code once" in err and "time steps" not in err


def test_a_warm_cache_says_nothing(monkeypatch, capsys):
    monkeypatch.setattr(warmup, "is_compiled", lambda: True)
    monkeypatch.setattr(warmup, "warm", lambda *a, **k: pytest.fail("compiled again"))
    assert cli.main(["check", "-q", str(PENDULUM)]) == 0
    assert capsys.readouterr().err == ""


class _Pipe:
    def __init__(self) -> None:
        self.messages = []

    def send(self, message) -> None:
        self.messages.append(message)

    def close(self) -> None:
        pass


def test_the_workbench_process_sends_status_lines_before_the_run(cold, monkeypatch):
    monkeypatch.setattr(solver, "is_compiled", warmup.is_compiled)
    monkeypatch.setattr(solver, "compile_solver", warmup.compile_solver)
    conn, resume, stop = _Pipe(), threading.Event(), threading.Event()
    resume.set()
    solver_process.solve(str(PENDULUM), {"t_end": 0.01}, conn, resume, stop)
    kinds = [m[0] for m in conn.messages]
    assert kinds[:3] == ["status", "status", "status"] and kinds[3] == "columns"
    assert "compiling the solver's code once" in conn.messages[0][1]
    assert "solver compiled in 12 s" in conn.messages[2][1]
    assert kinds[-1] == "done" and conn.messages[-1][1] == "ok"
