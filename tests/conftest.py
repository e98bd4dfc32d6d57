"""Test-session setup: every compiled kernel is compiled, or loaded from Numba's cache,
once before the first test (``solver.analysis.warmup``), outside any test's time limit;
a hard time limit behind pytest-timeout's (``tests.hard_timeout``)."""

from __future__ import annotations

from tests.hard_timeout import pytest_configure, pytest_runtest_protocol  # noqa: F401 (hooks)


def pytest_sessionstart(session) -> None:
    from solver.analysis.warmup import warm

    warm()
