"""A test whose main thread blocks in C past its time limit ends the session with every
thread's stack on stderr (``tests.hard_timeout``), where pytest-timeout's SIGALRM
handler alone would never run and the session would hang."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: Qt joins a thread (pthread_join): the main thread stays in C until that thread ends
BLOCKED_IN_C = """
import time

from PySide6.QtCore import QCoreApplication, QThread


class Sleeper(QThread):
    def run(self):
        time.sleep(60)


def test_joins_a_thread_that_runs_a_minute():
    app = QCoreApplication.instance() or QCoreApplication([])
    thread = Sleeper()
    thread.start()
    thread.wait()
"""


def test_a_test_blocked_in_c_past_its_limit_ends_the_session_with_the_stacks(tmp_path):
    test_file = tmp_path / "test_blocked.py"
    test_file.write_text(BLOCKED_IN_C, encoding="utf-8")
    start = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "tests.hard_timeout", "-p", "no:cacheprovider",
         "-p", "no:xvfb", "-o", "addopts=", "--timeout", "1", str(test_file)],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
        env={**os.environ, "BIELA_TEST_HARD_MARGIN": "1", "QT_QPA_PLATFORM": "offscreen"},
    )  # fmt: skip
    elapsed = time.monotonic() - start
    assert done.returncode == 1, done.stdout + done.stderr
    assert elapsed < 30, f"the session ended after {elapsed:.0f} s, when the thread did"
    assert "Timeout (0:00:02)!" in done.stderr
    assert "test_joins_a_thread_that_runs_a_minute" in done.stderr  # the main thread's stack
    assert "in run" in done.stderr  # and the other thread's
    assert " passed" not in done.stdout and " failed" not in done.stdout  # ended, not finished
