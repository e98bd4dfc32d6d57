"""Test-session setup: the compiled steppers (``solver.compiled``) are compiled, or loaded
from Numba's cache, once before the tests, and every run that can use them does
(``BIELA_COMPILED=1``; the tests that compare with the NumPy path set it per test)."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("BIELA_COMPILED", "1")


@pytest.fixture(scope="session", autouse=True)
def _compiled_steppers_ready():
    from solver.compiled.warm import is_warm, warm

    if not is_warm():
        warm()
    yield
