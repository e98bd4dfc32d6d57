"""Validation of ``central_differences`` (DIMCD, method Urkullu (2019)) against the thesis's
numbers.

Published figures (tests/validation/reference_data.py, from Urkullu (2019) §8.3, §8.6, §8.7):
A01 pendulum maximum energy drift 9e-2 / 3.6e-3 / 9.02e-4 / 3.6e-5 J at 50 / 10 / 5 / 1 ms;
A02 double four-bar 0.039 J at 10 ms (through its singular positions); A04 Bricard
(redundant) 3.6e-4 J at 10 ms, criterion 1e-3 J. Plus unit tests of the step: a free
spinning body with a general inertia tensor, a start exactly at a singular position, the
exact velocity Jacobian of the Newton iteration (gyroscopic term and dampers), a damped
model, the multipliers' sign, a change of step and the failure message.

Run time: about 45 s of CPU for the whole file (the 1 ms pendulum, marked slow, ~15 s).
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest

from solver import load_model, simulate
from solver.analysis.dynamic import initial_state
from solver.analysis.errors import SimulationError
from solver.analysis.formulations.base import DynamicState
from solver.analysis.formulations.central_differences import CentralDifferences
from solver.mechanics.system import MultibodySystem
from solver.model import model_from_data
from solver.model.description import SolverSettings
from tests.validation import reference_data as ref
from tests.validation.a01_helpers import period_from_quarter_crossings

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
CD = "central_differences"


def run(name: str, dt: float, t_end: float = 10.0):
    result = simulate(
        load_model(EXAMPLES / f"{name}.json"),
        formulation=CD,
        dt=dt,
        t_end=t_end,
        output_dt=dt,  # every step: the maximum drift is over all steps, as in the thesis
        tolerance=1e-10,
    )
    assert result.status == "ok", result.message
    assert result.t[-1] == pytest.approx(t_end)
    return result


def stepper(model, dt: float, **settings) -> tuple[MultibodySystem, CentralDifferences]:
    system = MultibodySystem(model)
    return system, CentralDifferences(
        system, SolverSettings(formulation=CD, dt=dt, t_end=1.0, **settings)
    )


# ---- A01 simple pendulum -----------------------------------------------------------------
@pytest.mark.parametrize("dt", [0.05, 0.01, 0.005])
def test_pendulum_energy_drift(dt):
    result = run("pendulum", dt)
    drift = result.max_energy_drift()
    assert drift == pytest.approx(ref.A01_CD_ENERGY_DRIFT[dt], rel=ref.A01_CD_DRIFT_TOLERANCE)
    # constraints at position level, every step, to the Newton tolerance (thesis ~1e-14)
    assert result.column("constraint.position").max() < 1e-12
    # 2-3 Newton iterations per step (Urkullu (2019) ch. 6–7)
    its = result.summary["newton_iterations"] / result.summary["steps"]
    assert 1.5 <= its <= 4.0


@pytest.mark.slow
def test_pendulum_1ms_drift_and_period():
    start = time.perf_counter()
    result = run("pendulum", 0.001)
    wall = time.perf_counter() - start
    drift = result.max_energy_drift()
    assert drift == pytest.approx(ref.A01_CD_ENERGY_DRIFT[0.001], rel=ref.A01_CD_DRIFT_TOLERANCE)
    assert drift < ref.A01_CRITERION
    # vy vanishes at the turning points and at the bottom: crossings every quarter period
    period, crossings = period_from_quarter_crossings(result.t, result.column("bob.vy"))
    assert len(crossings) >= 12
    assert period == pytest.approx(ref.A01_PERIOD, abs=ref.A01_PERIOD_TOLERANCE)
    # the spacing is uniform (no phase drift beyond the scheme's accuracy)
    assert np.ptp(np.diff(crossings)) < 2e-3
    print(f"A01 1 ms: drift {drift:.4g} J, period {period:.7f} s, wall {wall:.1f} s")


# ---- A02 double four-bar through its singular positions ------------------------------------
def test_double_four_bar_energy_drift_through_singular_positions():
    result = run("double_four_bar", 0.01)
    drift = result.max_energy_drift()
    assert drift == pytest.approx(ref.A02_CD_ENERGY_DRIFT[0.01], rel=ref.A02_CD_DRIFT_TOLERANCE)
    assert drift < ref.A02_CRITERION
    # tighter, against an independent reproduction (0.0393 J): the Lagrangian quadratic-velocity
    # force in place of Euler's gyroscopic term gives 0.0359 J, which this rejects
    assert drift == pytest.approx(ref.A02_CD_ENERGY_DRIFT_REPRODUCED[0.01], rel=0.02)
    assert result.column("constraint.position").max() < 1e-12
    # it really goes through the singular (all-horizontal) position several times ...
    tip1_y = result.column("P_B0.y")
    assert np.sum(np.sign(tip1_y[:-1]) * np.sign(tip1_y[1:]) < 0) >= 4
    # ... and stays on the parallelogram branch: the two crank tips keep their offset (1, 0, 0)
    offset = np.column_stack(
        [result.column(f"P_B1.{c}") - result.column(f"P_B0.{c}") for c in "xyz"]
    )
    assert np.abs(offset - [1.0, 0.0, 0.0]).max() < 1e-9


def test_double_four_bar_at_15_ms():
    """The thesis's compiled DIMCD ran A02 at Δt = 15 ms: 0.088 J, still below the 0.1 J
    criterion (our reproduction of the method: 0.0885 J). 10 s is not a whole number of
    15 ms steps: 667 steps, to 10.005 s (measured 0.0885 J, position constraints at 1e-15)."""
    result = run("double_four_bar", 0.015, t_end=667 * 0.015)
    drift = result.max_energy_drift()
    assert drift == pytest.approx(ref.A02_CD_ENERGY_DRIFT[0.015], rel=ref.A02_CD_DRIFT_TOLERANCE)
    assert drift == pytest.approx(ref.A02_CD_ENERGY_DRIFT_REPRODUCED[0.015], rel=0.02)
    assert drift < ref.A02_CRITERION
    assert result.column("constraint.position").max() < 1e-12


def singular_start_model():
    """The A02 double four-bar laid flat: every link on the x axis, the singular position
    where the DOF count jumps from 1 to 3; the cranks turn at 1 rad/s (upwards)."""
    inertia = [1e-4, 1.0 / 12.0, 1.0 / 12.0]

    def body(name, x, crank):
        return {
            "name": name,
            "mass": 1.0,
            "inertia": inertia,
            "position": [x, 0.0, 0.0],
            "velocity": [0.0, 0.5 if crank else 1.0, 0.0],
            "angular_velocity": [0.0, 0.0, 1.0 if crank else 0.0],
        }

    def joint(name, kind, b1, b2, x):
        return {
            "name": name,
            "type": kind,
            "body1": b1,
            "body2": b2,
            "point": [x, 0.0, 0.0],
            "axis": [0.0, 0.0, 1.0],
        }

    return model_from_data(
        {
            "biela": 1,
            "name": "double four-bar starting at its singular position",
            "gravity": [0.0, -9.81, 0.0],
            "bodies": [
                body("crank1", 0.5, True),
                body("coupler1", 1.5, False),
                body("crank2", 1.5, True),
                body("coupler2", 2.5, False),
                body("crank3", 2.5, True),
            ],
            "joints": [
                joint("A0", "revolute", "ground", "crank1", 0.0),
                joint("A1", "revolute", "ground", "crank2", 1.0),
                joint("A2", "revolute", "ground", "crank3", 2.0),
                joint("B0", "revolute", "crank1", "coupler1", 1.0),
                joint("B1a", "point_on_line", "crank2", "coupler1", 2.0),
                joint("B1b", "revolute", "crank2", "coupler2", 2.0),
                joint("B2", "point_on_line", "crank3", "coupler2", 3.0),
            ],
        }
    )


def test_start_exactly_at_a_singular_position():
    """s comes from Φ_q(q(t)): 3 at the singular start, so the first step relaxes the two
    directions that are singular there (a violation of order 1e-7 at that one step); from
    the next step on s = 1 again and the constraints hold to the tolerance. The parallelogram
    branch is kept."""
    model = singular_start_model()
    system, f = stepper(model, 0.01)
    state = f.start(initial_state(system, 1e-12, 25))
    assert state.carry.dof == 3
    height = 0.0
    for k in range(100):
        state = f.step(state, 0.01)
        assert state.carry.dof == 1
        phi = np.abs(system.constraints(state.q, None, state.t).phi).max()
        assert phi < (1e-6 if k == 0 else 1e-12)
        tip1 = system.global_point(state.q, "crank1", (0.5, 0.0, 0.0))
        tip2 = system.global_point(state.q, "crank2", (0.5, 0.0, 0.0))
        assert tip2 - tip1 == pytest.approx([1.0, 0.0, 0.0], abs=1e-4)
        height = max(height, abs(tip1[1]))
    assert height > 0.05  # it moved off the x axis


# ---- A04 Bricard, redundant constraints --------------------------------------------------------
def test_bricard_energy_drift_with_redundant_constraints():
    result = run("bricard", 0.01)
    drift = result.max_energy_drift()
    assert drift < ref.BRICARD_CRITERION
    # the thesis: 3.6e-4 J (Octave) / 3.5e-4 J (C) at 10 ms; an independent reproduction 3.61e-4
    # (0.1 m square section, as in the example). The Lagrangian variant gives 3.26e-4 J.
    assert drift == pytest.approx(ref.BRICARD_CD_ENERGY_DRIFT["octave"], rel=0.05)
    assert result.column("constraint.position").max() < 1e-12
    # it moves (falls from rest), so the drift is not trivially small
    p3 = np.column_stack([result.column(f"P3.{c}") for c in "xyz"])
    assert np.linalg.norm(p3 - p3[0], axis=1).max() > 0.5


# ---- unit tests of the step ----------------------------------------------------------------------
FREE_BODY = {
    "biela": 1,
    "name": "torque-free body, general inertia",
    "gravity": [0.0, 0.0, 0.0],
    "bodies": [
        {
            "name": "b",
            "mass": 2.0,
            "inertia": [[2.0, 0.3, -0.1], [0.3, 1.5, 0.2], [-0.1, 0.2, 1.0]],
            "position": [0.0, 0.0, 0.0],
            "orientation": {"axis": [1.0, -2.0, 0.5], "angle": 0.7},
            "velocity": [0.1, -0.2, 0.3],
            "angular_velocity": [1.0, 2.0, 3.0],
        }
    ],
}


def free_body_errors(dt: float, t_end: float = 1.0):
    system, f = stepper(model_from_data(FREE_BODY), dt)
    state = f.start(DynamicState(0.0, system.q0.copy(), system.qd0.copy()))
    lin0, ang0 = system.rigid.momentum(state.q, state.qd)
    t0 = system.kinetic_energy(state.q, state.qd)
    err_l = err_t = err_r = err_p = 0.0
    for _ in range(int(round(t_end / dt))):
        state = f.step(state, dt)
        lin, ang = system.rigid.momentum(state.q, state.qd)
        assert lin == pytest.approx(lin0, abs=1e-12)
        err_l = max(err_l, np.linalg.norm(ang - ang0) / np.linalg.norm(ang0))
        err_t = max(err_t, abs(system.kinetic_energy(state.q, state.qd) - t0) / t0)
        err_r = max(err_r, np.abs(state.q[:3] - system.qd0[:3] * state.t).max())
        err_p = max(err_p, abs(np.linalg.norm(state.q[3:]) - 1.0))
        assert 1 <= state.iterations <= 3
    return err_l, err_t, err_r, err_p


def test_free_body_angular_momentum_second_order():
    coarse, _, _, _ = free_body_errors(4e-3)
    err_l, err_t, err_r, err_p = free_body_errors(2e-3)
    # the CD scheme is not exactly momentum-conserving: the error is O(dt²) and small
    assert err_l < 1e-5
    assert err_t < 1e-6
    assert coarse / err_l == pytest.approx(4.0, rel=0.1)
    # the centre of mass moves uniformly (exact for CD); Euler parameters stay unit
    assert err_r < 1e-12
    assert err_p < 1e-14


DAMPED = {
    "biela": 1,
    "name": "two spinning bodies with dampers",
    "gravity": [0.0, -9.81, 0.0],
    "bodies": [
        {
            "name": "a",
            "mass": 1.5,
            "inertia": [[0.2, 0.01, 0.0], [0.01, 0.25, 0.02], [0.0, 0.02, 0.15]],
            "position": [0.5, 0.0, 0.0],
            "velocity": [0.0, 0.3, -1.0],
            "angular_velocity": [0.0, 2.0, 0.6],
        },
        {
            "name": "b",
            "mass": 0.7,
            "inertia": [0.05, 0.04, 0.03],
            "position": [1.0, 0.5, 0.2],
            "velocity": [0.2, 0.1, 0.0],
            "angular_velocity": [3.0, -1.0, 2.0],
        },
    ],
    "joints": [
        {
            "name": "J",
            "type": "revolute",
            "body1": "ground",
            "body2": "a",
            "point": [0.0, 0.0, 0.0],
            "axis": [0.0, 1.0, 0.0],
        }
    ],
    "forces": [
        {
            "name": "S",
            "type": "spring_damper",
            "body1": "a",
            "point1": [1.0, 0.0, 0.0],
            "body2": "b",
            "point2": [1.0, 0.4, 0.3],
            "stiffness": 30.0,
            "damping": 2.0,
        },
        {
            "name": "R",
            "type": "rotational_spring_damper",
            "joint": "J",
            "stiffness": 5.0,
            "damping": 0.7,
        },
    ],
}


def test_newton_matrix_is_the_exact_velocity_jacobian():
    """∂Q̃/∂q̇ (gyroscopic term + dampers) against central finite differences."""
    system, f = stepper(model_from_data(DAMPED), 1e-3)
    state = initial_state(system, 1e-12, 25)
    q = state.q
    rng = np.random.default_rng(3)
    qd = state.qd + 0.1 * rng.standard_normal(system.n)  # not tangent: CD velocities are not
    applied, kd = f._applied_model(q, qd, 0.3)
    assert kd is not None
    _, jac = f._forces(q, qd, applied, kd)
    eps = 1e-6
    fd = np.empty_like(jac)
    for j in range(system.n):
        e = np.zeros(system.n)
        e[j] = eps
        fp, _ = f._forces(q, qd + e, applied, kd, with_jacobian=False)
        fm, _ = f._forces(q, qd - e, applied, kd, with_jacobian=False)
        fd[:, j] = (fp - fm) / (2 * eps)
    assert jac == pytest.approx(fd, abs=1e-7 * max(1.0, np.abs(fd).max()))


def test_damped_model_runs_with_few_iterations_and_satisfies_constraints():
    result = simulate(model_from_data(DAMPED), formulation=CD, dt=2e-3, t_end=0.4)
    assert result.status == "ok", result.message
    assert result.column("constraint.position").max() < 1e-12
    assert result.summary["newton_iterations"] / result.summary["steps"] <= 3.5
    # the energy balance (the loop's work of the dampers) holds to O(dt²)
    assert result.max_energy_drift() < 1e-2 * result.column("energy.kinetic").max()


def test_multipliers_follow_the_base_sign_convention():
    """Pendulum: M q̈ = Q − Φ_qᵀ λ with the discrete q̈, λ > 0 (the rod pulls the bob in)."""
    system, f = stepper(load_model(EXAMPLES / "pendulum.json"), 0.01)
    state = f.start(initial_state(system, 1e-12, 25))
    for _ in range(60):
        state = f.step(state, 0.01)
        c = system.constraints(state.q, state.qd, state.t)
        lhs = system.mass(state.q) @ state.qdd
        rhs = system.forces(state.q, state.qd, state.t) - c.phi_q.T @ state.lam
        assert lhs == pytest.approx(rhs, abs=1e-8)
        # λ is the rod tension m (v² + g·r)/L (L = 1 m, m = 1 kg) to O(dt²): 1e-2 N at 10 ms
        tension = state.qd @ state.qd + system.gravity @ state.q
        assert state.lam[0] == pytest.approx(tension, abs=2e-2)
        assert state.lam[0] > 0.0
    assert state.lam[0] > 29.0  # near the bottom: 3 m g


def test_step_with_another_dt_restarts_consistently():
    system, f = stepper(load_model(EXAMPLES / "bricard.json"), 0.01)
    state = f.start(initial_state(system, 1e-12, 25))
    for _ in range(5):
        state = f.step(state, 0.01)
    state = f.step(state, 0.004)  # no look-ahead for 4 ms: a first step from (q, q̇)
    assert state.t == pytest.approx(0.054)
    assert state.carry.h == 0.004
    for _ in range(3):
        state = f.step(state, 0.004)
        assert np.abs(system.constraints(state.q, None, state.t).phi).max() < 1e-12
        assert state.carry.dof == ref.BRICARD_DOF


def test_newton_failure_raises_with_time_reason_and_hint():
    system, f = stepper(load_model(EXAMPLES / "double_four_bar.json"), 0.01, max_iterations=1)
    with pytest.raises(SimulationError) as err:
        f.start(initial_state(system, 1e-12, 25))
    assert "did not converge" in err.value.reason
    assert "reduce dt" in err.value.hint
    # through simulate: the run stops, keeps what it has and says when, why, what to try
    model = load_model(EXAMPLES / "double_four_bar.json")
    model.solver.max_iterations = 1
    result = simulate(model, formulation=CD, dt=0.01, t_end=0.1)
    assert result.status == "failed"
    assert "t = 0 s" in result.message
    assert "reduce dt" in result.message
