"""ANCF shape functions (García Vallejo (2006) §2.4 and §3.2), scalar form.

Every element interpolates ``r = S(x) e`` with ``S = [s₁ I_d, s₂ I_d, …, s_m I_d]``, so only
the ``m`` scalar functions ``s_i`` and their derivatives are needed: with the nodal vectors
stacked as the rows of ``E`` (``m × d``, ``e = E.ravel()``), ``r = Eᵀ s`` and
``∂r/∂x_α = Eᵀ ∂s/∂x_α``. ``ξ = x/l`` runs from node m (ξ = 0) to node n (ξ = 1); ``y`` and
``z`` are the section coordinates.

* ``hermite``: the cubic Hermite functions of the planar Euler–Bernoulli element (2.33) and of
  the spatial cable; they are also the (r, r_x) part of the continuum elements.
* ``omar``: the planar shear-deformable element of Omar and Shabana (2.46), ``m = 6``:
  ``[r^m, r_x^m, r_y^m, r^n, r_x^n, r_y^n]``.
* ``yakoub``: the spatial beam of Yakoub and Shabana (2.55), ``m = 8``:
  ``[r^m, r_x^m, r_y^m, r_z^m, r^n, r_x^n, r_y^n, r_z^n]``.

All functions are vectorised over points: ``xi`` (and ``y``, ``z``) are arrays of equal shape
``P``; results have shape ``P + (m,)``.
"""

from __future__ import annotations

import numpy as np

from solver.kernels.hermite import hermite_jet


def hermite(xi, length: float, derivative: int = 0) -> np.ndarray:
    """The four cubic Hermite functions or their ``derivative``-th x-derivative, ``(..., 4)``
    (``solver.kernels.hermite.hermite_jet`` at each point)."""
    if derivative not in (0, 1, 2, 3):
        raise ValueError("derivative must be 0, 1, 2 or 3")
    xi = np.asarray(xi, float)
    out = np.empty(xi.shape + (4,))
    jet = np.empty((4, 4))
    for index in np.ndindex(xi.shape):
        hermite_jet(float(xi[index]), float(length), jet)
        out[index] = jet[derivative]
    return out


def _continuum(xi, coords, length: float, derivative: str) -> np.ndarray:
    """Shape functions of a continuum element whose section coordinates are ``coords``
    (``(y,)`` for Omar, ``(y, z)`` for Yakoub), or their derivative along ``x``, ``y``, ``z``.

    Order per node: the two Hermite functions (r, r_x), then one linear function per
    section coordinate (r_y, r_z): ``y(1 − ξ)`` at node m, ``yξ`` at node n.
    """
    xi = np.asarray(xi, float)
    coords = [np.asarray(c, float) for c in coords]
    if derivative == "":
        h = hermite(xi, length, 0)
        lin_m = [c * (1.0 - xi) for c in coords]
        lin_n = [c * xi for c in coords]
    elif derivative == "x":
        h = hermite(xi, length, 1)
        lin_m = [-c / length for c in coords]
        lin_n = [c / length for c in coords]
    else:
        k = "yz".index(derivative)
        h = np.zeros(xi.shape + (4,))
        zero = np.zeros_like(xi)
        lin_m = [(1.0 - xi) if i == k else zero for i in range(len(coords))]
        lin_n = [xi if i == k else zero for i in range(len(coords))]
    cols = [h[..., 0], h[..., 1], *lin_m, h[..., 2], h[..., 3], *lin_n]
    return np.stack(np.broadcast_arrays(*cols), axis=-1)


def omar(xi, y, length: float, derivative: str = "") -> np.ndarray:
    """Omar–Shabana planar element (2.46): ``derivative`` is ``""``, ``"x"`` or ``"y"``."""
    return _continuum(xi, (y,), length, derivative)


def yakoub(xi, y, z, length: float, derivative: str = "") -> np.ndarray:
    """Yakoub–Shabana spatial element (2.55): ``derivative`` is ``""``, ``"x"``, ``"y"``, ``"z"``."""
    return _continuum(xi, (y, z), length, derivative)


def gauss(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Gauss–Legendre points on [0, 1] and weights summing to 1."""
    x, w = np.polynomial.legendre.leggauss(n)
    return 0.5 * (x + 1.0), 0.5 * w
