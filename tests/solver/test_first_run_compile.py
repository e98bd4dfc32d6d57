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

    def warm(progress=None, force=False, parts=None):
        calls.append((progress, parts))
        if progress is not None:
            progress("compiling the solver: time steps (0 s)")
        return 12.0

    monkeypatch.setattr(warmup, "is_compiled", lambda parts=None: bool(calls))
    monkeypatch.setattr(warmup, "warm", warm)
    return calls


def test_cli_run_compiles_first_and_says_so(cold, capsys, tmp_path):
    csv = tmp_path / "out.csv"
    assert cli.main(["run", str(PENDULUM), "--t-end", "0.01", "--csv", str(csv)]) == 0
    err = capsys.readouterr().err
    assert len(cold) == 1
    assert cold[0][1] == ("central_differences",)  # the pendulum's formulation
    assert "compiling the solver's code once" in err
    assert "biela: compiling the solver: time steps" in err
    assert "compiled in 12 s" in err
    assert csv.exists()


def test_cli_check_quiet_says_only_that_it_compiles(cold, capsys):
    assert cli.main(["check", "-q", str(PENDULUM)]) == 0
    err = capsys.readouterr().err
    assert len(cold) == 1 and cold[0][0] is None  # no progress lines
    assert "compiling the solver's code once" in err and "time steps" not in err


def test_a_run_compiles_the_parts_its_settings_need(cold, capsys):
    argv = ["run", str(PENDULUM), "--t-end", "0.01", "-q", "--formulation", "penalty"]
    assert cli.main(argv) == 0
    assert cold[0][1] == ("penalty",)


def test_the_parts_of_a_run():
    model = solver.load_model(PENDULUM)
    assert model.solver.formulation == "central_differences"
    assert warmup.compiled_parts(model) == ("central_differences",)
    assert warmup.compiled_parts(model, formulation="penalty") == ("penalty",)
    assert warmup.compiled_parts(model, formulation="lagrange_baumgarte") == ("lagrange_baumgarte",)
    assert warmup.compiled_parts(model, formulation="index3_newmark") == ("augmented_lagrangian",)
    assert warmup.compiled_parts(model, analysis="kinematic") == ("kinematic",)
    assert warmup.compiled_parts(model, analysis="static") == ("augmented_lagrangian",)
    groups = {"group_method": "structural_groups"}
    assert warmup.compiled_parts(
        model, formulation="null_space", coordinates="natural", parameters=groups
    ) == ("null_space", "natural", "structural_groups")
    assert set(warmup.PARTS) == {part for part, *_ in warmup.workloads()}


def test_warm_compiles_only_the_parts_asked_and_marks_them(monkeypatch):
    """With every part cold but one, ``warm(parts=...)`` runs that part's workloads only
    and marks it; the others stay cold."""
    from solver.kernels import cache

    marked = set()
    ran = []
    monkeypatch.setattr(cache, "is_warm", lambda part: part in marked)
    monkeypatch.setattr(cache, "mark_warm", lambda seconds, part: marked.add(part))
    import solver.analysis.simulate as sim

    real = sim.simulate
    monkeypatch.setattr(sim, "simulate", lambda model, **kw: ran.append(kw) or real(model, **kw))
    warmup.warm(parts=["structural_groups"])
    assert marked == {"structural_groups"} and len(ran) == 2
    assert all(kw["parameters"]["group_method"] == "structural_groups" for kw in ran)
    assert warmup.is_compiled(["structural_groups"]) and not warmup.is_compiled()
    assert warmup.compile_solver(parts=["structural_groups"]) == 0.0  # already warm


def test_a_warm_cache_says_nothing(monkeypatch, capsys):
    monkeypatch.setattr(warmup, "is_compiled", lambda parts=None: True)
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
