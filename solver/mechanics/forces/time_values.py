"""Values of many optional time functions at once (constants evaluated only once)."""

from __future__ import annotations

import numpy as np

from solver.model.functions import Constant, TimeFunction


class TimeValues:
    """``f_i(t)`` for a list of functions (``None`` means 0).

    Constants are stored once and equal functions are evaluated once, so the per-step
    Python loop runs over the distinct time-dependent functions only.
    """

    def __init__(self, functions: list[TimeFunction | None]) -> None:
        self.base = np.zeros(len(functions))
        groups: dict[TimeFunction, list[int]] = {}
        for i, f in enumerate(functions):
            if f is None:
                continue
            if isinstance(f, Constant):
                self.base[i] = float(f.value)
            else:
                groups.setdefault(f, []).append(i)
        self.varying = [(f, np.array(idx, dtype=np.int64)) for f, idx in groups.items()]

    def __call__(self, t: float) -> np.ndarray:
        out = self.base.copy()
        for f, idx in self.varying:
            out[idx] = f.derivatives(t)[0]
        return out
