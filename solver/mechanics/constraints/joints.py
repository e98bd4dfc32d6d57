"""Joints and drivers built from constraint primitives.

Every joint is given globally at t = 0 (docs/model_format.md); the builder turns its points and
directions into markers on the two bodies and adds primitive instances:

============== ===================================================== =========
joint          primitives                                            equations
============== ===================================================== =========
spherical      coincident point                                      3
revolute       coincident point + axis ⟂ two body-2 normals          5
cylindrical    2 point-on-plane (normals of the axis) + 2 ⟂          4
prismatic      cylindrical + a body-1 normal ⟂ a body-2 normal       5
universal      coincident point + axis1·axis2 = initial value        4
planar         point-on-plane + normal ⟂ two body-2 in-plane vectors 3
fixed          coincident point + three frame-axis products          6
distance       distance between two points                           1
point_on_line  2 point-on-plane (the line's normals)                 2
point_on_plane point-on-plane                                        1
rolling_disk   disc on plane (+ 0, 1 or 2 velocity-level no-slip rows) 1
============== ===================================================== =========

No joint is redundant by construction, so the DOF count of a model reflects its
topology. Drivers add one ``Angle`` (revolute, cylindrical angle) or one ``PointPlane``
with a time function (prismatic, cylindrical displacement).
"""

from __future__ import annotations

import numpy as np

from solver.mechanics.constraints.primitives import Angle, Coincident, Distance, Dot, PointPlane
from solver.mechanics.constraints.rolling import SLIP_ROWS, DiscOnPlane
from solver.model import description as d
from solver.model.errors import UnsupportedFeature


def normals(axis) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Unit ``axis`` and two unit normals ``n1, n2`` with ``n1 × n2 = axis``."""
    a = np.asarray(axis, float)
    a = a / np.linalg.norm(a)
    helper = np.array([1.0, 0.0, 0.0]) if abs(a[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    n1 = np.cross(a, helper)
    n1 /= np.linalg.norm(n1)
    return a, n1, np.cross(a, n1)


class JointBuilder:
    """Adds primitive instances for joints and drivers; ``ctx`` makes markers.

    ``ctx.point(body, xyz, where, field)`` and ``ctx.vector(body, xyz)`` return marker
    indices; ``ctx.group(cls)`` the shared primitive group of a class.
    Each built item is recorded as a list of ``(group, instance)`` pairs.
    """

    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self.items: dict[str, list[tuple[object, int]]] = {}

    def _add(self, key: str, cls, markers, const=0.0, function=None) -> None:
        group = self.ctx.group(cls)
        self.items.setdefault(key, []).append((group, group.add(markers, const, function)))

    def joint(self, index: int, j: d.Joint) -> None:
        where = f'joints[{index}] "{j.name}"'
        key = f"joint:{j.name}"
        ctx, b1, b2 = self.ctx, j.body1, j.body2
        build = getattr(self, f"_{j.type}", None)
        if build is None:
            raise UnsupportedFeature(
                where, f"{j.type} joints are not available in this version of the solver", "type"
            )
        self.items[key] = []
        build(key, where, ctx, b1, b2, j)

    def _spherical(self, key, where, ctx, b1, b2, j):
        self._add(
            key,
            Coincident,
            (ctx.point(b1, j.point, where, "point"), ctx.point(b2, j.point, where, "point")),
        )

    def _perpendicular_pair(self, key, ctx, b1, b2, a, n1, n2, at=None):
        """Body-1 direction ``a`` stays perpendicular to body-2 directions n1, n2."""
        va = ctx.vector(b1, a, at)
        self._add(key, Dot, (va, ctx.vector(b2, n1, at)))
        self._add(key, Dot, (va, ctx.vector(b2, n2, at)))

    def _revolute(self, key, where, ctx, b1, b2, j):
        self._spherical(key, where, ctx, b1, b2, j)
        a, n1, n2 = normals(j.axis)
        self._perpendicular_pair(key, ctx, b1, b2, a, n1, n2, j.point)

    def _line(self, key, where, ctx, b1, b2, j, field="point"):
        """Point of body 2 on the line of body 1 through ``j.point`` along ``j.axis``."""
        a, n1, n2 = normals(j.axis)
        pa, pb = ctx.point(b1, j.point, where, field), ctx.point(b2, j.point, where, field)
        self._add(key, PointPlane, (pa, pb, ctx.vector(b1, n1, j.point)))
        self._add(key, PointPlane, (pa, pb, ctx.vector(b1, n2, j.point)))
        return a, n1, n2

    def _cylindrical(self, key, where, ctx, b1, b2, j):
        a, n1, n2 = self._line(key, where, ctx, b1, b2, j)
        va = ctx.vector(b2, a, j.point)
        self._add(key, Dot, (ctx.vector(b1, n1, j.point), va))
        self._add(key, Dot, (ctx.vector(b1, n2, j.point), va))
        return a, n1, n2

    def _prismatic(self, key, where, ctx, b1, b2, j):
        _, n1, n2 = self._cylindrical(key, where, ctx, b1, b2, j)
        self._add(key, Dot, (ctx.vector(b1, n1, j.point), ctx.vector(b2, n2, j.point)))

    def _universal(self, key, where, ctx, b1, b2, j):
        self._spherical(key, where, ctx, b1, b2, j)
        a1 = np.asarray(j.axis1, float) / np.linalg.norm(j.axis1)
        a2 = np.asarray(j.axis2, float) / np.linalg.norm(j.axis2)
        self._add(
            key,
            Dot,
            (ctx.vector(b1, a1, j.point), ctx.vector(b2, a2, j.point)),
            const=float(a1 @ a2),
        )

    def _planar(self, key, where, ctx, b1, b2, j):
        n, t1, t2 = normals(j.normal)
        vn = ctx.vector(b1, n, j.point)
        self._add(
            key,
            PointPlane,
            (ctx.point(b1, j.point, where, "point"), ctx.point(b2, j.point, where, "point"), vn),
        )
        self._perpendicular_pair(key, ctx, b1, b2, n, t1, t2, j.point)

    def _fixed(self, key, where, ctx, b1, b2, j):
        point = j.point if j.point is not None else ctx.centre(b2)
        self._add(
            key,
            Coincident,
            (ctx.point(b1, point, where, "point"), ctx.point(b2, point, where, "point")),
        )
        ex, ey, ez = np.eye(3)
        for u, v in ((ex, ey), (ey, ez), (ez, ex)):
            self._add(key, Dot, (ctx.vector(b1, u, point), ctx.vector(b2, v, point)))

    def _distance(self, key, where, ctx, b1, b2, j):
        length = (
            j.length
            if j.length is not None
            else float(np.linalg.norm(np.subtract(j.point2, j.point1)))
        )
        pa = ctx.point(b1, j.point1, where, "point1")
        pb = ctx.point(b2, j.point2, where, "point2")
        self._add(key, Distance, (pa, pb), const=length)

    def _point_on_line(self, key, where, ctx, b1, b2, j):
        self._line(key, where, ctx, b1, b2, j)

    def _point_on_plane(self, key, where, ctx, b1, b2, j):
        n = np.asarray(j.normal, float) / np.linalg.norm(j.normal)
        pa, pb = ctx.point(b1, j.point, where, "point"), ctx.point(b2, j.point, where, "point")
        self._add(key, PointPlane, (pa, pb, ctx.vector(b1, n, j.point)))

    def _rolling_disk(self, key, where, ctx, b1, b2, j):
        """Disc ``b2`` (centre ``j.point``, axle ``j.axis``, radius) on the plane of ``b1``
        (normal ``j.normal``, through the contact point at t = 0)."""
        a = np.asarray(j.axis, float) / np.linalg.norm(j.axis)
        n = np.asarray(j.normal, float) / np.linalg.norm(j.normal)
        w = n - (n @ a) * a
        w /= np.linalg.norm(w)
        centre = np.asarray(j.point, float)
        contact = centre - j.radius * w
        markers = (
            ctx.point(b1, contact, where, "point"),
            ctx.point(b2, centre, where, "point"),
            ctx.vector(b1, n, contact),
            ctx.vector(b2, a, centre),
        )
        self._add(key, DiscOnPlane, markers, const=j.radius)
        longitudinal, lateral = SLIP_ROWS[j.slip or "none"]
        if not (longitudinal or lateral):
            return
        if b1 != d.GROUND:
            raise UnsupportedFeature(
                where,
                'rolling without slip on a moving body is not available in this version (use "slip": "free" '
                "or put the plane on ground)",
                "body1",
            )
        if ctx.slots[b2].kind != "rigid":
            raise UnsupportedFeature(
                where,
                "rolling without slip of a disc in natural coordinates is not available in "
                'this version (use "coordinates": "reference_point", or "slip": "free")',
                "body2",
            )
        for lat, wanted in ((False, longitudinal), (True, lateral)):
            if wanted:
                ctx.add_rolling_row(key, markers[1], markers[2], markers[3], b2, j.radius, lat)

    def driver(self, index: int, drv: d.Driver, joint: d.Joint) -> None:
        """The joint's relative angle or displacement from t = 0 follows the function."""
        key = f"driver:{drv.name}"
        where = f'drivers[{index}] "{drv.name}"'
        ctx = self.ctx
        coordinate = drv.coordinate or ("angle" if joint.type == "revolute" else "displacement")
        a, n1, n2 = normals(joint.axis)
        self.items[key] = []
        if coordinate == "angle":
            at = joint.point
            u1, w1 = ctx.vector(joint.body1, n1, at), ctx.vector(joint.body1, n2, at)
            self._add(key, Angle, (u1, w1, ctx.vector(joint.body2, n1, at)), function=drv.function)
        else:
            pa = ctx.point(joint.body1, joint.point, where, "joint")
            pb = ctx.point(joint.body2, joint.point, where, "joint")
            self._add(
                key,
                PointPlane,
                (pa, pb, ctx.vector(joint.body1, a, joint.point)),
                function=drv.function,
            )
