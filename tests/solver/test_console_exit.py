"""The ``biela`` console script leaves without the interpreter's shutdown after ``run`` and
``check``: its exit code, its messages and the files it wrote are all there."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PENDULUM = ROOT / "examples" / "pendulum.json"


def _biela(*args: str) -> subprocess.CompletedProcess:
    code = f"import sys; sys.argv = ['biela', *{list(args)!r}]; from app.launcher import console; console()"
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=ROOT
    )


def test_run_writes_its_files_and_exit_code(tmp_path):
    out, summary = tmp_path / "out.csv", tmp_path / "summary.json"
    done = _biela("run", str(PENDULUM), "--t-end", "0.05", "--output-dt", "0.01",
                  "--csv", str(out), "--summary", str(summary))  # fmt: skip
    assert done.returncode == 0, done.stderr
    with out.open(newline="") as fh:
        rows = list(csv.reader(fh))
    assert rows[0][0] == "t" and len(rows) == 1 + 6
    assert float(rows[-1][0]) == pytest.approx(0.05)
    assert json.loads(summary.read_text())["status"] == "ok"
    assert "done: 50 steps, 6 frames" in done.stdout  # flushed before the quick exit


def test_errors_keep_their_code_and_message(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"biela": 1, "bodies": [{"name": "a", "mass": -1}]}')
    done = _biela("check", str(bad))
    assert done.returncode == 1
    assert "mass" in done.stderr
    done = _biela("run", str(tmp_path / "missing.json"))
    assert done.returncode == 1 and "missing.json" in done.stderr


def test_a_run_pauses_the_garbage_collector_only_while_it_starts(tmp_path, monkeypatch):
    """The collector is off while the run starts, on again (the start-up's objects frozen)
    once the first frame is out, and as it was when ``main`` returns."""
    import gc

    from solver import cli

    seen = []
    real = cli._StartUp.resume

    def resume(self):
        seen.append(("before", gc.isenabled(), gc.get_freeze_count()))
        real(self)
        seen.append(("after", gc.isenabled(), gc.get_freeze_count()))

    monkeypatch.setattr(cli._StartUp, "resume", resume)
    argv = ["run", str(PENDULUM), "--t-end", "0.05", "-q", "--csv", str(tmp_path / "o.csv")]
    assert gc.isenabled()
    assert cli.main(argv) == 0
    assert seen[0][:2] == ("before", False)
    assert seen[1][:2] == ("after", True) and seen[1][2] > 0
    assert gc.isenabled() and gc.get_freeze_count() == 0
    gc.disable()  # a caller's choice is kept
    try:
        assert cli.main(argv) == 0
        assert not gc.isenabled() and gc.get_freeze_count() == 0
    finally:
        gc.enable()


def test_the_garbage_collector_runs_while_the_kernels_compile(monkeypatch, tmp_path):
    """On a cold cache the collector is back on before the minutes of compiling."""
    import gc

    import solver.analysis.warmup as warmup
    from solver import cli

    states = []
    monkeypatch.setattr(warmup, "is_compiled", lambda parts=None: bool(states))
    monkeypatch.setattr(warmup, "warm", lambda *a, **k: states.append(gc.isenabled()) or 1.0)
    argv = ["run", str(PENDULUM), "--t-end", "0.01", "-q", "--csv", str(tmp_path / "o.csv")]
    assert cli.main(argv) == 0
    assert states == [True]
    assert gc.isenabled() and gc.get_freeze_count() == 0


def test_python_m_solver_cli_leaves_the_same_way(tmp_path):
    out, summary = tmp_path / "out.csv", tmp_path / "summary.json"
    argv = ["run", str(PENDULUM), "--t-end", "0.02", "--output-dt", "0.01"]
    argv += ["--csv", str(out), "--summary", str(summary)]
    done = subprocess.run(
        [sys.executable, "-m", "solver.cli", *argv],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    assert len(out.read_text().splitlines()) == 1 + 3
    assert json.loads(summary.read_text())["status"] == "ok"
    assert "done: 20 steps, 3 frames" in done.stdout
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    done = subprocess.run(
        [sys.executable, "-m", "solver.cli", "check", str(bad)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert done.returncode == 1 and "bad.json" in done.stderr
