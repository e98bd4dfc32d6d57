"""The body states and output points of a results row (``solver.mechanics.state_columns``),
against their definitions: the centre of mass and its velocity, the normalised Euler
parameters, ω = 2 E(p̂) ṗ, an output point r + A s̄ and its velocity ṙ + ω × A s̄."""

from __future__ import annotations

import numpy as np

from solver.mechanics.rotations import e_matrix, rotation_matrix
from solver.mechanics.system import MultibodySystem
from solver.model.io import model_from_data
from solver.results import TAIL, Frame, Result, columns_for

S_BAR = np.array([0.3, -0.2, 0.5])


def _model(coordinates: str = "reference_point") -> dict:
    return {
        "biela": 1,
        "name": "states",
        "gravity": [0, 0, -9.81],
        "bodies": [
            {
                "name": "ball",
                "type": "point_mass",
                "mass": 1.0,
                "position": [0.1, 0.2, 0.3],
                "velocity": [1, 2, 3],
            },
            {
                "name": "box",
                "mass": 2.0,
                "inertia": [0.1, 0.2, 0.3],
                "position": [1, 2, 3],
                "orientation": {"axis": [1, 2, 3], "angle": 0.7},
                "velocity": [0.5, -0.5, 0.25],
                "angular_velocity": [1.0, -2.0, 0.5],
            },
        ],
        "outputs": [
            {"name": "P", "body": "box", "point": list(np.array([1, 2, 3]) + S_BAR)},
            {"name": "B", "body": "ball", "point": [0.1, 0.2, 0.3]},
        ],
        "solver": {"analysis": "dynamic", "coordinates": coordinates, "dt": 0.001, "t_end": 0.01},
    }


def _state(system, rng):
    """A state with a non-unit p (the rows report p/|p|) and random rates."""
    q, qd = system.q0.copy(), rng.standard_normal(system.n)
    o = system.slots["box"].offset
    q[o + 3 : o + 7] *= 1.2
    return q, qd


def _expected_box(q, qd, o):
    p = q[o + 3 : o + 7] / np.linalg.norm(q[o + 3 : o + 7])
    return np.concatenate(
        [q[o : o + 3], p, qd[o : o + 3], 2.0 * e_matrix(p[None])[0] @ qd[o + 3 : o + 7]]
    )


def test_a_row_holds_each_body_state_and_output_point_by_definition():
    system = MultibodySystem(model_from_data(_model()))
    q, qd = _state(system, np.random.default_rng(3))
    result = Result(columns_for(system))
    frame = Frame(0.25, q, qd, 1.0, 2.0, 3.0, 0.5, 1e-9, 1e-8)
    row = dict(zip(result.columns, result.frame_row(system, frame), strict=True))
    ob, om = system.slots["box"].offset, system.slots["ball"].offset
    box = [row[f"box.{f}"] for f in system.state_fields("box")]
    np.testing.assert_allclose(box, _expected_box(q, qd, ob), rtol=1e-14, atol=1e-14)
    ball = [row[f"ball.{f}"] for f in ("x", "y", "z", "vx", "vy", "vz")]
    np.testing.assert_array_equal(ball, np.concatenate([q[om : om + 3], qd[om : om + 3]]))
    # the output point: r + A(p) s̄ in the homogeneous quadratic form |p|² R(p̂) s̄ of the
    # stored p; quadratic in q, so its central difference along q̇ is its exact velocity
    local = system.slots["box"].rotation0.T @ S_BAR  # s̄: the point in the body's axes

    def point(x):
        p = x[ob + 3 : ob + 7]
        return x[ob : ob + 3] + (p @ p) * rotation_matrix(p / np.linalg.norm(p)) @ local

    np.testing.assert_allclose([row[f"P.{f}"] for f in "xyz"], point(q), rtol=1e-13)
    velocity = (point(q + 0.5 * qd) - point(q - 0.5 * qd)) / 1.0
    got = [row[f"P.{f}"] for f in ("vx", "vy", "vz")]
    np.testing.assert_allclose(got, velocity, rtol=1e-12, atol=1e-12)
    assert [row[f"B.{f}"] for f in ("x", "y", "z", "vx", "vy", "vz")] == ball
    assert [row[c] for c in TAIL] == [1.0, 2.0, 3.0, 0.5, 5.5, 1e-9, 1e-8]
    assert row["t"] == 0.25


def test_body_state_is_the_rows_columns_and_requested_columns_follow_as_nan():
    system = MultibodySystem(model_from_data(_model()))
    q, qd = _state(system, np.random.default_rng(4))
    result = Result(columns_for(system) + ["extra.a", "extra.b"], n_requested=2)
    frame = Frame(0.0, q, qd, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    row = result.frame_row(system, frame)
    states = system.body_state(q, qd)
    assert list(states) == ["ball", "box"]
    at = 1
    for name in states:
        np.testing.assert_array_equal(row[at : at + len(states[name])], states[name])
        at += len(states[name])
    assert np.isnan(row[-2:]).all()
    np.testing.assert_array_equal(
        result.frame_row(system, frame, np.array([4.0, 5.0]))[-2:], [4, 5]
    )


def test_bodies_of_their_own_kind_write_the_same_state():
    """A rigid body in natural coordinates reports the state the reference-point body does."""
    ref = MultibodySystem(model_from_data(_model()))
    nat = MultibodySystem(model_from_data(_model("natural")))
    a = Result(columns_for(ref)).frame_row(ref, Frame(0.0, ref.q0, ref.qd0, 0, 0, 0, 0, 0, 0))
    b = Result(columns_for(nat)).frame_row(nat, Frame(0.0, nat.q0, nat.qd0, 0, 0, 0, 0, 0, 0))
    assert columns_for(ref) == columns_for(nat)
    np.testing.assert_allclose(b, a, rtol=1e-12, atol=1e-12)
