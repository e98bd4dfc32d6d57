"""Second-order forward derivatives for scalar energy densities, vectorised over points (a test
reference: the belt element's energy written once, differentiated by these rules).

A ``Jet`` carries a value ``v`` and, with respect to ``n`` inputs (an element's nodal
coordinates), its gradient ``g`` and Hessian ``h``: shapes ``v (...)``, ``g (..., n)``,
``h (..., n, n)``. Each operation applies its own rule (the product rule
``h(ab) = a h_b + b h_a + g_a g_bᵀ + g_b g_aᵀ``; ``f(x)``: ``h = f' h_x + f'' g_x g_xᵀ``), so an
energy written once with these operations gives the elastic force and its exact Jacobian,
with no finite differences.

``order`` is 0 (values only), 1 (values and gradients) or 2 (also Hessians); a ``None``
gradient or Hessian within the order means zero (an input linear in the coordinates has
no Hessian).
"""

from __future__ import annotations

import numpy as np


class Jet:
    """A value with its gradient and Hessian up to ``order``."""

    __slots__ = ("v", "g", "h", "order")
    __array_ufunc__ = None

    def __init__(self, v, g=None, h=None, order: int = 0) -> None:
        self.v = v
        self.g = g
        self.h = h
        self.order = order

    @staticmethod
    def linear(value: np.ndarray, gradient: np.ndarray, order: int) -> Jet:
        """An input linear in the coordinates: ``value`` ``(...)`` and its constant
        ``gradient`` ``(..., n)`` (broadcast against the value)."""
        if order == 0:
            return Jet(np.asarray(value, float))
        g = np.broadcast_to(gradient, np.shape(value) + gradient.shape[-1:])
        return Jet(np.asarray(value, float), g, None, order)

    def __add__(self, o):
        if not isinstance(o, Jet):
            return Jet(self.v + o, self.g, self.h, self.order)
        order = max(self.order, o.order)
        return Jet(self.v + o.v, _sum(self.g, o.g), _sum(self.h, o.h), order)

    __radd__ = __add__

    def __neg__(self):
        return Jet(-self.v, _neg(self.g), _neg(self.h), self.order)

    def __sub__(self, o):
        return self + (-o if isinstance(o, Jet) else -np.asarray(o, float))

    def __rsub__(self, o):
        return (-self) + o

    def __mul__(self, o):
        if not isinstance(o, Jet):
            o = np.asarray(o, float)
            return Jet(
                self.v * o,
                None if self.g is None else self.g * o[..., None],
                None if self.h is None else self.h * o[..., None, None],
                self.order,
            )
        order = max(self.order, o.order)
        v = self.v * o.v
        if order == 0:
            return Jet(v)
        g = _sum(
            None if self.g is None else self.g * o.v[..., None],
            None if o.g is None else o.g * self.v[..., None],
        )
        h = None
        if order == 2:
            if self.g is not None and o.g is not None:
                h = self.g[..., :, None] * o.g[..., None, :]
                h = h + np.swapaxes(h, -1, -2)
            if self.h is not None:
                h = _sum(h, self.h * o.v[..., None, None])
            if o.h is not None:
                h = _sum(h, o.h * self.v[..., None, None])
        return Jet(v, g, h, order)

    __rmul__ = __mul__

    def apply(self, f, f1, f2) -> Jet:
        """``f(x)`` given its value ``f`` and first and second derivatives ``f1``, ``f2`` at
        ``x`` (arrays shaped like the value)."""
        if self.order == 0 or self.g is None:
            return Jet(f, None, None, self.order)
        g = self.g * f1[..., None]
        h = None
        if self.order == 2:
            h = (self.g[..., :, None] * self.g[..., None, :]) * f2[..., None, None]
            if self.h is not None:
                h = h + self.h * f1[..., None, None]
        return Jet(f, g, h, self.order)

    def reciprocal(self) -> Jet:
        r = 1.0 / self.v
        return self.apply(r, -r * r, 2.0 * r * r * r)

    def sqrt(self) -> Jet:
        s = np.sqrt(self.v)
        return self.apply(s, 0.5 / s, -0.25 / (s * self.v))

    def __truediv__(self, o):
        if isinstance(o, Jet):
            return self * o.reciprocal()
        return self * (1.0 / np.asarray(o, float))

    def sum(self, axis: int) -> Jet:
        """Sum over a value axis (``axis`` counted in the value's dimensions, ≥ 0)."""
        return Jet(
            self.v.sum(axis=axis),
            None if self.g is None else self.g.sum(axis=axis),
            None if self.h is None else self.h.sum(axis=axis),
            self.order,
        )


def _sum(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return a + b


def _neg(a):
    return None if a is None else -a


def dot(a: list[Jet], b: list[Jet]) -> Jet:
    """``Σ_k a_k b_k`` of two vectors given as lists of component jets."""
    out = a[0] * b[0]
    for x, y in zip(a[1:], b[1:], strict=True):
        out = out + x * y
    return out
