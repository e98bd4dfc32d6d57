"""A results CSV written row by row as a run computes them (constant memory).

``CsvStream(path, columns)`` opens (creates or truncates) the file at once, so a path that
cannot be written is found before the run, writes the header, and then each call
``stream(row)`` appends one row with full double precision (``repr`` of each float, as
``Result.to_csv``). The rows reach the file at least every ``FLUSH_INTERVAL`` seconds, so a
run that stops for any reason leaves the rows computed up to then.
"""

from __future__ import annotations

import contextlib
import csv
import os
import time

import numpy as np

#: Longest time (s) a computed row waits in the buffer before it is written to the file.
FLUSH_INTERVAL = 0.5


class CsvStream:
    """One results CSV being written; a callable sink of ``Result`` rows."""

    def __init__(self, path: str | os.PathLike, columns: list[str]) -> None:
        self.path = path
        self._fh = open(path, "w", newline="", encoding="utf-8")  # noqa: SIM115 - kept open
        self.rows = 0
        try:
            csv.writer(self._fh).writerow(columns)
            self._fh.flush()
        except OSError as exc:  # e.g. a full disk: say which file
            with contextlib.suppress(OSError):
                self._fh.close()
            raise OSError(exc.errno, exc.strerror, str(path)) from None
        except BaseException:
            self._fh.close()
            raise
        self._flushed = time.monotonic()

    def __call__(self, row: np.ndarray) -> None:
        fh = self._fh
        fh.write(",".join(map(repr, row.tolist())))
        fh.write("\n")
        self.rows += 1
        now = time.monotonic()
        if now - self._flushed >= FLUSH_INTERVAL:
            fh.flush()
            self._flushed = now

    def close(self) -> None:
        """Write what is buffered and close the file (idempotent)."""
        if not self._fh.closed:
            self._fh.close()

    def __enter__(self) -> CsvStream:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
