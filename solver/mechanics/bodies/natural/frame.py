"""The geometry of one natural-coordinate body: its basic entities in body axes.

A body is described by four basic entities ``e₁ … e₄``: ``e₁`` is a point, the others are
points or unit vectors (the sets with a constant mass matrix of García Vallejo (2006) §2.3: 1 point
+ 3 vectors, 2 points + 2 vectors, 3 points + 1 vector, 4 points). Each entity is three
global coordinates. With the *directions* ``d_k = e_k − e₁`` (a point) or ``d_k = e_k``
(a vector), ``k = 2, 3, 4``, and their values ``d̄_k`` in body axes, any body-fixed point
and direction is a constant linear combination of the entities (García de Jalón and Bayo (1994),
García Vallejo (2006) §2.3.2):

    r = e₁ + Σ_k c_k d_k,   c = D̄⁻¹ (x̄ − x̄₁),   D̄ = [d̄₂ d̄₃ d̄₄];
    v = Σ_k c_k d_k,        c = D̄⁻¹ v̄,

i.e. ``r = Σ_i a_i(x̄) e_i`` with ``a(x̄) = a₀ + T (x̄ − x̄₁)`` for points and ``a = T v̄`` for
directions, where ``a₀ = [1, 0, 0, 0]`` and ``T = S D̄⁻¹`` (``S``: rows 2-4 the identity, row
1 minus the point flags of entities 2-4). ``C(x̄) = [a₁ I, a₂ I, a₃ I, a₄ I]``.

Mass matrix: ``M = ∫ C(x̄)ᵀ C(x̄) dm = Z ⊗ I₃`` with the 4×4 matrix
``Z = ∫ a aᵀ dm = m a_G a_Gᵀ + T J̄ Tᵀ``, ``a_G = a(x̄_G)`` and ``J̄ = ∫ ρ ρᵀ dm =
½ tr(I_G) 1 − I_G`` (ρ measured from the centre of mass; the cross terms vanish because
``∫ ρ dm = 0``). Constant, like the gravity force ``Q = m C(x̄_G)ᵀ g``.

Body axes here are those of the model body: origin at the centre of mass, orientation
``A₀`` at t = 0, so ``x̄_G = 0``.
"""

from __future__ import annotations

import numpy as np


def second_moment(inertia: np.ndarray) -> np.ndarray:
    """``J̄ = ∫ ρ ρᵀ dm = ½ tr(I) 1 − I`` from the inertia tensor ``I`` about the centre of
    mass (both in body axes)."""
    inertia = np.asarray(inertia, float).reshape(3, 3)
    return 0.5 * np.trace(inertia) * np.eye(3) - inertia


class Frame:
    """Four basic entities in body axes (``local``, 4×3; ``is_point``, 4 flags)."""

    def __init__(self, is_point, local) -> None:
        self.is_point = np.asarray(is_point, bool).reshape(4)
        self.local = np.asarray(local, float).reshape(4, 3)
        if not self.is_point[0]:
            raise ValueError("the first basic entity of a natural-coordinate body is a point")
        origin = self.local[0]
        dirs = self.local[1:] - self.is_point[1:, None] * origin
        self.directions = dirs  # rows d̄₂, d̄₃, d̄₄
        s = np.zeros((4, 3))
        s[1:] = np.eye(3)
        s[0] = -self.is_point[1:].astype(float)
        # T = S D̄⁻¹ with D̄ = dirsᵀ (directions as columns)
        self.T = s @ np.linalg.inv(dirs.T)
        self.origin = origin

    @property
    def condition(self) -> float:
        """Condition number of ``D̄`` (with its directions normalised)."""
        d = self.directions / np.linalg.norm(self.directions, axis=1, keepdims=True)
        return float(np.linalg.cond(d))

    def point_coefficients(self, xbar) -> np.ndarray:
        """``a(x̄)`` of body-fixed points ``x̄`` (…, 3) → (…, 4)."""
        xbar = np.asarray(xbar, float)
        a = (xbar - self.origin) @ self.T.T
        a[..., 0] += 1.0
        return a

    def vector_coefficients(self, vbar) -> np.ndarray:
        """``a`` of body-fixed directions ``v̄`` (…, 3) → (…, 4)."""
        return np.asarray(vbar, float) @ self.T.T

    def mass_coefficients(self, mass: float, inertia) -> np.ndarray:
        """``Z = ∫ a aᵀ dm`` (4×4) for a body with its centre of mass at the origin of the
        body axes; ``M = Z ⊗ I₃`` over the twelve entity coordinates."""
        a_g = self.point_coefficients(np.zeros(3))
        return mass * np.outer(a_g, a_g) + self.T @ second_moment(inertia) @ self.T.T

    def axes_coefficients(self) -> np.ndarray:
        """``a`` of the three body axes, (3, 4): row k gives the global axis k."""
        return self.vector_coefficients(np.eye(3))
