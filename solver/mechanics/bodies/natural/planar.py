"""Planar natural coordinates: a rigid body moving in a plane z = const described by two
basic entities, two points or a point and a unit vector, four coordinates (García Vallejo
(2006) §2.3.1; García de Jalón and Bayo (1994)).

In the plane a body-fixed point is a linear combination of the entities with *2 × 2*
coefficients ``a I + b Ĩ`` (``Ĩ`` the rotation by 90°), which are complex numbers
``a + i b`` acting on ``x + i y``. With entity 1 a point ``e₁`` at local ``z̄₁`` (body axes,
``z̄ = x̄ + i ȳ``) and entity 2 a point or a unit vector with local direction
``d̄ = z̄₂ − z̄₁`` (point) or ``d̄ = w̄₂`` (vector):

    r(z̄) = e₁ + c (e₂ − p₂ e₁),   c = (z̄ − z̄₁)/d̄,   p₂ = 1 for a point, 0 for a vector,

so ``r = a₁ e₁ + a₂ e₂`` with ``a(z̄) = [1, 0] + t (z̄ − z̄₁)``, ``t = [−p₂, 1]/d̄``; a
direction ``w̄`` has ``a = t w̄``. For two points this is (2.14)–(2.15),
``C = [(1 − x/L) I − (y/L) Ĩ, (x/L) I + (y/L) Ĩ]`` with the first point at the origin and the
second on the x axis.

Mass matrix ``M = ∫ Cᵀ C dm`` (2.17; without the spurious ½ of (2.18)): block ``(i, j)`` is
``Re Z_ij I + Im Z_ij Ĩ`` with the Hermitian ``Z_ij = ∫ conj(a_i) a_j dm
= m conj(a_i(z̄_G)) a_j(z̄_G) + conj(t_i) t_j I_zz`` (``I_zz`` the polar moment about the
centre of mass; the cross terms vanish as ``∫ ρ dm = 0``). Constant, like the gravity force
``Q_i = m (Re a_i I − Im a_i Ĩ) g`` (in-plane components of ``g``). One rigid-body equation:
the distance of the two points, or the unit length of the vector.
"""

from __future__ import annotations

import numpy as np

from solver.mechanics.bodies.natural.layout import SAME, BodyInfo, Layout, _unit
from solver.model import description as d

#: the rotation by +90° about z, ``Ĩ``
I_TILDE = np.array([[0.0, -1.0], [1.0, 0.0]])


def complex_block(a: complex) -> np.ndarray:
    """``Re a I + Im a Ĩ`` (2 × 2)."""
    return np.array([[a.real, -a.imag], [a.imag, a.real]])


def _z(v) -> complex:
    v = np.asarray(v, float)
    return complex(v[0], v[1])


class PlanarFrame:
    """Two basic entities in body axes: ``is_point`` (2 flags, the first a point) and
    ``local`` (2 × 3; the z components are ignored)."""

    def __init__(self, is_point, local) -> None:
        self.is_point = np.asarray(is_point, bool).reshape(2)
        local = np.asarray(local, float).reshape(2, 3)
        if not self.is_point[0]:
            raise ValueError("the first basic entity of a natural-coordinate body is a point")
        self.origin = _z(local[0])
        p2 = float(self.is_point[1])
        self.direction = _z(local[1]) - p2 * self.origin
        self.t = np.array([-p2, 1.0], complex) / self.direction

    def point_coefficients(self, xbar) -> np.ndarray:
        """``a(z̄)`` (2 complex) of the body-fixed point ``x̄`` (3; z ignored)."""
        a = (_z(xbar) - self.origin) * self.t
        a[0] += 1.0
        return a

    def vector_coefficients(self, vbar) -> np.ndarray:
        """``a`` (2 complex) of the body-fixed direction ``v̄`` (in-plane part)."""
        return _z(vbar) * self.t

    def mass_coefficients(self, mass: float, izz: float) -> np.ndarray:
        """``Z`` (2 × 2 Hermitian) for a body with its centre of mass at the origin."""
        a_g = self.point_coefficients(np.zeros(3))
        return mass * np.outer(np.conj(a_g), a_g) + izz * np.outer(np.conj(self.t), self.t)

    def axis_coefficients(self) -> np.ndarray:
        """``a`` of the body's x axis (its y axis is ``Ĩ`` times it)."""
        return self.vector_coefficients(np.array([1.0, 0.0, 0.0]))


class PlanarLayout(Layout):
    """Entities of planar natural-coordinate bodies: at most two per body (a point first);
    spherical and revolute joints between them share their point (``Layout`` for the rest:
    classes of offered entities, fixed ones from ground, nodes of flexible bodies)."""

    dim = 2

    def _offer_joint(self, j: d.Joint) -> None:
        sides = self._sides(j)
        if sides is None or j.type not in ("spherical", "revolute"):
            return
        if self._offer(sides, True, np.asarray(j.point, float)):
            self.shared[j.name] = {"point": True}

    def _can_take(self, body: str, is_point: bool, value: np.ndarray) -> bool:
        if body == d.GROUND or body not in self.bodies:
            return True
        if self._find(body, is_point, value) is not None:
            return True
        nodes = [self.nodes[k] for k in self._body_nodes[body]]
        if len(nodes) >= 2:
            return False
        first, _ = self._directions(body)
        if first is None:
            return is_point or not nodes  # a vector may wait for the centre of mass
        new = value - first if is_point else value
        return float(np.linalg.norm(new[:2])) > SAME * max(1.0, float(np.linalg.norm(value)))

    def _complete(self, info: BodyInfo) -> None:
        """The centre of mass if the body has no point, then a unit vector along its x
        axis if it has one entity; its ``PlanarFrame``."""
        ents = info.entities
        if not any(self.entities[e].is_point for e in ents):
            ents.insert(0, self._new_entity(True, info.position0, False))
        if len(ents) < 2:
            ents.append(self._new_entity(False, _unit(info.rotation0[:, 0]), False))
        for e in ents:
            self.entities[e].bodies.append(info.name)
        local = np.array(
            [
                info.local_point(self.entities[e].value)
                if self.entities[e].is_point
                else info.local_vector(self.entities[e].value)
                for e in ents
            ]
        )
        info.frame = PlanarFrame([self.entities[e].is_point for e in ents], local)

    def _weighted_velocities(self, guess: np.ndarray) -> np.ndarray:
        """``M⁻¹ Σ_b C_bᵀ M_b ė_b`` over the own coordinates (``guess`` if M is singular)."""
        import scipy.sparse as sp
        import scipy.sparse.linalg as spla

        rows, cols, vals = [], [], []
        f = np.zeros(self.size)
        for info in self.bodies.values():
            z = info.frame.mass_coefficients(info.mass, float(info.inertia[2, 2]))
            ents = [self.entities[e] for e in info.entities]
            edot = np.array([info.velocity_of(e)[:2] for e in ents])
            for i, ei in enumerate(ents):
                if ei.fixed:
                    continue
                for j, ej in enumerate(ents):
                    blk = complex_block(z[i, j])
                    f[ei.col : ei.col + 2] += blk @ edot[j]
                    if not ej.fixed:
                        rows.append(np.repeat(ei.col + np.arange(2), 2))
                        cols.append(np.tile(ej.col + np.arange(2), 2))
                        vals.append(blk.ravel())
        mass = sp.csc_matrix(
            (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
            shape=(self.size, self.size),
        )
        try:
            out = spla.spsolve(mass, f)
        except RuntimeError:
            return guess
        return out if np.all(np.isfinite(out)) else guess
