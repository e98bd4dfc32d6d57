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

from solver.kernels.elastic_line import line_internal, line_strains
from solver.mechanics.bodies.ancf.element import ElementModel, InternalForces, as_f64
from solver.mechanics.bodies.ancf.shapes import gauss, hermite

I_TILDE = np.array([[0.0, -1.0], [1.0, 0.0]])


def elastic_line_strains(
    B: np.ndarray, Sg: np.ndarray, frame: bool, e: np.ndarray, hessian: bool = True
):
    """Stretch and material curvature at the points of ``B`` ``(G, 4, k)`` (rows: ``S_x``
    then ``S_xx``; with ``frame`` those of the node-m frame, ``Sg`` ``(2, k)`` the node-m
    slope's rows) for elements ``e`` ``(N, k)``: values ``(N, 2G)`` (G stretches, then G
    curvatures), gradients ``(N, 2G, k)`` and Hessians ``(N, 2G, k, k)`` (or ``None``);
    ``solver.kernels.elastic_line``."""
    phi, grad, hess = line_strains(as_f64(B), as_f64(Sg), np.bool_(frame), as_f64(e), bool(hessian))
    return phi, grad, (hess if hessian else None)


class EulerBernoulli2D(ElementModel):
    """Planar elastic-line element (8 coordinates), exact stretch and curvature."""

    name = "euler_bernoulli"
    kernel = "elastic_line"
    m = 4
    d = 2
    node_vectors = ("r", "r_x")
    #: whether the strains are measured in the frame tangent at node m (App. A)
    frame = False

    def __init__(self, length, section, material) -> None:
        super().__init__(length, section, material)
        ln = self.length
        xi, w = gauss(3)
        eye = np.eye(2)
        sx = np.einsum("gi,ab->gaib", hermite(xi, ln, 1), eye).reshape(len(xi), 2, 8)
        sxx = np.einsum("gi,ab->gaib", hermite(xi, ln, 2), eye).reshape(len(xi), 2, 8)
        self.B = np.ascontiguousarray(np.concatenate([sx, sxx], axis=1))  # (G, 4, 8)
        # the node-m slope r_x(0) = S_g e (read by the frame strains only)
        self.Sg = np.ascontiguousarray(
            np.einsum("i,ab->aib", hermite(np.array(0.0), ln, 1), eye).reshape(2, 8)
        )
        ea = material.E * section.area
        ei = material.E * section.Syy
        self.coef = np.ascontiguousarray(np.concatenate([ea * w * ln, ei * w * ln]))
        self.gamma = material.damping

    def shape_values(self, xi):
        return hermite(xi, self.length)

    def strains(self, e: np.ndarray, hessian: bool = True):
        """Strain samples ``(N, S)`` (axial, then bending), gradients and Hessians."""
        return elastic_line_strains(self.B, self.Sg, self.frame, e, hessian)

    def internal(self, E, Edot, jacobian=False):
        n = E.shape[0]
        gamma = self.gamma if self.damped else 0.0
        force, kq, kqd, _, power = line_internal(
            self.B, self.Sg, np.bool_(self.frame), self.coef, gamma, as_f64(E.reshape(n, 8)),
            as_f64(Edot.reshape(n, 8)), jacobian,
        )  # fmt: skip
        out = InternalForces(force, kq if jacobian else None, None, power)
        if jacobian and self.damped:
            out.kqd = kqd
        return out

    def energy(self, E):
        n = E.shape[0]
        e = as_f64(E.reshape(n, 8))
        return line_internal(self.B, self.Sg, np.bool_(self.frame), self.coef, 0.0, e, e, False)[3]

    def axial_force(self, stretch):
        """``EA (λ − 1)``: the stretch is this element's axial strain."""
        return self.material.E * self.section.area * (np.asarray(stretch, float) - 1.0)
