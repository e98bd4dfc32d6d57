"""A progress line on stderr: cases done and failed, elapsed and remaining time.

On a terminal the line is redrawn in place (at most ten times a second); otherwise (a log,
a pipe) a line is printed at every tenth of the cases, so logs stay short.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO


def _clock(seconds: float) -> str:
    seconds = max(0, int(round(seconds)))
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m:02d}:{s:02d}"


class Progress:
    """``update(done, failed)`` after each case; ``close()`` at the end."""

    WIDTH = 24

    def __init__(self, total: int, stream: TextIO | None = None) -> None:
        self.total = total
        self.stream = stream or sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.start = time.perf_counter()
        self._drawn = 0.0
        self._tenth = -1
        self.done = self.failed = 0

    def line(self) -> str:
        elapsed = time.perf_counter() - self.start
        filled = int(self.WIDTH * self.done / max(self.total, 1))
        bar = "#" * filled + "-" * (self.WIDTH - filled)
        remaining = elapsed / self.done * (self.total - self.done) if self.done else None
        left = _clock(remaining) if remaining is not None else "--:--"
        return (
            f"[{bar}] {self.done}/{self.total} cases, {self.failed} failed, "
            f"elapsed {_clock(elapsed)}, remaining {left}"
        )

    def update(self, done: int, failed: int) -> None:
        self.done, self.failed = done, failed
        now = time.perf_counter()
        if self.tty:
            if now - self._drawn >= 0.1 or done == self.total:
                self.stream.write("\r" + self.line())
                self.stream.flush()
                self._drawn = now
        else:
            tenth = 10 * done // max(self.total, 1)
            if tenth != self._tenth:
                self._tenth = tenth
                self.stream.write(self.line() + "\n")
                self.stream.flush()

    def close(self) -> None:
        if self.tty:
            self.stream.write("\r" + self.line() + "\n")
            self.stream.flush()
