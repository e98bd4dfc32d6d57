"""Joint coordinates and their rates: the angle of revolute and cylindrical joints, the
displacement of prismatic and cylindrical joints.

Both are the drivers' coordinates (docs/model_format.md §8), measured from the initial
configuration: with ``u1`` normal to the axis ``a`` and ``w1 = a × u1`` fixed in body1, and
``u2`` fixed in body2 (``u2 = u1`` at t = 0), the angle is ``θ = atan2(w1·u2, u1·u2)``,
right-handed about ``+a`` and continuous over turns (each value is taken on the branch
nearest the previous one); the displacement is ``s = (P2 − P1)·a`` with the joint point P1
of body1 and P2 of body2 (s = 0 at t = 0). Rates are the exact time derivatives of these
expressions at the state.
"""

from __future__ import annotations

import math

import numpy as np

from solver.analysis.outputs.reactions import BodyPoint
from solver.mechanics.constraints.joints import normals
from solver.mechanics.constraints.primitives import wrap_angle
from solver.mechanics.rotations import angular_velocity, rotation_matrix
from solver.mechanics.system import MultibodySystem
from solver.model import description as d


def body_motion(system: MultibodySystem, body: str, q: np.ndarray, qd: np.ndarray):
    """``(r, R, v, ω)`` of a rigid body's centre of mass (ground: at rest at the origin)."""
    if body == d.GROUND:
        return np.zeros(3), np.eye(3), np.zeros(3), np.zeros(3)
    s = system.slots[body]
    o = s.offset
    if s.kind != "rigid":
        return q[o : o + 3], np.eye(3), qd[o : o + 3], np.zeros(3)
    p = q[o + 3 : o + 7]
    p = p / np.linalg.norm(p)
    return q[o : o + 3], rotation_matrix(p), qd[o : o + 3], angular_velocity(p, qd[o + 3 : o + 7])


class JointCoordinates:
    """The coordinates of one revolute, prismatic or cylindrical joint."""

    def __init__(self, system: MultibodySystem, joint: d.Joint) -> None:
        self.system = system
        self.joint = joint
        self.names = {
            "revolute": ("angle", "angle_rate"),
            "prismatic": ("displacement", "displacement_rate"),
            "cylindrical": ("angle", "angle_rate", "displacement", "displacement_rate"),
        }[joint.type]
        a, n1, _ = normals(joint.axis)
        self.p1 = BodyPoint(system, joint.body1, joint.point)
        self.p2 = BodyPoint(system, joint.body2, joint.point)
        r1 = self._rotation0(joint.body1)
        r2 = self._rotation0(joint.body2)
        self.a1, self.u1 = r1.T @ a, r1.T @ n1  # in body1's axes
        self.u2 = r2.T @ n1  # in body2's axes
        self.last = 0.0

    def _rotation0(self, body: str) -> np.ndarray:
        return np.eye(3) if body == d.GROUND else self.system.slots[body].rotation0

    def __call__(self, q: np.ndarray, qd: np.ndarray) -> list[float]:
        r1, rot1, v1, w1 = body_motion(self.system, self.joint.body1, q, qd)
        r2, rot2, v2, w2 = body_motion(self.system, self.joint.body2, q, qd)
        a = rot1 @ self.a1
        out: list[float] = []
        if "angle" in self.names:
            u1 = rot1 @ self.u1
            n1 = np.cross(a, u1)
            u2 = rot2 @ self.u2
            x, y = float(u1 @ u2), float(n1 @ u2)
            raw = math.atan2(y, x)
            theta = self.last + float(wrap_angle(np.array(raw - self.last)))
            self.last = theta
            xd = float(np.cross(w1, u1) @ u2 + u1 @ np.cross(w2, u2))
            yd = float(np.cross(w1, n1) @ u2 + n1 @ np.cross(w2, u2))
            out += [theta, (x * yd - y * xd) / (x * x + y * y)]
        if "displacement" in self.names:
            p1, p2 = self.p1.position(q), self.p2.position(q)
            pd1 = v1 + np.cross(w1, p1 - r1)
            pd2 = v2 + np.cross(w2, p2 - r2)
            gap = p2 - p1
            out += [float(gap @ a), float((pd2 - pd1) @ a + gap @ np.cross(w1, a))]
        return out
