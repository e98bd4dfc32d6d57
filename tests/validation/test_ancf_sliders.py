"""Sliders on a flexible bar: García Vallejo (2006) §5.1.1 (E5) and §5.1.2 (E6).

E6 (examples/ancf_fixed_angle_slider_e6.json): a four-bar whose link keeps a fixed angle
(π/3) to a flexible steel bar it slides along (``sliding`` with ``rotation: locked``), the
crank turning at 1 rad/s. The thesis's results are plots (the reaction moment at the slider
against the rigid-bar case, with high-frequency oscillations that the angle constraint
excites). Checked here against the same mechanism with a rigid bar, where the fixed-angle
slider is a prismatic joint between bar and link (an independent model: rigid bodies, no
sliding coordinate): over the first 0.5 s the flexible bar's angle follows the rigid one
within 7e-4 rad with the real steel and 8e-5 rad with E × 100 (measured 5.8e-4, 6.2e-5 at
the example's 1 ms; 5.5e-4 with the real steel at 0.1 ms), i.e. it converges to the rigid
mechanism as the bar stiffens, while the reaction moment of the locked rotation oscillates
about the rigid value with amplitudes up to 0.12 N·m (1.4 N·m with E × 100) against at most
5e-4 N·m in the rigid mechanism: the high-frequency oscillations the thesis describes.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from solver import simulate
from solver.model import model_from_data

E6 = Path(__file__).resolve().parents[2] / "examples" / "ancf_fixed_angle_slider_e6.json"


def e6_data(scale: float = 1.0, elements: int = 2, rigid: bool = False) -> dict:
    data = json.loads(E6.read_text())
    if rigid:  # the bar as a rigid body; the fixed-angle slider is then a prismatic joint
        mass = 7878.0 * 2.827e-5 * 0.5
        data["bodies"][0] = {
            "name": "bar",
            "mass": mass,
            "inertia": [1e-7, mass * 0.25 / 12, mass * 0.25 / 12],
            "position": [0.25, 0.0, 0.0],
        }
        data["joints"][3] = {
            "name": "A",
            "type": "prismatic",
            "body1": "bar",
            "body2": "link",
            "point": [0.32, 0.0, 0.0],
            "axis": [1.0, 0.0, 0.0],
        }
    else:
        data["bodies"][0]["material"]["E"] *= scale
        data["bodies"][0]["elements"] = elements
    return data


def run(data: dict, t_end: float):
    result = simulate(model_from_data(data), t_end=t_end, output_dt=0.01)
    assert result.status == "ok", result.message
    return result


def bar_angle(result) -> np.ndarray:
    return np.arctan2(result.column("B.y"), result.column("B.x"))


@pytest.fixture(scope="module")
def rigid():
    return run(e6_data(rigid=True), 0.5)


def test_e6_flexible_bar_follows_the_rigid_mechanism(rigid):
    flexible = run(e6_data(), 0.5)
    assert np.abs(bar_angle(flexible) - bar_angle(rigid)).max() < 7e-4
    assert bar_angle(rigid)[-1] == pytest.approx(0.0439, abs=5e-4)  # the bar has turned
    assert flexible.column("constraint.position").max() < 1e-9  # the angle is held


@pytest.mark.slow
def test_e6_stiffer_bar_converges_to_the_rigid_one_with_oscillating_moment(rigid):
    stiff = run(e6_data(scale=100.0), 0.5)
    assert np.abs(bar_angle(stiff) - bar_angle(rigid)).max() < 8e-5
    moment = stiff.column("reaction.A.Tz")
    rigid_moment = rigid.column("reaction.A.Tz")
    assert np.abs(rigid_moment).max() < 1e-3
    assert np.abs(moment - rigid_moment).max() > 100 * np.abs(rigid_moment).max()


# ---- E5: the three-bar mechanism with a free slider ------------------------------------
def e5_data(dt: float) -> dict:
    """García Vallejo (2006) §5.1.1, model 1: the flexible bar O1B of E6 (4 elements) pinned
    at O1 = (0, 0); a rigid crank O2A (O2 = (0.24, 0), 0.08 m, 8.91 g) driven at 30 rad/s
    whose end A slides freely along the bar (a massless slider pinned to the crank: the
    ``sliding`` joint with free rotation); two crank cycles (0.419 s). The thesis does not
    state the initial crank angle: here A = (0.32, 0), on the bar, which starts at rest."""
    mass, length = 3939.0 * 2.827e-5 * 0.08, 0.08
    return {
        "biela": 1,
        "name": "three-bar with a slider on a flexible bar",
        "gravity": [0, 0, 0],
        "bodies": [
            {
                "name": "bar",
                "type": "ancf_beam2d",
                "points": [[0, 0, 0], [0.5, 0, 0]],
                "elements": 4,
                "material": {"E": 2e11, "nu": 0, "density": 7878},
                "section": {"shape": "general", "area": 2.827e-5, "Iy": 6.362e-11, "Iz": 6.362e-11},
            },
            {
                "name": "crank",
                "mass": mass,
                "inertia": [mass * 0.003**2 / 2, mass * length**2 / 12, mass * length**2 / 12],
                "position": [0.28, 0, 0],
            },
        ],
        "joints": [
            {
                "name": "O1",
                "type": "revolute",
                "body1": "ground",
                "body2": "bar",
                "point": [0, 0, 0],
                "axis": [0, 0, 1],
            },
            {
                "name": "O2",
                "type": "revolute",
                "body1": "ground",
                "body2": "crank",
                "point": [0.24, 0, 0],
                "axis": [0, 0, 1],
            },
            {
                "name": "A",
                "type": "sliding",
                "body1": "bar",
                "body2": "crank",
                "point": [0.32, 0, 0],
            },
        ],
        "drivers": [{"name": "motor", "joint": "O2", "function": {"polynomial": [0, 30]}}],
        "outputs": [
            {"name": "B", "body": "bar", "point": [0.5, 0, 0]},
            {"name": "A", "body": "crank", "point": [0.32, 0, 0]},
        ],
        "solver": {
            "formulation": "augmented_lagrangian",
            "dt": dt,
            "t_end": 4 * np.pi / 30,
            "output_dt": dt,
            "tolerance": 1e-10,
        },
    }


@pytest.mark.slow
def test_e5_free_slider_crosses_elements_and_balances_energy():
    """The slider runs from element 2 into element 1 and back twice (s from 0.32 to 0.16 m).

    Published: the tip deflection, measured from the bar's tangent at O1, stays below 4 % of
    its length (model 1, against a floating-frame model); measured here 0.0354 m at
    Δt = 1e-4 s and 0.0378 m at 5e-5 s, 7–8 % (the initial crank angle is not stated, and
    starting the crank at full speed with the bar at rest excites its bending: this run is
    not the thesis's).

    The energy balance (kinetic + elastic − motor work, the thesis's Fig. 5.6) closes to
    0.21 % of the motor work at 1e-4 s, 0.045 % at 5e-5 s and 0.012 % at 2.5e-5 s (1.5 % at
    2e-4 s; 0.20 % and 0.045 % with a Newton tolerance of 1e-12 instead of 1e-10): second
    order, whatever the tolerance. Without the motor work it is off by 100 %, without the
    elastic energy by 18 %. The bar's axial and upper bending modes are not resolved at
    these steps (the trapezoidal rule keeps them, undamped, near the Nyquist frequency), and
    the motor torque swings between ±30 N·m from step to step around a mean of 0.04 N·m: its
    work, the trapezoidal rule on λ Φ_t, is only as good as the multipliers, which must be
    the index-1 multipliers of each state. It is checked at 1e-4 s against ∫ torque · ω dt
    of the requested ``effort`` output, computed from the state alone (measured: equal to
    3e-11 of the work). With the augmented Lagrangian's λ* carrying its Newton residual (up
    to 1 N, or N·m on the motor's row: α times the rounding of Φ, α ≈ 8e14 N/m, whatever the
    tolerance) the work was a random walk: it differed from ∫ torque · ω dt by 1.6 % of the
    work, and the balance errors were 1.5 % at 1e-4 s (2.5 % at a tolerance of 1e-12) and
    0.24 % at 5e-5 s.
    """
    errors, tips = [], []
    for dt in (1e-4, 5e-5):
        data = e5_data(dt)
        if dt == 1e-4:
            data["outputs"].append({"efforts": "motor"})
        r = simulate(model_from_data(data))  # an output at every step
        assert r.status == "ok", r.message
        s = np.hypot(r.column("A.x"), r.column("A.y"))
        assert s.min() == pytest.approx(0.16, abs=1e-3) and s.max() == pytest.approx(0.32, abs=1e-6)
        tx, ty = r.column("bar.n0.tx"), r.column("bar.n0.ty")
        tips.append(np.abs((-ty * r.column("B.x") + tx * r.column("B.y")) / np.hypot(tx, ty)).max())
        work = r.column("energy.work")
        if dt == 1e-4:
            power = 30.0 * r.column("effort.motor.torque")  # the crank turns at 30 rad/s
            by_torque = np.concatenate([[0.0], np.cumsum(0.5 * (power[1:] + power[:-1]) * dt)])
            assert np.abs(work - by_torque).max() < 1e-6 * np.abs(work).max()
        e = r.column("energy.total")
        errors.append(np.abs(e - e[0]).max() / np.abs(work).max())
    assert 0.033 < tips[0] < 0.04 and 0.033 < tips[1] < 0.04  # 7-8 % of 0.5 m, not < 4 %
    assert 1e-3 < errors[0] < 3e-3  # measured 2.1e-3 (not closed by construction either)
    assert 3.0 < errors[0] / errors[1] < 6.0  # measured 4.6: second order
