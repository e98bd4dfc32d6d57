"""The warm-up in two processes: the second compiles its parts meanwhile, its progress
reaches the caller, and its failure is an error, not a silent cold cache."""

from __future__ import annotations

import pytest

import solver.analysis.warmup as warmup
from solver.kernels import jit

pytestmark = pytest.mark.skipif(not jit.ENABLED, reason="plain Python compiles nothing")


def test_a_second_process_compiles_its_parts_and_reports_them():
    lines = []
    warmup.warm(lines.append, force=True, parts=["natural", "penalty"], jobs=2)
    assert any("natural coordinates" in line for line in lines)
    assert any("(penalty)" in line for line in lines)  # from the second process
    assert warmup.is_compiled(["natural", "penalty"])


def test_one_job_runs_everything_here(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("no second process with jobs=1")

    monkeypatch.setattr(warmup, "_SecondJob", refuse)
    lines = []
    warmup.warm(lines.append, force=True, parts=["natural", "penalty"], jobs=1)
    assert len(lines) == 2


def test_a_failing_second_process_is_an_error(monkeypatch):
    monkeypatch.setattr(warmup.sys, "executable", "/bin/false")
    with pytest.raises(RuntimeError, match=r"compiling penalty failed \(exit 1\)"):
        warmup.warm(None, force=True, parts=["natural", "penalty"], jobs=2)
