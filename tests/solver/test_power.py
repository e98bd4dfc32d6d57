"""Work of forces over a step (``solver.analysis.power``): rotations along their arc."""

from __future__ import annotations

import math

import numpy as np
import pytest

from solver.analysis.power import PowerMeter, rotation_arc_increment
from solver.mechanics.rotations import e_matrix
from solver.mechanics.system import MultibodySystem
from solver.model.io import model_from_data


def _quaternion(axis, angle):
    axis = np.asarray(axis, float) / np.linalg.norm(axis)
    return np.r_[math.cos(angle / 2), math.sin(angle / 2) * axis]


def _model(torque: float) -> dict:
    """One free box (with a point mass, so the layout has a non-rigid block too) and a
    constant global torque on the box."""
    return {
        "biela": 1,
        "name": "spinning box",
        "gravity": [0, 0, 0],
        "bodies": [
            {"name": "box", "mass": 2.0, "inertia": [0.1, 0.2, 0.3]},
            {"type": "point_mass", "name": "dot", "mass": 1.0, "position": [1, 0, 0]},
        ],
        "forces": [
            {
                "name": "motor",
                "type": "torque",
                "body": "box",
                "vector": [0.3 * torque, -0.2 * torque, torque],
            }
        ],
        "solver": {"analysis": "dynamic"},
    }


@pytest.mark.parametrize("angle", [1e-4, 0.1, 1.0, 2.5])
def test_arc_increment_turns_the_chord_into_the_angle(angle):
    """For a rotation Δβ about a fixed axis u from any start, ``2 E(p0) Δp_arc`` and
    ``2 E(p1) Δp_arc`` are both u Δβ (the chord alone gives u 2 sin(Δβ/2))."""
    system = MultibodySystem(model_from_data(_model(1.0)))
    u = np.array([1.0, -2.0, 0.5]) / np.linalg.norm([1.0, -2.0, 0.5])
    p0 = _quaternion([0.3, 0.1, -1.0], 0.7)
    p1 = np.r_[  # p1 = r ⊗ p0, r the rotation Δβ about u (global)
        math.cos(angle / 2) * p0[0] - math.sin(angle / 2) * u @ p0[1:],
        math.cos(angle / 2) * p0[1:] + math.sin(angle / 2) * (p0[0] * u + np.cross(u, p0[1:])),
    ]
    q0, q1 = system.q0.copy(), system.q0.copy()
    cols = system.rigid.cols[0, 3:]
    q0[cols], q1[cols] = p0, p1
    q1[system.slots["dot"].offset] += 0.25  # the point mass moves: unchanged
    dq = rotation_arc_increment(system, q0, q1)
    assert dq[system.slots["dot"].offset] == pytest.approx(0.25, abs=1e-15)
    np.testing.assert_allclose(2.0 * e_matrix(p0) @ dq[cols], u * angle, atol=1e-14)
    np.testing.assert_allclose(2.0 * e_matrix(p1) @ dq[cols], u * angle, atol=1e-14)
    chord = 2.0 * e_matrix(p0) @ (p1 - p0)
    np.testing.assert_allclose(chord, u * 2.0 * math.sin(angle / 2), atol=1e-14)


def test_secant_work_of_a_torque_is_torque_times_angle():
    """A constant torque τ on a body turning Δβ about the torque's axis in one step:
    the booked work is |τ| Δβ exactly, even for Δβ = 2 rad (chord: 2|τ| sin 1)."""
    system = MultibodySystem(model_from_data(_model(2.0)))
    meter = PowerMeter(system)
    tau = np.array([0.6, -0.4, 2.0])
    u = tau / np.linalg.norm(tau)
    angle, dt, omega = 2.0, 0.1, 20.0  # Δβ over the step; ω as the states' velocities
    q0, q1 = system.q0.copy(), system.q0.copy()
    cols = system.rigid.cols[0, 3:]
    p0 = system.q0[cols]
    q1[cols] = np.r_[math.cos(angle / 2), math.sin(angle / 2) * u]  # p0 = identity
    qd0, qd1 = np.zeros(system.n), np.zeros(system.n)
    qd0[cols] = 0.5 * e_matrix(p0).T @ (omega * u)
    qd1[cols] = 0.5 * e_matrix(q1[cols]).T @ (omega * u)
    prev, cur = meter.state(q0, qd0, 0.0), meter.state(q1, qd1, dt)
    trapezoid = 0.5 * dt * (prev[3] + cur[3])  # power trapezoid: |τ| ω dt
    work = trapezoid + meter.secant_correction(prev, cur, dt)
    assert work == pytest.approx(np.linalg.norm(tau) * angle, rel=1e-13)


def _spring_model(**spring) -> dict:
    """A ball on a spring to the ground."""
    return {
        "biela": 1,
        "name": "ball on a spring",
        "bodies": [{"name": "ball", "mass": 1.0, "inertia": [0.1, 0.1, 0.1]}],
        "forces": [
            {
                "name": "S",
                "type": "spring_damper",
                "body1": "ground",
                "point1": [0, 0, 1],
                "body2": "ball",
                "point2": [0, 0, 0],
                "stiffness": 100.0,
                "free_length": 0.5,
                **spring,
            }
        ],
        "solver": {"analysis": "dynamic"},
    }


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (_spring_model(), False),
        (_spring_model(damping=0.0), False),
        (_spring_model(damping=2.0), True),
        (_spring_model(actuator={"expression": "0.5*sin(t)"}), True),
        (_model(1.0), True),  # an applied torque
        ({**_spring_model(), "forces": []}, False),
    ],
)
def test_nonconservative_says_whether_the_force_elements_have_power(data, expected):
    system = MultibodySystem(model_from_data(data))
    assert system.nonconservative is expected
    rng = np.random.default_rng(3)
    q = system.q0 + 0.05 * rng.standard_normal(system.n)
    qd = rng.standard_normal(system.n)
    power = system.element_power(q, qd, 0.7)
    if expected:
        assert abs(power) > 1e-6
    else:  # the steps skip the power of such a model: it must be zero
        assert power == 0.0
