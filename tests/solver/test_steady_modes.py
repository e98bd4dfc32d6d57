"""Linearised modes about a steady motion (``solver.analysis.steady_modes``) against
closed forms: a sleeping top (a body spinning about its axis of symmetry, no rolling),
a pendulum at rest, and the refusals (a state that is not steady, a body spinning about an
axis that is not one of symmetry). The bicycle with its no-slip rows is in
``tests/validation/test_bicycle_benchmark.py``."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from solver import simulate
from solver.analysis.errors import SimulationError
from solver.analysis.steady_modes import steady_motion_modes
from solver.mechanics.system import MultibodySystem
from solver.model import model_from_data

MASS, LENGTH, A, C, G = 2.0, 0.3, 0.05, 0.03, 9.81  # kg, m (pivot to centre), kg·m²


def top(spin: float, inertia=(A, A, C)) -> dict:
    """A top on a ball joint at the origin, its centre of mass at height ``LENGTH`` on its
    symmetry axis (body z, vertical), spinning at ``spin`` (rad/s) about it."""
    return {
        "biela": 1,
        "name": "sleeping top",
        "gravity": [0.0, 0.0, -G],
        "bodies": [
            {
                "name": "top",
                "mass": MASS,
                "inertia": list(inertia),
                "position": [0.0, 0.0, LENGTH],
                "angular_velocity": [0.0, 0.0, spin],
            }
        ],
        "joints": [
            {
                "name": "ball",
                "type": "spherical",
                "body1": "ground",
                "body2": "top",
                "point": [0.0, 0.0, 0.0],
            }
        ],
        "solver": {"analysis": "modes"},
    }


def sleeping_top(spin: float) -> np.ndarray:
    """The four eigenvalues of the upright top: with u = θx + iθy the tilt,
    A₀ ü − i C ω u̇ − m g l u = 0 (A₀ = A + m l², the transverse moment about the pivot),
    so s = [iCω ± √(4A₀mgl − C²ω²)]/(2A₀) and their conjugates."""
    a0 = A + MASS * LENGTH**2
    root = np.sqrt(complex(4.0 * a0 * MASS * G * LENGTH - (C * spin) ** 2))
    s = np.array([1j * C * spin + root, 1j * C * spin - root]) / (2.0 * a0)
    return np.concatenate([s, np.conj(s)])


def modes_of(model: dict):
    return steady_motion_modes(MultibodySystem(model_from_data(model)))


def assert_same_set(got: np.ndarray, expected: np.ndarray, tol: float) -> None:
    left = list(got)
    assert len(left) == len(expected)
    for s in expected:
        k = int(np.argmin([abs(g - s) for g in left]))
        assert abs(left.pop(k) - s) < tol * max(1.0, abs(s)), (got, expected)


@pytest.mark.parametrize("spin", [150.0, 40.0])
def test_sleeping_top_matches_the_closed_form(spin):
    """Fast (stable: nutation and precession, purely imaginary) and slow (below the
    Maxwell–Klein limit C²ω² = 4A₀mgl, here ω = 77.6 rad/s: a root with a positive real
    part) spins."""
    result = modes_of(top(spin))
    expected = sleeping_top(spin)
    assert_same_set(result.eigenvalues, expected, 1e-7)
    assert (np.abs(result.eigenvalues.real).max() < 1e-6) == (spin > 77.6)
    assert result.stable == (spin > 77.6)
    assert result.neutral == 2  # the spin angle and the spin rate


def test_pendulum_at_rest():
    """A steady motion may be a rest state: a compound pendulum hanging at rest has
    s = ±i √(m g d / (I + m d²))."""
    model = top(0.0, inertia=(A, A, C))
    model["bodies"][0]["position"] = [0.0, 0.0, -LENGTH]
    model["joints"][0]["type"] = "revolute"
    model["joints"][0]["axis"] = [1.0, 0.0, 0.0]
    omega = math.sqrt(MASS * G * LENGTH / (A + MASS * LENGTH**2))
    result = modes_of(model)
    assert_same_set(result.eigenvalues, np.array([1j * omega, -1j * omega]), 1e-8)


def test_a_state_that_is_not_steady_is_refused_naming_the_body():
    model = top(150.0)
    model["bodies"][0]["position"] = [0.05, 0.0, math.sqrt(LENGTH**2 - 0.05**2)]  # tilted
    with pytest.raises(SimulationError) as err:
        modes_of(model)
    assert 'the state is not a steady motion: body "top" has an angular acceleration' in str(
        err.value
    )


def test_spin_about_an_axis_that_is_not_of_symmetry_is_refused():
    """Spinning about a principal axis keeps the state steady, but the linearisation turns
    with the body: its coefficients are periodic, which this analysis refuses by name."""
    with pytest.raises(SimulationError) as err:
        modes_of(top(60.0, inertia=(A, 0.7 * A, C)))
    assert "not the same along the steady motion" in str(err.value)


def test_modes_analysis_of_a_moving_model(tmp_path, capsys):
    """``analysis: modes`` on a model that starts moving linearises about that motion:
    the summary's table and the CLI's printout carry Re s and Im s; the CSV holds the
    table and the complex mode shapes."""
    from solver.cli import main

    result = simulate(model_from_data(top(150.0)))
    assert result.status == "ok", result.message
    rows = result.summary["modes"]
    assert_same_set(np.array([r["real"] + 1j * r["imag"] for r in rows]), sleeping_top(150.0), 1e-7)
    path = tmp_path / "top.json"
    path.write_text(json.dumps(top(150.0)))
    csv_path = tmp_path / "modes.csv"
    assert main(["run", str(path), "--csv", str(csv_path)]) == 0
    out = capsys.readouterr().out
    assert "4 modes about the steady motion (stable)" in out and "Im s (rad/s)" in out
    header = csv_path.read_text().splitlines()[0].split(",")
    assert header[:6] == ["mode", "real", "imag", "frequency_hz", "damping_ratio", "stable"]
    assert "top.e3.im" in header
    assert len(csv_path.read_text().splitlines()) == 5
