"""What the viewport draws, as plain numpy: body poses from a results row, glyph geometry.

No Qt, no VTK here: the worker thread may call nothing in this module either, but the
functions are pure and cheap, so the viewport (GUI thread) and the tests use them directly.

Poses come from the CSV row (``Result.columns``), never from solver internals:
rigid body ``B.x B.y B.z B.e0..B.e3``, point mass ``B.x B.y B.z``, flexible body nodes
``F.nK.x F.nK.y F.nK.z`` (and slopes ``F.nK.tx ..``), output points ``P.x P.y P.z``.
Shapes in the model file are global at t = 0, so the motion of a body's geometry is the
transform ``T(t) · T(0)⁻¹``, with ``T(0)`` the body's pose in the file.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

import numpy as np

from solver.model import description as d

#: Unit strings of result quantities, by the last part of the column name.
UNITS = {
    "x": "m",
    "y": "m",
    "z": "m",
    "vx": "m/s",
    "vy": "m/s",
    "vz": "m/s",
    "wx": "rad/s",
    "wy": "rad/s",
    "wz": "rad/s",
    "e0": "–",
    "e1": "–",
    "e2": "–",
    "e3": "–",
    "tx": "–",
    "ty": "–",
    "tz": "–",
    "angle": "deg",
    "speed": "m/s",
    "kinetic": "J",
    "potential": "J",
    "elastic": "J",
    "work": "J",
    "total": "J",
    "position": "m, rad",
    "velocity": "m/s, rad/s",
    "t": "s",
}

#: Units of the requested quantities (``reaction.J.Fx``, ``effort.D.torque``, ``B.ax``, …).
REQUESTED_UNITS = {
    **{f"F{c}{b}": "N" for c in "xyz" for b in ("", "_body")},
    **{f"T{c}{b}": "N·m" for c in "xyz" for b in ("", "_body")},
    "torque": "N·m",
    "force": "N",
    **{f"a{c}": "m/s²" for c in "xyz"},
    **{f"alpha{c}": "rad/s²" for c in "xyz"},
    **{f"w{c}_body": "rad/s" for c in "xyz"},
}
JOINT_UNITS = {
    "angle": "rad",
    "angle_rate": "rad/s",
    "displacement": "m",
    "displacement_rate": "m/s",
}

_NODE = re.compile(r"^(?P<body>.+)\.n(?P<node>\d+)\.(?P<field>x|y|z|tx|ty|tz)$")


def unit_of(column: str) -> str:
    """SI unit of a result column (``"m"``, ``"J"``, ...)."""
    last = column.rsplit(".", 1)[-1]
    if column.startswith("joint.") and column.count(".") >= 2:
        return JOINT_UNITS.get(last, "")
    return REQUESTED_UNITS.get(last) or UNITS.get(last, "")


def label_of(column: str) -> str:
    """Axis label with unit: ``"crank.x (m)"``, ``"t (s)"``."""
    unit = unit_of(column)
    return f"{column} ({unit})" if unit else column


def quat_matrix(e: np.ndarray) -> np.ndarray:
    """Rotation matrix of Euler parameters ``[e0, e1, e2, e3]`` (body→global)."""
    e0, e1, e2, e3 = e
    return np.array(
        [
            [
                e0 * e0 + e1 * e1 - e2 * e2 - e3 * e3,
                2 * (e1 * e2 - e0 * e3),
                2 * (e1 * e3 + e0 * e2),
            ],
            [
                2 * (e1 * e2 + e0 * e3),
                e0 * e0 - e1 * e1 + e2 * e2 - e3 * e3,
                2 * (e2 * e3 - e0 * e1),
            ],
            [
                2 * (e1 * e3 - e0 * e2),
                2 * (e2 * e3 + e0 * e1),
                e0 * e0 - e1 * e1 - e2 * e2 + e3 * e3,
            ],
        ]
    )


def homogeneous(rotation: np.ndarray, translation: np.ndarray) -> np.ndarray:
    out = np.eye(4)
    out[:3, :3] = rotation
    out[:3, 3] = translation
    return out


def inverse_homogeneous(matrix: np.ndarray) -> np.ndarray:
    rotation = matrix[:3, :3]
    return homogeneous(rotation.T, -rotation.T @ matrix[:3, 3])


@dataclass
class ColumnMap:
    """Where each body's coordinates are in a results row."""

    columns: list[str]
    rigid: dict[str, int] = field(default_factory=dict)  # name → index of "name.x" (e0 at +3)
    point: dict[str, int] = field(default_factory=dict)  # point masses and output points
    nodes: dict[str, list[tuple[int, int | None]]] = field(default_factory=dict)  # x, tx
    index: dict[str, int] = field(default_factory=dict)

    @classmethod
    def from_columns(cls, columns: list[str]) -> ColumnMap:
        cmap = cls(list(columns), index={c: i for i, c in enumerate(columns)})
        idx = cmap.index
        node_x: dict[str, dict[int, int]] = {}
        node_t: dict[str, dict[int, int]] = {}
        for i, col in enumerate(columns):
            m = _NODE.match(col)
            if m:
                if m["field"] == "x":
                    node_x.setdefault(m["body"], {})[int(m["node"])] = i
                elif m["field"] == "tx":
                    node_t.setdefault(m["body"], {})[int(m["node"])] = i
                continue
            if col.endswith(".x"):
                name = col[:-2]
                if f"{name}.e0" in idx:
                    cmap.rigid[name] = i
                elif f"{name}.y" in idx and f"{name}.z" in idx:
                    cmap.point[name] = i
        for body, nodes in node_x.items():
            tangents = node_t.get(body, {})
            cmap.nodes[body] = [(nodes[k], tangents.get(k)) for k in sorted(nodes)]
        return cmap

    def has(self, column: str) -> bool:
        return column in self.index


def body_matrix(cmap: ColumnMap, row: np.ndarray, name: str) -> np.ndarray | None:
    """Homogeneous pose of a rigid body or point mass at ``row`` (None if not in the row)."""
    i = cmap.rigid.get(name)
    if i is not None:
        e = np.asarray(row[i + 3 : i + 7], dtype=float)
        norm = float(np.linalg.norm(e))
        if norm > 0:
            e = e / norm
        return homogeneous(quat_matrix(e), row[i : i + 3])
    i = cmap.point.get(name)
    if i is not None:
        return homogeneous(np.eye(3), row[i : i + 3])
    return None


def point_of(cmap: ColumnMap, row: np.ndarray, name: str) -> np.ndarray | None:
    """Position of an output point (or point mass) ``name`` at ``row``."""
    i = cmap.point.get(name, cmap.rigid.get(name))
    return None if i is None else np.asarray(row[i : i + 3], dtype=float)


def initial_matrix(body: d.Body) -> np.ndarray:
    """The body's pose at t = 0 as given in the file (identity for a flexible body)."""
    if isinstance(body, d.RigidBody):
        e = np.asarray(body.orientation, dtype=float)
        return homogeneous(quat_matrix(e / np.linalg.norm(e)), np.asarray(body.position, float))
    if isinstance(body, d.PointMass):
        return homogeneous(np.eye(3), np.asarray(body.position, float))
    return np.eye(4)


def motion_matrix(cmap: ColumnMap, row: np.ndarray, body: d.Body) -> np.ndarray:
    """``T(t) · T(0)⁻¹``: maps a body's global-at-t=0 geometry to time ``row[0]``."""
    current = body_matrix(cmap, row, body.name)
    if current is None:
        return np.eye(4)
    return current @ inverse_homogeneous(initial_matrix(body))


def transform_point(matrix: np.ndarray, p) -> np.ndarray:
    p = np.asarray(p, dtype=float)
    return matrix[:3, :3] @ p + matrix[:3, 3]


def node_curve(
    cmap: ColumnMap,
    row: np.ndarray,
    body: d.FlexibleBody,
    samples: int = 6,
    reference: np.ndarray | None = None,
    scale: float = 1.0,
) -> np.ndarray:
    """Centre line of a flexible body at ``row``: cubic Hermite between the nodes when the
    slopes are in the row (``F.nK.tx..``), straight segments otherwise. (n, 3) array.
    With a ``reference`` row (t = 0) and ``scale`` ≠ 1 the deformation is drawn magnified
    (``scaled_deformation``)."""
    nodes = cmap.nodes.get(body.name)
    if not nodes:
        curve = np.asarray(body.node_positions(), dtype=float)
        return np.vstack([curve, curve[:1]]) if body.closed else curve
    xs = np.array([row[ix : ix + 3] for ix, _ in nodes], dtype=float)
    slopes = not any(it is None for _, it in nodes)
    ts = np.array([row[it : it + 3] for _, it in nodes], dtype=float) if slopes else None
    if reference is not None and scale != 1.0:
        xs0 = np.array([reference[ix : ix + 3] for ix, _ in nodes], dtype=float)
        ts0 = np.array([reference[it : it + 3] for _, it in nodes], dtype=float) if slopes else None
        xs, ts = scaled_deformation(xs, ts, xs0, ts0, scale)
    if ts is None or len(nodes) < 2:
        return np.vstack([xs, xs[:1]]) if body.closed else xs
    length = body.natural_length() / body.elements  # of an element, unstressed
    if body.closed:  # the last element ends at node 0
        xs, ts = np.vstack([xs, xs[:1]]), np.vstack([ts, ts[:1]])
    s = np.linspace(0.0, 1.0, samples, endpoint=False)
    h1 = 2 * s**3 - 3 * s**2 + 1
    h2 = (s**3 - 2 * s**2 + s) * length
    h3 = -2 * s**3 + 3 * s**2
    h4 = (s**3 - s**2) * length
    parts = [
        np.outer(h1, xs[k])
        + np.outer(h2, ts[k])
        + np.outer(h3, xs[k + 1])
        + np.outer(h4, ts[k + 1])
        for k in range(len(xs) - 1)
    ]
    parts.append(xs[-1:])
    return np.vstack(parts)


def rigid_fit(reference: np.ndarray, current: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(R, c)``: the rotation and translation that carry the ``reference`` points closest
    to the ``current`` ones in the least-squares sense (Kabsch), ``x ≈ R x₀ + c``."""
    c0 = reference.mean(axis=0)
    c1 = current.mean(axis=0)
    h = (reference - c0).T @ (current - c1)
    u, _, vt = np.linalg.svd(h)
    sign = 1.0 if np.linalg.det(vt.T @ u.T) >= 0 else -1.0
    rot = vt.T @ np.diag([1.0, 1.0, sign]) @ u.T
    return rot, c1 - rot @ c0


def scaled_deformation(
    xs: np.ndarray,
    ts: np.ndarray | None,
    xs0: np.ndarray,
    ts0: np.ndarray | None,
    scale: float,
) -> tuple[np.ndarray, np.ndarray | None]:
    """Node positions ``xs`` and slopes ``ts`` with the deformation magnified ``scale``
    times: relative to the best-fitting rigid placement ``(R, c)`` of the reference nodes
    ``xs0`` (``rigid_fit``), ``x' = R x₀ + c + scale (x − R x₀ − c)`` and
    ``t' = R t₀ + scale (t − R t₀)``. The rigid motion is drawn as it is; bending and
    stretching grow by ``scale``."""
    rot, shift = rigid_fit(xs0, xs)
    placed = xs0 @ rot.T + shift
    out_x = placed + scale * (xs - placed)
    if ts is None or ts0 is None:
        return out_x, ts
    turned = ts0 @ rot.T
    return out_x, turned + scale * (ts - turned)


def section_radius(body: d.FlexibleBody) -> float:
    """Radius of the tube drawn for a beam: half the larger side, or the section radius."""
    s = body.section
    if s.radius:
        return float(s.radius)
    if s.width or s.height:
        return 0.5 * max(s.width or 0.0, s.height or 0.0)
    if s.area:
        return math.sqrt(s.area / math.pi)
    return 0.01


def helix(p1: np.ndarray, p2: np.ndarray, radius: float, coils: int = 10, per_coil: int = 16):
    """Points of a helical spring from ``p1`` to ``p2`` (straight end leads)."""
    p1 = np.asarray(p1, float)
    p2 = np.asarray(p2, float)
    axis = p2 - p1
    length = float(np.linalg.norm(axis))
    if length < 1e-12:
        return np.vstack([p1, p2])
    u = axis / length
    ref = np.array([1.0, 0.0, 0.0]) if abs(u[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    v = np.cross(u, ref)
    v /= np.linalg.norm(v)
    w = np.cross(u, v)
    n = coils * per_coil
    s = np.linspace(0.0, 1.0, n + 1)
    phase = 2 * math.pi * coils * s
    lead = 0.08
    along = lead + (1 - 2 * lead) * s
    coil = (
        p1
        + np.outer(along * length, u)
        + radius * (np.outer(np.cos(phase), v) + np.outer(np.sin(phase), w))
    )
    return np.vstack([p1, coil, p2])


def model_points(model: d.Model) -> np.ndarray:
    """Every characteristic point of the model at t = 0 (for scale and framing)."""
    pts: list = [(0.0, 0.0, 0.0)]
    for b in model.bodies:
        if isinstance(b, d.FlexibleBody):
            pts += list(b.node_positions()) if b.closed else list(b.points)
            continue
        pts.append(b.position)
        for s in b.shapes:
            for p in (s.center, s.start, s.end):
                if p is not None:
                    pts.append(p)
    for j in model.joints:
        for p in (j.point, j.point1, j.point2):
            if p is not None:
                pts.append(p)
    for f in model.forces:
        for p in (f.point, f.point1, f.point2):
            if p is not None:
                pts.append(p)
    for o in model.outputs:
        pts.append(o.point)
    return np.asarray(pts, dtype=float)


def model_scale(model: d.Model) -> float:
    """A characteristic length of the model (m): its bounding-box diagonal, at least 0.1."""
    pts = model_points(model)
    diag = float(np.linalg.norm(pts.max(axis=0) - pts.min(axis=0)))
    return max(diag, 0.1)


def up_vector(model: d.Model) -> np.ndarray:
    """Unit vector opposite to gravity (z when there is none)."""
    g = np.asarray(model.gravity, dtype=float)
    n = float(np.linalg.norm(g))
    return -g / n if n > 0 else np.array([0.0, 0.0, 1.0])


def attachment_points(model: d.Model, body_name: str) -> list[np.ndarray]:
    """Joint, force and output points on a body (global, t = 0): where its sticks go."""
    pts: list[np.ndarray] = []

    def add(p):
        if p is not None:
            pts.append(np.asarray(p, dtype=float))

    for j in model.joints:
        if j.type == "distance":
            if j.body1 == body_name:
                add(j.point1)
            if j.body2 == body_name:
                add(j.point2)
        elif body_name in (j.body1, j.body2):
            add(j.point)
    for f in model.forces:
        if f.body == body_name:
            add(f.point)
        if f.body1 == body_name:
            add(f.point1)
        if f.body2 == body_name:
            add(f.point2)
        for ref in (f.sphere, f.sphere2):
            if ref is not None and ref.body == body_name:
                add(ref.center)
    for o in model.outputs:
        if o.body == body_name:
            add(o.point)
    return pts


def rotation_angle_deg(e: np.ndarray) -> np.ndarray:
    """Rotation angle (deg) of Euler parameters, rows of ``e`` = [e0, e1, e2, e3]."""
    e = np.atleast_2d(e)
    vec = np.linalg.norm(e[:, 1:], axis=1)
    return np.degrees(2.0 * np.arctan2(vec, np.abs(e[:, 0])))


def derived_quantities(columns: list[str]) -> list[str]:
    """Quantities computed from the columns for plotting: body rotation angle, speed."""
    index = set(columns)
    out = []
    for c in columns:
        if c.endswith(".e0"):
            out.append(c[:-3] + ".angle")
        elif c.endswith(".vx") and c[:-3] + ".vz" in index:
            out.append(c[:-3] + ".speed")
    return out


def quantity(data: np.ndarray, columns: list[str], name: str) -> np.ndarray:
    """A column of ``data`` by name, or a derived quantity (``B.angle``, ``P.speed``)."""
    index = {c: i for i, c in enumerate(columns)}
    if name in index:
        return data[:, index[name]]
    base, _, what = name.rpartition(".")
    if what == "angle" and f"{base}.e0" in index:
        i = index[f"{base}.e0"]
        return rotation_angle_deg(data[:, i : i + 4])
    if what == "speed" and f"{base}.vx" in index:
        i = index[f"{base}.vx"]
        return np.linalg.norm(data[:, i : i + 3], axis=1)
    raise KeyError(name)
