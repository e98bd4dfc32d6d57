"""Joint reactions and driver efforts from the constraint multipliers.

The constraint forces of a joint are ``g = −A_Jᵀ λ_J`` (its rows of ``A = [Φ_q; B]``, see
``multipliers``). Its **reaction** is the force F and torque T on body2 at the joint point
P that do the same virtual work on body2 as ``g`` for every rigid virtual motion of body2
(a displacement δx of P and a rotation δθ)::

    F·δx + T·δθ = g·δq(δx, δθ)

* rigid body (``[r, p]``): ``F = g_r``, torque about the centre of mass ``½ E(p) g_p`` (the
  Euler-parameter norm's share along p drops out), ``T = ½ E(p) g_p + (r − P) × F``;
* point mass: ``F = g_r``, ``T = (r − P) × F`` (zero: it is joined at its own position);
* flexible body (nodes ``r``, slopes ``r_k``): ``F = Σ g_r``,
  ``T = Σ (r − P) × g_r + Σ r_k × g_rk`` (slopes turn with the section).

When body2 is ground the reaction on ground is the opposite of body1's, moved to P. The
**effort** of a driver is the reaction of its constraint row projected on the joint axis
(fixed in body1): the torque (angle) or force (displacement) the driver exerts on body2
about or along +axis, positive when it pushes the coordinate up.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from solver.analysis.outputs import body_frames as bf
from solver.mechanics.rotations import cross
from solver.mechanics.system import MultibodySystem
from solver.model import description as d


def _pad3(v: np.ndarray) -> np.ndarray:
    out = np.zeros(3)
    out[: len(v)] = v
    return out


def _pad3_rows(v: np.ndarray) -> np.ndarray:
    """``v`` of shape ``(..., d)``, d ≤ 3, padded with zeros to ``(..., 3)``."""
    out = np.zeros(v.shape[:-1] + (3,))
    out[..., : v.shape[-1]] = v
    return out


class BodyPoint:
    """A material point of a body (or ground) given globally at t = 0."""

    def __init__(self, system: MultibodySystem, body: str, xyz) -> None:
        self.system = system
        self.body = body
        xyz = np.asarray(xyz, float)
        self.xyz = xyz
        self.slot = None if body == d.GROUND else system.slots[body]
        s = self.slot
        self.local = None
        self.node = None
        if s is None:
            return
        if s.kind == "rigid":
            self.local = s.rotation0.T @ (xyz - s.position0)
            self._local = tuple(self.local.tolist())
        elif s.owner is not None and hasattr(s.owner, "beam"):
            beam = s.owner.beam(s)
            self.node = beam.node_at(xyz)
            if self.node is None:  # not a node (a sliding point): the nearest one
                self.node = int(np.argmin([np.linalg.norm(xyz - p) for p in beam.nodes]))

    def rotation(self, q: np.ndarray) -> np.ndarray:
        """Body axes → global (the identity for ground, point masses, flexible bodies)."""
        s = self.slot
        if s is None or s.kind != "rigid":
            return np.eye(3)
        return bf.rotation_matrix(bf.parameters(q, s.offset + 3))

    def to_body(self, q: np.ndarray, v: np.ndarray) -> np.ndarray:
        """``rotation(q)ᵀ v``: global → body axes."""
        s = self.slot
        if s is None or s.kind != "rigid":
            return v.copy()
        return np.array(bf.rotate_back(bf.parameters(q, s.offset + 3), v.tolist()))

    def to_global(self, q: np.ndarray, v) -> np.ndarray:
        """``rotation(q) v``: body → global axes (``v`` a 3-sequence of floats)."""
        s = self.slot
        if s is None or s.kind != "rigid":
            return np.array(v, float)
        return np.array(bf.rotate(bf.parameters(q, s.offset + 3), v))

    def rigid_position(self, q: np.ndarray) -> bf.Vec:
        """The point of a rigid body, as floats: ``r + A(p) s̄``."""
        o = self.slot.offset
        return bf.add(q[o : o + 3].tolist(), bf.rotate(bf.parameters(q, o + 3), self._local))

    def position(self, q: np.ndarray) -> np.ndarray:
        s = self.slot
        if s is None:
            return self.xyz.copy()
        if s.kind == "rigid":
            return np.array(self.rigid_position(q))
        if s.kind == "point_mass":
            return q[s.offset : s.offset + 3].copy()
        beam = s.owner.beam(s)
        out = _pad3(q[beam.node_cols(self.node, 0)])
        if beam.d == 2:
            out[2] = beam.start[2]
        return out

    def wrench(self, q: np.ndarray, g: np.ndarray, at: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Force and torque about ``at`` equivalent to the generalised force ``g`` on this
        body (module docstring); zero for ground."""
        s = self.slot
        if s is None:
            return np.zeros(3), np.zeros(3)
        o = s.offset
        if s.kind in ("rigid", "point_mass"):
            f = g[o : o + 3].tolist()
            arm = bf.sub(q[o : o + 3].tolist(), at.tolist())
            torque = bf.cross(arm, f)
            if s.kind == "rigid":
                half = bf.e_times(bf.parameters(q, o + 3, unit=True), g[o + 3 : o + 7].tolist())
                torque = bf.add((0.5 * half[0], 0.5 * half[1], 0.5 * half[2]), torque)
            return np.array(f), np.array(torque)
        beam = s.owner.beam(s)
        n_vec = beam.node_size // beam.d
        cols = beam.vector_cols[:, :n_vec]  # (node, vector, component)
        r, gv = _pad3_rows(q[cols[:, 0]]), _pad3_rows(g[cols])
        if beam.d == 2:
            r[:, 2] = beam.start[2]
        torque = cross(r - at, gv[:, 0]).sum(axis=0)
        if n_vec > 1:  # slopes turn with the section
            torque += cross(_pad3_rows(q[cols[:, 1:]]), gv[:, 1:]).sum(axis=(0, 1))
        return gv[:, 0].sum(axis=0), torque


def joint_points(joint: d.Joint, system: MultibodySystem) -> tuple[BodyPoint, BodyPoint]:
    """The joint point on body1 and on body2 (``point1``/``point2`` of a distance joint;
    body2's centre of mass for a fixed joint without a point)."""
    if joint.type == "distance":
        return BodyPoint(system, joint.body1, joint.point1), BodyPoint(
            system, joint.body2, joint.point2
        )
    point = joint.point
    if point is None:
        point = (
            system.centre(joint.body2) if joint.body2 != d.GROUND else system.centre(joint.body1)
        )
    return BodyPoint(system, joint.body1, point), BodyPoint(system, joint.body2, point)


class Reaction:
    """The reaction of the constraint rows of one item (joint or driver) on body2."""

    def __init__(self, system: MultibodySystem, key: str, joint: d.Joint) -> None:
        self.rows = np.asarray(system.item_rows.get(key, np.zeros(0, np.int64)), np.int64)
        nh = system.velocity_rows.get(key, [])
        self.rows = np.concatenate([self.rows, system.m + np.asarray(nh, np.int64)])
        self.p1, self.p2 = joint_points(joint, system)

    def generalized(self, a, lam: np.ndarray) -> np.ndarray:
        """``g = −A_Jᵀ λ_J`` (length n)."""
        sub = a[self.rows]
        out = -(sub.T @ lam[self.rows])
        return np.asarray(out).ravel() if sp.issparse(sub) else out

    def __call__(self, q: np.ndarray, a, lam: np.ndarray):
        """``(F, T, F_body2, T_body2)``: on body2 at its joint point, global axes and body2's
        axes (the global axes when body2 has no orientation)."""
        g = self.generalized(a, lam)
        if self.p2.slot is None:  # ground: the opposite of body1's reaction, moved to P
            at = self.p2.position(q)
            f1, t1 = self.p1.wrench(q, g, at)
            f, t = -f1, -t1
        else:
            at = self.p2.position(q)
            f, t = self.p2.wrench(q, g, at)
        return f, t, self.p2.to_body(q, f), self.p2.to_body(q, t)


class Effort:
    """The torque or force of a driver on body2 about or along the joint axis."""

    def __init__(self, system: MultibodySystem, driver: d.Driver, joint: d.Joint) -> None:
        self.reaction = Reaction(system, f"driver:{driver.name}", joint)
        coordinate = driver.coordinate or ("angle" if joint.type == "revolute" else "displacement")
        self.kind = "torque" if coordinate == "angle" else "force"
        axis = np.asarray(joint.axis, float)
        axis = axis / np.linalg.norm(axis)
        b1 = self.reaction.p1
        self.axis_local = axis if b1.slot is None else b1.slot.rotation0.T @ axis
        self._axis = tuple(self.axis_local.tolist())

    def __call__(self, q: np.ndarray, a, lam: np.ndarray) -> float:
        f, t, _, _ = self.reaction(q, a, lam)
        axis = self.reaction.p1.to_global(q, self._axis)
        return float((t if self.kind == "torque" else f) @ axis)
