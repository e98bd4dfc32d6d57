"""Planar natural coordinates (``"coordinates": "natural_planar"``): two basic entities of
two coordinates per rigid body (García Vallejo (2006) §2.3.1).

The frame's point coefficients and mass matrix are checked against direct integration over
a body; planar mechanisms run with a third of the coordinates of spatial natural coordinates
and give the same trajectories; the CSV state is the rigid body's; what a planar body cannot
do is refused naming the item and field."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from solver import load_model, simulate
from solver.cli import main
from solver.mechanics.bodies.natural.planar import PlanarFrame, complex_block
from solver.mechanics.system import MultibodySystem
from solver.model import ModelError, model_from_data
from solver.model.errors import UnsupportedFeature
from tests.solver.test_node_sharing import _dense, _jacobian_fd

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def rotate(theta, v):
    c, s = np.cos(theta), np.sin(theta)
    return np.array([c * v[0] - s * v[1], s * v[0] + c * v[1]])


@pytest.mark.parametrize("second_is_point", [True, False])
def test_frame_places_points_and_integrates_the_mass(second_is_point):
    """A 0.4 × 0.1 m plate (body axes at its centre) with entities at local (−0.1, 0.03) and
    (0.15, −0.02) (a point) or the unit vector at 30°: body points from the coefficients
    after a rigid motion, and Z = ∫ conj(a_i) a_j dm by a 40 × 40 Gauss rule."""
    e1 = np.array([-0.1, 0.03, 0.0])
    e2 = (
        np.array([0.15, -0.02, 0.0]) if second_is_point else np.array([np.cos(0.5), np.sin(0.5), 0])
    )
    frame = PlanarFrame([True, second_is_point], [e1, e2])
    theta, shift = 0.7, np.array([1.0, -2.0])
    g1 = shift + rotate(theta, e1)
    g2 = shift + rotate(theta, e2) if second_is_point else rotate(theta, e2)
    for xbar in ([0.2, 0.05, 0], [-0.2, -0.05, 0.3], [0.0, 0.0, 0.0]):
        a = frame.point_coefficients(xbar)
        got = complex_block(a[0]) @ g1 + complex_block(a[1]) @ g2
        assert got == pytest.approx(shift + rotate(theta, xbar), abs=1e-14)
    a = frame.vector_coefficients([0.3, -0.4, 0.0])
    got = complex_block(a[0]) @ g1 + complex_block(a[1]) @ g2
    assert got == pytest.approx(rotate(theta, [0.3, -0.4]), abs=1e-14)
    mass, wx, wy = 3.0, 0.4, 0.1
    izz = mass * (wx**2 + wy**2) / 12
    x, w = np.polynomial.legendre.leggauss(40)
    z = np.zeros((2, 2), complex)
    for xi, wi in zip(0.5 * wx * x, 0.5 * wx * w, strict=True):
        for yi, vi in zip(0.5 * wy * x, 0.5 * wy * w, strict=True):
            a = frame.point_coefficients([xi, yi, 0.0])
            z += mass / (wx * wy) * wi * vi * np.outer(np.conj(a), a)
    assert frame.mass_coefficients(mass, izz) == pytest.approx(z, rel=1e-12, abs=1e-14)


@pytest.mark.parametrize(
    ("name", "kw", "counts"),
    [
        ("andrews_squeezer", dict(t_end=0.002, dt=1e-5, output_dt=2e-4), (14, 42)),
        ("slider_crank_planar", dict(t_end=0.3), (4, 12)),
        ("four_bar_falling", dict(t_end=0.3), (6, 18)),
    ],
)
def test_planar_mechanisms_match_spatial_natural_coordinates(name, kw, counts):
    """The same mechanism with a third of the coordinates; the trajectories agree to the
    solver tolerance (measured: 2.6e-8 of 58 for the squeezer, 1e-10 and 1e-14 for the
    others)."""
    model = load_model(EXAMPLES / f"{name}.json")
    out = {}
    for coordinates, n in zip(("natural_planar", "natural"), counts, strict=True):
        assert MultibodySystem(model, coordinates).n == n
        r = simulate(model, coordinates=coordinates, **kw)
        assert r.status == "ok", r.message
        cols = [c for c in r.columns if c.split(".")[0] in {b.name for b in model.bodies}]
        out[coordinates] = r.data[:, [r.columns.index(c) for c in cols]]
    scale = np.abs(out["natural"]).max()
    assert np.abs(out["natural_planar"] - out["natural"]).max() < 1e-8 * scale


def test_kinematic_four_bar_equals_reference_point_coordinates():
    model = load_model(EXAMPLES / "four_bar_planar.json")
    runs = [
        simulate(model, coordinates=c, t_end=1.0) for c in ("natural_planar", "reference_point")
    ]
    cols = [c for c in runs[1].columns if c.split(".")[0] in ("crank", "coupler", "rocker")]
    a, b = (r.data[:, [r.columns.index(c) for c in cols]] for r in runs)
    assert np.abs(a - b).max() < 1e-9


def spinner(**body):
    data = {
        "biela": 1,
        "gravity": [0, -9.81, 0],
        "bodies": [
            {
                "name": "plate",
                "mass": 2.0,
                "inertia": [0.01, 0.02, 0.03],
                "position": [0.5, 0.2, 0.1],
                "orientation": {"axis": [0, 0, 1], "angle": 0.4},
                "velocity": [1.0, 2.0, 0.0],
                "angular_velocity": [0, 0, 3.0],
                **body,
            }
        ],
        "solver": {"coordinates": "natural_planar", "dt": 1e-3, "t_end": 0.5, "output_dt": 0.1},
    }
    return model_from_data(data)


def test_free_planar_body_flies_a_parabola_and_spins():
    """CSV state: centre of mass (z kept), Euler parameters of θ about z, velocity, ω."""
    r = simulate(spinner())
    assert r.status == "ok", r.message
    t = r.t
    assert r.column("plate.x") == pytest.approx(0.5 + 1.0 * t, abs=1e-9)
    assert r.column("plate.y") == pytest.approx(0.2 + 2.0 * t - 0.5 * 9.81 * t**2, abs=1e-9)
    assert r.column("plate.z") == pytest.approx(0.1 + 0 * t)
    theta = 0.4 + 3.0 * t
    # the rotating unit vector has the scheme's phase error, ~ω³Δt²t/12 ≈ 1e-6 rad
    assert r.column("plate.e0") == pytest.approx(np.cos(theta / 2), abs=5e-6)
    assert r.column("plate.e3") == pytest.approx(np.sin(theta / 2), abs=5e-6)
    assert r.column("plate.wz") == pytest.approx(3.0 + 0 * t, abs=1e-5)
    assert r.column("plate.vy") == pytest.approx(2.0 - 9.81 * t, abs=1e-9)
    # the mass matrix carries Izz: kinetic energy ½ m v² + ½ Izz ω²
    v2 = r.column("plate.vx") ** 2 + r.column("plate.vy") ** 2
    assert r.column("energy.kinetic") == pytest.approx(0.5 * 2.0 * v2 + 0.5 * 0.03 * 9.0, rel=1e-12)


def test_planar_constraint_derivatives_match_finite_differences():
    s = MultibodySystem(load_model(EXAMPLES / "four_bar_planar.json"), "natural_planar")
    rng = np.random.default_rng(4)
    q = s.q0 + 0.01 * rng.standard_normal(s.n)
    qd = rng.standard_normal(s.n)
    num = _jacobian_fd(lambda x: s.constraints(x, qd, 0.3).phi, q)
    assert np.allclose(_dense(s.constraints(q, qd, 0.3).phi_q), num, atol=1e-6)
    lam = rng.standard_normal(s.m)
    k2, d2 = s.constraint_second_order(q, qd, lam, 0.3)
    num_k = _jacobian_fd(lambda x: _dense(s.constraints(x, qd, 0.3).phi_q).T @ lam, q)
    num_d = _jacobian_fd(lambda x: _dense(s.constraints(x, qd, 0.3).phi_q) @ qd, q)
    assert np.allclose(_dense(k2), num_k, atol=1e-6)
    assert np.allclose(_dense(d2), num_d, atol=1e-6)


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"orientation": {"axis": [1, 0, 0], "angle": 0.1}}, "orientation"),
        ({"velocity": [0, 0, 1.0]}, "velocity"),
        ({"angular_velocity": [1.0, 0, 0]}, "angular_velocity"),
    ],
)
def test_a_body_that_leaves_the_plane_is_refused(body, field):
    with pytest.raises(ModelError) as exc:
        MultibodySystem(spinner(**body))
    assert exc.value.field == field and 'bodies[0] "plate"' in str(exc.value)
    assert "natural_planar" in str(exc.value) or "plane" in str(exc.value) or "z" in str(exc.value)


def _two_bodies(joint, force=None):
    data = {
        "biela": 1,
        "bodies": [
            {"name": "a", "mass": 1, "inertia": [1, 1, 1]},
            {"name": "b", "mass": 1, "inertia": [1, 1, 1], "position": [1, 0, 0]},
        ],
        "joints": [{"name": "J", "body1": "a", "body2": "b", **joint}],
        "forces": [force] if force else [],
        "solver": {"coordinates": "natural_planar"},
    }
    return model_from_data(data)


@pytest.mark.parametrize(
    ("joint", "field"),
    [
        ({"type": "revolute", "point": [0.5, 0, 0], "axis": [1, 0, 0]}, "axis"),
        ({"type": "cylindrical", "point": [0.5, 0, 0], "axis": [0, 1, 1]}, "axis"),
        ({"type": "prismatic", "point": [0.5, 0, 0], "axis": [0, 0, 1]}, "axis"),
        ({"type": "point_on_line", "point": [0.5, 0, 0], "axis": [1, 0, 1]}, "axis"),
        ({"type": "point_on_plane", "point": [0.5, 0, 0], "normal": [0, 0, 1]}, "normal"),
        (
            {"type": "universal", "point": [0.5, 0, 0], "axis1": [0, 0, 1], "axis2": [0, 1, 0]},
            "type",
        ),
        ({"type": "planar", "point": [0.5, 0, 0], "normal": [0, 0, 1]}, "type"),
    ],
)
def test_joints_that_leave_the_plane_are_refused(joint, field):
    with pytest.raises(ModelError) as exc:
        MultibodySystem(_two_bodies(joint))
    assert exc.value.field == field and 'joints[0] "J"' in str(exc.value)


def test_torques_on_planar_bodies_are_refused_by_name():
    model = _two_bodies(
        {"type": "revolute", "point": [0.5, 0, 0], "axis": [0, 0, 1]},
        {"name": "T", "type": "torque", "body": "b", "vector": [0, 0, 1]},
    )
    with pytest.raises(UnsupportedFeature) as exc:
        MultibodySystem(model)
    assert 'forces[0] "T"' in str(exc.value) and "natural_planar" in str(exc.value)


def test_cli_refuses_a_planar_run_of_a_spatial_model(tmp_path, capsys):
    path = tmp_path / "m.json"
    path.write_text((EXAMPLES / "four_bar_spatial.json").read_text())
    code = main(["run", str(path), "--coordinates", "natural_planar", "--t-end", "0.01"])
    err = capsys.readouterr().err
    assert code == 1
    assert "planar" in err and err[-1] == "\n" and err.count("\n") == 1
