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

The strains, their derivatives, the energy, forces, damping ``P_d = ½ γ ∫ (EA ε̇² + EI κ̇²)
dx`` and Jacobians are those of ``solver.kernels.elastic_line`` with ``frame`` (3 Gauss
points, exact: ε² is of degree 4, κ² of degree 2 in x), as for ``euler_bernoulli``.
"""

from __future__ import annotations

from solver.mechanics.bodies.ancf.euler_bernoulli import EulerBernoulli2D


class EulerBernoulliLinear2D(EulerBernoulli2D):
    """Planar elastic-line element (8 coordinates), strains in the node-m tangent frame."""

    name = "euler_bernoulli_linear"
    frame = True
