"""Test-session setup: every compiled kernel is compiled, or loaded from Numba's cache,
once before the first test (``solver.analysis.warmup``), outside any test's time limit."""

from __future__ import annotations


def pytest_sessionstart(session) -> None:
    from solver.analysis.warmup import warm

    warm()
