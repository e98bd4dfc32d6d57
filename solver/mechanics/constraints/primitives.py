"""Constraint primitives, each vectorised over all its instances in a system.

A primitive is a scalar or vector function ``Φ = f(u) − c(t)`` of marker values ``u``
(points and directions, see ``solver.mechanics.markers``). Each gives, per instance:

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

from solver.mechanics.markers import MarkerState


@dataclass
class PrimitiveEval:
    phi: np.ndarray
    blocks: list[np.ndarray]
    quad: np.ndarray
    phit: np.ndarray
    phitt: np.ndarray


def wrap_angle(a: np.ndarray) -> np.ndarray:
    """Angles mapped to ``[−π, π)``."""
    return (a + np.pi) % (2.0 * np.pi) - np.pi


def as_slice(index: np.ndarray):
    """``index`` as an equivalent slice when it is an increasing arithmetic progression
    (markers are added joint by joint, so they usually are): a slice takes a view, ~10×
    cheaper than fancy indexing for the small arrays of a step."""
    index = np.asarray(index, dtype=np.int64)
    if len(index) == 0:
        return index
    step = int(index[1] - index[0]) if len(index) > 1 else 1
    if step > 0 and np.array_equal(index, index[0] + step * np.arange(len(index))):
        return slice(int(index[0]), int(index[-1]) + 1, step)
    return index


class Primitive:
    """Base: instances are added with marker indices, a constant and a time function."""

    rows = 1
    slots: tuple[str, ...] = ()

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
        """Arrays derived from ``index`` and ``const`` for the evaluation (``at``: the
        indices as slices where possible, ``zero``), rebuilt whenever either is replaced
        (a copy of the group for a subset of its instances, ``group_evaluation``)."""
        hit = self.__dict__.get("_derived")
        if hit is None or hit[0] is not self.index or hit[1] is not self.const:
            extra = {"at": [as_slice(i) for i in self.index], "zero": np.zeros(len(self.const))}
            hit = self._derived = (self.index, self.const, self._derive(extra))
        return hit[2]

    def _derive(self, extra: dict) -> dict:
        return extra

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
        raise NotImplementedError

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
        """``∂²f/∂u_i∂u_j`` for the non-zero ordered slot pairs, each ``(m, r, 3, 3)``
        (or broadcastable to it)."""
        return {}


def _dot(a, b):
    return (a * b).sum(-1)  # the method: np.sum's wrapper costs more than the sum


class Coincident(Primitive):
    """Two points coincide: ``Φ = u_b − u_a`` (3 rows)."""

    rows = 3
    slots = ("point_a", "point_b")

    def evaluate(self, ms, t):
        a, b = self.index
        m = len(self)
        eye = np.broadcast_to(np.eye(3), (m, 3, 3))
        zero = np.zeros((m, 3))
        return PrimitiveEval(ms.u[b] - ms.u[a], [-eye, eye], zero, zero, zero)

    def assemble(self, ms, t):
        """The blocks are ∓I: ``Φ_q`` entries are ∓J and ``γ = J̇q̇_a − J̇q̇_b`` directly."""
        a, b = self.derived()["at"]
        zero = np.zeros((len(self), 3))
        vals = [np.negative(ms.jac[a]).ravel(), ms.jac[b].ravel()]
        return ms.u[b] - ms.u[a], zero, ms.jdq[a] - ms.jdq[b], vals

    def position_rows(self, ms, t):
        a, b = self.derived()["at"]
        return ms.u[b] - ms.u[a], [np.negative(ms.jac[a]).ravel(), ms.jac[b].ravel()]

    def slot_forces(self, ms, t, lam, blocks=None):
        return [np.negative(lam), lam]


class Dot(Primitive):
    """Scalar product of two directions: ``Φ = u_a·u_b − c(t)`` (perpendicular: c = 0)."""

    slots = ("vector_a", "vector_b")

    def evaluate(self, ms, t):
        a, b = self.index
        c, cd, cdd = self.target(t)
        ua, ub = ms.u[a], ms.u[b]
        phi = _dot(ua, ub) - c
        quad = 2.0 * _dot(ms.udot[a], ms.udot[b])
        return PrimitiveEval(
            phi[:, None],
            [ub[:, None, :], ua[:, None, :]],
            quad[:, None],
            -cd[:, None],
            -cdd[:, None],
        )

    def position_rows(self, ms, t):
        """``Φ = u_a·u_b − c``, entries ``u_bᵀ J_a`` and ``u_aᵀ J_b``."""
        a, b = self.derived()["at"]
        ua, ub = ms.u[a][:, None, :], ms.u[b][:, None, :]
        phi = np.matmul(ua, ub.transpose(0, 2, 1))[:, :, 0] - self.target(t)[0][:, None]
        return phi, [np.matmul(ub, ms.jac[a]).ravel(), np.matmul(ua, ms.jac[b]).ravel()]

    def hessians(self, ms):
        eye = np.broadcast_to(np.eye(3), (len(self), 1, 3, 3))
        return {(0, 1): eye, (1, 0): eye}


class PointPlane(Primitive):
    """Offset of point b from point a along direction n: ``Φ = (u_b − u_a)·u_n − c(t)``.

    With ``c = 0`` and n a plane normal fixed with a, b stays on the plane through a;
    with n along a sliding axis and ``c(t)`` a function, it drives a relative displacement.
    """

    slots = ("point_a", "point_b", "direction")

    def evaluate(self, ms, t):
        a, b, n = self.index
        c, cd, cdd = self.target(t)
        d = ms.u[b] - ms.u[a]
        un = ms.u[n]
        phi = _dot(d, un) - c
        quad = 2.0 * _dot(ms.udot[b] - ms.udot[a], ms.udot[n])
        return PrimitiveEval(
            phi[:, None],
            [-un[:, None, :], un[:, None, :], d[:, None, :]],
            quad[:, None],
            -cd[:, None],
            -cdd[:, None],
        )

    def hessians(self, ms):
        eye = np.broadcast_to(np.eye(3), (len(self), 1, 3, 3))
        return {(0, 2): -eye, (2, 0): -eye, (1, 2): eye, (2, 1): eye}


class Distance(Primitive):
    """Distance between two points: ``Φ = (d·d − L²)/(2L)``, ``d = u_b − u_a``.

    Scaled so that ``∂Φ/∂d`` is the unit direction when the constraint holds (m units).
    ``const`` holds L.
    """

    slots = ("point_a", "point_b")

    def evaluate(self, ms, t):
        a, b = self.index
        length = self.const
        d = ms.u[b] - ms.u[a]
        dd = ms.udot[b] - ms.udot[a]
        phi = (_dot(d, d) - length**2) / (2.0 * length)
        g = d / length[:, None]
        quad = _dot(dd, dd) / length
        zero = np.zeros_like(phi)[:, None]
        return PrimitiveEval(
            phi[:, None], [-g[:, None, :], g[:, None, :]], quad[:, None], zero, zero
        )

    def _derive(self, extra: dict) -> dict:
        length = self.const[:, None]
        return {**extra, "len": length, "len2": length**2, "two_len": 2.0 * length}

    def assemble(self, ms, t):
        """``Φ = (d·d − L²)/2L``, ``Φ_q = ±(d/L)ᵀ J``, ``γ = (d/L)·(J̇q̇_a − J̇q̇_b) − ḋ·ḋ/L``
        (the base class's sums written out for the blocks ``∓d/L``)."""
        x = self.derived()
        a, b = x["at"]
        d = ms.u[b] - ms.u[a]
        dd = ms.udot[b] - ms.udot[a]
        g = (d / x["len"])[:, None, :]
        phi = (np.matmul(d[:, None, :], d[:, :, None])[:, :, 0] - x["len2"]) / x["two_len"]
        quad = np.matmul(dd[:, None, :], dd[:, :, None])[:, :, 0] / x["len"]
        gamma = np.matmul(g, (ms.jdq[a] - ms.jdq[b])[:, :, None])[:, :, 0] - quad
        vals = [np.matmul(np.negative(g), ms.jac[a]).ravel(), np.matmul(g, ms.jac[b]).ravel()]
        return phi, x["zero"][:, None], gamma, vals

    def position_rows(self, ms, t):
        x = self.derived()
        a, b = x["at"]
        d = ms.u[b] - ms.u[a]
        g = (d / x["len"])[:, None, :]
        phi = (np.matmul(d[:, None, :], d[:, :, None])[:, :, 0] - x["len2"]) / x["two_len"]
        vals = [np.matmul(np.negative(g), ms.jac[a]).ravel(), np.matmul(g, ms.jac[b]).ravel()]
        return phi, vals

    def hessians(self, ms):
        eye = np.eye(3) / self.const[:, None, None, None]
        return {(0, 0): eye, (1, 1): eye, (0, 1): -eye, (1, 0): -eye}


def angle_parts(ms: MarkerState, u1, w1, u2):
    """Relative angle ``θ = atan2(w1·u2, u1·u2)`` and its derivatives.

    ``u1``, ``w1 = a × u1`` are directions fixed in body 1 (perpendicular to the axis a),
    ``u2`` is fixed in body 2 and equals ``u1`` at θ = 0. Returns ``(θ, blocks, θ̇, quad)``
    with ``blocks`` the gradients for (u1, w1, u2) and ``quad = u̇ᵀ θ_uu u̇``.
    """
    a, w, b = ms.u[u1], ms.u[w1], ms.u[u2]
    ad, wd, bd = ms.udot[u1], ms.udot[w1], ms.udot[u2]
    x, y = _dot(a, b), _dot(w, b)
    r2 = x * x + y * y
    tx, ty = -y / r2, x / r2
    xd = _dot(ad, b) + _dot(a, bd)
    yd = _dot(wd, b) + _dot(w, bd)
    theta = np.arctan2(y, x)
    blocks = [tx[:, None] * b, ty[:, None] * b, tx[:, None] * a + ty[:, None] * w]
    txx, tyy, txy = 2 * x * y / r2**2, -2 * x * y / r2**2, (y * y - x * x) / r2**2
    quad = (
        tx * 2.0 * _dot(ad, bd)
        + ty * 2.0 * _dot(wd, bd)
        + txx * xd * xd
        + 2.0 * txy * xd * yd
        + tyy * yd * yd
    )
    return theta, blocks, tx * xd + ty * yd, quad


def angle_hessians(ms: MarkerState, u1, w1, u2) -> dict[tuple[int, int], np.ndarray]:
    """Second derivatives of ``θ = atan2(w1·u2, u1·u2)`` over slots (u1, w1, u2), ``(m, 3, 3)``."""
    a, w, b = ms.u[u1], ms.u[w1], ms.u[u2]
    x, y = _dot(a, b), _dot(w, b)
    r2 = x * x + y * y
    tx, ty = -y / r2, x / r2
    txx, tyy, txy = 2 * x * y / r2**2, -2 * x * y / r2**2, (y * y - x * x) / r2**2

    def outer(c, p, q):
        return c[:, None, None] * p[:, :, None] * q[:, None, :]

    eye = np.eye(3)
    h02 = outer(txx, b, a) + outer(txy, b, w) + tx[:, None, None] * eye
    h12 = outer(txy, b, a) + outer(tyy, b, w) + ty[:, None, None] * eye
    return {
        (0, 0): outer(txx, b, b),
        (0, 1): outer(txy, b, b),
        (1, 0): outer(txy, b, b),
        (1, 1): outer(tyy, b, b),
        (0, 2): h02,
        (2, 0): np.swapaxes(h02, 1, 2),
        (1, 2): h12,
        (2, 1): np.swapaxes(h12, 1, 2),
        (2, 2): outer(txx, a, a) + outer(txy, a, w) + outer(txy, w, a) + outer(tyy, w, w),
    }


class Angle(Primitive):
    """Relative rotation about an axis follows ``c(t)``: ``Φ = wrap(θ − c(t))``.

    The wrap keeps Φ continuous through any number of turns while the error is below π.
    """

    slots = ("u1", "w1", "u2")

    def evaluate(self, ms, t):
        c, cd, cdd = self.target(t)
        theta, blocks, _, quad = angle_parts(ms, *self.index)
        phi = wrap_angle(theta - c)
        return PrimitiveEval(
            phi[:, None],
            [b[:, None, :] for b in blocks],
            quad[:, None],
            -cd[:, None],
            -cdd[:, None],
        )

    def hessians(self, ms):
        return {k: v[:, None] for k, v in angle_hessians(ms, *self.index).items()}


PRIMITIVES = (Coincident, Dot, PointPlane, Distance, Angle)
