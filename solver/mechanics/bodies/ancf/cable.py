"""Spatial gradient-deficient ANCF cable (12 coordinates ``[r^m, r_x^m, r^n, r_x^n]``).

The node carries a position and one slope; there is no section orientation, hence no
torsion. Cubic Hermite interpolation ``r = Σ h_i(x) e_i``. Elastic energy: the
Green–Lagrange strain of the centreline and its curvature vector (the "simple model" of
Berzeri and Shabana named in García Vallejo (2006) §2.4.1), the curvature taken per unit length of
the unstressed reference (``x``), so that in a plane the energy is that of the extensible
elastica (``N ≈ EA ε``, ``M = EI dθ/dx``) and a refined mesh converges to it:

    U = ½ ∫₀^l [EA ε² + EI |k|²] dx,   ε = ½ (r_x·r_x − 1),   k = (r_x × r_xx)/|r_x|²,

(``|k| = |r_x| κ`` with κ the geometric curvature of the deformed line; measuring per unit
deformed length, ``|r_x|⁻³``, would couple stretch and bending through terms of order
``(I/A) κ²``, which do not vanish with the element length.) Both vanish for any rigid
motion of the straight reference. Five Gauss points along the element (exact for the
axial part). The bending stiffness uses ``I = ½ (Iy + Iz)`` (the cable cannot tell the
section axes apart). Damping: ``P_d = ½ γ ∫ (EA ε̇² + EI |k̇|²) dx``. The strains, their
derivatives, the energy, forces and Jacobians: ``solver.kernels.cable``.
"""

from __future__ import annotations

import numpy as np

from solver.kernels.cable import cable_internal
from solver.mechanics.bodies.ancf.element import ElementModel, InternalForces, as_f64
from solver.mechanics.bodies.ancf.shapes import gauss, hermite


class Cable3D(ElementModel):
    """Gradient-deficient spatial cable element (12 coordinates)."""

    name = "cable"
    kernel = "cable"
    m = 4
    d = 3
    node_vectors = ("r", "r_x")

    def __init__(self, length, section, material) -> None:
        super().__init__(length, section, material)
        ln = self.length
        xi, w = gauss(5)
        eye = np.eye(3)
        sx = np.einsum("gi,ab->gaib", hermite(xi, ln, 1), eye).reshape(len(xi), 3, 12)
        sxx = np.einsum("gi,ab->gaib", hermite(xi, ln, 2), eye).reshape(len(xi), 3, 12)
        self.B = np.ascontiguousarray(np.concatenate([sx, sxx], axis=1))  # (G, 6, 12)
        ea = material.E * section.area * w * ln  # per Gauss point
        ei = material.E * 0.5 * (section.Syy + section.Szz) * w * ln
        self.coef = np.ascontiguousarray(np.stack([ea, ei]))  # (2, G)
        self.gamma = material.damping

    def shape_values(self, xi):
        return hermite(xi, self.length)

    def internal(self, E, Edot, jacobian=False):
        n = E.shape[0]
        gamma = self.gamma if self.damped else 0.0
        force, kq, kqd, _, power = cable_internal(
            self.B, self.coef, gamma, as_f64(E.reshape(n, 12)), as_f64(Edot.reshape(n, 12)),
            jacobian,
        )  # fmt: skip
        out = InternalForces(force, kq if jacobian else None, None, power)
        if jacobian and self.damped:
            out.kqd = kqd
        return out

    def energy(self, E):
        n = E.shape[0]
        e = as_f64(E.reshape(n, 12))
        return cable_internal(self.B, self.coef, 0.0, e, e, False)[3]
