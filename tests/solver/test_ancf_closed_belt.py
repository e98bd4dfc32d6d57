"""Closed belts (``loop``): the wrap path, the shared end node, the bending energy of a ring,
the static initial equilibrium on two pulleys against the analytic belt tension, and the
model file's checks of loops, belt options and pulley contacts."""

from __future__ import annotations

import copy
import math
from pathlib import Path

import numpy as np
import pytest

from solver.mechanics.system import MultibodySystem
from solver.model import ModelError, model_from_data
from solver.model.loop_path import LoopPath, LoopPathError
from tests.validation.belt_drive_data import string_tension

ROOT = Path(__file__).resolve().parents[2]
R, X = 0.08125, 0.191441  # the thesis's pulleys (Table 7.1)
E, AREA, RHO = 1e8, 1e-4, 1036.0


def belt_drive(elements=20, strain=0.0025, bending=0.01, initial=None) -> dict:
    loop = {
        "circles": [{"center": [-X, 0, 0], "radius": R}, {"center": [X, 0, 0], "radius": R}],
        "strain": strain,
    }
    if initial:
        loop["initial"] = initial
    contact = {"stiffness": 1e7, "damping": 10.0, "friction": {"mu": 1.2, "slope": 1e5}}
    return {
        "biela": 1,
        "gravity": [0, 0, 0],
        "bodies": [
            {
                "name": "belt",
                "type": "ancf_beam2d",
                "element": "belt",
                "elements": elements,
                "loop": loop,
                "material": {"E": E, "nu": 0.3, "density": RHO},
                "section": {"shape": "rectangle", "width": 0.01, "height": 0.01},
                "belt": {"bending_factor": bending},
            }
        ],
        "forces": [
            {
                "name": name,
                "type": "pulley_contact",
                "belt": "belt",
                "pulley": {"body": "ground", "center": [x, 0, 0], "radius": R},
                **contact,
            }
            for name, x in (("left", -X), ("right", X))
        ],
    }


# ---- the path ------------------------------------------------------------------------
def test_two_circle_path_is_the_open_belt():
    r1, r2, dist = 0.1, 0.05, 0.4
    path = LoopPath([((0, 0, 0), r1), ((dist, 0, 0), r2)])
    beta = math.asin((r1 - r2) / dist)
    want = 2 * math.sqrt(dist**2 - (r1 - r2) ** 2) + r1 * (math.pi + 2 * beta)
    want += r2 * (math.pi - 2 * beta)
    assert path.length == pytest.approx(want, rel=1e-14)
    # the thesis's drive: 2 × 0.382882 + 2π × 0.08125
    thesis = LoopPath([((-X, 0, 0), R), ((X, 0, 0), R)])
    assert thesis.length == pytest.approx(1.276273, abs=1e-6)
    pos, tan = thesis.at(np.linspace(0, thesis.length, 50, endpoint=False))
    # every point sits on a span (|y| = R) or on an arc (distance R from a centre)
    on_arc = np.minimum(np.hypot(pos[:, 0] + X, pos[:, 1]), np.hypot(pos[:, 0] - X, pos[:, 1]))
    assert np.all((np.abs(np.abs(pos[:, 1]) - R) < 1e-12) | (np.abs(on_arc - R) < 1e-12))
    assert np.allclose(np.linalg.norm(tan, axis=1), 1.0)
    # counter-clockwise: starts at the bottom of the first circle heading +x
    assert np.allclose(pos[0], [-X, -R]) and np.allclose(tan[0], [1, 0])


def test_three_circles_and_refused_orders():
    ccw = [((0, 0, 0), 0.1), ((0.5, 0, 0), 0.05), ((0.2, 0.4, 0), 0.08)]
    path = LoopPath(ccw)
    turning = sum(p[4] for p in path.pieces if p[0] == "arc")
    assert turning == pytest.approx(2 * math.pi)
    with pytest.raises(LoopPathError, match="counter-clockwise"):
        LoopPath([ccw[0], ccw[2], ccw[1]])
    with pytest.raises(LoopPathError, match="inside"):
        LoopPath([((0, 0, 0), 0.3), ((0.1, 0, 0), 0.05)])
    ring = LoopPath([((1, 2, 0), 0.5)])
    assert ring.length == pytest.approx(math.pi)
    assert np.allclose(ring.at(0.0)[0], [[1, 1.5]])


# ---- the closed mesh ---------------------------------------------------------------------
def test_last_element_shares_node_zero():
    system = MultibodySystem(model_from_data(belt_drive(12, initial="path")))
    beam = system.slots["belt"].owner.beams[0]
    assert beam.n_nodes == beam.n_elements == 12
    assert beam.size == 12 * 6 and system.n == 72
    assert np.array_equal(beam.cols[-1, 6:], beam.cols[0, :6])
    E0 = beam.element_arrays(system.q0)
    # on the path: slopes (1 + strain) along the tangent, r_y the unit inward normal
    assert np.allclose(np.linalg.norm(E0[:, 1], axis=1), 1.0025)
    assert np.allclose(np.linalg.norm(E0[:, 2], axis=1), 1.0)
    assert np.allclose(np.einsum("ij,ij->i", E0[:, 1], E0[:, 2]), 0.0)
    assert np.allclose(E0[-1, 3], E0[0, 0])  # the last element ends where the first starts
    model = model_from_data(belt_drive(12, initial="path"))
    nodes = np.array(model.body("belt").node_positions())
    assert np.allclose(nodes[:, :2], system.q0[beam.cols[:, :2]])


def ring(elements: int, bending: float) -> dict:
    data = belt_drive(elements, strain=0.0, bending=bending, initial="path")
    data["bodies"][0]["loop"]["circles"] = [{"center": [0, 0, 0], "radius": R}]
    data["forces"] = []
    return data


def test_ring_bending_energy():
    """A belt of natural length 2πR closed on a circle: U → 2πR (E α₂ I κ²/2 + E α₂ I₄ κ⁴/8)
    with κ = 1/R, and it scales with α₂ (the bending factor)."""
    inertia, i4 = 0.01**4 / 12, 0.01**6 / 80
    want = 2 * math.pi * R * E * 0.01 * (inertia / (2 * R**2) + i4 / (8 * R**4))
    errors = []
    for n in (8, 16, 32):
        system = MultibodySystem(model_from_data(ring(n, 0.01)))
        errors.append(abs(system.elastic_energy(system.q0) / want - 1))
    assert errors[-1] < 1e-5 and errors[0] > 5 * errors[1] > 25 * errors[2]
    stiff = MultibodySystem(model_from_data(ring(32, 1.0)))
    assert stiff.elastic_energy(stiff.q0) / want == pytest.approx(100.0, rel=1e-4)


# ---- the initial equilibrium ----------------------------------------------------------------
def test_initial_equilibrium_tension_against_the_analytic_belt():
    """With α₂ = 1e-4 the belt is a string: its span tension is the analytic one to 0.1 %;
    the equilibrium is at rest with every node's forces balanced except along the path at
    node 0, where it is held (the circulation the pulleys cannot resist)."""
    want = string_tension(0.0025)
    assert want == pytest.approx(23.643, abs=1e-3)  # 5.4 % below E A × 0.0025: the penetration
    system = MultibodySystem(model_from_data(belt_drive(80, bending=1e-4)))
    slot = system.slots["belt"]
    tension = slot.owner.axial_forces(system.q0, slot)
    mid_spans = [12, 52]  # the middle of the lower and upper spans (24 elements each)
    assert np.allclose(tension[mid_spans], want, rtol=1e-3)
    assert np.all(system.qd0 == 0.0)
    force = system.forces(system.q0, system.qd0, 0.0)
    beam = slot.owner.beams[0]
    scale = want  # N
    node0 = beam.node_cols(0, 0)
    rest = np.setdiff1d(np.arange(system.n), node0)
    assert np.abs(force[rest]).max() < 1e-8 * scale
    assert abs(force[node0] @ beam.node_frames[0][:2, 0]) < 1e-3 * scale


def test_equilibrium_span_tension_grows_with_bending_stiffness():
    """The bending stiffness carries part of the wrap: the span tension exceeds the string's
    by about E α₂ I/R² (0.13 N at α₂ = 0.01, the thesis's value), and the excess vanishes
    with α₂."""
    want = string_tension(0.0025)
    excess = []
    for bending in (1e-2, 1e-3):
        system = MultibodySystem(model_from_data(belt_drive(80, bending=bending)))
        slot = system.slots["belt"]
        excess.append(slot.owner.axial_forces(system.q0, slot)[12] - want)
    scale = E * 1e-2 * 0.01**4 / 12 / R**2
    assert 0.5 * scale < excess[0] < 2.0 * scale
    assert 5.0 < excess[0] / excess[1] < 20.0


# ---- what the file refuses ------------------------------------------------------------------
MAT = {
    "material": {"E": 1e9, "density": 1000},
    "section": {"shape": "circle", "radius": 0.01},
}


def _refused(change, match):
    data = copy.deepcopy(belt_drive(8))
    change(data)
    with pytest.raises(ModelError, match=match):
        model_from_data(data)


def test_model_checks_name_the_item_and_field():
    body = lambda d: d["bodies"][0]  # noqa: E731
    _refused(
        lambda d: body(d).update(points=[[0, 0, 0], [1, 0, 0]]),
        r'bodies\[0\] "belt": loop cannot be given with points',
    )
    _refused(lambda d: body(d).update(type="ancf_cable"), r"loop is only for planar belts")
    _refused(lambda d: body(d).update(elements=2), r"elements must be at least 3 for a closed")
    _refused(
        lambda d: (
            body(d)["loop"]["circles"].reverse()
            or body(d)["loop"]["circles"].append({"center": [0, 0.5, 0], "radius": 0.1})
        ),
        r"loop.circles are not listed counter-clockwise round a convex loop",
    )
    _refused(
        lambda d: body(d)["loop"]["circles"][0].update(center=[0, 0, 1]),
        r"loop.circles\[0\].center must lie in the plane z = 0",
    )
    _refused(
        lambda d: d.update(forces=[]) or body(d)["loop"].update(initial="equilibrium"),
        r'bodies\[0\] "belt": loop.initial is "equilibrium", which needs a pulley_contact',
    )
    _refused(lambda d: body(d).update(element="continuum"), r"belt gives the stiffness factors")
    _refused(
        lambda d: body(d)["material"].update(damping=0.01),
        r"material.damping must be 0: the belt element has no material damping",
    )
    _refused(
        lambda d: d["forces"][0].update(belt="ground"),
        r'forces\[0\] "left": belt cannot be ground here',
    )
    _refused(
        lambda d: (
            d["bodies"].append(
                {"name": "bar", "type": "ancf_cable", "points": [[0, 0, 1], [1, 0, 1]], **MAT}
            )
            or d["forces"][0].update(belt="bar")
        ),
        r'belt "bar" is ancf_cable; a pulley contact acts on a planar flexible body',
    )
    _refused(
        lambda d: (
            d["bodies"].append({"name": "dot", "type": "point_mass", "mass": 1})
            or d["forces"][0]["pulley"].update(body="dot")
        ),
        r"pulley.body \"dot\" is point_mass; a pulley is a rigid body or ground",
    )
    _refused(
        lambda d: d["forces"][0]["friction"].update(velocity_tolerance=0.1),
        r'unknown field "friction.velocity_tolerance"',
    )
    _refused(
        lambda d: d.update(outputs=[{"contact_forces": "belt"}]),
        r'outputs "contact_forces": "belt" is not one of the model\'s forces',
    )
    _refused(
        lambda d: d.update(outputs=[{"axial_forces": "left"}]),
        r'outputs "axial_forces": "left" is not one of the model\'s bodies',
    )


def test_a_closed_belt_node_is_not_shared_with_a_rigid_body():
    """A ``share`` joint on a closed belt's node is refused naming the joint and the field
    (planar natural coordinates, where sharing is otherwise available)."""
    data = belt_drive()
    node0 = MultibodySystem(model_from_data(belt_drive())).slots["belt"]
    beam = node0.owner.beam(node0)
    point = [float(v) for v in beam.nodes[0]]
    data["solver"] = {"coordinates": "natural_planar"}
    data["bodies"].append(
        {"name": "pin", "mass": 0.01, "inertia": [1e-6, 1e-6, 1e-6], "position": point}
    )
    data["joints"] = [
        {
            "name": "tie",
            "type": "spherical",
            "body1": "belt",
            "body2": "pin",
            "point": point,
            "share": True,
        }
    ]
    with pytest.raises(ModelError, match=r'joints\[0\] "tie": share "belt" is a closed belt'):
        MultibodySystem(model_from_data(data))


def test_check_counts_the_closed_belt_and_its_driven_pulley():
    """``check``: a closed belt of n belt elements has 6n coordinates, Grübler's count agrees
    with the rank of the constraint Jacobian, and the driven pulley's spin, which only the
    belt's friction moves, is not a passive freedom."""
    from solver import check, load_model

    report = check(load_model(ROOT / "examples" / "belt_drive.json"))
    assert report.freedoms == 6 + 6 + 6 * 20
    assert report.grubler_dof == report.dof == 6 * 20 + 1
    assert report.mobility.passive == []
