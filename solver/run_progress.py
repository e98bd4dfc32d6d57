"""Progress of a long run on the command line (stderr): steps, simulated time, real-time
factor and the time left.

Nothing is shown for a run that ends within ``DELAY`` seconds. After that, on a terminal
one line is rewritten in place every ``TTY_INTERVAL`` seconds and cleared at the end; on a
log (stderr not a terminal) a full line is written every ``LOG_INTERVAL`` seconds. The
real-time factor is simulated seconds per wall-clock second (above 1: faster than real
time); the time left extrapolates the rate since the first step.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import TextIO

DELAY = 3.0
TTY_INTERVAL = 0.5
LOG_INTERVAL = 10.0


def duration(seconds: float) -> str:
    """``"42 s"``, ``"3 min 20 s"``, ``"5 h 02 min"``, ``"12 d 4 h"``."""
    if not math.isfinite(seconds):
        return "?"
    s = int(round(seconds))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60:02d} s"
    if s < 86400:
        return f"{s // 3600} h {s % 3600 // 60:02d} min"
    return f"{s // 86400} d {s % 86400 // 3600} h"


class Progress:
    """Call ``update(t)`` with the time of every step (cheap when nothing is due), and
    ``close()`` at the end."""

    def __init__(
        self,
        stream: TextIO,
        t_end: float,
        dt: float,
        *,
        delay: float | None = None,
        interval: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.stream = stream
        self.t_end = t_end
        self.dt = dt
        self.clock = clock
        try:
            self.tty = stream.isatty()
        except (AttributeError, ValueError, OSError):
            self.tty = False
        self.interval = (
            interval if interval is not None else (TTY_INTERVAL if self.tty else LOG_INTERVAL)
        )
        self.start = clock()
        self.due = self.start + (DELAY if delay is None else delay)
        self.first: tuple[float, float] | None = None  # (wall clock, t) of the first step
        self.width = 0  # of the line shown on a terminal

    def update(self, t: float) -> None:
        now = self.clock()
        if self.first is None:
            self.first = (now, t)
        if now < self.due:
            return
        self.due = now + self.interval
        self.show(self.line(t, now))

    def line(self, t: float, now: float) -> str:
        steps, total = int(round(t / self.dt)), int(round(self.t_end / self.dt))
        wall = now - self.start
        t0_wall, t0 = self.first or (self.start, 0.0)
        rate = (t - t0) / (now - t0_wall) if now > t0_wall else 0.0  # simulated s per s
        left = (self.t_end - t) / rate if rate > 0 else float("inf")
        return (
            f"biela: step {steps:,} of {total:,}, t = {t:.6g} of {self.t_end:g} s, "
            f"real-time factor {rate:.3g}, {duration(wall)} so far, about "
            f"{duration(left)} left"
        )

    def show(self, text: str) -> None:
        try:
            if self.tty:
                pad = max(0, self.width - len(text))
                self.stream.write("\r" + text + " " * pad)
                self.width = len(text)
            else:
                self.stream.write(text + "\n")
            self.stream.flush()
        except (OSError, ValueError):  # a closed or broken stderr must not stop the run
            pass

    def close(self) -> None:
        """Clear the terminal line (a log keeps its lines)."""
        if self.tty and self.width:
            self.show_raw("\r" + " " * self.width + "\r")
            self.width = 0

    def show_raw(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):
            pass
