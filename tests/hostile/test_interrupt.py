"""Ctrl-C during ``biela run``, compiled or not: exit 130, one line saying when, and the CSV
rows and summary of what was computed (a real child process and a real SIGINT)."""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PENDULUM = ROOT / "examples" / "pendulum.json"
LONG = ("--t-end", "1000", "--output-dt", "0.001")  # 10⁶ steps: minutes, never finished here


def _start(tmp: Path, compiled: str) -> tuple[subprocess.Popen, Path, Path]:
    out, summary = tmp / "out.csv", tmp / "out.json"
    env = dict(os.environ)
    env.pop("BIELA_DEBUG", None)
    cmd = [sys.executable, "-m", "app", "run", str(PENDULUM), *LONG]
    cmd += ["--csv", str(out), "--summary", str(summary)]
    if compiled == "0":  # a formulation stepped from Python (through the system's kernels)
        cmd += ["--formulation", "null_space"]
    child = subprocess.Popen(
        cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    return child, out, summary


def _rows(path: Path) -> int:
    try:
        with open(path, "rb") as fh:
            return max(0, fh.read().count(b"\n") - 1)
    except FileNotFoundError:
        return -1


def _wait_for_rows(child, path: Path, rows: int, timeout: float = 240.0) -> None:
    deadline = time.monotonic() + timeout
    while _rows(path) < rows:
        assert child.poll() is None, child.communicate()
        assert time.monotonic() < deadline, f"no {rows} rows within {timeout} s"
        time.sleep(0.05)


def _finish(child, timeout: float = 60.0) -> tuple[int, str]:
    try:
        _, err = child.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        child.kill()
        child.communicate()
        pytest.fail(f"still running {timeout} s after Ctrl-C")
    return child.returncode, err


def _assert_kept(out: Path, summary_path: Path, err: str) -> int:
    """The CSV rows and the summary of an interrupted run agree; returns the row count."""
    assert "Traceback" not in err and "internal error" not in err, err
    with open(out, newline="") as fh:
        rows = list(csv.reader(fh))
    assert rows[0][:2] == ["t", "bob.x"]
    t = [float(r[0]) for r in rows[1:]]
    assert all(b > a for a, b in zip(t, t[1:], strict=False))
    summary = json.loads(summary_path.read_text())
    assert summary["status"] == "cancelled"
    assert summary["frames"] == len(t)
    if t:
        assert f"interrupted at t = {t[-1]:.6g} s; {len(t)} frames" in err, err
    return len(t)


@pytest.mark.parametrize("compiled", ["1", "0"], ids=["compiled", "python-loop"])
@pytest.mark.parametrize("after_rows", [1, 3000], ids=["at-once", "later"])
def test_ctrl_c_exits_130_and_keeps_what_was_computed(compiled, after_rows, tmp_path):
    child, out, summary = _start(tmp_path, compiled)
    _wait_for_rows(child, out, after_rows)
    child.send_signal(signal.SIGINT)
    code, err = _finish(child)
    assert code == 130, err
    assert _assert_kept(out, summary, err) >= after_rows


@pytest.mark.parametrize("compiled", ["1", "0"], ids=["compiled", "python-loop"])
def test_a_second_ctrl_c_stops_at_once(compiled, tmp_path):
    child, out, summary = _start(tmp_path, compiled)
    _wait_for_rows(child, out, 200)
    child.send_signal(signal.SIGINT)
    time.sleep(0.01)
    child.send_signal(signal.SIGINT)
    code, err = _finish(child)
    assert code == 130, err
    _assert_kept(out, summary, err)


def test_ctrl_c_while_starting_exits_130(tmp_path):
    """Before any step (the solver still being imported or the model read): 130 and no
    traceback; whatever output files exist are complete."""
    child, out, summary = _start(tmp_path, "1")
    time.sleep(1.0)
    child.send_signal(signal.SIGINT)
    code, err = _finish(child)
    assert code == 130, err
    assert "Traceback" not in err and "internal error" not in err, err
    if summary.exists() and summary.stat().st_size:
        _assert_kept(out, summary, err)
