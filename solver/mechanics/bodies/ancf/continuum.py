"""Continuum-mechanics ANCF elements: common part of the Omar (2D) and Yakoub (3D) beams.

Elastic forces, their exact Jacobian and the strain energy come from the invariants
(``invariants``), computed once per element geometry with Gauss quadrature: 5 points along
the axis × the section rule of ``section`` (3 × 3 on a rectangle, as in the thesis, E1),
and are evaluated by ``solver.kernels.continuum``. The damping of García Vallejo (2006)
§3.3 uses the same invariants. The mass matrix
includes the inertia of the section vectors (``∫ ρ y² dA`` on r_y, ``∫ ρ z² dA`` on r_z).
"""

from __future__ import annotations

import numpy as np

from solver.kernels.continuum import continuum_internal
from solver.mechanics.bodies.ancf.element import ElementModel, InternalForces, as_f64
from solver.mechanics.bodies.ancf.invariants import ContinuumInvariants
from solver.mechanics.bodies.ancf.shapes import gauss

#: Invariants already computed, by (element, length, section, material): identical beams
#: (or beams split into equal elements) share one set (García Vallejo (2006) §3.2).
_CACHE: dict[tuple, tuple] = {}


class ContinuumElement(ElementModel):
    """Base of the volume-parametrised elements; subclasses give the shape functions."""

    n_dirs = 3  # material directions in the strain (2 for the planar element)
    kernel = "continuum"
    derivatives = ("x", "y", "z")

    def functions(self, xi, y, z, derivative: str = "") -> np.ndarray:
        raise NotImplementedError

    def _points(self):
        xi, wx = gauss(5)
        s = self.section
        xx = np.repeat(xi, len(s.w))
        yy = np.tile(s.y, len(xi))
        zz = np.tile(s.z, len(xi))
        w = np.repeat(wx * self.length, len(s.w)) * np.tile(s.w, len(xi))
        return xx, yy, zz, w

    def _volume_functions(self):
        xx, yy, zz, w = self._points()
        return self.functions(xx, yy, zz), w

    def __init__(self, length, section, material) -> None:
        super().__init__(length, section, material)
        key = (self.name, float(length), section.key(), material.key())
        if key not in _CACHE:
            xx, yy, zz, w = self._points()
            derivs = np.stack(
                [self.functions(xx, yy, zz, a) for a in self.derivatives[: self.n_dirs]],
                axis=1,
            )
            inv = ContinuumInvariants(derivs, w)
            lam, mu = material.lame, material.G
            tensor = np.ascontiguousarray(inv.tensor(lam, mu))
            lam_v, mu_v = material.damping_lame
            viscous = np.ascontiguousarray(
                inv.tensor(lam_v, mu_v) if self.damped else np.zeros_like(tensor)
            )
            _CACHE[key] = (inv, tensor, viscous)
        self.invariants, self.tensor, self.viscous = _CACHE[key]
        self.reference = np.ascontiguousarray(self.reference_matrix())

    def reference_matrix(self) -> np.ndarray:
        """``P₀ = E₀ E₀ᵀ`` of the straight, unstressed element in its material frame."""
        e0 = np.zeros((self.m, self.d))
        half = self.m // 2
        for node, x in ((0, 0.0), (half, self.length)):
            e0[node, 0] = x
            for k in range(1, half):  # r_x, r_y, (r_z): the unit axes
                e0[node + k, k - 1] = 1.0
        return e0 @ e0.T

    def shape_values(self, xi):
        xi = np.asarray(xi, float)
        zero = np.zeros_like(xi)
        return self.functions(xi, zero, zero)

    def internal(self, E, Edot, jacobian=False):
        force, kq, kqd, _, power = continuum_internal(
            self.tensor,
            self.reference,
            self.viscous,
            self.damped,
            as_f64(E),
            as_f64(Edot),
            jacobian,
        )
        out = InternalForces(force, kq if jacobian else None, None, power)
        if jacobian and self.damped:
            out.kqd = kqd
        return out

    def energy(self, E):
        E = as_f64(E)
        return continuum_internal(self.tensor, self.reference, self.viscous, False, E, E, False)[3]
