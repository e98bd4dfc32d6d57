"""Omar–Shabana planar shear-deformable ANCF element (García Vallejo (2006) §2.4, (2.44)–(2.48)).

12 coordinates ``[r^m, r_x^m, r_y^m, r^n, r_x^n, r_y^n]`` (2D); cubic in x, linear in y;
continuum-mechanics elastic forces (St. Venant–Kirchhoff, strain in the two in-plane
directions, 2D form of (3.17) with U₀ = (λ + G)/2 V, ``continuum``). The section's z extent
(the thickness) only weights the integrals. ν = 0 avoids Poisson locking (García Vallejo (2006) ch.
2).
"""

from __future__ import annotations

from solver.mechanics.bodies.ancf import shapes
from solver.mechanics.bodies.ancf.continuum import ContinuumElement


class Omar2D(ContinuumElement):
    name = "omar"
    m = 6
    d = 2
    n_dirs = 2
    node_vectors = ("r", "r_x", "r_y")

    def functions(self, xi, y, z, derivative=""):
        return shapes.omar(xi, y, self.length, derivative)
