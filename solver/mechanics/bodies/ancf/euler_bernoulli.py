"""Planar Euler–Bernoulli ANCF element, geometrically exact elastic line (the default).

Escalona, Hussien and Shabana's element (García Vallejo (2006) eq. (2.32)–(2.34)): 8 coordinates
``e = [r^m, r_x^m, r^n, r_x^n]`` (2D), cubic Hermite functions, ``x`` the arc length of the
straight unstressed reference. The strains of the centreline at a point are the stretch and
the material curvature (rotation of the tangent per unit reference length):

    ε = |r_x| − 1,        κ = (r_x × r_xx)/|r_x|² = dθ/dx,

and the energy ``U = ½ ∫₀^l (EA ε² + EI κ²) dx``: the extensible elastica (Reissner's
planar rod without shear; axial force ``N = EA ε``, bending moment ``M = EI κ``), which is
therefore the limit of a refined mesh at any deflection. Both strains vanish in rigid motion
and are frame invariant; linearised about a straight unstressed configuration they are
``r_x·i₁ − 1`` and ``r_xx·i₂``, so the stiffness is (A.25).

The thesis's "linear elasticity" variant (App. A), which measures both strains in the frame
tangent at the element's first node, is ``euler_bernoulli_linear``: it has no geometric
stiffening within an element (García Vallejo (2006) §6.2–6.7) but does not converge to the elastica
under large deflection (see that module).

With ``p = r_x``, ``q = r_xx``, ``A = p·p``, ``c = p × q = pᵀ J q`` (``J = Ĩᵀ``), ``κ = c/A``:

    ∂ε/∂p = t = p/|p|,                   ∂²ε/∂p² = (I − t tᵀ)/|p|,
    ∂κ/∂p = J q/A − 2κ p/A,              ∂κ/∂q = Ĩ p/A,
    ∂²κ/∂p² = −2 [J q pᵀ + p (J q)ᵀ]/A² − 2κ I/A + 8κ p pᵀ/A²,
    ∂²κ/∂p∂q = J/A − 2 p (Ĩ p)ᵀ/A²,      ∂²κ/∂q² = 0,

mapped to ``e`` through ``p = S_x e``, ``q = S_xx e``. Three Gauss points per element
(exact for the linearised energy). Internal damping: ``P_d = ½ γ ∫ (EA ε̇² + EI κ̇²) dx``
(``damping``).
"""

from __future__ import annotations

import numpy as np

from solver.mechanics.bodies.ancf.damping import strain_energy, strain_rate_damping
from solver.mechanics.bodies.ancf.element import ElementModel, InternalForces
from solver.mechanics.bodies.ancf.shapes import gauss, hermite

I_TILDE = np.array([[0.0, -1.0], [1.0, 0.0]])


def elastic_line_strains(B: np.ndarray, e: np.ndarray, hessian: bool = True):
    """Stretch and material curvature at the points of ``B`` ``(G, 4, k)`` (rows: ``S_x``
    then ``S_xx``) for elements ``e`` ``(N, k)``: values ``(N, 2G)`` (G stretches, then G
    curvatures), gradients ``(N, 2G, k)`` and Hessians ``(N, 2G, k, k)`` (or ``None``)."""
    pq = np.einsum("gak,nk->nga", B, e)
    p, q = pq[..., :2], pq[..., 2:]
    a = np.sum(p * p, axis=-1)  # (N, G)
    norm = np.sqrt(a)
    t = p / norm[..., None]
    jq = q @ I_TILDE  # J q = Ĩᵀ q
    ip = p @ I_TILDE.T  # Ĩ p
    kappa = np.sum(ip * q, axis=-1) / a
    ia = 1.0 / a[..., None]
    zero = np.zeros_like(p)
    g_eps = np.concatenate([t, zero], axis=-1)  # (N, G, 4)
    g_kap = np.concatenate([(jq - 2.0 * kappa[..., None] * p) * ia, ip * ia], axis=-1)
    phi = np.concatenate([norm - 1.0, kappa], axis=1)
    grad = np.einsum("nsa,sak->nsk", np.concatenate([g_eps, g_kap], axis=1), np.tile(B, (2, 1, 1)))
    if not hessian:
        return phi, grad, None
    eye = np.eye(2)
    shape = p.shape[:2] + (4, 4)
    h_eps = np.zeros(shape)
    h_eps[..., :2, :2] = (eye - t[..., :, None] * t[..., None, :]) / norm[..., None, None]
    ia2 = ia[..., None]
    pp = p[..., :, None] * p[..., None, :]
    h_kap = np.zeros(shape)
    h_kap[..., :2, :2] = (
        -2.0 * (jq[..., :, None] * p[..., None, :] + p[..., :, None] * jq[..., None, :]) * ia2**2
        - 2.0 * kappa[..., None, None] * eye * ia2
        + 8.0 * kappa[..., None, None] * pp * ia2**2
    )
    cross = I_TILDE.T * ia2 - 2.0 * p[..., :, None] * ip[..., None, :] * ia2**2
    h_kap[..., :2, 2:] = cross
    h_kap[..., 2:, :2] = cross.swapaxes(-1, -2)
    hess = np.einsum(
        "sak,nsab,sbl->nskl",
        np.tile(B, (2, 1, 1)),
        np.concatenate([h_eps, h_kap], axis=1),
        np.tile(B, (2, 1, 1)),
    )
    return phi, grad, hess


class EulerBernoulli2D(ElementModel):
    """Planar elastic-line element (8 coordinates), exact stretch and curvature."""

    name = "euler_bernoulli"
    m = 4
    d = 2
    node_vectors = ("r", "r_x")

    def __init__(self, length, section, material) -> None:
        super().__init__(length, section, material)
        ln = self.length
        xi, w = gauss(3)
        eye = np.eye(2)
        sx = np.einsum("gi,ab->gaib", hermite(xi, ln, 1), eye).reshape(len(xi), 2, 8)
        sxx = np.einsum("gi,ab->gaib", hermite(xi, ln, 2), eye).reshape(len(xi), 2, 8)
        self.B = np.concatenate([sx, sxx], axis=1)  # (G, 4, 8)
        ea = material.E * section.area
        ei = material.E * section.Syy
        self.coef = np.concatenate([ea * w * ln, ei * w * ln])
        self.gamma = material.damping

    def shape_values(self, xi):
        return hermite(xi, self.length)

    def strains(self, e: np.ndarray, hessian: bool = True):
        """Strain samples ``(N, S)`` (axial, then bending), gradients and Hessians."""
        return elastic_line_strains(self.B, e, hessian)

    def internal(self, E, Edot, jacobian=False):
        n = E.shape[0]
        e = E.reshape(n, 8)
        strain, grad, hess = self.strains(e, jacobian)
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

    def axial_force(self, stretch):
        """``EA (λ − 1)``: the stretch is this element's axial strain."""
        return self.material.E * self.section.area * (np.asarray(stretch, float) - 1.0)
