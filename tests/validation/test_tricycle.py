"""The tricycle of MUBODYNA (Villar Alegría (2018) §3.3, ``examples/tricycle.json``).

The thesis gives no numbers, only the shapes of its figures: the front-wheel speed grows
linearly under the constant 20 N·m torque (Fig. 38) and the steering angle is the driver
function (Fig. 39). With the steering at rest (δ = 0, δ̇ = 0: before and after the pulse)
and the rear axle refusing lateral slip, the vehicle runs straight and the torque τ on the
rolling front wheel (radius R) accelerates the whole mass plus the wheel's spin inertia:

    v̇ = (τ / R) / (m_total + J_wheel / R²) = 100 N / 54 kg.

The rear wheels do not spin: J6 ('nz' = ``longitudinal``) lets its wheel slip along the
rolling direction and J7 ('z' = ``free``) lets it slip both ways, so nothing drives them.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from solver import check, load_model, simulate
from solver.mechanics.rotations import rotation_matrix
from solver.model import model_from_data
from solver.model.validation import validate_model

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "tricycle.json"
TORQUE, RADIUS = 20.0, 0.2
MASS = 50.0 + 0.5 + 3 * 1.0
ACCELERATION = TORQUE / RADIUS / (MASS + 0.02 / RADIUS**2)  # 1.85185 m/s²


def run(t_end: float, **parameters):
    model = load_model(EXAMPLE)
    model.solver.parameters.update(parameters)
    result = simulate(model, t_end=t_end)
    assert result.status == "ok", result.message
    return model, result


def quaternions(result, body):
    return np.column_stack([result.column(f"{body}.e{k}") for k in range(4)])


def steering_angle(result) -> np.ndarray:
    """Rotation of the fork relative to the chassis about the steering axis (z, rad)."""
    out = []
    for pc, pf in zip(quaternions(result, "chassis"), quaternions(result, "fork"), strict=True):
        rel = rotation_matrix(pc).T @ rotation_matrix(pf)
        out.append(math.atan2(rel[1, 0], rel[0, 0]))
    return np.array(out)


def yaw(result, body="chassis") -> np.ndarray:
    return np.array(
        [math.atan2(a[1, 0], a[0, 0]) for a in map(rotation_matrix, quaternions(result, body))]
    )


def linear_fit(t, v):
    """Slope, intercept and R² of the least-squares line."""
    a = np.column_stack([t, np.ones_like(t)])
    coef, res, *_ = np.linalg.lstsq(a, v, rcond=None)
    r2 = 1.0 - float(res[0]) / float(np.sum((v - v.mean()) ** 2))
    return coef[0], coef[1], r2


def front_speed(result) -> np.ndarray:
    return np.hypot(result.column("front_wheel.vx"), result.column("front_wheel.vy"))


def test_tricycle_example_is_complete_and_carries_the_thesis_data():
    """What ``test_examples_valid`` asks of every example, and the data of Villar Alegría (2018)
    §3.3."""
    m = load_model(EXAMPLE)
    validate_model(m)
    assert m.warnings == []
    assert len(m.description) > 200 and m.outputs
    assert m.solver.dt <= m.solver.t_end and m.solver.formulation == "lagrange_baumgarte"
    for b in m.bodies:
        assert b.color and b.shapes, b.name
        assert np.isclose(np.linalg.norm(b.orientation), 1.0, atol=1e-14)
        np.testing.assert_array_equal(b.velocity, 0.0)
        np.testing.assert_array_equal(b.angular_velocity, 0.0)
    masses = {b.name: b.mass for b in m.bodies}
    assert masses == {
        "chassis": 50.0,
        "fork": 0.5,
        "front_wheel": 1.0,
        "rear_left_wheel": 1.0,
        "rear_right_wheel": 1.0,
    }
    positions = {b.name: tuple(b.position) for b in m.bodies}
    assert positions["chassis"] == (0.4, 0.0, 0.2) and positions["fork"] == (0.9, 0.0, 0.3)
    assert positions["front_wheel"] == (0.9, 0.0, 0.2)
    assert positions["rear_left_wheel"] == (0.2, 0.3, 0.2)
    assert positions["rear_right_wheel"] == (0.2, -0.3, 0.2)
    disks = [j for j in m.joints if j.type == "rolling_disk"]
    assert [j.radius for j in disks] == [RADIUS] * 3
    for j in disks:  # each wheel touches the ground plane z = 0 at t = 0
        assert j.point[2] == RADIUS and tuple(j.normal) == (0.0, 0.0, 1.0)
    (torque,) = m.forces
    assert torque.type == "torque" and torque.frame == "body" and torque.body == "front_wheel"
    f = m.drivers[0].function
    assert f(0.0) == 0.0 and abs(f(1.2)) < 1e-12 and f(2.0) == 0.0
    assert f(0.6) == pytest.approx(math.pi / 6, abs=1e-12)
    assert f.derivatives(0.6)[1] == pytest.approx(0.0, abs=1e-9)


def test_tricycle_check_counts_the_thesis_freedoms():
    """30 − (20 + 3 + 2 + 1 + 1) = 3 (Villar Alegría (2018) §3.3): 4 revolutes, disks xyz/nz/z, the
    driver."""
    report = check(load_model(EXAMPLE))
    assert report.grubler_dof == 3 and report.dof == 3
    assert report.redundant == 0


def test_tricycle_steering_follows_the_driver_and_speed_is_linear():
    """1.6 s: the whole steering pulse (0…1.2 s) and a stretch of straight running."""
    model, result = run(1.6, rtol=1e-7, atol=1e-9)
    t = result.t
    function = model.drivers[0].function
    delta = steering_angle(result)
    expected = np.array([function(x) for x in t])
    assert np.abs(delta - expected).max() < 1e-6
    assert delta.max() == pytest.approx(math.pi / 6, abs=1e-6)  # 30° at 0.6 s
    assert t[np.argmax(delta)] == pytest.approx(0.6, abs=1e-9)
    # straight running after the pulse: exactly the analytic acceleration
    after = t >= 1.25
    slope, _, r2 = linear_fit(t[after], front_speed(result)[after])
    assert slope == pytest.approx(ACCELERATION, rel=1e-4)
    assert r2 > 0.999999
    # the left steer turned the vehicle left; afterwards the heading stays put
    heading = yaw(result)
    assert heading[after].min() > 0.1
    assert np.ptp(heading[after]) < 1e-5
    # start from rest with δ = δ̇ = 0: the same acceleration in the first step
    assert front_speed(result)[1] / t[1] == pytest.approx(ACCELERATION, rel=2e-3)
    # rear wheels: no spin about their axles; the chassis stays level on its three wheels
    for wheel in ("rear_left_wheel", "rear_right_wheel"):
        spin = np.array([rotation_matrix(p) @ [0.0, 1.0, 0.0] for p in quaternions(result, wheel)])
        w = np.column_stack([result.column(f"{wheel}.w{a}") for a in "xyz"])
        assert np.abs(np.sum(w * spin, axis=1)).max() < 1e-6
    assert np.abs(result.column("chassis.z") - 0.2).max() < 1e-6
    assert result.column("constraint.velocity").max() < 1e-5
    # T + V − W: the torque's and the driver's work balance the kinetic energy
    assert result.max_energy_drift() < 1e-4 * result.column("energy.kinetic")[-1]


@pytest.mark.slow
def test_tricycle_full_run_speed_grows_linearly():
    """The thesis's 4 s: R² > 0.999 over the whole run, the pulse included."""
    _, result = run(4.0)
    t, v = result.t, front_speed(result)
    slope, _, r2 = linear_fit(t, v)
    assert r2 > 0.999
    after = t >= 1.25
    assert linear_fit(t[after], v[after])[0] == pytest.approx(ACCELERATION, rel=1e-6)
    assert result.max_energy_drift() < 1e-5 * result.column("energy.kinetic")[-1]


@pytest.mark.slow
def test_tricycle_with_the_augmented_lagrangian():
    """The velocity-level augmented Lagrangian (trapezoidal rule, dt = 0.01 s) against the
    adaptive index-1 reference: the same path to O(h²), the driver followed, the analytic
    acceleration after the pulse, the no-slip rows held to rounding, the energy error of
    second order."""
    model, ref = run(1.6, rtol=1e-9, atol=1e-11)
    model.solver.formulation = "augmented_lagrangian"
    result = simulate(model, t_end=1.6, dt=0.01)
    assert result.status == "ok", result.message
    for k in ("x", "y"):
        assert abs(result.column(f"chassis.{k}")[-1] - ref.column(f"chassis.{k}")[-1]) < 2e-4
    t = result.t
    expected = np.array([model.drivers[0].function(x) for x in t])
    assert np.abs(steering_angle(result) - expected).max() < 1e-8
    after = t >= 1.25
    assert linear_fit(t[after], front_speed(result)[after])[0] == pytest.approx(
        ACCELERATION, rel=2e-4
    )
    assert result.column("constraint.velocity").max() < 1e-10
    # energy.work is the torque's work along the computed rotation (τ·Δβ); the trapezoidal
    # rule on the Euler parameters turns the wheel by 4 atan(hω/4) while its spin gains
    # τ ω h: an O(h²) energy error, 2e-4 of the kinetic energy at 0.01 s
    kinetic = result.column("energy.kinetic")[-1]
    coarse = result.max_energy_drift()
    assert coarse < 4e-4 * kinetic
    fine = simulate(model, t_end=1.6, dt=0.005)
    assert fine.status == "ok", fine.message
    assert coarse / fine.max_energy_drift() == pytest.approx(4.0, rel=0.1)


def wheel_slip(result, wheel):
    """Velocity of the wheel's material contact point (centre − R ẑ... on the upright wheel)
    along its rolling direction and along its axle, per frame."""
    v = np.column_stack([result.column(f"{wheel}.v{a}") for a in "xyz"])
    w = np.column_stack([result.column(f"{wheel}.w{a}") for a in "xyz"])
    contact = v + np.cross(w, [0.0, 0.0, -RADIUS])  # the wheels stay upright (level chassis)
    axle = np.array([rotation_matrix(p) @ [0.0, 1.0, 0.0] for p in quaternions(result, wheel)])
    rolling = np.cross(axle, [0.0, 0.0, 1.0])
    return np.sum(contact * rolling, axis=1), np.sum(contact * axle, axis=1)


def test_disk_variants_on_the_vehicle():
    """MUBODYNA's variants as slip options on the tricycle: with the rear-left wheel 'xyz'
    (``none``) and the rear-right 'tz' (``lateral``) both rear wheels roll; the right one
    slips sideways exactly as the left one is held (same axle), and in the turn the inner
    (left) wheel turns slower than the outer one. In the thesis's choice ('nz' = no lateral
    slip, ``longitudinal``) the rear-left wheel slides along its rolling direction."""
    data = json.loads(EXAMPLE.read_text())
    slips = {"rear_left_disk": "none", "rear_right_disk": "lateral"}
    for j in data["joints"]:
        if j["name"] in slips:
            j["slip"] = slips[j["name"]]
    data["solver"]["parameters"].update({"rtol": 1e-7, "atol": 1e-9})
    result = simulate(model_from_data(data), t_end=0.6)
    assert result.status == "ok", result.message
    for wheel in ("front_wheel", "rear_left_wheel", "rear_right_wheel"):
        along, side = wheel_slip(result, wheel)
        assert np.abs(along).max() < 1e-6, wheel  # every wheel rolls
        assert np.abs(side).max() < 1e-6, wheel  # none slips sideways
    spin = {
        w: np.abs(result.column(f"{w}.w" + "y")) for w in ("rear_left_wheel", "rear_right_wheel")
    }
    assert spin["rear_left_wheel"][-1] < 0.99 * spin["rear_right_wheel"][-1]  # left turn
    # the thesis's choice: the rear-left wheel does not roll, it slides
    _, thesis = run(0.3, rtol=1e-7, atol=1e-9)
    along, side = wheel_slip(thesis, "rear_left_wheel")
    assert np.abs(side).max() < 1e-6 and np.abs(along).max() > 0.1
