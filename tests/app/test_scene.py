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


def test_scaled_deformation_magnifies_bending_and_keeps_the_rigid_motion():
    """Nodes of a straight beam, turned 40° about z and moved: with no bending every scale
    draws them where they are; a bend relative to that placement grows linearly."""
    xs0 = np.column_stack([np.linspace(0.0, 1.0, 6), np.zeros(6), np.zeros(6)])
    ts0 = np.tile([1.0, 0.0, 0.0], (6, 1))
    c, s = math.cos(0.7), math.sin(0.7)
    rot = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
    moved = xs0 @ rot.T + [0.3, -0.2, 0.5]
    for scale in (1.0, 10.0, 1000.0):
        x, t = scene.scaled_deformation(moved, ts0 @ rot.T, xs0, ts0, scale)
        np.testing.assert_allclose(x, moved, atol=1e-12)
        np.testing.assert_allclose(t, ts0 @ rot.T, atol=1e-12)
    # a small sag (w = 1e-4 (3u² − u³)/2, the cantilever's shape), placed the same way
    u = xs0[:, 0]
    sag = np.column_stack([np.zeros(6), np.zeros(6), 1e-4 * (3 * u**2 - u**3) / 2])
    bent = (xs0 + sag) @ rot.T + [0.3, -0.2, 0.5]
    r, shift = scene.rigid_fit(xs0, bent)
    fitted = xs0 @ r.T + shift
    x1, _ = scene.scaled_deformation(bent, None, xs0, None, 1.0)
    x100, _ = scene.scaled_deformation(bent, None, xs0, None, 100.0)
    np.testing.assert_allclose(x1, bent, atol=1e-15)
    np.testing.assert_allclose(x100 - fitted, 100 * (bent - fitted), atol=1e-12)
    assert np.abs(bent - fitted).max() > 1e-5  # a bend the fit cannot take away


def test_rigid_fit_recovers_a_rotation_and_translation():
    rng = np.random.default_rng(3)
    pts = rng.normal(size=(8, 3))
    axis = np.array([1.0, 2.0, -0.5]) / np.linalg.norm([1.0, 2.0, -0.5])
    k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    rot = np.eye(3) + math.sin(1.1) * k + (1 - math.cos(1.1)) * k @ k
    r, shift = scene.rigid_fit(pts, pts @ rot.T + [1.0, 2.0, 3.0])
    np.testing.assert_allclose(r, rot, atol=1e-12)
    np.testing.assert_allclose(shift, [1.0, 2.0, 3.0], atol=1e-12)
