"""Translational spring-damper-actuators between two points (``spring_damper``).

With ``d = P2 − P1``, ``l = |d|``, ``e = d/l`` and ``l̇ = e·(Ṗ2 − Ṗ1)``, the scalar force
along e acting on point 2 is (the MUBODYNA convention, 003 §1.3.5)

    f = −k (l − l0) − c l̇ + a(t),

so a positive actuator force ``a`` pushes the points apart; point 2 receives ``f e`` and
point 1 ``−f e``. The spring part is evaluated in the vector form

    F2 = −k d + (k l0 − c l̇ + a) e,

which for ``l0 = 0`` is the linear zero-length spring ``−k d``, smooth through ``l = 0``.
Below ``l = TINY`` the direction e is undefined: it is taken as zero, so the damper, the
actuator and the ``k l0`` term vanish there and only ``−k d`` remains.

Elastic energy ``½ k (l − l0)²``; non-conservative power ``(a − c l̇) l̇``.
"""

from __future__ import annotations

import numpy as np

from solver.mechanics.forces.assembly import Accumulator, MarkerLoads, add_marker_loads
from solver.mechanics.forces.time_values import TimeValues
from solver.mechanics.markers import Markers, MarkerState

TINY = 1e-12  # m: below this length the line of action is undefined


class SpringDampers:
    """All spring-damper-actuators of a system, evaluated together."""

    def __init__(self) -> None:
        self._rows: list[tuple[int, int, float, float, float]] = []
        self._funcs: list = []

    def __len__(self) -> int:
        return len(self._rows)

    def add(self, point1: int, point2: int, stiffness, damping, free_length, actuator=None) -> None:
        self._rows.append((point1, point2, float(stiffness), float(damping), float(free_length)))
        self._funcs.append(actuator)

    def freeze(self, markers: Markers) -> None:
        self.markers = markers
        rows = np.array(self._rows, float).reshape(-1, 5)
        self.p1, self.p2 = rows[:, 0].astype(np.int64), rows[:, 1].astype(np.int64)
        self.k, self.c, self.l0 = rows[:, 2], rows[:, 3], rows[:, 4]
        self.actuator = TimeValues(self._funcs)

    def _geometry(self, ms: MarkerState):
        d = ms.u[self.p2] - ms.u[self.p1]
        v = ms.udot[self.p2] - ms.udot[self.p1]
        length = np.linalg.norm(d, axis=1)
        ok = length > TINY
        inv = np.where(ok, 1.0 / np.where(ok, length, 1.0), 0.0)
        e = d * inv[:, None]
        return d, v, length, e, inv, np.sum(e * v, axis=1)

    def add_terms(self, acc: Accumulator, ms: MarkerState, t: float) -> None:
        d, v, _, e, inv, ldot = self._geometry(ms)
        k, c = self.k, self.c
        g = k * self.l0 - c * ldot + self.actuator(t)
        f2 = -k[:, None] * d + g[:, None] * e
        loads = MarkerLoads([self.p1, self.p2], [-f2, f2])
        if acc.jacobians:
            eye = np.eye(3)
            proj = (eye - e[:, :, None] * e[:, None, :]) * inv[:, None, None]  # ∂e/∂d
            dldot = np.einsum("mij,mj->mi", proj, v)  # ∂l̇/∂d
            dd = -k[:, None, None] * eye - c[:, None, None] * e[:, :, None] * dldot[:, None, :]
            dd = dd + g[:, None, None] * proj  # ∂F2/∂d
            dv = -c[:, None, None] * e[:, :, None] * e[:, None, :]  # ∂F2/∂ḋ
            loads.du = {(0, 0): dd, (0, 1): -dd, (1, 0): -dd, (1, 1): dd}
            loads.dv = {(0, 0): dv, (0, 1): -dv, (1, 0): -dv, (1, 1): dv}
        add_marker_loads(acc, self.markers, ms, loads)

    def lengths(self, ms: MarkerState) -> tuple[np.ndarray, np.ndarray]:
        """Current length ``l`` and its rate ``l̇`` of every element."""
        _, _, length, _, _, ldot = self._geometry(ms)
        return length, ldot

    def energy(self, ms: MarkerState) -> float:
        length, _ = self.lengths(ms)
        return float(0.5 * np.sum(self.k * (length - self.l0) ** 2))

    def power(self, ms: MarkerState, t: float) -> float:
        _, ldot = self.lengths(ms)
        return float(np.sum((self.actuator(t) - self.c * ldot) * ldot))
