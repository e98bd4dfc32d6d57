"""Bodies, constraint primitives and joints: every analytic derivative against finite
differences at random configurations, and the constraint equations of each joint."""

from __future__ import annotations

import numpy as np
import pytest

from solver.mechanics.system import MultibodySystem
from solver.model import model_from_data

RNG = np.random.default_rng(7)


def rigid(name, pos, inertia=(0.2, 0.3, 0.4), mass=1.5, **extra):
    return {"name": name, "mass": mass, "inertia": list(inertia), "position": list(pos), **extra}


GENERAL_INERTIA = [[0.2, 0.01, -0.02], [0.01, 0.3, 0.03], [-0.02, 0.03, 0.4]]


def every_joint_model() -> dict:
    """Bodies joined by every joint type (and drivers), not necessarily mobile."""
    bodies = [
        rigid(
            "A", [0, 0, 0], inertia=GENERAL_INERTIA, orientation={"axis": [1, 2, 3], "angle": 0.7}
        ),
        rigid("B", [1, 0, 0], orientation={"axis": [0, 1, 1], "angle": -0.4}),
        rigid("C", [1, 1, 0]),
        rigid("D", [0, 1, 1], inertia=GENERAL_INERTIA),
        {"name": "m", "type": "point_mass", "mass": 2.0, "position": [2, 2, 2]},
    ]
    j = [
        {
            "name": "rev",
            "type": "revolute",
            "body1": "ground",
            "body2": "A",
            "point": [0.1, 0.2, 0.3],
            "axis": [1, 1, 0],
        },
        {"name": "sph", "type": "spherical", "body1": "A", "body2": "B", "point": [0.5, 0, 0]},
        {
            "name": "pri",
            "type": "prismatic",
            "body1": "B",
            "body2": "C",
            "point": [1, 0.5, 0],
            "axis": [0, 1, 0.2],
        },
        {
            "name": "cyl",
            "type": "cylindrical",
            "body1": "C",
            "body2": "D",
            "point": [0.5, 1, 0.5],
            "axis": [1, 0, 1],
        },
        {
            "name": "uni",
            "type": "universal",
            "body1": "A",
            "body2": "D",
            "point": [0, 0.5, 0.5],
            "axis1": [1, 0, 0],
            "axis2": [0, 0.6, 0.8],
        },
        {
            "name": "pla",
            "type": "planar",
            "body1": "ground",
            "body2": "C",
            "point": [1, 1, 0],
            "normal": [0, 0.3, 1],
        },
        {"name": "fix", "type": "fixed", "body1": "B", "body2": "D", "point": [0.5, 0.5, 0.5]},
        {
            "name": "dis",
            "type": "distance",
            "body1": "A",
            "body2": "m",
            "point1": [0.2, 0.1, 0],
            "point2": [2, 2, 2],
        },
        {
            "name": "pol",
            "type": "point_on_line",
            "body1": "C",
            "body2": "m",
            "point": [2, 2, 2],
            "axis": [1, -1, 0.5],
        },
        {
            "name": "pop",
            "type": "point_on_plane",
            "body1": "ground",
            "body2": "m",
            "point": [2, 2, 2],
            "normal": [0.2, 0.1, 1],
        },
        {
            "name": "rev2",
            "type": "revolute",
            "body1": "B",
            "body2": "C",
            "point": [1, 0.5, 0.5],
            "axis": [0, 0, 1],
        },
    ]
    drivers = [
        {"name": "turn", "joint": "rev", "function": {"expression": "0.3*sin(2*t) + t"}},
        {"name": "push", "joint": "pri", "function": {"expression": "0.1*t**2"}},
        {
            "name": "spin",
            "joint": "cyl",
            "coordinate": "angle",
            "function": {"polynomial": [0, 1, 0.5]},
        },
        {
            "name": "slide",
            "joint": "cyl",
            "coordinate": "displacement",
            "function": {"expression": "0.2*cos(t)"},
        },
    ]
    return {"biela": 1, "name": "every joint", "bodies": bodies, "joints": j, "drivers": drivers}


def random_state(system, scale=0.3):
    q = system.q0 + scale * RNG.standard_normal(system.n)
    for s in system.slots.values():
        if s.kind == "rigid":
            p = RNG.standard_normal(4)
            q[s.offset + 3 : s.offset + 7] = p / np.linalg.norm(p)
    qd = RNG.standard_normal(system.n)
    qdd = RNG.standard_normal(system.n)
    return q, qd, qdd


def fd_jacobian(f, x, h=1e-6):
    cols = []
    for i in range(len(x)):
        e = np.zeros_like(x)
        e[i] = h
        cols.append((np.asarray(f(x + e)) - np.asarray(f(x - e))) / (2 * h))
    return np.column_stack(cols)


def assert_close(a, b, rel=1e-6):
    a, b = np.asarray(a), np.asarray(b)
    scale = max(np.abs(b).max(), 1.0)
    assert np.abs(a - b).max() <= rel * scale, np.abs(a - b).max() / scale


@pytest.fixture(scope="module")
def system():
    return MultibodySystem(model_from_data(every_joint_model()))


def test_row_counts(system):
    counts = {
        "rev": 5,
        "sph": 3,
        "pri": 5,
        "cyl": 4,
        "uni": 4,
        "pla": 3,
        "fix": 6,
        "dis": 1,
        "pol": 2,
        "pop": 1,
        "rev2": 5,
    }
    for name, n in counts.items():
        assert len(system.item_rows[f"joint:{name}"]) == n, name
    assert system.m == sum(counts.values()) + 4 + 4  # drivers + Euler-parameter norms


def test_constraints_hold_at_the_initial_configuration(system):
    c = system.constraints(system.q0, system.qd0, 0.0)
    joints = np.concatenate([r for k, r in system.item_rows.items() if k.startswith("joint:")])
    assert np.abs(c.phi[joints]).max() < 1e-12
    # drivers measure from t = 0: their residual is −f(0) (slide: 0.2 cos 0)
    assert c.phi[system.item_rows["driver:slide"]] == pytest.approx([-0.2])
    assert c.phi[system.item_rows["driver:turn"]] == pytest.approx([0.0], abs=1e-15)


@pytest.mark.parametrize("trial", range(4))
def test_phi_q_matches_finite_differences(system, trial):
    q, qd, _ = random_state(system)
    t = 0.37 + trial
    c = system.constraints(q, qd, t)
    assert_close(c.phi_q, fd_jacobian(lambda x: system.constraints(x, qd, t).phi, q))


@pytest.mark.parametrize("trial", range(4))
def test_phi_t_and_gamma_match_a_trajectory(system, trial):
    """Along q(t) = q + q̇τ + ½q̈τ², Φ̇ = Φ_q q̇ + Φ_t and Φ̈ = Φ_q q̈ − γ."""
    q, qd, qdd = random_state(system, scale=0.2)
    t0 = 0.5 * trial

    def phi(tau):
        return system.constraints(q + qd * tau + 0.5 * qdd * tau**2, None, t0 + tau).phi

    c = system.constraints(q, qd, t0)
    h = 1e-4
    dphi = (phi(h) - phi(-h)) / (2 * h)
    ddphi = (phi(h) - 2 * phi(0.0) + phi(-h)) / h**2
    assert_close(c.phi_q @ qd + c.phi_t, dphi, rel=1e-6)
    assert_close(c.phi_q @ qdd - c.gamma, ddphi, rel=2e-5)
    assert_close(
        c.phi_t,
        fd_jacobian(lambda tt: system.constraints(q, qd, tt[0]).phi, np.array([t0])).ravel(),
    )


def test_marker_jacobians_and_velocities(system):
    q, qd, qdd = random_state(system)
    ms = system.marker_state(q, qd)
    cols = system.markers.cols
    for i in range(len(system.markers.kind)):
        c = cols[i][cols[i] >= 0]
        if not len(c):
            continue

        def u_of(x, i=i, c=c):
            qq = q.copy()
            qq[c] = x
            return system.marker_state(qq, qd).u[i]

        jac = ms.jac[i][:, : len(c)]
        assert_close(jac, fd_jacobian(u_of, q[c]))
        assert_close(ms.udot[i], jac @ qd[c])
        # ü = J q̈ + J̇q̇ along a trajectory
        h = 1e-4

        def u_at(tau, i=i):
            return system.marker_state(q + qd * tau + 0.5 * qdd * tau**2, qd).u[i]

        udd = (u_at(h) - 2 * u_at(0.0) + u_at(-h)) / h**2
        assert_close(jac @ qdd[c] + ms.jdq[i], udd, rel=2e-5)


def _rigid_only(system):
    return [s for s in system.slots.values() if s.kind == "rigid"]


def test_mass_matrix_is_kinetic_energy_hessian(system):
    q, qd, _ = random_state(system)
    mass = system.mass(q)
    assert np.allclose(mass, mass.T)
    assert system.kinetic_energy(q, qd) == pytest.approx(0.5 * qd @ mass @ qd, rel=1e-12)
    grad = fd_jacobian(lambda v: np.array([system.kinetic_energy(q, v)]), qd).ravel()
    assert_close(mass @ qd, grad)


def test_quadratic_velocity_forces_follow_from_lagrange(system):
    """Q_v = ∂T/∂q − Ṁq̇ (Lagrange's equations with M q̈ on the left)."""
    q, qd, _ = random_state(system)
    dtdq = fd_jacobian(lambda x: np.array([system.kinetic_energy(x, qd)]), q).ravel()
    mdot_qd = system.mass_times_jacobian(q, qd) @ qd
    qv = system.forces(q, qd, 0.0) - system.gravity_forces()
    assert_close(qv, dtdq - mdot_qd)


def test_mass_and_quadratic_force_jacobians(system):
    q, qd, qdd = random_state(system)
    assert_close(system.mass_times_jacobian(q, qdd), fd_jacobian(lambda x: system.mass(x) @ qdd, q))
    kq, kqd = system.force_jacobians(q, qd, 0.3)
    assert_close(kq, fd_jacobian(lambda x: system.forces(x, qd, 0.3), q))
    assert_close(kqd, fd_jacobian(lambda v: system.forces(q, v, 0.3), qd))


def test_free_body_angular_velocity_and_energy():
    model = model_from_data(
        {
            "biela": 1,
            "bodies": [
                rigid(
                    "b",
                    [0, 0, 0],
                    inertia=GENERAL_INERTIA,
                    orientation={"axis": [0, 0, 1], "angle": 0.5},
                    angular_velocity=[1.0, -2.0, 0.5],
                    velocity=[1, 0, 0],
                )
            ],
        }
    )
    s = MultibodySystem(model)
    state = s.body_state(s.q0, s.qd0)["b"]
    assert state[10:13] == pytest.approx([1.0, -2.0, 0.5])
    a = s.rotation(s.q0, "b")
    w = np.array([1.0, -2.0, 0.5])
    expected = 0.5 * 1.5 * 1.0 + 0.5 * w @ a @ np.array(GENERAL_INERTIA) @ a.T @ w
    assert s.kinetic_energy(s.q0, s.qd0) == pytest.approx(expected, rel=1e-12)


def test_revolute_leaves_rotation_about_its_axis(system):
    """The null space of a revolute's rows is a rotation about its axis through its point."""
    model = model_from_data(
        {
            "biela": 1,
            "bodies": [rigid("b", [1, 0, 0])],
            "joints": [
                {
                    "name": "r",
                    "type": "revolute",
                    "body1": "ground",
                    "body2": "b",
                    "point": [0, 0, 0],
                    "axis": [0, 0, 1],
                }
            ],
        }
    )
    s = MultibodySystem(model)
    c = s.constraints(s.q0)
    _, sv, vt = np.linalg.svd(c.phi_q)
    assert np.sum(sv > 1e-9) == 6
    v = vt[-1]  # the one free direction
    p = s.q0[3:7]
    from solver.mechanics.rotations import angular_velocity

    w = angular_velocity(p[None], v[None, 3:7])[0]
    assert np.allclose(np.cross(w / np.linalg.norm(w), [0, 0, 1]), 0, atol=1e-12)
    assert np.allclose(v[:3], np.cross(w, [1, 0, 0]), atol=1e-12)  # CoM moves as r = ω × (r − 0)


def test_point_mass_joint_away_from_its_position_is_refused():
    from solver.model import ModelError

    data = {
        "biela": 1,
        "bodies": [{"name": "m", "type": "point_mass", "mass": 1, "position": [1, 0, 0]}],
        "joints": [
            {"name": "s", "type": "spherical", "body1": "ground", "body2": "m", "point": [0, 0, 0]}
        ],
    }
    with pytest.raises(
        ModelError, match=r'joints\[0\] "s": point \[0, 0, 0\] is not at point mass "m"'
    ):
        model_from_data(data)
