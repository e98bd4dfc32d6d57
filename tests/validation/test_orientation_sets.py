"""Orientation parameter sets (the null-space Newmark thesis ch. 3 and §9.1): Jacobians and the
spatial pendulum.

Every derivative of every set is checked against central finite differences: ∂p/∂o,
∂²p/∂o², S(o, v) = ∂(R v)/∂o, ω = B ȯ (against Ṙ Rᵀ), ∂ω/∂ȯ, ω̇, ∂ω̇/∂ȯ, and, in the
chart used by the integrator, the mass matrix (against the kinetic energy), the inertial
velocity force (against Lagrange's equations) and its Jacobian.

Spatial pendulum (the null-space Newmark thesis §9.1.4): a 1 kg point mass on a massless 1 m rod, a
spherical joint at the origin, g = 9.81 along −y, at rest; Δt = 1 ms, 4 s. Modelled as a rigid body
with 1e-6 kg·m² about every axis whose axes are turned 90° about x, so the pendulum turns
about the body's y axis, which lies in the swing plane (ZXZ β = π/2 throughout: the
identity orientation is itself singular for Z-X-Z angles). "Main angle" θ: from the
horizontal +x, downward. Type 1, θ₀ = π/4 (θ in [π/4, 3π/4]): energy accuracy 8.078e-6 J
for all four sets (Table 9.1). Type 2, θ₀ = 0 (θ in [0, π]): 3.6e-5 J for Euler parameters
and ZXZ (Table 9.2); the reduced Euler–Rodrigues parameters and the Gibbs vector reach
their singularity (a rotation of π) at the turning point and the run stops with a message
naming the body, the time and the set to use.

The published runs (1 ms, 4 s) are marked slow; the fast variants run Δt = 10 ms over the
first swing, where central differences' O(Δt²) error is 100× the published value (8.078e-4
and 3.6e-3 J, within 5 %), and check every set against the independent DIMCD
implementation with Euler parameters (positions within 1e-8 m, drift within 1e-4).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from solver import simulate
from solver.mechanics.orientation_chart import OrientationChart
from solver.mechanics.orientation_sets import SETS, orientation_set
from solver.mechanics.system import MultibodySystem
from solver.model import model_from_data

NAMES = list(SETS)
THREE = [n for n in NAMES if n != "euler_parameters"]
EPS = 1e-6


def sample(name: str, rng) -> np.ndarray:
    """Three parameter vectors well inside each set's valid range."""
    if name == "euler_parameters":
        o = rng.normal(size=(3, 4))
        return o / np.linalg.norm(o, axis=1, keepdims=True)
    if name == "euler_zxz":
        return np.column_stack(
            [rng.uniform(-3, 3, 3), rng.uniform(0.3, 2.8, 3), rng.uniform(-3, 3, 3)]
        )
    return rng.uniform(-0.8, 0.8, size=(3, 3))


def fd(fun, x: np.ndarray, eps: float = EPS) -> np.ndarray:
    """Central differences of ``fun`` (arrays over bodies) w.r.t. the last axis of x."""
    cols = []
    for j in range(x.shape[-1]):
        dx = np.zeros_like(x)
        dx[..., j] = eps
        cols.append((fun(x + dx) - fun(x - dx)) / (2 * eps))
    return np.stack(cols, axis=-1)


@pytest.fixture(params=NAMES)
def oset(request):
    return orientation_set(request.param)


def test_quaternion_map_jacobian_and_hessian(oset):
    o = sample(oset.name, np.random.default_rng(1))
    assert np.allclose(np.linalg.norm(oset.quaternion(o), axis=1), 1.0, atol=1e-14)
    assert np.allclose(oset.quaternion_jacobian(o), fd(oset.quaternion, o), atol=1e-8)
    assert np.allclose(oset.quaternion_hessian(o), fd(oset.quaternion_jacobian, o), atol=1e-7)


def test_rotate_jacobian_s(oset):
    o = sample(oset.name, np.random.default_rng(2))
    v = np.random.default_rng(3).normal(size=(3, 3))
    num = fd(lambda x: np.einsum("nij,nj->ni", oset.rotation(x), v), o)
    assert np.allclose(oset.rotate_jacobian(o, v), num, atol=1e-8)


def test_rotation_and_angular_velocity(oset):
    """ω = B ȯ is the vector of Ṙ Rᵀ; ∂ω/∂ȯ = B; the round trip through the quaternion."""
    rng = np.random.default_rng(4)
    o = sample(oset.name, rng)
    od = rng.normal(size=o.shape)
    r = oset.rotation(o)
    assert np.allclose(np.einsum("nij,nkj->nik", r, r), np.eye(3), atol=1e-14)
    rdot = (oset.rotation(o + EPS * od) - oset.rotation(o - EPS * od)) / (2 * EPS)
    wmat = np.einsum("nij,nkj->nik", rdot, r)
    w = np.stack([wmat[:, 2, 1], wmat[:, 0, 2], wmat[:, 1, 0]], axis=1)
    if oset.name == "euler_parameters":  # ṗ must be tangent to the unit sphere
        od = od - o * np.sum(o * od, axis=1, keepdims=True)
        rdot = (oset.rotation(o + EPS * od) - oset.rotation(o - EPS * od)) / (2 * EPS)
        wmat = np.einsum("nij,nkj->nik", rdot, r)
        w = np.stack([wmat[:, 2, 1], wmat[:, 0, 2], wmat[:, 1, 0]], axis=1)
    assert np.allclose(oset.omega(o, od), w, atol=1e-8)
    assert np.allclose(oset.omega_jacobian(o), fd(lambda x: oset.omega(o, x), od), atol=1e-8)
    back = oset.from_quaternion(oset.quaternion(o))
    assert np.allclose(oset.rotation(back), r, atol=1e-12)


def test_angular_acceleration_and_its_jacobian(oset):
    rng = np.random.default_rng(5)
    o = sample(oset.name, rng)
    od, odd = rng.normal(size=o.shape), rng.normal(size=o.shape)

    def omega_at(s):  # along o(s) = o + s ȯ + s²/2 ö
        return oset.omega(o + s * od + 0.5 * s * s * odd, od + s * odd)

    num = (omega_at(EPS) - omega_at(-EPS)) / (2 * EPS)
    assert np.allclose(oset.omega_dot(o, od, odd), num, atol=1e-7)
    jac = fd(lambda x: oset.omega_dot(o, x, odd), od)
    assert np.allclose(oset.omega_dot_jacobian(o, od), jac, atol=1e-7)


def test_singularity_measures():
    zxz, rod, gib = (orientation_set(n) for n in ("euler_zxz", "rodrigues", "gibbs"))
    assert zxz.measure(np.array([[0.3, 1e-5, 0.2]]))[0] < 1e-3
    assert zxz.measure(np.array([[0.3, math.pi / 2, 0.2]]))[0] == pytest.approx(1.0)
    # a rotation of φ about z: measure cos(φ/2) for both vector parametrisations
    for phi in (0.5, 3.0, math.pi - 1e-4):
        n = np.array([[0.0, 0.0, 1.0]])
        assert rod.measure(2 * math.sin(phi / 2) * n)[0] == pytest.approx(math.cos(phi / 2))
        assert gib.measure(2 * math.tan(phi / 2) * n)[0] == pytest.approx(math.cos(phi / 2))


# ---- the chart: mass matrix and inertial forces ----------------------------------------------
SPINNER = {
    "biela": 1,
    "name": "spinner",
    "gravity": [0, 0, -9.81],
    "bodies": [
        {
            "name": "a",
            "mass": 2.0,
            "inertia": [[0.2, 0.01, 0.0], [0.01, 0.25, 0.02], [0.0, 0.02, 0.15]],
            "position": [0.1, 0.2, 0.3],
            "orientation": {"axis": [1, 2, 3], "angle": 1.0},
            "angular_velocity": [0.3, -1.0, 2.0],
        },
        {
            "name": "b",
            "mass": 1.0,
            "inertia": [0.05, 0.04, 0.03],
            "position": [1, 0, 0],
            "orientation": {"axis": [0, 1, 1], "angle": 2.0},
            "angular_velocity": [1.0, 0.5, -0.2],
        },
    ],
}


@pytest.mark.parametrize("name", THREE)
def test_chart_mass_matrix_and_inertial_force_are_lagranges(name):
    """With T(y, ẏ) = ½ ẏᵀ M_y ẏ from the system's kinetic energy, the inertial force is
    ``−(d/dt ∂T/∂ẏ − M_y ÿ − ∂T/∂y)`` (Lagrange), and its ȯ-Jacobian is exact."""
    system = MultibodySystem(model_from_data(SPINNER))
    chart = OrientationChart(system, orientation_set(name))
    y, yd = chart.from_q(system.q0, system.qd0)
    rng = np.random.default_rng(6)
    yd = yd + 0.1 * rng.normal(size=yd.shape)

    def energy(yy, vv):
        q = chart.to_q(yy)
        return system.kinetic_energy(q, chart.jacobian(yy) @ vv)

    pj = chart.jacobian(y)
    mass = pj.T @ system.mass(chart.to_q(y)) @ pj
    assert 0.5 * yd @ mass @ yd == pytest.approx(energy(y, yd), rel=1e-12)

    # Lagrange: d/dt(M ẏ) − ∂T/∂y at ÿ = 0 is Ṁ ẏ − ∂T/∂y
    def mass_at(yy):
        p = chart.jacobian(yy)
        return p.T @ system.mass(chart.to_q(yy)) @ p

    mdot = (mass_at(y + EPS * yd) - mass_at(y - EPS * yd)) / (2 * EPS)
    dtdy = np.array(
        [(energy(y + EPS * e, yd) - energy(y - EPS * e, yd)) / (2 * EPS) for e in np.eye(len(y))]
    )
    lagrange = -(mdot @ yd - dtdy)
    force, jac = chart.inertial_force(y, yd)
    assert np.allclose(force.ravel(), lagrange[chart.ocols.ravel()], atol=1e-7)
    oc = chart.ocols

    def f_of(v):
        full = yd.copy()
        full[oc] = v
        return chart.inertial_force(y, full, False)[0]

    assert np.allclose(jac, fd(f_of, yd[oc]), atol=1e-7)


@pytest.mark.parametrize("name", NAMES)
def test_chart_round_trip_keeps_the_state(name):
    system = MultibodySystem(model_from_data(SPINNER))
    chart = OrientationChart(system, orientation_set(name))
    q, qd = system.q0, system.qd0
    y, yd = chart.from_q(q, qd)
    q2, _ = chart.to_q(y), None
    qd2, _ = chart.velocities(y, yd)
    assert np.allclose(system.rotation(q2, "a"), system.rotation(q, "a"), atol=1e-13)
    assert system.kinetic_energy(q2, qd2) == pytest.approx(system.kinetic_energy(q, qd), rel=1e-12)
    assert np.allclose(system.body_state(q2, qd2)["b"][10:], system.body_state(q, qd)["b"][10:])


# ---- spatial pendulum
# ------------------------------------------------------------------------------
def pendulum(theta0: float, orientation: str, dt: float, t_end: float) -> dict:
    c = math.cos(math.pi / 4)
    return {
        "biela": 1,
        "name": "spatial pendulum (the null-space Newmark thesis §9.1.4)",
        "gravity": [0, -9.81, 0],
        "bodies": [
            {
                "name": "bob",
                "mass": 1.0,
                "inertia": [1e-6, 1e-6, 1e-6],
                "position": [math.cos(theta0), -math.sin(theta0), 0.0],
                "orientation": [c, c, 0, 0],
            },
        ],
        "joints": [
            {
                "name": "ball",
                "type": "spherical",
                "body1": "ground",
                "body2": "bob",
                "point": [0, 0, 0],
            },
        ],
        "solver": {
            "formulation": "central_differences",
            "dt": dt,
            "t_end": t_end,
            "output_dt": dt,
            "tolerance": 1e-10,
            "orientation": orientation,
        },
    }


TYPE1 = (math.pi / 4, 8.078e-6)  # Table 9.1
TYPE2 = (0.0, 3.6e-5)  # Table 9.2


def run(theta0, orientation, dt, t_end):
    return simulate(model_from_data(pendulum(theta0, orientation, dt, t_end)))


@pytest.fixture(scope="module")
def reference_10ms():
    """DIMCD with Euler parameters (the independent implementation), 10 ms."""
    return {
        1: run(TYPE1[0], "euler_parameters", 0.01, 1.2),
        2: run(TYPE2[0], "euler_parameters", 0.01, 1.1),
    }


@pytest.mark.parametrize("name", NAMES)
def test_type1_all_sets_fast(name, reference_10ms):
    ref = reference_10ms[1]
    result = run(TYPE1[0], name, 0.01, 1.2)
    assert result.status == "ok", result.message
    assert result.max_energy_drift() == pytest.approx(100 * TYPE1[1], rel=0.05)
    assert result.max_energy_drift() == pytest.approx(ref.max_energy_drift(), rel=1e-4)
    for col in ("bob.x", "bob.y", "bob.z"):
        assert np.abs(result.column(col) - ref.column(col)).max() < 1e-8
    assert result.column("constraint.position").max() < 1e-9


@pytest.mark.parametrize("name", ["euler_parameters", "euler_zxz"])
def test_type2_euler_parameters_and_zxz_fast(name, reference_10ms):
    result = run(TYPE2[0], name, 0.01, 1.1)  # up to just before the turning point (1.18 s)
    assert result.status == "ok", result.message
    assert result.max_energy_drift() == pytest.approx(100 * TYPE2[1], rel=0.05)
    assert np.abs(result.column("bob.x") - reference_10ms[2].column("bob.x")).max() < 1e-8


@pytest.mark.parametrize("name", ["rodrigues", "gibbs"])
def test_type2_rodrigues_and_gibbs_stop_at_their_singularity(name):
    result = run(TYPE2[0], name, 0.01, 2.0)
    assert result.status == "failed"
    msg = result.message
    assert 'body "bob"' in msg and name in msg and "singularity" in msg
    assert "euler_parameters" in msg  # the set to use instead
    t_stop = float(msg.split("t = ")[1].split(" s")[0])
    assert 1.05 < t_stop < 1.25  # at the turning point, θ = π (half period 1.18 s)
    assert result.t[-1] <= t_stop + 1e-9  # the message gives 6 digits
    # the frames before the stop are right: the pendulum is close to horizontal there
    assert result.column("bob.x")[-1] < -0.99


def test_zxz_refuses_the_identity_orientation_at_the_start():
    data = pendulum(TYPE1[0], "euler_zxz", 0.01, 0.1)
    data["bodies"][0]["orientation"] = [1, 0, 0, 0]
    result = simulate(model_from_data(data))
    assert result.status == "failed"
    assert "t = 0 s" in result.message and "euler_zxz" in result.message


def test_other_formulations_refuse_other_sets():
    from solver.model.errors import UnsupportedFeature

    with pytest.raises(UnsupportedFeature, match="orientation"):
        simulate(model_from_data(pendulum(TYPE1[0], "gibbs", 0.01, 0.05)), formulation="null_space")


def test_cli_orientation_option_and_exit_3(tmp_path, capsys):
    import json

    from solver import cli

    path = tmp_path / "sp.json"
    path.write_text(json.dumps(pendulum(TYPE2[0], "euler_parameters", 0.01, 1.5)))
    summary = tmp_path / "s.json"
    code = cli.main(["run", str(path), "--orientation", "rodrigues", "--summary", str(summary)])
    stderr = capsys.readouterr().err
    assert code == 3, stderr
    assert 'body "bob"' in stderr and "rodrigues" in stderr
    assert "euler_parameters" in stderr
    data = json.loads(summary.read_text())
    assert data["status"] == "failed" and data["orientation"] == "rodrigues"


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_type1_published_accuracy(name):
    result = run(TYPE1[0], name, 1e-3, 4.0)
    assert result.status == "ok", result.message
    assert result.max_energy_drift() == pytest.approx(TYPE1[1], rel=0.05)


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_type2_published_accuracy_or_singularity(name):
    result = run(TYPE2[0], name, 1e-3, 4.0)
    if name in ("euler_parameters", "euler_zxz"):
        assert result.status == "ok", result.message
        assert result.max_energy_drift() == pytest.approx(TYPE2[1], rel=0.05)
    else:
        assert result.status == "failed"
        assert "singularity" in result.message and name in result.message
