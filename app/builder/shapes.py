"""New bodies from the palette: box, cylinder, sphere, rod between two points, mesh.

Mass (kg), centre of mass (m) and inertia about it in body axes (kg·m²) come from the shape
and a uniform density (kg/m³) with ``solver.model.mass_properties``; meshes (closed STL/OBJ
surfaces) are integrated here by signed tetrahedra. New bodies have the identity orientation,
so body axes are the global axes at t = 0.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from solver.model import description as d
from solver.model.mass_properties import body_mass_properties

STEEL = 7800.0  # kg/m³
IDENTITY = (1.0, 0.0, 0.0, 0.0)


def _vec(v) -> d.Vec3:
    return tuple(float(x) for x in v)


def _mat(m: np.ndarray) -> d.Mat3:
    m = 0.5 * (np.asarray(m, float) + np.asarray(m, float).T)
    return tuple(tuple(float(x) for x in row) for row in m)


def body_from_shapes(
    name: str, shapes: list[d.Shape], density: float = STEEL, color: str | None = None
) -> d.RigidBody:
    """A rigid body whose mass and inertia are those of ``shapes`` at ``density``."""
    if not density > 0:
        raise ValueError("density must be positive")
    mass, centre, inertia = body_mass_properties(shapes, density, IDENTITY)
    return d.RigidBody(
        name=name,
        mass=float(mass),
        inertia=_mat(inertia),
        position=_vec(centre),
        orientation=IDENTITY,
        shapes=shapes,
        color=color,
    )


def box(name: str, center, size, density: float = STEEL) -> d.RigidBody:
    shape = d.Shape(type="box", center=_vec(center), size=_vec(size))
    return body_from_shapes(name, [shape], density)


def sphere(name: str, center, radius: float, density: float = STEEL) -> d.RigidBody:
    shape = d.Shape(type="sphere", center=_vec(center), radius=float(radius))
    return body_from_shapes(name, [shape], density)


def cylinder(name: str, start, end, radius: float, density: float = STEEL) -> d.RigidBody:
    shape = d.Shape(type="cylinder", start=_vec(start), end=_vec(end), radius=float(radius))
    return body_from_shapes(name, [shape], density)


def rod(name: str, start, end, radius: float, density: float = STEEL) -> d.RigidBody:
    """A rod between two points: a thin cylinder, its ends are snapping points for joints."""
    if np.linalg.norm(np.subtract(end, start)) <= 0:
        raise ValueError("a rod needs two different points")
    shape = d.Shape(type="rod", start=_vec(start), end=_vec(end), radius=float(radius))
    return body_from_shapes(name, [shape], density)


def mesh_mass_properties(points: np.ndarray, triangles: np.ndarray, density: float):
    """``(mass, centre, inertia about the centre, global axes)`` of a closed triangle surface
    (outward normals) by signed tetrahedra from the origin. ``ValueError`` if not closed
    (zero or negative volume)."""
    a = points[triangles[:, 0]]
    b = points[triangles[:, 1]]
    c = points[triangles[:, 2]]
    vol6 = np.einsum("ij,ij->i", a, np.cross(b, c))  # 6 × signed volume of each tetrahedron
    volume = vol6.sum() / 6.0
    if not volume > 0:
        raise ValueError("the mesh does not enclose a volume (open or inward-facing surface)")
    centre = ((a + b + c) * vol6[:, None]).sum(axis=0) / (24.0 * volume)
    # second moments ∫ x_i x_j dV of each tetrahedron (0, a, b, c)
    s = a + b + c
    second = np.zeros((3, 3))
    for i in range(3):
        for j in range(3):
            term = a[:, i] * a[:, j] + b[:, i] * b[:, j] + c[:, i] * c[:, j] + s[:, i] * s[:, j]
            second[i, j] = (vol6 * term).sum() / 120.0
    mass = density * volume
    second = density * second - mass * np.outer(centre, centre)  # about the centre
    inertia = np.trace(second) * np.eye(3) - second
    return mass, centre, inertia


def mesh_body(
    name: str,
    path: str | Path,
    density: float = STEEL,
    scale: float = 1.0,
    stored_path: str | None = None,
) -> d.RigidBody:
    """A body from an STL/OBJ file (read with pyvista), placed as the file places it."""
    import pyvista

    surface = pyvista.read(str(path))
    if not isinstance(surface, pyvista.PolyData):
        surface = surface.extract_surface(algorithm="dataset_surface")
    surface = surface.triangulate().clean()
    points = np.asarray(surface.points, float) * scale
    faces = np.asarray(surface.faces).reshape(-1, 4)[:, 1:]
    mass, centre, inertia = mesh_mass_properties(points, faces, density)
    shape = d.Shape(type="mesh", file=stored_path or str(path), scale=scale if scale != 1 else None)
    return d.RigidBody(
        name=name,
        mass=float(mass),
        inertia=_mat(inertia),
        position=_vec(centre),
        orientation=IDENTITY,
        shapes=[shape],
    )


def recomputed(body: d.RigidBody, density: float) -> d.RigidBody:
    """``body`` with mass, centre and inertia recomputed from its solid shapes."""
    import copy

    solid = [s for s in body.shapes if s.type in ("box", "cylinder", "rod", "sphere")]
    if not solid:
        raise ValueError(f'body "{body.name}" has no solid shape to compute its mass from')
    mass, centre, inertia_body = body_mass_properties(solid, density, body.orientation)
    new = copy.deepcopy(body)
    new.mass = float(mass)
    new.position = _vec(centre)
    new.inertia = _mat(inertia_body)
    return new
