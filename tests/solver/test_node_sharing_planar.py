"""Shared and eliminated node coordinates in the plane (``natural_planar`` rigid bodies and
``ancf_beam2d`` nodes): elimination of a pin that is not a basic point, static clamps that
share the slope, a beam carried rigidly through a kinematic analysis, exact derivatives."""

from __future__ import annotations

import numpy as np
import pytest

from solver import simulate
from solver.mechanics.system import MultibodySystem
from solver.model import model_from_data
from tests.solver.test_node_sharing import _dense, _jacobian_fd

E, RHO, W, H = 2e11, 7800.0, 0.02, 0.01
EI = E * H * W**3 / 12.0  # in-plane bending: the width is the in-plane depth


def blade(name, a, b, elements=2, damping=0.0, E=E):
    return {
        "name": name,
        "type": "ancf_beam2d",
        "points": [a, b],
        "elements": elements,
        "material": {"E": E, "nu": 0, "density": RHO, "damping": damping},
        "section": {"shape": "rectangle", "width": W, "height": H},
    }


def rotor(share=True, damping=0.0, **solver):
    """A rigid hub bar from (0, 0) to (0.3, 0), pinned to ground at its middle and turned by
    a joint torque, with a flexible blade pinned at each end. The ground pin is a fixed
    basic point of the hub, the pin at (0.3, 0) its second one; the pin at the origin is
    then the combination 2 r_O − r_P: that blade's root node is eliminated."""
    sh = {"share": True} if share else {}
    return model_from_data(
        {
            "biela": 1,
            "gravity": [0, 0, 0],
            "bodies": [
                {
                    "name": "hub",
                    "mass": 1.0,
                    "inertia": [1e-4, 0.0075, 0.0075],
                    "position": [0.15, 0, 0],
                },
                blade("A", [0.3, 0, 0], [1.3, 0, 0], damping=damping, E=2e9),
                blade("B", [0, 0, 0], [-1, 0, 0], damping=damping, E=2e9),
            ],
            "joints": [
                {
                    "name": "pivot",
                    "type": "revolute",
                    "body1": "ground",
                    "body2": "hub",
                    "point": [0.15, 0, 0],
                    "axis": [0, 0, 1],
                },
                {
                    "name": "JA",
                    "type": "revolute",
                    "body1": "hub",
                    "body2": "A",
                    "point": [0.3, 0, 0],
                    "axis": [0, 0, 1],
                    **sh,
                },
                {
                    "name": "JB",
                    "type": "revolute",
                    "body1": "B",
                    "body2": "hub",
                    "point": [0, 0, 0],
                    "axis": [0, 0, 1],
                    **sh,
                },
            ],
            "forces": [
                {"name": "motor", "type": "joint_torque", "joint": "pivot", "function": 2.0}
            ],
            "solver": {"coordinates": "natural_planar", **solver},
        }
    )


def test_a_third_pin_of_a_planar_body_is_eliminated():
    shared, joints = MultibodySystem(rotor()), MultibodySystem(rotor(False))
    assert joints.n - shared.n == 4  # two node positions of two coordinates
    fk = next(k for k in shared.kinds if k.kind == "ancf_beam2d")
    _ = fk.n
    assert fk.eliminated.count == 2
    b = fk.beam(shared.slots["B"])
    assert (b.node_cols(0, 0) >= shared.n).all()
    assert fk._ext(shared.q0)[b.node_cols(0, 0)] == pytest.approx([0.0, 0.0], abs=1e-15)
    # only the hub's rigid-body equation (the pivot is a fixed point): no joint rows
    assert shared.m == 1


@pytest.mark.parametrize("formulation", ["augmented_lagrangian", "index3_newmark"])
def test_rotor_with_an_eliminated_pin_moves_as_joints(formulation):
    runs = {}
    for share in (True, False):
        r = simulate(rotor(share, formulation=formulation, dt=1e-3, t_end=0.3, output_dt=0.02))
        assert r.status == "ok", r.message
        cols = [c for c in r.columns if c.split(".")[0] in ("hub", "A", "B")]
        runs[share] = r.data[:, [r.columns.index(c) for c in cols]]
    assert np.abs(runs[True]).max() > 1.0
    assert np.abs(runs[True] - runs[False]).max() < 1e-7


def test_beams_with_eliminated_coordinates_are_evaluated_by_the_kernels():
    """The blade whose root node is eliminated is assembled by the system kernels: its
    elements read ``x = [q; D q + c]`` and bring their forces back with ``Tᵀ``: the damping
    forces (the only ones that depend on q̇: the hub in natural coordinates has none, the
    torque is constant) are the elements' own at ``(x, ẋ)`` folded in Python, and the
    strain energy is the elements' at x."""
    s = MultibodySystem(rotor(damping=1e-3))
    fk = next(k for k in s.kinds if k.kind == "ancf_beam2d")
    b = fk.beam(s.slots["B"])
    assert b.eliminated
    rng = np.random.default_rng(4)
    q = s.q0 + 0.02 * rng.standard_normal(s.n)
    qd = rng.standard_normal(s.n)
    x, xd = fk._ext(q), fk._ext_rates(qd)
    size = fk.eliminated.size
    damping, energy = np.zeros(size), 0.0
    for beam in fk.beams:
        e = beam.element_arrays(x)
        own = beam.element.internal(e, beam.element_arrays(xd)).force
        own = own - beam.element.internal(e, 0.0 * beam.element_arrays(xd)).force
        damping += np.bincount(beam.cols.ravel(), weights=own.ravel(), minlength=size)
        energy += beam.element.energy(e).sum()
    want = fk.eliminated.vector(damping)
    got = s.forces(q, qd, 0.0) - s.forces(q, 0.0 * qd, 0.0)
    assert np.abs(damping[s.n :]).max() > 1e-3 * np.abs(damping).max()  # eliminated: some
    assert np.abs(got - want).max() < 1e-9 * np.abs(want).max()
    assert s.elastic_energy(q) == pytest.approx(energy, rel=1e-12) and energy > 0.0


def test_planar_derivatives_with_eliminated_coordinates_match_finite_differences():
    s = MultibodySystem(rotor(damping=1e-3))
    rng = np.random.default_rng(0)
    q = s.q0 + 0.02 * rng.standard_normal(s.n)
    qd = rng.standard_normal(s.n)
    num = _jacobian_fd(lambda x: s.constraints(x, qd, 0.0).phi, q)
    assert np.allclose(_dense(s.constraints(q, qd, 0.0).phi_q), num, atol=1e-7)
    kq, kqd = s.force_jacobians(q, qd, 0.0)
    num_q = _jacobian_fd(lambda x: s.forces(x, qd, 0.0), q, 1e-7)
    num_qd = _jacobian_fd(lambda v: s.forces(q, v, 0.0), qd, 1e-5)
    assert np.abs(_dense(kq) - num_q).max() < 1e-6 * np.abs(num_q).max()
    assert np.abs(_dense(kqd) - num_qd).max() < 1e-6 * np.abs(num_qd).max()
    lam = rng.standard_normal(s.m)
    k2, d2 = s.constraint_second_order(q, qd, lam, 0.0)
    num_k = _jacobian_fd(lambda x: _dense(s.constraints(x, qd, 0.0).phi_q).T @ lam, q)
    num_d = _jacobian_fd(lambda x: _dense(s.constraints(x, qd, 0.0).phi_q) @ qd, q)
    assert np.allclose(_dense(k2), num_k, atol=1e-6)
    assert np.allclose(_dense(d2), num_d, atol=1e-6)


def cantilever(share, load=-10.0, a=0.2):
    """An Euler–Bernoulli cantilever (1 m, 4 elements) clamped to ground, with a rigid bar of
    length ``a`` welded to its tip (``fixed``) and loaded at its far end."""
    joint = {"name": "weld", "type": "fixed", "body1": "beam", "body2": "tip", "point": [1, 0, 0]}
    if share is not None:
        joint["share"] = share
    return model_from_data(
        {
            "biela": 1,
            "gravity": [0, 0, 0],
            "bodies": [
                blade("beam", [0, 0, 0], [1, 0, 0], elements=4),
                {
                    "name": "tip",
                    "mass": 1.0,
                    "inertia": [1e-5, 0.003, 0.003],
                    "position": [1 + a / 2, 0, 0],
                },
            ],
            "joints": [
                {
                    "name": "clamp",
                    "type": "fixed",
                    "body1": "ground",
                    "body2": "beam",
                    "point": [0, 0, 0],
                },
                joint,
            ],
            "forces": [
                {
                    "name": "P",
                    "type": "force",
                    "body": "tip",
                    "point": [1 + a, 0, 0],
                    "vector": [0, load, 0],
                }
            ],
            "outputs": [{"name": "end", "body": "tip", "point": [1 + a, 0, 0]}],
            "solver": {
                "coordinates": "natural_planar",
                "analysis": "static",
                "t_end": 1.0,
                "dt": 1.0,
            },
        }
    )


@pytest.mark.parametrize("share", [True, ["point"], ["slopes"], None])
def test_static_weld_sharing_point_and_slope(share):
    """Beam theory: the welded bar's end deflects P L³/(3EI) + P a L²/(2EI) + a θ with
    θ = P L²/(2EI) + P a L/EI (the cubic elements are exact for end loads; the load is small:
    geometric nonlinearity < 1e-4). Sharing the slope fixes its length (|r_x| = 1), which the
    weld as equations leaves free: no difference at this load beyond 1e-7."""
    p, a, length = 10.0, 0.2, 1.0
    system = MultibodySystem(cantilever(share))
    r = simulate(cantilever(share))
    assert r.status == "ok", r.message
    deflection = -r.column("end.y")[-1]
    theta = p * length**2 / (2 * EI) + p * a * length / EI
    want = p * length**3 / (3 * EI) + p * a * length**2 / (2 * EI) + a * theta
    assert deflection == pytest.approx(want, rel=1e-4)
    reference = -simulate(cantilever(None)).column("end.y")[-1]
    assert deflection == pytest.approx(reference, rel=1e-7)
    rows = len(system.item_rows["joint:weld"])
    assert (
        rows
        == {True: 0, ("point",): 1, ("slopes",): 3, None: 6}[
            tuple(share) if isinstance(share, list) else share
        ]
    )


def carried_beam():
    """A crank pinned to ground, turned by θ = t², carrying a beam welded to it at both ends
    (``fixed`` with ``share``): the beam's coordinates are all the crank's (its first node a
    basic point, the rest combinations), so the mechanism is fully driven."""
    return model_from_data(
        {
            "biela": 1,
            "gravity": [0, -9.81, 0],
            "bodies": [
                {
                    "name": "crank",
                    "mass": 1.0,
                    "inertia": [1e-4, 0.03, 0.03],
                    "position": [0.3, 0, 0],
                },
                blade("beam", [0.1, 0, 0], [0.5, 0, 0], elements=1),
            ],
            "joints": [
                {
                    "name": "pivot",
                    "type": "revolute",
                    "body1": "ground",
                    "body2": "crank",
                    "point": [0, 0, 0],
                    "axis": [0, 0, 1],
                },
                {
                    "name": "W0",
                    "type": "fixed",
                    "body1": "crank",
                    "body2": "beam",
                    "point": [0.1, 0, 0],
                    "share": True,
                },
                {
                    "name": "W1",
                    "type": "fixed",
                    "body1": "crank",
                    "body2": "beam",
                    "point": [0.5, 0, 0],
                    "share": True,
                },
            ],
            "drivers": [{"name": "motor", "joint": "pivot", "function": {"polynomial": [0, 0, 1]}}],
            "solver": {
                "coordinates": "natural_planar",
                "analysis": "kinematic",
                "dt": 0.01,
                "t_end": 1.0,
            },
        }
    )


def test_kinematic_analysis_of_a_beam_carried_rigidly():
    """Kinetic energy ½ I_O θ̇² with I_O = I_crank + m_c d² + ρA (b³ − a³)/3 (the consistent
    mass matrix is exact for rigid motion), potential energy of both centres of mass, no
    strain, and the driver's work (inverse dynamics, its power integrated by the trapezoidal
    rule: an O(Δt²) error, 4× smaller per halving) converging to their sum."""
    system = MultibodySystem(carried_beam())
    assert system.n == 2  # the crank's second basic point; everything else is fixed or eliminated
    r = simulate(carried_beam())
    assert r.status == "ok", r.message
    t = r.t
    rho_a = RHO * W * H
    inertia = 0.03 + 1.0 * 0.3**2 + rho_a * (0.5**3 - 0.1**3) / 3
    assert r.column("energy.kinetic") == pytest.approx(
        0.5 * inertia * (2 * t) ** 2, rel=1e-9, abs=1e-12
    )
    moment = 1.0 * 0.3 + rho_a * 0.4 * 0.3  # Σ m x_G along the crank
    assert r.column("energy.potential") - r.column("energy.potential")[0] == pytest.approx(
        9.81 * moment * np.sin(t**2), rel=1e-9, abs=1e-12
    )
    assert np.abs(r.column("energy.elastic")).max() < 1e-12
    exact = 0.5 * inertia * 2.0**2 + 9.81 * moment * np.sin(1.0)
    gaps = [
        abs(simulate(carried_beam(), dt=dt).column("energy.work")[-1] - exact)
        for dt in (0.01, 0.005)
    ]
    assert gaps[0] < 1e-4 * exact
    assert gaps[1] < gaps[0] / 3.5
