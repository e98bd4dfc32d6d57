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
