"""Mass, centre of mass and inertia of solid shapes of uniform density.

Shapes are global at t = 0 (docs/model_format.md §6). ``shape_mass_properties`` returns the mass
(kg), the centre of mass (m, global) and the inertia tensor about that centre in global axes
(kg·m²). ``body_mass_properties`` combines shapes with the parallel-axis theorem and
expresses the inertia in body axes given the body orientation (Euler parameters
``[e0, e1, e2, e3]``, body→global).
"""

from __future__ import annotations

import numpy as np

from solver.model.description import Shape

SOLID_SHAPES = ("box", "cylinder", "rod", "sphere")


def rotation_matrix(q) -> np.ndarray:
    """Rotation matrix (body→global) of Euler parameters ``[e0, e1, e2, e3]``."""
    e0, e1, e2, e3 = (float(v) for v in q)
    return (
        np.array(
            [
                [e0 * e0 + e1 * e1 - 0.5, e1 * e2 - e0 * e3, e1 * e3 + e0 * e2],
                [e1 * e2 + e0 * e3, e0 * e0 + e2 * e2 - 0.5, e2 * e3 - e0 * e1],
                [e1 * e3 - e0 * e2, e2 * e3 + e0 * e1, e0 * e0 + e3 * e3 - 0.5],
            ]
        )
        * 2.0
    )


def _frame_with_z(axis: np.ndarray) -> np.ndarray:
    """An orthonormal frame (columns) whose third column is ``axis`` (unit)."""
    z = axis / np.linalg.norm(axis)
    helper = np.array([1.0, 0.0, 0.0]) if abs(z[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    x = np.cross(helper, z)
    x /= np.linalg.norm(x)
    return np.column_stack([x, np.cross(z, x), z])


def shape_mass_properties(shape: Shape, density: float):
    """``(mass, centre, inertia_global)`` of one solid shape; ``ValueError`` if not solid."""
    if shape.type == "box":
        a, b, c = shape.size
        m = density * a * b * c
        local = m / 12.0 * np.diag([b * b + c * c, a * a + c * c, a * a + b * b])
        rot = rotation_matrix(shape.orientation or (1.0, 0.0, 0.0, 0.0))
        return m, np.array(shape.center, float), rot @ local @ rot.T
    if shape.type in ("cylinder", "rod"):
        p0, p1 = np.array(shape.start, float), np.array(shape.end, float)
        h = float(np.linalg.norm(p1 - p0))
        r = shape.radius
        m = density * np.pi * r * r * h
        local = np.diag([m * (3 * r * r + h * h) / 12.0] * 2 + [m * r * r / 2.0])
        rot = _frame_with_z(p1 - p0)
        return m, 0.5 * (p0 + p1), rot @ local @ rot.T
    if shape.type == "sphere":
        r = shape.radius
        m = density * 4.0 / 3.0 * np.pi * r**3
        return m, np.array(shape.center, float), np.eye(3) * (0.4 * m * r * r)
    raise ValueError(f'a "{shape.type}" shape has no computed mass; give mass and inertia')


def body_mass_properties(shapes: list[Shape], density: float, orientation):
    """``(mass, centre, inertia_body)`` of the union of ``shapes`` (assumed disjoint)."""
    parts = [shape_mass_properties(s, density) for s in shapes]
    mass = sum(p[0] for p in parts)
    centre = sum(p[0] * p[1] for p in parts) / mass
    inertia = np.zeros((3, 3))
    for m, c, i_c in parts:
        d = c - centre
        inertia += i_c + m * (np.dot(d, d) * np.eye(3) - np.outer(d, d))
    rot = rotation_matrix(orientation)
    return mass, centre, rot.T @ inertia @ rot
