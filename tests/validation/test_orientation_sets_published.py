"""Orientation parameter sets on the null-space Newmark thesis's Tables 9.3 and 9.4.

Both tables run the explicit central-difference method (``central_differences``; the sets
use its ``reformulated`` scheme) at a 1e-8 tolerance and compare the four sets (§9.1.4).
Types 1 and 2 of the spatial pendulum (Tables 9.1, 9.2) are in test_orientation_sets.py.

Table 9.3, spatial pendulum type 3: the 1 kg point mass on a 1 m rod (a spherical joint at
the origin, g = 9.81 along −y) released horizontally at (1, 0, 0) and pushed out of its plane
by "F_z = t cos(2π 2 t)": a force t·cos(4πt) N along global z at the mass (read as a torque
about z, the motion would stay planar and the main angle reach 3.157 rad, not 3.136).
Δt = 1 ms, 4 s. The thesis's "accuracy" is the largest |E(t) − E(0)| of the mechanical energy
T + V, which here includes the force's work (the energy balance itself closes to 3.6e-5 J).

| set | thesis | here (body axes turned 90° about x) |
|---|---|---|
| Euler parameters | 0.058, finishes | 0.05826 J, main angle 3.1362 rad (thesis 3.136) |
| Euler ZXZ | fails (β = 0) | finishes, 0.05826 J (β = π/2 in this frame); identity axes: refused at t = 0 |
| reduced Euler–Rodrigues | fails | stops at its singularity, 3.49 s |
| Gibbs vector | 0.058, finishes | stops at its singularity, 3.49 s |

The mass passes within 1.2e-5 (in |e0|, the sets' distance to a rotation of π) of the Gibbs
singularity; Biela stops a set whose distance falls below 1e-3 (``SINGULAR``: the Gibbs vector
is then beyond 2000 and the step's accuracy is gone), where the thesis's Gibbs run went on.
With the body axes turned 120° about (−1, 0, 1)/√2 instead, the motion stays at |e0| ≥ 0.5
and |sin β| ≥ 0.96, and all four sets finish with the quaternion's result.

Table 9.4, E13: the planar slider-crank of examples/slider_crank_planar.json released from
rest (crank at π/4), Δt = 3 ms, 10 s, criterion 1e-3 J. Euler parameters 5e-4 J in the
thesis, 5.68e-4 J here; ZXZ fails in the thesis (z normal to the plane: β = 0) and is refused
at t = 0 here; reduced Euler–Rodrigues and Gibbs fail at their singularity (the crank's
rotation reaches π), here at 1.26 s and 1.28 s. Moved to the xz plane, the thesis's ZXZ runs
until t = 1.3 s (the angle passes π) with a drift below 5.54e-4 J; here (each bar's axes
turned about y only) it passes β = 0 and π between steps several times and stops at 5.80 s,
when a step lands within the 1e-3 stop distance, with 5.59e-4 J until then.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from solver import simulate
from solver.model import model_from_data

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
C = math.cos(math.pi / 4)
TURNED_ABOUT_X = [C, C, 0.0, 0.0]
#: axes turned 120° about (−1, 0, 1)/√2: along the type-3 motion |e0| ≥ 0.5 and |sin β| ≥ 0.96
AWAY = [0.5, -0.6123724356957945, 0.0, 0.6123724356957945]


def pendulum_type3(orientation: str, axes, t_end: float = 4.0) -> dict:
    return {
        "biela": 1,
        "name": "spatial pendulum, type 3",
        "gravity": [0, -9.81, 0],
        "bodies": [
            {
                "name": "bob",
                "mass": 1.0,
                "inertia": [1e-6, 1e-6, 1e-6],
                "position": [1.0, 0.0, 0.0],
                "orientation": axes,
            }
        ],
        "joints": [
            {
                "name": "ball",
                "type": "spherical",
                "body1": "ground",
                "body2": "bob",
                "point": [0, 0, 0],
            }
        ],
        "forces": [
            {
                "name": "push",
                "type": "force",
                "body": "bob",
                "point": [1.0, 0.0, 0.0],
                "vector": [0, 0, {"expression": "t*cos(2*pi*2*t)"}],
            }
        ],
        "solver": {
            "formulation": "central_differences",
            "dt": 1e-3,
            "t_end": t_end,
            "output_dt": 1e-3,
            "tolerance": 1e-8,
            "orientation": orientation,
        },
    }


def mechanical_drift(result) -> float:
    e = result.column("energy.kinetic") + result.column("energy.potential")
    return float(np.abs(e - e[0]).max())


def main_angle(result) -> float:
    """Largest angle of the rod from +x (rad)."""
    return float(np.arccos(np.clip(result.column("bob.x"), -1.0, 1.0)).max())


def test_type3_euler_parameters():
    r = simulate(model_from_data(pendulum_type3("euler_parameters", TURNED_ABOUT_X)))
    assert r.status == "ok", r.message
    assert mechanical_drift(r) == pytest.approx(0.058, abs=5e-4)  # Table 9.3: 0.058
    assert main_angle(r) == pytest.approx(3.136, abs=5e-4)  # §9.1.4.1: 3.136 rad
    assert r.max_energy_drift() < 5e-5  # T + V − work: the balance closes (3.6e-5 J)


def test_type3_zxz_refuses_the_thesis_frame():
    """The thesis's frame puts the pendulum's axes on the global ones: β = 0 for Z-X-Z."""
    r = simulate(model_from_data(pendulum_type3("euler_zxz", [1, 0, 0, 0])))
    assert r.status == "failed" and "t = 0 s" in r.message and "euler_zxz" in r.message


@pytest.mark.slow
@pytest.mark.parametrize("name", ["euler_zxz", "rodrigues", "gibbs"])
def test_type3_three_parameter_sets(name):
    r = simulate(model_from_data(pendulum_type3(name, TURNED_ABOUT_X)))
    if name == "euler_zxz":  # no singularity on this path
        assert r.status == "ok", r.message
        assert mechanical_drift(r) == pytest.approx(0.05826, rel=1e-3)
    else:
        assert r.status == "failed" and "singularity" in r.message
        t_stop = float(r.message.split("t = ")[1].split(" s")[0])
        assert t_stop == pytest.approx(3.49, abs=0.02)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["euler_parameters", "euler_zxz", "rodrigues", "gibbs"])
def test_type3_away_from_the_singularities_all_sets_agree(name):
    r = simulate(model_from_data(pendulum_type3(name, AWAY)))
    assert r.status == "ok", r.message
    assert mechanical_drift(r) == pytest.approx(0.05826, rel=1e-3)
    assert main_angle(r) == pytest.approx(3.1362, abs=2e-4)


# ---- Table 9.4: the planar slider-crank (E13) ------------------------------------------
def slider_crank(orientation: str, plane: str = "xy", t_end: float = 10.0) -> dict:
    """examples/slider_crank_planar.json from rest; ``plane = "xz"`` turns the whole model
    by +90° about x (y → z), each bar's axes then turned about y only."""
    m = json.loads((EXAMPLES / "slider_crank_planar.json").read_text())
    for body in m["bodies"]:
        body["velocity"] = [0.0, 0.0, 0.0]
        body["angular_velocity"] = [0.0, 0.0, 0.0]
        body.pop("shapes")
    if plane == "xz":

        def turn(v):
            return [v[0], -v[2], v[1]]

        m["gravity"] = turn(m["gravity"])
        for body in m["bodies"]:
            body["position"] = turn(body["position"])
            # the bar's axis turned into the xz plane: a rotation about y (body x along
            # the bar, both transverse inertias equal)
            body["orientation"] = {"axis": [0, 1, 0], "angle": -body["orientation"]["angle"]}
        for joint in m["joints"]:
            for key in ("point", "axis", "normal"):
                if key in joint:
                    joint[key] = turn(joint[key])
        for out in m["outputs"]:
            out["point"] = turn(out["point"])
    m["solver"] = {
        "formulation": "central_differences",
        "dt": 3e-3,
        "t_end": t_end,
        "output_dt": 3e-3,
        "tolerance": 1e-8,
        "orientation": orientation,
    }
    return m


@pytest.mark.parametrize("plane", ["xy", "xz"])
def test_e13_euler_parameters(plane):
    r = simulate(model_from_data(slider_crank("euler_parameters", plane)))
    assert r.status == "ok", r.message
    drift = r.max_energy_drift()
    assert drift < 1e-3  # the criterion
    assert drift == pytest.approx(5.68e-4, rel=0.03)  # thesis: 5e-4 J
    assert r.column("constraint.position").max() < 1e-7


def test_e13_zxz_refused_in_the_plane_of_motion():
    r = simulate(model_from_data(slider_crank("euler_zxz")))
    assert r.status == "failed" and "t = 0 s" in r.message and "sin β = 0" in r.message


@pytest.mark.parametrize(("name", "t_stop"), [("rodrigues", 1.263), ("gibbs", 1.281)])
def test_e13_vector_parameters_stop_at_a_half_turn(name, t_stop):
    r = simulate(model_from_data(slider_crank(name, t_end=2.0)))
    assert r.status == "failed" and "singularity" in r.message and name in r.message
    stopped = float(r.message.split("t = ")[1].split(" s")[0])
    assert stopped == pytest.approx(t_stop, abs=0.01)


def test_e13_zxz_in_the_xz_plane():
    r = simulate(model_from_data(slider_crank("euler_zxz", "xz")))
    assert r.status == "failed" and "sin β = 0" in r.message
    stopped = float(r.message.split("t = ")[1].split(" s")[0])
    assert stopped == pytest.approx(5.80, abs=0.05)
    assert r.max_energy_drift() == pytest.approx(5.59e-4, rel=0.03)
