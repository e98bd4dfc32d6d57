"""Loads acting along a joint's own coordinate.

* :class:`JointTorques` — ``rotational_spring_damper`` and ``joint_torque`` on revolute
  and cylindrical joints: a torque about the joint axis

      τ = −k (θ − θ0) − c θ̇ + τ(t),

  θ the relative angle of body 2 w.r.t. body 1 from the initial configuration (continuous
  over turns, see ``angles``). By virtual work its generalised force is ``τ ∂θ/∂q``, which
  puts ``+τ`` on body 2 and the reaction ``−τ`` on body 1. Elastic energy
  ``½ k (θ − θ0)²``; non-conservative power ``(τ(t) − c θ̇) θ̇``.

* :class:`JointForces` — ``joint_force`` on prismatic and cylindrical joints: a force
  ``F(t)`` along the axis between the joint points, ``s = (P2 − P1)·a`` with P1 and the
  axis a fixed in body 1 and P2 in body 2 (s = 0 at t = 0); generalised force ``F ∂s/∂q``,
  power ``F ṡ``. A positive F pushes body 2 along +a.
"""

from __future__ import annotations

import numpy as np

from solver.mechanics.forces.angles import AngleTracker, angle_hessian, joint_angle
from solver.mechanics.forces.assembly import Accumulator, MarkerLoads, add_marker_loads
from solver.mechanics.forces.time_values import TimeValues
from solver.mechanics.markers import Markers, MarkerState


class JointTorques:
    """Torsion springs, dampers and applied torques about joint axes."""

    def __init__(self) -> None:
        self._rows: list[tuple[int, int, int, float, float, float]] = []
        self._funcs: list = []

    def __len__(self) -> int:
        return len(self._rows)

    def add(
        self, u1: int, w1: int, u2: int, stiffness=0.0, damping=0.0, free_angle=0.0, function=None
    ) -> None:
        """Markers: ``u1``, ``w1 = axis × u1`` on body 1, ``u2`` on body 2 (= u1 at t = 0)."""
        self._rows.append((u1, w1, u2, float(stiffness), float(damping), float(free_angle)))
        self._funcs.append(function)

    def freeze(self, markers: Markers) -> None:
        self.markers = markers
        rows = np.array(self._rows, float).reshape(-1, 6)
        self.index = [rows[:, i].astype(np.int64) for i in range(3)]
        self.k, self.c, self.theta0 = rows[:, 3], rows[:, 4], rows[:, 5]
        self.torque = TimeValues(self._funcs)
        self.tracker = AngleTracker(len(self))

    def angles(self, ms: MarkerState):
        """Continuous ``θ``, its gradient over ``(u1, w1, u2)`` ``(m, 9)`` and ``θ̇``."""
        raw, grad, rate = joint_angle(ms, *self.index)
        return self.tracker.unwrap(raw), grad, rate

    def add_terms(self, acc: Accumulator, ms: MarkerState, t: float) -> None:
        theta, grad, rate = self.angles(ms)
        k, c = self.k, self.c
        tau = -k * (theta - self.theta0) - c * rate + self.torque(t)
        g = [grad[:, 3 * a : 3 * a + 3] for a in range(3)]
        loads = MarkerLoads(list(self.index), [tau[:, None] * ga for ga in g])
        if acc.jacobians:
            hess = angle_hessian(ms, *self.index)
            udot = np.concatenate([ms.udot[i] for i in self.index], axis=1)
            drate = np.einsum("mij,mj->mi", hess, udot)  # ∂θ̇/∂(u1, w1, u2)
            dtau = -k[:, None] * grad - c[:, None] * drate  # ∂τ/∂u
            for a in range(3):
                for b in range(3):
                    hab = hess[:, 3 * a : 3 * a + 3, 3 * b : 3 * b + 3]
                    outer = g[a][:, :, None] * dtau[:, None, 3 * b : 3 * b + 3]
                    loads.du[a, b] = tau[:, None, None] * hab + outer
                    loads.dv[a, b] = -c[:, None, None] * g[a][:, :, None] * g[b][:, None, :]
        add_marker_loads(acc, self.markers, ms, loads)

    def energy(self, ms: MarkerState) -> float:
        theta, _, _ = self.angles(ms)
        return float(0.5 * np.sum(self.k * (theta - self.theta0) ** 2))

    def power(self, ms: MarkerState, t: float) -> float:
        _, _, rate = joint_angle(ms, *self.index)
        return float(np.sum((self.torque(t) - self.c * rate) * rate))


class JointForces:
    """Applied forces along prismatic and cylindrical joint axes."""

    def __init__(self) -> None:
        self._rows: list[tuple[int, int, int]] = []
        self._funcs: list = []

    def __len__(self) -> int:
        return len(self._rows)

    def add(self, point1: int, point2: int, axis: int, function) -> None:
        """Markers: joint point on body 1 and on body 2, axis direction on body 1."""
        self._rows.append((point1, point2, axis))
        self._funcs.append(function)

    def freeze(self, markers: Markers) -> None:
        self.markers = markers
        rows = np.array(self._rows, dtype=np.int64).reshape(-1, 3)
        self.p1, self.p2, self.axis = rows[:, 0], rows[:, 1], rows[:, 2]
        self.force = TimeValues(self._funcs)

    def add_terms(self, acc: Accumulator, ms: MarkerState, t: float) -> None:
        f = self.force(t)[:, None]
        a = ms.u[self.axis]
        d = ms.u[self.p2] - ms.u[self.p1]
        loads = MarkerLoads([self.p1, self.p2, self.axis], [-f * a, f * a, f * d])
        if acc.jacobians:
            fi = f[:, :, None] * np.eye(3)
            loads.du = {(0, 2): -fi, (1, 2): fi, (2, 0): -fi, (2, 1): fi}
        add_marker_loads(acc, self.markers, ms, loads)

    def power(self, ms: MarkerState, t: float) -> float:
        a, ad = ms.u[self.axis], ms.udot[self.axis]
        d = ms.u[self.p2] - ms.u[self.p1]
        dd = ms.udot[self.p2] - ms.udot[self.p1]
        sdot = np.sum(dd * a + d * ad, axis=1)
        return float(np.sum(self.force(t) * sdot))
