"""Applied loads on bodies: ``force`` at a point and ``torque`` on a rigid body.

Components are numbers or time functions, in the global frame or in body axes (``frame``
``"body"``: the components follow the body, ``f = A(p) f̄``).

* Force at a point marker P: ``Q = J_Pᵀ f``. In body axes f depends on p, and ``∂f/∂p =
  S(p, f̄)`` enters the Jacobian.
* Torque on a rigid body (Euler parameters p): the virtual rotation is ``δπ = 2 E(p) δp``
  (global) or ``δπ̄ = 2 G(p) δp`` (body axes), so ``Q_p = 2 E(p)ᵀ n`` for a global torque n
  and ``Q_p = 2 G(p)ᵀ n̄`` for a body-axes torque n̄. Both are linear in p:
  ``E(p)ᵀ n = [[0, −nᵀ], [n, ñ]] p`` and ``G(p)ᵀ n̄ = H(n̄) p`` (``bodies.rigid.h_matrix``).

All of them are non-conservative: their power is ``Q·q̇`` (``f·Ṗ``, ``n·ω``).
"""

from __future__ import annotations

import numpy as np

from solver.mechanics.bodies.rigid import h_matrix
from solver.mechanics.forces.assembly import Accumulator, MarkerLoads, add_marker_loads
from solver.mechanics.forces.time_values import TimeValues
from solver.mechanics.markers import Markers, MarkerState
from solver.mechanics.rotations import rotate, rotate_jacobian, skew


def e_transpose_matrix(n: np.ndarray) -> np.ndarray:
    """``[[0, −nᵀ], [n, ñ]]`` with ``E(p)ᵀ n`` equal to it times p, ``(m, 4, 4)``."""
    out = h_matrix(n)  # [[0, −nᵀ], [n, −ñ]]
    out[:, 1:, 1:] += 2.0 * skew(n)
    return out


class _Vectors:
    """Three time-function components per element, in one ``(m, 3)`` array."""

    def __init__(self, vectors) -> None:
        self.parts = [TimeValues([v[i] for v in vectors]) for i in range(3)]

    def __call__(self, t: float) -> np.ndarray:
        return np.stack([part(t) for part in self.parts], axis=1).reshape(-1, 3)


class PointForces:
    """Forces at points of bodies, global or in body axes."""

    def __init__(self) -> None:
        self._rows: list[tuple[int, bool]] = []
        self._vectors: list = []

    def __len__(self) -> int:
        return len(self._rows)

    def add(self, point: int, vector, body_frame: bool) -> None:
        """``point`` a marker; ``vector`` three time functions; body-axes components if
        ``body_frame`` (the marker must then be on a rigid body)."""
        self._rows.append((point, bool(body_frame)))
        self._vectors.append(tuple(vector))

    def freeze(self, markers: Markers) -> None:
        self.markers = markers
        self.point = np.array([r[0] for r in self._rows], dtype=np.int64)
        self.body = np.flatnonzero([r[1] for r in self._rows])
        self.vector = _Vectors(self._vectors)

    def _forces(self, q: np.ndarray, t: float):
        """Global forces ``(m, 3)``; and p and the body-axes components of body-frame ones."""
        f = self.vector(t)
        local = f[self.body]
        p = q[self.markers.cols[self.point[self.body], 3:7]]
        f[self.body] = rotate(p, local)
        return f, p, local

    def add_terms(self, acc: Accumulator, ms: MarkerState, q: np.ndarray, t: float) -> None:
        f, p, local = self._forces(q, t)
        loads = MarkerLoads([self.point], [f])
        if acc.jacobians and len(self.body):
            dq = np.zeros((len(self), 3, ms.jac.shape[2]))
            dq[self.body, :, 3:7] = rotate_jacobian(p, local)
            loads.dq[0] = dq
        add_marker_loads(acc, self.markers, ms, loads)

    def power(self, ms: MarkerState, q: np.ndarray, t: float) -> float:
        f, _, _ = self._forces(q, t)
        return float(np.sum(f * ms.udot[self.point]))


class BodyTorques:
    """Torques on rigid bodies, global or in body axes."""

    def __init__(self) -> None:
        self._rows: list[tuple[int, bool]] = []
        self._vectors: list = []

    def __len__(self) -> int:
        return len(self._rows)

    def add(self, offset: int, vector, body_frame: bool) -> None:
        """``offset`` the first coordinate of the rigid body (``[r, p]``)."""
        self._rows.append((offset, bool(body_frame)))
        self._vectors.append(tuple(vector))

    def freeze(self, markers: Markers) -> None:
        offsets = np.array([r[0] for r in self._rows], dtype=np.int64)
        self.cols = offsets[:, None] + np.arange(7)
        self.pcols = self.cols[:, 3:]
        self.body = np.array([r[1] for r in self._rows], bool)
        self.vector = _Vectors(self._vectors)

    def _matrices(self, t: float) -> np.ndarray:
        """``∂Q_p/∂p`` per torque, ``(m, 4, 4)``; ``Q_p`` is this times p."""
        n = self.vector(t)
        return 2.0 * np.where(self.body[:, None, None], h_matrix(n), e_transpose_matrix(n))

    def generalized(self, q: np.ndarray, t: float):
        mats = self._matrices(t)
        return np.einsum("mij,mj->mi", mats, q[self.pcols]), mats

    def add_terms(self, acc: Accumulator, q: np.ndarray, t: float) -> None:
        qp, mats = self.generalized(q, t)
        acc.add_vector(self.pcols, qp)
        if acc.jacobians:
            acc.add_kq(self.pcols, self.pcols, mats)

    def power(self, q: np.ndarray, qd: np.ndarray, t: float) -> float:
        qp, _ = self.generalized(q, t)
        return float(np.sum(qp * qd[self.pcols]))
