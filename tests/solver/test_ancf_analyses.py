"""Static equilibrium (Newton with load stepping) and linearised modes, from the API and
through ``simulate``/the CLI, on flexible and rigid models."""

from __future__ import annotations

import json

import numpy as np
import pytest

from solver import simulate
from solver.analysis.errors import SimulationError
from solver.analysis.modes import linear_modes
from solver.analysis.statics import StaticSolver, initial_configuration, static_equilibrium
from solver.cli import main
from solver.mechanics.system import MultibodySystem
from solver.model import model_from_data
from solver.model.errors import ModelError

E, RHO, W, H, LEN = 2e11, 7800.0, 0.02, 0.01, 1.0


def cantilever(kind, elements=4, load=(0, -10.0, 0), **solver):
    return model_from_data(
        {
            "biela": 1,
            "gravity": [0, 0, 0],
            "bodies": [
                {
                    "name": "b",
                    "type": kind,
                    "points": [[0, 0, 0], [LEN, 0, 0]],
                    "elements": elements,
                    "material": {"E": E, "nu": 0, "density": RHO},
                    "section": {"shape": "rectangle", "width": W, "height": H},
                }
            ],
            "joints": [
                {
                    "name": "clamp",
                    "type": "fixed",
                    "body1": "ground",
                    "body2": "b",
                    "point": [0, 0, 0],
                }
            ],
            "forces": [
                {
                    "name": "P",
                    "type": "force",
                    "body": "b",
                    "point": [LEN, 0, 0],
                    "vector": list(load),
                }
            ],
            "outputs": [{"name": "tip", "body": "b", "point": [LEN, 0, 0]}],
            "solver": solver,
        }
    )


def tip(system, q):
    return system.output_points(q, np.zeros_like(q))[0, :3]


@pytest.mark.parametrize("kind", ["ancf_beam2d", "ancf_cable", "ancf_beam3d"])
def test_small_load_cantilever_matches_beam_theory(kind):
    """P L³/(3 E I) in the plane of the section's width (I = h w³/12)."""
    s = MultibodySystem(cantilever(kind))
    sol = static_equilibrium(s)
    inertia = H * W**3 / 12 if kind != "ancf_cable" else (H * W**3 + W * H**3) / 24
    want = 10.0 * LEN**3 / (3 * E * inertia)
    got = -tip(s, sol.q)[1]
    # the continuum element converges slowly with the mesh (García Vallejo (2006) §3.2.5: −6 % with
    # 2 elements)
    tol = 0.03 if kind == "ancf_beam3d" else 1e-3
    assert got == pytest.approx(want, rel=tol)
    assert sol.residual < 1e-6
    # the clamp reaction balances the load: Σ constraint forces on positions = −P
    c = s.constraints(sol.q)
    reaction = -(c.phi_q.T @ sol.lam)
    assert reaction[1] == pytest.approx(10.0, rel=1e-6)


def elastica(alpha: float) -> tuple[float, float]:
    """Tip of a cantilever under a vertical tip load, ``α = P L²/(E I)``: shooting on
    ``θ'' = −α cos θ``, ``θ(0) = 0``, ``θ'(1) = 0`` (unit length)."""
    from scipy.integrate import solve_ivp
    from scipy.optimize import brentq

    def rhs(s, y):
        return [y[1], -alpha * np.cos(y[0]), np.cos(y[0]), -np.sin(y[0])]

    def tip_moment(k0):
        return solve_ivp(rhs, (0, 1), [0, k0, 0, 0], rtol=1e-12, atol=1e-12).y[1, -1]

    k0 = brentq(tip_moment, 0.0, alpha)
    y = solve_ivp(rhs, (0, 1), [0, k0, 0, 0], rtol=1e-12, atol=1e-12).y[:, -1]
    return y[2], y[3]


@pytest.mark.parametrize("kind,elements,tol", [("ancf_beam2d", 32, 2e-3), ("ancf_cable", 8, 1e-3)])
def test_large_deflection_matches_the_elastica(kind, elements, tol):
    """A tip load bending the cantilever through about 40°: the same equilibrium from the
    full load at once and in ten increments, on the elastica, without stretching."""
    m = cantilever(kind, elements, load=(0, -2500.0, 0))
    inertia = H * W**3 / 12
    if kind == "ancf_cable":  # a circle of the same area: the cable's bending is isotropic
        radius = np.sqrt(W * H / np.pi)
        m.bodies[0].section = type(m.bodies[0].section)("circle", radius=radius)
        inertia = np.pi * radius**4 / 4
    s = MultibodySystem(m)
    one = static_equilibrium(s)
    many = static_equilibrium(s, load_steps=10)
    assert many.increments > 1
    assert np.allclose(tip(s, one.q), tip(s, many.q), atol=1e-8)
    x, y = elastica(2500.0 * LEN**2 / (E * inertia))
    got = tip(s, one.q)
    assert got[0] == pytest.approx(x, rel=tol) and got[1] == pytest.approx(y, rel=tol)
    line = s.kinds[0].centreline(one.q, s.slots["b"], 40)
    assert np.sum(np.linalg.norm(np.diff(line, axis=0), axis=1)) == pytest.approx(LEN, rel=1e-3)


@pytest.mark.parametrize("kind", ["ancf_beam2d", "ancf_cable", "ancf_beam3d"])
def test_a_load_factor_scales_the_loads_not_the_elastic_forces(kind):
    """Load stepping (García Vallejo (2006) ch. 5): the equilibrium at load factor s is
    that of s times the loads, the elements' elastic forces whole; a large load, so that
    half of it is not half the deflection."""
    s = MultibodySystem(cantilever(kind, 8, load=(0, -2500.0, 0)))
    solver = StaticSolver(s)
    q0 = initial_configuration(s, 0.0, solver.tol, solver.max_iterations)
    q, lam, _, increments = solver.continuation(q0, np.zeros(s.m), 0.0, 0.0, 0.0, 0.5, 1.0)
    half = MultibodySystem(cantilever(kind, 8, load=(0, -1250.0, 0)))
    want = tip(half, static_equilibrium(half).q)
    full = tip(s, static_equilibrium(s).q)
    assert increments == 1
    assert np.allclose(tip(s, q), want, rtol=0.0, atol=1e-8)
    assert abs(full[1] - want[1]) > 0.05 * abs(want[1])
    # the elastic forces at rest and their Jacobian, against finite differences
    f, k = s.elastic_forces(q, 0.0, jacobian=True)
    k = k.toarray() if hasattr(k, "toarray") else k
    loads = s.forces(q, np.zeros_like(q), 0.0) - f
    assert np.allclose(loads, s.forces(q0, np.zeros_like(q), 0.0) - s.elastic_forces(q0)[0])
    h = 1e-7
    fd = np.column_stack(
        [(s.elastic_forces(q + h * e)[0] - s.elastic_forces(q - h * e)[0]) / (2 * h)
         for e in np.eye(len(q))]
    )  # fmt: skip
    assert np.allclose(k, fd, rtol=1e-5, atol=1e-5 * np.abs(k).max())


def test_elastic_line_element_stiffens_in_large_rotations():
    """The thesis's linear elastic-line model (``euler_bernoulli_linear``) measures strain in
    each element's tangent frame: with few elements it is too stiff once elements turn
    through large angles (documented limit). The default element, with the exact stretch
    and curvature, is on the elastica with the same mesh."""
    m = cantilever("ancf_beam2d", 8, load=(0, -2500.0, 0))
    _, exact = elastica(2500.0 * LEN**2 / (E * H * W**3 / 12))
    s = MultibodySystem(m)
    assert tip(s, static_equilibrium(s).q)[1] == pytest.approx(exact, rel=1e-3)
    m.bodies[0].element = "euler_bernoulli_linear"
    s = MultibodySystem(m)
    y = tip(s, static_equilibrium(s).q)[1]
    assert 0.8 < y / exact < 0.9


def test_statics_of_a_rigid_pendulum_and_a_failure_message():
    pend = {
        "biela": 1,
        "gravity": [0, -9.81, 0],
        "bodies": [
            {"name": "p", "mass": 1.0, "inertia": [0.1, 0.1, 0.1], "position": [0.5, -0.5, 0]}
        ],
        "joints": [
            {
                "name": "pin",
                "type": "revolute",
                "body1": "ground",
                "body2": "p",
                "point": [0, 0, 0],
                "axis": [0, 0, 1],
            }
        ],
    }
    s = MultibodySystem(model_from_data(pend))
    sol = static_equilibrium(s)
    assert np.allclose(sol.q[:3], [0, -np.sqrt(0.5), 0], atol=1e-8)  # hanging straight down
    free = dict(pend, joints=[])
    s = MultibodySystem(model_from_data(free))
    with pytest.raises(SimulationError, match="no static equilibrium"):
        static_equilibrium(s, max_iterations=5)


def test_load_steps_from_the_model_file():
    """``solver.parameters.load_steps`` reaches the static analysis: the same equilibrium
    in more Newton iterations (more increments); out-of-range values name the field."""
    one = simulate(cantilever("ancf_beam2d", 8, load=(0, -2500.0, 0)), analysis="static")
    m = cantilever("ancf_beam2d", 8, load=(0, -2500.0, 0), parameters={"load_steps": 8})
    many = simulate(m, analysis="static")
    assert one.status == many.status == "ok", (one.message, many.message)
    for c in ("tip.x", "tip.y"):
        assert many.column(c)[0] == pytest.approx(one.column(c)[0], abs=1e-8)
    assert many.summary["newton_iterations"] > one.summary["newton_iterations"]
    for bad in (0, 2.5, 5000, "4"):
        with pytest.raises(ModelError, match="parameters.load_steps"):
            cantilever("ancf_beam2d", parameters={"load_steps": bad})


def test_quasi_static_run_follows_the_load(tmp_path):
    m = cantilever("ancf_beam2d", 4, load=(0, {"expression": "-10*t"}, 0))
    r = simulate(m, analysis="static", dt=0.25, t_end=1.0)
    assert r.status == "ok", r.message
    assert np.allclose(r.t, [0, 0.25, 0.5, 0.75, 1.0])
    y = r.column("tip.y")
    inertia = H * W**3 / 12
    assert np.allclose(y, -10 * r.t * LEN**3 / (3 * E * inertia), rtol=1e-3)
    assert np.all(r.column("energy.kinetic") == 0)
    assert r.column("energy.elastic")[-1] == pytest.approx(0.5 * 10 * -y[-1], rel=1e-3)
    out = tmp_path / "static.csv"
    assert (
        main(
            [
                "run",
                str(_save(tmp_path, m)),
                "--analysis",
                "static",
                "--dt",
                "0.5",
                "--t-end",
                "1",
                "--csv",
                str(out),
                "-q",
            ]
        )
        == 0
    )
    assert "b.n4.y" in out.read_text().splitlines()[0]


def _save(tmp_path, m):
    from solver.model import save_model

    path = tmp_path / "model.json"
    save_model(m, path)
    return path


def test_modes_of_a_free_beam_include_rigid_modes():
    m = cantilever("ancf_beam2d", 6)
    m.joints, m.forces = [], []
    s = MultibodySystem(m)
    md = linear_modes(s, equilibrium=False)
    assert len(md) == s.n
    rigid = np.abs(md.omega) < 1e-2 * md.omega[-1] ** 0  # three planar rigid modes
    assert rigid.sum() == 3
    # first free–free bending frequency: 4.7300² √(EI/(ρ A L⁴))
    inertia = H * W**3 / 12
    want = 4.7300**2 * np.sqrt(E * inertia / (RHO * W * H * LEN**4))
    assert md.omega[3] == pytest.approx(want, rel=1e-3)
    mass = s.mass(md.q)
    phi = md.shapes
    assert np.allclose(phi.T @ mass @ phi, np.eye(s.n), atol=1e-8)


def test_modes_with_damping_and_through_the_cli(tmp_path):
    m = cantilever("ancf_beam2d", 6, load=(0, 0, 0))
    gamma = 2e-4
    m.bodies[0].material.damping = gamma
    s = MultibodySystem(m)
    md = linear_modes(s)
    first = np.flatnonzero(md.eigenvalues > 1.0)[0]
    want = 1.8751**2 * np.sqrt(E * H * W**3 / 12 / (RHO * W * H * LEN**4))
    assert md.omega[first] == pytest.approx(want, rel=1e-3)
    # Kelvin–Voigt: ξ = γ ω / 2 mode by mode
    assert md.damping_ratio[first] == pytest.approx(gamma * md.omega[first] / 2, rel=1e-6)
    r = simulate(m, analysis="modes")
    assert r.status == "ok" and len(r) == 1
    table = r.summary["modes"]
    assert table[first]["omega_rad_s"] == pytest.approx(md.omega[first])
    assert table[first]["frequency_hz"] == pytest.approx(md.omega[first] / (2 * np.pi))
    csv_path = tmp_path / "modes.csv"
    r.modes.to_csv(csv_path, s)
    head = csv_path.read_text().splitlines()
    assert head[0].startswith("mode,eigenvalue,omega_rad_s,frequency_hz,damping_ratio,b.n0.x")
    assert len(head) == 1 + len(md)
    summary = tmp_path / "summary.json"
    assert (
        main(
            ["run", str(_save(tmp_path, m)), "--analysis", "modes", "--summary", str(summary), "-q"]
        )
        == 0
    )
    assert len(json.loads(summary.read_text())["modes"]) == len(md)
