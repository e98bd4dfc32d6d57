"""``pulley_contact`` (García Vallejo (2006) §7.3): the normal force and the trilinear friction law
at Gauss points of a belt's centreline, their Jacobians against finite differences in both
regimes of the law, the energy and power bookkeeping, and the resultants."""

from __future__ import annotations

import numpy as np
import pytest

from solver.mechanics.bodies.ancf.pulley_kernels import normal_forces
from solver.mechanics.bodies.ancf.shapes import gauss, hermite
from solver.mechanics.rotations import pdot_from_omega
from solver.mechanics.system import MultibodySystem
from solver.model import model_from_data

R1, R2, X = 0.08, 0.06, 0.2
K, C, MU, SLOPE = 1e7, 10.0, 1.2, 1e5


def drive(friction=True, damping=C, elements=12, strain=0.003) -> dict:
    """A closed belt on a free rigid pulley (the driver) and a ground pulley."""
    contact = {"stiffness": K, "damping": damping}
    if friction:
        contact["friction"] = {"mu": MU, "slope": SLOPE}
    return {
        "biela": 1,
        "gravity": [0, 0, 0],
        "bodies": [
            {"name": "pulley", "mass": 2.0, "inertia": [0.01, 0.01, 0.02], "position": [-X, 0, 0]},
            {
                "name": "belt",
                "type": "ancf_beam2d",
                "element": "belt",
                "elements": elements,
                "loop": {
                    "circles": [
                        {"center": [-X, 0, 0], "radius": R1},
                        {"center": [X, 0, 0], "radius": R2},
                    ],
                    "strain": strain,
                },
                "material": {"E": 1e8, "nu": 0.3, "density": 1000},
                "section": {"shape": "rectangle", "width": 0.01, "height": 0.01},
                "belt": {"bending_factor": 0.01},
            },
        ],
        "forces": [
            {
                "name": "on_pulley",
                "type": "pulley_contact",
                "belt": "belt",
                "pulley": {"body": "pulley", "center": [-X, 0, 0], "radius": R1},
                **contact,
            },
            {
                "name": "on_ground",
                "type": "pulley_contact",
                "belt": "belt",
                "pulley": {"body": "ground", "center": [X, 0, 0], "radius": R2},
                **contact,
            },
        ],
        "outputs": [{"contact_forces": True}],
    }


def moving_state(system, slip: float, seed: int = 0):
    """The belt running round its path at the driver's surface speed, the driver turning
    (and drifting), plus random slips of size ``slip`` (m/s) and a small deformation."""
    rng = np.random.default_rng(seed)
    q, qd = system.q0.copy(), system.qd0.copy()
    kind = system.slots["belt"].owner
    beam = kind.beams[0]
    omega = 6.0
    for k, frame in enumerate(beam.node_frames):
        cols = beam.node_cols(k, 0)
        qd[cols] = omega * R1 * frame[:2, 0] + slip * rng.standard_normal(2)
    own = slice(beam.offset, beam.offset + beam.size)
    q[own] += 2e-6 * rng.standard_normal(beam.size)
    o = system.slots["pulley"].offset
    q[o : o + 3] += [1e-6, -2e-6, 0.0]  # the pulley pressed a little off its place
    qd[o : o + 3] = [0.01, -0.02, 0.0]
    qd[o + 3 : o + 7] = pdot_from_omega(q[o + 3 : o + 7], np.array([0.0, 0.0, omega]))
    return q, qd


def fd_jacobians(system, q, qd, t=0.0, h=1e-8):
    jq = np.zeros((system.n, system.n))
    jv = np.zeros((system.n, system.n))
    for j in range(system.n):
        dx = np.zeros(system.n)
        dx[j] = h
        jq[:, j] = (system.forces(q + dx, qd, t) - system.forces(q - dx, qd, t)) / (2 * h)
        jv[:, j] = (system.forces(q, qd + dx, t) - system.forces(q, qd - dx, t)) / (2 * h)
    return jq, jv


def dense(m):
    return m.toarray() if hasattr(m, "toarray") else np.asarray(m)


def belt_parts(system, q):
    """The belt's own elastic forces (n) and strain energy (J) at ``q``."""
    beam = system.slots["belt"].owner.beams[0]
    E = beam.element_arrays(q)
    force = beam.element.internal(E, None).force
    total = np.bincount(beam.cols.ravel(), weights=force.ravel(), minlength=system.n)
    return total, float(beam.element.energy(E).sum())


def contact_forces(system, q, qd):
    """The pulley contacts' generalised forces: the system's without the belt's own."""
    return system.forces(q, qd, 0.0, inertial=False) - belt_parts(system, q)[0]


def contact_energy(system, q):
    """``Σ W k_p d²/2``: the system's elastic energy without the belt's strain energy."""
    return system.elastic_energy(q) - belt_parts(system, q)[1]


@pytest.mark.parametrize("slip", [2e-3, 0.5], ids=["mixed stick and slip", "gross slip"])
def test_jacobians_against_finite_differences(slip):
    system = MultibodySystem(model_from_data(drive()))
    q, qd = moving_state(system, slip)
    law = system.force_set.pulley_contacts._law(system.marker_state(q, qd))
    act = law["act"]
    saturated = law["saturated"][act]
    assert len(act) > 10
    if slip < 0.01:  # both branches of the trilinear law are exercised
        assert 0 < saturated.sum() < len(act)
    else:
        assert saturated.mean() > 0.8
    kq, kqd = (dense(m) for m in system.force_jacobians(q, qd, 0.0))
    jq, jv = fd_jacobians(system, q, qd)
    assert np.abs(kq - jq).max() < 1e-6 * np.abs(jq).max()
    assert np.abs(kqd - jv).max() < 1e-6 * np.abs(jv).max()


def test_elastic_part_is_the_gradient_of_the_contact_energy():
    """Frictionless, without the rate term: ``Q = −∂/∂q Σ W k_p d²/2`` (the pulley's
    coordinates included), and the energy is that sum."""
    system = MultibodySystem(model_from_data(drive(friction=False, damping=0.0)))
    q, qd = moving_state(system, 0.0)
    fs = system.force_set

    def energy(x):
        return contact_energy(system, x)

    grad = np.array([(energy(q + h) - energy(q - h)) / 2e-9 for h in np.eye(system.n) * 1e-9])
    force = contact_forces(system, q, qd)
    # the pulley's Euler parameters p: the normal force passes through the centre (no
    # moment), and J_pᵀ f along p itself is taken by the normalisation constraint
    o = system.slots["pulley"].offset
    p = q[o + 3 : o + 7] / np.linalg.norm(q[o + 3 : o + 7])
    fp = force[o + 3 : o + 7]
    assert np.abs(fp - (fp @ p) * p).max() < 1e-9 * np.abs(grad).max()
    force[o + 3 : o + 7] = 0.0
    assert np.abs(force + grad).max() < 1e-6 * np.abs(grad).max()
    law = fs.pulley_contacts._law(system.marker_state(q, qd))
    depth = np.maximum(law["depth"], 0)
    w = fs.pulley_contacts.weight
    assert energy(q) == pytest.approx(0.5 * K * np.sum(w * depth**2), rel=1e-12)


def test_static_kernel_equals_the_force_at_rest():
    """The kernel of the initial equilibrium is the force element at rest."""
    system = MultibodySystem(model_from_data(drive()))
    q, _ = moving_state(system, 0.0)
    qd = np.zeros(system.n)
    beam = system.slots["belt"].owner.beams[0]
    el = beam.element
    xi, w = gauss(5)
    shape = el._line_functions(hermite(xi, el.length))
    E = beam.element_arrays(q)
    total = np.zeros(system.n)
    for centre, radius in (((-X, 0), R1), ((X, 0), R2)):
        qc, _ = normal_forces(shape, w * el.length, E, np.array(centre), radius, K)
        total += np.bincount(beam.cols.ravel(), weights=qc.ravel(), minlength=system.n)
    o = system.slots["pulley"].offset
    q[o : o + 3] = [-X, 0, 0]  # the kernel's pulley sits at its initial centre
    force = contact_forces(system, q, qd)
    own = slice(beam.offset, beam.offset + beam.size)
    assert np.allclose(force[own], total[own], rtol=0, atol=1e-9 * np.abs(total).max())


def test_trilinear_law_and_normal_force_at_each_point():
    """At a point in contact: f_n = k_p d + c_p ḋ along n, and f_t = −v_s v_t below μ f_n,
    −μ f_n sign(v_t) above, with v_t the slip along t = Ĩ n relative to the pulley's surface."""
    system = MultibodySystem(model_from_data(drive()))
    pc = system.force_set.pulley_contacts
    for slip in (1e-3, 0.3):
        q, qd = moving_state(system, slip, seed=3)
        ms = system.marker_state(q, qd)
        law = pc._law(ms)
        act = law["act"]
        u, ud = ms.u[pc.idx[act]], ms.udot[pc.idx[act]]
        gap = (u[:, 0] - u[:, 1])[:, :2]
        rho = np.linalg.norm(gap, axis=1)
        n = gap / rho[:, None]
        t = np.column_stack([-n[:, 1], n[:, 0]])
        depth = pc.radius[act] - rho
        rate = -np.einsum("ij,ij->i", n, (ud[:, 0] - ud[:, 1])[:, :2])
        fn = np.maximum(K * depth + C * rate, 0.0)
        assert np.allclose(law["normal"][act], fn, rtol=1e-12, atol=1e-9)
        # the surface velocity of the pulley at P = o + R n: ȯ + ω × R n
        omega = system.body_state(q, qd)["pulley"][12]
        on_pulley = pc.names_index(act, "on_pulley")
        vp = ud[:, 1, :2] + np.where(on_pulley[:, None], 1.0, 0.0) * (
            omega * pc.radius[act, None] * t
        )
        vt = np.einsum("ij,ij->i", t, ud[:, 0, :2] - vp)
        assert np.allclose(law["slip"][act], vt, rtol=1e-9, atol=1e-12)
        want = -np.clip(SLOPE * vt, -MU * fn, MU * fn)
        assert np.allclose(law["friction"][act], want, rtol=1e-9, atol=1e-9)


def test_resultants_and_power_balance():
    """The summary's torque is −R ∫ f_t dx and it is the generalised force on the pulley's
    turning; the force elements' work is the loss of contact energy plus the
    non-conservative power: ``Q·q̇ = −dV_c/dt + P`` with ``P ≤ 0``."""
    system = MultibodySystem(model_from_data(drive()))
    q, qd = moving_state(system, 0.01, seed=5)
    fs = system.force_set
    ms = system.marker_state(q, qd)
    summary = fs.pulley_contacts.summary(ms)
    assert summary["on_pulley"]["torque"] == pytest.approx(-R1 * summary["on_pulley"]["friction"])
    assert summary["on_pulley"]["contact_length"] > 0.5 * np.pi * R1
    assert summary["on_pulley"]["slip_length"] <= summary["on_pulley"]["contact_length"]
    force = contact_forces(system, q, qd)
    # a pure turn of the pulley about its centre (its centre of mass): virtual power = torque
    o = system.slots["pulley"].offset
    turn = np.zeros(system.n)
    turn[o + 3 : o + 7] = pdot_from_omega(q[o + 3 : o + 7], np.array([0.0, 0.0, 1.0]))
    assert force @ turn == pytest.approx(summary["on_pulley"]["torque"], rel=1e-9)
    power = system.nonconservative_power(q, qd, 0.0)
    assert power < 0.0
    assert power == pytest.approx(float(fs.pulley_contacts._law(ms)["power"].sum()), rel=1e-12)
    h = 1e-7
    rate = (contact_energy(system, q + h * qd) - contact_energy(system, q - h * qd)) / (2 * h)
    assert force @ qd == pytest.approx(-rate + power, rel=1e-6)
