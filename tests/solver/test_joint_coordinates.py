"""Joint-coordinate outputs (``joint.J.angle``, ``…_rate``, ``joint.J.displacement``,
``…_rate``) of revolute, prismatic and cylindrical joints in a chain (ground → arm →
carriage → spindle on a tilted axis, ``benchmarks.joint_outputs``):

* fully driven (a kinematic analysis), they are the drivers' functions and derivatives
  (the drivers' coordinates are the same quantities, computed by the constraint kernels),
  the arm's angle continuous over four turns;
* with the spindle's angle free (a dynamic run), the rates are the time derivatives of the
  coordinates (central differences), and the spindle's angle follows its analytical
  value through ±π, continuously;
* the float evaluation equals the vectorised rotation formulas of
  ``solver.mechanics.rotations`` at arbitrary states, off the unit sphere too.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from benchmarks.joint_outputs import joint_model_data
from solver import simulate
from solver.analysis.outputs.joint_coordinates import JointCoordinates
from solver.analysis.outputs.reactions import BodyPoint
from solver.mechanics.rotations import angular_velocity, rotation_matrix
from solver.mechanics.system import MultibodySystem
from solver.model import description as d
from solver.model import model_from_data


def body_motion(system: MultibodySystem, body: str, q: np.ndarray, qd: np.ndarray):
    """The reference: ``(r, R, v, ω)`` of a body's centre of mass by the vectorised
    formulas (ground: at rest at the origin)."""
    if body == d.GROUND:
        return np.zeros(3), np.eye(3), np.zeros(3), np.zeros(3)
    s = system.slots[body]
    o = s.offset
    if s.kind != "rigid":
        return q[o : o + 3], np.eye(3), qd[o : o + 3], np.zeros(3)
    p = q[o + 3 : o + 7]
    p = p / np.linalg.norm(p)
    return q[o : o + 3], rotation_matrix(p), qd[o : o + 3], angular_velocity(p, qd[o + 3 : o + 7])


def test_driven_chain_coordinates_are_the_driver_functions():
    r = simulate(model_from_data(joint_model_data(driven=True, t_end=2.0, dt=2e-3)))
    assert r.status == "ok", r.message
    t = r.t
    expected = {
        ("hinge", "angle"): (4 * np.pi * t, np.full_like(t, 4 * np.pi)),
        ("rail", "displacement"): (0.2 * np.sin(3 * t), 0.6 * np.cos(3 * t)),
        ("screw", "angle"): (6 * t, np.full_like(t, 6.0)),
        ("screw", "displacement"): (0.1 * np.sin(2 * t), 0.2 * np.cos(2 * t)),
    }
    for (joint, coordinate), (value, rate) in expected.items():
        got, got_rate = r.joint_coordinate(joint, coordinate)
        np.testing.assert_allclose(got, value, atol=1e-8, err_msg=f"{joint} {coordinate}")
        np.testing.assert_allclose(got_rate, rate, atol=1e-8, err_msg=f"{joint} {coordinate}")
    assert r.joint_coordinate("hinge")[0][-1] == pytest.approx(8 * np.pi)  # four turns


def test_free_spindle_rates_are_the_derivatives_of_the_coordinates():
    """The spindle's angle is free: balanced (isotropic inertia, centre on the axis), it
    keeps its spin ω·a = 5 rad/s about the axis a (no torque about a, and ω·(Ω × a) = 0
    for the carrier's Ω), so its angle relative to the carriage, which turns with the arm
    at Ω = 4π rad/s about z, grows at 5 − 4π a_z = 5 − 3.2π rad/s: −7.6 rad in 1.5 s."""
    dt = 1e-3
    r = simulate(model_from_data(joint_model_data(driven=False, t_end=1.5, dt=dt)))
    assert r.status == "ok", r.message
    for joint, coordinate in (
        ("hinge", "angle"),
        ("rail", "displacement"),
        ("screw", "angle"),
        ("screw", "displacement"),
    ):
        value, rate = r.joint_coordinate(joint, coordinate)
        # central differences: error h²/6 |x‴|, below 1e-5 here (|x‴| ≤ 5.4 m/s³)
        fd = (value[2:] - value[:-2]) / (2 * dt)
        np.testing.assert_allclose(fd, rate[1:-1], atol=1e-5, err_msg=f"{joint} {coordinate}")
        assert np.abs(np.diff(value)).max() < 0.02  # continuous: no 2π jumps
    spin, spin_rate = r.joint_coordinate("screw", "angle")
    np.testing.assert_allclose(spin_rate, 5 - 3.2 * np.pi, atol=1e-6)  # measured 6e-9
    np.testing.assert_allclose(spin, (5 - 3.2 * np.pi) * r.t, atol=1e-4)  # measured 5e-6
    assert spin[-1] < -2 * np.pi  # through ±π, where atan2 jumps, twice


def _reference(system, joint, jc, q, qd, last):
    """The coordinates by the vectorised formulas (``body_motion``, ``BodyPoint``, numpy)."""
    r1, rot1, v1, w1 = body_motion(system, joint.body1, q, qd)
    r2, rot2, v2, w2 = body_motion(system, joint.body2, q, qd)
    a = rot1 @ jc.a1
    out = []
    if "angle" in jc.names:
        u1, u2 = rot1 @ jc.u1, rot2 @ jc.u2
        n1 = np.cross(a, u1)
        x, y = u1 @ u2, n1 @ u2
        theta = last + (math.atan2(y, x) - last + np.pi) % (2 * np.pi) - np.pi
        xd = np.cross(w1, u1) @ u2 + u1 @ np.cross(w2, u2)
        yd = np.cross(w1, n1) @ u2 + n1 @ np.cross(w2, u2)
        out += [theta, (x * yd - y * xd) / (x * x + y * y)]
    if "displacement" in jc.names:
        p1 = BodyPoint(system, joint.body1, joint.point).position(q)
        p2 = BodyPoint(system, joint.body2, joint.point).position(q)
        pd1, pd2 = v1 + np.cross(w1, p1 - r1), v2 + np.cross(w2, p2 - r2)
        out += [(p2 - p1) @ a, (pd2 - pd1) @ a + (p2 - p1) @ np.cross(w1, a)]
    return np.array(out)


def test_float_evaluation_equals_the_vectorised_formulas():
    model = model_from_data(joint_model_data(driven=False))
    system = MultibodySystem(model)
    rng = np.random.default_rng(7)
    for joint in model.joints:
        jc = JointCoordinates(system, joint)
        q, last, furthest = system.q0.copy(), 0.0, 0.0
        for _ in range(1000):  # a random walk: many turns, Euler parameters off the unit sphere
            q = q + 0.05 * rng.standard_normal(system.n)
            qd = 3.0 * rng.standard_normal(system.n)
            ref = _reference(system, joint, jc, q, qd, last)
            got = np.array(jc(q, qd))
            np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-12 * np.abs(ref).max())
            if "angle" in jc.names:
                last = ref[0]
                furthest = max(furthest, abs(last))
        if "angle" in jc.names:
            assert furthest > np.pi, furthest  # beyond atan2's range: through ±π
