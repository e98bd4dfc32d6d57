"""The cubic Hermite shape functions of the ANCF elements' centreline (García Vallejo
(2006) (2.33)) and their x-derivatives, at one point: the element classes' tables
(``solver.mechanics.bodies.ancf.shapes.hermite``) and the sliding joints' kernels read them
from here."""

from __future__ import annotations

from solver.kernels.jit import kernel


@kernel(full_optimisation=True)
def hermite_jet(xi, length, h):
    """``h[k, i]``: the k-th x-derivative (k = 0…3, 1/m^k) of the cubic Hermite function i
    at ξ (functions of r and r_x at ξ = 0, then at ξ = 1; García Vallejo (2006) (2.33))."""
    ln = length
    x2 = xi * xi
    x3 = x2 * xi
    h[0, 0] = 1.0 - 3.0 * x2 + 2.0 * x3
    h[0, 1] = ln * (xi - 2.0 * x2 + x3)
    h[0, 2] = 3.0 * x2 - 2.0 * x3
    h[0, 3] = ln * (x3 - x2)
    h[1, 0] = (6.0 * x2 - 6.0 * xi) / ln
    h[1, 1] = 1.0 - 4.0 * xi + 3.0 * x2
    h[1, 2] = (6.0 * xi - 6.0 * x2) / ln
    h[1, 3] = 3.0 * x2 - 2.0 * xi
    h[2, 0] = (12.0 * xi - 6.0) / (ln * ln)
    h[2, 1] = (6.0 * xi - 4.0) / ln
    h[2, 2] = (6.0 - 12.0 * xi) / (ln * ln)
    h[2, 3] = (6.0 * xi - 2.0) / ln
    h[3, 0] = 12.0 / (ln * ln * ln)
    h[3, 1] = 6.0 / (ln * ln)
    h[3, 2] = -12.0 / (ln * ln * ln)
    h[3, 3] = 6.0 / (ln * ln)
