"""Parametric planar mechanisms as model data (``"biela": 1`` JSON structure).

Every mechanism is drawn with rod shapes and uses uniform slender links: mass ``m`` along
length ``L``, inertia ``m L²/12`` about the transverse axes and ``m r²/2`` about the link's
own axis (radius ``r``), in body axes with x along the link. Planar mechanisms whose loops
would be redundant with revolute joints only (a spatial revolute removes 5 freedoms) close
each loop with a ``point_on_line`` joint along the plane's normal, so that Grübler's count
and the numerical rank agree.

- ``pendulum_chain``: N links hanging from ground by revolute joints, released horizontal,
  in the x-z plane (axes along y, gravity −z).
- ``four_bar``: ground pivots A = (0, 0, 0) and D = (ground, 0, 0), crank at ``angle``
  from x, in the x-z plane; optionally driven at ``speed`` rad/s.
- ``slider_crank``: crank at the origin, connecting rod, slider on the x axis (x-z plane).
- ``n_four_bar``: IFToMM A02 (N-four-bar): N+1 vertical cranks pivoted at (i, 0, 0) and N
  horizontal couplers at y = 1, L = 1 m, m = 1 kg, gravity −9.81 along y, the tip of the
  first crank moving at +1 m/s along x (every crank at −1 rad/s about z).
"""

from __future__ import annotations

import math

import numpy as np

from solver.mechanics.rotations import quaternion_from_matrix


def _l(v) -> list[float]:
    return [float(x) + 0.0 for x in v]


def _link(
    name: str,
    a,
    b,
    mass: float,
    radius: float,
    normal,
    color: str | None = None,
    velocity=(0.0, 0.0, 0.0),
    omega=(0.0, 0.0, 0.0),
) -> dict:
    """A slender uniform link from ``a`` to ``b``; body y axis along ``normal`` × x."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    length = float(np.linalg.norm(b - a))
    x = (b - a) / length
    z = np.asarray(normal, float) / np.linalg.norm(normal)
    z = z - (z @ x) * x
    z /= np.linalg.norm(z)
    rot = np.column_stack([x, np.cross(z, x), z])
    transverse = mass * length**2 / 12.0
    body = {
        "name": name,
        "mass": mass,
        "inertia": [0.5 * mass * radius**2, transverse, transverse],
        "position": _l((a + b) / 2),
        "orientation": _l(quaternion_from_matrix(rot)),
        "velocity": _l(velocity),
        "angular_velocity": _l(omega),
        "shapes": [{"type": "rod", "from": _l(a), "to": _l(b), "radius": radius}],
    }
    if color:
        body["color"] = color
    return body


def _revolute(name, body1, body2, point, axis) -> dict:
    return {
        "name": name,
        "type": "revolute",
        "body1": body1,
        "body2": body2,
        "point": _l(point),
        "axis": _l(axis),
    }


def _model(name: str, bodies, joints, gravity, solver: dict | None, drivers=(), outputs=()):
    return {
        "biela": 1,
        "name": name,
        "gravity": _l(gravity),
        "bodies": bodies,
        "joints": joints,
        "drivers": list(drivers),
        "outputs": list(outputs),
        "solver": solver or {"analysis": "dynamic", "dt": 0.005, "t_end": 2.0},
    }


def pendulum_chain(
    n: int = 3,
    length: float = 0.5,
    mass: float = 1.0,
    radius: float = 0.02,
    solver: dict | None = None,
) -> dict:
    if n < 1 or length <= 0 or mass <= 0:
        raise ValueError("a pendulum chain needs n ≥ 1 links of positive length and mass")
    y = (0.0, 1.0, 0.0)
    bodies, joints = [], []
    for i in range(n):
        a, b = (i * length, 0.0, 0.0), ((i + 1) * length, 0.0, 0.0)
        bodies.append(_link(f"link{i + 1}", a, b, mass, radius, y))
        joints.append(
            _revolute(f"J{i + 1}", "ground" if i == 0 else f"link{i}", f"link{i + 1}", a, y)
        )
    outputs = [{"name": "tip", "body": f"link{n}", "point": _l((n * length, 0.0, 0.0))}]
    return _model(f"{n}-pendulum chain", bodies, joints, (0, 0, -9.81), solver, outputs=outputs)


def four_bar(
    crank: float = 0.3,
    coupler: float = 0.8,
    rocker: float = 0.6,
    ground: float = 0.7,
    angle_deg: float = 60.0,
    speed: float | None = None,
    radius: float = 0.015,
    density_mass: float = 2.0,
    solver: dict | None = None,
) -> dict:
    """Masses ``density_mass`` kg per metre of link; ``speed`` drives the crank (rad/s)."""
    a = np.zeros(3)
    d = np.array([ground, 0.0, 0.0])
    th = math.radians(angle_deg)
    b = np.array([crank * math.cos(th), 0.0, crank * math.sin(th)])
    dist = float(np.linalg.norm(d - b))
    if not abs(coupler - rocker) < dist < coupler + rocker:
        raise ValueError("these link lengths do not close at this crank angle")
    # C: intersection of circles (B, coupler) and (D, rocker), upper branch (z ≥ ...)
    u = (d - b) / dist
    along = (coupler**2 - rocker**2 + dist**2) / (2 * dist)
    h = math.sqrt(max(coupler**2 - along**2, 0.0))
    perp = np.cross(u, [0.0, 1.0, 0.0])
    perp = perp if perp[2] >= 0 else -perp
    c = b + along * u + h * perp
    y = (0.0, 1.0, 0.0)
    bodies = [
        _link("crank", a, b, density_mass * crank, radius, y, "#d95f02"),
        _link("coupler", b, c, density_mass * coupler, radius, y, "#1b9e77"),
        _link("rocker", c, d, density_mass * rocker, radius, y, "#7570b3"),
    ]
    joints = [
        _revolute("A", "ground", "crank", a, y),
        _revolute("B", "crank", "coupler", b, y),
        _revolute("D", "ground", "rocker", d, y),
        {
            "name": "C",
            "type": "point_on_line",
            "body1": "rocker",
            "body2": "coupler",
            "point": _l(c),
            "axis": _l(y),
        },
    ]
    drivers = []
    if speed is not None:
        drivers.append({"name": "motor", "joint": "A", "function": {"expression": f"{speed}*t"}})
    outputs = [{"name": "C_point", "body": "coupler", "point": _l(c)}]
    return _model("four-bar", bodies, joints, (0, 0, -9.81), solver, drivers, outputs)


def slider_crank(
    crank: float = 0.2,
    rod: float = 0.6,
    speed: float | None = 2 * math.pi,
    radius: float = 0.015,
    solver: dict | None = None,
) -> dict:
    """Crank A = origin at 90° (vertical), slider on the x axis; ``speed`` drives the crank."""
    if not rod > crank > 0:
        raise ValueError("the connecting rod must be longer than the crank")
    y = (0.0, 1.0, 0.0)
    a = np.zeros(3)
    b = np.array([0.0, 0.0, crank])
    c = np.array([math.sqrt(rod**2 - crank**2), 0.0, 0.0])
    bodies = [
        _link("crank", a, b, 2.0 * crank, radius, y, "#d95f02"),
        _link("rod", b, c, 2.0 * rod, radius, y, "#1b9e77"),
        {
            "name": "slider",
            "mass": 0.5,
            "inertia": [1e-3, 1e-3, 1e-3],
            "position": _l(c),
            "shapes": [{"type": "box", "center": _l(c), "size": [0.1, 0.06, 0.06]}],
            "color": "#7570b3",
        },
    ]
    joints = [
        _revolute("A", "ground", "crank", a, y),
        _revolute("B", "crank", "rod", b, y),
        {
            "name": "S",
            "type": "prismatic",
            "body1": "ground",
            "body2": "slider",
            "point": _l(c),
            "axis": [1.0, 0.0, 0.0],
        },
        {
            "name": "C",
            "type": "point_on_line",
            "body1": "slider",
            "body2": "rod",
            "point": _l(c),
            "axis": _l(y),
        },
    ]
    drivers = []
    if speed is not None:
        drivers.append({"name": "motor", "joint": "A", "function": {"expression": f"{speed}*t"}})
    return _model("slider-crank", bodies, joints, (0, 0, -9.81), solver, drivers)


def n_four_bar(n: int = 2, solver: dict | None = None) -> dict:
    """IFToMM A02 with ``n`` four-bar loops (see the module docstring)."""
    if n < 1:
        raise ValueError("the N-four-bar needs n ≥ 1")
    z = (0.0, 0.0, 1.0)
    radius = 0.02
    bodies, joints = [], []
    for i in range(n + 1):
        bodies.append(
            _link(
                f"crank{i}",
                (i, 0, 0),
                (i, 1, 0),
                1.0,
                radius,
                z,
                velocity=(0.5, 0.0, 0.0),
                omega=(0.0, 0.0, -1.0),
            )
        )
        joints.append(_revolute(f"O{i}", "ground", f"crank{i}", (i, 0, 0), z))
    for i in range(n):
        bodies.append(
            _link(
                f"coupler{i + 1}",
                (i, 1, 0),
                (i + 1, 1, 0),
                1.0,
                radius,
                z,
                velocity=(1.0, 0.0, 0.0),
            )
        )
        joints.append(_revolute(f"B{i}", f"crank{i}", f"coupler{i + 1}", (i, 1, 0), z))
        joints.append(
            {
                "name": f"C{i + 1}",
                "type": "point_on_line",
                "body1": f"crank{i + 1}",
                "body2": f"coupler{i + 1}",
                "point": [float(i + 1), 1.0, 0.0],
                "axis": list(z),
            }
        )
    outputs = [{"name": "P", "body": "crank0", "point": [0.0, 1.0, 0.0]}]
    settings = solver or {
        "analysis": "dynamic",
        "formulation": "augmented_lagrangian",
        "dt": 0.01,
        "t_end": 10.0,
    }
    return _model(
        f"{n}-four-bar (IFToMM A02)", bodies, joints, (0, -9.81, 0), settings, outputs=outputs
    )


__all__ = ["four_bar", "n_four_bar", "pendulum_chain", "slider_crank"]
