"""Point masses: three coordinates (the position), mass matrix ``m I₃``, no orientation."""

from __future__ import annotations

import numpy as np


class PointMasses:
    """All point masses of a system; ``offsets[i]`` is the first coordinate of mass i."""

    def __init__(self, offsets, mass) -> None:
        self.offsets = np.asarray(offsets, dtype=np.int64)
        self.mass = np.asarray(mass, float)
        self.cols = self.offsets[:, None] + np.arange(3)  # (n, 3)

    def __len__(self) -> int:
        return len(self.offsets)

    def mass_blocks(self) -> np.ndarray:
        return self.mass[:, None, None] * np.eye(3)

    def momentum(self, q: np.ndarray, qd: np.ndarray, origin=(0.0, 0.0, 0.0)):
        lin = self.mass[:, None] * qd[self.cols]
        ang = np.cross(q[self.cols] - np.asarray(origin), lin)
        return lin.sum(axis=0), ang.sum(axis=0)
