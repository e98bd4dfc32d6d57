"""Forward-mode derivatives for force laws written in vector form, vectorised over elements.

A ``Dual`` carries a value and its exact derivative with respect to ``D`` inputs (for a
force element: the components of its markers' values and velocities). Each operation
applies its own differentiation rule, so a force written once with these operations gives
the force and its analytical Jacobian together; no finite differences are involved.

Shapes: a vector is ``v (m, 3)``, ``d (m, 3, D)``; a scalar is ``v (m, 1)``,
``d (m, 1, D)``. ``d`` is ``None`` for a quantity with no derivative (constants, or every
quantity when the caller asks for values only), so the same code evaluates the force alone
at the cost of values only. Plain arrays mix with duals as constants (``__array_ufunc__ =
None`` makes numpy hand ``array ∘ dual`` to the dual's reflected operator).
"""

from __future__ import annotations

import numpy as np


def _v(x):
    return x.v if isinstance(x, Dual) else np.asarray(x, float)


def _d(x):
    return x.d if isinstance(x, Dual) else None


def _plus(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return a + b


class Dual:
    """A value ``v`` and its derivative ``d`` (last axis: the inputs)."""

    __slots__ = ("v", "d")
    __array_ufunc__ = None

    def __init__(self, v, d=None) -> None:
        self.v = v
        self.d = d

    def __add__(self, o):
        return Dual(self.v + _v(o), _plus(self.d, _d(o)))

    __radd__ = __add__

    def __neg__(self):
        return Dual(-self.v, None if self.d is None else -self.d)

    def __sub__(self, o):
        od = _d(o)
        return Dual(self.v - _v(o), _plus(self.d, None if od is None else -od))

    def __rsub__(self, o):
        return (-self) + o

    def __mul__(self, o):
        ov, od = _v(o), _d(o)
        d = None if self.d is None else self.d * ov[..., None]
        if od is not None:
            d = _plus(d, self.v[..., None] * od)
        return Dual(self.v * ov, d)

    __rmul__ = __mul__

    def __truediv__(self, o):
        return self * reciprocal(o)

    def __rtruediv__(self, o):
        return reciprocal(self) * o


def reciprocal(x) -> Dual:
    v = 1.0 / _v(x)
    d = _d(x)
    return Dual(v, None if d is None else -d * (v * v)[..., None])


def dot(a, b) -> Dual:
    """Row-wise dot product of two vectors, a scalar ``(m, 1)``."""
    av, bv, ad, bd = _v(a), _v(b), _d(a), _d(b)
    d = None if ad is None else np.sum(ad * bv[..., None], axis=1, keepdims=True)
    if bd is not None:
        d = _plus(d, np.sum(av[..., None] * bd, axis=1, keepdims=True))
    return Dual(np.sum(av * bv, axis=1, keepdims=True), d)


def where(cond: np.ndarray, a, b) -> Dual:
    """``a`` where ``cond`` else ``b`` (``cond`` broadcasts against the values)."""
    av, bv, ad, bd = _v(a), _v(b), _d(a), _d(b)
    v = np.where(cond, av, bv)
    if ad is None and bd is None:
        return Dual(v)
    shape = np.broadcast_shapes(
        *(x.shape for x in (ad, bd) if x is not None),
        np.shape(v) + (1,),
    )
    ad = np.zeros(shape) if ad is None else ad
    bd = np.zeros(shape) if bd is None else bd
    return Dual(v, np.where(np.asarray(cond)[..., None], ad, bd))


def maximum(a, b) -> Dual:
    """The larger of ``a`` and ``b`` (the derivative of the one chosen)."""
    return where(_v(a) >= _v(b), a, b)


def power(x, p) -> Dual:
    """``x**p`` for ``x ≥ 0``; the derivative is taken as zero where ``x = 0``."""
    xv, xd = _v(x), _d(x)
    pos = xv > 0.0
    safe = np.where(pos, xv, 1.0)
    v = np.where(pos, safe**p, 0.0)
    if xd is None:
        return Dual(v)
    slope = np.where(pos, p * safe ** (p - 1.0), 0.0)
    return Dual(v, xd * slope[..., None])


def sqrt(x) -> Dual:
    """``√x`` for ``x ≥ 0``; the derivative is taken as zero where ``x = 0``."""
    return power(x, 0.5)
