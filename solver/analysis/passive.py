"""Passive freedoms: rotations of a body that move none of its attachment points.

The coupler of a spatial RSSR four-bar hangs between two spherical joints: it can spin
about the line through their centres while nothing else in the mechanism moves. Such a
freedom counts in the rank of the constraint Jacobian, but no joint point, force point or
output moves with it, so no driver can take it and a kinematic analysis cannot (and need
not) determine it.

Here a passive freedom of a rigid body (reference-point coordinates) is a velocity of that
body alone, ``(v, ω)`` with every other body at rest, that

* satisfies every constraint row touching the body (``Φ_q δq = 0``, the Euler-parameter
  norm and the rolling rows included), and
* leaves fixed every attachment point of the body: the points of its joints, the points
  where forces act on it (spring ends, point forces, contact spheres and planes), its
  output points and its centre of mass (its reported position, where gravity acts).

Bodies with a torque, a body-fixed force, a rotational spring or a joint torque, or a
frictional contact (a pulley with a frictional belt), are left out (such a load turns with the spin), and so are bodies with
no joint. The freedoms of a body are the null space of a small matrix (rows of ``Φ_q``
touching its 7 columns, 3 rows per attachment point): one about a line (a spin; the
description names the joints at its two ends, "coupler spin about J1–J2"), or up to three
about a single point ("rotation about J1").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from solver.lazy_scipy import issparse
from solver.lazy_scipy import sparse as sp
from solver.mechanics.rotations import rotation_matrix
from solver.mechanics.system import MultibodySystem
from solver.model import description as d

#: a point lies on a spin axis within this fraction of the body's size (m)
ON_AXIS = 1e-6


@dataclass
class PassiveFreedom:
    """``count`` freedoms of ``body``: a spin about ``axis`` through ``point`` (count 1) or
    rotations about ``point``; ``joints`` are the joints on the axis (ordered along it)."""

    body: str
    count: int
    point: np.ndarray
    axis: np.ndarray | None
    joints: list[str]
    span: float = 0.0  # distance between the first and last joint along the axis (m)

    def describe(self) -> str:
        at = self.joints[0] if self.joints else "its centre of mass"
        if self.count == 1:
            if len(self.joints) > 1 and self.span > 0.0:
                return f"{self.body} spin about {self.joints[0]}–{self.joints[-1]}"
            return f"{self.body} spin about its axis at {at}"
        return f"{self.body} rotation about {at} ({self.count} freedoms)"


def describe_passive(freedoms: list[PassiveFreedom]) -> str:
    """``1 passive freedom: coupler spin about J1–J2`` (empty when there is none)."""
    total = sum(f.count for f in freedoms)
    if not total:
        return ""
    return f"{total} passive freedom{'s' if total > 1 else ''}: " + ", ".join(
        f.describe() for f in freedoms
    )


def _attachments(model: d.Model) -> tuple[dict[str, list], set[str]]:
    """Per body: ``[(global point at t = 0, joint name or None)]``; the excluded bodies."""
    points: dict[str, list] = {b.name: [] for b in model.bodies}
    excluded: set[str] = set()
    joints = {j.name: j for j in model.joints}
    jointed: set[str] = set()

    def add(body, p, name=None):
        if body in points and p is not None:
            points[body].append((np.asarray(p, float), name))

    for j in model.joints:
        jointed.update((j.body1, j.body2))
        if j.type == "distance":
            add(j.body1, j.point1, j.name)
            add(j.body2, j.point2, j.name)
        else:
            add(j.body1, j.point, j.name)
            add(j.body2, j.point, j.name)
    for f in model.forces:
        if f.type in ("torque", "rotational_spring_damper", "joint_torque"):
            excluded.update(b for b in (f.body, f.body1, f.body2) if b)
            if f.joint in joints:
                excluded.update((joints[f.joint].body1, joints[f.joint].body2))
        elif f.type == "force":
            if f.frame == "body":
                excluded.add(f.body)
            add(f.body, f.point)
        elif f.type == "spring_damper":
            add(f.body1, f.point1)
            add(f.body2, f.point2)
        elif f.type == "contact":
            for s in (f.sphere, f.sphere2):
                if s is not None:
                    add(s.body, s.center)
                    if f.friction is not None:
                        excluded.add(s.body)
            if f.plane is not None:
                add(f.plane.body, f.plane.point)
                add(f.plane.body, np.add(f.plane.point, f.plane.normal))
        elif f.type == "pulley_contact":
            add(f.pulley.body, f.pulley.center)
            if f.friction is not None:  # the belt's friction turns the pulley
                excluded.add(f.pulley.body)
    for o in model.outputs:
        add(o.body, o.point)
    excluded |= set(points) - jointed
    return points, excluded


def _omega_map(p: np.ndarray) -> np.ndarray:
    """``ω = 2 E(p) ṗ`` (global angular velocity from Euler-parameter rates), 3 × 4."""
    p0, pv = p[0], p[1:]
    skew = np.array([[0.0, -pv[2], pv[1]], [pv[2], 0.0, -pv[0]], [-pv[1], pv[0], 0.0]])
    return 2.0 * np.column_stack([-pv, p0 * np.eye(3) + skew])


def _null(a: np.ndarray, scale: float) -> np.ndarray:
    """Orthonormal basis of the null space of the small dense ``a``."""
    if a.shape[0] == 0:
        return np.eye(a.shape[1])
    _, s, vt = np.linalg.svd(a)
    rank = int(np.sum(s > 1e-9 * max(scale, 1e-300)))
    return vt[rank:].T


def _matrix(entries, shape, sparse: bool):
    """The matrix of the entries ``(values, rows, cols)``, CSC if ``sparse``, else dense."""
    values, rows, cols = entries
    if sparse:
        return sp.csc_matrix((values, (rows, cols)), shape=shape)
    out = np.zeros(shape)
    np.add.at(out, (rows, cols), values)
    return out


def _column_norms(a) -> np.ndarray:
    """The Euclidean norm of each column of the dense or sparse ``a``."""
    if issparse(a):
        return np.sqrt(np.asarray(a.multiply(a).sum(axis=0)).ravel())
    return np.sqrt(np.einsum("ij,ij->j", a, a))


def _rows_touching(a, lo: int, hi: int) -> np.ndarray:
    """The columns ``lo:hi`` of the dense or CSC ``a`` in the rows that have an entry
    (stored, for CSC) there, in row order."""
    if not issparse(a):
        block = a[:, lo:hi]
        return block[np.any(block != 0.0, axis=1)]
    start, end = a.indptr[lo], a.indptr[hi]
    rows, inverse = np.unique(a.indices[start:end], return_inverse=True)
    local = np.zeros((len(rows), hi - lo))
    cols = np.repeat(np.arange(hi - lo), np.diff(a.indptr[lo : hi + 1]))
    local[inverse, cols] = a.data[start:end]
    return local


def passive_freedoms(system: MultibodySystem, q: np.ndarray, jac) -> list[PassiveFreedom]:
    """The passive freedoms at ``q``; ``jac`` holds every constraint row (``Φ_q`` with the
    norm rows, and the rolling rows), dense or sparse."""
    model = system.model
    points, excluded = _attachments(model)
    columns = sp.csc_matrix(jac) if issparse(jac) else np.asarray(jac, dtype=float)
    out: list[PassiveFreedom] = []
    if not len(system.rigid):
        return out
    quats = q[system.rigid.cols[:, 3:]]
    quats = quats / np.linalg.norm(quats, axis=1, keepdims=True)
    rotations = rotation_matrix(quats)
    # first a cheap screen: the attachment points on one line, and the spin about that
    # line allowed by every constraint row (one sparse product for all bodies)
    candidates: list[tuple] = []
    spin_cols, spin_rows, spin_vals = [], [], []
    for body in model.bodies:
        name = body.name
        slot = system.slots.get(name)
        if slot is None or slot.kind != "rigid" or name in excluded:
            continue
        rot = rotations[slot.index] @ slot.rotation0.T
        attached = [(rot @ (p - slot.position0), j) for p, j in points[name]]
        arms = np.array([np.zeros(3)] + [r for r, _ in attached])
        lengths = np.linalg.norm(arms, axis=1)
        size = max(float(lengths.max()), 1e-3)
        far = int(np.argmax(lengths))
        if lengths[far] > ON_AXIS * size:
            axis = arms[far] / lengths[far]
            off = arms - np.outer(arms @ axis, axis)
            if np.abs(off).max() > ON_AXIS * size:
                continue  # not on one line: every rotation moves a point
            k = len(candidates)
            spin_cols.append(system.rigid.cols[slot.index, 3:])
            spin_rows.append(np.full(4, k))
            spin_vals.append(0.25 * _omega_map(quats[slot.index]).T @ axis)  # ṗ for ω = axis
        candidates.append((body, slot, attached, arms, size))
    if not candidates:
        return out
    if spin_cols:
        entries = np.concatenate(spin_vals), np.concatenate(spin_cols), np.concatenate(spin_rows)
        spins = _matrix(entries, (system.n, len(candidates)), issparse(columns))
        moved = _column_norms(columns)
        scale = float(moved.max()) if len(moved) else 1.0
        blocked = _column_norms(columns @ spins) > 1e-9 * scale
        with_line = {int(k) for k in np.unique(np.concatenate(spin_rows))}
    else:
        blocked, with_line = np.zeros(len(candidates), bool), set()
    order = {j.name: i for i, j in enumerate(model.joints)}
    for k, (body, slot, attached, arms, size) in enumerate(candidates):
        if k in with_line and blocked[k]:
            continue
        name = body.name
        centre = q[slot.offset : slot.offset + 3]
        local = _rows_touching(columns, slot.offset, slot.offset + 7)
        p = q[slot.offset + 3 : slot.offset + 7]
        p = p / np.linalg.norm(p)
        free = _null(local, float(np.abs(local).max()) if local.size else 1.0)
        if not free.shape[1]:
            continue
        # (v, ω) of each free direction, then keep the combinations fixing every point
        v = free[:3]
        w = _omega_map(p) @ free[3:]
        rows_pts = [v] + [v - _skew(r) @ w for r in arms[1:]]
        keep = _null(np.vstack(rows_pts), max(1.0, float(np.abs(np.vstack([v, w])).max())))
        if not keep.shape[1]:
            continue
        omegas = w @ keep
        count = int(np.linalg.matrix_rank(omegas, tol=1e-9))
        if count == 0:
            continue
        axis = None
        if count == 1:
            best = int(np.argmax(np.linalg.norm(omegas, axis=0)))
            axis = omegas[:, best] / np.linalg.norm(omegas[:, best])
        along = _joints_on(attached, axis, size)
        names = sorted(along, key=along.get)
        if len(names) > 1 and order[names[-1]] < order[names[0]]:
            names.reverse()  # read from the joint listed first in the model
        span = abs(along[names[-1]] - along[names[0]]) if names else 0.0
        span = span if span > ON_AXIS * size else 0.0
        out.append(PassiveFreedom(name, count, centre.copy(), axis, names, span))
    return out


def _joints_on(attached, axis, size: float) -> dict[str, float]:
    """The joints among ``attached`` (arms from the centre of mass) on ``axis`` and their
    coordinate along it (all of them, at 0, when there is no single axis)."""
    found: dict[str, float] = {}
    for r, j in attached:
        if j is None:
            continue
        if axis is None:
            found.setdefault(j, 0.0)
        elif np.linalg.norm(r - (r @ axis) * axis) <= ON_AXIS * size:
            found.setdefault(j, float(r @ axis))
    return found


def _skew(r: np.ndarray) -> np.ndarray:
    return np.array([[0.0, -r[2], r[1]], [r[2], 0.0, -r[0]], [-r[1], r[0], 0.0]])
