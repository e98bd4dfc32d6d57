"""Requested result quantities (``outputs: [{"reactions": …}, …]``) against analytical
mechanics: the pendulum's bar tension, Newton–Euler on a hinged rigid body, the static
reactions of a loaded frame, the spatial four-bar's motor torque (inverse dynamics against
the dynamic driver effort and the power balance), the heavy top's ball-joint force; rates and
accelerations against finite differences of the run's own columns."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from scipy.integrate import cumulative_trapezoid

from solver import load_model, simulate
from solver.analysis.outputs import RequestedOutputs
from solver.mechanics.rotations import rotation_matrix
from solver.model import ModelError, model_from_data, model_to_json
from solver.model import description as d

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
ALL = [
    d.ResultRequest("reactions"),
    d.ResultRequest("efforts"),
    d.ResultRequest("accelerations"),
    d.ResultRequest("joint_coordinates"),
]


def _example(name: str, *requests: d.ResultRequest) -> d.Model:
    model = load_model(EXAMPLES / name)
    model.requests = list(requests or ALL)
    return model


def _pendulum_tension(r):
    """m (g cos θ + L θ̇²) from the bob's state, and the unit vector bob → pivot."""
    pos = np.column_stack([r.column(f"bob.{c}") for c in "xyz"])
    vel = np.column_stack([r.column(f"bob.v{c}") for c in "xyz"])
    length = np.linalg.norm(pos, axis=1)
    inward = -pos / length[:, None]
    g = np.array([0.0, -9.81, 0.0])
    tension = 1.0 * (-(inward @ g) + np.sum(vel * vel, axis=1) / length)
    return tension, inward


@pytest.mark.parametrize(
    "formulation",
    ["central_differences", "augmented_lagrangian", "lagrange_baumgarte", "penalty", "null_space"],
)
def test_pendulum_bar_tension_with_every_formulation(formulation):
    model = _example("pendulum.json", d.ResultRequest("reactions", ("bar",)))
    r = simulate(model, formulation=formulation, t_end=0.6, output_dt=0.05)
    assert r.status == "ok", r.message
    force, torque = r.reaction("bar")
    tension, inward = _pendulum_tension(r)
    assert tension.max() > 5.0  # the bob has swung down
    np.testing.assert_allclose(force, tension[:, None] * inward, atol=1e-6 * tension.max())
    np.testing.assert_allclose(torque, 0.0, atol=1e-9)
    body, _ = r.reaction("bar", axes="body")  # a point mass has no axes: global
    np.testing.assert_allclose(body, force)


def _hinged_body() -> d.Model:
    """An asymmetric body on a tilted revolute joint, centre of mass off the axis."""
    axis = np.array([0.3, 0.2, 1.0])
    return d.Model(
        name="hinged",
        gravity=(0.0, -9.81, -2.0),
        bodies=[
            d.RigidBody(
                "link",
                2.0,
                ((0.05, 0.01, 0.0), (0.01, 0.08, 0.02), (0.0, 0.02, 0.1)),
                position=(0.4, 0.1, -0.05),
                orientation=(0.9, 0.3, -0.2, 0.2471),
                angular_velocity=tuple(1.5 * axis / np.linalg.norm(axis)),
            )
        ],
        joints=[
            d.Joint("hinge", "revolute", "ground", "link", point=(0.0, 0.0, 0.0), axis=tuple(axis))
        ],
        requests=[
            d.ResultRequest("reactions"),
            d.ResultRequest("accelerations"),
            d.ResultRequest("joint_coordinates"),
        ],
        solver=d.SolverSettings(formulation="augmented_lagrangian", dt=1e-3, t_end=0.4),
    )


def _fix_velocity(model: d.Model) -> None:
    """Give the body the velocity of its rotation about the hinge (a consistent start)."""
    body = model.bodies[0]
    body.orientation = tuple(np.array(body.orientation) / np.linalg.norm(body.orientation))
    w = np.array(body.angular_velocity)
    body.velocity = tuple(np.cross(w, np.array(body.position) - np.array(model.joints[0].point)))


def test_hinged_body_reaction_obeys_newton_euler():
    model = _hinged_body()
    _fix_velocity(model)
    r = simulate(model, output_dt=0.01)
    assert r.status == "ok", r.message
    body = model.bodies[0]
    m, inertia = body.mass, np.array(body.inertia)
    force, torque = r.reaction("hinge")
    acc, alpha = r.acceleration("link")
    g = np.array(model.gravity)
    np.testing.assert_allclose(force, m * (acc - g), atol=1e-8 * m * 10)
    for k in range(len(r)):
        p = np.array([r.column(f"link.e{i}")[k] for i in range(4)])
        rot = rotation_matrix(p)
        w = np.array([r.column(f"link.w{c}")[k] for c in "xyz"])
        r_g = np.array([r.column(f"link.{c}")[k] for c in "xyz"])
        j_g = rot @ inertia @ rot.T
        # torque about the centre of mass of the joint's load = rate of angular momentum
        moment_g = torque[k] + np.cross(np.zeros(3) - r_g, force[k])
        np.testing.assert_allclose(moment_g, j_g @ alpha[k] + np.cross(w, j_g @ w), atol=1e-8)
        f_body, t_body = (
            np.array([r.column(f"reaction.hinge.{c}_body")[k] for c in cols])
            for cols in (("Fx", "Fy", "Fz"), ("Tx", "Ty", "Tz"))
        )
        np.testing.assert_allclose(f_body, rot.T @ force[k], atol=1e-12)
        np.testing.assert_allclose(t_body, rot.T @ torque[k], atol=1e-12)
        w_body = [r.column(f"link.w{c}_body")[k] for c in "xyz"]
        np.testing.assert_allclose(w_body, rot.T @ w, atol=1e-12)
    axis = np.array(model.joints[0].axis) / np.linalg.norm(model.joints[0].axis)
    np.testing.assert_allclose(
        torque @ axis, 0.0, atol=1e-8
    )  # a hinge carries no torque about its axis


def test_rates_and_accelerations_match_finite_differences():
    model = _hinged_body()
    _fix_velocity(model)
    r = simulate(model, formulation="lagrange_baumgarte", output_dt=1e-3, t_end=0.2)
    t = r.t
    h = t[1] - t[0]
    angle, rate = r.joint_coordinate("hinge")
    np.testing.assert_allclose(np.gradient(angle, h)[2:-2], rate[2:-2], atol=1e-5)
    np.testing.assert_allclose(rate[0], 1.5, rtol=1e-9)  # the initial spin about the axis
    acc, alpha = r.acceleration("link")
    for i, c in enumerate("xyz"):
        np.testing.assert_allclose(
            np.gradient(r.column(f"link.v{c}"), h)[2:-2], acc[2:-2, i], atol=1e-4
        )
        np.testing.assert_allclose(
            np.gradient(r.column(f"link.w{c}"), h)[2:-2], alpha[2:-2, i], atol=1e-4
        )


def _loaded_frame(two_supports: bool) -> d.Model:
    """An L-shaped frame pinned to ground, loaded by its weight and two point loads."""
    joints = [d.Joint("pin", "spherical", "ground", "frame", point=(0.0, 0.0, 0.0))]
    joints.append(
        d.Joint(
            "roller", "point_on_plane", "ground", "frame", point=(2.0, 0.0, 0.0), normal=(0, 0, 1)
        )
    )
    joints.append(
        d.Joint("guide", "point_on_line", "ground", "frame", point=(0.0, 1.5, 0.0), axis=(0, 1, 0))
    )
    if two_supports:  # a statically indeterminate extra support
        joints.append(
            d.Joint(
                "extra",
                "point_on_plane",
                "ground",
                "frame",
                point=(2.0, 1.5, 0.0),
                normal=(0, 0, 1),
            )
        )
    return d.Model(
        name="frame",
        gravity=(0.0, 0.0, -9.81),
        bodies=[
            d.RigidBody(
                "frame", 30.0, ((2.0, 0, 0), (0, 3.0, 0), (0, 0, 4.0)), position=(0.8, 0.5, 0.0)
            )
        ],
        joints=joints,
        forces=[
            d.Force(
                "P",
                "force",
                body="frame",
                point=(2.0, 1.5, 0.0),
                vector=_vec((100.0, -40.0, -500.0)),
            ),
            d.Force(
                "Q", "force", body="frame", point=(1.0, 0.0, 0.3), vector=_vec((0.0, 20.0, -250.0))
            ),
            d.Force("M", "torque", body="frame", vector=_vec((10.0, 0.0, 30.0))),
        ],
        requests=[d.ResultRequest("reactions")],
        solver=d.SolverSettings(analysis="static", dt=0.1, t_end=0.1),
    )


def _vec(values):
    from solver.model.functions import parse_function

    return tuple(parse_function(v) for v in values)


@pytest.mark.parametrize("two_supports", [False, True])
def test_static_reactions_of_a_loaded_frame_balance_the_loads(two_supports):
    model = _loaded_frame(two_supports)
    r = simulate(model)
    assert r.status == "ok", r.message
    loads = [
        ((0.8, 0.5, 0.0), np.array([0, 0, -9.81 * 30.0])),
        ((2.0, 1.5, 0.0), np.array([100.0, -40.0, -500.0])),
        ((1.0, 0.0, 0.3), np.array([0.0, 20.0, -250.0])),
    ]
    total_force = sum(f for _, f in loads)
    total_moment = sum(np.cross(p, f) for p, f in loads) + np.array([10.0, 0.0, 30.0])
    f_sum, m_sum = np.zeros(3), np.zeros(3)
    for j in model.joints:
        force, torque = r.reaction(j.name)
        f_sum += force[-1]
        m_sum += torque[-1] + np.cross(j.point, force[-1])
    np.testing.assert_allclose(f_sum, -total_force, atol=1e-8)
    np.testing.assert_allclose(m_sum, -total_moment, atol=1e-8)
    roller, _ = r.reaction("roller")
    np.testing.assert_allclose(
        roller[-1, :2], 0.0, atol=1e-9
    )  # a frictionless plane pushes along its normal
    if not two_supports:  # statically determinate: the roller carries the moment about the y axis
        # moments about the line through pin and guide (the y axis): roller z-force balances them
        expected = -total_moment[1] / -2.0
        assert roller[-1, 2] == pytest.approx(expected, rel=1e-9)


def _universal_four_bar() -> d.Model:
    """The spatial four-bar with the coupler's spin locked (J1 universal): fully driven."""
    model = _example(
        "four_bar_spatial.json", d.ResultRequest("efforts"), d.ResultRequest("reactions", ("J3",))
    )
    j1 = model.joint("J1")
    j1.type, j1.axis1, j1.axis2 = "universal", (1.0, 0.0, 0.0), (0.0, -5.0, 4.0)
    return model


def test_four_bar_motor_torque_inverse_dynamics_equals_dynamic_effort():
    model = _universal_four_bar()
    kin = simulate(model, analysis="kinematic", dt=1e-3, t_end=0.3, output_dt=0.01)
    dyn = simulate(
        model,
        analysis="dynamic",
        formulation="augmented_lagrangian",
        dt=1e-3,
        t_end=0.3,
        output_dt=0.01,
    )
    assert kin.status == dyn.status == "ok", (kin.message, dyn.message)
    tau_k, tau_d = kin.effort("motor"), dyn.effort("motor")
    assert np.abs(tau_k).max() > 100.0
    np.testing.assert_allclose(tau_d, tau_k, atol=1e-5 * np.abs(tau_k).max())
    fk, _ = kin.reaction("J3")
    fd, _ = dyn.reaction("J3")
    np.testing.assert_allclose(fd, fk, atol=1e-5 * np.abs(fk).max())


def test_four_bar_driver_effort_supplies_the_energy():
    """∫ τ θ̇ dt = ΔT + ΔV + ΔV_spring (no damping) on the example with its passive spin."""
    model = _example(
        "four_bar_spatial.json",
        d.ResultRequest("efforts"),
        d.ResultRequest("joint_coordinates", ("J3",)),
    )
    r = simulate(model, t_end=0.15, output_dt=1e-3)
    tau = r.effort("motor")
    angle, rate = r.joint_coordinate("J3")
    np.testing.assert_allclose(angle, 2 * np.pi * r.t, atol=1e-9)
    np.testing.assert_allclose(rate, 2 * np.pi, rtol=1e-9)
    energy = r.column("energy.kinetic") + r.column("energy.potential") + r.column("energy.elastic")
    work = cumulative_trapezoid(tau * rate, r.t, initial=0.0)
    assert np.abs(energy - energy[0]).max() > 50.0
    np.testing.assert_allclose(
        work, energy - energy[0], atol=1e-5 * np.abs(energy - energy[0]).max()
    )


def test_heavy_top_ball_joint_force():
    model = _example(
        "heavy_top.json", d.ResultRequest("reactions"), d.ResultRequest("accelerations")
    )
    r = simulate(model, t_end=0.3, output_dt=0.002)
    force, torque = r.reaction("ball")
    # t = 0: the gravity moment about the apex m g 0.3 tips the cone, α = M / (J_xx + m 0.3²);
    # the centre of mass accelerates down by 0.3 α, and the ball carries the rest of the weight
    m, g = 4.0, 9.81
    alpha = m * g * 0.3 / (0.0375 + m * 0.09)
    np.testing.assert_allclose(force[0], [0.0, 0.0, m * (g - 0.3 * alpha)], atol=1e-9)
    np.testing.assert_allclose(torque, 0.0, atol=1e-9)  # a ball joint transmits no torque
    acc, _ = r.acceleration("cone")
    np.testing.assert_allclose(force, m * (acc - np.array([0, 0, -g])), atol=1e-9)
    # and against the centre of mass's motion itself
    h = r.t[1] - r.t[0]
    vz = r.column("cone.vz")
    np.testing.assert_allclose(np.gradient(vz, h)[1:-1], acc[1:-1, 2], atol=2e-3)


def test_natural_coordinates_give_the_same_reactions():
    model = _example(
        "four_bar_spatial.json", d.ResultRequest("reactions"), d.ResultRequest("efforts")
    )
    ref = simulate(model, t_end=0.05, output_dt=0.01)
    nat = simulate(
        model, t_end=0.05, output_dt=0.01, coordinates="natural", formulation="augmented_lagrangian"
    )
    assert nat.status == "ok", nat.message
    cols = [c for c in ref.columns if c.startswith(("reaction.", "effort."))]
    scale = max(np.abs(ref.column(c)).max() for c in cols)
    for c in cols:
        np.testing.assert_allclose(nat.column(c), ref.column(c), atol=1e-4 * scale, err_msg=c)


def test_values_from_the_rows_equal_those_of_the_run():
    model = _example("four_bar_spatial.json")
    r = simulate(model, t_end=0.05, output_dt=0.01)
    again = RequestedOutputs(model, None, "dynamic")
    n = r.n_requested
    assert n == len(again.columns) and r.columns[-n:] == again.columns
    for row in r.rows:
        np.testing.assert_allclose(again.row_values(r.columns, row), row[-n:], rtol=1e-9, atol=1e-9)


def test_flexible_clamp_reaction_balances_the_tip_load():
    model = load_model(EXAMPLES / "ancf_cantilever_e1.json")
    model.requests = [d.ResultRequest("reactions")]
    r = simulate(model, analysis="static", t_end=3.5, dt=3.5, output_dt=3.5)
    assert r.status == "ok", r.message
    force, torque = r.reaction("clamp")
    tip = np.array([r.column(f"tip.{c}")[-1] for c in "xyz"])
    load = np.array([0.0, 0.0, -300.0])
    np.testing.assert_allclose(force[-1], -load, atol=1e-6)
    np.testing.assert_allclose(torque[-1], -np.cross(tip, load), atol=1e-5)


def test_requests_round_trip_and_columns():
    model = _example(
        "four_bar_spatial.json",
        d.ResultRequest("reactions", ("J1", "J3")),
        d.ResultRequest("efforts"),
        d.ResultRequest("accelerations", ("crank",)),
        d.ResultRequest("joint_coordinates", ("J3",)),
    )
    again = model_from_data(json.loads(model_to_json(model)))
    assert again == model
    data = json.loads(model_to_json(model))
    assert {"reactions": ["J1", "J3"]} in data["outputs"] and {"efforts": True} in data["outputs"]
    r = simulate(model, t_end=0.002, output_dt=0.001)
    tail = r.columns[-r.n_requested :]
    assert tail[:6] == [
        "reaction.J1.Fx",
        "reaction.J1.Fy",
        "reaction.J1.Fz",
        "reaction.J1.Tx",
        "reaction.J1.Ty",
        "reaction.J1.Tz",
    ]
    assert (
        "effort.motor.torque" in tail and "crank.alphaz" in tail and "joint.J3.angle_rate" in tail
    )
    assert set(r.summary["requested"]) == set(tail)
    peak = r.summary["requested"]["effort.motor.torque"]
    assert peak["max_abs"] == pytest.approx(np.abs(r.effort("motor")).max())


@pytest.mark.parametrize(
    ("item", "message"),
    [
        ({"reactions": "J9"}, '"J9" is not one of the model\'s joints'),
        ({"efforts": ["motor", "brake"]}, '"brake" is not one of the model\'s drivers'),
        ({"joint_coordinates": "J1"}, "is a spherical joint"),
        ({"accelerations": 3}, "must be a body name"),
        ({"reactions": "J1", "efforts": "motor"}, "give one request per item"),
        ({"reaction": "J1"}, 'unknown field "reaction"'),
    ],
)
def test_bad_requests_are_refused_with_the_item(item, message):
    data = json.loads((EXAMPLES / "four_bar_spatial.json").read_text())
    data["outputs"].append(item)
    with pytest.raises(ModelError) as err:
        model_from_data(data)
    assert message in str(err.value)
    assert "outputs" in str(err.value)
