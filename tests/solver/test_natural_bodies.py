"""Natural coordinates: entity sets, point and vector maps, the constant mass
matrix against ∫CᵀC dm, gravity, energies, the CSV state, sharing, and the constraint
derivatives against finite differences."""

from __future__ import annotations

import numpy as np
import pytest

from solver import load_model
from solver.generators.slider_crank import slider_crank_model
from solver.mechanics.bodies.natural import NaturalBodies
from solver.mechanics.bodies.natural.frame import Frame, second_moment
from solver.mechanics.rotations import rotation_matrix
from solver.mechanics.system import MultibodySystem
from solver.model import model_from_data
from tests.solver.test_constraints import every_joint_model, fd_jacobian

RNG = np.random.default_rng(11)


# ---- helpers --------------------------------------------------------------------------------
def point_cloud(n=40, seed=3):
    """Masses and body-frame points of an irregular body; its mass, centre of mass and
    full inertia tensor about the centre of mass (body axes)."""
    rng = np.random.default_rng(seed)
    m = rng.uniform(0.2, 1.0, n)
    x = rng.normal(size=(n, 3)) * [0.6, 0.3, 0.2] + [0.3, -0.1, 0.2]
    x = x @ np.linalg.qr(rng.normal(size=(3, 3)))[0]  # principal axes not the body axes
    mass = m.sum()
    g = m @ x / mass
    rho = x - g
    inertia = np.einsum("p,pk,pk->", m, rho, rho) * np.eye(3) - np.einsum(
        "p,pi,pj->ij", m, rho, rho
    )
    return m, rho, mass, inertia  # rho relative to the centre of mass


def coefficients(points, is_point, x, point: bool):
    """``a`` with ``Σ a_i e_i = x`` and ``Σ_{points} a_i = 1`` (a point) or 0 (a direction):
    the point map solved directly, independently of ``Frame``."""
    mat = np.vstack([np.array(points).T, np.asarray(is_point, float)])
    return np.linalg.solve(mat, np.append(x, 1.0 if point else 0.0))


def assert_close(a, b, tol):
    a, b = np.asarray(a, float), np.asarray(b, float)
    assert np.abs(a - b).max() <= tol * max(1.0, np.abs(b).max()), np.abs(a - b).max()


def natural(model, share=True):
    NaturalBodies.sharing = share
    try:
        return MultibodySystem(model, "natural")
    finally:
        NaturalBodies.sharing = True


# ---- frame: point map and mass matrix -----------------------------------------------------
ENTITY_SETS = {
    "1 point + 3 vectors": [True, False, False, False],
    "2 points + 2 vectors": [True, True, False, False],
    "3 points + 1 vector": [True, True, True, False],
    "4 points": [True, True, True, True],
}


@pytest.mark.parametrize("name", ENTITY_SETS)
def test_mass_matrix_is_the_integral_of_ct_c(name):
    """Off-centre basic points, non-orthogonal unit vectors, full inertia tensor."""
    flags = ENTITY_SETS[name]
    m_p, rho, mass, inertia = point_cloud()
    assert np.abs(inertia - np.diag(np.diag(inertia))).max() > 1e-2  # a full tensor
    local = []
    for is_point in flags:
        v = RNG.normal(size=3)
        local.append(0.5 * v + [0.4, 0.1, -0.2] if is_point else v / np.linalg.norm(v))
    frame = Frame(flags, local)
    z = frame.mass_coefficients(mass, inertia)
    want = np.zeros((4, 4))
    for mp, x in zip(m_p, rho, strict=True):
        a = coefficients(local, flags, x, True)
        np.testing.assert_allclose(frame.point_coefficients(x), a, atol=1e-10)
        want += mp * np.outer(a, a)
    assert_close(z, want, 1e-11)
    # directions too
    v = RNG.normal(size=3)
    np.testing.assert_allclose(
        frame.vector_coefficients(v), coefficients(local, flags, v, False), atol=1e-10
    )
    # M = Z ⊗ I₃ equals Σ m_p C_pᵀ C_p over the twelve coordinates
    mm = np.kron(z, np.eye(3))
    want12 = sum(
        mp * (lambda c: c.T @ c)(np.kron(coefficients(local, flags, x, True)[None], np.eye(3)))
        for mp, x in zip(m_p, rho, strict=True)
    )
    assert_close(mm, want12, 1e-11)


def test_mass_matrix_closed_form_of_two_points_two_vectors():
    """García de Jalón and Bayo (1994): r_i, r_j, u, v with a = m c_G and Z = X̄⁻¹ J̄_i X̄⁻ᵀ."""
    _, _, mass, inertia = point_cloud(seed=5)
    ri, rj = np.array([0.3, -0.2, 0.1]), np.array([1.1, 0.4, -0.3])
    u, v = np.array([0.2, 0.9, 0.3]), np.array([-0.1, 0.2, 1.0])
    u, v = u / np.linalg.norm(u), v / np.linalg.norm(v)
    frame = Frame([True, True, False, False], [ri, rj, u, v])
    xbar = np.column_stack([rj - ri, u, v])
    c_g = np.linalg.solve(xbar, -ri)  # centre of mass (origin) relative to r_i
    a = mass * c_g
    j_i = second_moment(inertia) + mass * np.outer(-ri, -ri)
    zz = np.linalg.solve(xbar, np.linalg.solve(xbar, j_i).T)  # X̄⁻¹ J̄_i X̄⁻ᵀ
    blocks = np.array(
        [
            [mass - 2 * a[0] + zz[0, 0], a[0] - zz[0, 0], a[1] - zz[0, 1], a[2] - zz[0, 2]],
            [0, zz[0, 0], zz[0, 1], zz[0, 2]],
            [0, 0, zz[1, 1], zz[1, 2]],
            [0, 0, 0, zz[2, 2]],
        ]
    )
    blocks = np.triu(blocks) + np.triu(blocks, 1).T
    assert_close(frame.mass_coefficients(mass, inertia), blocks, 1e-12)


# ---- the kind in a system -------------------------------------------------------------------
def cloud_model():
    """Body ``B`` (full inertia, centre of mass away from its joints) held by spherical
    joints to two free bodies, so that its basic points are the joint points."""
    _, _, mass, inertia = point_cloud()
    p = np.array([0.3, 0.8, -0.2, 0.4])
    orientation = (p / np.linalg.norm(p)).tolist()

    def body(name, pos, **extra):
        return {
            "name": name,
            "mass": 1.3,
            "inertia": [0.2, 0.3, 0.25],
            "position": pos,
            "velocity": [0.1, -0.2, 0.3],
            "angular_velocity": [0.0, 0.0, 0.0],
            **extra,
        }

    bodies = [
        {
            "name": "B",
            "mass": mass,
            "inertia": inertia.tolist(),
            "position": [0.5, 0.2, 1.0],
            "orientation": orientation,
            "velocity": [0.1, -0.2, 0.3],
            "angular_velocity": [0.0, 0.0, 0.0],
        },
        body("X", [1.5, 0.0, 1.0]),
        body("Y", [0.0, 1.5, 1.0]),
    ]
    joints = [
        {"name": "jx", "type": "spherical", "body1": "B", "body2": "X", "point": [1.0, 0.1, 1.2]},
        {"name": "jy", "type": "spherical", "body1": "Y", "body2": "B", "point": [0.2, 1.0, 0.9]},
    ]
    return {
        "biela": 1,
        "name": "cloud",
        "gravity": [0, 0, -9.81],
        "bodies": bodies,
        "joints": joints,
    }


@pytest.mark.parametrize("share", [True, False])
def test_system_mass_matrix_and_gravity_against_point_clouds(share):
    model = model_from_data(cloud_model())
    s = natural(model, share)
    kind = s.kinds[0]
    info = {i.name: i for i in kind.infos}
    if share:
        assert sum(kind.layout.entities[e].is_point for e in info["B"].entities) == 2
    m_p, rho, _, _ = point_cloud()  # the cloud behind B's mass and inertia
    m_want = np.zeros((s.n, s.n))
    q_want = np.zeros(s.n)
    inf = info["B"]
    ents = [kind.layout.entities[e] for e in inf.entities]
    values = [e.value for e in ents]
    flags = [e.is_point for e in ents]
    for mp, x in zip(m_p, rho, strict=True):
        a = coefficients(values, flags, inf.position0 + inf.rotation0 @ x, True)
        for i, ei in zip(a, inf.entities, strict=True):
            ci = kind._col(ei)
            if ci < 0:
                continue
            q_want[ci : ci + 3] += mp * i * s.gravity
            for j, ej in zip(a, inf.entities, strict=True):
                cj = kind._col(ej)
                if cj >= 0:
                    m_want[ci : ci + 3, cj : cj + 3] += mp * i * j * np.eye(3)
    # the system's matrix minus the other two bodies (standard inertia) is B's integral
    m_sys = np.asarray(s.mass(s.q0))
    m_other = np.zeros_like(m_sys)
    g_other = np.zeros(s.n)
    for name in ("X", "Y"):
        inf = info[name]
        z = inf.frame.mass_coefficients(inf.mass, inf.inertia)
        for i, ei in enumerate(inf.entities):
            ci = kind._col(ei)
            if ci < 0:
                continue
            g_other[ci : ci + 3] += (
                inf.mass * inf.frame.point_coefficients(np.zeros(3))[i] * s.gravity
            )
            for j, ej in enumerate(inf.entities):
                cj = kind._col(ej)
                if cj >= 0:
                    m_other[ci : ci + 3, cj : cj + 3] += z[i, j] * np.eye(3)
    assert_close(m_sys - m_other, m_want, 1e-11)
    assert_close(s.gravity_forces() - g_other, q_want, 1e-11)
    # constant
    q = s.q0 + 0.3 * RNG.normal(size=s.n)
    np.testing.assert_array_equal(np.asarray(s.mass(q)), m_sys)
    assert s.mass_times_jacobian(q, RNG.normal(size=s.n)).max() == 0.0


@pytest.mark.parametrize("share", [True, False])
def test_markers_follow_a_rigid_motion(share):
    """Every body-fixed point and direction is the linear map of the moved entities."""
    model = model_from_data(cloud_model())
    s = natural(model, share)
    kind = s.kinds[0]
    rot = rotation_matrix(np.array([0.8, -0.2, 0.5, 0.1]) / np.linalg.norm([0.8, -0.2, 0.5, 0.1]))
    shift = np.array([0.3, -1.0, 2.0])
    q = s.q0.copy()
    for ent in kind.layout.entities:
        assert not ent.fixed
        c = kind.offset + ent.col
        q[c : c + 3] = rot @ ent.value + (shift if ent.is_point else 0.0)
    ms = s.marker_state(q)
    for slot in s.slots.values():
        p = RNG.normal(size=3) + slot.position0
        v = RNG.normal(size=3)
        # markers created after freezing are not possible: evaluate the coefficients
        info = kind.infos[slot.index]
        e = kind.entity_values(info, q)
        assert_close(info.frame.point_coefficients(info.local_point(p)) @ e, rot @ p + shift, 1e-12)
        assert_close(info.frame.vector_coefficients(info.local_vector(v)) @ e, rot @ v, 1e-12)
    # the joint markers of the system coincide pairwise after the motion
    c = s.constraints(q)
    assert np.abs(c.phi).max() < 1e-12
    assert ms.u.shape[0] == len(s.markers)


@pytest.mark.parametrize("name", ["four_bar_spatial", "heavy_top", "double_four_bar", "bricard"])
def test_state_energy_and_dof_match_reference_point_coordinates(name):
    model = load_model(f"examples/{name}.json")
    ref = MultibodySystem(model, "reference_point")
    for share in (True, False):
        nat = natural(model, share)
        assert list(nat.slots) == list(ref.slots)
        a, b = ref.body_state(ref.q0, ref.qd0), nat.body_state(nat.q0, nat.qd0)
        for body in a:
            assert nat.state_fields(body) == ref.state_fields(body)
            np.testing.assert_allclose(b[body], a[body], atol=1e-12, err_msg=body)
        assert nat.kinetic_energy(nat.q0, nat.qd0) == pytest.approx(
            ref.kinetic_energy(ref.q0, ref.qd0), rel=1e-12
        )
        assert nat.gravitational_energy(nat.q0) == pytest.approx(
            ref.gravitational_energy(ref.q0), rel=1e-12, abs=1e-12
        )
        assert np.abs(nat.constraints(nat.q0, nat.qd0, 0.0).phi).max() < 1e-12


def test_default_set_is_one_point_and_three_vectors():
    model = model_from_data(cloud_model())
    s = natural(model, share=False)
    kind = s.kinds[0]
    assert s.n == 36 and kind.layout.shared == {}
    for info in kind.infos:
        flags = [kind.layout.entities[e].is_point for e in info.entities]
        assert flags == [True, False, False, False]
        np.testing.assert_allclose(kind.layout.entities[info.entities[0]].value, info.position0)
    assert len(s.item_rows["rigid:B"]) == 6
    assert len(s.item_rows["joint:jx"]) == 3


def test_sharing_of_the_slider_crank():
    """Saura et al.'s layout: the crank holds B (shared by every rod) and one vector; each dyad the
    slider point C_k and two rod vectors; the sliders' vectors are fixed (prismatic to
    ground); joints realised by sharing keep only their remaining rows."""
    for k in (1, 4):
        s = natural(model_from_data(slider_crank_model(k)))
        kind = s.kinds[0]
        assert (s.n, s.m) == (6 + 9 * k, 5 + 9 * k)
        assert len(s.item_rows["rigid:crank"]) == 5
        assert len(s.item_rows["joint:crank_pivot"]) == 0
        b_entities = {kind.infos[s.slots[f"rod{i}"].index].entities[0] for i in range(1, k + 1)}
        assert b_entities == {kind.infos[s.slots["crank"].index].entities[1]}
        for i in range(1, k + 1):
            assert len(s.item_rows[f"rigid:rod{i}"]) == 6
            assert len(s.item_rows[f"rigid:slider{i}"]) == 0
            assert len(s.item_rows[f"joint:B{i}"]) == 0
            assert len(s.item_rows[f"joint:C{i}"]) == 1  # the universal joint's angle
            assert len(s.item_rows[f"joint:S{i}"]) == 2  # point on the line
            slider = kind.infos[s.slots[f"slider{i}"].index]
            assert [kind.layout.entities[e].fixed for e in slider.entities] == [
                False,
                True,
                True,
                True,
            ]


@pytest.mark.parametrize("share", [True, False])
def test_every_joint_jacobian_and_gamma_match_finite_differences(share):
    model = model_from_data(every_joint_model())
    s = natural(model, share)
    q = s.q0 + 0.05 * RNG.normal(size=s.n)
    qd, qdd = RNG.normal(size=s.n), RNG.normal(size=s.n)
    t = 0.41
    c = s.constraints(q, qd, t)
    jac = np.asarray(c.phi_q.toarray() if hasattr(c.phi_q, "toarray") else c.phi_q)
    assert_close(jac, fd_jacobian(lambda x: s.constraints(x, qd, t).phi, q), 1e-6)

    def phi_along(tau):
        return s.constraints(q + qd * tau + 0.5 * qdd * tau**2, None, t + tau).phi

    h = 1e-4
    phidd = (phi_along(h) - 2 * phi_along(0.0) + phi_along(-h)) / h**2
    assert_close(phidd, jac @ qdd - c.gamma, 1e-5)


# ---- body-axes forces and torques; inconsistent initial velocities --------------------------
def loads_model(forces=True):
    inertia = [[0.2, 0.01, -0.02], [0.01, 0.3, 0.03], [-0.02, 0.03, 0.4]]
    data = {
        "biela": 1,
        "name": "loads",
        "gravity": [0, 0, -9.81],
        "bodies": [
            {
                "name": "A",
                "mass": 1.5,
                "inertia": inertia,
                "position": [0.3, 0.1, 0.2],
                "orientation": {"axis": [1, 2, 3], "angle": 0.7},
                "velocity": [0.1, 0.2, -0.1],
                "angular_velocity": [0.5, -1.0, 2.0],
            },
            # at rest although joined to the spinning A: inconsistent on purpose
            {"name": "B", "mass": 0.8, "inertia": [0.1, 0.2, 0.15], "position": [1.0, 0.0, 0.0]},
        ],
        "joints": [
            {"name": "s", "type": "spherical", "body1": "ground", "body2": "A", "point": [0, 0, 0]},
            {
                "name": "r",
                "type": "revolute",
                "body1": "A",
                "body2": "B",
                "point": [0.6, 0.0, 0.1],
                "axis": [0, 1, 1],
            },
        ],
    }
    if forces:
        data["forces"] = [
            {
                "name": "F",
                "type": "force",
                "body": "A",
                "point": [0.5, 0.2, 0.0],
                "vector": [1, {"expression": "sin(3*t)"}, 2],
                "frame": "body",
            },
            {
                "name": "T",
                "type": "torque",
                "body": "B",
                "vector": [0.3, {"expression": "t"}, -0.2],
                "frame": "body",
            },
            {
                "name": "G",
                "type": "torque",
                "body": "A",
                "vector": [0.1, 0.4, {"expression": "cos(t)"}],
                "frame": "global",
            },
        ]
    return model_from_data(data)


def test_body_axes_forces_and_torques_jacobian_and_power():
    s = MultibodySystem(loads_model(), "natural")
    q = s.q0 + 0.05 * RNG.normal(size=s.n)
    qd = RNG.normal(size=s.n)
    kq, _ = s.force_jacobians(q, qd, 0.3)
    kq = np.asarray(kq.toarray() if hasattr(kq, "toarray") else kq)
    assert_close(kq, fd_jacobian(lambda x: s.forces(x, qd, 0.3), q), 1e-7)
    bare = MultibodySystem(loads_model(forces=False), "natural")  # the same coordinates
    loads = s.forces(q, qd, 0.3) - bare.forces(q, qd, 0.3)
    assert s.nonconservative_power(q, qd, 0.3) == pytest.approx(loads @ qd, rel=1e-12)


# a free body (no gravity) spun up about its body z axis: a body-axes and a global torque
# about that axis, a body-axes force at the centre of mass along body x
FREE_AXIS, FREE_ANGLE = np.array([1.0, 2.0, 3.0]) / np.sqrt(14.0), 0.7
FREE_MASS, FREE_INERTIA = 2.0, (0.2, 0.3, 0.4)
TAU_BODY, TAU_GLOBAL, FORCE = 0.3, 0.5, 1.5  # N·m about body z, N·m, N along body x


def free_body_model(coordinates="natural"):
    from scipy.spatial.transform import Rotation

    ez = Rotation.from_rotvec(FREE_ANGLE * FREE_AXIS).as_matrix()[:, 2]
    return model_from_data(
        {
            "biela": 1,
            "name": "free body",
            "gravity": [0, 0, 0],
            "solver": {"coordinates": coordinates},
            "bodies": [
                {
                    "name": "B",
                    "mass": FREE_MASS,
                    "inertia": list(FREE_INERTIA),
                    "position": [0.3, -0.2, 0.1],
                    "orientation": {"axis": list(FREE_AXIS), "angle": FREE_ANGLE},
                }
            ],
            "forces": [
                {"name": "Tb", "type": "torque", "body": "B", "frame": "body",
                 "vector": [0, 0, TAU_BODY]},
                {"name": "Tg", "type": "torque", "body": "B", "frame": "global",
                 "vector": list(TAU_GLOBAL * ez)},
                {"name": "F", "type": "force", "body": "B", "frame": "body",
                 "point": [0.3, -0.2, 0.1], "vector": [FORCE, 0, 0]},
            ],
        }
    )  # fmt: skip


def _rigid_variations(system, dtheta, delta):
    """``δq`` of a virtual rotation ``δθ`` about the origin and of a translation ``δ`` of
    every free entity (q at a rigid configuration)."""
    kind = next(k for k in system.kinds if isinstance(k, NaturalBodies))
    rotated, moved = np.zeros(system.n), np.zeros(system.n)
    for ent in kind.layout.entities:
        if not ent.fixed:
            cols = kind.offset + ent.col + np.arange(3)
            rotated[cols] = np.cross(dtheta, ent.value)
            moved[cols] = delta if ent.is_point else 0.0
    return rotated, moved


def test_body_axes_loads_do_the_virtual_work_of_a_rigid_motion():
    """At a rigid configuration, Q·δq of a virtual rotation δθ about the origin and of a
    translation δ is the work of the loads on rigid bodies: (n + r_P × f)·δθ and f·δ."""
    from scipy.spatial.transform import Rotation

    rng = np.random.default_rng(7)
    t = 0.3
    # A (spherical joint at the origin: its point there is fixed) and B (body axes global)
    s = MultibodySystem(loads_model(), "natural")
    q = s.q0
    bare = MultibodySystem(loads_model(False), "natural")
    loads = s.forces(q, 0 * q, t) - bare.forces(q, 0 * q, t)
    rot = Rotation.from_rotvec(0.7 * np.array([1, 2, 3]) / np.sqrt(14)).as_matrix()
    f = rot @ np.array([1, np.sin(3 * t), 2])  # F on A, at (0.5, 0.2, 0)
    moment = np.array([0.1, 0.4, np.cos(t)]) + np.cross([0.5, 0.2, 0.0], f) + [0.3, t, -0.2]
    for _ in range(3):
        dtheta = rng.normal(size=3)
        rotated, _ = _rigid_variations(s, dtheta, np.zeros(3))
        assert loads @ rotated == pytest.approx(moment @ dtheta, rel=1e-12)
    # the free body: rotations and translations
    s = MultibodySystem(free_body_model())
    loads = s.forces(s.q0, 0 * s.q0, t)
    rot = Rotation.from_rotvec(FREE_ANGLE * FREE_AXIS).as_matrix()
    f = FORCE * rot[:, 0]
    moment = (TAU_BODY + TAU_GLOBAL) * rot[:, 2] + np.cross([0.3, -0.2, 0.1], f)
    for _ in range(3):
        dtheta, delta = rng.normal(size=3), rng.normal(size=3)
        rotated, moved = _rigid_variations(s, dtheta, delta)
        assert loads @ rotated == pytest.approx(moment @ dtheta, rel=1e-12)
        assert loads @ moved == pytest.approx(f @ delta, rel=1e-12)


def test_free_body_loads_jacobian_and_power():
    """The free body's loads away from a rigid configuration: ∂Q/∂q against finite
    differences of Q, no ∂Q/∂q̇, the power Q·q̇."""
    s = MultibodySystem(free_body_model())
    rng = np.random.default_rng(8)
    q = s.q0 + 0.05 * rng.normal(size=s.n)
    qd = rng.normal(size=s.n)
    kq, kqd = s.force_jacobians(q, qd, 0.2)
    dense = lambda m: np.asarray(m.toarray() if hasattr(m, "toarray") else m)  # noqa: E731
    assert_close(dense(kq), fd_jacobian(lambda x: s.forces(x, qd, 0.2), q), 1e-7)
    assert np.abs(dense(kqd)).max() < 1e-12
    assert np.abs(dense(kq)).max() > 0.1
    power = s.forces(q, qd, 0.2) @ qd
    assert s.nonconservative_power(q, qd, 0.2) == pytest.approx(power, rel=1e-12)


@pytest.mark.parametrize("formulation", ["augmented_lagrangian", "null_space"])
def test_body_axes_torques_and_force_spin_up_a_free_body(formulation):
    """Torques about a principal axis: ω = (τ_b + τ_g) t / I_zz about it; the body-axes
    force turns with the body, v = F/m ∫ A(t) e_x dt; the work done is the kinetic energy."""
    from scipy.integrate import quad
    from scipy.spatial.transform import Rotation

    from solver import simulate

    model = free_body_model()
    t_end = 0.6
    r = simulate(model, formulation=formulation, dt=1e-3, t_end=t_end)
    assert r.status == "ok"
    rot = Rotation.from_rotvec(FREE_ANGLE * FREE_AXIS).as_matrix()
    alpha = (TAU_BODY + TAU_GLOBAL) / FREE_INERTIA[2]
    omega = np.column_stack([r.column(f"B.w{c}") for c in "xyz"])
    np.testing.assert_allclose(omega, np.outer(alpha * r.t, rot[:, 2]), atol=1e-6 * alpha)

    def direction(t, k):  # A(t) e_x, A(t) = A0 R_z(½ α t²)
        theta = 0.5 * alpha * t * t
        return rot[k, 0] * np.cos(theta) + rot[k, 1] * np.sin(theta)

    v = FORCE / FREE_MASS * np.array([quad(direction, 0.0, t_end, args=(k,))[0] for k in range(3)])
    got = np.array([r.column(f"B.v{c}")[-1] for c in "xyz"])
    np.testing.assert_allclose(got, v, atol=1e-4 * np.abs(v).max())
    work = r.column("energy.work")[-1]
    assert work == pytest.approx(r.column("energy.kinetic")[-1], rel=1e-4)
    assert work > 0.1


@pytest.mark.parametrize("forces", [True, False])
def test_loads_and_inconsistent_velocities_give_the_reference_trajectory(forces):
    """Body-axes loads in both representations; initial velocities the joints violate are
    projected alike (each body's kinetic energy of deviation, see ``Layout``)."""
    from solver import simulate

    model = loads_model(forces)
    tight = {"integrator": "DOP853", "rtol": 1e-11, "atol": 1e-13}
    runs = [
        simulate(
            model,
            coordinates=c,
            formulation="lagrange_baumgarte",
            dt=1e-3,
            t_end=0.2,
            parameters=tight,
        )
        for c in ("reference_point", "natural")
    ]
    a, b = runs
    assert a.status == b.status == "ok"
    cols = [c for c in a.columns if c.rsplit(".", 1)[-1] in ("x", "y", "z", "wx", "wy", "wz")]
    assert max(np.abs(a.column(c) - b.column(c)).max() for c in cols) < 1e-8
    assert b.max_energy_drift() < 1e-5
