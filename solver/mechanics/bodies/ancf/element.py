"""What every ANCF element type provides, for all the elements of one beam at once.

An element model is built for one geometry (length, section, material) and evaluated on
arrays of elements: ``E`` ``(N, m, d)`` holds the nodal vectors of N elements (``e = E.ravel()``
per element, node m then node n, each node ``[r, r_x, (r_y, r_z)]``).

* ``mass`` — the constant scalar matrix ``M̄`` (m × m); the element mass is ``M̄ ⊗ I_d``
  ((2.35)–(2.36), ``∫ ρ Sᵀ S dV₀``);
* ``gravity`` — ``∫ ρ s dV₀`` (m): the generalised gravity force is this ⊗ g (García Vallejo (2006)
  ch. 3);
* ``load`` — ``∫ s dx`` along the axis (m): a distributed load ``f`` (N/m) gives this ⊗ f;
* ``internal(E, Ė, jacobian)`` — elastic plus damping forces and their Jacobians;
* ``energy(E)`` — strain energy per element (zero in the undeformed state);
* ``axial_force(λ)`` — the axial force of the element's law at the centreline's stretch.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from solver.mechanics.bodies.ancf.section import MaterialData, SectionData
from solver.mechanics.bodies.ancf.shapes import gauss


def as_f64(a) -> np.ndarray:
    """``a`` as a C-contiguous float64 array (one compiled signature for the kernels)."""
    return np.ascontiguousarray(a, dtype=np.float64)


@dataclass
class InternalForces:
    """Elastic + damping forces of N elements: ``force`` ``(N, k)``; ``kq = ∂/∂e`` and
    ``kqd = ∂/∂ė`` ``(N, k, k)`` (``None`` when not asked or zero); damping ``power`` (W)."""

    force: np.ndarray
    kq: np.ndarray | None = None
    kqd: np.ndarray | None = None
    power: float = 0.0


class ElementModel:
    """Base class: ``m`` scalar shape functions in ``d`` dimensions (see module docstring)."""

    name = ""
    m = 4
    d = 3
    #: names of the nodal vectors in a node, in order
    node_vectors: tuple[str, ...] = ("r", "r_x")
    #: the compiled kernel that evaluates this element in a system (``None``: the
    #: element's own ``internal``, called by its body kind)
    kernel: str | None = None

    def __init__(self, length: float, section: SectionData, material: MaterialData) -> None:
        self.length = float(length)
        self.section = section
        self.material = material
        self.mass, self.gravity = self._mass_and_gravity()
        xi, w = gauss(4)
        from solver.mechanics.bodies.ancf.shapes import hermite

        h = hermite(xi, self.length)
        self.load = self._line_functions(h).T @ (w * self.length)

    @property
    def node_size(self) -> int:
        return self.m * self.d // 2

    @property
    def size(self) -> int:
        return self.m * self.d

    @property
    def damped(self) -> bool:
        return self.material.gamma_s > 0.0 or self.material.gamma_d > 0.0

    # ---- to be provided ------------------------------------------------------------
    def shape_values(self, xi: np.ndarray) -> np.ndarray:
        """Shape functions on the axis (y = z = 0) at ``xi``: ``(len(xi), m)``."""
        raise NotImplementedError

    def _line_functions(self, hermite_values: np.ndarray) -> np.ndarray:
        """Hermite values ``(P, 4)`` placed in this element's m slots (zero elsewhere)."""
        out = np.zeros((len(hermite_values), self.m))
        half = self.m // 2
        out[:, [0, 1, half, half + 1]] = hermite_values
        return out

    def _volume_functions(self) -> tuple[np.ndarray, np.ndarray]:
        """Shape-function values at volume quadrature points and the weights."""
        from solver.mechanics.bodies.ancf.shapes import hermite

        xi, w = gauss(4)
        a = self.section.area
        return self._line_functions(hermite(xi, self.length)), w * self.length * a

    def _mass_and_gravity(self):
        s, w = self._volume_functions()
        rho = self.material.density
        mass = rho * np.einsum("p,pi,pj->ij", w, s, s)
        return 0.5 * (mass + mass.T), rho * (w @ s)

    def internal(self, E: np.ndarray, Edot: np.ndarray, jacobian: bool = False) -> InternalForces:
        raise NotImplementedError

    def energy(self, E: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def axial_force(self, stretch) -> np.ndarray:
        """Axial force (N) of the centreline at the stretch ``λ = |r_x|``: the uniaxial
        St. Venant–Kirchhoff law ``E A ε λ``, ``ε = ½(λ² − 1)``."""
        lam = np.asarray(stretch, float)
        return self.material.E * self.section.area * 0.5 * (lam * lam - 1.0) * lam
