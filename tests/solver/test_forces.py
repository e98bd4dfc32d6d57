"""Force elements: exact Jacobians, action and reaction, energy, power, conventions."""

from __future__ import annotations

import copy
import math
import zlib

import numpy as np
import pytest

from solver.mechanics.markers import K
from solver.mechanics.rotations import e_matrix, rotate, rotation_matrix
from solver.mechanics.system import MultibodySystem
from solver.model import ModelError, model_from_data

H = 1e-6  # central-difference step
TOL = 1e-6  # relative error allowed between analytic and finite-difference Jacobians

GENERAL_INERTIA = [[0.2, 0.01, 0.03], [0.01, 0.3, 0.02], [0.03, 0.02, 0.4]]
TILT = {"axis": [1, 1, 0], "angle": 0.4}

BODIES = [
    {
        "name": "a",
        "mass": 1.5,
        "inertia": GENERAL_INERTIA,
        "position": [0, 0, 1],
        "orientation": TILT,
    },
    {"name": "b", "mass": 2.0, "inertia": [1, 2, 3], "position": [1, 0.5, 1.2]},
    {"name": "m", "type": "point_mass", "mass": 0.7, "position": [2, 2, 2]},
]
JOINTS = [
    {
        "name": "Rg",
        "type": "revolute",
        "body1": "ground",
        "body2": "a",
        "point": [0.1, 0.2, 0.8],
        "axis": [0.2, 0.3, 1],
    },
    {
        "name": "Rab",
        "type": "revolute",
        "body1": "a",
        "body2": "b",
        "point": [0.5, 0.2, 1],
        "axis": [0, 1, 0.4],
    },
    {
        "name": "Cab",
        "type": "cylindrical",
        "body1": "a",
        "body2": "b",
        "point": [0.3, 0.6, 1.1],
        "axis": [1, 0.1, 0.2],
    },
    {
        "name": "Pg",
        "type": "prismatic",
        "body1": "ground",
        "body2": "b",
        "point": [1.3, 0.2, 1],
        "axis": [0.3, 1, 0],
    },
]
SINE = {"expression": "3*sin(2*t) + 1"}


def spring(body1, point1, body2, point2, **extra):
    return {
        "name": "S",
        "type": "spring_damper",
        "body1": body1,
        "point1": point1,
        "body2": body2,
        "point2": point2,
    } | extra


CASES = {
    "spring rigid-rigid": [
        spring(
            "a",
            [0.1, 0.2, 0.9],
            "b",
            [1.2, 0.4, 1.3],
            stiffness=30,
            damping=2,
            free_length=0.7,
            actuator=SINE,
        )
    ],
    "spring ground-rigid": [
        spring("ground", [0, 0, 0], "a", [0.3, -0.2, 1.1], stiffness=20, damping=1.5)
    ],
    "spring rigid-ground": [
        spring("b", [1.1, 0.7, 1.4], "ground", [2, 0, 0], stiffness=20, damping=1.5, actuator=SINE)
    ],
    "spring point mass-rigid": [
        spring("m", [2, 2, 2], "b", [1.2, 0.4, 1.3], stiffness=12, damping=0.8, free_length=0.3)
    ],
    "spring zero free length": [
        spring("a", [0.1, 0.2, 0.9], "b", [1.2, 0.4, 1.3], stiffness=30, damping=2, free_length=0)
    ],
    "rotational spring revolute to ground": [
        {
            "name": "RS",
            "type": "rotational_spring_damper",
            "joint": "Rg",
            "stiffness": 5,
            "damping": 0.3,
            "free_angle": 0.2,
        }
    ],
    "rotational spring revolute": [
        {
            "name": "RS",
            "type": "rotational_spring_damper",
            "joint": "Rab",
            "stiffness": 5,
            "damping": 0.3,
        }
    ],
    "rotational spring cylindrical": [
        {
            "name": "RS",
            "type": "rotational_spring_damper",
            "joint": "Cab",
            "stiffness": 4,
            "damping": 0.5,
            "free_angle": -1,
        }
    ],
    "joint torque revolute": [
        {"name": "JT", "type": "joint_torque", "joint": "Rab", "function": SINE}
    ],
    "joint torque cylindrical": [
        {"name": "JT", "type": "joint_torque", "joint": "Cab", "function": SINE}
    ],
    "joint force prismatic to ground": [
        {"name": "JF", "type": "joint_force", "joint": "Pg", "function": SINE}
    ],
    "joint force cylindrical": [
        {"name": "JF", "type": "joint_force", "joint": "Cab", "function": SINE}
    ],
    "force global": [
        {"name": "F", "type": "force", "body": "a", "point": [0.4, 1, 1], "vector": [1, SINE, -2]}
    ],
    "force body frame": [
        {
            "name": "F",
            "type": "force",
            "body": "a",
            "point": [0.4, 1, 1],
            "vector": [1, SINE, -2],
            "frame": "body",
        }
    ],
    "force on point mass": [
        {"name": "F", "type": "force", "body": "m", "point": [2, 2, 2], "vector": [1, SINE, -2]}
    ],
    "torque global": [
        {"name": "T", "type": "torque", "body": "a", "vector": [0.5, SINE, 2], "frame": "global"}
    ],
    "torque body frame": [
        {"name": "T", "type": "torque", "body": "a", "vector": [0.5, SINE, 2], "frame": "body"}
    ],
}


def build(forces, bodies=BODIES, joints=JOINTS) -> MultibodySystem:
    forces = copy.deepcopy(forces)
    names = [f["name"] for f in forces]
    if len(set(names)) < len(names):
        for i, f in enumerate(forces):
            f["name"] = f"{f['name']}{i}"
    data = {
        "biela": 1,
        "gravity": [0, 0, -9.81],
        "bodies": copy.deepcopy(bodies),
        "joints": copy.deepcopy(joints),
        "forces": forces,
    }
    return MultibodySystem(model_from_data(data))


def unit_quaternion(rng) -> np.ndarray:
    p = rng.normal(size=4)
    return p / np.linalg.norm(p)


def random_state(system: MultibodySystem, rng):
    """Random positions, unit quaternions and velocities (constraints not satisfied)."""
    q = system.q0 + 0.3 * rng.normal(size=system.n)
    for s in system.slots.values():
        if s.kind == "rigid":
            q[s.offset + 3 : s.offset + 7] = unit_quaternion(rng)
    return q, rng.normal(size=system.n)


def applied(system, q, qd, t):
    """The force elements' generalised forces: the system's Q without gravity and the
    rigid bodies' quadratic-velocity terms."""
    return system.forces(q, qd, t, inertial=False) - system.gravity_forces()


def element_jacobians(system, q, qd, t):
    """``(∂Q/∂q, ∂Q/∂q̇)`` of :func:`applied` (gravity is constant)."""
    return system.force_jacobians(q, qd, t, inertial=False)


def dense(m):
    return m.toarray() if hasattr(m, "toarray") else np.asarray(m)


def relative_error(analytic, numeric) -> float:
    scale = np.abs(numeric).max()
    if scale == 0.0:
        return float(np.abs(analytic).max())
    return float(np.abs(analytic - numeric).max() / scale)


def fd_jacobians(system, q, qd, t):
    eye = np.eye(system.n)
    kq = np.column_stack(
        [
            (applied(system, q + H * e, qd, t) - applied(system, q - H * e, qd, t)) / (2 * H)
            for e in eye
        ]
    )
    kqd = np.column_stack(
        [
            (applied(system, q, qd + H * e, t) - applied(system, q, qd - H * e, t)) / (2 * H)
            for e in eye
        ]
    )
    return kq, kqd


def rotation_displacement(system, q, omega):
    """``δq`` of a rigid rotation ``omega`` of the whole system about the origin."""
    dq = np.zeros(system.n)
    for s in system.slots.values():
        r = q[s.offset : s.offset + 3]
        dq[s.offset : s.offset + 3] = np.cross(omega, r)
        if s.kind == "rigid":
            p = q[s.offset + 3 : s.offset + 7]
            dq[s.offset + 3 : s.offset + 7] = 0.5 * e_matrix(p[None])[0].T @ omega
    return dq


def body_rotation(system, q, body, omega):
    """``δq`` rotating one rigid body by ``omega`` about its centre of mass."""
    s = system.slots[body]
    dq = np.zeros(system.n)
    p = q[s.offset + 3 : s.offset + 7]
    dq[s.offset + 3 : s.offset + 7] = 0.5 * e_matrix(p[None])[0].T @ omega
    return dq


# ---- the marker additions ---------------------------------------------------------------
def test_marker_jdot_is_derivative_of_velocity():
    system = build(CASES["spring rigid-rigid"] + CASES["torque global"])
    rng = np.random.default_rng(3)
    q, qd = random_state(system, rng)
    ms = system.marker_state(q, qd)
    cols = system.markers.cols
    for i in range(len(system.markers)):
        for k in range(K):
            c = cols[i, k]
            if c < 0:
                assert np.all(ms.jdot[i, :, k] == 0.0)
                continue
            dq = np.zeros(system.n)
            dq[c] = H
            fd = (
                system.marker_state(q + dq, qd).udot[i] - system.marker_state(q - dq, qd).udot[i]
            ) / (2 * H)
            assert np.abs(ms.jdot[i, :, k] - fd).max() < 1e-8


def test_marker_force_jacobian_is_derivative_of_jt_f():
    system = build(
        CASES["spring point mass-rigid"] + CASES["spring ground-rigid"] + CASES["torque global"]
    )
    rng = np.random.default_rng(4)
    q, qd = random_state(system, rng)
    idx = np.arange(len(system.markers))
    f = rng.normal(size=(len(idx), 3))
    analytic = system.markers.force_jacobian(idx, f)
    assert np.abs(analytic).max() > 0.1

    def jtf(qq):
        jac = system.marker_state(qq, qd).jac
        return np.einsum("mik,mi->mk", jac, f)

    cols = system.markers.cols
    for k in range(K):
        for i in idx:
            c = cols[i, k]
            if c < 0:
                continue
            dq = np.zeros(system.n)
            dq[c] = H
            fd = (jtf(q + dq)[i] - jtf(q - dq)[i]) / (2 * H)
            assert np.abs(analytic[i, :, k] - fd).max() < 1e-8


# ---- exact Jacobians ----------------------------------------------------------------------
@pytest.mark.parametrize("case", list(CASES))
def test_jacobians_match_finite_differences(case):
    system = build(CASES[case])
    rng = np.random.default_rng(zlib.crc32(case.encode()))
    for t in (0.0, 0.37, 1.9):
        q, qd = random_state(system, rng)
        assert np.abs(applied(system, q, qd, t)).max() > 1e-3
        kq, kqd = (dense(m) for m in element_jacobians(system, q, qd, t))
        fq, fqd = fd_jacobians(system, q, qd, t)
        assert relative_error(kq, fq) < TOL, case
        assert relative_error(kqd, fqd) < TOL, case


def test_all_elements_together_through_the_system():
    """The system adds the force set to gravity and the quadratic-velocity terms."""
    forces = [f for fs in CASES.values() for f in fs]
    system = build(forces)
    rng = np.random.default_rng(11)
    q, qd = random_state(system, rng)
    t = 0.8

    def total(qq, vv):
        return system.forces(qq, vv, t)

    kq, kqd = (dense(m) for m in system.force_jacobians(q, qd, t))
    eye = np.eye(system.n)
    fq = np.column_stack([(total(q + H * e, qd) - total(q - H * e, qd)) / (2 * H) for e in eye])
    fqd = np.column_stack([(total(q, qd + H * e) - total(q, qd - H * e)) / (2 * H) for e in eye])
    assert relative_error(kq, fq) < TOL
    assert relative_error(kqd, fqd) < TOL


def test_large_sparse_chain_of_springs():
    """Above the sparse threshold, a chain of 50 bodies: directional derivatives match."""
    n_bodies = 50
    bodies = [
        {"name": f"b{i}", "mass": 1, "inertia": GENERAL_INERTIA, "position": [i, 0.1 * i, 0]}
        for i in range(n_bodies)
    ]
    forces = [
        spring(
            "ground" if i == 0 else f"b{i - 1}",
            [i - 0.6, 0, 0.1],
            f"b{i}",
            [i - 0.3, 0.1, 0],
            stiffness=10 + i,
            damping=0.5,
        )
        for i in range(n_bodies)
    ]
    system = build(forces, bodies=bodies, joints=[])
    assert system.sparse
    rng = np.random.default_rng(5)
    q, qd = random_state(system, rng)
    kq, kqd = system.force_jacobians(q, qd, 0.0)
    for _ in range(3):
        v = rng.normal(size=system.n)
        fq = (system.forces(q + H * v, qd, 0.0) - system.forces(q - H * v, qd, 0.0)) / (2 * H)
        fqd = (system.forces(q, qd + H * v, 0.0) - system.forces(q, qd - H * v, 0.0)) / (2 * H)
        assert relative_error(kq @ v, fq) < TOL
        assert relative_error(kqd @ v, fqd) < TOL


# ---- action and reaction ------------------------------------------------------------------
INTERNAL = [
    "spring rigid-rigid",
    "spring zero free length",
    "spring point mass-rigid",
    "rotational spring revolute",
    "rotational spring cylindrical",
    "joint torque cylindrical",
    "joint force cylindrical",
]


@pytest.mark.parametrize("case", INTERNAL)
def test_internal_elements_exert_no_net_force_or_moment(case):
    """Between two free bodies: no virtual work in a rigid translation or rotation."""
    system = build(CASES[case], joints=JOINTS)
    rng = np.random.default_rng(7)
    for t in (0.0, 1.3):
        q, qd = random_state(system, rng)
        q_applied = applied(system, q, qd, t)
        scale = np.abs(q_applied).max() * (1 + np.abs(q).max())
        assert scale > 1e-3
        for _ in range(3):
            shift = rng.normal(size=3)
            dq = np.zeros(system.n)
            for s in system.slots.values():
                dq[s.offset : s.offset + 3] = shift
            assert abs(q_applied @ dq) < 1e-12 * scale * np.linalg.norm(shift)
            omega = rng.normal(size=3)
            assert abs(
                q_applied @ rotation_displacement(system, q, omega)
            ) < 1e-12 * scale * np.linalg.norm(omega)


def test_external_force_does_exert_a_net_force():
    """The check above can fail: an applied force on one body has net virtual work."""
    system = build(CASES["force global"])
    q, qd = system.q0, system.qd0
    dq = np.zeros(system.n)
    for s in system.slots.values():
        dq[s.offset : s.offset + 3] = [1, 0, 0]
    assert applied(system, q, qd, 0.0) @ dq == pytest.approx(1.0)


# ---- energy and power ---------------------------------------------------------------------
def conservative(forces):
    out = []
    for f in copy.deepcopy(forces):
        f.pop("actuator", None)
        f["damping"] = 0
        out.append(f)
    return out


@pytest.mark.parametrize(
    "case",
    [
        "spring rigid-rigid",
        "spring ground-rigid",
        "spring point mass-rigid",
        "spring zero free length",
        "rotational spring revolute to ground",
        "rotational spring cylindrical",
    ],
)
def test_spring_force_is_minus_gradient_of_elastic_energy(case):
    system = build(conservative(CASES[case]))
    rng = np.random.default_rng(8)
    q, qd = random_state(system, rng)

    def energy(qq):
        return system.elastic_energy(qq)

    assert energy(q) > 1e-3
    grad = np.array([(energy(q + H * e) - energy(q - H * e)) / (2 * H) for e in np.eye(system.n)])
    assert relative_error(-applied(system, q, qd, 0.0), grad) < TOL
    assert system.nonconservative_power(q, qd, 0.0) == 0.0


def test_spring_energy_value():
    system = build([spring("ground", [0, 0, 0], "m", [2, 2, 2], stiffness=8, free_length=1)])
    q = system.q0.copy()
    q[system.slots["m"].offset : system.slots["m"].offset + 3] = [0, 3, 4]
    assert system.elastic_energy(q) == pytest.approx(0.5 * 8 * (5 - 1) ** 2, rel=1e-14)


def test_damper_power_is_minus_c_ldot_squared():
    c = 2.5
    forces = [spring("a", [0.1, 0.2, 0.9], "b", [1.2, 0.4, 1.3], stiffness=0, damping=c)]
    system = build(forces)
    rng = np.random.default_rng(9)
    q, qd = random_state(system, rng)
    i1, i2 = system.force_set.springs._rows[0][:2]

    def length(qq):
        u = system.marker_state(qq).u
        return np.linalg.norm(u[i2] - u[i1])

    ldot = (length(q + H * qd) - length(q - H * qd)) / (2 * H)
    power = system.nonconservative_power(q, qd, 0.0)
    assert power == pytest.approx(-c * ldot**2, rel=1e-8)
    assert power == pytest.approx(applied(system, q, qd, 0.0) @ qd, rel=1e-12)


@pytest.mark.parametrize("case", [c for c in CASES if c != "spring zero free length"])
def test_nonconservative_power_is_power_of_nonconservative_part(case):
    """Dampers, actuators and applied loads: power = Q_nc·q̇, with Q_nc = Q at k = 0."""
    forces = CASES[case]
    no_springs = [dict(f, stiffness=0) if "stiffness" in f else f for f in forces]
    system, free = build(forces), build(no_springs)
    rng = np.random.default_rng(10)
    for t in (0.2, 1.1):
        q, qd = random_state(system, rng)
        expected = applied(free, q, qd, t) @ qd
        assert abs(expected) > 1e-6
        power = system.nonconservative_power(q, qd, t)
        assert power == pytest.approx(expected, rel=1e-10)


# ---- conventions --------------------------------------------------------------------------
def test_defaults_give_no_load_in_the_initial_configuration():
    forces = [
        spring("a", [0.1, 0.2, 0.9], "b", [1.2, 0.4, 1.3], stiffness=30),
        {"name": "RS", "type": "rotational_spring_damper", "joint": "Rab", "stiffness": 5},
    ]
    system = build(forces)
    q = system.q0
    assert np.abs(applied(system, q, np.zeros(system.n), 0.0)).max() < 1e-12
    assert system.elastic_energy(q) < 1e-24


def test_positive_actuator_pushes_the_points_apart():
    forces = [
        spring("ground", [0, 0, 0], "m", [2, 2, 2], stiffness=0, actuator={"expression": "5"})
    ]
    system = build(forces)
    s = system.slots["m"]
    q_m = applied(system, system.q0, system.qd0, 0.0)[s.offset : s.offset + 3]
    assert np.allclose(q_m, 5 * np.array([1, 1, 1]) / math.sqrt(3), rtol=1e-14)


def test_zero_length_spring_is_linear_and_safe_at_zero_length():
    forces = [spring("ground", [2, 2, 2], "m", [2, 2, 2], stiffness=7, damping=3, free_length=0)]
    system = build(forces)
    s = system.slots["m"]
    q, qd = system.q0.copy(), np.zeros(system.n)
    qd[s.offset : s.offset + 3] = [1, 0, 0]
    assert np.all(np.isfinite(applied(system, q, qd, 0.0)))
    assert np.all(np.isfinite(dense(element_jacobians(system, q, qd, 0.0)[0])))
    q[s.offset : s.offset + 3] += [0.3, -0.1, 0.2]
    qd[:] = 0
    assert np.allclose(
        applied(system, q, qd, 0.0)[s.offset : s.offset + 3], -7 * np.array([0.3, -0.1, 0.2])
    )


def test_body_frame_force_rotates_with_the_body():
    body = {"name": "a", "mass": 1, "inertia": GENERAL_INERTIA, "position": [0, 0, 0]}
    point = [0.5, 0.2, 0.1]
    system = build(
        [
            {
                "name": "F",
                "type": "force",
                "body": "a",
                "point": point,
                "vector": [1, 0, 0],
                "frame": "body",
            }
        ],
        bodies=[body],
        joints=[],
    )
    reference = build(
        [{"name": "F", "type": "force", "body": "a", "point": point, "vector": [0, 1, 0]}],
        bodies=[body],
        joints=[],
    )
    q = system.q0.copy()
    q[3:7] = [math.cos(math.pi / 4), 0, 0, math.sin(math.pi / 4)]  # 90° about z
    qd = np.zeros(7)
    q_body = applied(system, q, qd, 0.0)
    assert np.allclose(q_body[:3], [0, 1, 0], atol=1e-15)
    assert np.allclose(q_body, applied(reference, q, qd, 0.0), atol=1e-15)
    # the moment of the force about the centre of mass: r × f with r the rotated point
    r = rotation_matrix(q[3:7]) @ point
    omega = np.array([0.3, -0.7, 1.1])
    assert q_body @ body_rotation(system, q, "a", omega) == pytest.approx(
        np.cross(r, [0, 1, 0]) @ omega, rel=1e-13
    )


@pytest.mark.parametrize("frame", ["global", "body"])
def test_torque_does_work_n_dot_omega(frame):
    n = np.array([0.5, -1.0, 2.0])
    system = build(
        [{"name": "T", "type": "torque", "body": "a", "vector": list(n), "frame": frame}]
    )
    rng = np.random.default_rng(12)
    q, _ = random_state(system, rng)
    p = q[3:7]
    n_global = rotate(p[None], n[None])[0] if frame == "body" else n
    q_applied = applied(system, q, np.zeros(system.n), 0.0)
    assert np.abs(q_applied[:3]).max() == 0.0
    omega = rng.normal(size=3)
    assert q_applied @ body_rotation(system, q, "a", omega) == pytest.approx(
        n_global @ omega, rel=1e-12
    )


def test_joint_torque_and_force_signs():
    """A positive joint torque turns body 2 positively about the axis; a positive joint
    force pushes body 2 along +axis."""
    axis = np.array([0.2, 0.3, 1.0]) / np.linalg.norm([0.2, 0.3, 1.0])
    torque = build([{"name": "JT", "type": "joint_torque", "joint": "Rg", "function": 4}])
    q = torque.q0
    assert applied(torque, q, q * 0, 0.0) @ body_rotation(torque, q, "a", axis) == pytest.approx(
        4.0, rel=1e-12
    )
    force = build([{"name": "JF", "type": "joint_force", "joint": "Pg", "function": 3}])
    s = force.slots["b"]
    slide = np.zeros(force.n)
    slide[s.offset : s.offset + 3] = np.array([0.3, 1, 0]) / np.linalg.norm([0.3, 1, 0])
    assert applied(force, force.q0, force.qd0, 0.0) @ slide == pytest.approx(3.0, rel=1e-12)


@pytest.mark.parametrize("free_angle", [0.0, 0.5])
def test_rotational_spring_angle_is_continuous_over_turns(free_angle):
    k = 2.0
    bodies = [{"name": "a", "mass": 1, "inertia": GENERAL_INERTIA, "position": [0, 0, 0]}]
    joints = [
        {
            "name": "R",
            "type": "revolute",
            "body1": "ground",
            "body2": "a",
            "point": [0, 0, 0],
            "axis": [0, 0, 1],
        }
    ]
    forces = [
        {
            "name": "RS",
            "type": "rotational_spring_damper",
            "joint": "R",
            "stiffness": k,
            "free_angle": free_angle,
        }
    ]
    system = build(forces, bodies=bodies, joints=joints)
    zaxis = np.array([0.0, 0.0, 1.0])
    path = np.concatenate(
        [np.arange(0, 6 * math.pi + 1, 0.3), np.arange(6 * math.pi + 1, -4 * math.pi, -0.45)]
    )
    for theta in path:
        q = system.q0.copy()
        q[3:7] = [math.cos(theta / 2), 0, 0, math.sin(theta / 2)]
        tau = applied(system, q, np.zeros(7), 0.0) @ body_rotation(system, q, "a", zaxis)
        assert tau == pytest.approx(-k * (theta - free_angle), rel=1e-9, abs=1e-9)
        assert system.elastic_energy(q) == pytest.approx(
            0.5 * k * (theta - free_angle) ** 2, rel=1e-9, abs=1e-12
        )
    assert system.joint_angles(system.marker_state(q)) == pytest.approx([path[-1]])
    system.force_set.reset()
    q = system.q0.copy()
    assert system.joint_angles(system.marker_state(q)) == pytest.approx([0.0])


# ---- errors -------------------------------------------------------------------------------
def test_body_frame_force_on_a_point_mass_is_refused():
    forces = [
        {
            "name": "Fm",
            "type": "force",
            "body": "m",
            "point": [2, 2, 2],
            "vector": [1, 0, 0],
            "frame": "body",
        }
    ]
    with pytest.raises(ModelError) as info:
        build(forces)
    assert 'forces[0] "Fm"' in str(info.value)
    assert info.value.field == "frame"
