"""The belt element (García Vallejo (2006) §7.2): its energy against an independent derivation
from the thesis's vectors, forces and Jacobians against finite differences, rigid motions,
and the strain terms each stiffness factor scales (stretch, bending, shear, transverse)."""

from __future__ import annotations

import numpy as np
import pytest

from solver.mechanics.bodies.ancf.belt import Belt2D, BeltFactors, cowper_shear_factor
from solver.mechanics.bodies.ancf.omar import Omar2D
from solver.mechanics.bodies.ancf.section import MaterialData, _rectangle
from solver.mechanics.bodies.ancf.shapes import gauss, hermite
from tests.solver.jet import Jet

L = 0.2
SECTION = _rectangle(0.02, 0.01)  # 0.02 m in the plane (y), 0.01 m thick
MATERIAL = MaterialData(1e8, 0.3, 1036.0)
FACTORS = BeltFactors(0.8, 0.05, 0.85)


def element(factors=FACTORS, length=L) -> Belt2D:
    return Belt2D(length, SECTION, MATERIAL, factors)


def reference(length=L) -> np.ndarray:
    """Nodal vectors of the straight unstressed element along x: (6, 2)."""
    return np.array([[0, 0], [1, 0], [0, 1], [length, 0], [1, 0], [0, 1]], float)


def perturbed(seed: int, size: float = 0.05) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return reference() + size * rng.standard_normal((6, 2))


def tilde(v: list[Jet]) -> list[Jet]:
    """``Ĩ v = (−v_y, v_x)``."""
    return [-v[1], v[0]]


def thesis_energy(el: Belt2D, e: np.ndarray, order: int) -> Jet:
    """(7.15)–(7.16) (with ½) plus ½∫E ε_yy² dV, computed from the thesis's vectors r_c,x,
    r_s = (I + Ĩ sin γ) n_ψ and r_s,x = d r_s/dx with jets over the 12 coordinates."""
    f, mat, sec = el.factors, el.material, el.section
    eye = np.eye(12)
    comp = [Jet.linear(e[:, j : j + 1], eye[j], order) for j in range(12)]
    xi, w = gauss(5)
    h1, h2 = hermite(xi, el.length, 1), hermite(xi, el.length, 2)
    cols = [(0, 1), (2, 3), (6, 7), (8, 9)]  # r^m, r_x^m, r^n, r_x^n
    a = [sum((comp[cols[i][k]] * h1[:, i] for i in range(4)), Jet(0.0)) for k in range(2)]
    b = [sum((comp[cols[i][k]] * h2[:, i] for i in range(4)), Jet(0.0)) for k in range(2)]
    norm_a = (a[0] * a[0] + a[1] * a[1]).sqrt()
    t = [a[0] / norm_a, a[1] / norm_a]
    tb = t[0] * b[0] + t[1] * b[1]
    dt = [(b[k] - t[k] * tb) / norm_a for k in range(2)]  # dt/dx
    n_psi, dn_psi = tilde(t), tilde(dt)
    sines, lengths = [], []
    for rx, ry in ((comp[2:4], comp[4:6]), (comp[8:10], comp[10:12])):
        nx = (rx[0] * rx[0] + rx[1] * rx[1]).sqrt()
        ny = (ry[0] * ry[0] + ry[1] * ry[1]).sqrt()
        sines.append(-((rx[0] * ry[0] + rx[1] * ry[1]) / (nx * ny)))
        lengths.append(ny)
    s = sines[0] * (1.0 - xi) + sines[1] * xi
    ds = (sines[1] - sines[0]) * (1.0 / el.length)
    tn, tdn = tilde(n_psi), tilde(dn_psi)
    r_s = [n_psi[k] + s * tn[k] for k in range(2)]
    r_sx = [dn_psi[k] + ds * tn[k] + s * tdn[k] for k in range(2)]
    dot = lambda u, v: u[0] * v[0] + u[1] * v[1]  # noqa: E731
    c, p, q = dot(a, a), dot(a, r_sx), dot(r_sx, r_sx)
    area, i2, i4 = sec.area, sec.Syy, float(sec.w @ sec.y**4)
    cm1 = c - 1.0
    axial = 0.5 * mat.E * (cm1 * cm1 * (f.axial / 4.0 * area))
    bending = 0.5 * mat.E * f.bending * ((p * p + cm1 * q * 0.5) * i2 + q * q * (i4 / 4.0))
    shear = (
        2.0
        * mat.G
        * f.shear
        * (f.bending / 4.0)
        * (dot(a, r_s) * dot(a, r_s) * area + dot(r_sx, r_s) * dot(r_sx, r_s) * i2)
    )
    eyy = (lengths[0] - 1.0) * (1.0 - xi) + (lengths[1] - 1.0) * xi
    transverse = 0.5 * mat.E * area * (eyy * eyy)
    density = axial + bending + shear + transverse
    return (density * (w * el.length)).sum(axis=1)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_energy_force_and_jacobian_equal_the_thesis_vectors(seed):
    """The closed forms (p = −|a|(k + s'), q = (k + s')² + s²k², r_s,x·r_s = s s') against the
    thesis's vector expressions, differentiated independently."""
    el = element()
    e = perturbed(seed)
    ref = thesis_energy(el, e.reshape(1, 12), 2)
    assert el.energy(e[None])[0] == pytest.approx(ref.v[0], rel=1e-11)
    out = el.internal(e[None], np.zeros((1, 6, 2)), jacobian=True)
    assert np.allclose(out.force[0], -ref.g[0], rtol=0, atol=1e-10 * np.abs(ref.g).max())
    assert np.allclose(out.kq[0], -ref.h[0], rtol=0, atol=1e-10 * np.abs(ref.h).max())


def fd(fun, x: np.ndarray, h: float) -> np.ndarray:
    cols = []
    for j in range(len(x)):
        dx = np.zeros_like(x)
        dx[j] = h
        cols.append((fun(x + dx) - fun(x - dx)) / (2 * h))
    return np.array(cols).T


@pytest.mark.parametrize("seed", [4, 5])
def test_force_and_jacobian_against_finite_differences(seed):
    el = element()
    e = perturbed(seed)
    out = el.internal(e[None], None, jacobian=True)
    energy = lambda x: np.array([el.energy(x.reshape(1, 6, 2))[0]])  # noqa: E731
    grad = fd(energy, e.ravel(), 1e-7)[0]
    assert np.abs(out.force[0] + grad).max() < 1e-7 * np.abs(grad).max()
    force = lambda x: el.internal(x.reshape(1, 6, 2), None).force[0]  # noqa: E731
    jac = fd(force, e.ravel(), 1e-7)
    assert np.abs(out.kq[0] - jac).max() < 1e-7 * np.abs(jac).max()
    assert np.allclose(out.kq[0], out.kq[0].T, rtol=0, atol=1e-12 * np.abs(jac).max())
    # the force alone (no Jacobian asked) is the same
    assert np.array_equal(el.internal(e[None], None).force, out.force)


def test_rigid_motion_has_no_energy_and_no_force():
    el = element()
    c, s = np.cos(1.1), np.sin(1.1)
    rot = np.array([[c, -s], [s, c]])
    e = reference() @ rot.T
    e[[0, 3]] += [0.3, -0.7]
    out = el.internal(e[None], None, jacobian=True)
    assert abs(el.energy(e[None])[0]) < 1e-20
    assert np.abs(out.force).max() < 1e-9
    # the tangent stiffness of the straight unstressed element is positive semi-definite
    # with exactly the 3 rigid motions in its null space
    values = np.linalg.eigvalsh(-out.kq[0])
    assert values.min() > -1e-6 * values.max()
    assert np.sum(values < 1e-9 * values.max()) == 3


@pytest.mark.parametrize("stretch", [1.01, 0.98, 1.3])
def test_uniform_stretch_is_axial_only(stretch):
    """U = l E α₁ A (λ² − 1)²/8 whatever α₂; the axial force E α₁ A ε λ is the end load."""
    for factors in (FACTORS, BeltFactors(2.0, 1.0, 0.85)):
        el = element(factors)
        e = reference()
        e[3, 0] = stretch * L
        e[[1, 4], 0] = stretch
        want = L * MATERIAL.E * factors.axial * SECTION.area * (stretch**2 - 1) ** 2 / 8
        assert el.energy(e[None])[0] == pytest.approx(want, rel=1e-12)
        force = el.internal(e[None], None).force[0].reshape(6, 2)
        # nodal forces: the end loads ∓N along x and nothing else
        n = el.axial_force(stretch)
        assert n == pytest.approx(
            MATERIAL.E * factors.axial * SECTION.area * 0.5 * (stretch**2 - 1) * stretch
        )
        assert force[3, 0] == pytest.approx(-n, rel=1e-10)
        assert force[0, 0] == pytest.approx(n, rel=1e-10)
        assert np.abs(force[[1, 2, 4, 5]]).max() < 1e-9 * abs(n)


def arc(kappa: float, length: float, xi0: float = 0.0) -> np.ndarray:
    """Nodal vectors of an element on a circle of curvature κ (unit slopes, r_y normal)."""
    rows = []
    for x in (xi0 * length, (xi0 + 1) * length):
        th = kappa * x
        t = np.array([np.cos(th), np.sin(th)])
        rows += [np.array([np.sin(th), 1 - np.cos(th)]) / kappa, t, np.array([-t[1], t[0]])]
    return np.array(rows)


def test_pure_bending_energy_and_factor():
    """Nodes on a circle: U → L (E α₂ I κ²/2 + E α₂ I₄ κ⁴/8) as the element shortens (the
    cubic's error is O(κ⁴ l⁴)), and U scales with α₂ alone."""
    kappa, total = 2.0, 0.8
    i4 = float(SECTION.w @ SECTION.y**4)
    errors = []
    for n in (2, 4, 8):
        el = element(length=total / n)
        e = np.array([arc(kappa, total / n, k) for k in range(n)])
        want = (
            total * MATERIAL.E * FACTORS.bending * (SECTION.Syy * kappa**2 / 2 + i4 * kappa**4 / 8)
        )
        errors.append(abs(el.energy(e).sum() / want - 1))
    assert errors[-1] < 1e-4
    assert errors[0] / errors[1] > 10 and errors[1] / errors[2] > 10
    el = element(length=total / 8)
    e = np.array([arc(kappa, total / 8, k) for k in range(8)])
    stiff = Belt2D(total / 8, SECTION, MATERIAL, BeltFactors(FACTORS.axial, 1.0, FACTORS.shear))
    ratio = el.energy(e).sum() / stiff.energy(e).sum()
    assert ratio == pytest.approx(FACTORS.bending, rel=1e-3)  # the stretch part is ~1e-9 of U


def test_shear_and_transverse_terms():
    """A uniform shear angle γ (r_y turned by −γ): U = l G k_s α₂ A sin²γ/2; a uniform
    transverse stretch |r_y| = 1 + e: U = l E A e²/2, for any α."""
    el = element()
    gamma = 0.03
    e = reference()
    e[[2, 5]] = [np.sin(gamma), np.cos(gamma)]  # r_x·r_y = sin γ → sin γ_thesis = −sin γ
    want = L * MATERIAL.G * FACTORS.shear * FACTORS.bending * SECTION.area * np.sin(gamma) ** 2 / 2
    assert el.energy(e[None])[0] == pytest.approx(want, rel=1e-12)
    e = reference()
    e[[2, 5], 1] = 1.002
    want = L * MATERIAL.E * SECTION.area * 0.002**2 / 2
    assert el.energy(e[None])[0] == pytest.approx(want, rel=1e-9)


def test_mass_is_omars_and_shear_factor_is_cowpers():
    el, omar = element(), Omar2D(L, SECTION, MATERIAL)
    assert np.allclose(el.mass, omar.mass, rtol=1e-13, atol=0)
    assert np.allclose(el.gravity, omar.gravity, rtol=1e-13, atol=1e-18)
    assert cowper_shear_factor("rectangle", 0.3) == pytest.approx(10 * 1.3 / (12 + 3.3))
    assert cowper_shear_factor("circle", 0.0) == pytest.approx(6 / 7)
