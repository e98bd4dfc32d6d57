"""Yakoub–Shabana spatial fully parameterised ANCF beam (García Vallejo (2006) §2.4, (2.54)–(2.56)).

24 coordinates ``[r^m, r_x^m, r_y^m, r_z^m, r^n, r_x^n, r_y^n, r_z^n]``; cubic in x, linear in
y and z; continuum-mechanics elastic forces from the invariants (``continuum``), with the
erratum k₂ = λ + G of (3.26) built in (the energy is differentiated directly). ν = 0 avoids
Poisson locking (García Vallejo (2006) ch. 2): with ν = 0 the E1 cantilever gives 1.065 / 1.125 /
1.134 cm.
"""

from __future__ import annotations

from solver.mechanics.bodies.ancf import shapes
from solver.mechanics.bodies.ancf.continuum import ContinuumElement


class Yakoub3D(ContinuumElement):
    name = "yakoub"
    m = 8
    d = 3
    n_dirs = 3
    node_vectors = ("r", "r_x", "r_y", "r_z")

    def functions(self, xi, y, z, derivative=""):
        return shapes.yakoub(xi, y, z, self.length, derivative)
