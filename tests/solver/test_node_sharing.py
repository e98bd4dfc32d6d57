"""Coordinates shared between natural-coordinate rigid bodies and flexible-body nodes, and the
node coordinates eliminated as combinations of a rigid body's (``share``; García Vallejo
(2006) §4.2–4.5), in space: layout, equations, exact derivatives, energies and motion
against the same model with its joints as equations."""

from __future__ import annotations

import numpy as np
import pytest

from solver import simulate
from solver.analysis.outputs.state import ReferenceState, without_sharing
from solver.mechanics.system import MultibodySystem
from solver.model import model_from_data

E, RHO = 2e8, 2000.0


def beam(name, a, b, kind="ancf_beam3d", elements=2, damping=0.0):
    return {
        "name": name,
        "type": kind,
        "points": [a, b],
        "elements": elements,
        "material": {"E": E, "nu": 0, "density": RHO, "damping": damping},
        "section": {"shape": "rectangle", "width": 0.02, "height": 0.02},
    }


def arm(share=True, kind="ancf_beam3d", damping=0.0, **solver):
    """A rigid arm (natural coordinates) pinned to ground about y at the origin, with a beam
    hanging from its tip (J1) and one from its middle (J2), both by spherical joints. The
    tip becomes a basic point of the arm; the middle is collinear with the pivot and the tip,
    so the second beam's top node is the combination ½ r_O + ½ r_tip (eliminated)."""
    sh = {"share": True} if share else {}
    return model_from_data(
        {
            "biela": 1,
            "gravity": [0, 0, -9.81],
            "bodies": [
                {
                    "name": "arm",
                    "mass": 2.0,
                    "inertia": [1e-3, 0.17, 0.17],
                    "position": [0.5, 0, 0],
                },
                beam("b1", [1, 0, 0], [1, 0, -0.6], kind, damping=damping),
                beam("b2", [0.5, 0, 0], [0.5, 0, -0.5], kind, damping=damping),
            ],
            "joints": [
                {
                    "name": "pivot",
                    "type": "revolute",
                    "body1": "ground",
                    "body2": "arm",
                    "point": [0, 0, 0],
                    "axis": [0, 1, 0],
                },
                {
                    "name": "J1",
                    "type": "spherical",
                    "body1": "arm",
                    "body2": "b1",
                    "point": [1, 0, 0],
                    **sh,
                },
                {
                    "name": "J2",
                    "type": "spherical",
                    "body1": "b2",
                    "body2": "arm",
                    "point": [0.5, 0, 0],
                    **sh,
                },
            ],
            "solver": {"coordinates": "natural", **solver},
        }
    )


def flexible_kind(system):
    return next(k for k in system.kinds if k.kind.startswith("ancf"))


def state(system, seed=0, scale=0.05):
    """An arbitrary (not assembled) state near the initial one."""
    rng = np.random.default_rng(seed)
    q = system.q0 + scale * rng.standard_normal(system.n)
    qd = rng.standard_normal(system.n)
    return q, qd


@pytest.mark.parametrize("kind", ["ancf_beam3d", "ancf_cable"])
def test_a_node_becomes_a_basic_point_or_a_combination(kind):
    shared, joints = MultibodySystem(arm(kind=kind)), MultibodySystem(arm(False, kind))
    assert joints.n - shared.n == 6  # two node positions
    fk = flexible_kind(shared)
    _ = fk.n
    assert fk.eliminated.count == 3  # b2's top node: ½ r_O + ½ r_tip
    b1 = fk.beam(shared.slots["b1"])
    b2 = fk.beam(shared.slots["b2"])
    natural = shared.slots["arm"].owner
    tip = natural._col(natural.infos[0].entities[1])  # the arm's entities: pivot, tip, …
    assert list(b1.node_cols(0, 0)) == [tip, tip + 1, tip + 2]
    assert (b2.node_cols(0, 0) >= shared.n).all()
    rows = {k: len(v) for k, v in shared.item_rows.items()}
    assert rows["joint:J1"] == rows["joint:J2"] == 0
    assert len(joints.item_rows["joint:J1"]) == len(joints.item_rows["joint:J2"]) == 3
    assert shared.m == joints.m - 6
    # the eliminated node is the combination at t = 0 and carries the arm's velocity
    x = fk._ext(shared.q0)
    assert x[b2.node_cols(0, 0)] == pytest.approx([0.5, 0.0, 0.0], abs=1e-14)
    pivot_free = np.zeros(shared.n)
    pivot_free[tip : tip + 3] = [0.0, 0.0, -2.0]  # the tip moving down at 2 m/s
    assert fk._ext_rates(pivot_free)[b2.node_cols(0, 0)] == pytest.approx([0, 0, -1.0])


@pytest.mark.parametrize("formulation", ["augmented_lagrangian", "index3_newmark"])
def test_spatial_shared_nodes_move_as_joints(formulation):
    runs = {}
    for share in (True, False):
        r = simulate(arm(share, formulation=formulation, dt=1e-3, t_end=0.15, output_dt=0.01))
        assert r.status == "ok", r.message
        cols = [c for c in r.columns if c.split(".")[0] in ("arm", "b1", "b2")]
        runs[share] = r.data[:, [r.columns.index(c) for c in cols]]
    # the same discrete equations: equal to the Newton tolerance (the motion is ~1 m, 4 m/s)
    assert np.abs(runs[True] - runs[False]).max() < 1e-7
    assert np.abs(runs[True]).max() > 1.0


def test_null_space_runs_the_same_motion():
    runs = []
    for share in (True, False):
        r = simulate(arm(share, formulation="null_space", dt=1e-3, t_end=0.1, output_dt=0.02))
        assert r.status == "ok", r.message
        cols = [c for c in r.columns if c.split(".")[0] in ("arm", "b1", "b2")]
        runs.append(r.data[:, [r.columns.index(c) for c in cols]])
    assert np.abs(runs[0] - runs[1]).max() < 1e-7


def _jacobian_fd(f, x, h=1e-7):
    cols = []
    for i in range(len(x)):
        e = np.zeros_like(x)
        e[i] = h
        cols.append((f(x + e) - f(x - e)) / (2 * h))
    return np.array(cols).T


def _dense(a):
    return a.toarray() if hasattr(a, "toarray") else np.asarray(a)


def test_derivatives_with_eliminated_coordinates_match_finite_differences():
    """Φ_q, ∂Q/∂q, ∂Q/∂q̇ (damped elements), ∂(Φ_qᵀλ)/∂q and ∂(Φ_q q̇)/∂q of a system whose
    elements read eliminated coordinates (Tᵀ·T of the element matrices, expanded markers)."""
    s = MultibodySystem(arm(damping=1e-3))
    q, qd = state(s)
    c = s.constraints(q, qd, 0.0)
    num = _jacobian_fd(lambda x: s.constraints(x, qd, 0.0).phi, q)
    assert np.allclose(_dense(c.phi_q), num, atol=1e-6 * max(1.0, np.abs(num).max()))
    kq, kqd = s.force_jacobians(q, qd, 0.0)
    num_q = _jacobian_fd(lambda x: s.forces(x, qd, 0.0), q, 1e-7)
    num_qd = _jacobian_fd(lambda v: s.forces(q, v, 0.0), qd, 1e-5)
    scale = np.abs(num_q).max()
    assert np.abs(_dense(kq) - num_q).max() < 1e-6 * scale
    assert np.abs(_dense(kqd) - num_qd).max() < 1e-6 * max(np.abs(num_qd).max(), 1e-12)
    assert np.abs(num_qd).max() > 0  # the damping terms are there
    lam = np.random.default_rng(3).standard_normal(s.m)
    k2, d2 = s.constraint_second_order(q, qd, lam, 0.0)
    num_k = _jacobian_fd(lambda x: _dense(s.constraints(x, qd, 0.0).phi_q).T @ lam, q)
    num_d = _jacobian_fd(lambda x: _dense(s.constraints(x, qd, 0.0).phi_q) @ qd, q)
    assert np.allclose(_dense(k2), num_k, atol=1e-6 * max(1.0, np.abs(num_k).max()))
    assert np.allclose(_dense(d2), num_d, atol=1e-6 * max(1.0, np.abs(num_d).max()))


def test_energies_equal_those_of_the_reference_point_system():
    """The shared system's mass (Σ Bᵀ M B with the eliminated blocks folded), gravity and
    elastic energy at a state equal those of the system with joints as equations in
    reference-point coordinates at the same physical state (a state of a run: the rigid
    body's entities move rigidly)."""
    model = arm(damping=0.0, dt=1e-3, t_end=0.1, output_dt=0.1)
    run = simulate(model, stream=True)
    frame = list(run)[-1]
    s = run.system
    q, qd = frame.q, frame.qd
    ref = ReferenceState(model, s)
    rq, rqd = ref.from_frame(q, qd)
    r = ref.system
    assert s.kinetic_energy(q, qd) == pytest.approx(r.kinetic_energy(rq, rqd), rel=1e-12)
    # the potential energy is defined up to a constant: compare its change
    q0 = s.q0
    rq0, _ = ref.from_frame(q0, np.zeros(s.n))
    assert s.gravitational_energy(q) - s.gravitational_energy(q0) == pytest.approx(
        r.gravitational_energy(rq) - r.gravitational_energy(rq0), rel=1e-9
    )
    assert s.elastic_energy(q) == pytest.approx(r.elastic_energy(rq), rel=1e-12)
    assert s.elastic_energy(q) > 0


def test_reactions_of_a_shared_joint_equal_those_of_the_joint_as_equations():
    reactions = {}
    for share in (True, False):
        model = arm(share, formulation="augmented_lagrangian", dt=1e-3, t_end=0.05, output_dt=0.01)
        data = without_sharing(model) if not share else model
        from solver.model import description as d

        data.requests.append(d.ResultRequest("reactions", ("J1", "J2")))
        r = simulate(data)
        assert r.status == "ok", r.message
        reactions[share] = np.hstack([np.hstack(r.reaction(j)) for j in ("J1", "J2")])
    scale = np.abs(reactions[False]).max()
    assert scale > 1.0  # the beams' weight at least
    assert np.abs(reactions[True] - reactions[False]).max() < 1e-6 * scale


def hinge(share, **solver):
    """A rigid arm turning about z at the origin (a joint torque) with a Yakoub beam hinged
    at its tip about z, which is the node's section axis r_z."""
    joint = {
        "name": "H",
        "type": "revolute",
        "body1": "arm",
        "body2": "b",
        "point": [1, 0, 0],
        "axis": [0, 0, 1],
    }
    if share:
        joint["share"] = share
    return model_from_data(
        {
            "biela": 1,
            "gravity": [0, 0, 0],
            "bodies": [
                {
                    "name": "arm",
                    "mass": 2.0,
                    "inertia": [1e-3, 0.17, 0.17],
                    "position": [0.5, 0, 0],
                },
                beam("b", [1, 0, 0], [1.6, 0, 0]),
            ],
            "joints": [
                {
                    "name": "pivot",
                    "type": "revolute",
                    "body1": "ground",
                    "body2": "arm",
                    "point": [0, 0, 0],
                    "axis": [0, 0, 1],
                },
                joint,
            ],
            "forces": [
                {"name": "motor", "type": "joint_torque", "joint": "pivot", "function": 1.0}
            ],
            "solver": {
                "coordinates": "natural",
                "dt": 1e-3,
                "t_end": 0.3,
                "output_dt": 0.01,
                **solver,
            },
        }
    )


def test_sharing_a_revolute_axis_with_the_node_section_slope():
    """``["point", "axis"]``: the arm's unit vector along z is the node's r_z, so the hinge
    keeps no equation (the thesis's Table 4.1, 0*) and r_z keeps unit length: the section does
    not deform along it. Nothing loads the section along z in this motion in the plane, so
    the motion is the hinge's as equations (measured 8e-11)."""
    shared, point_only = MultibodySystem(hinge(["point", "axis"])), MultibodySystem(hinge(True))
    assert len(shared.item_rows["joint:H"]) == 0
    assert len(point_only.item_rows["joint:H"]) == 2
    assert point_only.n - shared.n == 3
    run = simulate(hinge(["point", "axis"]), stream=True)
    frames = list(run)
    assert run.result.status == "ok", run.result.message
    fk = flexible_kind(run.system)
    b = fk.beam(run.system.slots["b"])
    for f in frames:
        r_z = fk._ext(f.q)[b.node_cols(0, 3)]
        assert np.linalg.norm(r_z) == pytest.approx(1.0, abs=1e-9)
        assert r_z == pytest.approx([0, 0, 1], abs=1e-9)  # the arm turns about z
    equations = simulate(hinge(None))
    assert equations.status == "ok", equations.message
    cols = [c for c in equations.columns if c.split(".")[0] in ("arm", "b")]
    a = run.result.data[:, [run.result.columns.index(c) for c in cols]]
    e = equations.data[:, [equations.columns.index(c) for c in cols]]
    assert np.abs(a).max() > 0.5
    assert np.abs(a - e).max() < 1e-8 * np.abs(e).max()


def welded(share):
    """The arm pinned about y, with a Yakoub beam welded to its tip along x (``fixed``):
    sharing makes the node's position a basic point of the arm, its r_y the arm's fixed y
    axis (a constant: the arm turns about it), its r_z a unit vector of the arm and its r_x
    a combination (along the arm, which its pivot and tip already span)."""
    weld = {"name": "W", "type": "fixed", "body1": "arm", "body2": "b", "point": [1, 0, 0]}
    if share:
        weld["share"] = True
    return model_from_data(
        {
            "biela": 1,
            "gravity": [0, 0, -9.81],
            "bodies": [
                {
                    "name": "arm",
                    "mass": 2.0,
                    "inertia": [1e-3, 0.17, 0.17],
                    "position": [0.5, 0, 0],
                },
                beam("b", [1, 0, 0], [1.8, 0, 0]),
            ],
            "joints": [
                {
                    "name": "pivot",
                    "type": "revolute",
                    "body1": "ground",
                    "body2": "arm",
                    "point": [0, 0, 0],
                    "axis": [0, 1, 0],
                },
                weld,
            ],
            "solver": {"coordinates": "natural", "dt": 1e-3, "t_end": 0.15, "output_dt": 0.01},
        }
    )


def test_a_welded_node_shares_its_point_and_slopes():
    """The continuum clamp as equations fixes all nine products of the node's slopes with the
    arm's axes, i.e. the slopes themselves: the same motion as sharing them."""
    shared, equations = MultibodySystem(welded(True)), MultibodySystem(welded(False))
    assert equations.n - shared.n == 12  # the node: r and three slopes
    assert len(shared.item_rows["joint:W"]) == 0
    fk = flexible_kind(shared)
    b = fk.beam(shared.slots["b"])
    _ = fk.n
    assert fk.eliminated.count == 6  # r_x (a combination) and r_y (the fixed axis)
    assert fk._ext(shared.q0)[b.node_cols(0, 2)] == pytest.approx([0, 1, 0])
    runs = []
    for model in (welded(True), welded(False)):
        r = simulate(model)
        assert r.status == "ok", r.message
        cols = [c for c in r.columns if c.split(".")[0] in ("arm", "b")]
        runs.append(r.data[:, [r.columns.index(c) for c in cols]])
    assert np.abs(runs[0]).max() > 1.0
    assert np.abs(runs[0] - runs[1]).max() < 1e-7


def test_a_universal_joint_keeps_its_angle_equation():
    """Table 4.1 of the thesis: a universal joint with a shared point keeps one equation, the
    angle of its two axes; the motion is the joint's as equations."""
    runs, rows = [], []
    for share in (True, False):
        data = {
            "biela": 1,
            "gravity": [0, 0, -9.81],
            "bodies": [
                {
                    "name": "arm",
                    "mass": 2.0,
                    "inertia": [1e-3, 0.17, 0.17],
                    "position": [0.5, 0, 0],
                },
                beam("b", [1, 0, 0], [1, 0, -0.6]),
            ],
            "joints": [
                {
                    "name": "pivot",
                    "type": "revolute",
                    "body1": "ground",
                    "body2": "arm",
                    "point": [0, 0, 0],
                    "axis": [0, 1, 0],
                },
                {
                    "name": "U",
                    "type": "universal",
                    "body1": "arm",
                    "body2": "b",
                    "point": [1, 0, 0],
                    "axis1": [1, 0, 0],
                    "axis2": [0, 1, 0],
                    **({"share": True} if share else {}),
                },  # fmt: skip
            ],
            "solver": {"coordinates": "natural", "dt": 1e-3, "t_end": 0.15, "output_dt": 0.01},
        }
        model = model_from_data(data)
        rows.append(len(MultibodySystem(model).item_rows["joint:U"]))
        r = simulate(model)
        assert r.status == "ok", r.message
        cols = [c for c in r.columns if c.split(".")[0] in ("arm", "b")]
        runs.append(r.data[:, [r.columns.index(c) for c in cols]])
    assert rows == [1, 4]
    assert np.abs(runs[0]).max() > 1.0
    assert np.abs(runs[0] - runs[1]).max() < 1e-7
