"""Constraint primitives: the instances of each type in a system, and their evaluation.

A primitive is a scalar or vector function ``Φ = f(u) − c(t)`` of marker values ``u``
(points and directions, see ``solver.mechanics.markers``); the formulas are the compiled
kernels of :mod:`solver.kernels.primitives` (types, rows, slots and conventions there).
Each group of one type gives, per instance:

* ``phi``     the residual, ``(m, r)``;
* ``blocks``  ``∂f/∂u`` for each of its marker slots, ``(m, r, 3)`` each;
* ``quad``    ``u̇ᵀ f_uu u̇``, the velocity-product part of ``Φ̈`` not carried by ``J̇q̇``;
* ``phit``, ``phitt``  ``∂Φ/∂t`` and ``∂²Φ/∂t²`` from the driving function ``c(t)``.

The system forms ``Φ_q = Σ blocks·J``, ``Φ_t = phit`` and
``γ = −Σ blocks·(J̇q̇) − quad − phitt`` so that ``Φ_q q̈ = γ``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from solver.kernels import primitives as kp
from solver.mechanics.markers import MarkerState


@dataclass
class PrimitiveEval:
    phi: np.ndarray
    blocks: list[np.ndarray]
    quad: np.ndarray
    phit: np.ndarray
    phitt: np.ndarray


def wrap_angle(a: np.ndarray) -> np.ndarray:
    """Angles mapped to ``[−π, π)`` (the convention of ``solver.kernels.primitives``)."""
    return (a + np.pi) % (2.0 * np.pi) - np.pi


class Primitive:
    """Base: instances are added with marker indices, a constant and a time function."""

    code = -1  # the kernel type (``solver.kernels.primitives``)
    rows = 1
    slots: tuple[str, ...] = ()
    #: the slot pairs with non-zero second derivatives (``None``: all of them)
    pairs: tuple[tuple[int, int], ...] | None = None

    def __init__(self) -> None:
        self._markers: list[tuple[int, ...]] = []
        self._const: list[float] = []
        self._funcs: list = []

    def __len__(self) -> int:
        return len(self._const)

    def add(self, markers: tuple[int, ...], const: float = 0.0, function=None) -> int:
        """Add an instance; ``c(t) = const + function(t)``. Returns its index."""
        assert len(markers) == len(self.slots)
        self._markers.append(tuple(markers))
        self._const.append(float(const))
        self._funcs.append(function)
        return len(self._const) - 1

    def freeze(self) -> None:
        m = np.array(self._markers, dtype=np.int64).reshape(-1, len(self.slots))
        self.index = [m[:, k] for k in range(len(self.slots))]
        self.const = np.array(self._const, float)
        self.driven = [i for i, f in enumerate(self._funcs) if f is not None]

    def derived(self) -> dict:
        """Arrays derived from ``index`` and ``const`` for the evaluation (``zero``,
        ``index2d``: the slots' markers as one ``(m, slots)`` array), rebuilt whenever either is replaced
        (a copy of the group for a subset of its instances, ``group_evaluation``)."""
        hit = self.__dict__.get("_derived")
        if hit is None or hit[0] is not self.index or hit[1] is not self.const:
            extra = {
                "zero": np.zeros(len(self.const)),
                "index2d": np.ascontiguousarray(np.stack(self.index, axis=1), dtype=np.int64),
            }
            hit = self._derived = (self.index, self.const, extra)
        return hit[2]

    def target(self, t: float):
        """``c(t)``, ``ċ(t)``, ``c̈(t)`` per instance (read-only arrays: without driving
        functions they are the constants and shared zeros)."""
        if not self.driven:
            zero = self.derived()["zero"]
            return self.const, zero, zero
        c = self.const.copy()
        cd = np.zeros_like(c)
        cdd = np.zeros_like(c)
        for i in self.driven:
            f, df, ddf = self._funcs[i].derivatives(t)
            c[i] += f
            cd[i], cdd[i] = df, ddf
        return c, cd, cdd

    def evaluate(self, ms: MarkerState, t: float) -> PrimitiveEval:
        c, cd, cdd = self.target(t)
        idx = self.derived()["index2d"]
        phi, blocks, quad = kp.evaluate_many(self.code, idx, self.const, c, ms.u, ms.udot)
        rows = (len(self), self.rows)
        phit = np.broadcast_to(-cd[:, None], rows)
        phitt = np.broadcast_to(-cdd[:, None], rows)
        return PrimitiveEval(phi, [blocks[:, k] for k in range(len(self.slots))], quad, phit, phitt)

    def assemble(self, ms: MarkerState, t: float):
        """``(Φ, Φ_t, γ, values)`` of all instances, each ``(m, r)``, and per slot the
        entries of ``blocks·J`` (raveled ``(m, r, K)``): what the system assembles."""
        ev = self.evaluate(ms, t)
        acc = -ev.quad - ev.phitt
        vals = []
        for idx, blk in zip(self.index, ev.blocks, strict=True):
            vals.append(np.matmul(blk, ms.jac[idx]).ravel())  # matmul: less overhead
            acc = acc - np.matmul(blk, ms.jdq[idx][:, :, None])[:, :, 0]
        return ev.phi, ev.phit, acc, vals

    def slot_forces(
        self, ms: MarkerState, t: float, lam: np.ndarray, blocks=None
    ) -> list[np.ndarray]:
        """``Σ_r λ_r ∂f_r/∂u_i`` per slot i, ``(m, 3)`` each: the force the multipliers
        ``lam`` ``(m, r)`` put on each marker (``blocks``: those of :meth:`evaluate` at
        ``ms``, if the caller has them)."""
        if blocks is None:
            blocks = self.evaluate(ms, t).blocks
        return [np.matmul(lam[:, None, :], blk)[:, 0] for blk in blocks]

    def position_rows(self, ms: MarkerState, t: float):
        """``(Φ, values)`` of :meth:`assemble` alone (``ms`` may be at rest)."""
        phi, _, _, vals = self.assemble(ms, t)
        return phi, vals

    def hessians(self, ms: MarkerState) -> dict[tuple[int, int], np.ndarray]:
        """``∂²f/∂u_i∂u_j`` for the non-zero ordered slot pairs, each ``(m, r, 3, 3)``."""
        if self.rows != 1:
            return {}  # Coincident: linear in u
        idx = self.derived()["index2d"]
        h = kp.hessians_many(self.code, idx, self.const, ms.u)
        ns = len(self.slots)
        return {
            (a, b): h[:, a, b][:, None]
            for a in range(ns)
            for b in range(ns)
            if self.pairs is None or (a, b) in self.pairs
        }


class Coincident(Primitive):
    """Two points coincide: ``Φ = u_b − u_a`` (3 rows)."""

    code = kp.COINCIDENT
    rows = 3
    slots = ("point_a", "point_b")

    def slot_forces(self, ms, t, lam, blocks=None):
        return [np.negative(lam), lam]


class Dot(Primitive):
    """Scalar product of two directions: ``Φ = u_a·u_b − c(t)`` (perpendicular: c = 0)."""

    code = kp.DOT
    slots = ("vector_a", "vector_b")
    pairs = ((0, 1), (1, 0))


class PointPlane(Primitive):
    """Offset of point b from point a along direction n: ``Φ = (u_b − u_a)·u_n − c(t)``.

    With ``c = 0`` and n a plane normal fixed with a, b stays on the plane through a;
    with n along a sliding axis and ``c(t)`` a function, it drives a relative displacement.
    """

    code = kp.POINT_PLANE
    slots = ("point_a", "point_b", "direction")
    pairs = ((0, 2), (2, 0), (1, 2), (2, 1))


class Distance(Primitive):
    """Distance between two points: ``Φ = (d·d − L²)/(2L)``, ``d = u_b − u_a``.

    Scaled so that ``∂Φ/∂d`` is the unit direction when the constraint holds (m units).
    ``const`` holds L.
    """

    code = kp.DISTANCE
    slots = ("point_a", "point_b")


class Angle(Primitive):
    """Relative rotation about an axis follows ``c(t)``: ``Φ = wrap(θ − c(t))``,
    ``θ = atan2(w1·u2, u1·u2)``.

    The wrap keeps Φ continuous through any number of turns while the error is below π.
    """

    code = kp.ANGLE
    slots = ("u1", "w1", "u2")


PRIMITIVES = (Coincident, Dot, PointPlane, Distance, Angle)
