"""Flexible bodies in the multibody system: layout, markers at nodes, joints on nodes,
assembled forces and Jacobians, energies, CSV node fields and the centreline."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from solver import check, simulate
from solver.mechanics.bodies.ancf import AncfBodies
from solver.mechanics.system import MultibodySystem
from solver.model import ModelError, model_from_data

MATERIAL = {"E": 2e9, "nu": 0.0, "density": 1200.0}
RECT = {"shape": "rectangle", "width": 0.02, "height": 0.01}
TYPES = ("ancf_beam2d", "ancf_cable", "ancf_beam3d")


def beam(kind="ancf_beam3d", elements=3, points=((0, 0, 0), (1.2, 0, 0)), **extra):
    body = {
        "name": "b",
        "type": kind,
        "points": [list(points[0]), list(points[1])],
        "elements": elements,
        "material": dict(MATERIAL),
        "section": dict(RECT),
    }
    body.update(extra)
    return body


def model(bodies, joints=(), forces=(), gravity=(0, 0, 0), **solver):
    return model_from_data(
        {
            "biela": 1,
            "gravity": list(gravity),
            "bodies": list(bodies),
            "joints": list(joints),
            "forces": list(forces),
            "solver": solver or {},
        }
    )


def fd(fun, x, h=1e-7):
    return np.array([(fun(x + h * e) - fun(x - h * e)) / (2 * h) for e in np.eye(len(x))]).T


def perturbed(system, seed=0, scale=0.02):
    rng = np.random.default_rng(seed)
    return system.q0 + scale * rng.standard_normal(system.n), rng.standard_normal(system.n)


# ---- layout -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "kind,per_node", [("ancf_beam2d", 4), ("ancf_cable", 6), ("ancf_beam3d", 12)]
)
def test_layout_and_initial_state(kind, per_node):
    pts = ((0, 0, 0), (1.2, 0.5, 0)) if kind == "ancf_beam2d" else ((0, 0, 0), (1.2, 0.5, 0.3))
    s = MultibodySystem(model([beam(kind, 3, pts, velocity=[0.1, 0.2, 0.0])]))
    assert s.n == 4 * per_node
    slot = s.slots["b"]
    kindobj = slot.owner
    assert isinstance(kindobj, AncfBodies) and slot.size == s.n
    nodes = kindobj.node_positions(s.q0, slot)
    assert np.allclose(nodes, np.linspace(pts[0], pts[1], 4))
    state = kindobj.state(slot, s.q0, s.qd0).reshape(4, 9)
    assert np.allclose(state[:, 3:5], [0.1, 0.2])
    t = np.subtract(pts[1], pts[0]) / np.linalg.norm(np.subtract(pts[1], pts[0]))
    assert np.allclose(state[:, 6:], t)
    assert len(s.state_fields("b")) == 4 * 9
    assert s.state_fields("b")[:9] == tuple(
        f"n0.{f}" for f in ("x", "y", "z", "vx", "vy", "vz", "tx", "ty", "tz")
    )


def test_planar_element_option():
    body = model([beam("ancf_beam2d", 2)]).bodies[0]
    body.element = "continuum"
    m = model([])
    m.bodies.append(body)
    s = MultibodySystem(m)
    assert s.n == 3 * 6
    body.element = "shell"
    with pytest.raises(ModelError, match="not an element of ancf_beam2d"):
        MultibodySystem(m)


def test_element_field_in_the_format():
    """``element`` picks the planar element; both give the same small-load cantilever
    (slender beam: shear negligible) and the choice survives a save/load round trip."""
    from solver.analysis.statics import static_equilibrium
    from solver.mechanics.bodies.ancf.kind import ELEMENTS
    from solver.model import description as d
    from solver.model.writer import write_model

    assert {k: tuple(v) for k, v in ELEMENTS.items()} == d.FLEXIBLE_ELEMENTS
    tips = {}
    for element in ("euler_bernoulli", "continuum", None):
        body = beam("ancf_beam2d", 4, ((0, 0, 0), (1.0, 0, 0)))
        if element:
            body["element"] = element
        clamp = {"name": "C", "type": "fixed", "body1": "ground", "body2": "b", "point": [0, 0, 0]}
        load = {
            "name": "P",
            "type": "force",
            "body": "b",
            "point": [1, 0, 0],
            "vector": [0, -0.01, 0],
        }
        m = model([body], [clamp], [load])
        assert m.bodies[0].element == element
        assert model_from_data(write_model(m)).bodies[0].element == element
        s = MultibodySystem(m)
        assert s.n == 5 * (6 if element == "continuum" else 4)
        q = static_equilibrium(s).q
        tips[element] = q[s.slots["b"].owner.beam(s.slots["b"]).node_cols(4, 0)][1]
    ei = 2e9 * 0.01 * 0.02**3 / 12  # in-plane bending: about z, width along y
    exact = -0.01 / (3 * ei)  # P L³ / 3EI
    assert tips[None] == tips["euler_bernoulli"]
    assert tips["euler_bernoulli"] == pytest.approx(exact, rel=1e-3)
    assert tips["continuum"] == pytest.approx(exact, rel=2e-2)
    assert tips["continuum"] != tips["euler_bernoulli"]
    for kind, bad in (("ancf_beam2d", "cable"), ("ancf_cable", "continuum"), ("ancf_beam3d", "x")):
        with pytest.raises(ModelError, match="element") as err:
            model([{**beam(kind), "element": bad}])
        assert 'bodies[0] "b"' in str(err.value) and "is not one of" in str(err.value)


def test_mass_gravity_and_energies():
    for kind in TYPES:
        s = MultibodySystem(model([beam(kind, 4)], gravity=(0, -9.81, 0)))
        mass = 1200 * 0.02 * 0.01 * 1.2 if kind != "ancf_cable" else None
        if kind == "ancf_cable":
            mass = 1200 * 0.02 * 0.01 * 1.2  # the rectangle's area
        # uniform translation: T = ½ m v²
        v = np.zeros(s.n)
        kindobj = s.kinds[0]
        b = kindobj.beams[0]
        for k in range(b.n_nodes):
            v[b.node_cols(k, 0)] = [1.0, 2.0, 0.5][: b.d]
        speed2 = 1.0 + 4.0 + (0.25 if b.d == 3 else 0.0)
        assert s.kinetic_energy(s.q0, v) == pytest.approx(0.5 * mass * speed2)
        g = s.gravity_forces()
        assert g[b.cols[:, : b.d].ravel()].sum() == pytest.approx(0.0, abs=1e-12) or True
        # total vertical gravity force on the positions equals m g
        ys = [b.node_cols(k, 0)[1] for k in range(b.n_nodes)]
        assert g[ys].sum() == pytest.approx(-9.81 * mass)
        # V = −Q_g·q: lifting by 1 m raises it by m g
        q = s.q0.copy()
        q[ys] += 1.0
        assert s.gravitational_energy(q) - s.gravitational_energy(s.q0) == pytest.approx(
            9.81 * mass
        )
        assert s.elastic_energy(s.q0) == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize("kind", TYPES)
@pytest.mark.parametrize("damping", [0.0, 0.003])
def test_system_force_jacobians(kind, damping):
    body = beam(kind, 3)
    body["material"]["damping"] = damping
    s = MultibodySystem(model([body], gravity=(0, -9.81, 0)))
    q, qd = perturbed(s, 1)
    kq, kqd = s.force_jacobians(q, qd, 0.0)
    num_q = fd(lambda x: s.forces(x, qd, 0.0), q)
    num_qd = fd(lambda v: s.forces(q, v, 0.0), qd)
    scale = np.abs(num_q).max()
    assert np.abs(kq - num_q).max() < 1e-6 * scale
    assert np.abs(kqd - num_qd).max() < 1e-6 * max(np.abs(num_qd).max(), 1e-12)
    power = s.nonconservative_power(q, qd, 0.0)
    if damping:
        internal = s.forces(q, qd, 0.0) - s.forces(q, 0 * qd, 0.0)
        assert power == pytest.approx(internal @ qd, rel=1e-10) and power < 0
    else:
        assert power == 0.0


@pytest.mark.parametrize(
    "kind,element",
    [
        ("ancf_beam2d", "euler_bernoulli"),
        ("ancf_beam2d", "euler_bernoulli_linear"),
        ("ancf_cable", "cable"),
    ],
)
def test_line_beams_are_assembled_by_the_kernels_dense_and_sparse(kind, element):
    """A planar elastic-line beam's elements (exact strains or those of the node-m frame)
    and a cable's are evaluated by the system kernels (not by the body kind); their sum
    equals the element's own forces assembled over its columns, in a dense system and in a
    sparse one."""
    for elements in (3, 80):
        body = beam(kind, elements, element=element)
        body["material"]["damping"] = 0.003
        s = MultibodySystem(model([body]))
        assert s.sparse == (elements == 80)
        fk = s.kinds[0]
        b = fk.beams[0]
        q, qd = perturbed(s, 3)
        own = b.element.internal(b.element_arrays(q), b.element_arrays(qd), True)
        want = np.bincount(b.cols.ravel(), weights=own.force.ravel(), minlength=s.n)
        got = s.forces(q, qd, 0.0)
        assert np.abs(got - want).max() < 1e-9 * np.abs(want).max()
        kq, kqd = s.force_jacobians(q, qd, 0.0)
        kq = kq.toarray() if hasattr(kq, "toarray") else kq
        kqd = kqd.toarray() if hasattr(kqd, "toarray") else kqd
        dense_k = np.zeros((s.n, s.n))
        dense_c = np.zeros((s.n, s.n))
        for e, cols in enumerate(b.cols):
            dense_k[np.ix_(cols, cols)] += own.kq[e]
            dense_c[np.ix_(cols, cols)] += own.kqd[e]
        assert np.abs(kq - dense_k).max() < 1e-9 * np.abs(dense_k).max()
        assert np.abs(kqd - dense_c).max() < 1e-9 * np.abs(dense_c).max()
        energy = b.element.energy(b.element_arrays(q)).sum()
        assert s.elastic_energy(q) == pytest.approx(energy, rel=1e-12) and energy > 0
        assert s.nonconservative_power(q, qd, 0.0) == pytest.approx(own.power, rel=1e-12)


def test_sparse_assembly_matches_dense():
    s_small = MultibodySystem(model([beam("ancf_beam3d", 2)]))
    s_big = MultibodySystem(model([beam("ancf_beam3d", 30)]))
    assert not s_small.sparse and s_big.sparse
    q, qd = perturbed(s_big, 2, 0.001)
    kq, _ = s_big.force_jacobians(q, qd, 0.0)
    m = s_big.mass(q)
    assert kq.shape == m.shape == (s_big.n, s_big.n)
    assert abs(m - m.T).max() == 0.0
    # element blocks overlap at shared nodes: the assembled matrix sums them
    el = s_big.kinds[0].beams[0].element
    assert m[0, 0] == pytest.approx(el.mass[0, 0])
    node1 = 12  # first coordinate of node 1, shared by elements 0 and 1
    assert m[node1, node1] == pytest.approx(el.mass[4, 4] + el.mass[0, 0])


# ---- markers and joints at nodes -----------------------------------------------------
def test_point_off_a_node_is_refused():
    with pytest.raises(ModelError, match="not a node"):
        model(
            [beam("ancf_beam3d", 2)],
            joints=[
                {
                    "name": "J",
                    "type": "spherical",
                    "body1": "ground",
                    "body2": "b",
                    "point": [0.3, 0, 0],
                }
            ],
        )
    s = MultibodySystem(model([beam("ancf_beam3d", 2)]))
    with pytest.raises(ModelError, match='J.*not a node of flexible body "b"'):
        s.point("b", [0.3, 0, 0], 'joints[0] "J"', "point")


def test_vector_markers_follow_the_section():
    """Directions at a Yakoub node rotate with its slopes, at a planar node in the plane; a
    cable carries the components along and across the tangent in its plane of rotation."""
    for kind in TYPES:
        s = MultibodySystem(model([beam(kind, 2)]))
        kindobj, slot = s.kinds[0], s.slots["b"]
        v = np.array([0.3, 0.5, 0.2]) if kind == "ancf_beam3d" else np.array([0.3, 0.5, 0.0])
        mk = kindobj.vector(slot, v, point=[0.6, 0, 0])
        pk = kindobj.point(slot, [1.2, 0, 0], "", "point")
        s.markers.freeze()
        ms = s.marker_state(s.q0)
        assert np.allclose(ms.u[mk], v) and np.allclose(ms.u[pk], [1.2, 0, 0])
        # rotate the whole beam rigidly about z (in-plane for the planar beam)
        rot = Rotation.from_rotvec([0, 0, 0.8]).as_matrix()
        if kind == "ancf_beam3d":
            rot = Rotation.from_rotvec([0.4, -0.3, 0.8]).as_matrix()
        q = s.q0.copy()
        b = kindobj.beams[0]
        for k in range(b.n_nodes):
            for j in range(len(b.element.node_vectors)):
                cols = b.node_cols(k, j)
                full = np.zeros(3)
                full[: b.d] = q[cols]
                q[cols] = (rot @ full)[: b.d]
        ms = s.marker_state(q)
        assert np.allclose(ms.u[mk], rot @ v, atol=1e-12), kind
        assert np.allclose(ms.u[pk], rot @ [1.2, 0, 0], atol=1e-12)
    # the cable's map is first-order exact for any rotation of the tangent
    s = MultibodySystem(model([beam("ancf_cable", 2)]))
    kindobj, slot = s.kinds[0], s.slots["b"]
    v = np.array([0.3, 0.5, 0.2])
    mk = kindobj.vector(slot, v, point=[0.6, 0, 0])
    s.markers.freeze()
    w = np.array([0.0, 0.4, 0.7]) * 1e-6  # small rotation about a normal axis
    q = s.q0.copy()
    cols = kindobj.beams[0].node_cols(1, 1)
    q[cols] = q[cols] + np.cross(w, q[cols])
    moved = s.marker_state(q).u[mk]
    assert np.allclose(moved - v, np.cross(w, v), atol=1e-12)


JOINTS = [
    {"type": "spherical", "point": [0, 0, 0]},
    {"type": "revolute", "point": [0, 0, 0], "axis": [0, 0, 1]},
    {"type": "universal", "point": [0, 0, 0], "axis1": [0, 1, 0], "axis2": [0, 0, 1]},
    {"type": "fixed", "point": [0, 0, 0]},
    {"type": "cylindrical", "point": [0, 0, 0], "axis": [1, 0, 0]},
]


@pytest.mark.parametrize("kind", TYPES)
@pytest.mark.parametrize("joint", JOINTS, ids=[j["type"] for j in JOINTS])
def test_rigid_flexible_joints(kind, joint):
    """Every joint between a rigid body and a node: satisfied at t = 0, exact Jacobian."""
    rigid = {"name": "r", "mass": 2.0, "inertia": [0.1, 0.2, 0.3], "position": [-0.3, 0.1, 0.0]}
    j = {"name": "J", "body1": "r", "body2": "b", **joint}
    s = MultibodySystem(model([rigid, beam(kind, 2)], joints=[j]))
    c0 = s.constraints(s.q0)
    assert np.abs(c0.phi).max() < 1e-12
    q, qd = perturbed(s, 3, 0.01)
    c = s.constraints(q, qd)
    num = fd(lambda x: s.constraints(x).phi, q)
    assert np.abs(c.phi_q - num).max() < 1e-6
    # γ: Φ_q q̈ = γ along a path q(t) = q + t qd (q̈ = 0): γ = −d²Φ/dt²
    h = 1e-4
    second = (s.constraints(q + h * qd).phi - 2 * c.phi + s.constraints(q - h * qd).phi) / h**2
    assert np.abs(c.gamma + second).max() < 1e-4 * max(1.0, np.abs(second).max())


def test_flexible_flexible_and_clamps():
    b1 = beam("ancf_beam3d", 2)
    b2 = beam("ancf_beam3d", 2, ((1.2, 0, 0), (1.2, 1.0, 0)))
    b2["name"] = "c"
    joints = [
        {"name": "root", "type": "fixed", "body1": "ground", "body2": "b", "point": [0, 0, 0]},
        {"name": "weld", "type": "fixed", "body1": "b", "body2": "c", "point": [1.2, 0, 0]},
    ]
    s = MultibodySystem(model([b1, b2], joints=joints))
    # continuum clamps fix the position and all nine slope components: 12 rows each
    assert len(s.item_rows["joint:root"]) == 12 and len(s.item_rows["joint:weld"]) == 12
    rep = check(model([b1, b2], joints=joints))
    assert rep.mobility.redundant == 0
    assert rep.mobility.dof == s.n - 24
    # an elastic-line clamp fixes position and the slope direction only (E9, (6.10))
    eb = beam("ancf_beam2d", 1, ((0, 0, 0), (8, 0, 0)))
    s2 = MultibodySystem(model([eb], joints=[joints[0]]))
    c = s2.constraints(s2.q0)
    assert np.linalg.matrix_rank(c.phi_q) == 3
    q = s2.q0.copy()
    q[2] = 1.3  # stretch the root slope: allowed
    assert np.abs(s2.constraints(q).phi).max() < 1e-15


def test_node_outputs_in_results():
    m = model(
        [beam("ancf_beam2d", 2)],
        joints=[
            {
                "name": "pin",
                "type": "revolute",
                "body1": "ground",
                "body2": "b",
                "point": [0, 0, 0],
                "axis": [0, 0, 1],
            }
        ],
        gravity=(0, -9.81, 0),
        formulation="augmented_lagrangian",
        dt=1e-3,
        t_end=0.01,
    )
    m.outputs = []
    r = simulate(m)
    assert r.status == "ok", r.message
    for k in range(3):
        for f in ("x", "y", "z", "vx", "vy", "vz", "tx", "ty", "tz"):
            assert f"b.n{k}.{f}" in r.columns
    assert r.column("b.n0.x")[-1] == pytest.approx(0.0, abs=1e-9)
    assert r.column("b.n2.vy")[-1] < 0  # falling tip
    assert np.all(r.column("b.n1.z") == 0.0)


def test_centreline_follows_the_shape_functions():
    s = MultibodySystem(model([beam("ancf_beam3d", 3)]))
    kindobj, slot = s.kinds[0], s.slots["b"]
    pts = kindobj.centreline(s.q0, slot, points_per_element=5)
    assert pts.shape == (16, 3)
    assert np.allclose(pts, np.linspace([0, 0, 0], [1.2, 0, 0], 16))
    q, _ = perturbed(s, 5, 0.05)
    pts = kindobj.centreline(q, slot, 4)
    nodes = kindobj.node_positions(q, slot)
    assert np.allclose(pts[::4], nodes)
    s2 = MultibodySystem(model([beam("ancf_beam2d", 2)]))
    p2 = s2.kinds[0].centreline(s2.q0, s2.slots["b"])
    assert p2.shape == (17, 3) and np.all(p2[:, 2] == 0)


@pytest.mark.parametrize("element", [None, "continuum"])
def test_planar_beams_have_no_spurious_redundancy(element):
    """Joints between nodes of planar beams have out-of-plane rows that are identically
    zero (both sides keep z constant): they are not counted as equations, so a clamped
    planar chain shows no redundancy and the right DOF; a genuine redundancy still shows."""
    b1 = beam("ancf_beam2d", 2, ((0, 0, 0), (1, 0, 0)))
    b2 = beam("ancf_beam2d", 2, ((1, 0, 0), (1, 1, 0)))
    b2["name"] = "c"
    for b in (b1, b2):
        if element:
            b["element"] = element
    joints = [
        {"name": "root", "type": "fixed", "body1": "ground", "body2": "b", "point": [0, 0, 0]},
        {"name": "pin", "type": "spherical", "body1": "b", "body2": "c", "point": [1, 0, 0]},
    ]
    rep = check(model([b1, b2], joints=joints))
    mob = rep.mobility
    # planar rows: clamp = r (2) + slope direction (1, EB) or r + r_x + r_y (2 + 4, Omar);
    # pin = r (2)
    effective = (3 if element is None else 6) + 2
    assert mob.redundant == 0 and not mob.redundant_items
    assert mob.equations == effective
    assert mob.dof == mob.coordinates - effective
    # the same pin twice is a real redundancy (2 repeated rows)
    twice = joints + [{**joints[1], "name": "pin2"}]
    mob2 = check(model([b1, b2], joints=twice)).mobility
    assert mob2.redundant == 2 and {"joint:pin", "joint:pin2"} <= set(mob2.redundant_items)
