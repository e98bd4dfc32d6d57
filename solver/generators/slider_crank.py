"""The scalable spatial slider-crank of Saura et al. §4 (k dyads), as a model description.

Data from Saura et al.: the frame is ground; the crank (2 m, 1 kg) turns about a fixed axis ``v₁``
inclined β = 30° to global x; k dyads, each a connecting rod (6 m, 3 kg) joined to the
crank by a spherical joint at B (all rods share B) and a slider (1 kg) joined to its rod
at ``C_k`` and translating along global x; centres of mass at the geometric centres;
"inertias" about the centre of mass in local axes (products zero): crank (0.05, 0.0098,
0.008), rod and slider (0.002, 0.0012, 0.0234) kg·m². Crank speed 24 rad/s.

Read as principal moments of inertia these numbers describe no rigid body (0.0098 + 0.008
< 0.05 and 0.002 + 0.0012 < 0.0234 break the triangle inequality; the model reader refuses
them). Read as the second moments ``J̄ = diag(∫x² dm, ∫y² dm, ∫z² dm)`` that natural
coordinates use (García de Jalón and Bayo (1994)), they are valid and give sensible bodies: the
inertia tensor ``I = tr(J̄) 1 − J̄`` is crank (0.0178, 0.058, 0.0598) and rod/slider (0.0246,
0.0254, 0.0032), each smallest about its long axis. We use that reading, with each long
axis as the local axis of largest spread (crank x, rod z).

Data Saura et al. leave open, chosen here (also in the example's description and the README):

* crank pivot A at the origin; ``v₁ = (cos β, sin β, 0)`` (inclined in the x-y plane);
  the crank B = A + 2 e_z at θ = 0, so ``AB ⟂ v₁``;
* slider k runs along the line parallel to x through ``(0, e cos φ_k, e sin φ_k)``,
  ``φ_k = 2π k/K``, ``e = offset`` (0.5 m by default; 0 puts every slider on the x axis and
  makes all dyads identical); ``C_k`` starts on the +x branch, ``|C_k − B| = 6``;
* the rod spin is locked by making the rod-slider joint a **universal** joint: axis 1
  fixed in the rod, horizontal and perpendicular to it at t = 0 (``e_z × e_rod``), axis 2
  fixed in the slider along global z. The rod's spin about its own axis is then fixed,
  so the mobility is 1; the joint stays regular while the rod is not vertical (here it
  is never steeper than about 25°);
* local axes: crank x along AB, z along ``v₁``; rod z along BC, x along its universal
  axis; slider parallel to global;
* gravity 9.81 m/s² along −z (Saura et al. do not say); no other loads;
* kinematics (``driven=True``): the crank revolute is driven, ``θ = 24 t``;
  dynamics (``driven=False``): free crank, θ = 0 and θ̇ = 24 rad/s at t = 0, with the
  exactly consistent velocities of every body (rods with zero spin rate).

Joint names: ``crank_pivot`` (revolute, ground-crank), ``B<k>`` (spherical, crank-rod k),
``C<k>`` (universal, rod k-slider k), ``S<k>`` (prismatic, ground-slider k); bodies
``crank``, ``rod<k>``, ``slider<k>``, k = 1 … K.
"""

from __future__ import annotations

import math

import numpy as np

from solver.mechanics.rotations import quaternion_from_matrix

BETA = math.radians(30.0)
CRANK_LENGTH = 2.0
ROD_LENGTH = 6.0
SPEED = 24.0  # rad/s
CRANK_MASS, ROD_MASS, SLIDER_MASS = 1.0, 3.0, 1.0
#: Saura et al.'s values, read as second moments ∫x² dm, ∫y² dm, ∫z² dm (see the module docstring)
CRANK_SECOND_MOMENTS = (0.05, 0.0098, 0.008)
ROD_SECOND_MOMENTS = (0.002, 0.0012, 0.0234)
SLIDER_SECOND_MOMENTS = (0.002, 0.0012, 0.0234)


def inertia_from_second_moments(j) -> list[float]:
    """Principal moments ``I = tr(J̄) − J̄_kk`` of diagonal second moments ``J̄``."""
    return [float(sum(j) - v) for v in j]


CRANK_INERTIA = inertia_from_second_moments(CRANK_SECOND_MOMENTS)
ROD_INERTIA = inertia_from_second_moments(ROD_SECOND_MOMENTS)
SLIDER_INERTIA = inertia_from_second_moments(SLIDER_SECOND_MOMENTS)
GRAVITY = (0.0, 0.0, -9.81)


def _unit(v) -> np.ndarray:
    v = np.asarray(v, float)
    return v / np.linalg.norm(v)


def _list(v) -> list[float]:
    return [float(x) for x in v]


def slider_crank_geometry(k: int, offset: float = 0.5) -> dict:
    """Points and directions at θ = 0: ``A``, ``v1``, ``B``, and per dyad ``C``, ``line``
    (a point of the slider line), ``a1`` (rod universal axis)."""
    a = np.zeros(3)
    v1 = np.array([math.cos(BETA), math.sin(BETA), 0.0])
    b = a + CRANK_LENGTH * np.array([0.0, 0.0, 1.0])
    dyads = []
    for i in range(k):
        phi = 2.0 * math.pi * i / k
        line = np.array([0.0, offset * math.cos(phi), offset * math.sin(phi)])
        dy, dz = line[1] - b[1], line[2] - b[2]
        x = b[0] + math.sqrt(ROD_LENGTH**2 - dy * dy - dz * dz)
        c = np.array([x, line[1], line[2]])
        e_rod = (c - b) / ROD_LENGTH
        a1 = _unit(np.cross([0.0, 0.0, 1.0], e_rod))
        dyads.append({"C": c, "line": line, "a1": a1, "e_rod": e_rod})
    return {"A": a, "v1": v1, "B": b, "dyads": dyads}


def _frame(x_axis, y_hint) -> np.ndarray:
    """Rotation matrix with columns x (given), y (``y_hint`` made orthogonal), z."""
    x = _unit(x_axis)
    y = _unit(np.asarray(y_hint, float) - (np.asarray(y_hint, float) @ x) * x)
    return np.column_stack([x, y, np.cross(x, y)])


def slider_crank_model(
    k: int,
    *,
    offset: float = 0.5,
    driven: bool = False,
    speed: float = SPEED,
    solver: dict | None = None,
    name: str | None = None,
) -> dict:
    """The model data (``"biela": 1`` JSON structure) of the Saura et al. slider-crank with ``k``
    dyads; ``driven`` for the kinematic variant (crank angle ``speed·t``)."""
    if k < 1:
        raise ValueError("the slider-crank needs at least one dyad")
    geo = slider_crank_geometry(k, offset)
    a, v1, b = geo["A"], geo["v1"], geo["B"]
    w_crank = speed * v1 if not driven else np.zeros(3)
    b_dot = np.cross(w_crank, b - a)
    rot_crank = np.column_stack([_unit(b - a), np.cross(v1, _unit(b - a)), v1])
    g_crank = 0.5 * (a + b)
    bodies = [
        {
            "name": "crank",
            "mass": CRANK_MASS,
            "inertia": list(CRANK_INERTIA),
            "position": _list(g_crank),
            "orientation": _list(quaternion_from_matrix(rot_crank)),
            "velocity": _list(np.cross(w_crank, g_crank - a)),
            "angular_velocity": _list(w_crank),
            "shapes": [
                {"type": "cylinder", "from": _list(a), "to": _list(b), "radius": 0.06},
                {"type": "sphere", "center": _list(b), "radius": 0.1},
            ],
            "color": "#d95f02",
        }
    ]
    joints = [
        {
            "name": "crank_pivot",
            "type": "revolute",
            "body1": "ground",
            "body2": "crank",
            "point": _list(a),
            "axis": _list(v1),
        }
    ]
    x_axis = np.array([1.0, 0.0, 0.0])
    for i, dy in enumerate(geo["dyads"], start=1):
        c, a1, e_rod = dy["C"], dy["a1"], dy["e_rod"]
        # velocities: the slider along x keeps |C − B| = L; the rod turns with zero spin
        # rate relative to the universal joint ((ω × a1)·e_z = 0)
        c_dot = ((c - b) @ b_dot) / ((c - b) @ x_axis) * x_axis
        w_perp = np.cross(e_rod, c_dot - b_dot) / ROD_LENGTH
        ez = np.array([0.0, 0.0, 1.0])
        spin = -(np.cross(w_perp, a1) @ ez) / (np.cross(e_rod, a1) @ ez)
        w_rod = w_perp + spin * e_rod
        g_rod = 0.5 * (b + c)
        bodies.append(
            {
                "name": f"rod{i}",
                "mass": ROD_MASS,
                "inertia": list(ROD_INERTIA),
                "position": _list(g_rod),
                "orientation": _list(quaternion_from_matrix(_frame(a1, np.cross(e_rod, a1)))),
                "velocity": _list(b_dot + np.cross(w_rod, g_rod - b)),
                "angular_velocity": _list(w_rod),
                "shapes": [{"type": "cylinder", "from": _list(b), "to": _list(c), "radius": 0.04}],
                "color": "#7570b3",
            }
        )
        bodies.append(
            {
                "name": f"slider{i}",
                "mass": SLIDER_MASS,
                "inertia": list(SLIDER_INERTIA),
                "position": _list(c),
                "velocity": _list(c_dot),
                "shapes": [{"type": "box", "center": _list(c), "size": [0.5, 0.25, 0.25]}],
                "color": "#1b9e77",
            }
        )
        joints += [
            {
                "name": f"B{i}",
                "type": "spherical",
                "body1": "crank",
                "body2": f"rod{i}",
                "point": _list(b),
            },
            {
                "name": f"C{i}",
                "type": "universal",
                "body1": f"rod{i}",
                "body2": f"slider{i}",
                "point": _list(c),
                "axis1": _list(a1),
                "axis2": [0.0, 0.0, 1.0],
            },
            {
                "name": f"S{i}",
                "type": "prismatic",
                "body1": "ground",
                "body2": f"slider{i}",
                "point": _list(c),
                "axis": [1.0, 0.0, 0.0],
            },
        ]
    data = {
        "biela": 1,
        "name": name or f"Scalable spatial slider-crank, k = {k} (Saura et al. §4)",
        "description": DESCRIPTION.format(k=k, offset=offset),
        "gravity": list(GRAVITY),
        "bodies": bodies,
        "joints": joints,
        "solver": solver
        or {
            "analysis": "kinematic" if driven else "dynamic",
            "coordinates": "natural",
            "formulation": "null_space",
            "dt": 0.005,
            "t_end": 10.0,
            "output_dt": 0.05,
            "tolerance": 1e-10,
            "parameters": {"method": "r_matrix", "group_method": "structural_groups"},
        },
    }
    data["outputs"] = [
        {"name": "B", "body": "crank", "point": _list(b)},
        {"name": "C1", "body": "slider1", "point": _list(geo["dyads"][0]["C"])},
    ]
    if driven:
        data["drivers"] = [
            {"name": "motor", "joint": "crank_pivot", "function": {"expression": f"{speed!r}*t"}}
        ]
    return data


DESCRIPTION = (
    "Source: Saura et al. §4 (scalable spatial slider-crank), k = {k} dyads. Crank 2 m, 1 kg, turning "
    "about v1 = (cos 30°, sin 30°, 0) through A = origin; rods 6 m, 3 kg; sliders 1 kg; centres "
    "of mass at the geometric centres. Saura et al. give (0.05, 0.0098, 0.008) kg·m² for the crank and "
    "(0.002, 0.0012, 0.0234) for rods and sliders; as moments of inertia they break the "
    "triangle inequality, so we read them as natural-coordinate second moments "
    "(int x² dm, int y² dm, int z² dm): inertia = trace - moment, i.e. crank (0.0178, 0.058, "
    "0.0598) with local x along AB and z along v1, rods (0.0246, 0.0254, 0.0032) with local z "
    "along BC and x along the universal axis, sliders the same in global axes. Chosen by us "
    "(Saura et al. leave them open): crank tip "
    "B = (0, 0, 2) at theta = 0; slider k runs parallel to x through (0, e cos phi_k, e sin phi_k), "
    "phi_k = 2 pi k/K, e = {offset} m; the rod spin is locked by a universal joint rod-slider "
    "(axis 1 in the rod, horizontal and perpendicular to it at t = 0; axis 2 in the slider along z); "
    "gravity 9.81 m/s² along -z; free crank with theta(0) = 0, "
    "theta'(0) = 24 rad/s and exactly consistent velocities (rods with zero spin rate). "
    "Generated by solver.generators.slider_crank."
)
