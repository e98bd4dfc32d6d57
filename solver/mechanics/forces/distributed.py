"""``distributed_load``: a force per unit length along a flexible body (García Vallejo (2006) ch.
3).

The load ``f(t)`` (N per metre of the *undeformed* beam, global frame, components numbers or
time functions) acts uniformly along the whole beam. Its virtual work is
``δW = ∫ δrᵀ f dx = δeᵀ ∫ Sᵀ dx f`` per element, so the consistent generalised force is
``Q = Σ_e (∫₀ˡ s dx) ⊗ f`` over the element's nodal coordinates (``ElementModel.load``;
for the Hermite part ``l [½, l/12, ½, −l/12]``, which makes the resultant ``f L`` and
its moment exact). Q does not depend on q (a dead load): no Jacobian. Its power ``Q·q̇``
is counted in ``energy.work`` like that of any applied force.
"""

from __future__ import annotations

import numpy as np

from solver.mechanics.forces.assembly import Accumulator
from solver.mechanics.forces.time_values import TimeVectors


class DistributedLoads:
    """Uniform line loads on flexible bodies; ``add(cols, unit, vector)``."""

    def __init__(self) -> None:
        self._cols: list[np.ndarray] = []
        self._unit: list[np.ndarray] = []
        self._vectors: list = []

    def __len__(self) -> int:
        return len(self._cols)

    def add(self, cols: np.ndarray, unit: np.ndarray, vector) -> None:
        """``cols`` the beam's coordinates; ``unit`` ``(3, len(cols))``: column a is the
        generalised force of a unit load along global axis a; ``vector`` three functions."""
        self._cols.append(np.asarray(cols, np.int64))
        self._unit.append(np.asarray(unit, float))
        self._vectors.append(tuple(vector))

    def freeze(self, markers=None) -> None:
        self.vector = TimeVectors(self._vectors)

    def generalized(self, n: int, t: float) -> np.ndarray:
        f = self.vector(t)
        out = np.zeros(n)
        for cols, unit, fk in zip(self._cols, self._unit, f, strict=True):
            out[cols] += fk @ unit
        return out

    def add_terms(self, acc: Accumulator, t: float) -> None:
        acc.q += self.generalized(acc.n, t)

    def power(self, qd: np.ndarray, t: float) -> float:
        return float(self.generalized(len(qd), t) @ qd)
