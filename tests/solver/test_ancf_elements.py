"""ANCF elements (García Vallejo (2006) ch. 2–3): shape functions, mass and gravity closed forms,
invariants, elastic and damping forces and their Jacobians against finite differences, and the
rigid-motion checks (zero strain energy, zero elastic force, zero dissipation)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from solver.kernels.cable import cable_strains
from solver.mechanics.bodies.ancf import shapes
from solver.mechanics.bodies.ancf.cable import Cable3D
from solver.mechanics.bodies.ancf.euler_bernoulli import EulerBernoulli2D
from solver.mechanics.bodies.ancf.euler_bernoulli_linear import EulerBernoulliLinear2D
from solver.mechanics.bodies.ancf.omar import Omar2D
from solver.mechanics.bodies.ancf.section import (
    MaterialData,
    _circle,
    _rectangle,
    beam_frame,
    section_data,
)
from solver.mechanics.bodies.ancf.yakoub import Yakoub3D
from solver.model import description as d

L = 1.3
SECTION = _rectangle(0.1, 0.05)
MATERIAL = MaterialData(2e9, 0.3, 7800.0)
DAMPED = MaterialData(2e9, 0.3, 7800.0, gamma_s=0.01, gamma_d=0.02)
ELEMENTS = (EulerBernoulli2D, EulerBernoulliLinear2D, Omar2D, Cable3D, Yakoub3D)


def reference(el) -> np.ndarray:
    """Nodal vectors ``(m, d)`` of the straight, unstressed element along x."""
    rows = []
    for x in (0.0, el.length):
        for name in el.node_vectors:
            if name == "r":
                rows.append(np.eye(el.d)[0] * x)
            else:
                rows.append(np.eye(el.d)[["r_x", "r_y", "r_z"].index(name)])
    return np.array(rows)


def rigid(el, rot: np.ndarray, shift: np.ndarray) -> np.ndarray:
    """The reference rotated by ``rot`` and translated by ``shift``."""
    e = reference(el) @ rot.T
    half = el.m // 2
    e[0] += shift
    e[half] += shift
    return e


def rotation(dim: int) -> np.ndarray:
    if dim == 2:
        c, s = np.cos(0.7), np.sin(0.7)
        return np.array([[c, -s], [s, c]])
    return Rotation.from_rotvec([0.3, -0.5, 0.9]).as_matrix()


def fd_jacobian(fun, x: np.ndarray, h: float = 1e-6) -> np.ndarray:
    cols = []
    for j in range(len(x)):
        dx = np.zeros_like(x)
        dx[j] = h
        cols.append((fun(x + dx) - fun(x - dx)) / (2 * h))
    return np.array(cols).T


def rel(a, b) -> float:
    return float(np.abs(a - b).max() / max(np.abs(b).max(), 1e-300))


# ---- shape functions -------------------------------------------------------------------
def test_hermite_interpolates_nodes_and_differentiates():
    xi = np.array([0.0, 1.0])
    h, hx = shapes.hermite(xi, L), shapes.hermite(xi, L, 1)
    assert np.allclose(h, [[1, 0, 0, 0], [0, 0, 1, 0]])
    assert np.allclose(hx, [[0, 1, 0, 0], [0, 0, 0, 1]])
    x = np.linspace(0.05, 0.95, 7)
    for k in (1, 2):
        num = (shapes.hermite(x + 1e-6, L, k - 1) - shapes.hermite(x - 1e-6, L, k - 1)) / (2e-6 * L)
        assert np.allclose(shapes.hermite(x, L, k), num, atol=1e-6)


@pytest.mark.parametrize("fun,ncoords", [(shapes.omar, 1), (shapes.yakoub, 2)])
def test_continuum_shape_functions(fun, ncoords):
    rng = np.random.default_rng(1)
    xi, y, z = rng.uniform(0, 1, 5), rng.uniform(-0.1, 0.1, 5), rng.uniform(-0.1, 0.1, 5)
    args = (xi, y) if ncoords == 1 else (xi, y, z)
    s = fun(*args, L)
    m = s.shape[-1]
    half = m // 2
    assert np.allclose(s[:, 0] + s[:, half], 1.0)  # partition of unity (positions)
    # the interpolation reproduces r = x e1 + y e2 (+ z e3) for the reference nodal values
    el = {6: Omar2D, 8: Yakoub3D}[m](L, SECTION, MATERIAL)
    pos = s @ reference(el)
    assert np.allclose(pos[:, 0], xi * L)
    assert np.allclose(pos[:, 1], y)
    for k, name in enumerate("xyz"[: ncoords + 1]):
        h = 1e-6
        plus = list(args)
        minus = list(args)
        if name == "x":
            plus[0], minus[0] = xi + h / L, xi - h / L
        else:
            plus[k], minus[k] = args[k] + h, args[k] - h
        num = (fun(*plus, L) - fun(*minus, L)) / (2 * h)
        assert np.allclose(fun(*args, L, name), num, atol=1e-7)


# ---- mass, gravity, sections -----------------------------------------------------------
def test_mass_matrices_match_the_closed_forms():
    rho, a = MATERIAL.density, SECTION.area
    cubic = (
        rho
        * a
        * L
        / 420
        * np.array(
            [
                [156, 22 * L, 54, -13 * L],
                [22 * L, 4 * L**2, 13 * L, -3 * L**2],
                [54, 13 * L, 156, -22 * L],
                [-13 * L, -3 * L**2, -22 * L, 4 * L**2],
            ]
        )
    )
    for cls in (EulerBernoulli2D, Cable3D):
        assert np.allclose(cls(L, SECTION, MATERIAL).mass, cubic, rtol=1e-12)
    yak = Yakoub3D(L, SECTION, MATERIAL).mass
    pos = [0, 1, 4, 5]
    assert np.allclose(yak[np.ix_(pos, pos)], cubic, rtol=1e-12)
    assert yak[0, 0] == pytest.approx(13 * rho * a * L / 35)
    assert yak[0, 1] == pytest.approx(11 * rho * a * L**2 / 210)
    assert yak[0, 4] == pytest.approx(9 * rho * a * L / 70)
    assert yak[0, 5] == pytest.approx(-13 * rho * a * L**2 / 420)
    assert yak[2, 2] == pytest.approx(rho * SECTION.Syy * L / 3)
    assert yak[2, 6] == pytest.approx(rho * SECTION.Syy * L / 6)
    assert yak[3, 3] == pytest.approx(rho * SECTION.Szz * L / 3)
    assert np.allclose(yak[np.ix_(pos, [2, 3, 6, 7])], 0.0, atol=1e-12 * yak.max())
    omar = Omar2D(L, SECTION, MATERIAL).mass
    assert np.allclose(omar[np.ix_([0, 1, 3, 4], [0, 1, 3, 4])], cubic, rtol=1e-12)
    assert omar[2, 5] == pytest.approx(rho * SECTION.Syy * L / 6)


def test_gravity_vectors_match_the_closed_form():
    want = MATERIAL.density * SECTION.area * L * np.array([0.5, L / 12, 0.5, -L / 12])
    assert np.allclose(EulerBernoulli2D(L, SECTION, MATERIAL).gravity, want)
    assert np.allclose(Cable3D(L, SECTION, MATERIAL).gravity, want)
    yak = Yakoub3D(L, SECTION, MATERIAL).gravity
    assert np.allclose(yak[[0, 1, 4, 5]], want)
    assert np.allclose(yak[[2, 3, 6, 7]], 0.0, atol=1e-12)


def test_section_quadratures_are_exact_to_degree_four():
    for sec, a, syy, y4 in (
        (_rectangle(0.3, 0.1), 0.03, 0.1 * 0.3**3 / 12, 0.1 * 0.3**5 / 80),
        (_circle(0.2), np.pi * 0.04, np.pi * 0.2**4 / 4, np.pi * 0.2**6 / 8),
    ):
        assert sec.w.sum() == pytest.approx(a)
        assert sec.w @ sec.y**2 == pytest.approx(syy)
        assert sec.Syy == pytest.approx(syy)
        assert sec.w @ sec.y**4 == pytest.approx(y4)
        assert abs(sec.w @ (sec.y**3 * sec.z)) < 1e-14
    gen = section_data(d.Section("general", area=2e-3, Iy=3e-7, Iz=5e-7))
    assert (gen.area, gen.Szz, gen.Syy) == (2e-3, 3e-7, 5e-7)
    assert gen.w @ gen.y**2 == pytest.approx(5e-7)
    assert gen.w @ gen.z**2 == pytest.approx(3e-7)


def test_beam_frame_convention():
    f = beam_frame([0, 0, 0], [2, 0, 0])
    assert np.allclose(f, np.eye(3))
    f = beam_frame([0, 0, 0], [0, 0, 3])  # vertical: y is global Y
    assert np.allclose(f[:, 1], [0, 1, 0]) and np.allclose(f[:, 2], [-1, 0, 0])
    f = beam_frame([1, 1, 0], [2, 2, 1])
    assert np.allclose(f.T @ f, np.eye(3)) and np.linalg.det(f) == pytest.approx(1.0)
    assert f[2, 2] > 0 and abs(f[2, 1]) < 1e-12  # z "up", y horizontal


# ---- invariants ----------------------------------------------------------------------
@pytest.mark.parametrize("cls", [Omar2D, Yakoub3D])
def test_invariant_form_equals_the_thesis_form(cls):
    """``D:T:D`` equals ``P:T:P − k B:P + U₀`` of (3.33)–(3.35) (k₂ = λ + G built in)."""
    el = cls(L, SECTION, MATERIAL)
    inv = el.invariants
    lam, mu, n = MATERIAL.lame, MATERIAL.G, el.n_dirs
    t = inv.tensor(lam, mu)
    assert np.array_equal(t, el.tensor)
    k, u0 = n * lam / 4 + mu / 2, (n * n * lam / 8 + n * mu / 4) * inv.V
    assert u0 == pytest.approx(((9 * lam + 6 * mu) / 8 if n == 3 else (lam + mu) / 2) * inv.V)
    p0 = el.reference
    assert np.allclose(4 * np.einsum("ijkl,kl->ij", t, p0), 2 * k * inv.B, rtol=1e-10)
    assert np.einsum("ij,ijkl,kl->", p0, t, p0) == pytest.approx(u0, rel=1e-12)
    rng = np.random.default_rng(3)
    e = reference(el) + 0.05 * rng.standard_normal((el.m, el.d))
    p = e @ e.T
    thesis = np.einsum("ij,ijkl,kl->", p, t, p) - k * np.sum(inv.B * p) + u0
    assert el.energy(e[None])[0] == pytest.approx(thesis, rel=1e-8)


@pytest.mark.parametrize("cls", [Omar2D, Yakoub3D])
def test_invariant_energy_equals_direct_quadrature(cls):
    """The St. Venant–Kirchhoff energy integrated point by point (3.17)."""
    el = cls(L, SECTION, MATERIAL)
    rng = np.random.default_rng(4)
    e = reference(el) + 0.1 * rng.standard_normal((el.m, el.d))
    xx, yy, zz, w = el._points()
    grads = np.stack(
        [el.functions(xx, yy, zz, a) @ e for a in "xyz"[: el.n_dirs]], axis=2
    )  # (P, d, n): J
    eps = 0.5 * (np.einsum("pai,paj->pij", grads, grads) - np.eye(el.n_dirs))
    lam, mu = MATERIAL.lame, MATERIAL.G
    tr = np.trace(eps, axis1=1, axis2=2)
    dens = 0.5 * lam * tr**2 + mu * np.einsum("pij,pij->p", eps, eps)
    assert el.energy(e[None])[0] == pytest.approx(w @ dens, rel=1e-10)


@pytest.mark.parametrize("cls", [EulerBernoulli2D, EulerBernoulliLinear2D])
def test_euler_bernoulli_linear_stiffness_is_a25(cls):
    """(A.25): the linearised stiffness about a straight configuration (both strain sets)."""
    ea = MATERIAL.E * SECTION.area
    ei = MATERIAL.E * SECTION.Syy
    el = cls(L, SECTION, MATERIAL)
    e0 = reference(el) + np.array([[0.3, -0.2], [0, 0], [0.3, -0.2], [0, 0]])
    k = -el.internal(e0[None], 0 * e0[None], True).kq[0]
    # (A.25) in the order [r1, r2, r1x, r2x | r1, r2, r1x, r2x]; ours is [r, r_x] per node
    a = np.array(
        [
            [6 * ea / (5 * L), 0, ea / 10, 0, -6 * ea / (5 * L), 0, ea / 10, 0],
            [0, 12 * ei / L**3, 0, 6 * ei / L**2, 0, -12 * ei / L**3, 0, 6 * ei / L**2],
            [ea / 10, 0, 2 * ea * L / 15, 0, -ea / 10, 0, -ea * L / 30, 0],
            [0, 6 * ei / L**2, 0, 4 * ei / L, 0, -6 * ei / L**2, 0, 2 * ei / L],
            [-6 * ea / (5 * L), 0, -ea / 10, 0, 6 * ea / (5 * L), 0, -ea / 10, 0],
            [0, -12 * ei / L**3, 0, -6 * ei / L**2, 0, 12 * ei / L**3, 0, -6 * ei / L**2],
            [ea / 10, 0, -ea * L / 30, 0, -ea / 10, 0, 2 * ea * L / 15, 0],
            [0, 6 * ei / L**2, 0, 2 * ei / L, 0, -6 * ei / L**2, 0, 4 * ei / L],
        ]
    )
    assert np.allclose(k, a, rtol=1e-10, atol=1e-9 * np.abs(a).max())


# ---- forces and Jacobians ------------------------------------------------------------
@pytest.mark.parametrize("cls", ELEMENTS)
@pytest.mark.parametrize("material", [MATERIAL, DAMPED], ids=["elastic", "damped"])
def test_forces_and_jacobians_match_finite_differences(cls, material):
    el = cls(L, SECTION, material)
    rng = np.random.default_rng(7)
    e = (
        rigid(el, rotation(el.d), np.full(el.d, 0.4)) + 0.05 * rng.standard_normal((el.m, el.d))
    ).ravel()
    ed = rng.standard_normal(e.shape)
    shape = (1, el.m, el.d)
    out = el.internal(e.reshape(shape), ed.reshape(shape), jacobian=True)

    def force(x, v):
        return el.internal(x.reshape(shape), v.reshape(shape)).force[0]

    def energy(x):
        return np.atleast_1d(el.energy(x.reshape(shape))[0])

    elastic = force(e, 0 * ed)
    assert rel(elastic, -fd_jacobian(energy, e)[0]) < 1e-7
    assert rel(out.force[0], force(e, ed)) < 1e-14
    assert rel(out.kq[0], fd_jacobian(lambda x: force(x, ed), e)) < 1e-7
    if material is DAMPED:
        assert rel(out.kqd[0], fd_jacobian(lambda v: force(e, v), ed)) < 1e-7
        assert out.power == pytest.approx((out.force[0] - elastic) @ ed, rel=1e-12)
        assert out.power < 0
    else:
        assert out.kqd is None and out.power == 0.0
    assert np.allclose(out.kq[0], out.kq[0].T, atol=1e-9 * np.abs(out.kq[0]).max()) or (
        material is DAMPED
    )


@pytest.mark.parametrize("cls", ELEMENTS)
def test_rigid_motion_has_no_strain_force_or_dissipation(cls):
    el = cls(L, SECTION, DAMPED)
    rot = rotation(el.d)
    e = rigid(el, rot, np.array([0.3, -1.2, 0.5])[: el.d])[None]
    assert abs(el.energy(e)[0]) < 1e-12 * MATERIAL.E * SECTION.area * L
    # a rigid velocity: ṙ = W (r − c) + v on positions, Ẇ r_α on slopes
    w = (
        np.array([[0, -1.0], [1.0, 0]])
        if el.d == 2
        else np.array([[0, -0.9, -0.5], [0.9, 0, -0.3], [0.5, 0.3, 0]])
    )
    ed = e[0] @ w.T
    half = el.m // 2
    ed[0] += 0.7
    ed[half] += 0.7
    out = el.internal(e, ed[None])
    scale = MATERIAL.E * SECTION.area
    assert np.abs(out.force).max() < 1e-9 * scale
    assert abs(out.power) < 1e-9 * scale


def test_cable_strain_derivatives():
    """The cable's strains at a point (``solver.kernels.cable``): ε = ½(p·p − 1) and the
    curvature vector (p × q)/|p|² (per unit reference length), their gradients and
    Hessians against finite differences."""
    rng = np.random.default_rng(5)
    x = rng.standard_normal(6)
    rows = np.eye(6)  # z = (p, q) itself

    def strains(v, hessian=False):
        gz, hz = np.zeros((4, 6)), np.zeros((4, 6, 6))
        return np.array(cable_strains(rows, v, gz, hz, hessian)), gz, hz

    values, jac, hess = strains(x, True)
    p, q = x[:3], x[3:]
    assert np.allclose(values[0], 0.5 * (p @ p - 1.0))
    assert np.allclose(values[1:], np.cross(p, q) / np.linalg.norm(p) ** 2)
    assert rel(jac, fd_jacobian(lambda v: strains(v)[0], x)) < 1e-8
    for i in range(4):
        numh = fd_jacobian(lambda v, i=i: strains(v)[1][i], x)
        assert rel(hess[i], numh) < 1e-7


def test_uniaxial_damping_factor():
    """A bar stretched at a constant rate: σ = E γ ε̇ with γ = (γ_s + 2γ_d)/3 (3.80), ν = 0,
    so the viscous axial force is E A γ ε̇ (the consistent derivative of (3.57))."""
    mat = MaterialData(1e9, 0.0, 1000.0, gamma_s=0.03, gamma_d=0.006)
    gamma = (0.03 + 2 * 0.006) / 3
    for cls in ELEMENTS:
        el = cls(L, SECTION, mat)
        e = reference(el)[None]
        ed = np.zeros_like(e)
        half = el.m // 2
        ed[0, half, 0] = 0.01 * L  # node n moves at ε̇ L along x, slopes at ε̇
        ed[0, 1, 0] = ed[0, half + 1, 0] = 0.01
        out = el.internal(e, ed)
        axial = -out.force[0].reshape(el.m, el.d)[half, 0]
        want = mat.E * SECTION.area * gamma * 0.01
        # EB/cable use the uniaxial law; the continuum elements give the same force at ν = 0
        assert axial == pytest.approx(want, rel=0.05), cls.__name__
