"""The validation examples load, validate, start assembled and carry the published data.

The solver's constraint code is not used: every check is computed here with numpy from the
model description (global positions and axes at t = 0, docs/model_format.md). A joint point is on
both bodies by construction, so the geometric checks are the facts the sources state (link
lengths between consecutive joint points, the crank angle, the frame of each body), plus
velocity-level consistency of the initial velocities with every joint and driver, and the
mobility (degrees of freedom and redundant equations) from the rank of a constraint
Jacobian written here for the joint types the examples use.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from solver import load_model
from solver.model import description as d
from solver.model.validation import validate_model
from tests.validation import reference_data as ref

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
NAMES = (
    "four_bar_planar",
    "four_bar_spatial",
    "heavy_top",
    "bricard",
    "andrews_squeezer",
    "double_four_bar",
    "slider_crank_cardan",
    "stiff_pendulum",
    "flyball_governor",
)

_CACHE: dict[str, d.Model] = {}


def model(name: str) -> d.Model:
    if name not in _CACHE:
        _CACHE[name] = load_model(EXAMPLES / f"{name}.json")
    return _CACHE[name]


# ----------------------------------------------------------------------------- helpers
def rot(q) -> np.ndarray:
    """Rotation matrix body→global of Euler parameters [e0, e1, e2, e3]."""
    e0, e1, e2, e3 = q
    return 2.0 * np.array(
        [
            [e0 * e0 + e1 * e1 - 0.5, e1 * e2 - e0 * e3, e1 * e3 + e0 * e2],
            [e1 * e2 + e0 * e3, e0 * e0 + e2 * e2 - 0.5, e2 * e3 - e0 * e1],
            [e1 * e3 - e0 * e2, e2 * e3 + e0 * e1, e0 * e0 + e3 * e3 - 0.5],
        ]
    )


def skew(a) -> np.ndarray:
    return np.array([[0.0, -a[2], a[1]], [a[2], 0.0, -a[0]], [-a[1], a[0], 0.0]])


def norm(a) -> float:
    return float(np.linalg.norm(a))


def unit(a) -> np.ndarray:
    a = np.asarray(a, float)
    return a / np.linalg.norm(a)


def normals(axis) -> tuple[np.ndarray, np.ndarray]:
    a = unit(axis)
    helper = np.array([1.0, 0.0, 0.0]) if abs(a[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    n1 = unit(np.cross(a, helper))
    return n1, np.cross(a, n1)


def omega(m: d.Model, name: str) -> np.ndarray:
    b = m.body(name)
    return np.asarray(b.angular_velocity, float) if isinstance(b, d.RigidBody) else np.zeros(3)


def point_velocity(m: d.Model, name: str, p) -> np.ndarray:
    b = m.body(name)
    if b is None:  # ground
        return np.zeros(3)
    v = np.asarray(b.velocity, float)
    if isinstance(b, d.RigidBody):
        v = v + np.cross(b.angular_velocity, np.subtract(p, b.position))
    return v


def local(m: d.Model, name: str, p) -> np.ndarray:
    """Body coordinates of the global point p (relative to the centre of mass)."""
    b = m.body(name)
    return rot(b.orientation).T @ np.subtract(p, b.position)


def joint(m: d.Model, name: str) -> d.Joint:
    j = m.joint(name)
    assert j is not None, name
    return j


def force(m: d.Model, name: str) -> d.Force:
    return next(f for f in m.forces if f.name == name)


def mobility(m: d.Model) -> tuple[int, int]:
    """(degrees of freedom without drivers, redundant joint equations) at t = 0.

    Jacobian with respect to the virtual displacement and rotation (global) of every body,
    for the joint types used by the examples.
    """
    index = {b.name: i for i, b in enumerate(m.bodies)}
    n = 6 * len(m.bodies)

    def point_rows(body: str, p) -> np.ndarray:
        r = np.zeros((3, n))
        if body in index:
            i = index[body]
            r[:, 6 * i : 6 * i + 3] = np.eye(3)
            r[:, 6 * i + 3 : 6 * i + 6] = -skew(np.subtract(p, m.body(body).position))
        return r

    def vector_rows(body: str, c) -> np.ndarray:
        r = np.zeros((3, n))
        if body in index:
            r[:, 6 * index[body] + 3 : 6 * index[body] + 6] = -skew(c)
        return r

    def dot1(b1, c1, b2, c2) -> np.ndarray:
        return np.asarray(c2) @ vector_rows(b1, c1) + np.asarray(c1) @ vector_rows(b2, c2)

    rows: list[np.ndarray] = []
    for j in m.joints:
        assert j.type in ("spherical", "revolute", "universal", "prismatic", "point_on_line")
        b1, b2 = j.body1, j.body2
        gap = point_rows(b2, j.point) - point_rows(b1, j.point)
        if j.type in ("spherical", "revolute", "universal"):
            rows.extend(gap)
        if j.type == "revolute":
            n1, n2 = normals(j.axis)
            rows += [dot1(b1, n1, b2, unit(j.axis)), dot1(b1, n2, b2, unit(j.axis))]
        elif j.type == "universal":
            rows.append(dot1(b1, unit(j.axis1), b2, unit(j.axis2)))
        elif j.type in ("point_on_line", "prismatic"):
            n1, n2 = normals(j.axis)
            rows += [n1 @ gap, n2 @ gap]
        if j.type == "prismatic":
            for k in range(3):
                r = np.zeros(n)
                for body, sign in ((b2, 1.0), (b1, -1.0)):
                    if body in index:
                        r[6 * index[body] + 3 + k] += sign
                rows.append(r)
    jac = np.array(rows)
    s = np.linalg.svd(jac, compute_uv=False)
    rank = int((s > 1e-9 * s[0]).sum())
    return n - rank, len(rows) - rank


# ----------------------------------------------------------------------------- generic
@pytest.mark.parametrize("name", NAMES)
def test_example_validates(name):
    m = model(name)
    validate_model(m)
    assert m.warnings == []
    assert m.description and len(m.description) > 200
    assert m.outputs, "outputs for the reported points"
    assert m.solver.dt <= m.solver.t_end
    for b in m.bodies:
        assert b.color and b.shapes, b.name
        assert np.isclose(np.linalg.norm(b.orientation), 1.0, atol=1e-14)


@pytest.mark.parametrize("name", NAMES)
def test_initial_velocities_satisfy_the_joints(name):
    """Velocity-level joint equations at t = 0, from the bodies' given velocities."""
    m = model(name)
    for j in m.joints:
        v1 = point_velocity(m, j.body1, j.point)
        v2 = point_velocity(m, j.body2, j.point)
        w = omega(m, j.body2) - omega(m, j.body1)
        if j.type in ("spherical", "revolute", "universal"):
            np.testing.assert_allclose(v2, v1, atol=1e-12, err_msg=j.name)
        if j.type == "revolute":
            np.testing.assert_allclose(np.cross(w, unit(j.axis)), 0.0, atol=1e-12, err_msg=j.name)
        if j.type == "universal":
            assert abs(w @ np.cross(unit(j.axis1), unit(j.axis2))) < 1e-12, j.name
        if j.type in ("point_on_line", "prismatic"):
            np.testing.assert_allclose(np.cross(v2 - v1, unit(j.axis)), 0.0, atol=1e-12)
        if j.type == "prismatic":
            np.testing.assert_allclose(w, 0.0, atol=1e-12, err_msg=j.name)
    for drv in m.drivers:
        j = joint(m, drv.joint)
        f0, f1, _ = drv.function.derivatives(0.0)
        assert f0 == 0.0  # measured from the initial configuration
        w = omega(m, j.body2) - omega(m, j.body1)
        assert math.isclose(w @ unit(j.axis), f1, rel_tol=1e-12), drv.name


EXPECTED_MOBILITY = {  # (DOF without drivers, redundant equations)
    "four_bar_planar": (1, 0),
    "four_bar_spatial": (2, 0),  # crank + passive coupler spin
    "heavy_top": (3, 0),
    "bricard": (ref.BRICARD_DOF, ref.BRICARD_REDUNDANT),
    "andrews_squeezer": (1, 0),
    "double_four_bar": (1, 0),
    "slider_crank_cardan": (1, 0),
    "stiff_pendulum": (1, 0),
    "flyball_governor": (4, 0),  # shaft spin, slider, two rods
}


@pytest.mark.parametrize("name", NAMES)
def test_mobility_and_redundancy(name):
    assert mobility(model(name)) == EXPECTED_MOBILITY[name]


# ----------------------------------------------------------------------------- per example
def test_four_bar_planar():
    m = model("four_bar_planar")
    A, B = (np.array([*p, 0.0]) for p in (ref.FOUR_BAR_PLANAR_A, ref.FOUR_BAR_PLANAR_B))
    P1, P2 = (np.array(joint(m, n).point) for n in ("J1", "J2"))
    np.testing.assert_array_equal(joint(m, "A").point, A)
    np.testing.assert_array_equal(joint(m, "B").point, B)
    lengths = (np.linalg.norm(P1 - A), np.linalg.norm(P2 - P1), np.linalg.norm(P2 - B))
    np.testing.assert_allclose(lengths, ref.FOUR_BAR_PLANAR_LENGTHS, rtol=0, atol=1e-12)
    assert math.isclose(math.atan2(P1[1], P1[0]), ref.FOUR_BAR_PLANAR_BETA, abs_tol=1e-14)
    position = (*P1[:2], *P2[:2])
    np.testing.assert_allclose(position, ref.FOUR_BAR_PLANAR_POSITION, atol=5e-8)
    np.testing.assert_allclose(position, ref.FOUR_BAR_PLANAR_POSITION_EXACT, atol=1e-12)
    # outputs at the reported points; their initial velocities are the published ones
    outs = {o.name: o for o in m.outputs}
    np.testing.assert_allclose(outs["P1"].point, P1, atol=0)
    np.testing.assert_allclose(outs["P2"].point, P2, atol=0)
    vel = (*point_velocity(m, "crank", P1)[:2], *point_velocity(m, "rocker", P2)[:2])
    np.testing.assert_allclose(vel, ref.FOUR_BAR_PLANAR_VELOCITY[:4], atol=5e-5)
    # the crank driver reproduces beta' and beta'' of the source
    _, f1, f2 = m.drivers[0].function.derivatives(0.0)
    assert (f1, f2) == (ref.FOUR_BAR_PLANAR_BETA_DOT, ref.FOUR_BAR_PLANAR_BETA_DDOT)
    # every link is a uniform rod: centre of mass at mid-link, body x along the link
    for body, (p, q) in {"crank": (A, P1), "coupler": (P1, P2), "rocker": (B, P2)}.items():
        np.testing.assert_allclose(m.body(body).position, (p + q) / 2, atol=1e-14)
        along = local(m, body, q) - local(m, body, p)
        np.testing.assert_allclose(along, [norm(q - p), 0, 0], atol=1e-12)
    for j in m.joints:
        np.testing.assert_array_equal(j.axis, [0.0, 0.0, 1.0])
    assert [j.type for j in m.joints].count("revolute") == 3
    assert m.solver.analysis == "kinematic"


def test_four_bar_spatial():
    m = model("four_bar_spatial")
    O, Q = np.array(joint(m, "J3").point), np.array(joint(m, "J4").point)
    P2, P5 = np.array(joint(m, "J1").point), np.array(joint(m, "J2").point)
    crank, coupler, follower, pivots = ref.SPATIAL_FOUR_BAR_LENGTHS
    assert math.isclose(norm(P2 - O), crank, abs_tol=1e-12)
    assert math.isclose(norm(P5 - P2), coupler, abs_tol=1e-12)
    assert math.isclose(norm(P5 - Q), follower, abs_tol=1e-12)
    assert math.isclose(norm(Q - O), pivots, abs_tol=1e-12)
    np.testing.assert_allclose(unit(joint(m, "J3").axis), [1, 0, 0], atol=1e-15)
    np.testing.assert_allclose(unit(joint(m, "J4").axis), [2**-0.5, 2**-0.5, 0], atol=1e-15)
    # P5 at theta = 0 is the first row of the reference table; the crank lies along +z
    theta0, _, p5 = ref.SPATIAL_FOUR_BAR_P5[0]
    assert theta0 == 0.0
    np.testing.assert_allclose(P5, p5, atol=1e-12)
    np.testing.assert_allclose(unit(P2 - O), [0, 0, 1], atol=1e-15)
    assert next(o for o in m.outputs if o.name == "P5").body == "follower"
    # body frames of the source: coupler eta (y) along the coupler, follower zeta (z) along it
    np.testing.assert_allclose(local(m, "coupler", P5), [0, coupler / 2, 0], atol=1e-12)
    np.testing.assert_allclose(local(m, "coupler", P2), [0, -coupler / 2, 0], atol=1e-12)
    np.testing.assert_allclose(local(m, "follower", P5), [0, 0, follower], atol=1e-12)
    np.testing.assert_allclose(local(m, "crank", P2), [0, 0, crank], atol=1e-12)
    for name, mass in ref.SPATIAL_FOUR_BAR_MASSES.items():
        b = m.body(name)
        assert b.mass == mass
        np.testing.assert_allclose(b.inertia, ref.SPATIAL_FOUR_BAR_INERTIAS[name] * np.eye(3))
    # motor and spring
    assert m.drivers[0].joint == "J3"
    assert math.isclose(m.drivers[0].function.derivatives(0.5)[1], ref.SPATIAL_FOUR_BAR_CRANK_RATE)
    s = force(m, "S1")
    assert (s.stiffness, s.free_length, s.damping) == tuple(ref.SPATIAL_FOUR_BAR_SPRING.values())
    assert math.isclose(
        norm(np.subtract(s.point2, s.point1)), ref.SPATIAL_FOUR_BAR_SPRING_INITIAL_LENGTH
    )
    assert (s.body1, s.body2) == ("crank", "coupler")
    np.testing.assert_array_equal(m.gravity, [0, 0, -9.81])
    # the P5 table itself: every row closes the loop (crank tip to P5 = coupler length)
    for theta, _, p in ref.SPATIAL_FOUR_BAR_P5:
        t = math.radians(theta)
        tip = np.array([0.0, -crank * math.sin(t), crank * math.cos(t)])
        assert abs(norm(np.subtract(p, tip)) - coupler) < 2e-4, theta
        assert abs(norm(np.subtract(p, Q)) - follower) < 2e-4, theta


def test_heavy_top():
    m = model("heavy_top")
    (top,) = m.bodies
    assert top.mass == ref.HEAVY_TOP_MASS
    np.testing.assert_allclose(np.diag(top.inertia), ref.HEAVY_TOP_INERTIA, rtol=1e-12)
    np.testing.assert_allclose(np.array(top.inertia) - np.diag(np.diag(top.inertia)), 0.0)
    apex = np.array(joint(m, "ball").point)
    assert joint(m, "ball").type == "spherical"
    # centre of mass a = 0.3 m from the apex along the cone axis (body y), horizontal
    np.testing.assert_allclose(
        local(m, "cone", apex), [0, ref.HEAVY_TOP_APEX_TO_COM, 0], atol=1e-15
    )
    axis = rot(top.orientation) @ [0, 1, 0]
    assert abs(axis[2]) < 1e-15
    # spin about the cone axis only; centre of mass at rest
    w = np.array(top.angular_velocity)
    assert math.isclose(w @ axis, ref.HEAVY_TOP_SPIN) and np.allclose(np.cross(w, axis), 0)
    np.testing.assert_allclose(top.velocity, 0.0)
    # published invariants at t = 0: E = T + m g z and L_z
    g = -m.gravity[2]
    assert g == ref.HEAVY_TOP_GRAVITY
    R = rot(top.orientation)
    inertia_global = R @ np.array(top.inertia) @ R.T
    energy = 0.5 * w @ inertia_global @ w + top.mass * g * top.position[2]
    assert math.isclose(energy, ref.HEAVY_TOP_ENERGY, rel_tol=1e-12)
    lz = (inertia_global @ w + top.mass * np.cross(top.position, top.velocity))[2]
    assert abs(lz - ref.HEAVY_TOP_LZ) < 1e-15
    # the CoM samples are reachable: distance a from the apex
    for sample in ref.HEAVY_TOP_COM_SAMPLES.values():
        assert abs(norm(sample) - ref.HEAVY_TOP_APEX_TO_COM) < 2e-4
    assert any(norm(np.subtract(o.point, top.position)) == 0 for o in m.outputs)


def test_bricard():
    m = model("bricard")
    assert len(m.joints) == 6 and all(j.type == "revolute" for j in m.joints)
    axes = {"x": [1, 0, 0], "y": [0, 1, 0], "z": [0, 0, 1]}
    for j, (point, axis) in zip(m.joints, ref.BRICARD_JOINTS, strict=True):
        np.testing.assert_array_equal(j.point, point)
        np.testing.assert_array_equal(unit(j.axis), axes[axis])
    chain = ["ground", *(f"bar{i}" for i in range(1, 6)), "ground"]
    a, s = ref.BRICARD_BAR["length"], ref.BRICARD_BAR["section"]
    mass = ref.BRICARD_BAR["mass"]
    for i, b in enumerate(m.bodies):
        p, q = (np.array(ref.BRICARD_JOINTS[k][0]) for k in (i, i + 1))
        assert {m.joints[i].body1, m.joints[i].body2} == {chain[i], chain[i + 1]}
        assert norm(q - p) == a
        np.testing.assert_allclose(b.position, (p + q) / 2, atol=0)
        assert b.mass == mass
        along = int(np.argmax(np.abs(rot(b.orientation).T @ (q - p))))
        moments = np.full(3, mass * (a * a + s * s) / 12)
        moments[along] = mass * (2 * s * s) / 12
        np.testing.assert_allclose(np.diag(b.inertia), moments, rtol=1e-12)
        np.testing.assert_allclose(b.velocity, 0.0)
        np.testing.assert_allclose(b.angular_velocity, 0.0)
    np.testing.assert_array_equal(m.gravity, [0, -9.81, 0])
    assert next(o for o in m.outputs if o.name == "P3").point == ref.BRICARD_P3
    assert m.solver.t_end == 10.0


ANDREWS_FRAMES = {  # body: (frame origin, points in the link frame as tabulated)
    "OF": ("O", {"O": (0.0, 0.0), "F": (0.007, 0.0)}),
    "FE": ("F", {"F": (0.0, 0.0), "E": (-0.028, 0.0)}),
    "BDE": ("B", {"B": (0.0, 0.0), "D": (0.02, -0.018), "E": (0.0, -0.035)}),
    "EG": ("E", {"E": (0.0, 0.0), "G": (0.0, 0.02)}),
    "AG": ("A", {"A": (0.0, 0.0), "G": (0.04, 0.0)}),
    "AH": ("A", {"A": (0.0, 0.0), "H": (0.0, -0.04)}),
    "HE": ("E", {"E": (0.0, 0.0), "H": (-0.02, 0.0)}),
}


def andrews_points(m: d.Model) -> dict[str, np.ndarray]:
    pts = {n: np.array(joint(m, n).point) for n in ("O", "F", "B", "G", "H")}
    pts["A"] = np.array(joint(m, "A1").point)
    pts["E"] = np.array(joint(m, "E1").point)
    pts["C"] = np.array(force(m, "spring").point1)
    pts["D"] = np.array(force(m, "spring").point2)
    return pts


def test_andrews_squeezer():
    m = model("andrews_squeezer")
    pts = andrews_points(m)
    for name, xy in ref.ANDREWS_GROUND_POINTS.items():
        np.testing.assert_array_equal(pts[name], [*xy, 0.0])
    assert all(p[2] == 0.0 for p in pts.values())
    # the joints at E, A coincide
    for a, b in (("E1", "E2"), ("E1", "E3"), ("A1", "A2")):
        np.testing.assert_array_equal(joint(m, a).point, joint(m, b).point)
    # crank angle beta0 exactly; link lengths as tabulated
    assert math.isclose(math.atan2(pts["F"][1], pts["F"][0]), ref.ANDREWS_BETA0, abs_tol=1e-15)
    for body, (*_, length) in ref.ANDREWS_RODS.items():
        ends = list(ANDREWS_FRAMES[body][1])
        assert math.isclose(norm(pts[ends[0]] - pts[ends[1]]), length, abs_tol=1e-12), body
    tri = ref.ANDREWS_TRIANGLE
    for a, b in (("B", "D"), ("D", "E"), ("B", "E")):
        assert math.isclose(norm(pts[a] - pts[b]), norm(np.subtract(tri[a], tri[b])), abs_tol=1e-12)
    # each body: mass, inertia about z, and the tabulated centre of mass in the link frame:
    # in body axes, (joint point - CoM) equals (tabulated point - tabulated CoM)
    data = {k: v[:3] for k, v in ref.ANDREWS_RODS.items()}
    data["BDE"] = (tri["com"], tri["mass"], tri["inertia"])
    for body, (com, mass, izz) in data.items():
        b = m.body(body)
        assert b.mass == mass and b.inertia[2][2] == izz, body
        for point, xy in ANDREWS_FRAMES[body][1].items():
            np.testing.assert_allclose(
                local(m, body, pts[point]), [*np.subtract(xy, com), 0.0], atol=1e-12, err_msg=body
            )
        np.testing.assert_allclose(b.velocity, 0.0)
        np.testing.assert_allclose(b.angular_velocity, 0.0)

    # the configuration is the IFToMM one: relative angles within the table's rounding
    # (FEG and EGA differ by 1.6e-3 and 1.5e-3; EHA is tabulated as pi minus the interior angle)
    def angle(at, a, b):  # counter-clockwise from ray at->a to ray at->b
        u, v = pts[a] - pts[at], pts[b] - pts[at]
        return math.atan2(u[0] * v[1] - u[1] * v[0], u @ v)

    ang = ref.ANDREWS_INITIAL_ANGLES
    assert abs(angle("E", "F", "B") - ang["FEB"]) < 1e-3
    assert abs(angle("E", "F", "G") - ang["FEG"]) < 2e-3
    assert abs(abs(angle("G", "E", "A")) - ang["EGA"]) < 2e-3
    assert abs(math.pi - abs(angle("H", "E", "A")) - ang["EHA"]) < 1e-3
    assert abs(abs(angle("F", "O", "E")) - ang["OFE"]) < 1e-3  # O between F and E
    # spring, motor, no gravity
    s = force(m, "spring")
    assert (s.body1, s.body2) == ("ground", "BDE")
    assert (s.stiffness, s.free_length) == tuple(ref.ANDREWS_SPRING.values())
    motor = force(m, "motor")
    assert motor.joint == "O" and motor.function(0.0) == ref.ANDREWS_TORQUE
    np.testing.assert_allclose(unit(joint(m, "O").axis), [0, 0, 1])
    np.testing.assert_array_equal(m.gravity, [0.0, 0.0, 0.0])
    assert m.solver.t_end == ref.ANDREWS_DURATION


def test_double_four_bar():
    m = model("double_four_bar")
    link = ref.A02_LINK
    ends = {}
    for b in m.bodies:
        assert b.mass == link["mass"]
        ax = rot(b.orientation)
        crank = b.name.startswith("crank")
        half = ax @ ([0, link["length"] / 2, 0] if crank else [link["length"] / 2, 0, 0])
        ends[b.name] = (np.array(b.position) - half, np.array(b.position) + half)
        assert math.isclose(b.inertia[2][2], link["inertia"], rel_tol=1e-15)
    for i, x in enumerate((0.0, 1.0, 2.0)):  # cranks vertical on the ground pivots
        lo, hi = ends[f"crank{i + 1}"]
        np.testing.assert_allclose(lo, [x, 0, 0], atol=1e-15)
        np.testing.assert_allclose(hi, [x, 1, 0], atol=1e-15)
    for i, x in enumerate((0.0, 1.0)):  # couplers horizontal at y = 1
        lo, hi = ends[f"coupler{i + 1}"]
        np.testing.assert_allclose(lo, [x, 1, 0], atol=1e-15)
        np.testing.assert_allclose(hi, [x + 1, 1, 0], atol=1e-15)
    for j in m.joints:  # every joint point is a link end of both its bodies
        for body in (j.body1, j.body2):
            if body != "ground":
                assert min(norm(np.subtract(j.point, e)) for e in ends[body]) < 1e-15
    np.testing.assert_allclose(point_velocity(m, "crank1", [0, 1, 0])[:2], ref.A02_B0_VELOCITY)
    np.testing.assert_array_equal(m.gravity, [0, -9.81, 0])
    assert next(o for o in m.outputs if o.name == "P_B0").point == (0.0, 1.0, 0.0)


def test_slider_crank_cardan():
    m = model("slider_crank_cardan")
    types = sorted(j.type for j in m.joints)
    assert types == ["prismatic", "revolute", "spherical", "universal"]  # Urkullu (2019) §8.9
    O = np.array(joint(m, "crank_pivot").point)
    A = np.array(joint(m, "crank_pin").point)
    cardan = joint(m, "cardan")
    B = np.array(cardan.point)
    np.testing.assert_array_equal(joint(m, "guide").point, B)
    # the rod is a uniform bar from A to B; the cross is perpendicular to the rod and square
    rod = m.body("rod")
    np.testing.assert_allclose(rod.position, (A + B) / 2, atol=1e-15)
    assert abs(unit(cardan.axis1) @ unit(cardan.axis2)) < 1e-15
    assert abs(unit(cardan.axis2) @ (B - A)) < 1e-15
    assert abs(unit(cardan.axis1) @ (B - A)) < 0.99 * norm(B - A)  # the cross is not locked
    np.testing.assert_allclose(
        local(m, "rod", B) - local(m, "rod", A), [norm(B - A), 0, 0], atol=1e-15
    )
    np.testing.assert_allclose(m.body("slider").position, B)
    np.testing.assert_allclose(m.body("crank").position, (O + A) / 2)
    assert norm(A - O) == 0.1 and math.isclose(norm(B - A), 0.3, rel_tol=1e-15)


def test_stiff_pendulum():
    m = model("stiff_pendulum")
    p = ref.STIFF_PENDULUM
    (bob,) = m.bodies
    hinge = np.array(joint(m, "hinge").point)
    assert bob.mass == p["mass"]
    np.testing.assert_allclose(np.subtract(bob.position, hinge), [0, -p["length"], 0])  # hanging
    np.testing.assert_array_equal(m.gravity, [0, -p["g"], 0])
    izz = bob.inertia[2][2] + bob.mass * p["length"] ** 2
    w_max = math.sqrt(bob.mass * p["g"] * p["length"] / izz)
    assert math.isclose(w_max, ref.STIFF_PENDULUM_OMEGA_MAX, rel_tol=1e-6)
    gamma, beta = 0.5, 1.0 / 12.0
    assert math.isclose(
        math.sqrt(1 / (0.5 * gamma - beta)) / w_max, ref.STIFF_PENDULUM_FG_DT_MAX, rel_tol=1e-5
    )
    assert math.isclose(2 / w_max, ref.STIFF_PENDULUM_CD_DT_MAX, rel_tol=1e-6)
    tau = force(m, "tau")
    assert tau.type == "joint_torque" and tau.joint == "hinge"
    for t in (0.0, 3.0, 17.0):
        assert math.isclose(
            tau.function(t), p["tau0"] * math.sin(p["forcing_rate"] * t), abs_tol=1e-15
        )
    np.testing.assert_allclose(bob.velocity, 0.0)
    np.testing.assert_allclose(bob.angular_velocity, 0.0)
    assert m.solver.parameters["beta"] == beta and m.solver.formulation == "null_space"
