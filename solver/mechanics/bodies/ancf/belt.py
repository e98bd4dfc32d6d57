"""García Vallejo's planar belt element (García Vallejo (2006) §7.2, eqs. (7.1)–(7.17)).

Dufva's shear-deformable element (Dufva, Sopanen and Mikkola, 2005) with the longitudinal
strain split into its axial and bending parts and a stiffness factor on each: α₁ (axial)
and α₂ (bending, and the shear with it), so that a belt, stiff in tension and soft in
bending, is one element.

Coordinates and mass are Omar and Shabana's: 12 per element ``[r^m, r_x^m, r_y^m, r^n,
r_x^n, r_y^n]`` (2D), ``r = S(x, y) e`` cubic in x and linear in y, ``M = ∫ ρ Sᵀ S dV``.
The elastic forces use Dufva's kinematics instead of the continuum strain:

* the centreline ``r_c = S(x, 0) e`` (Hermite part), ``a = r_c,x``, ``b = r_c,xx``;
* the section vector ``r_s = (I + Ĩ sin γ) n_ψ`` (7.4), ``n_ψ = Ĩ a/|a|`` (7.6)–(7.7), turned
  from the normal by the shear angle; ``sin γ = −r_x·r_y/(|r_x| |r_y|)`` at each node (2.60),
  interpolated linearly between the nodes (7.8): ``s = (1 − ξ) sin γ^m + ξ sin γ^n``;
* the transverse strain of Dufva, ``ε_yy = (1 − ξ)(|r_y^m| − 1) + ξ (|r_y^n| − 1)`` (2.64; the
  thesis prints the norm without the "− 1", which would stress the undeformed element).

With ``c = a·a``, the material curvature ``k = (a × b)/c`` (rotation of the tangent per unit
reference length) and ``s' = ds/dx``, the products of (7.12)–(7.13) are
``r_c,x·r_s = −s|a|``, ``r_s,x = −(k + s') t − s k n_ψ``, so ``p = r_c,x·r_s,x = −|a| (k + s')``,
``q = r_s,x·r_s,x = (k + s')² + s² k²`` and ``r_s,x·r_s = s s'``. Integrated over a symmetric
section (``A``, ``I = ∫y² dA``, ``I₄ = ∫y⁴ dA``; the odd powers of y vanish), the energy
(7.15)–(7.16), with the ½ that (7.9) omits, plus ``½ ∫ E ε_yy² dV``, is

    U = ∫₀ˡ { E α₁ A/8 (c − 1)² + E α₂ I/2 [c (k + s')² + ½ (c − 1) q] + E α₂ I₄/8 q²
              + G k_s α₂/2 (A s² c + I s² s'²) + E A/2 ε_yy² } dx

(the erratum of (7.12): its y term is ``y (c − 1) p``, without a "− 1" on p; it is odd in y and
drops out). A straight unstressed element has c = 1, k = s = 0, |r_y| = 1: U = 0; a rigid
motion changes none of c, k, s, |r_y|. Pure stretch λ gives the axial force
``N = E α₁ A ε λ`` (``ε = ½(λ² − 1)``); pure bending the moment ``E α₂ I k (1 + I₄ k²/(2I))``.

The elastic force ``Q_e = −∂U/∂e`` (7.17) and its exact Jacobian come from the chain rule
through ``z = (c, k, sin γ^m, sin γ^n, |r_y^m|, |r_y^n|)`` at each Gauss point: the stretch and
curvature with their derivatives are those of the Euler–Bernoulli element
(``solver.kernels.elastic_line``), the nodal ones are closed forms, and
``∂²U/∂e² = Σ_g w_g [J_zᵀ W_zz J_z + Σ_k W_{z_k} ∂²z_k/∂e²]``. Five Gauss points along the
element. Material damping is not part of this element. The energy, forces and Jacobian are
evaluated by ``solver.kernels.belt``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from solver.kernels.belt import belt_internal
from solver.mechanics.bodies.ancf import shapes
from solver.mechanics.bodies.ancf.element import ElementModel, InternalForces, as_f64
from solver.mechanics.bodies.ancf.shapes import gauss, hermite

#: Gauss points along the element
POINTS = 5
#: the columns of the Hermite coordinates (r^m, r_x^m, r^n, r_x^n) among the element's 12
HERMITE_COLS = np.array([0, 1, 2, 3, 6, 7, 8, 9])


@dataclass(frozen=True)
class BeltFactors:
    """α₁ (axial), α₂ (bending and shear) stiffness factors and the shear correction k_s."""

    axial: float = 1.0
    bending: float = 1.0
    shear: float = 5.0 / 6.0


def cowper_shear_factor(shape: str, nu: float) -> float:
    """Cowper's shear correction factor: ``10(1 + ν)/(12 + 11ν)`` for a rectangle (also used
    for a ``general`` section), ``6(1 + ν)/(7 + 6ν)`` for a circle."""
    if shape == "circle":
        return 6.0 * (1.0 + nu) / (7.0 + 6.0 * nu)
    return 10.0 * (1.0 + nu) / (12.0 + 11.0 * nu)


class Belt2D(ElementModel):
    """The belt element (12 coordinates): Dufva kinematics, α₁ and α₂ (module docstring)."""

    name = "belt"
    kernel = "belt"
    m = 6
    d = 2
    node_vectors = ("r", "r_x", "r_y")

    def __init__(self, length, section, material, factors: BeltFactors | None = None) -> None:
        super().__init__(length, section, material)
        self.factors = factors or BeltFactors()
        f, mat, sec = self.factors, material, section
        inertia4 = float(sec.w @ sec.y**4)
        # the coefficients of W and the length: a₁, a₂, a₄, g₁, g₂, e₁ (J/m), l (m)
        self.par = np.array(
            [
                mat.E * f.axial * sec.area / 8.0,
                mat.E * f.bending * sec.Syy / 2.0,
                mat.E * f.bending * inertia4 / 8.0,
                mat.G * f.shear * f.bending * sec.area / 2.0,
                mat.G * f.shear * f.bending * sec.Syy / 2.0,
                mat.E * sec.area / 2.0,
                self.length,
            ]
        )
        xi, w = gauss(POINTS)
        self.xw = np.ascontiguousarray(np.stack([xi, w * self.length]))
        ln = self.length
        eye = np.eye(2)
        sx = np.einsum("gi,ab->gaib", hermite(xi, ln, 1), eye).reshape(len(xi), 2, 8)
        sxx = np.einsum("gi,ab->gaib", hermite(xi, ln, 2), eye).reshape(len(xi), 2, 8)
        # r_c,x and r_c,xx rows over the 12 coordinates (zero in the r_y columns)
        self.B = np.zeros((len(xi), 4, 12))
        self.B[:, :, HERMITE_COLS] = np.concatenate([sx, sxx], axis=1)

    # ---- mass: Omar and Shabana's shape functions over the section ---------------------
    def _volume_functions(self):
        xi, wx = gauss(5)
        s = self.section
        xx = np.repeat(xi, len(s.w))
        yy = np.tile(s.y, len(xi))
        w = np.repeat(wx * self.length, len(s.w)) * np.tile(s.w, len(xi))
        return shapes.omar(xx, yy, self.length), w

    def shape_values(self, xi):
        xi = np.asarray(xi, float)
        return shapes.omar(xi, np.zeros_like(xi), self.length)

    # ---- elasticity: ``solver.kernels.belt`` ---------------------------------------------
    def internal(self, E, Edot, jacobian=False):
        n = E.shape[0]
        force, kq, _ = belt_internal(
            self.B, self.par, self.xw, as_f64(E.reshape(n, 12)), bool(jacobian)
        )
        return InternalForces(force, kq if jacobian else None)

    def energy(self, E):
        n = E.shape[0]
        return belt_internal(self.B, self.par, self.xw, as_f64(E.reshape(n, 12)), False)[2]

    def axial_force(self, stretch):
        """Axial force (N) of the centreline at the stretch ``|r_c,x|``: ``E α₁ A ε λ``."""
        lam = np.asarray(stretch, float)
        return self.material.E * self.factors.axial * self.section.area * 0.5 * (lam**2 - 1) * lam


def belt_factors(body) -> BeltFactors:
    """The ``BeltFactors`` of a model body (``belt`` options; k_s by Cowper if not given)."""
    opts = body.belt
    shear = None if opts is None else opts.shear_factor
    if shear is None:
        shear = cowper_shear_factor(body.section.shape, float(body.material.nu))
    if opts is None:
        return BeltFactors(1.0, 1.0, shear)
    return BeltFactors(float(opts.axial_factor), float(opts.bending_factor), float(shear))
