"""Poses and glyph geometry from result rows (app.scene): pure numpy, no display needed."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from app import scene
from solver import load_model, simulate

ROOT = Path(__file__).resolve().parents[2]


def test_quaternion_matrix_is_a_rotation_about_the_axis():
    angle = 0.7
    e = np.array([math.cos(angle / 2), 0.0, 0.0, math.sin(angle / 2)])  # about z
    r = scene.quat_matrix(e)
    assert np.allclose(r @ r.T, np.eye(3))
    assert np.allclose(r @ [1, 0, 0], [math.cos(angle), math.sin(angle), 0])


def test_column_map_finds_rigid_bodies_point_masses_outputs_and_nodes():
    columns = ["t", "crank.x", "crank.y", "crank.z", "crank.e0", "crank.e1", "crank.e2"]
    columns += ["crank.e3", "bob.x", "bob.y", "bob.z", "bob.vx", "bob.vy", "bob.vz"]
    columns += ["beam.n0.x", "beam.n0.y", "beam.n0.z", "beam.n0.tx", "beam.n0.ty", "beam.n0.tz"]
    columns += ["beam.n1.x", "beam.n1.y", "beam.n1.z", "energy.total"]
    cmap = scene.ColumnMap.from_columns(columns)
    assert cmap.rigid == {"crank": 1}
    assert cmap.point == {"bob": 8}
    assert cmap.nodes == {"beam": [(14, 17), (20, None)]}


def test_body_geometry_follows_the_rows_of_a_run():
    """A shape point fixed to the crank of the planar four-bar, moved with T(t)·T(0)⁻¹,
    lands where the crank's output point P1 is in the results."""
    model = load_model(ROOT / "examples" / "four_bar_planar.json")
    result = simulate(model, t_end=0.3)
    cmap = scene.ColumnMap.from_columns(result.columns)
    crank = model.body("crank")
    p1 = next(o for o in model.outputs if o.name == "P1")
    assert p1.body == "crank"
    for row in result.rows:
        moved = scene.transform_point(scene.motion_matrix(cmap, row, crank), p1.point)
        assert np.allclose(moved, scene.point_of(cmap, row, "P1"), atol=1e-9)


def test_helix_runs_between_its_end_points():
    a, b = np.array([0.0, 0.0, 0.0]), np.array([0.0, 0.0, 2.0])
    points = scene.helix(a, b, radius=0.1, coils=5)
    assert np.allclose(points[0], a) and np.allclose(points[-1], b)
    radial = np.linalg.norm(points[1:-1, :2], axis=1)
    assert np.allclose(radial, 0.1)


def test_hermite_curve_passes_through_the_nodes():
    model = load_model(ROOT / "examples" / "ancf_flexible_pendulum.json")
    body = model.bodies[0]
    nodes = np.array(body.node_positions())
    columns = ["t"]
    row = [0.0]
    tangent = (nodes[-1] - nodes[0]) / np.linalg.norm(nodes[-1] - nodes[0])
    for k, p in enumerate(nodes):
        columns += [f"{body.name}.n{k}.{f}" for f in ("x", "y", "z", "tx", "ty", "tz")]
        row += [*p, *tangent]
    cmap = scene.ColumnMap.from_columns(columns)
    curve = scene.node_curve(cmap, np.array(row), body, samples=4)
    assert np.allclose(curve[::4], nodes)
    assert np.allclose(curve[:, 1:], 0.0)  # straight beam stays straight


def test_derived_quantities_angle_and_speed():
    columns = ["t", "b.e0", "b.e1", "b.e2", "b.e3", "P.vx", "P.vy", "P.vz"]
    data = np.array([[0.0, math.cos(0.5), 0.0, 0.0, math.sin(0.5), 3.0, 4.0, 0.0]])
    assert scene.derived_quantities(columns) == ["b.angle", "P.speed"]
    assert scene.quantity(data, columns, "b.angle")[0] == pytest.approx(math.degrees(1.0))
    assert scene.quantity(data, columns, "P.speed")[0] == pytest.approx(5.0)
    assert scene.label_of("P.speed") == "P.speed (m/s)"
    assert scene.label_of("energy.total") == "energy.total (J)"
