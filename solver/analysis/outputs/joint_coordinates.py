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

from solver.analysis.outputs import body_frames as bf
from solver.analysis.outputs.reactions import BodyPoint
from solver.mechanics.constraints.joints import normals
from solver.mechanics.constraints.primitives import wrap_angle
from solver.mechanics.system import MultibodySystem
from solver.model import description as d


class _Side:
    """What a joint's coordinates need of one of its bodies: where its state is and the
    joint point in its axes (ground: fixed; point mass: no rotation)."""

    def __init__(self, system: MultibodySystem, body: str, point: BodyPoint) -> None:
        slot = None if body == d.GROUND else system.slots[body]
        self.offset = -1 if slot is None else slot.offset
        self.rigid = slot is not None and slot.kind == "rigid"
        self.point = point

    def motion(self, q: np.ndarray, qd: np.ndarray):
        """``(r, p, v, ω)`` of the body's centre of mass (p the unit Euler parameters, ``None``
        without rotation)."""
        o = self.offset
        if o < 0:
            return bf.ZERO, None, bf.ZERO, bf.ZERO
        r, v = tuple(q[o : o + 3].tolist()), tuple(qd[o : o + 3].tolist())
        if not self.rigid:
            return r, None, v, bf.ZERO
        p = bf.parameters(q, o + 3, unit=True)
        return r, p, v, bf.angular_velocity(p, qd[o + 3 : o + 7].tolist())

    def position(self, q: np.ndarray):
        """The joint point (``BodyPoint.position``)."""
        if self.rigid:
            return self.point.rigid_position(q)
        return tuple(self.point.position(q).tolist())


class JointCoordinates:
    """The coordinates of one revolute, prismatic or cylindrical joint, evaluated on floats
    (about 10 µs per call; see ``body_frames``)."""

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
        self.side1 = _Side(system, joint.body1, self.p1)
        self.side2 = _Side(system, joint.body2, self.p2)
        r1 = self._rotation0(joint.body1)
        r2 = self._rotation0(joint.body2)
        self.a1, self.u1 = r1.T @ a, r1.T @ n1  # in body1's axes
        self.u2 = r2.T @ n1  # in body2's axes
        self._a1, self._u1, self._u2 = (tuple(x.tolist()) for x in (self.a1, self.u1, self.u2))
        self.angle = "angle" in self.names
        self.displacement = "displacement" in self.names
        self.last = 0.0

    def _rotation0(self, body: str) -> np.ndarray:
        return np.eye(3) if body == d.GROUND else self.system.slots[body].rotation0

    def __call__(self, q: np.ndarray, qd: np.ndarray) -> list[float]:
        r1, p1, v1, w1 = self.side1.motion(q, qd)
        r2, p2, v2, w2 = self.side2.motion(q, qd)
        a = self._a1 if p1 is None else bf.rotate(p1, self._a1)
        out: list[float] = []
        if self.angle:
            u1 = self._u1 if p1 is None else bf.rotate(p1, self._u1)
            n1 = bf.cross(a, u1)
            u2 = self._u2 if p2 is None else bf.rotate(p2, self._u2)
            x, y = bf.dot(u1, u2), bf.dot(n1, u2)
            raw = math.atan2(y, x)
            theta = self.last + wrap_angle(raw - self.last)
            self.last = theta
            w2u2 = bf.cross(w2, u2)
            xd = bf.dot(bf.cross(w1, u1), u2) + bf.dot(u1, w2u2)
            yd = bf.dot(bf.cross(w1, n1), u2) + bf.dot(n1, w2u2)
            out += [theta, (x * yd - y * xd) / (x * x + y * y)]
        if self.displacement:
            pos1, pos2 = self.side1.position(q), self.side2.position(q)
            pd1 = bf.add(v1, bf.cross(w1, bf.sub(pos1, r1)))
            pd2 = bf.add(v2, bf.cross(w2, bf.sub(pos2, r2)))
            gap = bf.sub(pos2, pos1)
            out += [bf.dot(gap, a), bf.dot(bf.sub(pd2, pd1), a) + bf.dot(gap, bf.cross(w1, a))]
        return out
