"""Passive freedoms: the spatial RSSR four-bar (MUBODYNA Fourbar3) driven by its motor only.

The coupler hangs between two spherical joints, so it can spin about the line J1–J2 while
nothing else moves: the numerical DOF is 1 with the motor, but no joint, force or output
point moves with it. ``check`` reports it, the builder does not count it, and a kinematic
analysis holds it (zero spin rate) and follows the follower tip P5 of the reference table
(Villar Alegría (2018) §3.2) and of an independent solution of the loop-closure equation.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from scipy.optimize import brentq

from app.builder.live_check import live_check
from solver import check, load_model, simulate
from solver.cli import main as cli_main
from solver.mechanics.system import MultibodySystem
from solver.model import model_from_data

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
EXAMPLE = EXAMPLES / "four_bar_spatial.json"
SPATIAL_P5 = {  # crank angle (deg) → follower tip P5 (m), reference table of Villar Alegría (2018) §3.2
    0: (0, 4, 7),
    30: (1.2543, 2.7457, 6.7715),
    60: (2.6141, 1.3859, 5.9442),
    90: (3.6667, 0.3333, 4.7022),
    120: (4.2691, -0.2691, 3.5425),
    150: (4.5522, -0.5522, 2.7487),
    180: (4.6667, -0.6667, 2.3333),
    195: (4.6831, -0.6831, 2.2666),
    210: (4.6708, -0.6708, 2.3166),
    240: (4.4586, -0.4586, 3.0401),
    270: (3.0000, 1.0000, 5.5678),
    300: (0.0317, 3.9683, 6.9999),
    330: (-0.6708, 4.6708, 6.9354),
}


def follower_tip(phi: float) -> np.ndarray:
    """P5 after the follower turns ``phi`` about (1, 1, 0)/√2 through (0, 4, 0)."""
    s = np.sin(phi) / np.sqrt(2.0)
    return np.array([7.0 * s, 4.0 - 7.0 * s, 7.0 * np.cos(phi)])


def independent_p5(degrees: np.ndarray) -> np.ndarray:
    """Loop closure |P5(φ) − B(θ)| = √41, crank tip B = (0, −2 sin θ, 2 cos θ), followed
    continuously from φ = 0 in steps of at most 0.25° of crank (brentq within ±0.05 rad
    of the previous angle)."""
    out, phi, last = [], 0.0, 0.0
    for target in np.radians(degrees):
        n = max(1, int(np.ceil(abs(target - last) / np.radians(0.25))))
        for theta in np.linspace(last, target, n + 1)[1:]:
            b = np.array([0.0, -2.0 * np.sin(theta), 2.0 * np.cos(theta)])

            def gap(f, b=b):
                return float(np.sum((follower_tip(f) - b) ** 2) - 41.0)

            if gap(phi) != 0.0:
                grid = np.linspace(phi - 0.05, phi + 0.05, 21)
                vals = [gap(g) for g in grid]
                k = min(
                    (i for i in range(20) if vals[i] * vals[i + 1] <= 0.0),
                    key=lambda i: abs(grid[i] - phi),
                )
                phi = brentq(gap, grid[k], grid[k + 1], xtol=1e-14)
        last = target
        out.append(follower_tip(phi))
    return np.array(out)


def test_independent_loop_closure_reproduces_the_table():
    degrees = np.array(sorted(SPATIAL_P5))
    want = np.array([SPATIAL_P5[d] for d in degrees], float)
    assert np.abs(independent_p5(degrees) - want).max() < 6e-5  # the table's rounding


def test_check_reports_the_coupler_spin(capsys):
    report = check(load_model(EXAMPLE))
    assert report.dof == 1 and report.active_dof == 0 and report.redundant == 0
    assert report.passive_freedoms == ["coupler spin about J1–J2"]
    assert "1 passive freedom: coupler spin about J1–J2" in report.lines()
    assert cli_main(["check", str(EXAMPLE)]) == 0
    assert "1 passive freedom: coupler spin about J1–J2" in capsys.readouterr().out


def test_builder_does_not_count_the_passive_freedom():
    report = live_check(load_model(EXAMPLE))
    assert report.active_dof == 0 and report.passive == ["coupler spin about J1–J2"]
    assert report.status() == "DOF 0 (Grübler 1, 1 passive)"


def test_kinematics_with_the_motor_only_follows_p5():
    model = load_model(EXAMPLE)  # spring, gravity and all: only the motor drives it
    result = simulate(model, analysis="kinematic", dt=1.0 / 360.0, t_end=1.0, output_dt=1.0 / 360.0)
    assert result.status == "ok", result.message
    assert result.summary["passive_freedoms"] == ["coupler spin about J1–J2"]
    t = result.t
    p5 = np.column_stack([result.column(f"P5.{c}") for c in "xyz"])
    for deg, want in SPATIAL_P5.items():
        k = int(np.argmin(np.abs(t - deg / 360.0)))
        assert p5[k] == pytest.approx(want, abs=1e-4), deg
    assert np.abs(p5 - independent_p5(360.0 * t)).max() < 1e-8
    # the spin is held: the coupler's angular velocity has no component along J1–J2
    system = MultibodySystem(model)
    j1 = np.column_stack([result.column(f"P2.{c}") for c in "xyz"])
    axis = (p5 - j1) / np.linalg.norm(p5 - j1, axis=1, keepdims=True)
    w = np.column_stack([result.column(f"coupler.w{c}") for c in "xyz"])
    assert np.abs(np.einsum("ij,ij->i", w, axis)).max() < 1e-9
    assert np.abs(w).max() > 1.0  # while it does turn otherwise
    assert system.n == 21


def test_a_load_off_the_axis_makes_the_spin_a_real_freedom():
    """A spring end away from the J1–J2 line moves with the spin: no passive freedom, and
    a kinematic analysis asks for a driver."""
    data = json.loads(EXAMPLE.read_text())
    data["forces"][0]["point2"] = [0.0, 4.5, 7.0]  # on the coupler, off its axis
    model = model_from_data(data)
    report = check(model)
    assert report.passive_freedoms == [] and report.active_dof == 1
    result = simulate(model, analysis="kinematic", dt=0.01, t_end=0.02)
    assert result.status == "failed" and "1 degree(s) of freedom remain" in result.message


def test_a_blocked_spin_is_not_passive():
    """A universal joint in place of one spherical joint takes the spin: DOF 0, nothing
    passive."""
    data = json.loads(EXAMPLE.read_text())
    j1 = data["joints"][0]
    axis = np.subtract(data["joints"][1]["point"], j1["point"])
    j1.update(type="universal", axis1=[1.0, 0.0, 0.0], axis2=list(np.cross([1.0, 0.0, 0.0], axis)))
    report = check(model_from_data(data))
    assert report.dof == 0 and report.passive_freedoms == []


@pytest.mark.parametrize("example", ["four_bar_spatial", "bricard", "flyball_governor"])
def test_dense_and_sparse_rows_give_the_same_passive_freedoms(example):
    """The screen works on the rows as given: a dense ``Φ_q`` (small systems) and the same
    rows in CSR (large ones) find the same freedoms."""
    import scipy.sparse as sp

    from solver.analysis.passive import passive_freedoms

    system = MultibodySystem(load_model(EXAMPLES / f"{example}.json"))
    q = system.q0
    rows = np.asarray(system.constraints(q, None, 0.0).phi_q)
    dense = [f.describe() for f in passive_freedoms(system, q, rows)]
    sparse = [f.describe() for f in passive_freedoms(system, q, sp.csr_matrix(rows))]
    assert dense == sparse
    if example == "four_bar_spatial":
        assert dense == ["coupler spin about J1–J2"]
