"""The frames of the current run, as the GUI keeps them: a growing (frames × columns) array.

Filled on the GUI thread from the worker's batches; read by the plots, the playback and the
viewport. The solver's own ``Result`` (kept for CSV export) arrives when the run ends.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from app import scene


class RunData:
    """Rows of one run, with amortised appends."""

    def __init__(self, columns: list[str]) -> None:
        self.columns = list(columns)
        self.cmap = scene.ColumnMap.from_columns(self.columns)
        self._buffer = np.empty((256, len(self.columns)))
        self._iterations = np.zeros(256, dtype=int)
        self.n = 0
        self.result: Any | None = None  # the solver's Result once the run has ended
        self.model: Any | None = None  # a copy of the model that produced these rows
        self.status = "running"
        self.message = ""
        self.wall_time = 0.0

    def append(self, rows: np.ndarray, iterations: np.ndarray | None = None) -> None:
        rows = np.atleast_2d(np.asarray(rows, dtype=float))
        k = len(rows)
        if self.n + k > len(self._buffer):
            capacity = max(2 * len(self._buffer), self.n + k)
            grown = np.empty((capacity, len(self.columns)))
            grown[: self.n] = self._buffer[: self.n]
            self._buffer = grown
            its = np.zeros(capacity, dtype=int)
            its[: self.n] = self._iterations[: self.n]
            self._iterations = its
        self._buffer[self.n : self.n + k] = rows
        if iterations is not None:
            self._iterations[self.n : self.n + k] = iterations
        self.n += k

    def add_columns(self, names: list[str], values: np.ndarray) -> None:
        """Columns computed after the run (``values``: frames × names)."""
        values = np.asarray(values, float).reshape(self.n, len(names))
        grown = np.empty((len(self._buffer), len(self.columns) + len(names)))
        grown[: self.n, : len(self.columns)] = self._buffer[: self.n]
        grown[: self.n, len(self.columns) :] = values
        self._buffer = grown
        self.columns = self.columns + list(names)
        self.cmap = scene.ColumnMap.from_columns(self.columns)

    def __len__(self) -> int:
        return self.n

    @property
    def data(self) -> np.ndarray:
        return self._buffer[: self.n]

    @property
    def iterations(self) -> np.ndarray:
        return self._iterations[: self.n]

    @property
    def t(self) -> np.ndarray:
        return self._buffer[: self.n, 0]

    def quantity(self, name: str) -> np.ndarray:
        return scene.quantity(self.data, self.columns, name)

    def quantities(self) -> list[str]:
        """Everything that can be plotted: the columns and the derived quantities."""
        return self.columns + scene.derived_quantities(self.columns)

    def index_at(self, t: float) -> int:
        """Index of the last frame at or before ``t`` (0 when empty)."""
        if self.n == 0:
            return 0
        i = int(np.searchsorted(self.t, t + 1e-12, side="right")) - 1
        return min(max(i, 0), self.n - 1)

    def row(self, index: int) -> np.ndarray:
        return self._buffer[index]
