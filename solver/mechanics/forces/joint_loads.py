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


class JointTorques:
    """Torsion springs, dampers and applied torques about joint axes (evaluated by
    ``solver.kernels.loads.joint_torque``)."""

    def __init__(self) -> None:
        self._rows: list[tuple[int, int, int, float, float, float]] = []
        self._funcs: list = []
        self.last = np.zeros(0)

    def __len__(self) -> int:
        return len(self._rows)

    def add(
        self, u1: int, w1: int, u2: int, stiffness=0.0, damping=0.0, free_angle=0.0, function=None
    ) -> None:
        """Markers: ``u1``, ``w1 = axis × u1`` on body 1, ``u2`` on body 2 (= u1 at t = 0)."""
        self._rows.append((u1, w1, u2, float(stiffness), float(damping), float(free_angle)))
        self._funcs.append(function)

    def freeze(self) -> None:
        """The continuous angle of each element at its last evaluation (rad), kept by the
        kernels in this array (zero: the initial configuration)."""
        self.last = np.zeros(len(self))


class JointForces:
    """Applied forces along prismatic and cylindrical joint axes (evaluated by
    ``solver.kernels.loads.joint_force``)."""

    def __init__(self) -> None:
        self._rows: list[tuple[int, int, int]] = []
        self._funcs: list = []

    def __len__(self) -> int:
        return len(self._rows)

    def add(self, point1: int, point2: int, axis: int, function) -> None:
        """Markers: joint point on body 1 and on body 2, axis direction on body 1."""
        self._rows.append((point1, point2, axis))
        self._funcs.append(function)
