"""``distributed_load``: a force per unit length along a flexible body (García Vallejo (2006) ch.
3).

The load ``f(t)`` (N per metre of the *undeformed* beam, global frame, components numbers or
time functions) acts uniformly along the whole beam. Its virtual work is
``δW = ∫ δrᵀ f dx = δeᵀ ∫ Sᵀ dx f`` per element, so the consistent generalised force is
``Q = Σ_e (∫₀ˡ s dx) ⊗ f`` over the element's nodal coordinates (``ElementModel.load``;
for the Hermite part ``l [½, l/12, ½, −l/12]``, which makes the resultant ``f L`` and
its moment exact). Q does not depend on q (a dead load): no Jacobian. Its power ``Q·q̇``
is counted in ``energy.work`` like that of any applied force. The equations are compiled
kernels (``solver.kernels.system``); this group holds the loads.
"""

from __future__ import annotations

import numpy as np


class DistributedLoads:
    """Uniform line loads on flexible bodies; ``add(cols, unit, vector)``. The kernels
    evaluate them (``solver.kernels.system``, arrays ``dl_*``)."""

    def __init__(self) -> None:
        self.cols: list[np.ndarray] = []
        self.unit: list[np.ndarray] = []
        self.vectors: list = []

    def __len__(self) -> int:
        return len(self.cols)

    def add(self, cols: np.ndarray, unit: np.ndarray, vector) -> None:
        """``cols`` the beam's coordinates; ``unit`` ``(3, len(cols))``: row a is the
        generalised force of a unit load along global axis a; ``vector`` three functions."""
        self.cols.append(np.asarray(cols, np.int64))
        self.unit.append(np.asarray(unit, float))
        self.vectors.append(tuple(vector))
