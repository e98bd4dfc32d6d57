"""The structural-group method of Saura et al. on the scalable slider-crank.

* Kinematics, k = 10, one crank turn at Saura et al.'s 30° increments: global and
  structural-group slider accelerations agree to 1e-10 (Saura et al. Fig. 4: ~1e-12).
* R-matrix dynamics: both methods integrate the same independent coordinate (the crank
  angle) with the same trapezoidal corrector and agree to 1e-8 (Saura et al.: "identical").
* Penalty: dissipates energy relative to the R matrix (Saura et al. Fig. 3).
* The example file is the generator's k = 10 model and runs with structural groups.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from solver import load_model, simulate
from solver.analysis.dynamic import initial_state
from solver.analysis.group_dynamics import GroupPenalty, GroupRMatrix
from solver.analysis.group_evaluation import RowSet
from solver.analysis.group_kinematics import GroupKinematics
from solver.analysis.kinematics import assemble
from solver.analysis.structural_groups import choose_inputs, decompose, global_decomposition
from solver.generators.slider_crank import SPEED, slider_crank_model
from solver.mechanics.system import MultibodySystem
from solver.model import model_from_data

K = 10
TURN = 2.0 * math.pi / SPEED  # one crank turn at 24 rad/s
STEP_30 = math.radians(30.0) / SPEED


def slider_accelerations(system, qdd):
    kind = system.kinds[0]
    out = []
    for i in range(1, K + 1):
        info = kind.infos[system.slots[f"slider{i}"].index]
        a_g = info.frame.point_coefficients(np.zeros(3))
        out.append((a_g @ kind.entity_values(info, qdd, rates=True))[0])
    return np.array(out)


@pytest.fixture(scope="module")
def driven():
    return MultibodySystem(model_from_data(slider_crank_model(K, driven=True)), "natural")


def test_kinematics_global_and_groups_agree(driven):
    s = driven
    q0 = assemble(s, s.q0).q
    top = GroupKinematics(s, decompose(s, q0, []), 1e-10, 25)
    glob = GroupKinematics(s, global_decomposition(s, []), 1e-10, 25)
    steps = round(TURN / STEP_30)
    assert steps == 12
    q_top = q_glob = q0
    worst = 0.0
    for k in range(steps + 1):
        t = k * STEP_30
        q_top, _ = top.position(q_top, t)
        q_glob, _ = glob.position(q_glob, t)
        a_top = slider_accelerations(s, top.acceleration(q_top, top.velocity(), t))
        a_glob = slider_accelerations(s, glob.acceleration(q_glob, glob.velocity(), t))
        assert np.abs(a_glob).max() > 50.0
        worst = max(worst, float(np.abs(a_top - a_glob).max()))
    assert worst < 1e-10


def test_kinematic_analysis_by_groups_matches_the_global_analysis():
    """Through ``simulate``: the structural-group kinematic analysis against the
    project's global one (minimum-norm Newton), same CSV columns, same accelerations."""
    model = model_from_data(slider_crank_model(K, driven=True))
    runs = {}
    for method in ("structural_groups", "global"):
        sim = simulate(
            model,
            analysis="kinematic",
            dt=STEP_30,
            t_end=TURN,
            tolerance=1e-12,  # the same, tight, tolerance for both Newton iterations
            parameters={"group_method": method},
            stream=True,
        )
        frames = list(sim)
        runs[method] = (sim.result, [slider_accelerations(sim.system, f.qdd) for f in frames])
    (res_top, acc_top), (res_glob, acc_glob) = runs["structural_groups"], runs["global"]
    assert res_top.status == "ok" and "structural groups" in res_top.message
    assert res_top.columns == res_glob.columns
    np.testing.assert_allclose(res_top.data, res_glob.data, atol=1e-8)
    assert np.abs(np.array(acc_top) - np.array(acc_glob)).max() < 1e-10


@pytest.fixture(scope="module")
def free():
    s = MultibodySystem(model_from_data(slider_crank_model(K)), "natural")
    st0 = initial_state(s, 1e-10, 25)
    inputs = choose_inputs(s, st0.q)
    return s, st0, decompose(s, st0.q, inputs), global_decomposition(s, inputs)


def run(stepper, st0, h, t_end):
    st = stepper.start(st0)
    states = [st]
    for _ in range(round(t_end / h)):
        st = stepper.step(st, h)
        states.append(st)
    return states


def energy(s, st):
    return s.kinetic_energy(st.q, st.qd) + s.gravitational_energy(st.q)


def crank_angle(s, inputs, states):
    rows = RowSet(s, [], inputs)
    raw = np.array([rows.evaluate(st.q, None, 0.0, np.zeros(1)).phi[0] for st in states])
    return np.unwrap(raw)


def test_r_matrix_dynamics_global_and_groups_agree(free):
    s, st0, top, glob = free
    a = run(GroupRMatrix(s, top), st0, 0.005, 1.0)
    b = run(GroupRMatrix(s, glob), st0, 0.005, 1.0)
    za = np.array([st.carry.z[0] for st in a])
    zb = np.array([st.carry.z[0] for st in b])
    assert za[-1] > 20.0  # more than three turns
    assert np.abs(za - zb).max() < 1e-8
    assert max(np.abs(x.q - y.q).max() for x, y in zip(a, b, strict=True)) < 1e-8
    # z is the crank angle: it equals the joint angle of the positions
    np.testing.assert_allclose(crank_angle(s, top.inputs, a), za, atol=1e-9)
    for st in a[:: len(a) // 5]:
        assert np.abs(s.constraints(st.q).phi).max() < 1e-10


def test_penalty_dissipates_energy_relative_to_the_r_matrix(free):
    """Saura et al. Fig. 3: penalty (α = 1e7 at dt = 0.005; α = 1e6 at dt = 0.01) loses energy and
    falls behind the R matrix; GLOB and TOP penalty are the same method."""
    s, st0, top, glob = free
    e0 = energy(s, st0)
    r = run(GroupRMatrix(s, top), st0, 0.005, 2.0)
    p7 = run(GroupPenalty(s, top, penalty=1e7), st0, 0.005, 2.0)
    p6 = run(GroupPenalty(s, top, penalty=1e6), st0, 0.01, 2.0)
    e_r = np.array([energy(s, st) for st in r]) - e0
    e_p7 = np.array([energy(s, st) for st in p7]) - e0
    e_p6 = np.array([energy(s, st) for st in p6]) - e0
    # R matrix: the trapezoidal error oscillates within the crank cycle (about 1 %), with
    # no trend; penalty: a steady loss of several hundred joules per second
    assert np.abs(e_r).max() < 1e-2 * e0
    slope = {
        name: np.polyfit(np.linspace(0.0, 2.0, len(e)), e, 1)[0]
        for name, e in (("r", e_r), ("p7", e_p7), ("p6", e_p6))
    }
    assert abs(slope["r"]) < 20.0
    assert slope["p7"] < -100.0 and slope["p6"] < -100.0
    assert e_p7[-1] < -2.0 * np.abs(e_r).max() and e_p6[-1] < -2.0 * np.abs(e_r).max()
    theta_r = crank_angle(s, top.inputs, r)
    theta_p7 = crank_angle(s, top.inputs, p7)
    assert theta_p7[-1] < theta_r[-1] - 1e-3  # the crank falls behind
    g7 = run(GroupPenalty(s, glob, penalty=1e7), st0, 0.005, 0.25)
    assert max(np.abs(x.q - y.q).max() for x, y in zip(p7, g7, strict=False)) < 1e-5


def test_penalty_by_groups_matches_the_penalty_formulation():
    """The group-wise penalty and the project's ``penalty`` formulation integrate the same
    trapezoidal equations (with the same α convention); they differ by the corrector
    tolerance (1e-5) only."""
    model = model_from_data(slider_crank_model(2))
    res = {
        m: simulate(
            model, formulation="penalty", dt=0.005, t_end=0.25, parameters={"group_method": m}
        )
        for m in ("structural_groups", "global")
    }
    a, b = res["structural_groups"], res["global"]
    assert a.status == b.status == "ok"
    assert "structural groups (penalty)" in a.message
    assert np.abs(a.column("slider1.x") - b.column("slider1.x")).max() < 5e-4


def assert_same_data(a, b, where: str) -> None:
    """``a`` and ``b`` (JSON data) have the same structure and text, and numbers equal to
    1e-12 relative: the generator's trigonometry may differ in the last bits between
    machines and library builds."""
    if isinstance(a, dict):
        assert isinstance(b, dict) and a.keys() == b.keys(), where
        for k in a:
            assert_same_data(a[k], b[k], f"{where}.{k}")
    elif isinstance(a, list):
        assert isinstance(b, list) and len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            assert_same_data(x, y, f"{where}[{i}]")
    elif isinstance(a, bool) or not isinstance(a, int | float):
        assert a == b, where
    else:
        assert isinstance(b, int | float) and not isinstance(b, bool), where
        assert b == pytest.approx(a, rel=1e-12, abs=1e-12), where


def test_example_is_the_generated_k10_model():
    with open("examples/slider_crank_k10.json", encoding="utf-8") as fh:
        data = json.load(fh)
    generated = json.loads(json.dumps(slider_crank_model(10)))
    for key in ("bodies", "joints", "gravity", "solver", "outputs", "description"):
        assert_same_data(data[key], generated[key], key)
    model = load_model("examples/slider_crank_k10.json")
    assert model.solver.parameters["group_method"] == "structural_groups"
    for coordinates in ("natural", "reference_point"):
        s = MultibodySystem(model, coordinates)
        c = s.constraints(s.q0, s.qd0, 0.0)
        assert np.abs(c.phi).max() < 1e-12
        assert np.abs(c.phi_q @ s.qd0 + c.phi_t).max() < 1e-11
    result = simulate(model, t_end=0.05)
    assert result.status == "ok"
    assert "structural groups (R-matrix)" in result.message
    assert result.column("constraint.position").max() < 1e-10
