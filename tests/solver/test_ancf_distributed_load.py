"""``distributed_load``: consistent generalised forces of a line load on flexible bodies.

The resultant and the moment of the generalised forces equal f·L and (L/2) t × f·L (virtual
work of a rigid translation and rotation); a clamped cantilever under uniform q deflects
q L⁴/(8 E I) at the tip; time functions scale the load; bad references are refused."""

from __future__ import annotations

import numpy as np
import pytest

from solver import simulate
from solver.analysis.statics import static_equilibrium
from solver.mechanics.rotations import skew
from solver.mechanics.system import MultibodySystem
from solver.model import ModelError, model_from_data

MATERIAL = {"E": 2e11, "nu": 0.3, "density": 7800.0}
RECT = {"shape": "rectangle", "width": 0.02, "height": 0.03}


def beam_model(kind, elements, vector, points=((0, 0, 0), (2.0, 0.0, 0.0)), element=None):
    body = {
        "name": "b",
        "type": kind,
        "points": [list(points[0]), list(points[1])],
        "elements": elements,
        "material": dict(MATERIAL),
        "section": dict(RECT),
    }
    if element:
        body["element"] = element
    load = {"name": "q", "type": "distributed_load", "body": "b", "vector": vector}
    clamp = {"name": "C", "type": "fixed", "body1": "ground", "body2": "b", "point": [0, 0, 0]}
    return {
        "biela": 1,
        "gravity": [0, 0, 0],
        "bodies": [body],
        "joints": [clamp],
        "forces": [load],
        "solver": {"analysis": "static"},
    }


def rigid_motions(system, slot):
    """Virtual displacements of the undeformed beam: 3 translations, 3 rotations about the
    start (as columns, ``(n, 6)``), from the node layout (position, then slopes)."""
    owner = slot.owner
    beam = owner.beam(slot)
    d = beam.d
    out = np.zeros((system.n, 6))
    for k in range(6):
        for node in range(beam.n_nodes):
            for v, name in enumerate(beam.element.node_vectors):
                cols = beam.node_cols(node, v)
                x = system.q0[cols]
                if k < 3:
                    delta = np.eye(3)[k] if name == "r" else np.zeros(3)
                else:
                    x3 = np.zeros(3)
                    x3[:d] = x - (beam.start[:d] if name == "r" else 0.0)
                    delta = -skew(x3) @ np.eye(3)[k - 3]  # θ × x
                out[cols, k] = delta[:d]
    return out


@pytest.mark.parametrize(
    "kind,element",
    [
        ("ancf_beam2d", None),
        ("ancf_beam2d", "continuum"),
        ("ancf_cable", None),
        ("ancf_beam3d", None),
    ],
)
def test_resultant_and_moment_are_exact(kind, element):
    pts = ((0.2, -0.1, 0.0), (1.4, 0.8, 0.0 if kind == "ancf_beam2d" else 0.5))
    f = np.array([3.0, -7.0, 0.0 if kind == "ancf_beam2d" else 2.0])
    data = beam_model(kind, 3, list(f), pts, element)
    data["joints"] = []
    s = MultibodySystem(model_from_data(data))
    q_load = s.forces(s.q0, np.zeros(s.n), 0.0)
    slot = s.slots["b"]
    motions = rigid_motions(s, slot)
    length = float(np.linalg.norm(np.subtract(pts[1], pts[0])))
    tangent = np.subtract(pts[1], pts[0]) / length
    work = q_load @ motions
    planar = kind == "ancf_beam2d"
    resultant = f * length
    moment = np.cross(0.5 * length * tangent, resultant)
    assert np.allclose(work[:3][: 2 if planar else 3], resultant[: 2 if planar else 3], rtol=1e-9)
    if planar:
        assert work[5] == pytest.approx(moment[2], rel=1e-9)
    else:
        assert np.allclose(work[3:], moment, rtol=1e-9, atol=1e-9 * np.abs(moment).max())


@pytest.mark.parametrize(
    "kind,element,elements,tol",
    [
        ("ancf_beam2d", None, 4, 1e-4),
        ("ancf_beam2d", "continuum", 8, 1e-2),
        ("ancf_beam3d", None, 8, 1e-2),
    ],
)
def test_clamped_cantilever_under_uniform_load(kind, element, elements, tol):
    """Tip deflection q L⁴ / (8 E I) (small deflection: L/δ ≈ 2000)."""
    q, length = -2.0, 2.0
    data = beam_model(kind, elements, [0, q, 0], element=element)
    if element == "continuum" or kind == "ancf_beam3d":
        data["bodies"][0]["material"]["nu"] = (
            0.0  # no Poisson locking (García Vallejo (2006) ch. 2)
        )
    m = model_from_data(data)
    s = MultibodySystem(m)
    sol = static_equilibrium(s)
    slot = s.slots["b"]
    tip = slot.owner.node_positions(sol.q, slot)[-1]
    ei = 2e11 * 0.03 * 0.02**3 / 12  # bending in x-y: about z, width 0.02 along y
    exact = q * length**4 / (8 * ei)
    assert tip[1] == pytest.approx(exact, rel=tol)


def test_time_function_load_in_a_run():
    """A ramp f(t) = 100 t: the generalised force scales with it and its work is counted."""
    data = beam_model("ancf_beam2d", 2, [0, {"expression": "-100*t"}, 0])
    data["solver"] = {"analysis": "dynamic", "dt": 1e-3, "t_end": 0.02}
    m = model_from_data(data)
    s = MultibodySystem(m)
    f1 = s.forces(s.q0, np.zeros(s.n), 1.0)
    f2 = s.forces(s.q0, np.zeros(s.n), 2.0)
    assert np.allclose(f2, 2 * f1) and np.abs(f1).max() > 0
    res = simulate(m)
    assert res.status == "ok"
    assert res.column("energy.work")[-1] > 0.0


def test_kernels_evaluate_two_loads_and_their_power():
    """Two beams, each under its own load (one a time function): the kernels evaluate both
    (nothing left to Python), each beam's generalised forces have the resultant f·L, and
    the power of the loads is Q·q̇."""
    data = beam_model("ancf_beam2d", 2, [0, {"expression": "-100*t"}, 0])
    second = dict(data["bodies"][0], name="b2", points=[[0, 1, 0], [1.5, 1, 0]], elements=3)
    data["bodies"].append(second)
    data["forces"].append(
        {"name": "q2", "type": "distributed_load", "body": "b2", "vector": [4, 1, 0]}
    )
    data["joints"] = []
    s = MultibodySystem(model_from_data(data))
    without = dict(data, forces=[])
    bare = MultibodySystem(model_from_data(without))
    rng = np.random.default_rng(3)
    q = s.q0 + 1e-3 * rng.standard_normal(s.n)
    qd = rng.standard_normal(s.n)
    t = 0.5
    loads = s.forces(q, qd, t) - bare.forces(q, qd, t)
    for name, f, length in (("b", [0.0, -50.0], 2.0), ("b2", [4.0, 1.0], 1.5)):
        work = loads @ rigid_motions(s, s.slots[name])
        assert np.allclose(work[:2], np.multiply(f, length), rtol=1e-12, atol=1e-12)
    power = s.nonconservative_power(q, qd, t) - bare.nonconservative_power(q, qd, t)
    assert power == pytest.approx(loads @ qd, rel=1e-12)


def test_bad_references_are_refused():
    data = beam_model("ancf_beam2d", 2, [0, -1, 0])
    data["bodies"].append({"name": "r", "mass": 1, "inertia": [1, 1, 1]})
    data["forces"][0]["body"] = "r"
    with pytest.raises(ModelError, match="body") as err:
        model_from_data(data)
    assert 'forces[0] "q"' in str(err.value) and "not a flexible body" in str(err.value)
    data["forces"][0]["body"] = "ground"
    with pytest.raises(ModelError, match="body"):
        model_from_data(data)
    data["forces"][0]["body"] = "b"
    data["forces"][0]["point"] = [0, 0, 0]
    with pytest.raises(ModelError, match="point"):
        model_from_data(data)
