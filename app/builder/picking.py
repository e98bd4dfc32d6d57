"""From a click on the 3D view to a point of the model: projection, rays, snapping.

Screen coordinates are the widget's logical pixels (Qt), origin top-left; VTK's display
coordinates are device pixels from the bottom-left. A click resolves, in this order, to:
a snapping point of the model within ``SNAP_PIXELS`` (shape centres, rod and cylinder ends,
box vertices, joint points), the surface point of the body under the cursor (with its face
normal), or the point of the work plane under the cursor rounded to the grid step.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from solver.model import description as d
from solver.model.mass_properties import rotation_matrix

SNAP_PIXELS = 10.0
#: Work planes: name → (normal, index of the coordinate held constant).
WORK_PLANES = {"XY": (0.0, 0.0, 1.0), "XZ": (0.0, 1.0, 0.0), "YZ": (1.0, 0.0, 0.0)}


@dataclass
class SnapPoint:
    """A point clicks snap to and the bodies it belongs to (empty: ground)."""

    point: np.ndarray
    bodies: tuple[str, ...]
    label: str


@dataclass
class Pick:
    """What a click found. ``body`` is ``"ground"`` for the work plane and the floor."""

    point: np.ndarray
    body: str
    normal: np.ndarray | None = None
    snapped: str = ""  # what the point snapped to ("" = a free surface point)
    bodies: tuple[str, ...] = field(default_factory=tuple)  # every body at a snapped point
    item: tuple[str, str] | None = None  # the model item under the cursor


def display_ratio(plotter: Any) -> float:
    return float(plotter.devicePixelRatioF())


def project(plotter: Any, point) -> tuple[float, float]:
    """Widget pixel coordinates (x right, y down) of a global point."""
    ren = plotter.renderer
    x, y, z = (float(v) for v in point)
    ren.SetWorldPoint(x, y, z, 1.0)
    ren.WorldToDisplay()
    dx, dy, _ = ren.GetDisplayPoint()
    ratio = display_ratio(plotter)
    height = plotter.height() * ratio
    return dx / ratio, (height - 1.0 - dy) / ratio


def ray(plotter: Any, x: float, y: float) -> tuple[np.ndarray, np.ndarray]:
    """The line of sight through widget pixel (x, y): origin (near plane) and unit direction."""
    ren = plotter.renderer
    ratio = display_ratio(plotter)
    height = plotter.height() * ratio
    dx, dy = x * ratio, height - 1.0 - y * ratio
    ends = []
    for depth in (0.0, 1.0):
        ren.SetDisplayPoint(dx, dy, depth)
        ren.DisplayToWorld()
        w = np.asarray(ren.GetWorldPoint(), float)
        ends.append(w[:3] / w[3])
    direction = ends[1] - ends[0]
    return ends[0], direction / np.linalg.norm(direction)


def plane_hit(origin, direction, point, normal) -> np.ndarray | None:
    """Where the ray meets the plane (None if parallel)."""
    normal = np.asarray(normal, float)
    denom = float(np.dot(direction, normal))
    if abs(denom) < 1e-12:
        return None
    s = float(np.dot(np.asarray(point, float) - origin, normal)) / denom
    return origin + s * np.asarray(direction, float)


def snap_to_grid(point: np.ndarray, step: float, normal) -> np.ndarray:
    """Round the in-plane coordinates to multiples of ``step`` (the normal one is kept)."""
    if step <= 0:
        return point
    held = int(np.argmax(np.abs(normal)))
    out = np.round(np.asarray(point, float) / step) * step
    out[held] = point[held]
    return out + 0.0  # no negative zeros


def box_vertices(shape: d.Shape) -> list[np.ndarray]:
    half = 0.5 * np.asarray(shape.size, float)
    rot = rotation_matrix(shape.orientation or (1.0, 0.0, 0.0, 0.0))
    c = np.asarray(shape.center, float)
    return [
        c + rot @ (half * np.array([sx, sy, sz]))
        for sx in (-1, 1)
        for sy in (-1, 1)
        for sz in (-1, 1)
    ]


def snap_points(model: d.Model) -> list[SnapPoint]:
    """Every snapping point of the model at t = 0; coincident points are merged."""
    raw: list[tuple[np.ndarray, str, str]] = []
    for body in model.bodies:
        if isinstance(body, d.FlexibleBody):
            for k, p in enumerate(body.node_positions()):
                raw.append((np.asarray(p, float), body.name, f"{body.name} node {k}"))
            continue
        raw.append((np.asarray(body.position, float), body.name, f"{body.name} centre of mass"))
        for shape in body.shapes:
            if shape.center is not None:
                raw.append(
                    (np.asarray(shape.center, float), body.name, f"{body.name} {shape.type} centre")
                )
            if shape.start is not None and shape.end is not None:
                a, b = np.asarray(shape.start, float), np.asarray(shape.end, float)
                raw.append((a, body.name, f"{body.name} {shape.type} end"))
                raw.append((b, body.name, f"{body.name} {shape.type} end"))
                raw.append(((a + b) / 2, body.name, f"{body.name} {shape.type} centre"))
            if shape.type == "box" and shape.center is not None and shape.size is not None:
                for v in box_vertices(shape):
                    raw.append((v, body.name, f"{body.name} box vertex"))
    for joint in model.joints:
        for p in (joint.point, joint.point1, joint.point2):
            if p is not None:
                raw.append((np.asarray(p, float), "", f"joint {joint.name}"))
    merged: list[SnapPoint] = []
    for point, body, label in raw:
        for s in merged:
            if np.linalg.norm(s.point - point) < 1e-9:
                if body and body not in s.bodies:
                    s.bodies = (*s.bodies, body)
                break
        else:
            merged.append(SnapPoint(point, (body,) if body else (), label))
    return merged


def _face_normal(picker: Any, actor: Any) -> np.ndarray | None:
    """The geometric normal of the picked face (not the smoothed point normals), global,
    toward the camera."""
    data = picker.GetDataSet()
    cell_id = picker.GetCellId()
    if data is None or cell_id < 0:
        return None
    points = data.GetCell(cell_id).GetPoints()
    if points is None or points.GetNumberOfPoints() < 3:
        return None
    matrix = np.eye(4)
    vtk_matrix = actor.GetMatrix()
    for i in range(4):
        for j in range(4):
            matrix[i, j] = vtk_matrix.GetElement(i, j)
    p = [matrix[:3, :3] @ np.asarray(points.GetPoint(k), float) for k in range(3)]
    n = np.cross(p[1] - p[0], p[2] - p[0])
    length = float(np.linalg.norm(n))
    if length == 0:
        return None
    n /= length
    toward = np.asarray(picker.GetPickPosition(), float) - np.asarray(
        picker.GetRenderer().GetActiveCamera().GetPosition(), float
    )
    return -n if n @ toward > 0 else n


def contains(shape: d.Shape, point: np.ndarray, tol: float = 1e-9) -> bool:
    """True when ``point`` (global, t = 0) is inside or on a solid shape."""
    p = np.asarray(point, float)
    if shape.type == "sphere" and shape.center is not None and shape.radius:
        return float(np.linalg.norm(p - np.asarray(shape.center, float))) <= shape.radius + tol
    if shape.type == "box" and shape.center is not None and shape.size is not None:
        rot = rotation_matrix(shape.orientation or (1.0, 0.0, 0.0, 0.0))
        local = rot.T @ (p - np.asarray(shape.center, float))
        return bool(np.all(np.abs(local) <= 0.5 * np.asarray(shape.size, float) + tol))
    if shape.type in ("cylinder", "rod") and shape.start is not None and shape.end is not None:
        a, b = np.asarray(shape.start, float), np.asarray(shape.end, float)
        axis = b - a
        length = float(np.linalg.norm(axis))
        if length == 0:
            return False
        s = float((p - a) @ axis) / length**2
        radial = float(np.linalg.norm(p - a - s * axis))
        return -tol <= s * length <= length + tol and radial <= (shape.radius or 0.0) + tol
    return False


def bodies_at(model: d.Model, point: np.ndarray, tol: float = 1e-9) -> tuple[str, ...]:
    """The bodies a typed point belongs to: those with a snapping point there (a rod end
    shared by two rods gives both), else those whose shapes contain it; empty: ground."""
    p = np.asarray(point, float)
    for s in snap_points(model):
        if float(np.linalg.norm(s.point - p)) <= tol and s.bodies:
            return s.bodies
    return tuple(
        body.name
        for body in model.bodies
        if not isinstance(body, d.FlexibleBody) and any(contains(sh, p, tol) for sh in body.shapes)
    )


class Picker:
    """Resolves clicks on a ``Viewport`` (see the module docstring)."""

    def __init__(self, viewport: Any) -> None:
        self.viewport = viewport
        self.grid_step = 0.05  # m; 0 = no grid snapping
        self.plane = "XZ"
        self.plane_offset = 0.0  # m along the plane's normal
        self.snap = True

    @property
    def plotter(self) -> Any:
        return self.viewport.plotter

    @property
    def normal(self) -> np.ndarray:
        return np.asarray(WORK_PLANES[self.plane], float)

    def surface(self, x: float, y: float) -> tuple[Any, np.ndarray, np.ndarray] | None:
        """``(actor, point, normal)`` of the nearest surface under widget pixel (x, y)."""
        import vtk

        picker = vtk.vtkCellPicker()
        picker.SetTolerance(0.0005)
        ratio = display_ratio(self.plotter)
        height = self.plotter.height() * ratio
        if not picker.Pick(x * ratio, height - 1.0 - y * ratio, 0, self.plotter.renderer):
            return None
        actor = picker.GetActor()
        if actor is None:
            return None
        normal = _face_normal(picker, actor)
        if normal is None:
            normal = np.asarray(picker.GetPickNormal(), float)
        return actor, np.asarray(picker.GetPickPosition(), float), normal

    def item_of_actor(self, actor: Any) -> tuple[str, str] | None:
        for key, item in self.viewport.items.items():
            if any(a is actor for a in item.actors):
                return key
        return None

    def nearest_snap(self, model: d.Model, x: float, y: float) -> SnapPoint | None:
        best, best_dist = None, SNAP_PIXELS
        origin, _ = ray(self.plotter, x, y)
        for s in snap_points(model):
            px, py = project(self.plotter, s.point)
            dist = float(np.hypot(px - x, py - y))
            closer = (
                best is not None
                and abs(dist - best_dist) < 1e-6
                and (np.linalg.norm(s.point - origin) < np.linalg.norm(best.point - origin))
            )
            if dist < best_dist - 1e-6 or closer:
                best, best_dist = s, dist
        return best

    def plane_point(self, x: float, y: float) -> np.ndarray | None:
        origin, direction = ray(self.plotter, x, y)
        hit = plane_hit(origin, direction, self.normal * self.plane_offset, self.normal)
        if hit is None:
            return None
        hit[int(np.argmax(np.abs(self.normal)))] = self.plane_offset  # on it, not 1e-16 off
        return snap_to_grid(hit, self.grid_step if self.snap else 0.0, self.normal)

    def pick(self, x: float, y: float, model: d.Model | None) -> Pick | None:
        """The model point under widget pixel (x, y) (see the module docstring)."""
        if self.plotter is None:
            return None
        surface = self.surface(x, y)
        item = self.item_of_actor(surface[0]) if surface is not None else None
        under = item[1] if item is not None and item[0] in ("body", "flexible") else None
        if model is not None and self.snap:
            s = self.nearest_snap(model, x, y)
            if s is not None:
                body = under if under in s.bodies else (s.bodies[0] if s.bodies else d.GROUND)
                normal = surface[2] if surface is not None and under == body else None
                return Pick(s.point.copy(), body, normal, s.label, s.bodies, item)
        if under is not None and surface is not None:
            return Pick(surface[1], under, surface[2], "", (under,), item)
        point = self.plane_point(x, y)
        if point is None:
            return None
        return Pick(point, d.GROUND, self.normal.copy(), "grid" if self.snap else "", (), item)
