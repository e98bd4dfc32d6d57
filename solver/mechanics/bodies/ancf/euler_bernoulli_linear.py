"""Planar Euler–Bernoulli ANCF element, "linear elasticity" in the element frame (García Vallejo
(2006) App. A).

The element of ``euler_bernoulli`` (same coordinates, shape functions and mass) with the
elastic forces of App. A: the small-strain energy (2.40)

    U = ½ ∫₀^l [EA (∂u_l/∂x)² + EI (∂²u_t/∂x²)²] dx

of the deformation measured in the frame tangent to the element at node m,
``i₁ = r_x^m/|r_x^m|``, ``i₂ = Ĩ i₁`` (A.2)–(A.5), so that (A.8)–(A.9)

    ε(x) = ∂u_l/∂x = r_x(x)·i₁ − 1,        κ(x) = ∂²u_t/∂x² = r_xx(x)·i₂.

(The left-hand side of (A.9) is misprinted as ∂²u_l, erratum 9.) This is the thesis's
"linear elasticity" model of chapter 6: frame invariant, exact for rigid motion, with no
geometric stiffening within an element, so a single clamped element linearised about the
straight configuration gives the stiffness (A.25) and the eigenvalues (6.20), and spins
unstable beyond its first bending frequency (E9). Model type ``ancf_beam2d``, element
``euler_bernoulli_linear``.

It is a small-deformation model: under large deflection a refined mesh does not converge
to the elastica. With ``r_x = ρ (cos φ, sin φ)`` in the node-m frame, ``r_xx·i₂ = ρ' sin φ +
ρ φ' cos φ`` mixes the stretch and its gradient into the curvature, and the element trades
stretch for bending through terms of order ``(I/A) κ²`` per unit length, independent of the
element length (a clamped 2 m beam of 0.1 m square section under the tip load 3EI/L²: the
tip converges to a point about 5 mm from the elastica's). ``euler_bernoulli`` uses the
exact strains.

Both strains are ``φ(e) = (W e)·t(e)`` with ``t = g/|g|``, ``g = S_g e`` (the node-m slope):

    ∇φ  = Wᵀ t + S_gᵀ N u/ρ,           u = W e,  ρ = |g|,  N = I − t tᵀ,
    ∇²φ = (Wᵀ N S_g + S_gᵀ N W)/ρ − S_gᵀ [(t·u) N + t (N u)ᵀ + (N u) tᵀ] S_g/ρ²,

with ``W = S_x(x)`` for ε and ``W = Ĩᵀ S_xx(x)`` for κ (κ = (Ĩᵀ r_xx)·t). The integrals use
3 Gauss points (exact: ε² is of degree 4, κ² of degree 2 in x). Internal damping:
``P_d = ½ γ ∫ (EA ε̇² + EI κ̇²) dx`` (``damping``).
"""

from __future__ import annotations

import numpy as np

from solver.mechanics.bodies.ancf.damping import strain_energy, strain_rate_damping
from solver.mechanics.bodies.ancf.element import InternalForces
from solver.mechanics.bodies.ancf.euler_bernoulli import I_TILDE, EulerBernoulli2D
from solver.mechanics.bodies.ancf.shapes import gauss, hermite


def unit_dot_strains(W: np.ndarray, Sg: np.ndarray, e: np.ndarray, hessian: bool = True):
    """``φ_s = (W_s e)·t`` with ``t = S_g e/|S_g e|``: values ``(N, S)``, gradients
    ``(N, S, k)`` and Hessians ``(N, S, k, k)`` (or ``None``)."""
    g = e @ Sg.T
    rho = np.linalg.norm(g, axis=1)
    t = g / rho[:, None]
    u = np.einsum("sik,nk->nsi", W, e)
    phi = np.einsum("nsi,ni->ns", u, t)
    nmat = np.eye(2) - t[:, :, None] * t[:, None, :]
    nu = np.einsum("nij,nsj->nsi", nmat, u) / rho[:, None, None]  # N u/ρ
    grad = np.einsum("sik,ni->nsk", W, t) + nu @ Sg
    if not hessian:
        return phi, grad, None
    ns = (nmat @ Sg) / rho[:, None, None]  # N S_g/ρ, (N, 2, k)
    a = W.transpose(0, 2, 1)[None] @ ns[:, None]  # Wᵀ N S_g/ρ, (N, S, k, k)
    nur = nu * rho[:, None, None]  # N u
    mid = (
        phi[:, :, None, None] * nmat[:, None, :, :]
        + t[:, None, :, None] * nur[:, :, None, :]
        + nur[:, :, :, None] * t[:, None, None, :]
    ) / (rho**2)[:, None, None, None]
    b = Sg.T @ mid @ Sg
    return phi, grad, a + a.transpose(0, 1, 3, 2) - b


class EulerBernoulliLinear2D(EulerBernoulli2D):
    """Planar elastic-line element (8 coordinates), strains in the node-m tangent frame."""

    name = "euler_bernoulli_linear"
    kernel = None

    def __init__(self, length, section, material) -> None:
        super().__init__(length, section, material)
        ln = self.length
        xi, _ = gauss(3)
        eye = np.eye(2)
        sx = np.einsum("gi,ab->gaib", hermite(xi, ln, 1), eye).reshape(len(xi), 2, 8)
        sxx = np.einsum("gi,ab->gaib", hermite(xi, ln, 2), eye).reshape(len(xi), 2, 8)
        self.W = np.concatenate([sx, np.einsum("ji,gjk->gik", I_TILDE, sxx)])
        self.Sg = np.einsum("i,ab->aib", hermite(np.array(0.0), ln, 1), eye).reshape(2, 8)
        self.offset = np.concatenate([np.ones(len(xi)), np.zeros(len(xi))])

    def strains(self, e: np.ndarray, hessian: bool = True):
        phi, grad, hess = unit_dot_strains(self.W, self.Sg, e, hessian)
        return phi - self.offset, grad, hess

    def internal(self, E, Edot, jacobian=False):
        n = E.shape[0]
        strain, grad, hess = self.strains(E.reshape(n, 8), jacobian)
        _, force, kq = strain_energy(strain, grad, hess, self.coef, jacobian)
        out = InternalForces(force, kq)
        if self.damped:
            qd, kd, kdd, power = strain_rate_damping(
                grad, hess, self.gamma * self.coef, Edot.reshape(n, 8), jacobian
            )
            out.force = force + qd
            out.power = power
            if jacobian:
                out.kq = kq + kd
                out.kqd = kdd
        return out

    def energy(self, E):
        strain, _, _ = self.strains(E.reshape(E.shape[0], 8), hessian=False)
        return 0.5 * (strain * strain) @ self.coef
