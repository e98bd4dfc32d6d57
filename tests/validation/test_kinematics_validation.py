"""Kinematic validation against the published cases (Villar Alegría (2018) §1.5, §3.2;
Urkullu (2019) §8.7, §8.10)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from solver import check, load_model, simulate
from solver.analysis.kinematic import kinematic_frames
from solver.analysis.kinematics import AssemblyError, accelerations, assemble
from solver.cli import main as cli_main
from solver.mechanics.system import MultibodySystem
from solver.model import model_from_data

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def output(system, frame_q, frame_qd, name):
    names = [o.name for o in system.model.outputs]
    return system.output_points(frame_q, frame_qd)[names.index(name)]


# ---- planar four-bar, Villar Alegría (2018) §1.5 (L492-555)
# --------------------------------------------
FOUR_BAR_POSITION = (1.0, 1.7320508, 8.4124593, 4.7412777)
FOUR_BAR_VELOCITY = (-1.73205, 1.0, -1.1674, -0.3909)
FOUR_BAR_ACCELERATION = (-2.73205, -0.73205, -2.8201, -1.2639)  # corrected sign of ÿ1


def test_planar_four_bar_position_velocity_acceleration():
    model = load_model(EXAMPLES / "four_bar_planar.json")
    system = MultibodySystem(model)
    frame, _ = next(kinematic_frames(system, 0.01, 0.01, 1e-12, 25))
    p1 = output(system, frame.q, frame.qd, "P1")
    p2 = output(system, frame.q, frame.qd, "P2")
    assert [p1[0], p1[1], p2[0], p2[1]] == pytest.approx(FOUR_BAR_POSITION, abs=1e-7)
    assert [p1[3], p1[4], p2[3], p2[4]] == pytest.approx(FOUR_BAR_VELOCITY, abs=1e-4)
    ms = system.marker_state(frame.q, frame.qd)
    idx = [system.output_markers[0], system.output_markers[1]]
    acc = np.einsum("nik,nk->ni", ms.jac[idx], system.markers.gather(frame.qdd)[idx]) + ms.jdq[idx]
    assert [acc[0, 0], acc[0, 1], acc[1, 0], acc[1, 1]] == pytest.approx(
        FOUR_BAR_ACCELERATION, abs=1e-4
    )


def test_planar_four_bar_newton_converges_quadratically():
    """From a guess well off the solution (cf. q⁰ = (1, 2, 8, 3) in Villar Alegría (2018)), Newton's
    error falls quadratically: each residual is below C·(previous)² once close."""
    model = load_model(EXAMPLES / "four_bar_planar.json")
    system = MultibodySystem(model)
    rng = np.random.default_rng(3)
    guess = system.q0 + 0.05 * rng.standard_normal(system.n)
    res = assemble(system, guess, 0.0, tol=1e-13)
    r = res.residuals
    assert r[-1] < 1e-13 and 3 <= len(r) <= 8
    ratios = [
        r[k + 1] / r[k] ** 2 for k in range(1, len(r) - 1) if r[k] < 1e-2 and r[k + 1] > 1e-15
    ]
    assert ratios and max(ratios) < 50.0, r
    out = system.output_points(res.q, np.zeros(system.n))
    assert [out[0, 0], out[0, 1], out[1, 0], out[1, 1]] == pytest.approx(
        FOUR_BAR_POSITION, abs=1e-7
    )


# ---- spatial four-bar, Villar Alegría (2018) §3.2 (reference kinematics table)
# --------------------------
SPATIAL_P5 = {
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


def spatial_four_bar_driven():
    """The spatial four-bar with the coupler spin fixed, so the motor drives it fully
    (the coupler's free spin about its own axis does not move P5)."""
    data = json.loads((EXAMPLES / "four_bar_spatial.json").read_text())
    data["forces"] = []
    j1 = next(j for j in data["joints"] if j["type"] == "spherical")
    other = [j for j in data["joints"] if j["type"] == "spherical" and j is not j1][0]
    # replace one spherical by a universal joint whose cross blocks the spin
    a = np.subtract(other["point"], j1["point"])
    j1.update(type="universal", axis1=[1.0, 0.0, 0.0], axis2=list(np.cross([1.0, 0.0, 0.0], a)))
    data["solver"]["analysis"] = "kinematic"
    return model_from_data(data)


def test_spatial_four_bar_p5_follows_the_reference_table():
    model = spatial_four_bar_driven()
    report = check(model)
    assert report.dof == 0 and report.redundant == 0
    result = simulate(model, analysis="kinematic", dt=1.0 / 360.0, t_end=1.0, output_dt=1.0 / 360.0)
    assert result.status == "ok", result.message
    t = result.t
    for deg, p5 in SPATIAL_P5.items():
        k = int(np.argmin(np.abs(t - deg / 360.0)))
        got = [result.column(f"P5.{c}")[k] for c in "xyz"]
        assert got == pytest.approx(p5, abs=1e-4), deg


# ---- Bricard, IFToMM A04 -----------------------------------------------------------
def test_bricard_dof_and_redundancy():
    report = check(load_model(EXAMPLES / "bricard.json"))
    assert report.grubler_dof == 0
    assert report.dof == 1
    assert report.redundant == 1
    names = {k.split(":", 1)[1] for k in report.mobility.redundant_items}
    assert names == {"J1", "J2", "J3", "J4", "J5", "J6"}


def test_bricard_driven_kinematics_runs_through():
    data = json.loads((EXAMPLES / "bricard.json").read_text())
    data["drivers"] = [{"name": "turn", "joint": "J1", "function": {"expression": "0.5*sin(pi*t)"}}]
    model = model_from_data(data)
    result = simulate(model, analysis="kinematic", dt=0.01, t_end=2.0)
    assert result.status == "ok", result.message
    assert result.summary["dof"] == 0 and result.summary["redundant_constraints"] == 1
    assert result.column("constraint.position").max() < 1e-10
    assert np.ptp(result.column("P3.z")) > 0.05  # it really moves


# ---- Andrews squeezer, IFToMM A03 ---------------------------------------------------
def test_andrews_assembles_from_a_perturbed_configuration():
    model = load_model(EXAMPLES / "andrews_squeezer.json")
    system = MultibodySystem(model)
    rng = np.random.default_rng(11)
    guess = system.q0.copy()
    guess += 1e-3 * rng.standard_normal(system.n)
    res = assemble(system, guess, 0.0, tol=1e-12)
    assert res.residual < 1e-10
    assert res.iterations <= 8


def test_accelerations_of_a_pendulum_at_release():
    """A01 released horizontally: the bob's initial acceleration is g, straight down."""
    system = MultibodySystem(load_model(EXAMPLES / "pendulum.json"))
    qdd, lam = accelerations(system, system.q0, system.qd0)
    assert qdd == pytest.approx([0.0, -9.81, 0.0], abs=1e-12)
    assert lam == pytest.approx([0.0], abs=1e-12)


# ---- a model that cannot be assembled ------------------------------------------------
def short_link_four_bar() -> dict:
    def bar(name, a, b):
        c = [(x + y) / 2 for x, y in zip(a, b, strict=True)]
        return {"name": name, "mass": 1.0, "inertia": [0.1, 0.1, 0.01], "position": c}

    return {
        "biela": 1,
        "name": "four-bar with a short coupler",
        "gravity": [0, -9.81, 0],
        "bodies": [bar("crank", [0, 0, 0], [0, 2, 0]), bar("rocker", [10, 0, 0], [10, 5, 0])],
        "joints": [
            {
                "name": "A",
                "type": "revolute",
                "body1": "ground",
                "body2": "crank",
                "point": [0, 0, 0],
                "axis": [0, 0, 1],
            },
            {
                "name": "B",
                "type": "revolute",
                "body1": "ground",
                "body2": "rocker",
                "point": [10, 0, 0],
                "axis": [0, 0, 1],
            },
            {
                "name": "coupler",
                "type": "distance",
                "body1": "crank",
                "body2": "rocker",
                "point1": [0, 2, 0],
                "point2": [10, 5, 0],
                "length": 2.0,
            },
        ],
    }


def test_unassemblable_model_gives_exit_1_naming_the_loop(tmp_path, capsys):
    path = tmp_path / "short.json"
    path.write_text(json.dumps(short_link_four_bar()))
    with pytest.raises(AssemblyError) as info:
        check(load_model(path))
    assert "coupler" in info.value.items[0] or any("coupler" in i for i in info.value.items)
    assert info.value.residual > 1.0
    assert cli_main(["check", str(path)]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("short.json: cannot assemble at t = 0 s: ")
    assert 'joint "coupler"' in err or '"coupler"' in err
    assert "Traceback" not in err and len(err.splitlines()) == 1


def test_kinematic_run_needs_a_fully_driven_model(tmp_path, capsys):
    assert (
        cli_main(
            ["run", str(EXAMPLES / "bricard.json"), "--analysis", "kinematic", "--t-end", "0.1"]
        )
        == 3
    )
    err = capsys.readouterr().err
    assert "1 degree(s) of freedom remain" in err and "add drivers" in err


def test_kinematic_run_writes_csv(tmp_path):
    out, summary = tmp_path / "out.csv", tmp_path / "summary.json"
    code = cli_main(
        [
            "run",
            str(EXAMPLES / "four_bar_planar.json"),
            "--t-end",
            "0.2",
            "--csv",
            str(out),
            "--summary",
            str(summary),
            "-q",
        ]
    )
    assert code == 0
    from solver.results import read_csv

    header, data = read_csv(out)
    assert header[0] == "t" and header[-7:] == [
        "energy.kinetic",
        "energy.potential",
        "energy.elastic",
        "energy.work",
        "energy.total",
        "constraint.position",
        "constraint.velocity",
    ]
    assert data.shape == (21, len(header))
    s = json.loads(summary.read_text())
    for key in (
        "steps",
        "wall_time_s",
        "newton_iterations",
        "max_constraint_position",
        "max_energy_drift",
        "dof",
        "redundant_constraints",
    ):
        assert key in s
    assert s["dof"] == 0
    # the crank angle follows β = 60° + t + t²/2
    e0, e3 = data[:, header.index("crank.e0")], data[:, header.index("crank.e3")]
    angle = 2 * np.arctan2(e3, e0)
    t = data[:, 0]
    assert angle == pytest.approx(math.radians(60) + t + t**2 / 2, abs=1e-9)
