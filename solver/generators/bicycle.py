"""The benchmark bicycle (Whipple model) as a model description.

J. P. Meijaard, J. M. Papadopoulos, A. Ruina and A. L. Schwab, "Linearized dynamics
equations for the balance and steer of a bicycle: a benchmark and review", Proc. R. Soc. A
463 (2007) 1955–1982: four rigid bodies — rear wheel R, rear frame with the rider B, front
frame (fork and handlebar) H, front wheel F — joined by the two hubs and the steer axis,
the wheels knife edges rolling without slip on flat ground. ``BENCHMARK`` holds the
paper's Table 1 under its own names; every length is in the paper's axes: x forward,
y to the right, z down, origin at the rear contact point, gravity ``g`` along +z.

The generated model uses the same axes. Bodies ``rear_wheel``, ``rear_frame``,
``front_frame``, ``front_wheel``; joints ``rear_hub`` and ``front_hub`` (revolute about y
at the wheel centres), ``steer`` (revolute about the steer axis, tilted back by λ from the
vertical and meeting the ground a trail c ahead of the front contact, at its point
nearest the front wheel's centre), ``rear_contact`` and ``front_contact`` (``rolling_disk``
on the ground plane z = 0, ``slip: none``). The initial state is upright with the steer
straight, at the forward ``speed`` (m/s) and a roll rate ``roll_rate`` (rad/s) about the x
axis, the line through both contact points, so every body turns about that line and the
wheels spin at −v/r about y: velocities that satisfy every constraint exactly. With
``roll_rate = 0`` it is the steady upright motion whose linearised stability the paper
gives (``solver.analysis.steady_modes``).

``MANOEUVRES`` are the three runs of Urkullu (2019) §8.12, Table 8.26: forward speed and
roll rate at t = 0, upright with the steer straight, 20 s. ``roll_and_steer`` reads the
roll and steer angles off a result, ``energy_criterion`` the benchmark's energy measure.
"""

from __future__ import annotations

import math

import numpy as np

from solver.mechanics.rotations import rotation_matrix

#: Meijaard et al. (2007), Table 1 (SI units; z down, so the centres of mass have z < 0)
BENCHMARK = {
    "w": 1.02,  # wheel base
    "c": 0.08,  # trail
    "lam": math.pi / 10.0,  # steer axis tilt from the vertical
    "g": 9.81,
    "rR": 0.3,
    "mR": 2.0,
    "IRxx": 0.0603,
    "IRyy": 0.12,
    "xB": 0.3,
    "zB": -0.9,
    "mB": 85.0,
    "IBxx": 9.2,
    "IByy": 11.0,
    "IBzz": 2.8,
    "IBxz": 2.4,
    "xH": 0.9,
    "zH": -0.7,
    "mH": 4.0,
    "IHxx": 0.05892,
    "IHyy": 0.06,
    "IHzz": 0.00708,
    "IHxz": -0.00756,
    "rF": 0.35,
    "mF": 3.0,
    "IFxx": 0.1405,
    "IFyy": 0.28,
}

#: the speeds that bound the stable upright motion (weave, capsize), Meijaard et al. Table 2
WEAVE_SPEED = 4.29238253634111
CAPSIZE_SPEED = 6.02426201538837


#: Urkullu (2019) Table 8.26: forward speed (m/s) and roll rate (rad/s) at t = 0; below,
#: inside and above the stable speed range
MANOEUVRES = {1: (4.0, 0.05), 2: (4.6, 0.5), 3: (8.0, 0.05)}


def steer_axis(p: dict) -> tuple[np.ndarray, np.ndarray]:
    """A point of the steer axis (the one nearest the front wheel's centre) and its unit
    direction, pointing up (−z) and back."""
    u = np.array([-math.sin(p["lam"]), 0.0, -math.cos(p["lam"])])
    ground = np.array([p["w"] + p["c"], 0.0, 0.0])
    centre = np.array([p["w"], 0.0, -p["rF"]])
    return ground + ((centre - ground) @ u) * u, u


def _f(v) -> list[float]:
    return [float(x) + 0.0 for x in v]  # + 0.0: no negative zeros in the file


def bicycle_model(
    speed: float = 4.6,
    roll_rate: float = 0.5,
    parameters: dict | None = None,
    *,
    dt: float = 0.01,
    t_end: float = 20.0,
    formulation: str = "central_differences",
) -> dict:
    """Model-file data of the benchmark bicycle (``parameters`` override ``BENCHMARK``)."""
    p = {**BENCHMARK, **(parameters or {})}
    rr, rf, w = p["rR"], p["rF"], p["w"]
    point, axis = steer_axis(p)
    head = point + 0.45 * axis  # top of the head tube, for the shapes only

    def velocity(position):  # forward speed plus the roll about the x axis
        return _f(np.array([speed, 0.0, 0.0]) + np.cross([roll_rate, 0.0, 0.0], position))

    def body(name, mass, inertia, position, spin, shapes, color):
        return {
            "name": name,
            "mass": mass,
            "inertia": inertia,
            "position": _f(position),
            "velocity": velocity(position),
            "angular_velocity": _f([roll_rate, spin, 0.0]),
            "shapes": shapes,
            "color": color,
        }

    rear_c, front_c = [0.0, 0.0, -rr], [w, 0.0, -rf]
    b_com, h_com = [p["xB"], 0.0, p["zB"]], [p["xH"], 0.0, p["zH"]]

    def wheel_shape(c, r):
        return [
            {
                "type": "cylinder",
                "from": _f([c[0], -0.02, c[2]]),
                "to": _f([c[0], 0.02, c[2]]),
                "radius": r,
            }
        ]

    bodies = [
        body(
            "rear_wheel",
            p["mR"],
            [p["IRxx"], p["IRyy"], p["IRxx"]],
            rear_c,
            -speed / rr,
            wheel_shape(rear_c, rr),
            "#444444",
        ),
        body(
            "rear_frame",
            p["mB"],
            [[p["IBxx"], 0.0, p["IBxz"]], [0.0, p["IByy"], 0.0], [p["IBxz"], 0.0, p["IBzz"]]],
            b_com,
            0.0,
            [
                {"type": "rod", "from": _f(rear_c), "to": _f(point), "radius": 0.02},
                {"type": "rod", "from": _f(rear_c), "to": _f(b_com), "radius": 0.02},
                {"type": "rod", "from": _f(b_com), "to": _f(head), "radius": 0.02},
                {"type": "sphere", "center": _f(b_com), "radius": 0.12},
            ],
            "#1b9e77",
        ),
        body(
            "front_frame",
            p["mH"],
            [[p["IHxx"], 0.0, p["IHxz"]], [0.0, p["IHyy"], 0.0], [p["IHxz"], 0.0, p["IHzz"]]],
            h_com,
            0.0,
            [
                {"type": "rod", "from": _f(front_c), "to": _f(point), "radius": 0.015},
                {"type": "rod", "from": _f(point), "to": _f(head), "radius": 0.015},
                {
                    "type": "rod",
                    "from": _f(head + [0, -0.25, 0]),
                    "to": _f(head + [0, 0.25, 0]),
                    "radius": 0.015,
                },
            ],
            "#d95f02",
        ),
        body(
            "front_wheel",
            p["mF"],
            [p["IFxx"], p["IFyy"], p["IFxx"]],
            front_c,
            -speed / rf,
            wheel_shape(front_c, rf),
            "#444444",
        ),
    ]
    y = [0.0, 1.0, 0.0]
    down = [0.0, 0.0, -1.0]  # the ground's normal, pointing up
    joints = [
        {
            "name": "rear_hub",
            "type": "revolute",
            "body1": "rear_frame",
            "body2": "rear_wheel",
            "point": _f(rear_c),
            "axis": y,
        },
        {
            "name": "steer",
            "type": "revolute",
            "body1": "rear_frame",
            "body2": "front_frame",
            "point": _f(point),
            "axis": _f(axis),
        },
        {
            "name": "front_hub",
            "type": "revolute",
            "body1": "front_frame",
            "body2": "front_wheel",
            "point": _f(front_c),
            "axis": y,
        },
        {
            "name": "rear_contact",
            "type": "rolling_disk",
            "body1": "ground",
            "body2": "rear_wheel",
            "point": _f(rear_c),
            "axis": y,
            "radius": rr,
            "normal": down,
            "slip": "none",
        },
        {
            "name": "front_contact",
            "type": "rolling_disk",
            "body1": "ground",
            "body2": "front_wheel",
            "point": _f(front_c),
            "axis": y,
            "radius": rf,
            "normal": down,
            "slip": "none",
        },
    ]
    description = (
        "The benchmark bicycle (Whipple model) of J. P. Meijaard, J. M. Papadopoulos, A. Ruina "
        "and A. L. Schwab, 'Linearized dynamics equations for the balance and steer of a "
        "bicycle: a benchmark and review', Proc. R. Soc. A 463 (2007) 1955-1982, Table 1, in "
        "the paper's axes: x forward, y to the right, z down, origin at the rear contact "
        "point, g = 9.81 m/s² along +z. Rear wheel (r = 0.3 m, 2 kg, Ixx = Izz = 0.0603, "
        "Iyy = 0.12 kg·m²), rear frame with rider (85 kg at (0.3, 0, -0.9) m; Ixx 9.2, "
        "Iyy 11, Izz 2.8, Ixz 2.4 kg·m²), front frame: fork and handlebar (4 kg at "
        "(0.9, 0, -0.7) m; 0.05892, 0.06, 0.00708, Ixz -0.00756 kg·m²), front wheel "
        "(r = 0.35 m, 3 kg, Ixx = Izz = 0.1405, Iyy = 0.28 kg·m²); wheel base 1.02 m, trail "
        "0.08 m, steer axis tilted back by pi/10 from the vertical. Hubs and steer axis are "
        "revolute joints, the wheels knife edges rolling without slip on the ground z = 0 "
        "(rolling_disk, slip none). Initial state: manoeuvre 2 of the IFToMM benchmark as "
        f"run by Urkullu (2019) §8.12: upright, steer straight, forward speed {speed:g} m/s "
        f"and a roll rate of {roll_rate:g} rad/s about the x axis (the line of the contact "
        "points; the wheels spin at -v/r about y). The upright straight motion is stable "
        "between the weave and capsize speeds, 4.2924 and 6.0243 m/s: the steady-motion modes "
        "of this model reproduce the paper's Table 2. Generated by "
        "solver.generators.bicycle.bicycle_model."
    )
    return {
        "biela": 1,
        "name": "Benchmark bicycle (Meijaard et al. 2007)",
        "description": description,
        "gravity": _f([0.0, 0.0, p["g"]]),
        "bodies": bodies,
        "joints": joints,
        "outputs": [{"name": "rear_contact_centre", "body": "rear_wheel", "point": _f(rear_c)}],
        "solver": {
            "analysis": "dynamic",
            "formulation": formulation,
            "dt": dt,
            "t_end": t_end,
            "output_dt": max(dt, 0.01),
            "tolerance": 1e-10,
        },
    }


def roll_and_steer(result, parameters: dict | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The roll angle φ of the rear frame (rad, about its x axis after the heading, positive
    leaning to the right, +y, in the paper's z-down axes) and the steer angle δ (rad, the
    front frame relative to the rear frame about the steer axis, positive turning right)
    at every row of ``result``, a run of ``bicycle_model``."""
    p = {**BENCHMARK, **(parameters or {})}
    rear = rotation_matrix(_parameters(result, "rear_frame"))
    front = rotation_matrix(_parameters(result, "front_frame"))
    # R_B = R_z(ψ) R_x(φ) R_y(θ) with the pitch θ = 0 of the rear frame: third row (0, sφ, cφ)
    roll = np.arctan2(rear[:, 2, 1], rear[:, 2, 2])
    relative = np.einsum("nji,njk->nik", rear, front)  # front in rear-frame axes
    axial = 0.5 * np.stack(
        [
            relative[:, 2, 1] - relative[:, 1, 2],
            relative[:, 0, 2] - relative[:, 2, 0],
            relative[:, 1, 0] - relative[:, 0, 1],
        ],
        axis=1,
    )  # sin δ times the rotation axis
    down = -steer_axis(p)[1]  # the steer axis pointing down: +δ turns to the right
    cos = 0.5 * (np.trace(relative, axis1=1, axis2=2) - 1.0)
    return roll, np.arctan2(axial @ down, cos)


def energy_criterion(result) -> float:
    """``e = 100 (max E − min E)/E₀`` (percent) of the mechanical energy E = T + V of a run
    (V from the ground z = 0), the benchmark's measure of energy conservation."""
    energy = result.column("energy.total")
    return float(100.0 * (energy.max() - energy.min()) / energy[0])


def _parameters(result, body: str) -> np.ndarray:
    return np.column_stack([result.column(f"{body}.e{k}") for k in range(4)])
