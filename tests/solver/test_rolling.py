"""The rolling disc: contact and no-slip rows against finite differences and physics."""

from __future__ import annotations

import numpy as np
import pytest

from solver import check, simulate
from solver.analysis.kinematics import consistent_velocities
from solver.mechanics.system import MultibodySystem
from solver.model import model_from_data

R = 0.5
ECCENTRIC = (0.04, -0.03, 0.05)  # the disc centre away from its body's reference point


def disc_model(
    slip="none", v=2.0, spin=None, tilt=0.0, gravity=(0, 0, -9.81), offset=(0, 0, 0)
) -> dict:
    """A thin disc (axle along y, tilted by ``tilt`` about x) on the ground plane z = 0;
    its centre of mass ``offset`` from its centre (an eccentric disc)."""
    c, s = np.cos(tilt), np.sin(tilt)
    axle = [0.0, c, s]
    centre = [0.0, 0.0, R * c]
    spin = v / R if spin is None else spin
    return {
        "biela": 1,
        "name": "rolling disc",
        "gravity": list(gravity),
        "bodies": [
            {
                "name": "disc",
                "mass": 2.0,
                "inertia": [0.125, 0.25, 0.125],  # axle = body y
                "position": list(np.add(centre, offset)),
                "orientation": {"axis": [1, 0, 0], "angle": tilt},
                "velocity": [v, 0, 0],
                "angular_velocity": [spin * a for a in axle],
            }
        ],
        "joints": [
            {
                "name": "roll",
                "type": "rolling_disk",
                "body1": "ground",
                "body2": "disc",
                "point": centre,
                "axis": axle,
                "radius": R,
                "normal": [0, 0, 1],
                "slip": slip,
            }
        ],
        "solver": {"formulation": "lagrange_baumgarte", "dt": 0.01, "t_end": 1.0},
    }


def random_state(system, rng):
    q = system.q0 + 0.05 * rng.standard_normal(system.n)
    p = q[3:7] + 0.1 * rng.standard_normal(4)
    q[3:7] = p / np.linalg.norm(p)
    return q, rng.standard_normal(system.n), rng.standard_normal(system.n)


@pytest.mark.parametrize("slip", ["none", "lateral", "longitudinal", "free"])
def test_row_counts_and_dof(slip):
    report = check(model_from_data(disc_model(slip, tilt=0.3)))
    rows = {"none": 2, "lateral": 1, "longitudinal": 1, "free": 0}[slip]
    assert report.mobility.equations == 1 + 1 + rows  # Euler norm + contact + no-slip
    assert report.dof == 7 - 2 - rows


@pytest.mark.parametrize(("trial", "offset"), [(0, (0, 0, 0)), (1, (0, 0, 0)), (2, ECCENTRIC)])
def test_no_slip_rows_are_the_contact_point_velocity(trial, offset):
    """B q̇ equals the velocity of the disc's material point at the contact, projected."""
    rng = np.random.default_rng(trial)
    system = MultibodySystem(model_from_data(disc_model("none", tilt=0.4, offset=offset)))
    q, qd, _ = random_state(system, rng)
    qd[3:7] -= (qd[3:7] @ q[3:7]) * q[3:7]  # on the unit sphere, as every motion is
    b, _ = system.velocity_constraints(q, qd)
    a = system.rotation(q, "disc")
    axle = a @ [0.0, 1.0, 0.0]
    n = np.array([0.0, 0.0, 1.0])
    w = n - (axle @ n) * axle
    w /= np.linalg.norm(w)
    centre = q[:3] - a @ system.slots["disc"].rotation0.T @ np.asarray(offset, float)
    contact = centre - R * w
    local = a.T @ (contact - q[:3])

    def material(x):
        return system.global_point(x, "disc", local)

    h = 1e-7
    vq = (material(q + h * qd) - material(q - h * qd)) / (2 * h)
    t = np.cross(axle, n) / np.linalg.norm(np.cross(axle, n))
    lat = np.cross(n, t)
    assert b @ qd == pytest.approx([t @ vq, lat @ vq], abs=1e-6)


@pytest.mark.parametrize(
    ("trial", "slip", "offset"),
    [(0, "none", (0, 0, 0)), (1, "none", ECCENTRIC), (2, "lateral", ECCENTRIC)],
)
def test_no_slip_gamma_matches_a_trajectory(trial, slip, offset):
    """d/dt (B q̇) = B q̈ − γ along a smooth motion that keeps |p| = 1 (as every real
    motion does): q̇ and q̈ of the path by finite differences."""
    rng = np.random.default_rng(10 + trial)
    system = MultibodySystem(model_from_data(disc_model(slip, tilt=0.4, offset=offset)))
    q0, a1, a2 = random_state(system, rng)

    def path(tau):
        q = q0 + a1 * tau + 0.5 * a2 * tau**2
        q[3:7] /= np.linalg.norm(q[3:7])
        return q

    def rates(tau, h=1e-4):
        return (path(tau + h) - path(tau - h)) / (2 * h), (
            path(tau + h) - 2 * path(tau) + path(tau - h)
        ) / h**2

    def g(tau):
        b, _ = system.velocity_constraints(path(tau), rates(tau)[0])
        return b @ rates(tau)[0]

    qd, qdd = rates(0.0)
    b, gamma = system.velocity_constraints(q0, qd)
    h = 1e-3
    assert (g(h) - g(-h)) / (2 * h) == pytest.approx(b @ qdd - gamma, rel=1e-4, abs=1e-5)


def test_disc_on_plane_contact_derivatives():
    from tests.solver.test_constraints import assert_close, fd_jacobian

    rng = np.random.default_rng(5)
    system = MultibodySystem(model_from_data(disc_model("free", tilt=0.3)))
    q, qd, qdd = random_state(system, rng)
    c = system.constraints(q, qd, 0.0)
    assert_close(c.phi_q, fd_jacobian(lambda x: system.constraints(x, qd, 0.0).phi, q))

    def phi(tau):
        return system.constraints(q + qd * tau + 0.5 * qdd * tau**2, None, 0.0).phi

    h = 1e-4
    assert_close(c.phi_q @ qdd - c.gamma, (phi(h) - 2 * phi(0) + phi(-h)) / h**2, rel=2e-5)
    lam = rng.standard_normal(system.m)
    k, d = system.constraint_second_order(q, qd, lam, 0.0)
    assert_close(k, fd_jacobian(lambda x: system.constraints(x, qd, 0.0).phi_q.T @ lam, q))
    assert_close(d, fd_jacobian(lambda x: system.constraints(x, qd, 0.0).phi_q @ qd, q))


def test_upright_disc_rolls_straight_at_constant_speed():
    result = simulate(model_from_data(disc_model("none", v=2.0)), t_end=1.0, dt=0.01)
    assert result.status == "ok", result.message
    x = result.column("disc.x")
    assert x[-1] == pytest.approx(2.0, abs=1e-6)
    assert result.max_energy_drift() < 1e-8
    assert result.column("constraint.velocity").max() < 1e-8


def test_slipping_start_is_made_consistent():
    """A disc launched sliding (no spin) gets the nearest rolling velocities."""
    system = MultibodySystem(model_from_data(disc_model("none", v=2.0, spin=0.0)))
    qd = consistent_velocities(system, system.q0, system.qd0)
    b, _ = system.velocity_constraints(system.q0, qd)
    assert np.abs(b @ qd).max() < 1e-12
    vx = qd[0]
    assert 0.0 < vx < 2.0  # momentum shared between translation and spin


def test_tilted_rolling_disc_turns_and_conserves_energy():
    """A tilted rolling disc curves towards its lean and keeps its energy (no slip does
    no work)."""
    result = simulate(model_from_data(disc_model("none", v=3.0, tilt=0.15)), t_end=1.0, dt=0.01)
    assert result.status == "ok", result.message
    assert abs(result.column("disc.y")[-1]) > 0.05
    assert result.max_energy_drift() < 1e-6


@pytest.mark.parametrize("formulation", ["penalty", "null_space", "central_differences"])
def test_every_formulation_integrates_rolling(formulation):
    """The fixed-step formulations integrate the no-slip rows too (accuracy and energy in
    ``test_rolling_fixed_step``): the upright disc rolls straight at its speed."""
    result = simulate(model_from_data(disc_model("none")), formulation=formulation, t_end=0.2)
    assert result.status == "ok", result.message
    assert result.column("disc.x")[-1] == pytest.approx(0.4, abs=1e-6)


def test_a_formulation_without_rolling_is_refused_clearly():
    """A stepper that cannot integrate no-slip rows is refused before the first step,
    naming the disc and the formulations that can (never ignoring the rows)."""
    from solver.analysis.rolling_consistency import check_formulation_handles_rolling
    from solver.model import ModelError

    system = MultibodySystem(model_from_data(disc_model("none")))
    with pytest.raises(ModelError) as err:
        check_formulation_handles_rolling(system, "custom", object())
    assert str(err.value) == (
        'joint "roll": rolling without slip (velocity-level no-slip equations) is not '
        "integrated by the custom formulation; use lagrange_baumgarte or penalty or "
        'augmented_lagrangian or null_space or central_differences, or give the disc "slip": '
        '"free"'
    )
    # contact only: no velocity rows, nothing to refuse
    free = MultibodySystem(model_from_data(disc_model("free")))
    check_formulation_handles_rolling(free, "custom", object())


@pytest.mark.parametrize("slip", ["none", "lateral"])
def test_augmented_lagrangian_rolls_like_lagrange_baumgarte(slip):
    """The tilted disc (it turns) with the velocity-level augmented Lagrangian and
    projections onto [Φ_q; B]: the same path as the adaptive index-1 reference, with the
    trapezoidal rule's O(h²) error (dt 0.01 → 0.005: 4× smaller), no-slip rows held to
    rounding, and energy conserved (no slip does no work)."""
    model = disc_model(slip, v=3.0, tilt=0.15)
    ref = simulate(model_from_data(model), t_end=0.3, dt=0.01)
    assert ref.status == "ok", ref.message
    errors = []
    for dt in (0.01, 0.005):
        res = simulate(model_from_data(model), formulation="augmented_lagrangian", t_end=0.3, dt=dt)
        assert res.status == "ok", res.message
        assert res.column("constraint.velocity").max() < 1e-10
        assert res.max_energy_drift() < 1e-3 * res.column("energy.kinetic")[0]
        errors.append(
            max(abs(res.column(f"disc.{k}")[-1] - ref.column(f"disc.{k}")[-1]) for k in "xy")
        )
    assert errors[0] < 2e-4
    assert 3.0 < errors[0] / errors[1] < 5.0
    assert abs(ref.column("disc.y")[-1]) > (0.01 if slip == "none" else 5e-4)  # it moved sideways


@pytest.mark.parametrize(
    ("slip", "trial", "offset"),
    [("none", 0, (0, 0, 0)), ("lateral", 1, ECCENTRIC), ("longitudinal", 2, ECCENTRIC)],
)
def test_no_slip_second_order_terms_match_finite_differences(slip, trial, offset):
    """∂(Bᵀμ)/∂q and ∂(B q̇)/∂q (the implicit integrators' Newton terms) against central
    differences, at a random state off the unit sphere (the derivatives are exact for
    the parametrisation, not only along the constraint manifold); on an eccentric disc
    the centre marker's own terms count too."""
    from tests.solver.test_constraints import assert_close, fd_jacobian

    rng = np.random.default_rng(20 + trial)
    system = MultibodySystem(model_from_data(disc_model(slip, tilt=0.4, offset=offset)))
    q, qd, _ = random_state(system, rng)
    q[3:7] *= 1.1
    mu = rng.standard_normal(system.m_nh)
    k, d = system.velocity_second_order(q, qd, mu)

    def b(x):
        return system.velocity_constraints(x, qd)[0]

    assert np.abs(k).max() > 0.1 and np.abs(d).max() > 0.1  # not trivially zero
    assert_close(k, fd_jacobian(lambda x: b(x).T @ mu, q))
    assert_close(d, fd_jacobian(lambda x: b(x) @ qd, q))


def test_no_slip_in_natural_coordinates_is_refused_clearly():
    """The no-slip rows need the disc's Euler parameters: a disc in natural coordinates
    rolls without them ("slip": "free") or is refused, naming the joint."""
    from solver.model import ModelError

    data = disc_model("none")
    data["solver"]["coordinates"] = "natural"
    with pytest.raises(ModelError) as err:
        MultibodySystem(model_from_data(data))
    assert 'joints[0] "roll"' in str(err.value)
    assert "natural coordinates" in str(err.value)
    free = disc_model("free")
    free["solver"]["coordinates"] = "natural"
    assert MultibodySystem(model_from_data(free)).m_nh == 0
