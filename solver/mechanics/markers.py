"""Markers: points and directions fixed to bodies, evaluated all at once.

A constraint or force never looks at body coordinates directly: it asks for markers.
A marker is a point (``r + A(p) s̄`` on a rigid body, the position of a point mass, a
fixed global point on ground) or a direction (``A(p) v̄``; fixed on ground). For every
marker the table gives its global value ``u``, its velocity ``u̇ = J q̇``, the Jacobian
``J = ∂u/∂q`` over the coordinates of its body (``K`` columns, padded with -1 where a
body has fewer), and ``J̇ q̇`` (the velocity-product part of ``ü``).

A ``LINEAR`` marker is an affine function of its columns, ``u = C q[cols] + c₀`` with a
constant ``3×k`` matrix C: points and vectors of natural-coordinate bodies and of ANCF
nodes are of this kind (``J = C``, ``J̇q̇ = 0``). The table pads every marker to ``K``
columns, the largest any of its markers uses (at least 7).

For force elements the table also gives ``jdot = ∂u̇/∂q`` (``S(ṗ, s̄)`` in the Euler
parameter columns of a rigid marker, since ``S(p, s̄) ṗ = S(ṗ, s̄) p``; zero otherwise) and,
through :meth:`Markers.force_jacobian`, ``∂(Jᵀ f)/∂q`` for a force ``f`` held fixed.

The equations are the compiled kernels of :mod:`solver.kernels.markers`; this table
builds their arrays and hands out the results.
"""

from __future__ import annotations

import numpy as np

from solver.kernels import markers as km

K = 7  # the fewest columns a marker table has (a rigid body's 7 coordinates)

GROUND, RIGID, POINT_MASS, LINEAR = km.GROUND, km.RIGID, km.POINT_MASS, km.LINEAR


def _f64(x) -> np.ndarray:
    """A writable C-contiguous float64 array (what the kernels are compiled for)."""
    a = np.ascontiguousarray(x, dtype=float)
    return a if a.flags.writeable else a.copy()


class MarkerState:
    """Markers evaluated at ``(q, q̇)``: arrays over all N markers.

    ``u`` (N, 3) global values, ``udot`` (N, 3) their time derivatives, ``jac`` (N, 3, K)
    ``∂u/∂q`` over the body's columns, ``jdq`` (N, 3) ``J̇ q̇``, ``sjd`` (N, 3, 4) ``S(ṗ, s̄)``
    of rigid markers and ``jdot`` (N, 3, K) ``∂u̇/∂q`` (built on first use: only force
    Jacobians and second derivatives need it). ``arrays`` is the kernels' own tuple.
    """

    __slots__ = ("arrays", "u", "udot", "jac", "jdq", "sjd", "_jdot", "_rigid")

    def __init__(self, arrays, rigid) -> None:
        self.arrays = arrays
        self.u, self.udot, self.jac, self.jdq, self.sjd = arrays
        self._jdot = None
        self._rigid = rigid

    @property
    def jdot(self) -> np.ndarray:
        if self._jdot is None:
            out = np.zeros(self.jac.shape)
            r = self._rigid
            if len(r):
                out[r, :, 3:7] = self.sjd[r]
            self._jdot = out
        return self._jdot


class Markers:
    """A table of markers; add them, then ``freeze`` before evaluating."""

    def __init__(self) -> None:
        self._kind: list[int] = []
        self._cols: list[list[int]] = []
        self._local: list[np.ndarray] = []
        self._point: list[bool] = []
        self._coef: dict[int, np.ndarray] = {}

    def __len__(self) -> int:
        return len(self._kind)

    def add(self, kind: int, cols, local, is_point: bool) -> int:
        """Add a marker on a body of ``kind`` whose coordinates are ``cols``; its local
        vector (body frame for rigid bodies, global for ground) is ``local``."""
        self._kind.append(kind)
        self._cols.append(list(cols))
        self._local.append(np.asarray(local, float))
        self._point.append(bool(is_point))
        return len(self._kind) - 1

    def add_linear(self, cols, coef, offset=(0.0, 0.0, 0.0), is_point: bool = True) -> int:
        """Add ``u = coef @ q[cols] + offset`` (``coef`` is ``3 × len(cols)``)."""
        coef = np.asarray(coef, float).reshape(3, len(cols))
        idx = self.add(LINEAR, cols, offset, is_point)
        self._coef[idx] = coef
        return idx

    def freeze(self) -> None:
        self.K = max([K] + [len(c) for c in self._cols])
        kk = self.K
        n = len(self._kind)
        self.kind = np.array(self._kind, dtype=np.int64)
        self.cols = np.array(
            [c + [-1] * (kk - len(c)) for c in self._cols], dtype=np.int64
        ).reshape(-1, kk)
        self.local = np.array(self._local, float).reshape(-1, 3)
        self.is_point = np.array(self._point, bool)
        self.rigid = np.flatnonzero(self.kind == RIGID)
        self.mass_pts = np.flatnonzero(self.kind == POINT_MASS)
        self.ground = np.flatnonzero(self.kind == GROUND)
        self.linear = np.flatnonzero(self.kind == LINEAR)
        self.coef = np.zeros((n, 3, kk))
        for i, coef in self._coef.items():
            self.coef[i, :, : coef.shape[1]] = coef
        self.point = self.is_point.astype(np.int64)

    def gather(self, x: np.ndarray) -> np.ndarray:
        """``x`` at every marker's columns, ``(N, K)``, zero where a column is -1."""
        ext = np.append(x, 0.0)
        return ext[self.cols]

    def arrays(self) -> tuple:
        """``(kind, cols, local, point, coef)``: the table as the kernels read it."""
        return self.kind, self.cols, self.local, self.point, self.coef

    def evaluate(self, q: np.ndarray, qd: np.ndarray) -> MarkerState:
        """The markers at ``(q, q̇)``; asking again at the same ``(q, q̇)`` (a formulation's
        last state, then the time loop's outputs) returns the same (read-only) state."""
        key = (q.tobytes(), qd.tobytes())
        last = self.__dict__.get("_last")
        if last is not None and last[0] == key:
            return last[1]
        q, qd = _f64(q), _f64(qd)
        ms = MarkerState(km.evaluate_markers(*self.arrays(), q, qd, True), self.rigid)
        self._last = (key, ms)
        return ms

    def values_of(self, idx: np.ndarray, q: np.ndarray, qd: np.ndarray):
        """``(u, u̇)`` of the markers ``idx`` alone at ``(q, q̇)``, ``(len(idx), 3)`` each (the
        output points of a row: not the whole table)."""
        values = km.evaluate_markers(*self.subset(idx), _f64(q), _f64(qd), True)
        return values[0], values[1]

    def subset(self, idx: np.ndarray) -> tuple:
        """The table of the markers ``idx`` alone, as :meth:`arrays` (made once per ``idx``)."""
        idx = np.asarray(idx, dtype=np.int64)
        key = idx.tobytes()
        sub = self.__dict__.setdefault("_subsets", {}).get(key)
        if sub is None:
            sub = tuple(np.ascontiguousarray(a[idx]) for a in self.arrays())
            self._subsets[key] = sub
        return sub

    def positions(self, q: np.ndarray) -> MarkerState:
        """The markers at ``q`` at rest: ``u`` and ``J`` (``u̇``, ``J̇q̇`` zero), without
        the velocity products of :meth:`evaluate` (position-level iterations)."""
        q = _f64(q)
        return MarkerState(km.evaluate_markers(*self.arrays(), q, q, False), self.rigid)

    def force_jacobian(self, idx, f: np.ndarray) -> np.ndarray:
        """``∂(J_iᵀ f_i)/∂q`` with the force ``f_i`` held fixed, for markers ``idx``.

        ``f`` has shape ``(m, 3)``; the result ``(m, K, K)`` is over each marker's columns
        (``cols[idx]``). Only rigid markers contribute (their J depends on p, linearly):
        the constant 4×4 block ``∂(S(p, s̄)ᵀ f)/∂p`` of :func:`solver.kernels.rotations.force_hessian`.
        """
        idx = np.ascontiguousarray(idx, dtype=np.int64).reshape(-1)
        f = _f64(np.reshape(f, (-1, 3)))
        return km.force_jacobians(self.kind, self.local, idx, f, self.K)
