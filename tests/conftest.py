"""Test-session setup: every compiled kernel is compiled, or loaded from Numba's cache,
once before the tests (``solver.analysis.warmup``), so that no test's time limit counts a
compilation."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session", autouse=True)
def _compiled_kernels_ready():
    from solver.analysis.warmup import warm

    warm()
    yield
