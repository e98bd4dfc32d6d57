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
"""

from __future__ import annotations

import numpy as np

from solver.mechanics.kernel_cache import compiled_kernels
from solver.mechanics.rotations import rotate_jacobian

K = 7  # the fewest columns a marker table has (a rigid body's 7 coordinates)

GROUND, RIGID, POINT_MASS, LINEAR = 0, 1, 2, 3

#: from this many rigid markers on, they are evaluated by a compiled loop (fewer: NumPy,
#: whose per-call cost is small there and which needs no compilation)
COMPILED_MIN_RIGID = 64


class MarkerState:
    """Markers evaluated at ``(q, q̇)``: arrays over all N markers.

    ``u`` (N, 3) global values, ``udot`` (N, 3) their time derivatives, ``jac`` (N, 3, K)
    ``∂u/∂q`` over the body's columns, ``jdq`` (N, 3) ``J̇ q̇`` and ``jdot`` (N, 3, K)
    ``∂u̇/∂q`` (built on first use: only force Jacobians and second derivatives need it).
    """

    __slots__ = ("u", "udot", "jac", "jdq", "_jdot", "_jdot_parts")

    def __init__(self, u, udot, jac, jdq, jdot=None, parts=None) -> None:
        self.u, self.udot, self.jac, self.jdq = u, udot, jac, jdq
        self._jdot = jdot
        self._jdot_parts = parts  # (shape, rigid marker indices, S(ṗ, s̄) of those)

    @property
    def jdot(self) -> np.ndarray:
        if self._jdot is None:
            shape, rows, sjd = self._jdot_parts
            out = np.zeros(shape)
            if rows is not None:
                out[rows, :, 3:7] = sjd
            self._jdot = out
        return self._jdot


def transpose_force_hessian(local: np.ndarray, f: np.ndarray) -> np.ndarray:
    """``∂(S(p, s̄)ᵀ f)/∂p`` for local vectors ``s̄`` and fixed global vectors ``f``, ``(m, 4, 4)``.

    ``f·A(p) s̄`` is a quadratic form in p, so ``S(p, s̄)ᵀ f`` (its gradient) is linear in p
    and this derivative is the constant symmetric matrix
    ``2 [[f·s̄, (s̄×f)ᵀ], [s̄×f, f s̄ᵀ + s̄ fᵀ − (f·s̄) I]]``.
    """
    s = np.asarray(local, float).reshape(-1, 3)
    f = np.asarray(f, float).reshape(-1, 3)
    fs = np.einsum("ni,ni->n", f, s)
    out = np.empty((len(f), 4, 4))
    out[:, 0, 0] = fs
    sxf = out[:, 0, 1:]  # s × f, written out (np.cross costs more than the product)
    sxf[:, 0] = s[:, 1] * f[:, 2] - s[:, 2] * f[:, 1]
    sxf[:, 1] = s[:, 2] * f[:, 0] - s[:, 0] * f[:, 2]
    sxf[:, 2] = s[:, 0] * f[:, 1] - s[:, 1] * f[:, 0]
    out[:, 1:, 0] = sxf
    fst = f[:, :, None] * s[:, None, :]
    out[:, 1:, 1:] = fst + fst.transpose(0, 2, 1)
    for k in range(1, 4):
        out[:, k, k] -= fs
    out *= 2.0
    return out


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
        self._jac0 = np.zeros((n, 3, kk))
        self._jac0[self.mass_pts, :, :3] = np.eye(3)
        rp = self.rigid[self.is_point[self.rigid]]
        self._jac0[rp, :, :3] = np.eye(3)
        for i, coef in self._coef.items():
            self._jac0[i, :, : coef.shape[1]] = coef
        self._lin_coef = self._jac0[self.linear]
        self._prepare()

    def gather(self, x: np.ndarray) -> np.ndarray:
        """``x`` at every marker's columns, ``(N, K)``, zero where a column is -1."""
        ext = np.append(x, 0.0)
        return ext[self.cols]

    def _prepare(self) -> None:
        """Index arrays of the lean evaluation, built once: the columns each kind reads
        (no -1 padding to mask), the ground values, the point flags of rigid markers."""
        n, kk = len(self.kind), self.K
        self._u0 = np.zeros((n, 3))
        self._u0[self.ground] = self.local[self.ground]
        self._pm_cols = self.cols[self.mass_pts, :3]
        self._lin_cols = np.where(self.cols[self.linear] < 0, 0, self.cols[self.linear])
        self._lin_local = self.local[self.linear]
        r = self.rigid
        self._rig_cols = self.cols[r, :7]
        self._rig_local = self.local[r]
        self._rig_point = self.is_point[r][:, None]
        # S(p, s̄) is linear in p: S(p, s̄).ravel() = p @ W(s̄), W's rows S(e_k, s̄) (4 × 12);
        # ∂(S(p, s̄)ᵀ f)/∂p is linear in f: f @ H(s̄), H's rows those of f = e_i (3 × 16)
        eye4, eye3 = np.eye(4), np.eye(3)
        self._rig_w = np.stack(
            [
                rotate_jacobian(np.tile(e, (len(r), 1)), self._rig_local).reshape(-1, 12)
                for e in eye4
            ],
            axis=1,
        )
        self._force_h = np.zeros((n, 3, 16))
        self._force_h[r] = np.stack(
            [
                transpose_force_hessian(self._rig_local, np.tile(e, (len(r), 1))).reshape(-1, 16)
                for e in eye3
            ],
            axis=1,
        )
        self._all_rigid = len(r) == n and n > 0
        self._jdot_shape = (n, 3, kk)

    def evaluate(self, q: np.ndarray, qd: np.ndarray) -> MarkerState:
        """The markers at ``(q, q̇)``; asking again at the same ``(q, q̇)`` (a formulation's
        last state, then the time loop's outputs) returns the same (read-only) state."""
        key = (q.tobytes(), qd.tobytes())
        last = self.__dict__.get("_last")
        if last is not None and last[0] == key:
            return last[1]
        ms = self._evaluate(q, qd)
        self._last = (key, ms)
        return ms

    def positions(self, q: np.ndarray) -> MarkerState:
        """The markers at ``q`` at rest: ``u`` and ``J`` (``u̇``, ``J̇q̇`` zero), without
        the velocity products of :meth:`evaluate` (position-level iterations)."""
        n = len(self.kind)
        jac = self._jac0.copy()
        r = self.rigid
        zero = np.zeros((n, 3))
        parts = (self._jdot_shape, None, None)
        if self._all_rigid:
            qr = q[self._rig_cols]
            p = qr[:, 3:7]
            sj = np.matmul(p[:, None, :], self._rig_w).reshape(-1, 3, 4)
            jac[:, :, 3:7] = sj
            u = 0.5 * np.matmul(sj, p[:, :, None])[:, :, 0] + self._rig_point * qr[:, :3]
            return MarkerState(u, zero, jac, zero, None, parts)
        u = self._u0.copy()
        if len(self.mass_pts):
            u[self.mass_pts] = q[self._pm_cols]
        lin = self.linear
        if len(lin):
            qc = q[self._lin_cols]
            u[lin] = np.matmul(self._lin_coef, qc[:, :, None])[:, :, 0] + self._lin_local
        if len(r):
            qr = q[self._rig_cols]
            p = qr[:, 3:7]
            sj = np.matmul(p[:, None, :], self._rig_w).reshape(-1, 3, 4)
            jac[r, :, 3:7] = sj
            u[r] = 0.5 * np.matmul(sj, p[:, :, None])[:, :, 0] + self._rig_point * qr[:, :3]
        return MarkerState(u, zero, jac, zero, None, parts)

    def _evaluate(self, q: np.ndarray, qd: np.ndarray) -> MarkerState:
        jac = self._jac0.copy()
        r = self.rigid
        if len(r) >= COMPILED_MIN_RIGID and compiled_kernels():  # many: one compiled loop
            return self._evaluate_compiled(q, qd, jac)
        if self._all_rigid:  # the values are the rigid block itself (no scatter)
            qr, qdr = q[self._rig_cols], qd[self._rig_cols]
            p, pd = qr[:, 3:7], qdr[:, 3:7]
            pt = self._rig_point
            sj = np.matmul(p[:, None, :], self._rig_w).reshape(-1, 3, 4)
            sjd = np.matmul(pd[:, None, :], self._rig_w).reshape(-1, 3, 4)
            jac[:, :, 3:7] = sj
            u = 0.5 * np.matmul(sj, p[:, :, None])[:, :, 0] + pt * qr[:, :3]
            udot = np.matmul(sj, pd[:, :, None])[:, :, 0] + pt * qdr[:, :3]
            jdq = np.matmul(sjd, pd[:, :, None])[:, :, 0]
            return MarkerState(u, udot, jac, jdq, None, (self._jdot_shape, r, sjd))
        u = self._u0.copy()
        udot = np.zeros(u.shape)
        jdq = np.zeros(u.shape)
        m = self.mass_pts
        if len(m):
            u[m] = q[self._pm_cols]
            udot[m] = qd[self._pm_cols]
        lin = self.linear
        if len(lin):
            qc, qdc = q[self._lin_cols], qd[self._lin_cols]
            u[lin] = np.matmul(self._lin_coef, qc[:, :, None])[:, :, 0] + self._lin_local
            udot[lin] = np.matmul(self._lin_coef, qdc[:, :, None])[:, :, 0]
        sjd = None
        if len(r):
            qr, qdr = q[self._rig_cols], qd[self._rig_cols]
            p, pd = qr[:, 3:7], qdr[:, 3:7]
            pt = self._rig_point
            sj = np.matmul(p[:, None, :], self._rig_w).reshape(-1, 3, 4)
            sjd = np.matmul(pd[:, None, :], self._rig_w).reshape(-1, 3, 4)
            jac[r, :, 3:7] = sj
            # S(p, s) p = 2 A(p) s and S(ṗ, s) ṗ = 2 A(ṗ) s (homogeneous quadratic form)
            # (batched matmul: the same products as einsum with less call overhead)
            u[r] = 0.5 * np.matmul(sj, p[:, :, None])[:, :, 0] + pt * qr[:, :3]
            udot[r] = np.matmul(sj, pd[:, :, None])[:, :, 0] + pt * qdr[:, :3]
            jdq[r] = np.matmul(sjd, pd[:, :, None])[:, :, 0]
        return MarkerState(u, udot, jac, jdq, None, (self._jdot_shape, r if len(r) else None, sjd))

    def _evaluate_compiled(self, q: np.ndarray, qd: np.ndarray, jac: np.ndarray) -> MarkerState:
        """``_evaluate`` with the rigid markers in :func:`marker_kernels.rigid_markers`."""
        from solver.mechanics.marker_kernels import rigid_markers

        r = self.rigid
        u = self._u0.copy()
        udot = np.zeros(u.shape)
        jdq = np.zeros(u.shape)
        if len(self.mass_pts):
            u[self.mass_pts] = q[self._pm_cols]
            udot[self.mass_pts] = qd[self._pm_cols]
        lin = self.linear
        if len(lin):
            qc, qdc = q[self._lin_cols], qd[self._lin_cols]
            u[lin] = np.matmul(self._lin_coef, qc[:, :, None])[:, :, 0] + self._lin_local
            udot[lin] = np.matmul(self._lin_coef, qdc[:, :, None])[:, :, 0]
        if "_rig_point_f" not in self.__dict__:
            self._rig_point_f = self._rig_point[:, 0].astype(float)
        sjd = np.empty((len(r), 3, 4))
        q = np.ascontiguousarray(q, dtype=float)
        qd = np.ascontiguousarray(qd, dtype=float)
        rigid_markers(
            q, qd, r, self._rig_cols, self._rig_w, self._rig_point_f, u, udot, jac, jdq, sjd
        )
        return MarkerState(u, udot, jac, jdq, None, (self._jdot_shape, r, sjd))

    def force_jacobian(self, idx, f: np.ndarray) -> np.ndarray:
        """``∂(J_iᵀ f_i)/∂q`` with the force ``f_i`` held fixed, for markers ``idx``.

        ``f`` has shape ``(m, 3)``; the result ``(m, K, K)`` is over each marker's columns
        (``cols[idx]``). Only rigid markers contribute (their J depends on p, linearly);
        the block is constant in q: see :func:`transpose_force_hessian`.
        """
        idx = np.asarray(idx, dtype=np.int64).reshape(-1)
        out = np.zeros((len(idx), self.K, self.K))
        f = np.asarray(f, float).reshape(-1, 1, 3)
        # precomputed per marker (zero for non-rigid ones): one product
        out[:, 3:7, 3:7] = np.matmul(f, self._force_h[idx]).reshape(-1, 4, 4)
        return out
