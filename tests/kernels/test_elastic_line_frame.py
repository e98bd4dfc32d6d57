"""The elastic-line kernel with the strains of the node-m frame (``euler_bernoulli_linear``,
García Vallejo (2006) App. A): its force and tangents against finite differences of its
energy and force, its strains against the frame's projections computed directly, the
stiffness of a straight element against (A.25), and the rotating beam E9 assembled by the
system kernels."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from solver.kernels.elastic_line import frame_element, line_strains, line_work
from solver.kernels.jit import NO, YES
from solver.mechanics.bodies.ancf.euler_bernoulli_linear import EulerBernoulliLinear2D
from solver.mechanics.bodies.ancf.shapes import gauss, hermite
from solver.mechanics.system import MultibodySystem
from solver.model import load_model
from tests.solver.test_ancf_elements import DAMPED, MATERIAL, SECTION

E9 = Path(__file__).resolve().parents[2] / "examples" / "ancf_rotating_beam_e9.json"
L = 0.7


def _deformed(seed):
    """A rotated, shifted and deformed element ``e`` (8,) and a rate ``ė``."""
    rng = np.random.default_rng(seed)
    a = 0.6
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    nodes = np.array([[0.0, 0.0], [1.0, 0.0], [L, 0.0], [1.0, 0.0]]) @ rot.T
    nodes[[0, 2]] += [0.3, -0.2]
    return (nodes + 0.05 * rng.standard_normal((4, 2))).ravel(), rng.standard_normal(8)


def _evaluate(el, e, ed, damped=True):
    """``(force, ∂F/∂e, ∂F/∂ė, energy, power)`` of one element by the kernel."""
    f = np.zeros(8)
    kq = np.zeros((8, 8))
    kqd = np.zeros((8, 8))
    gamma = el.gamma if damped and el.damped else 0.0
    u, p = frame_element(
        el.B, el.Sg, el.coef, gamma, e, ed, YES, f, kq, kqd, np.zeros((2, 8)),
        np.zeros(line_work(8)),
    )  # fmt: skip
    return f, kq, kqd, u, p


def _fd(fun, x, h):
    return np.stack([(fun(x + h * d) - fun(x - h * d)) / (2 * h) for d in np.eye(len(x))], -1)


@pytest.mark.parametrize("material", [MATERIAL, DAMPED], ids=["elastic", "damped"])
def test_force_and_tangents_match_finite_differences(material):
    el = EulerBernoulliLinear2D(L, SECTION, material)
    e, ed = _deformed(3)
    f, kq, kqd, u, power = _evaluate(el, e, ed)
    # the elastic force is −∂U/∂e
    fe = _evaluate(el, e, 0 * ed)[0]
    grad_u = _fd(lambda x: np.array([_evaluate(el, x, ed)[3]]), e, 1e-7)[0]
    assert np.abs(fe + grad_u).max() < 1e-6 * np.abs(fe).max()
    num_q = _fd(lambda x: _evaluate(el, x, ed)[0], e, 1e-7)
    assert np.abs(kq - num_q).max() < 1e-6 * np.abs(num_q).max()
    num_qd = _fd(lambda v: _evaluate(el, e, v)[0], ed, 1e-3)
    if material is MATERIAL:
        assert not kqd.any() and power == 0.0 and np.array_equal(f, fe)
    else:
        assert np.abs(kqd - num_qd).max() < 1e-8 * np.abs(num_qd).max()
        assert power == pytest.approx((f - fe) @ ed, rel=1e-10) and power < 0.0
    assert u > 0.0


def test_strains_are_the_projections_on_the_node_m_frame():
    """ε = r_x·i₁ − 1 and κ = r_xx·i₂ at the Gauss points, with ``i₁ = r_x^m/|r_x^m|`` and
    ``i₂ = Ĩ i₁`` from the Hermite interpolation, and the energy ½ Σ c ε² over them."""
    el = EulerBernoulliLinear2D(L, SECTION, MATERIAL)
    e, _ = _deformed(5)
    nodes = e.reshape(4, 2)
    i1 = nodes[1] / np.linalg.norm(nodes[1])
    i2 = np.array([-i1[1], i1[0]])
    xi, w = gauss(3)
    rx = hermite(xi, L, 1) @ nodes
    rxx = hermite(xi, L, 2) @ nodes
    want = np.concatenate([rx @ i1 - 1.0, rxx @ i2])
    phi, grad, hess = line_strains(el.B, el.Sg, YES, e[None], NO)
    assert np.allclose(phi[0], want, rtol=1e-12, atol=1e-14)
    ea = MATERIAL.E * SECTION.area
    ei = MATERIAL.E * SECTION.Syy
    energy = 0.5 * L * (ea * w @ (rx @ i1 - 1.0) ** 2 + ei * w @ (rxx @ i2) ** 2)
    assert _evaluate(el, e, 0 * e)[3] == pytest.approx(energy, rel=1e-12)
    # the exact strains differ from these away from node m
    exact = line_strains(el.B, el.Sg, NO, e[None], NO)[0][0]
    assert np.abs(exact - want).max() > 1e-3


def test_stiffness_of_a_straight_element_is_a25_and_rotates_with_it():
    """(A.25) about the straight element along x; about the same element turned by α the
    stiffness is ``Rᵀ K R`` (frame invariance, no geometric stiffening when unstressed)."""
    ea = MATERIAL.E * SECTION.area
    ei = MATERIAL.E * SECTION.Syy
    el = EulerBernoulliLinear2D(L, SECTION, MATERIAL)
    straight = np.array([0.0, 0.0, 1.0, 0.0, L, 0.0, 1.0, 0.0])
    k = -_evaluate(el, straight, 0 * straight)[1]
    axial = ea * np.array([[6 / (5 * L), 1 / 10], [1 / 10, 2 * L / 15]])
    axial_mn = ea * np.array([[-6 / (5 * L), 1 / 10], [-1 / 10, -L / 30]])
    bend = ei * np.array([[12 / L**3, 6 / L**2], [6 / L**2, 4 / L]])
    bend_mn = ei * np.array([[-12 / L**3, 6 / L**2], [-6 / L**2, 2 / L]])
    x, y = [0, 2, 4, 6], [1, 3, 5, 7]
    assert np.allclose(k[np.ix_(x, x)][:2, :2], axial, rtol=1e-10)
    assert np.allclose(k[np.ix_(x, x)][:2, 2:], axial_mn, rtol=1e-10)
    assert np.allclose(k[np.ix_(y, y)][:2, :2], bend, rtol=1e-10)
    assert np.allclose(k[np.ix_(y, y)][:2, 2:], bend_mn, rtol=1e-10)
    assert np.abs(k[np.ix_(x, y)]).max() < 1e-9 * np.abs(k).max()
    a = 0.9
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    big = np.kron(np.eye(4), rot)
    turned = -_evaluate(el, big @ straight + np.tile([0.2, 0.1, 0, 0], 2), 0 * straight)[1]
    assert np.abs(turned - big @ k @ big.T).max() < 1e-9 * np.abs(k).max()


def test_rotating_beam_e9_is_evaluated_by_the_kernels():
    """E9's beam elements are assembled by the system kernels: the system's force
    Jacobians are the finite differences of its forces."""
    s = MultibodySystem(load_model(E9))
    rng = np.random.default_rng(2)
    q = s.q0 + 1e-2 * rng.standard_normal(s.n)
    qd = rng.standard_normal(s.n)
    kq, _ = s.force_jacobians(q, qd, 0.0)
    kq = kq.toarray() if hasattr(kq, "toarray") else kq
    num = _fd(lambda x: s.forces(x, qd, 0.0), q, 1e-7)
    assert np.abs(kq - num).max() < 1e-6 * np.abs(num).max()
    assert s.elastic_energy(q) > 0.0 and s.elastic_energy(s.q0) == pytest.approx(0.0, abs=1e-9)
