"""``sliding`` joints (García Vallejo (2006) §4.6): a body's point slides along a flexible beam's
centreline.

Exact Jacobian, γ and second-order terms against finite differences (every beam type, a
rigid body in reference-point and natural coordinates and a point mass, on both sides of an
element boundary); a point mass sliding down a stiff clamped incline follows
s = s₀ + ½ g sin θ t² across elements; energy is conserved when a slider rides a flexible
pendulum; bad input is refused naming the joint and field."""

from __future__ import annotations

import numpy as np
import pytest

from solver import check, simulate
from solver.mechanics.system import MultibodySystem
from solver.model import ModelError, model_from_data

STEEL = {"E": 2e11, "nu": 0.3, "density": 7800.0}
SECTION = {"shape": "rectangle", "width": 0.02, "height": 0.01}


def fd(fun, x, h=1e-7):
    return np.array([(fun(x + h * e) - fun(x - h * e)) / (2 * h) for e in np.eye(len(x))]).T


def slider_model(
    kind="ancf_beam2d",
    body="point_mass",
    elements=3,
    coordinates="reference_point",
    rotation=None,
    element=None,
):
    start, end = (0.0, 0.0, 0.0), (1.2, 0.3, 0.0 if kind == "ancf_beam2d" else 0.4)
    p = tuple(0.4 * b for b in end)  # inside element 1 of 3
    bar = {
        "name": "bar",
        "type": kind,
        "points": [list(start), list(end)],
        "elements": elements,
        "material": dict(STEEL),
        "section": dict(SECTION),
    }
    if element is not None:
        bar["element"] = element
    if body == "point_mass":
        other = {"name": "m", "type": "point_mass", "mass": 0.3, "position": list(p)}
    else:
        other = {
            "name": "m",
            "mass": 0.3,
            "inertia": [1e-3, 2e-3, 2.5e-3],
            "position": [p[0] + 0.05, p[1] - 0.02, p[2] + 0.01],
        }
    joints = [{"name": "S", "type": "sliding", "body1": "bar", "body2": "m", "point": list(p)}]
    if rotation is not None:
        joints[0]["rotation"] = rotation
    return model_from_data(
        {
            "biela": 1,
            "gravity": [0, -9.81, 0],
            "bodies": [bar, other],
            "joints": joints,
            "solver": {"coordinates": coordinates},
        }
    )


CASES = [
    ("ancf_beam2d", "point_mass", "reference_point"),
    ("ancf_beam2d", "rigid", "reference_point"),
    ("ancf_beam2d:continuum", "rigid", "reference_point"),  # r_y in each node, not read
    ("ancf_cable", "rigid", "reference_point"),
    ("ancf_beam3d", "rigid", "reference_point"),
    ("ancf_beam3d", "rigid", "natural"),
    ("ancf_cable", "point_mass", "reference_point"),
]


@pytest.mark.parametrize("kind,body,coordinates", CASES)
@pytest.mark.parametrize("where", [0.45, 0.99, 1.01])  # s/l: inside, either side of a node
def test_sliding_jacobian_gamma_and_hessians(kind, body, coordinates, where):
    kind, _, element = kind.partition(":")
    s = MultibodySystem(slider_model(kind, body, coordinates=coordinates, element=element or None))
    rng = np.random.default_rng(3)
    q = s.q0 + 0.01 * rng.standard_normal(s.n)
    qd = rng.standard_normal(s.n)
    col = s.slots["bar"].owner.slide_cols["S"]
    l = 1.2 * np.linalg.norm([1.0, 0.25, 0.0 if kind == "ancf_beam2d" else 1 / 3]) / 3
    q[col] = where * l
    rows = s.item_rows["joint:S"]
    assert len(rows) == 3
    c = s.constraints(q, qd, 0.0)
    num = fd(lambda x: s.constraints(x, qd, 0.0).phi, q)
    assert np.abs(c.phi_q - num).max() < 1e-6 * np.abs(num).max()
    lam = rng.standard_normal(s.m)
    k, dmat = s.constraint_second_order(q, qd, lam, 0.0)
    num_k = fd(lambda x: s.constraints(x, qd, 0.0).phi_q.T @ lam, q)
    num_d = fd(lambda x: s.constraints(x, qd, 0.0).phi_q @ qd, q)
    assert np.abs(k - num_k).max() < 1e-6 * np.abs(num_k).max()
    assert np.abs(dmat - num_d).max() < 1e-6 * np.abs(num_d).max()
    # γ = −(Φ_q q̇)_q q̇ (no explicit time dependence)
    assert np.allclose(
        c.gamma[rows], -(num_d @ qd)[rows], rtol=1e-6, atol=1e-6 * np.abs(num_d).max()
    )
    assert np.allclose(c.phi_t[rows], 0.0)


def test_centreline_is_continuous_across_a_node():
    s = MultibodySystem(slider_model("ancf_beam2d", elements=3))
    rng = np.random.default_rng(1)
    q = s.q0 + 0.02 * rng.standard_normal(s.n)
    col = s.slots["bar"].owner.slide_cols["S"]
    l = 1.2 * np.hypot(1.0, 0.25) / 3
    rows = s.item_rows["joint:S"]
    out = []
    for sv in (l - 1e-9, l + 1e-9):
        q[col] = sv
        c = s.constraints(q, None, 0.0)
        out.append((c.phi[rows], c.phi_q[rows][:, col]))
    assert np.abs(out[0][0] - out[1][0]).max() < 1e-8  # position: C⁰
    assert np.abs(out[0][1] - out[1][1]).max() < 1e-7  # tangent: C¹


def test_counts_and_initial_parameter():
    m = slider_model("ancf_beam2d")
    report = check(m)
    # 4 nodes × 4 + point mass 3 + s = 20 coordinates; 3 equations
    assert report.mobility.coordinates == 4 * 4 + 3 + 1
    assert report.mobility.equations == 3
    assert report.mobility.dof == 20 - 3
    s = MultibodySystem(m)
    owner = s.slots["bar"].owner
    assert owner.sliding_parameter(s.q0, "S") == pytest.approx(0.4 * 1.2 * np.hypot(1, 0.25))


def incline(elements=4, t_end=0.4, dt=5e-3, s0=0.2):
    th = np.radians(30.0)
    d = np.array([np.cos(th), -np.sin(th), 0.0])
    data = {
        "biela": 1,
        "gravity": [0, -9.81, 0],
        "bodies": [
            {
                "name": "bar",
                "type": "ancf_beam2d",
                "points": [[0, 0, 0], list(d)],
                "elements": elements,
                "material": {"E": 2e13, "nu": 0.3, "density": 7800},
                "section": {"shape": "rectangle", "width": 0.05, "height": 0.05},
            },
            {"name": "m", "type": "point_mass", "mass": 0.1, "position": list(s0 * d)},
        ],
        "joints": [
            {
                "name": "clamp",
                "type": "fixed",
                "body1": "ground",
                "body2": "bar",
                "point": [0, 0, 0],
            },
            {"name": "S", "type": "sliding", "body1": "bar", "body2": "m", "point": list(s0 * d)},
        ],
        "solver": {"formulation": "augmented_lagrangian", "dt": dt, "t_end": t_end},
    }
    return model_from_data(data), d, th


def test_point_mass_slides_down_a_stiff_incline_like_a_free_particle():
    """Frictionless: s = s₀ + ½ g sin θ t², here over 2 element boundaries (l = 0.25 m)."""
    m, d, th = incline()
    res = simulate(m)
    t = res.t
    s = np.c_[res.column("m.x"), res.column("m.y")] @ d[:2]
    exact = 0.2 + 0.5 * 9.81 * np.sin(th) * t**2
    assert exact[-1] > 0.55  # crossed the nodes at 0.25 and 0.5
    assert np.abs(s - exact).max() < 1e-5 * exact[-1]
    # the point stays on the bar, which sags by ~2 µm under its own weight
    normal = np.c_[res.column("m.x"), res.column("m.y")] @ np.array([d[1], -d[0]])
    assert np.abs(normal).max() < 5e-6


@pytest.mark.parametrize("formulation", ["augmented_lagrangian", "null_space"])
def test_leaving_the_beam_stops_the_run_naming_the_joint(formulation):
    """Both compiled steppers leave the step that puts the point off the beam to their
    formulation, which names the joint."""
    m, _, _ = incline(elements=4, t_end=1.0, dt=5e-3, s0=0.95)
    res = simulate(m, formulation=formulation)
    assert res.status == "failed"
    assert 'sliding joint "S" left flexible body "bar"' in res.message
    assert "internal" not in res.message and "Traceback" not in res.message
    assert 0.25 < res.t[-1] < 0.28  # s = 1.125 m (half an element past the end) at t = 0.267 s


def test_compiled_lagrange_baumgarte_accelerations_stop_off_the_beam():
    from solver.analysis.compiled_runge_kutta import CompiledRungeKutta, tableau
    from solver.compiled.lagrange_baumgarte import RKSettings
    from solver.errors import SimulationError

    m, _, _ = incline(elements=4, s0=0.95)
    s = MultibodySystem(m)
    cfg = RKSettings(1e-9, 1e-11, 1.0, 1.0, 1.0, 0.0, 0.0, -1, 0.0, False)
    core = CompiledRungeKutta(s, tableau("RK45"), cfg)
    qdd, _, _ = core.evaluate(0.0, s.q0, s.qd0)  # on the beam
    assert np.all(np.isfinite(qdd))
    q = s.q0.copy()
    q[s.slots["bar"].owner.slide_cols["S"]] = 1.2  # the beam is 1 m long, elements 0.25 m
    with pytest.raises(SimulationError, match='sliding joint "S" left flexible body "bar"'):
        core.evaluate(0.5, q, s.qd0)


def test_energy_is_conserved_with_a_slider_on_a_flexible_pendulum():
    """A flexible pendulum (pinned at one end, released horizontally) carrying a sliding
    point mass: no dissipation, so T + V + U stays constant (trapezoidal rule)."""
    data = {
        "biela": 1,
        "gravity": [0, -9.81, 0],
        "bodies": [
            {
                "name": "bar",
                "type": "ancf_beam2d",
                "points": [[0, 0, 0], [1, 0, 0]],
                "elements": 4,
                "material": {"E": 2e8, "nu": 0.3, "density": 2000},
                "section": {"shape": "rectangle", "width": 0.03, "height": 0.03},
            },
            {"name": "m", "type": "point_mass", "mass": 0.5, "position": [0.3, 0, 0]},
        ],
        "joints": [
            {
                "name": "pin",
                "type": "spherical",
                "body1": "ground",
                "body2": "bar",
                "point": [0, 0, 0],
            },
            {"name": "S", "type": "sliding", "body1": "bar", "body2": "m", "point": [0.3, 0, 0]},
        ],
        "solver": {
            "formulation": "augmented_lagrangian",
            "dt": 2e-3,
            "t_end": 0.4,
            "tolerance": 1e-12,
        },
    }
    res = simulate(model_from_data(data))
    s_final = np.hypot(res.column("m.x")[-1], res.column("m.y")[-1])
    assert s_final > 0.45  # slid outwards over at least one node
    elastic = res.column("energy.elastic")
    assert elastic.max() > 1e-3  # the bar does bend
    total = res.column("energy.total")
    scale = np.abs(res.column("energy.kinetic")).max()
    assert np.abs(total - total[0]).max() < 1e-4 * scale  # 4e-5 here; O(Δt²)


def _refused(joint, bodies=None, match=""):
    bodies = bodies or [
        {
            "name": "bar",
            "type": "ancf_beam2d",
            "points": [[0, 0, 0], [1, 0, 0]],
            "elements": 2,
            "material": dict(STEEL),
            "section": dict(SECTION),
        },
        {"name": "m", "type": "point_mass", "mass": 1, "position": [0.3, 0, 0]},
        {"name": "r", "mass": 1, "inertia": [1, 1, 1], "position": [0.3, 0, 0]},
    ]
    with pytest.raises(ModelError, match=match) as err:
        model_from_data({"biela": 1, "bodies": bodies, "joints": [joint]})
    return str(err.value)


def test_bad_sliding_joints_are_refused_naming_joint_and_field():
    base = {"name": "S", "type": "sliding", "body1": "bar", "body2": "m", "point": [0.3, 0, 0]}
    msg = _refused({**base, "body1": "r", "body2": "m"}, match="body1")
    assert 'joints[0] "S"' in msg and "flexible body" in msg
    msg = _refused({**base, "body1": "ground"}, match="body1")
    assert "ground" in msg
    msg = _refused({**base, "point": [0.3, 0.01, 0], "body2": "r"}, match="point")
    assert 'joints[0] "S"' in msg and "centreline" in msg
    msg = _refused({**base, "point": [1.2, 0, 0], "body2": "r"}, match="point")
    assert "centreline" in msg
    msg = _refused({**base, "point": [0.4, 0, 0]}, match="point")  # not at the point mass
    msg = _refused({**base, "axis": [1, 0, 0]}, match="axis")
    msg = _refused({k: v for k, v in base.items() if k != "point"}, match="point")


@pytest.mark.parametrize("coordinates", ["reference_point", "natural"])
@pytest.mark.parametrize("where", [0.45, 0.99, 1.01])
def test_locked_rotation_row_against_finite_differences(coordinates, where):
    """``rotation: locked`` adds u·r' = 0 (u: body2's direction normal to the tangent at
    t = 0): its Jacobian, γ and both second-order terms against central differences."""
    s = MultibodySystem(slider_model("ancf_beam2d", "rigid", 3, coordinates, "locked"))
    rows = s.item_rows["joint:S"]
    assert len(rows) == 4
    assert abs(s.constraints(s.q0, None, 0.0).phi[rows[3]]) < 1e-14  # holds at t = 0
    rng = np.random.default_rng(5)
    q = s.q0 + 0.01 * rng.standard_normal(s.n)
    qd = rng.standard_normal(s.n)
    col = s.slots["bar"].owner.slide_cols["S"]
    q[col] = where * 1.2 * np.hypot(1.0, 0.25) / 3
    c = s.constraints(q, qd, 0.0)
    num = fd(lambda x: s.constraints(x, qd, 0.0).phi, q)
    assert np.abs(c.phi_q - num).max() < 1e-6 * np.abs(num).max()
    lam = rng.standard_normal(s.m)
    k, dmat = s.constraint_second_order(q, qd, lam, 0.0)
    num_k = fd(lambda x: s.constraints(x, qd, 0.0).phi_q.T @ lam, q)
    num_d = fd(lambda x: s.constraints(x, qd, 0.0).phi_q @ qd, q)
    assert np.abs(k - num_k).max() < 1e-6 * np.abs(num_k).max()
    assert np.abs(dmat - num_d).max() < 1e-6 * np.abs(num_d).max()
    assert np.allclose(
        c.gamma[rows], -(num_d @ qd)[rows], rtol=1e-6, atol=1e-6 * np.abs(num_d).max()
    )


@pytest.mark.parametrize("elements", [3, 12, 48])
def test_locked_rotation_row_is_scaled_like_the_point_rows(elements):
    """The angle row is ``l u·r'`` (l: the element length): its gradient is of the size of
    the point rows' on short elements too (``u·r'``'s grows like 1/l: 14 on the 6 elements of
    0.083 m of the fixed-angle slider example, 48 here on 48 elements, against 1 to 2 for
    the point rows), so that a penalty on the rows (augmented Lagrangian) is not much
    stiffer on it than on the others."""
    s = MultibodySystem(slider_model("ancf_beam2d", "rigid", elements, rotation="locked"))
    rows = s.item_rows["joint:S"]
    jac = s.constraints(s.q0, None, 0.0).phi_q
    norms = np.linalg.norm(np.asarray(jac)[rows], axis=1)
    assert norms[3] < 2.0 * norms[:3].max(), norms


def test_locked_rotation_is_refused_off_a_planar_beam_or_rigid_body():
    for kind, body, fragment in (
        ("ancf_beam3d", "rigid", "planar beam"),
        ("ancf_beam2d", "point_mass", "rigid body2"),
    ):
        with pytest.raises(ModelError) as err:
            slider_model(kind, body, rotation="locked")
        assert 'joints[0] "S"' in str(err.value) and "rotation" in str(err.value)
        assert fragment in str(err.value)
    with pytest.raises(ModelError, match="rotation"):
        slider_model(rotation="stuck")
