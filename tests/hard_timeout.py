"""A hard time limit for each test, behind pytest-timeout's.

pytest-timeout's ``signal`` method (the default on Linux) fails a test that runs too long
from a SIGALRM handler, but Python runs that handler only when the main thread runs Python
code: a main thread blocked in C (Qt joining a thread, a wait for a lock or for the
interpreter lock) never sees it, and the session hangs for ever. Here faulthandler's
watchdog thread, which needs no Python code to run, writes the Python stack of every
thread to stderr and ends the whole session (exit code 1) ``MARGIN`` s after the test's
pytest-timeout limit. Registered by ``tests/conftest.py``.
"""

from __future__ import annotations

import faulthandler
import os
from typing import IO

import pytest

#: Seconds after a test's pytest-timeout limit at which the session is ended.
MARGIN = float(os.environ.get("BIELA_TEST_HARD_MARGIN", "60"))

_stderr: IO[str] | None = None


def pytest_configure(config: pytest.Config) -> None:
    """Keep a copy of the real stderr: during a test, output capture replaces it."""
    global _stderr
    if _stderr is None:
        _stderr = os.fdopen(os.dup(2), "w")


def limit(item: pytest.Item) -> float:
    """The test's pytest-timeout limit in s (its marker, ``--timeout``, the ini file or
    ``PYTEST_TIMEOUT``); 0: none."""
    marker = item.get_closest_marker("timeout")
    if marker is not None:
        value = marker.args[0] if marker.args else marker.kwargs.get("timeout")
        if value is not None:
            return float(value)
    try:
        ini = item.config.getini("timeout")
    except ValueError:  # pytest-timeout is not installed
        ini = None
    for value in (item.config.getoption("timeout", None), ini, os.environ.get("PYTEST_TIMEOUT")):
        if value not in (None, ""):
            return float(value)
    return 0.0


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):
    seconds = limit(item)
    if seconds > 0 and _stderr is not None:
        faulthandler.dump_traceback_later(seconds + MARGIN, exit=True, file=_stderr)
    try:
        return (yield)
    finally:
        if seconds > 0:
            faulthandler.cancel_dump_traceback_later()
